"""Benchmarks of Rulebook (never timed tests: speed is measured here only).

One run prints, for Skull King, Witches of Blackmore, Skull Queen, Oh Hell, Go Fish and classic Ligretto (4 players, random
play), microseconds per decision and games per second:

- through the step API (``legal_actions`` + ``apply``, CPU time), and the same loop on the kernel's
  step API (``new_state(..., fast=True)``) where the spec runs there;
- through ``simulate`` on each backend: one process (CPU time), ``--jobs 2`` and a local Dask
  cluster of 2 worker processes (``--backend dask``; wall time, the workers' CPU is not this
  process's), and the typed playout kernel (``simulate --fast``, CPU time) when this checkout has
  it: until then its column says ``n/a`` and why;
- OpenSpiel's C++ loop and its Python loop on Oh Hell (when ``open_spiel`` is installed), measured
  in the same rounds as Rulebook, alternately, with ratios;
- the hand-written Python Skull King (tools/reference_skull_king.py), with the ratio; the kernel
  against the hand-lowered numba Skull King (tools/reference_skull_king_numba.py, the kernel's
  generators: the same games; and its xorshift generator);
- ``simulate --fast -j 2`` against one process (Skull King, Oh Hell; wall time and each run's CPU);
- the kernel's step API on Oh Hell with ``apply(a, p)`` (the README's loop) and ``apply(a)``,
  against OpenSpiel driven from Python;
- ``clone``, ``to_json``, ``from_json`` of mid-game states; ``load_game``; the start-up of
  ``rulebook simulate -n 1`` (a new process); option listing at hand sizes 10, 30 and 50; Skull
  Queen's placement choice (1,250 options: counted, and listed as texts for display).

Times are medians over ``--rounds`` interleaved rounds; a ratio (Rulebook against OpenSpiel or
the hand-written reference) is the median of one ratio per round, its two sides measured one right
after the other, so that a slow spell of the machine slows both sides, not one. CPU time (``time.process_time``) where
one process does the work, so other programs on the machine disturb them less than wall time; the
load average is printed at the start and the end. ``--json FILE`` also writes every figure as
JSON. Only the public API is used (plus ``interpreter.scenario.build_state`` for the hand-size
positions), so the same file runs on older checkouts for before/after tables:

    python tools/bench.py [--rounds 5] [--seconds 0.4] [--quick] [--json FILE]

``--kernel SPEC[:KEY=VALUE,...]`` (repeatable) measures only those specs: random games through the
plain step API against ``simulate --fast`` (both CPU time, 4 players or the spec's count, in
interleaved rounds; the ratio is the median of the rounds' ratios), the kernel compiled first.
``--numba-reference``, ``--jobs-ratio``, ``--step-api`` measure only those (any of them together).
"""
from __future__ import annotations

import argparse
import inspect
import json
import logging
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from rich.console import Console  # noqa: E402
from rich.markup import escape  # noqa: E402  (texts such as '.[dask]' would read as markup)
from rich.table import Table  # noqa: E402

from interpreter import State, load_game  # noqa: E402
from interpreter.errors import RulebookError  # noqa: E402
from interpreter.sim.simulate import simulate  # noqa: E402
import reference_skull_king  # noqa: E402

try:  # the hand-lowered numba Skull King (needs numba and this checkout's kernel generators)
    import reference_skull_king_numba  # noqa: E402
    NUMBA_REFERENCE_WHY = None
except Exception as exc:  # a benchmark reports what failed and goes on
    reference_skull_king_numba, NUMBA_REFERENCE_WHY = None, f"{type(exc).__name__}: {exc}"

GAMES = [("Skull King", "skull_king.yaml"), ("Witches", "witches_of_blackmore.yaml"),
         ("Skull Queen", "skull_queen.yaml"), ("Oh Hell", "oh_hell.yaml"), ("Go Fish", "go_fish.yaml"),
         ("Ligretto (classic)", "ligretto_classic.yaml")]
PLAYERS = 4
BACKENDS = ["step API", "kernel step API", "simulate", "-j 2", "dask local", "kernel"]  # columns of the games tables
HEADINGS = {"kernel step API": "step API, fast=True", "kernel": "simulate --fast"}  # their headings

console = Console(width=max(120, Console().width))


def cpu() -> float:
    return time.process_time()


def med(xs):
    return statistics.median(xs) if xs else None


def timed(fn, budget: float) -> float:
    """CPU seconds per call of ``fn`` (called repeatedly for about ``budget`` seconds)."""
    n, spent = 0, 0.0
    start = cpu()
    while spent < budget or n < 3:
        fn()
        n += 1
        spent = cpu() - start
    return spent / n


# -- the ways of playing games: each returns (seconds, games, decisions) ----------------------
def step_api_games(game, seed: int, budget: float, fast: bool = False, player: bool = False) -> tuple:
    """Random games through the step API (``fast``: the kernel's, ``new_state(..., fast=True)``)
    for about ``budget`` CPU seconds. ``player``: the loop of the README's Python API example,
    ``p = state.current_players()[0]``, ``legal_actions(p)``, ``apply(action, p)``; else every
    waiting seat's ``apply(action)`` in turn."""
    rng = random.Random(seed)
    games = decisions = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        state = game.new_state(PLAYERS, seed=seed + games, fast=fast)
        if player:
            while not state.is_terminal():
                p = state.current_players()[0]
                state.apply(rng.choice(state.legal_actions(p)), p)
                decisions += 1
            games += 1
            continue
        while not state.is_terminal():
            for p in state.current_players():
                legal = state.legal_actions(p)
                if not legal:  # a real-time block: another seat's action just took this seat's options
                    continue
                state.apply(rng.choice(legal))
                decisions += 1
                if state.is_terminal():
                    break
        games += 1
    return cpu() - start, games, decisions


def simulate_games(game, seed: int, budget: float, **kw) -> tuple:
    """``simulate`` in this process (``kw``: e.g. ``fast=True``) for about ``budget`` CPU seconds:
    runs of 4, 8, ... games until one lasts the budget."""
    n = 4
    while True:
        t0 = cpu()
        result = simulate(game, n, PLAYERS, seed, **kw)
        spent = cpu() - t0
        if spent >= budget or n >= 1_000_000:
            return spent, n, sum(result.lengths)
        n = max(n * 2, int(n * budget / max(spent, 1e-6) * 1.1))


def parallel_games(game, seed: int, n: int, client=None, **kw) -> tuple:
    """One ``simulate`` run of ``n`` games on workers (``kw``: ``jobs=2``, or the Dask backend with
    ``client`` connected to its cluster): ``(wall seconds, games, decisions, CPU seconds)``. The
    wall time includes starting the worker processes of ``-j`` (a user waits for them too); the CPU
    time is this process's and the workers' (``-j``: its children, which end with the run; Dask:
    each worker's process time, read before and after)."""
    def workers_cpu():
        if client is None:
            use = resource.getrusage(resource.RUSAGE_CHILDREN)
            return use.ru_utime + use.ru_stime
        return sum(client.run(time.process_time).values())
    c0, w0, t0 = cpu(), workers_cpu(), time.perf_counter()
    result = simulate(game, n, PLAYERS, seed, **kw)
    wall = time.perf_counter() - t0
    return wall, n, sum(result.lengths), cpu() - c0 + workers_cpu() - w0


def reference_games(seed: int, budget: float) -> float:
    """Games per CPU second of the hand-written Python Skull King (tools/reference_skull_king.py)."""
    t0, n = cpu(), 0
    while cpu() - t0 < budget or n < 2:
        reference_skull_king.play(PLAYERS, seed + n)
        n += 1
    return n / (cpu() - t0)


def per_round(key: str, ours: list, theirs: list, ratio) -> dict:
    """``{key: median, key_per_round: [...]}`` of ``ratio(our run, their run)`` by round, each pair
    measured in the same round one after the other: a slow spell of the machine then slows both
    sides of a ratio, not one."""
    rounds = [ratio(a, b) for a, b in zip(ours, theirs)]
    return {key: med(rounds), f"{key}_per_round": rounds}


# -- the kernel's fast path (simulate --fast) and the Dask cluster: hooks that say why not ----
def step_kernel_status(game) -> str | None:
    """None when ``new_state(..., fast=True)`` runs ``game`` (the first call compiles), else why not."""
    try:
        game.new_state(PLAYERS, seed=0, fast=True)
    except RulebookError as exc:
        return str(exc)
    return None


def kernel_status(game) -> str | None:
    """None when ``simulate(..., fast=True)`` plays ``game`` in the typed kernel here, else why not.
    The first call also compiles the kernel (timed apart by the caller)."""
    if "fast" not in inspect.signature(simulate).parameters:
        return "this checkout's simulate has no fast path (no interpreter/fast kernel)"
    try:
        result = simulate(game, 2, PLAYERS, 0, fast=True)
    except Exception as exc:  # a benchmark reports what failed and goes on
        return f"{type(exc).__name__}: {exc}"
    if not getattr(result, "fast", False):
        return getattr(result, "fast_note", "") or "the kernel did not play the games"
    return None


def dask_cluster():
    """``(cluster, seconds to start it, None)``: a local Dask cluster of 2 single-threaded worker
    processes on the loopback address; or ``(None, None, why not)``."""
    if "backend" not in inspect.signature(simulate).parameters:
        return None, None, "this checkout's simulate has no dask backend"
    try:
        import distributed
    except ImportError:
        return None, None, "dask is not installed (pip install -e '.[dask]')"
    t0 = time.perf_counter()
    try:
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                           dashboard_address=":0", silence_logs=logging.ERROR)
    except Exception as exc:  # a benchmark reports what failed and goes on
        return None, None, f"the local cluster did not start: {type(exc).__name__}: {exc}"
    return cluster, time.perf_counter() - t0, None


# -- positions --------------------------------------------------------------------------------
def midgame(game, seed: int = 3, fraction: float = 0.5) -> State:
    """A State about ``fraction`` of the way through a random game."""
    rng = random.Random(seed)
    full = game.new_state(PLAYERS, seed=seed)
    n = 0
    while not full.is_terminal():
        # any seat that may act (in a real-time block every seat may: always the first would leave the
        # others' cards untouched and the block without end)
        p = rng.choice(full.current_players())
        full.apply(rng.choice(full.legal_actions(p)), p)
        n += 1
    rng = random.Random(seed)
    state = game.new_state(PLAYERS, seed=seed)
    for _ in range(int(n * fraction)):
        p = rng.choice(state.current_players())
        state.apply(rng.choice(state.legal_actions(p)), p)
    return state


def listing_position(game, h: int):
    """Skull King, 3 players: seat 1 led green-14; seat 0 holds ``h`` cards (greens among them)
    and must follow suit: its legal plays depend on its whole hand."""
    from interpreter.scenario import build_state
    numbered = [f"{s}-{r}" for r in range(1, 14) for s in ("purple", "yellow", "black", "green")]
    specials = ["escape"] * 5 + ["pirate"] * 5 + ["tigress", "skull-king", "mermaid", "mermaid"]
    hand = (numbered + specials)[:h]
    data = {"players": 3, "start": "trick",
            "setup": {"vars": {"leader": 1, "round": 10, "cards_dealt": h},
                      "zones": {"hand": {0: hand, 1: ["green-14"], 2: ["purple-14"]}}}}
    state = build_state(game, data)
    from interpreter.engine.run import advance
    advance(state)
    state.apply("play green-14", 1)
    state.apply(state.legal_actions(2)[0], 2)
    return state


def list_options(state, seat):
    state._legal_cache.clear()  # the engine caches a listing until the State changes
    return state.legal_actions(seat)


def start_up_seconds(rounds: int, extra=()) -> tuple:
    """``(CPU seconds, wall seconds)`` of ``python -m interpreter simulate SPEC -n 1`` (medians;
    CPU is the child's user + system time); ``extra``: more arguments (``--fast``)."""
    cmd = [sys.executable, "-m", "interpreter", "simulate", str(ROOT / "specs" / "skull_king.yaml"),
           "-n", "1", "-p", str(PLAYERS), "--quiet", *extra]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT)  # warm: file system and caches
    cpus, walls = [], []
    for _ in range(max(3, rounds)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, check=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return med(cpus), med(walls)


# -- OpenSpiel --------------------------------------------------------------------------------
def openspiel():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def os_python_games(pyspiel, game, seed: int, budget: float) -> tuple:
    """OpenSpiel driven from Python: legal_actions, a random choice, apply_action (chance nodes
    sampled the same way); (seconds, games, decisions)."""
    rng = random.Random(seed)
    games = decisions = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        decisions += _os_random_game(game, rng)
        games += 1
    return cpu() - start, games, decisions


def _os_random_game(game, rng) -> int:
    """One game of OpenSpiel's ``game`` between random players (chance outcomes drawn uniformly
    by ``rng``), as a user's Python loop plays it; returns its number of decisions."""
    state, decisions = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            decisions += 1
    return decisions


def os_cpp_games(pyspiel, game, seed: int, budget: float) -> tuple:
    """OpenSpiel's C++ loop (``evaluate_bots`` with uniform random bots): (seconds, games)."""
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(game.num_players())]
    games = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + games)
        games += 1
    return cpu() - start, games


def numba_reference_games(seed: int, budget: float, exact: bool = True) -> tuple:
    """The hand-lowered numba Skull King (tools/reference_skull_king_numba.py; ``exact``: the
    kernel's generators, the same games; else its xorshift generator) for about ``budget`` CPU
    seconds: runs of 256, 512, ... games until one lasts the budget; (seconds, games, decisions)."""
    n = 256
    while True:
        t0 = cpu()
        _, lengths = reference_skull_king_numba.play(seed, PLAYERS, n, exact)
        spent = cpu() - t0
        if spent >= budget or n >= 10_000_000:
            return spent, n, int(lengths.sum())
        n = max(n * 2, int(n * budget / max(spent, 1e-6) * 1.1))


def kernel_vs_numba(args) -> dict:
    """Skull King (default options, 4 players): ``simulate --fast`` against the hand-lowered numba
    Skull King with the kernel's exact generators (the same games) and with its own xorshift
    generator, taking turns by 400 games (the order rotating) until each has had ``args.seconds``
    CPU seconds, in ``args.rounds`` rounds; the ratios are medians of the rounds' ratios (games per
    CPU second, kernel / reference)."""
    if reference_skull_king_numba is None:
        return {"why_not": NUMBA_REFERENCE_WHY}
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    why = kernel_status(game)
    if why is not None:
        return {"why_not": f"the kernel does not play Skull King: {why}"}
    numba_reference_games(0, 0.0)  # (compiles, or loads from numba's cache)
    numba_reference_games(0, 0.0, exact=False)
    same = reference_skull_king_numba.check_same_games(500, PLAYERS)
    def kernel_games(seed, n):
        return sum(simulate(game, n, PLAYERS, seed, fast=True).lengths)

    def reference(exact):
        return lambda seed, n: int(reference_skull_king_numba.play(seed, PLAYERS, n, exact)[1].sum())
    sides = {"kernel": kernel_games, "exact": reference(True), "xorshift": reference(False)}
    names = list(sides)
    runs = {name: [] for name in names}
    chunk = 400  # games per turn: the sides take turns (order rotating) until each has had its CPU seconds
    for r in range(args.rounds):
        spent, games, decisions = ({name: 0 for name in names} for _ in range(3))
        i = 0
        while min(spent.values()) < args.seconds:
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                t0 = cpu()
                decisions[name] += sides[name](1000 * r + chunk * i, chunk)
                spent[name] += cpu() - t0
                games[name] += chunk
            i += 1
        for name in names:
            runs[name].append((spent[name], games[name], decisions[name]))
    gps = lambda run, ref_run: run[1] / run[0] / (ref_run[1] / ref_run[0])  # noqa: E731
    return {"games_differing_of_500": same,
            **{f"{k}_games_per_s": med([g / t for t, g, _ in v]) for k, v in runs.items()},
            **{f"{k}_us_per_decision": med([t / d * 1e6 for t, _, d in v]) for k, v in runs.items()},
            **per_round("kernel_vs_exact", runs["kernel"], runs["exact"], gps),
            **per_round("kernel_vs_xorshift", runs["kernel"], runs["xorshift"], gps)}


def kernel_jobs(args, labels=("Skull King", "Oh Hell")) -> dict:
    """``simulate --fast -j 2`` against one process, per game of ``labels``, in ``args.rounds``
    interleaved rounds: each round plays the same games both ways, as many as one process plays in
    about ``max(2, 4 * args.seconds)`` CPU seconds; the ratio is one process's wall time over
    ``-j 2``'s (the median of the rounds'), each side's CPU (its processes') beside it: on a
    machine whose other programs keep the cores busy the wall ratio says little, the CPU shows
    whether the workers did the games without extra work."""
    out = {}
    for label in labels:
        file = dict((lb, f) for lb, f in GAMES)[label]
        game = load_game(ROOT / "specs" / file)
        why = kernel_status(game)
        if why is not None:
            out[label] = {"why_not": why}
            continue
        t, g, _ = simulate_games(game, 0, 0.3, fast=True)
        n = max(1000, int(g / t * max(2.0, 4 * args.seconds)))
        one, two = [], []
        for r in range(args.rounds):
            one.append(parallel_games(game, 1000 * r, n, fast=True))
            two.append(parallel_games(game, 1000 * r, n, fast=True, jobs=2))
        out[label] = {"games": n, "one_wall_s": med([x[0] for x in one]), "two_wall_s": med([x[0] for x in two]),
                      "one_cpu_s": med([x[3] for x in one]), "two_cpu_s": med([x[3] for x in two]),
                      **per_round("ratio", one, two, lambda a, b: a[0] / b[0])}
    return out


def one_game_loops(game, pyspiel=None, os_game=None) -> dict:
    """The loops of :func:`step_api_vs_openspiel`, one game each: ``name -> play(seed, rng)``
    returning the number of decisions (``rng``: a ``random.Random`` picking the actions)."""
    def kernel(player):
        def play(seed, rng):
            state, decisions = game.new_state(PLAYERS, seed=seed, fast=True), 0
            if player:  # the README's loop
                while not state.is_terminal():
                    p = state.current_players()[0]
                    state.apply(rng.choice(state.legal_actions(p)), p)
                    decisions += 1
                return decisions
            while not state.is_terminal():
                for p in state.current_players():
                    state.apply(rng.choice(state.legal_actions(p)))
                    decisions += 1
                    if state.is_terminal():
                        break
            return decisions
        return play

    def openspiel_game(seed, rng):  # as os_python_games, one game
        return _os_random_game(os_game, rng)
    loops = {"apply(a)": kernel(False), "apply(a, p)": kernel(True)}
    if os_game is not None:
        loops["openspiel"] = openspiel_game
    return loops


def step_api_vs_openspiel(args) -> dict:
    """Oh Hell, 4 players: the kernel's step API with ``apply(action)`` and with the README's loop
    ``apply(action, player)``, and OpenSpiel driven from Python. Interleaved game by game (one game
    of each loop in turn, the order rotating, each game's CPU time added to its loop's) for
    ``args.seconds`` CPU seconds per loop and round, ``args.rounds`` rounds: on a busy machine a
    slow spell then weighs on every loop alike. Ratios per decision (medians of the rounds')."""
    pyspiel = openspiel()
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    why = step_kernel_status(game)
    if why is not None:
        return {"why_not": why}
    os_game = pyspiel.load_game("oh_hell", {"players": PLAYERS}) if pyspiel else None
    loops = one_game_loops(game, pyspiel, os_game)
    names = list(loops)
    for name in names:  # warm
        loops[name](0, random.Random(0))
    runs = {name: [] for name in names}
    for r in range(args.rounds):
        spent = {name: 0.0 for name in names}
        decisions = {name: 0 for name in names}
        i = 0
        while min(spent.values()) < args.seconds or i < 2 * len(names):
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                rng = random.Random(1000 * r + i)
                t0 = cpu()
                decisions[name] += loops[name](1000 * r + i, rng)
                spent[name] += cpu() - t0
            i += 1
        for name in names:
            runs[name].append((spent[name], i, decisions[name]))
    per_decision = lambda run, other: other[0] / other[2] / (run[0] / run[2])  # noqa: E731
    out = {f"{k}_us_per_decision": med([t / d * 1e6 for t, _, d in v]) for k, v in runs.items() if v}
    from interpreter.fast.steps import CORE
    out["hot_path"] = CORE  # the step API's calls in C (the extension built) or Python
    out.update(per_round("player_vs_no_player", runs["apply(a, p)"], runs["apply(a)"], per_decision))
    if os_game is not None:
        out.update(per_round("player_vs_openspiel", runs["apply(a, p)"], runs["openspiel"], per_decision))
        out.update(per_round("no_player_vs_openspiel", runs["apply(a)"], runs["openspiel"], per_decision))
    else:
        out["openspiel_why_not"] = "open_spiel is not installed (pip install -e '.[bench]')"
    return out


def report_focused(out: dict) -> None:
    """The tables of :func:`kernel_vs_numba`, :func:`kernel_jobs` and :func:`step_api_vs_openspiel`
    (those in ``out``)."""
    rounds = lambda xs: ", ".join(f"{x:.2f}" for x in xs)  # noqa: E731
    nr = out.get("numba_reference")
    if nr is not None:
        if "why_not" in nr:
            console.print(f"[bold]Kernel vs the numba Skull King[/bold]: n/a ({escape(nr['why_not'])})")
        else:
            t = _table("Skull King, 4 players, default options: simulate --fast against the hand-lowered numba "
                       "Skull King (tools/reference_skull_king_numba.py), CPU time; ratio: kernel / reference, the "
                       "median of the rounds' (each round's in brackets)", ["", "games/s", "µs/decision", "ratio"])
            t.add_row("kernel (simulate --fast)", _f(nr["kernel_games_per_s"]), _f(nr["kernel_us_per_decision"], 3), "")
            t.add_row(f"numba reference, the kernel's generators (same games: "
                      f"{500 - nr['games_differing_of_500']} of 500 checked)", _f(nr["exact_games_per_s"]),
                      _f(nr["exact_us_per_decision"], 3),
                      f"{nr['kernel_vs_exact']:.3f}x ({rounds(nr['kernel_vs_exact_per_round'])})")
            t.add_row("numba reference, xorshift generator (other games, same rules)", _f(nr["xorshift_games_per_s"]),
                      _f(nr["xorshift_us_per_decision"], 3),
                      f"{nr['kernel_vs_xorshift']:.3f}x ({rounds(nr['kernel_vs_xorshift_per_round'])})")
            console.print(t)
    kj = out.get("kernel_jobs")
    if kj is not None:
        t = _table("simulate --fast -j 2 against one process (the same games), wall time; CPU: the run's "
                   "processes' (ratio: one process's wall time / -j 2's, median of the rounds')",
                   ["game", "games", "one process: wall s (CPU s)", "-j 2: wall s (CPU s)", "ratio"])
        for label, v in kj.items():
            if "why_not" in v:
                t.add_row(label, "n/a", escape(v["why_not"]), "", "")
                continue
            t.add_row(label, f"{v['games']:,}", f"{v['one_wall_s']:.2f} ({v['one_cpu_s']:.2f})",
                      f"{v['two_wall_s']:.2f} ({v['two_cpu_s']:.2f})", f"{v['ratio']:.2f}x ({rounds(v['ratio_per_round'])})")
        console.print(t)
    sa = out.get("step_api")
    if sa is not None:
        if "why_not" in sa:
            console.print(f"[bold]Kernel step API[/bold]: n/a ({escape(sa['why_not'])})")
        else:
            t = _table("Oh Hell, 4 players: the kernel's step API (new_state(fast=True), its hot path in "
                       f"{sa.get('hot_path', '?')}) and OpenSpiel driven from Python, interleaved game by game, µs of "
                       "CPU per decision; ratio ≥ 1: the kernel's loop as fast or faster (median of the rounds')",
                       ["loop", "µs/decision", "ratio"])
            t.add_row("kernel step API, apply(a)", _f(sa["apply(a)_us_per_decision"], 2),
                      f"{sa['no_player_vs_openspiel']:.2f}x vs OpenSpiel ({rounds(sa['no_player_vs_openspiel_per_round'])})"
                      if "no_player_vs_openspiel" in sa else "")
            t.add_row("kernel step API, p = current_players()[0], apply(a, p)", _f(sa["apply(a, p)_us_per_decision"], 2),
                      (f"{sa['player_vs_openspiel']:.2f}x vs OpenSpiel ({rounds(sa['player_vs_openspiel_per_round'])}); "
                       if "player_vs_openspiel" in sa else "")
                      + f"{sa['player_vs_no_player']:.3f}x vs apply(a) ({rounds(sa['player_vs_no_player_per_round'])})")
            if "openspiel_us_per_decision" in sa:
                t.add_row("OpenSpiel Python loop", _f(sa["openspiel_us_per_decision"], 2), "1.000")
            console.print(t)


# -- the run ----------------------------------------------------------------------------------
def measure(args) -> dict:
    """Every figure of the report, as plain data (what ``--json`` writes)."""
    budget = args.seconds
    out = {"settings": {"players": PLAYERS, "rounds": args.rounds, "seconds": budget, "quick": args.quick},
           "machine": {"python": sys.version.split()[0], "cpus": os.cpu_count(),
                       "load_start": list(os.getloadavg())}}
    t = cpu()
    games = {label: load_game(ROOT / "specs" / file) for label, file in GAMES if (ROOT / "specs" / file).exists()}
    first_load = cpu() - t
    pyspiel = openspiel()
    os_game = pyspiel.load_game("oh_hell", {"players": PLAYERS}) if pyspiel else None

    kernel = {}
    for label, game in games.items():  # the first call compiles: timed apart
        t0 = cpu()
        kernel[label] = {"why_not": kernel_status(game), "first_call_s": None}
        if kernel[label]["why_not"] is None:
            kernel[label]["first_call_s"] = cpu() - t0
        t0 = cpu()
        kernel[label]["steps_why_not"] = step_kernel_status(game)
        kernel[label]["steps_first_call_s"] = cpu() - t0 if kernel[label]["steps_why_not"] is None else None
    raw = {label: {b: [] for b in BACKENDS} for label in games}  # (seconds, games, decisions) per round
    osp, osc, ref = [], [], []
    sizes = {}  # games per parallel run, per game and round
    for r in range(args.rounds):
        for label, game in games.items():
            seed = 1000 * r
            raw[label]["step API"].append(step_api_games(game, seed, budget))
            if kernel[label]["steps_why_not"] is None:
                raw[label]["kernel step API"].append(step_api_games(game, seed, budget, fast=True))
            if label == "Oh Hell" and os_game is not None:  # each OpenSpiel loop right after its match
                osp.append(os_python_games(pyspiel, os_game, seed, budget))
            one = simulate_games(game, seed, budget)
            raw[label]["simulate"].append(one)
            n = sizes[label, r] = max(8, int(one[1] / one[0] * max(budget, 0.5) * 2))  # >= 0.5 s per worker
            raw[label]["-j 2"].append(parallel_games(game, seed, n, jobs=2))
            if kernel[label]["why_not"] is None:
                raw[label]["kernel"].append(simulate_games(game, seed, budget, fast=True))
            if label == "Skull King":  # the reference right after Rulebook's runs: a ratio per round
                ref.append(reference_games(seed, budget))
            if label == "Oh Hell" and os_game is not None:
                osc.append(os_cpp_games(pyspiel, os_game, seed, budget))

    # the Dask runs last, the cluster up only for them: its scheduler's thread in this process and its
    # idle workers slowed the other loops measured while it ran (the kernel's step API by a third)
    cluster, cluster_start, dask_why = dask_cluster()
    out["dask"] = {"workers": 2, "cluster_start_s": cluster_start, "why_not": dask_why}
    if cluster is not None:
        import distributed
        client = distributed.Client(cluster.scheduler_address, set_as_default=False)  # reads the workers' CPU
        try:
            for r in range(args.rounds):
                for label, game in games.items():
                    raw[label]["dask local"].append(parallel_games(game, 1000 * r, sizes[label, r], client,
                                                                   backend="dask", address=cluster.scheduler_address))
        finally:
            client.close()
            cluster.close()

    out["games"] = {}
    for label in games:
        row = {"actions_per_game": None, "backends": {}}
        for b in BACKENDS:
            runs = raw[label][b]
            if runs:  # µs of CPU per decision; games per CPU second, or per wall second on workers
                row["backends"][b] = {"us_per_decision": med([r[-1 if len(r) == 4 else 0] / r[2] * 1e6 for r in runs]),
                                      "games_per_s": med([r[1] / r[0] for r in runs]),
                                      "games_per_s_time": "wall" if b in ("-j 2", "dask local") else "cpu"}
            else:
                why = {"kernel": kernel[label]["why_not"], "kernel step API": kernel[label]["steps_why_not"]}.get(b, dask_why)
                row["backends"][b] = {"why_not": why}
        row["actions_per_game"] = med([r[2] / r[1] for r in raw[label]["step API"]])
        row["kernel_first_call_s"] = kernel[label]["first_call_s"]
        out["games"][label] = row

    if "Skull King" in games:
        sk = out["games"]["Skull King"]["backends"]
        sk_raw = raw["Skull King"]
        gps = lambda run, ref_gps: run[1] / run[0] / ref_gps  # noqa: E731
        out["reference_skull_king"] = {"games_per_s": med(ref),
                                       **per_round("simulate_ratio", sk_raw["simulate"], ref, gps),
                                       **per_round("kernel_ratio", sk_raw["kernel"], ref, gps)}

    if os_game is not None and "Oh Hell" in games:
        oh_raw = raw["Oh Hell"]
        per_decision = lambda run, os_run: os_run[0] / os_run[2] / (run[0] / run[2])  # noqa: E731
        per_game = lambda run, os_run: run[1] / run[0] / (os_run[1] / os_run[0])  # noqa: E731
        out["openspiel"] = {
            "version": getattr(pyspiel, "__version__", "?"),
            "python_loop": {"us_per_decision": med([s / d * 1e6 for s, g, d in osp]),
                            "games_per_s": med([g / s for s, g, d in osp]),
                            "decisions_per_game": med([d / g for s, g, d in osp])},
            "cpp_loop": {"games_per_s": med([g / s for s, g in osc])},
            **per_round("step_api_vs_python_loop", oh_raw["step API"], osp, per_decision),
            **per_round("kernel_step_api_vs_python_loop", oh_raw["kernel step API"], osp, per_decision),
            **per_round("simulate_vs_cpp_loop", oh_raw["simulate"], osc, per_game),
            **per_round("kernel_vs_cpp_loop", oh_raw["kernel"], osc, per_game)}
    else:
        out["openspiel"] = {"why_not": "open_spiel is not installed (pip install -e '.[bench]')"}

    ops = {}
    for label, game in games.items():
        try:
            st = midgame(game)
        except RulebookError as exc:  # a random game that fails (reported, not measured)
            ops[label] = {"why_not": str(exc).splitlines()[0]}
            continue
        text = st.to_json()
        ops[label] = {
            "clone_us": med([timed(st.clone, budget / 4) for _ in range(args.rounds)]) * 1e6,
            "to_json_us": med([timed(st.to_json, budget / 4) for _ in range(args.rounds)]) * 1e6,
            "from_json_us": med([timed(lambda: State.from_json(game, text), budget / 4)
                                 for _ in range(args.rounds)]) * 1e6,
            "json_chars": len(text)}
    out["state_ops"] = ops

    loads = {}
    for label, file in GAMES:
        if label in games:
            loads[label] = med([timed(lambda: load_game(ROOT / "specs" / file), budget / 2)
                                for _ in range(args.rounds)]) * 1e3
    startup_cpu, startup_wall = start_up_seconds(args.rounds)
    out["loading"] = {"load_game_ms": loads, "first_load_all_ms": first_load * 1e3,
                      "startup_cpu_s": startup_cpu, "startup_wall_s": startup_wall}
    if kernel.get("Skull King", {}).get("why_not", "n/a") is None:  # the kernel compiled: its cached start-up
        fast_cpu, fast_wall = start_up_seconds(args.rounds, ("--fast",))
        out["loading"].update({"startup_fast_cpu_s": fast_cpu, "startup_fast_wall_s": fast_wall})

    if "Skull King" in games:
        rows, base = [], None
        for h in (10, 30, 50):
            st = listing_position(games["Skull King"], h)
            n_opts = len(list_options(st, 0))
            s = med([timed(lambda: list_options(st, 0), budget / 4) for _ in range(args.rounds)])
            base = base or s / 10
            rows.append({"h": h, "us": s * 1e6, "options": n_opts, "us_per_card": s / h * 1e6,
                         "per_card_vs_h10": s / (base * h)})
        out["listing"] = rows

    if "Skull Queen" in games:
        st = games["Skull Queen"].new_state(PLAYERS, seed=1)
        p = st.current_players()[0]
        n_opts = len(list_options(st, p))
        lazy = med([timed(lambda: len(list_options(st, p)), budget / 4) for _ in range(args.rounds)])
        texts = med([timed(lambda: [a.text for a in list_options(st, p)], budget / 4) for _ in range(args.rounds)])
        out["placement"] = {"options": n_opts, "count_us": lazy * 1e6, "texts_for_display_ms": texts * 1e3}
    out["numba_reference"] = kernel_vs_numba(args)
    out["kernel_jobs"] = kernel_jobs(args)
    out["step_api"] = step_api_vs_openspiel(args)
    out["machine"]["load_end"] = list(os.getloadavg())
    return out


# -- the report -------------------------------------------------------------------------------
def _f(x, digits=1) -> str:
    if x is None:
        return "-"
    return f"{x:,.{digits}f}"


def _table(title: str, columns: list) -> Table:
    table = Table(title=title, title_justify="left", title_style="bold", header_style="bold")
    for i, col in enumerate(columns):
        table.add_column(col, justify="left" if i == 0 else "right")
    return table


def report(out: dict) -> None:
    s, m = out["settings"], out["machine"]
    console.print(f"[bold]Rulebook benchmarks[/bold]: {s['players']} players, random play; medians of "
                  f"{s['rounds']} interleaved round(s) of ~{s['seconds']:.2f} s per measure; python {m['python']}, "
                  f"{m['cpus']} CPUs, load average {m['load_start'][0]:.2f} {m['load_start'][1]:.2f} "
                  f"{m['load_start'][2]:.2f} at the start")
    notes = {}
    titles = {"games_per_s": "Games per second (per CPU second in one process; -j 2 and dask local: per wall "
                             "second, 2 workers)",
              "us_per_decision": "µs of CPU per decision (-j 2 and dask local: this process's and its workers' CPU)"}
    for key, digits in (("games_per_s", 1), ("us_per_decision", 2)):
        table = _table(titles[key], ["game", "actions/game"] + [HEADINGS.get(b, b) for b in BACKENDS])
        for label, row in out["games"].items():
            cells = []
            for b in BACKENDS:
                got = row["backends"][b]
                if key in got:
                    cells.append(_f(got[key], digits))
                else:
                    why = got.get("why_not") or "not measured"
                    mark = notes.setdefault((b, why), len(notes) + 1)
                    cells.append(f"n/a ({mark})")
            table.add_row(label, _f(row["actions_per_game"]), *cells)
        console.print(table)
    for (b, why), mark in notes.items():
        what = f"{HEADINGS.get(b, b)} not available"
        console.print(f"  ({mark}) n/a ({what}: {escape(why)})")
    d = out["dask"]
    if d["cluster_start_s"] is not None:
        console.print(f"  dask local: a LocalCluster of {d['workers']} worker processes, started once in "
                      f"{d['cluster_start_s']:.2f} s (not counted); -j 2 counts starting its processes")
    firsts = {k: v["kernel_first_call_s"] for k, v in out["games"].items() if v.get("kernel_first_call_s")}
    if firsts:
        console.print("  kernel: first call (builds and compiles the kernel, or loads it from numba's cache): "
                      + ", ".join(f"{k} {v:.2f} s" for k, v in firsts.items()))

    if "reference_skull_king" in out:
        r = out["reference_skull_king"]
        t = _table("Hand-written Python Skull King (tools/reference_skull_king.py); ratio: the median of the "
                   "rounds' ratios", ["", "games/s", "÷ reference"])
        t.add_row("reference", _f(r["games_per_s"]), "1.000")
        sk = out["games"]["Skull King"]["backends"]
        t.add_row("Rulebook simulate", _f(sk["simulate"]["games_per_s"]), f"{r['simulate_ratio']:.3f}x")
        if r["kernel_ratio"] is not None:
            rounds = ", ".join(f"{x:.2f}" for x in r["kernel_ratio_per_round"])
            t.add_row("Rulebook kernel", _f(sk["kernel"]["games_per_s"]), f"{r['kernel_ratio']:.3f}x ({rounds})")
        else:
            t.add_row("Rulebook kernel", "n/a", "n/a")
        console.print(t)

    o = out["openspiel"]
    if "why_not" in o:
        console.print(f"[bold]Oh Hell and OpenSpiel[/bold]: n/a ({escape(o['why_not'])})")
    else:
        oh = out["games"]["Oh Hell"]["backends"]
        t = _table(f"Oh Hell, 4 players: Rulebook and OpenSpiel (pyspiel {o['version']}), alternating in the "
                   "same rounds; ratio ≥ 1: Rulebook as fast or faster (the median of the rounds' ratios; each "
                   "round's in brackets)", ["loop", "µs/decision", "games/s", "ratio"])
        py, cpp = o["python_loop"], o["cpp_loop"]
        t.add_row("OpenSpiel Python loop", _f(py["us_per_decision"], 2), _f(py["games_per_s"]),
                  f"({py['decisions_per_game']:.1f} decisions/game)")
        t.add_row("OpenSpiel C++ loop (evaluate_bots)", "-", _f(cpp["games_per_s"]), "")
        t.add_row("Rulebook step API vs OpenSpiel Python loop", _f(oh["step API"]["us_per_decision"], 2),
                  _f(oh["step API"]["games_per_s"]), f"{o['step_api_vs_python_loop']:.3f}x")
        if o["kernel_step_api_vs_python_loop"] is not None:
            t.add_row("Rulebook kernel step API (new_state(fast=True)) vs OpenSpiel Python loop",
                      _f(oh["kernel step API"]["us_per_decision"], 2), _f(oh["kernel step API"]["games_per_s"]),
                      f"{o['kernel_step_api_vs_python_loop']:.3f}x "
                      f"({', '.join(f'{x:.2f}' for x in o['kernel_step_api_vs_python_loop_per_round'])})")
        t.add_row("Rulebook simulate vs OpenSpiel C++ loop", _f(oh["simulate"]["us_per_decision"], 2),
                  _f(oh["simulate"]["games_per_s"]), f"{o['simulate_vs_cpp_loop']:.4f}x")
        if o["kernel_vs_cpp_loop"] is not None:
            t.add_row("Rulebook kernel vs OpenSpiel C++ loop", _f(oh["kernel"]["us_per_decision"], 2),
                      _f(oh["kernel"]["games_per_s"]), f"{o['kernel_vs_cpp_loop']:.4f}x "
                      f"({', '.join(f'{x:.2f}' for x in o['kernel_vs_cpp_loop_per_round'])})")
        else:
            t.add_row("Rulebook kernel vs OpenSpiel C++ loop", "n/a", "n/a", "n/a (see the note above)")
        console.print(t)

    report_focused(out)

    t = _table("State operations (mid-game state, µs of CPU per call)", ["game", "clone", "to_json", "from_json",
                                                                          "JSON chars"])
    for label, v in out["state_ops"].items():
        if "why_not" in v:
            t.add_row(label, "n/a", "n/a", "n/a", escape(v["why_not"][-60:]))
            continue
        t.add_row(label, _f(v["clone_us"], 2), _f(v["to_json_us"], 2), _f(v["from_json_us"], 2), str(v["json_chars"]))
    console.print(t)

    ld = out["loading"]
    t = _table("Loading and start-up", ["", "time"])
    for label, ms in ld["load_game_ms"].items():
        t.add_row(f"load_game {label} (in-process, parsed expressions cached)", f"{ms:.1f} ms")
    t.add_row("first load of all specs in this process", f"{ld['first_load_all_ms']:.0f} ms")
    t.add_row(f"start-up + 1 game: rulebook simulate specs/skull_king.yaml -n 1 -p {PLAYERS}",
              f"{ld['startup_cpu_s']:.3f} s CPU, {ld['startup_wall_s']:.3f} s wall")
    if "startup_fast_cpu_s" in ld:
        t.add_row(f"start-up + 1 game: the same with --fast (kernel compiled before: numba's cache)",
                  f"{ld['startup_fast_cpu_s']:.3f} s CPU, {ld['startup_fast_wall_s']:.3f} s wall")
    console.print(t)

    if "listing" in out:
        t = _table("Option listing against hand size (Skull King, follow suit, legal_actions of one seat)",
                   ["hand", "µs", "options", "µs per card", "per card vs h = 10"])
        for r in out["listing"]:
            t.add_row(f"h = {r['h']}", _f(r["us"]), str(r["options"]), _f(r["us_per_card"], 2),
                      f"x{r['per_card_vs_h10']:.2f}")
        console.print(t)
    if "placement" in out:
        p = out["placement"]
        console.print(f"Skull Queen placement ({p['options']:,} options of one seat): listed and counted in "
                      f"{p['count_us']:.1f} µs (no text built); every text built, for display, in "
                      f"{p['texts_for_display_ms']:.2f} ms")
    le = m["load_end"]
    console.print(f"load average at the end: {le[0]:.2f} {le[1]:.2f} {le[2]:.2f} ({m['cpus']} CPUs)")


def kernel_ratios(args) -> dict:
    """``--kernel``: per spec (``PATH[:KEY=VALUE,...]``), games per second of the plain step API and
    of ``simulate --fast`` in ``args.rounds`` interleaved rounds of ``args.seconds`` CPU seconds
    each, and the median of the rounds' ratios. Exits with the reason when the kernel does not
    play a spec."""
    global PLAYERS
    from interpreter.options import parse_options
    out = {"machine": {"load_start": list(os.getloadavg())}, "specs": {}}
    for arg in args.kernel:
        path, _, opts = arg.partition(":")
        options = parse_options([o for o in opts.split(",") if o]) or None
        game = load_game(path, options)
        players = PLAYERS if game.min_players <= PLAYERS <= game.max_players else game.min_players
        PLAYERS, saved = players, PLAYERS
        try:
            t0 = cpu()
            why = kernel_status(game)  # (compiles)
            if why is not None:
                sys.exit(f"{arg}: the kernel does not play it: {why}")
            compile_s = cpu() - t0
            plain, fast = [], []
            for r in range(args.rounds):
                plain.append(step_api_games(game, 1000 * r, args.seconds))
                fast.append(simulate_games(game, 1000 * r, args.seconds, fast=True))
        finally:
            PLAYERS = saved
        gps = [g / s for s, g, _ in plain], [g / s for s, g, _ in fast]
        out["specs"][arg] = {"players": players, "step_api_games_per_s": med(gps[0]),
                             "kernel_games_per_s": med(gps[1]), "first_call_cpu_s": compile_s,
                             "ratio": med([b / a for a, b in zip(*gps)]),
                             "step_api_us_per_decision": med([s / d * 1e6 for s, _, d in plain])}
    out["machine"]["load_end"] = list(os.getloadavg())
    t = _table("Kernel (simulate --fast) vs plain step API, random play, CPU time",
               ["spec", "players", "step API games/s", "µs/decision", "kernel games/s", "ratio",
                "first call (compile), CPU s"])
    t.columns[0].overflow = "fold"
    for arg, f in out["specs"].items():
        t.add_row(escape(arg), str(f["players"]), _f(f["step_api_games_per_s"]), _f(f["step_api_us_per_decision"]),
                  _f(f["kernel_games_per_s"]), f"{f['ratio']:.0f}×", _f(f["first_call_cpu_s"]))
    console.print(t)
    console.print(f"load average {out['machine']['load_start'][0]:.1f} at the start, "
                  f"{out['machine']['load_end'][0]:.1f} at the end")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds (medians are printed)")
    ap.add_argument("--seconds", type=float, default=0.4, help="seconds per measurement")
    ap.add_argument("--quick", action="store_true", help="a short run: one round of 0.15 s per measure")
    ap.add_argument("--json", metavar="FILE", help="also write every figure as JSON to FILE")
    ap.add_argument("--kernel", metavar="SPEC[:KEY=VALUE,...]", action="append",
                    help="measure only this spec (repeatable): plain step API against simulate --fast")
    ap.add_argument("--numba-reference", action="store_true",
                    help="measure only Skull King's kernel against the hand-lowered numba Skull King")
    ap.add_argument("--jobs-ratio", action="store_true", help="measure only simulate --fast -j 2 against one process")
    ap.add_argument("--step-api", action="store_true",
                    help="measure only the kernel's step API (apply(a) and apply(a, p)) against OpenSpiel from Python")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 0.15
    if args.json:  # checked before the run, not after minutes of it (and left as it is until the end)
        target = Path(args.json)
        place = target if target.exists() else target.parent
        if target.is_dir() or not place.is_dir() and place == target.parent or not os.access(place, os.W_OK):
            sys.exit(f"cannot write {args.json}: not a writable file path")
    focused = {"numba_reference": (args.numba_reference, kernel_vs_numba), "kernel_jobs": (args.jobs_ratio, kernel_jobs),
               "step_api": (args.step_api, step_api_vs_openspiel)}
    if args.kernel:
        out = kernel_ratios(args)
    elif any(on for on, _ in focused.values()):
        out = {"settings": {"players": PLAYERS, "rounds": args.rounds, "seconds": args.seconds},
               "machine": {"python": sys.version.split()[0], "cpus": os.cpu_count(), "load_start": list(os.getloadavg())}}
        for key, (on, fn) in focused.items():
            if on:
                out[key] = fn(args)
        out["machine"]["load_end"] = list(os.getloadavg())
        m = out["machine"]
        console.print(f"{m['cpus']} CPUs; load average {m['load_start'][0]:.2f} at the start, {m['load_end'][0]:.2f} "
                      f"at the end; {args.rounds} round(s) of ~{args.seconds:.2f} s per measure")
        report_focused(out)
    else:
        out = measure(args)
        report(out)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n")
        console.print(f"figures written to {args.json}")


if __name__ == "__main__":
    # the compiled code's figures: a kernel not compiled yet compiles before it is timed (no bytecode
    # machine standing in for it meanwhile, see interpreter/fast/vm.py; set here, not at import: a
    # test importing this file must not turn the machine off for the tests after it)
    os.environ.setdefault("RULEBOOK_MACHINE", "off")
    main()
