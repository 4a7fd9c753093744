"""Build, cache and run the typed playout kernel of a Game (see :mod:`interpreter.fast.typepass`).

``kernel_for(game)`` returns a :class:`Kernel` or raises :class:`NotTyped` (with the reason);
``Kernel.run(num_players, first_seed, n_games)`` plays games ``first_seed .. first_seed + n - 1``
between random bots, as ``simulate`` does through the step API, and returns their final scores,
lengths (actions) and error codes (0: none; a game with an error is replayed by the step API,
which says what went wrong). Needs numba (``pip install -e '.[fast]'``): without it,
:func:`available` is False and ``kernel_for`` raises NotTyped saying so.

The generated module is written to the user's cache folder (:mod:`interpreter.cache`) under a name
made from the SHA-256 of its source (which holds a digest of the fixed code compiled into it), and
its driver ``run`` is compiled with numba's ``cache=True``, everything it calls compiled into it: a
second process loads that machine code instead of compiling it again (start-up, see tools/bench.py).
"""
from __future__ import annotations

import hashlib
import importlib.util
import sys
import tempfile
import threading
from pathlib import Path

import numpy as np

from .typepass import MAX_LIST, NULL, NotTyped, lower

_KERNELS: dict = {}
_BUILDING = threading.RLock()
BATCH = 128  # generators seeded side by side (bots and draws of several games)
EMAX = 64    # draws of one game seeded ahead at most (more are seeded one by one)


def available() -> bool:
    """Whether numba is installed (the ``fast`` extra) and imports."""
    return unavailable() is None


def unavailable() -> str | None:
    """Why the kernel cannot run here (a text), or None: numba not installed, or installed but
    failing to import (a broken or half-written install; its error is given, not hidden)."""
    try:
        import numba  # noqa: F401
    except ImportError as exc:
        import importlib.util
        if importlib.util.find_spec("numba") is None:
            return "numba is not installed (pip install -e '.[fast]')"
        return f"numba is installed but failed to import: {exc} (reinstall it: pip install -e '.[fast]')"
    return None


def _folder() -> Path:
    """Where generated modules and their machine code go: the cache folder's ``kernels``, or (caching
    off, or that folder not writable) a folder of this user's in the system's temporary folder."""
    import os
    from ..cache import cache_dir
    base = cache_dir()
    if base is not None:
        folder = base / "kernels"
        try:
            folder.mkdir(mode=0o700, exist_ok=True)
            if os.access(folder, os.W_OK):
                return folder
        except OSError:
            pass
    base = Path(tempfile.gettempdir()) / f"rulebook-kernels-{os.getuid()}"
    base.mkdir(mode=0o700, exist_ok=True)
    return base


def state_arrays(game, info: dict, num_players: int, generators: int) -> dict:
    """The arrays of a kernel's state at the start of a game (the names of
    :data:`~interpreter.fast.typepass.STATE_ARGS`), with room for ``generators`` random generators
    (rows of ``RG``): every card in the initial zone, variables at their defaults, no marks."""
    from .rng import STATE_SIZE
    from .typepass import RI_SIZE
    rows, nc = info["rows"], info["ncards"]
    # (a list of maps in a variable has rows of Z too, room for MAX_LIST items: see listvars)
    z = np.zeros((rows, max(nc, 1, MAX_LIST if info.get("lists") else 0)), dtype=np.int64)
    zn = np.zeros(rows, dtype=np.int64)
    loc = np.zeros(nc, dtype=np.int64)
    # the cards this many players play with (per_player entries: their seats'); the others' LOC is
    # -1: not in this game (see runtime.gather)
    ids = game.cards_in_play(num_players)
    loc[:] = -1
    loc[ids] = 0
    if info["initial"] is not None:
        z[info["initial"], :len(ids)] = ids
        zn[info["initial"]] = len(ids)
        loc[ids] = info["initial"]
    pv = np.zeros((max(game.max_players, 1), max(len(info["pvars"]), 1)), dtype=np.int64)
    pv[:num_players, :len(info["pvars"])] = info["pvars"] or 0
    return dict(
        Z=z, ZN=zn, GV=np.array(info["gvars"] or [0], dtype=np.int64), PV=pv,
        PB=np.full(nc, NULL, dtype=np.int64), MD=np.full(nc, NULL, dtype=np.int64),
        LOC=loc, ATTR=np.array(info["attrs"], dtype=np.int64),
        NP=np.int64(num_players), RG=np.zeros((generators, STATE_SIZE), dtype=np.int64),
        RI=np.zeros(RI_SIZE, dtype=np.int64), TMP=np.zeros((info["depth"], max(info["width"], nc)), dtype=np.int64),
        OPT=np.zeros((2, max(info["width"], nc * (1 + len(info["attrs"])))), dtype=np.int64),
        SB=np.zeros(320, dtype=np.uint8), SK=np.zeros(max(64, nc), dtype=np.int64),
        SEEN=np.zeros(max(64, nc), dtype=np.int64), MEMO=np.zeros(max(1, info["memo"]), dtype=np.int64))


class Kernel:
    """A compiled kernel: ``module`` (the generated numba module), ``info`` (layout) and
    ``source`` (its text, for tests and curious readers)."""

    def __init__(self, game, source: str, info: dict, module):
        self.game, self.source, self.info, self.module = game, source, info, module
        self.draws = 1  # how many random draws a game makes, learnt as games are played
        self.compiled = True  # whether numba's cache holds the machine code (set by kernel_for)
        self.ready_cost = None  # (CPU s, wall s, whether numba compiled) of ready(), once it ran

    def ready(self) -> tuple:
        """Make the machine code ready before any game is played (numba compiles the driver, or
        loads it from its cache, at its first call: here a call that plays no game). Returns
        ``(CPU seconds, wall seconds, compiled)``, ``compiled`` False when it came from the cache
        (or was ready in this process already); measured once per kernel."""
        if self.ready_cost is None:
            import time
            cpu, wall = time.process_time(), time.perf_counter()
            self.run(self.game.min_players, 0, 0)
            self.ready_cost = (time.process_time() - cpu, time.perf_counter() - wall,
                               bool(getattr(self.module.run, "stats", None) and self.module.run.stats.cache_misses))
        return self.ready_cost

    def run(self, num_players: int, first_seed: int, n_games: int):
        """``(scores int64[n, players], lengths int64[n], errors int64[n])`` of the games of seeds
        ``first_seed .. first_seed + n_games - 1`` (random bots). A score that is null is NULL
        (:data:`interpreter.fast.typepass.NULL`)."""
        return play_driver(self, self.module.run, (), num_players, first_seed, n_games)


def play_driver(kernel, run, lead: tuple, num_players: int, first_seed: int, n_games: int):
    """Games ``first_seed .. first_seed + n_games - 1`` played by a compiled driver ``run`` (the
    template ``typepass._DRIVER``: a kernel's, or the bytecode machine's, whose own arguments
    ``lead`` come first), for ``kernel`` (its ``game``, ``info`` and ``draws``, which it updates):
    :meth:`Kernel.run`'s result. Raises ValueError for a player count the game does not take."""
    info, game = kernel.info, kernel.game
    if not game.min_players <= num_players <= game.max_players:
        raise ValueError(f"{num_players} players: the game takes {game.min_players}..{game.max_players}")
    state = state_arrays(game, info, num_players, BATCH + 1)
    zinit, zninit, gvinit, pvinit = (state[k].copy() for k in ("Z", "ZN", "GV", "PV"))
    zinit = zinit[:, :max(1, int(zninit.max()))].copy()  # (the columns a game starts with: see new_game)
    from .typepass import RI_MAX_ACTIONS, STATE_ARGS
    from .prebuilt import prepare_batch_address
    scores = np.zeros((n_games, num_players), dtype=np.int64)
    lengths = np.zeros(n_games, dtype=np.int64)
    errors = np.zeros(n_games, dtype=np.int64)
    state["RI"][7] = kernel.draws  # draws to seed ahead: what the last run's games used
    state["RI"][RI_MAX_ACTIONS] = game.max_actions  # a longer game is flagged (the step API says why)
    run(*lead, np.int64(first_seed), np.int64(n_games), *[state[k] for k in STATE_ARGS],
        zinit, zninit, gvinit, pvinit, scores, lengths, errors, np.int64(BATCH), np.int64(EMAX),
        np.zeros((BATCH, 48), dtype=np.int64), np.zeros(BATCH, dtype=np.int64),
        np.zeros((624, BATCH), dtype=np.uint32), np.zeros((48, BATCH), dtype=np.uint32),
        np.zeros(BATCH, dtype=np.int64), np.zeros((3, 50), dtype=np.int64),
        np.zeros(49, dtype=np.int64), np.zeros((BATCH, 64), dtype=np.uint8),
        np.zeros((2, BATCH), dtype=np.int64), np.zeros((24, BATCH), dtype=np.uint64),
        np.int64(prepare_batch_address()))
    kernel.draws = int(state["RI"][7])
    return scores, lengths, errors


COMPILE_OPT = 1  # LLVM's optimisation level for a generated module's functions (numba's default: 3)
_LISTENING: list = []


def _compile_generated_at_lower_opt() -> None:
    """While numba compiles a function of a generated module (``rulebook_*``), LLVM's passes run at
    :data:`COMPILE_OPT` instead of numba's 3: a first compile costs about a fifth less CPU and the
    kernels play as fast (tools/kernel_compile.py, tools/bench.py --kernel). Installed once per
    process; the fixed code a generated function calls (runtime.py) is compiled as numba does."""
    if _LISTENING:
        return
    from numba.core import config, event

    default = config.OPT

    class Listener(event.Listener):
        saved: list = []

        def on_start(self, ev):
            module = getattr(getattr(ev.data.get("dispatcher"), "py_func", None), "__module__", "") or ""
            self.saved.append(config.OPT)
            config.OPT = type(default)(COMPILE_OPT) if module.startswith("rulebook_") else default

        def on_end(self, ev):
            if self.saved:
                config.OPT = self.saved.pop()
    event.register("numba:compile", Listener())
    _LISTENING.append(True)


def load_module(source: str, prefix: str):
    """``(module, path)``: the generated ``source`` imported from the user's cache folder, under
    the name ``{prefix}_{digest}`` (the SHA-256 of the text), written there if missing; numba's
    cache files of its ``cache=True`` functions sit beside it."""
    digest = hashlib.sha256(source.encode()).hexdigest()[:24]
    name = f"{prefix}_{digest}"
    path = _folder() / f"{name}.py"
    if not path.exists() or path.read_text() != source:
        tmp = path.with_suffix(".tmp")
        try:
            tmp.write_text(source)
            tmp.replace(path)
        except OSError as exc:
            raise NotTyped(f"the kernel's module cannot be written to {path.parent}: {exc.strerror or exc} "
                           f"(set RULEBOOK_CACHE to a writable folder)") from None
    _compile_generated_at_lower_opt()
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module, path


def built_once(store: dict, game, build):
    """``build(game)`` once per Game object and process, kept in ``store``; a :class:`NotTyped`
    it raises is kept too and raised again. ``build`` runs only when numba is installed."""
    with _BUILDING:  # one build at a time (Dask's worker threads): CPython 3.11's ast.parse is not thread-safe
        hit = store.get(id(game))
        if hit is not None and hit[0] is game:
            if isinstance(hit[1], NotTyped):
                raise hit[1]
            return hit[1]
        try:
            if (missing := unavailable()) is not None:
                raise NotTyped(missing)
            made = build(game)
        except NotTyped as exc:
            store[id(game)] = (game, exc)
            raise
        store[id(game)] = (game, made)
        return made


def kernel_for(game) -> Kernel:
    """The kernel of ``game`` (built once per Game object and per process; compiled machine code
    is cached on disk by numba). Raises :class:`NotTyped` with the reason when the spec does not
    type, or when numba is not installed."""
    def build(game):
        source, info = lower(game)
        module, path = load_module(source, "rulebook_kernel")
        kernel = Kernel(game, source, info, module)
        kernel.compiled = in_cache(module, path, "run")  # (else the first run compiles)
        return kernel
    return built_once(_KERNELS, game, build)


def without_dispatch(function):
    """A numba function's one compiled overload, called without numba's dispatch (which types
    every argument at each call: for a kernel's 17 arrays, most of a step's cost); the function
    itself (the dispatcher) while it has no overload, or more than one."""
    overloads = getattr(function, "overloads", None) or {}
    if len(overloads) == 1:
        (compiled,) = overloads.values()
        return getattr(compiled, "entry_point", None) or function
    return function


def in_cache(module, path: Path, name: str) -> bool:
    """Whether the machine code of ``module``'s function ``name`` (a ``cache=True`` function of a
    module :func:`load_module` gave, from ``path``) is ready: compiled in this process already, or
    in numba's cache (beside the module, or under NUMBA_CACHE_DIR)."""
    if getattr(getattr(module, name, None), "overloads", None):
        return True
    try:
        folder = Path(getattr(module, name)._cache._cache_path)
    except AttributeError:
        folder = path.parent / "__pycache__"
    return any(folder.glob(f"{module.__name__}.{name}-*.nbi"))


def why_not(game, num_players: int, bots: dict | None = None, trace=None, speeds=None,
            seeds: tuple | None = None, schedule: str = "round-robin") -> str | None:
    """Why ``simulate`` cannot use the kernel for this run (a text), or None when it can.
    ``seeds``: ``(first seed, number of games)``; ``schedule`` and ``speeds``: the real-time
    scheduler's (the kernel plays real-time steps with the round-robin one only)."""
    if trace is not None:
        return "a step trace (--trace or --heat) needs the step API"
    if seeds is not None:  # the random bots' seeds (seed * 1_000_003 + seat) must fit in 64 bits
        first, n = seeds
        widest = max(abs(first), abs(first + n - 1))
        if widest * 1_000_003 + 64 >= 2 ** 63:
            return f"seeds this far from 0 (|seed| up to {widest}) overflow the kernel's 64-bit numbers"
    if (missing := unavailable()) is not None:
        return missing
    for seat, kind in sorted((bots or {}).items()):
        name, _, budget = kind.partition(":")
        article = "an" if name[:1] in "aeiou" else "a"
        if name not in ("random", "ismcts", "greedy"):
            return f"seat {seat} is {article} {kind} bot (the kernel plays random, ismcts and greedy bots)"
        if name != "random" and budget and not budget.strip().isdigit():
            return (f"seat {seat} is {article} {kind} bot: the kernel searches with a number of iterations "
                    f"({name}:200), not a time")
    try:
        kernel = kernel_for(game)  # (search bots' module: simulate asks interpreter.fast.search, above this one)
    except NotTyped as exc:
        return f"the spec does not type for the kernel: {exc}"
    if kernel.info.get("realtime") and (schedule != "round-robin" or speeds):
        return "the kernel plays real-time steps with the round-robin schedule only (no --schedule random, no --speed)"
    return None


def search_ready(sk, game, num_players, note=None, compiling=None) -> tuple:
    """The search kernel ``sk`` (:mod:`interpreter.fast.search`) and the step kernel made ready
    (compiled, or loaded from numba's cache; on the bytecode machine while another process compiles
    them, see :func:`~interpreter.fast.search.search_kernel_for`) by a first game and search:
    ``(CPU s, wall s, compiled)`` as :meth:`~interpreter.fast.kernel.Kernel.ready`."""
    import time
    from contextlib import nullcontext
    if note is not None:
        note("making the kernel's search ready (its first decisions on the bytecode machine while another process "
             "compiles the spec's search module)"
             if getattr(sk, "behind", None) is not None else
             "making the kernel's search ready (compiled on a spec's first run, tens of seconds; loaded from the "
             "cache after)")
    cpu, wall = time.process_time(), time.perf_counter()
    with compiling(True) if compiling is not None else nullcontext():
        state = game.new_state(num_players, seed=0, fast=True)
        sk.decide(0, num_players, [], state.current_players()[0], 1, 1)
    stats = getattr(sk.module.search, "stats", None)
    return time.process_time() - cpu, time.perf_counter() - wall, bool(stats and stats.cache_misses)
