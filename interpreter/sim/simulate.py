"""Batch simulation of a game between bots, with summary statistics.

``simulate(game, n_games, num_players, seed, progress, bots=...)`` plays ``n_games`` games
between bots (random unless ``bots`` names others per seat; game ``i`` uses seed ``seed + i``, so
runs are reproducible) and returns a :class:`SimulationResult`.
"""
from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..agents.basic import play_game
from ..agents.registry import bots_for, describe
from ..engine.run import MAX_GAME_ACTIONS
from ..errors import RuleError, RulebookError
from .stats import wilson_interval

MAX_DISTINCT = 100_000  # distinct scores (or lengths) remembered for the distributions


class _Tally:
    """Streaming statistics of numbers: count, exact sum and sum of squares (ints, or exact
    fractions of floats, so the result does not depend on the order games finish in), min, max,
    and how often each value occurred (at most MAX_DISTINCT values; past that the distribution
    is marked incomplete). Constant memory whatever the number of games."""

    __slots__ = ("n", "total", "squares", "low", "high", "counts", "complete")

    def __init__(self):
        self.n, self.total, self.squares = 0, 0, 0
        self.low = self.high = None
        self.counts: dict = {}
        self.complete = True

    def add(self, x) -> None:
        exact = x if isinstance(x, int) else Fraction(x)
        self.n += 1
        self.total += exact
        self.squares += exact * exact
        self.low = x if self.low is None or x < self.low else self.low
        self.high = x if self.high is None or x > self.high else self.high
        if x in self.counts or len(self.counts) < MAX_DISTINCT:
            self.counts[x] = self.counts.get(x, 0) + 1
        else:
            self.complete = False

    def add_many(self, xs) -> None:
        """:meth:`add` of every whole number of the int64 array ``xs``, in order (the same tally,
        computed with numpy: the kernel's results come by the ten thousand)."""
        import numpy as np
        if not len(xs):
            return
        lo, hi = int(xs.min()), int(xs.max())
        self.n += len(xs)
        if max(-lo, hi) <= 1 << 20 and len(xs) <= 1 << 22:  # (n * x² < 2⁶²: int64 sums are exact)
            self.total += int(xs.sum())
            self.squares += int((xs * xs).sum())
        else:
            big = xs.astype(object)  # exact sums of squares whatever the size of the numbers
            self.total += int(big.sum())
            self.squares += int((big * big).sum())
        self.low = lo if self.low is None or lo < self.low else self.low
        self.high = hi if self.high is None or hi > self.high else self.high
        if hi - lo < 1 << 16 and len(self.counts) + hi - lo < MAX_DISTINCT:  # every value is kept: no order
            per = np.bincount(xs - lo)
            for k in np.flatnonzero(per):
                x = lo + int(k)
                self.counts[x] = self.counts.get(x, 0) + int(per[k])
            return
        values, first, counts = np.unique(xs, return_index=True, return_counts=True)
        for k in np.argsort(first, kind="stable"):  # new values in the order they first came, as add
            x, c = int(values[k]), int(counts[k])
            if x in self.counts or len(self.counts) < MAX_DISTINCT:
                self.counts[x] = self.counts.get(x, 0) + c
            else:
                self.complete = False

    def mean(self) -> float:
        return float(Fraction(self.total) / self.n) if self.n else 0.0

    def stdev(self) -> float:
        """The population standard deviation."""
        if self.n < 2:
            return 0.0
        var = Fraction(self.squares) / self.n - (Fraction(self.total) / self.n) ** 2
        return math.sqrt(max(0.0, float(var)))

    def values(self) -> list:
        """Every value seen, sorted (from the counts: complete only while ``complete``)."""
        return [v for v in sorted(self.counts) for _ in range(self.counts[v])]


@dataclass
class SimulationResult:
    """Statistics of a run, kept as streaming tallies (constant memory): ``tallies[seat]`` of the
    final scores and ``length_tally`` of the game lengths (actions); ``wins[seat]`` counts wins (a
    tie shares one win equally); ``seconds`` the wall time; ``bots`` the bot of each seat
    (``"random"``, ``"ismcts:0.1s"``...). ``scores[seat]`` and ``lengths`` give the values seen,
    sorted (the order of games is not kept)."""

    game: str
    num_players: int
    bots: list = field(default_factory=list)
    tallies: list = field(default_factory=list)
    wins: list = field(default_factory=list)
    length_tally: _Tally = field(default_factory=_Tally)
    seconds: float = 0.0
    fast: bool = False              # played by the typed kernel (interpreter.fast)
    fast_note: str = ""             # why not, when the kernel was asked for and could not be used
    # the kernel's machine code made ready before the games (not in `seconds`): CPU and wall
    # seconds, and whether numba compiled it (else it was loaded from the cache)
    kernel_ready: tuple | None = None
    # with compile_behind: the games the step API played while another process compiled the
    # kernel (kernel_ready is then that process's compile; both phases are in `seconds`)
    step_api_games: int | None = None
    machine_games: int | None = None  # ... or the games the bytecode machine played meanwhile (fast.vm)
    compiled_behind: bool = False   # ... and that process compiled it (else it failed: this one did)
    kernel_note: str = ""           # why the compile in another process failed, when it did
    search_on_machine: bool = False  # the search bots began on the bytecode machine (kernel_ready: its own)
    # the bytecode machine's own first compile (fast.prepare.Ready), once per installation, when this run
    # paid it before its first games on the machine (not in `seconds`)
    machine_ready: object = None
    teams: list | None = None       # the team of each seat, for a spec with teams: (else None)
    team_wins: dict = field(default_factory=dict)  # team -> wins (a win of a team counts once)
    team_names: list = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.length_tally.n

    @property
    def scores(self) -> list:
        return [t.values() for t in self.tallies]

    @property
    def lengths(self) -> list:
        return self.length_tally.values()

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def add(self, scores, winners, length) -> None:
        """Count one finished game."""
        for p in range(self.num_players):
            self.tallies[p].add(scores[p])
        for w in winners:
            self.wins[w] += Fraction(1, len(winners))
        if self.teams is not None:  # a team's win counts once for the team, not as a tie of its seats
            won = {self.teams[w] for w in winners}
            for t in won:
                self.team_wins[t] = self.team_wins.get(t, 0) + Fraction(1, len(won))
        self.length_tally.add(length)

    def add_many(self, scores, lengths, lowest: bool) -> None:
        """Count many finished games at once: ``scores`` int64[games, players] (no null),
        ``lengths`` int64[games]; the winners are the seats with the best score (``lowest``: the
        lowest), ties sharing a win, as :meth:`add` counts them (a team's win once for the team)."""
        import numpy as np
        for p in range(self.num_players):
            self.tallies[p].add_many(scores[:, p])
        best = scores.min(axis=1) if lowest else scores.max(axis=1)
        won = scores == best[:, None]
        shared = won.sum(axis=1)
        for w in np.unique(shared):
            per_seat = won[shared == w].sum(axis=0)
            for p in range(self.num_players):
                if per_seat[p]:
                    self.wins[p] += Fraction(int(per_seat[p]), int(w))
        if self.teams is not None:  # each team with a winning seat: 1 / the number of such teams
            names = sorted(set(self.teams))
            team_won = np.stack([won[:, [q for q, t in enumerate(self.teams) if t == x]].any(axis=1)
                                 for x in names], axis=1)
            teams_won = team_won.sum(axis=1)
            for k in np.unique(teams_won):
                per_team = team_won[teams_won == k].sum(axis=0)
                for i, x in enumerate(names):
                    if per_team[i]:
                        self.team_wins[x] = self.team_wins.get(x, 0) + Fraction(int(per_team[i]), int(k))
        self.length_tally.add_many(lengths)

    def summary(self) -> dict:
        """Plain-data statistics: per seat its bot, mean, standard deviation, min, max, win rate and
        the win rate's 95% Wilson interval (``win_low``, ``win_high``)."""
        seats = []
        for p in range(self.num_players):
            t = self.tallies[p]
            wins = float(self.wins[p])
            lo, hi = wilson_interval(wins, self.games)
            seats.append({
                "seat": p, "bot": self.bots[p] if p < len(self.bots) else "random",
                "mean": t.mean(), "stdev": t.stdev(),
                "min": t.low if t.low is not None else 0, "max": t.high if t.high is not None else 0,
                "win_rate": wins / self.games if self.games else 0.0,
                "win_low": lo, "win_high": hi,
            })
        out = {"game": self.game, "players": self.num_players, "games": self.games,
               "seconds": self.seconds, "games_per_second": self.games_per_second,
               "mean_length": self.length_tally.mean(), "seats": seats}
        if self.kernel_ready is not None:
            cpu, wall, compiled = self.kernel_ready
            out["kernel"] = {"compiled": compiled, "ready_cpu_seconds": cpu, "ready_seconds": wall}
            if self.step_api_games is not None:
                out["kernel"].update(compiled_behind=self.compiled_behind, step_api_games=self.step_api_games)
            if self.machine_games is not None:
                out["kernel"].update(compiled_behind=self.compiled_behind, machine_games=self.machine_games)
            if self.search_on_machine:
                out["kernel"]["search_on_machine"] = True
        if self.machine_ready is not None and self.machine_ready.compiled:
            out.setdefault("kernel", {}).update(machine_compiled_cpu_seconds=self.machine_ready.cpu,
                                                machine_compiled_seconds=self.machine_ready.wall)
        if self.teams is not None:
            rows = []
            for t in sorted(set(self.teams)):
                w = float(self.team_wins.get(t, 0))
                lo, hi = wilson_interval(w, self.games)
                rows.append({"team": t, "name": self.team_names[t] if t < len(self.team_names) else f"team {t}",
                             "seats": [p for p, x in enumerate(self.teams) if x == t],
                             "win_rate": w / self.games if self.games else 0.0, "win_low": lo, "win_high": hi})
            out["teams"] = rows
        return out


def _play_one(game, num_players, seed, i, trace, schedule="round-robin", speeds=None, bots=None, fast=False):
    """Game ``i`` of a run as ``(scores, winners, number of actions)`` (see :func:`_play_state`)."""
    state = _play_state(game, num_players, seed, i, trace, schedule, speeds, bots, fast)
    return state.scores(), state.winners(), len(state.history)


def _play_state(game, num_players, seed, i, trace, schedule="round-robin", speeds=None, bots=None, fast=False):
    """The final State of game ``i`` of a run: seed ``seed + i`` and the bots of that seed (see
    bots_for); ``schedule`` and ``speeds`` make its scheduler (see interpreter.agents.schedule);
    ``fast``: played in the kernel's step API (search bots search in the kernel).
    A failing game raises RuleError with the command that replays it."""
    from ..agents.schedule import Scheduler
    try:
        return play_game(game, num_players, seed + i, bots_for(seed + i, num_players, bots or {}), trace,
                         Scheduler(schedule, seed + i, speeds), fast=fast)
    except RulebookError as exc:
        raise RuleError(f"{exc}\n    in game {i + 1} (seed {seed + i}); watch it with: rulebook play {game.file} "
                        f"--players {num_players} --seed {seed + i}"
                        + "".join(f" --option {k}={_text(v)}" for k, v in game.options.items())
                        + "".join(f" --bot {p}={k}" for p, k in sorted((bots or {}).items()))
                        + (f" --max-actions {game.max_actions}" if game.max_actions != MAX_GAME_ACTIONS else "")) from None


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


_GAMES = threading.local()  # per worker thread: the games it has loaded (a worker plays many chunks)
_FORKED: dict = {}  # the parallel run in progress: its process ("pid") and its Game by fingerprint ("games")


def _worker_game(file, text, options, fingerprint, max_actions=None):
    """The Game a worker plays: loaded once per worker thread from the spec's ``text`` (sent by
    the parent, so a worker on another machine needs no copy of the file), checked against the
    parent's ``fingerprint``; its ``max_actions`` the parent's when given."""
    cache = getattr(_GAMES, "games", None)
    if cache is None:
        # a forked worker process starts with its parent's game (and kernel); threads load their own
        cache = _GAMES.games = dict(_FORKED["games"]) if _FORKED.get("pid") not in (None, os.getpid()) else {}
    game = cache.get(fingerprint)
    if game is None:
        from ..spec.loader import load_game_text
        game = load_game_text(text, file, options)
        if game.fingerprint != fingerprint:  # another version of the interpreter on the worker?
            raise RulebookError(f"a worker loaded {file} as another game (fingerprint {game.fingerprint}, "
                                f"not {fingerprint}): run the same Rulebook everywhere")
        if len(cache) >= 4:
            cache.clear()
        cache[fingerprint] = game
    if max_actions is not None:
        game.max_actions = max_actions
    return game


def _play_chunk(file, text, options, fingerprint, num_players, seed, indices, schedule="round-robin",
                speeds=None, bots=None, fast=False, max_actions=None):
    """Worker of a parallel run (a process of ``--jobs`` or a Dask worker): plays the games
    ``indices`` (a range) of the run, each of at most ``max_actions`` actions (the parent's
    Game.max_actions); returns ``[(i, (scores, winners, length)), ...]``."""
    game = _worker_game(file, text, options, fingerprint, max_actions)
    return [(i, _play_one(game, num_players, seed, i, None, schedule, speeds, bots, fast)) for i in indices]


BACKENDS = ("process", "dask")


FAST_CHUNK = 20_000  # games per kernel call (progress is reported between calls)


def _kernel_ready(game, note=None, compiling=None) -> tuple:
    """The kernel of ``game`` made ready (compiled, or loaded from the cache): its
    :meth:`~interpreter.fast.kernel.Kernel.ready` figures. ``note(text)`` is told before a
    compile; ``compiling(compiles)`` is a context manager held meanwhile (a progress line)."""
    from contextlib import nullcontext
    from ..fast.kernel import kernel_for
    kernel = kernel_for(game)
    if not kernel.compiled and note is not None:
        note("compiling the kernel of this spec (the first run only: it takes tens of seconds; the machine "
             "code is cached for later runs and serves every option value)")
    with compiling(not kernel.compiled) if compiling is not None else nullcontext():
        return kernel.ready()


def _take_fast(game, start, scores, lengths, errors, num_players, seed, add, schedule, speeds, bots,
               result=None):
    """Count the kernel's games ``start .. start + len(lengths) - 1`` (their ``scores``,
    ``lengths`` and error codes, see :meth:`~interpreter.fast.kernel.Kernel.run`): given to
    ``add(i, outcome)`` in game order, or, when ``result`` is given, counted at once by
    ``result.add_many`` (the same statistics); a game the kernel flags (a rule error in the step
    API) is played again by the step API, which raises its error with the replay command."""
    from ..fast.typepass import NULL
    lowest = game.winner_rule == "lowest"
    if result is not None and not errors.any() and not (scores == NULL).any():
        result.add_many(scores, lengths, lowest)
        return
    for k in range(len(lengths)):
        if errors[k]:
            add(start + k, _play_one(game, num_players, seed, start + k, None, schedule, speeds, bots))
            continue
        row = [None if x == NULL else int(x) for x in scores[k]]
        best = (min if lowest else max)(row)
        add(start + k, (row, [p for p, x in enumerate(row) if x == best], int(lengths[k])))


def _simulate_fast(game, n_games, num_players, seed, add, progress, schedule, speeds, bots, result=None, done=0):
    """The games ``done .. n_games - 1`` of a run, played by the typed kernel in this process,
    counted by :func:`_take_fast` in chunks of FAST_CHUNK games (progress is reported between them)."""
    from ..fast.kernel import kernel_for
    kernel = kernel_for(game)
    while done < n_games:
        n = min(FAST_CHUNK, n_games - done)
        _take_fast(game, done, *kernel.run(num_players, seed + done, n), num_players, seed, add, schedule, speeds,
                   bots, result)
        done += n
        if progress is not None:
            progress(done)


def _spec_text(game) -> str:
    """The text of ``game``'s spec file, to send to another process. Raises RulebookError when the
    file cannot be read or has changed since the game was loaded."""
    from ..spec.compile import fingerprint
    from ..spec.loader import read_text
    text = read_text(game.file)
    if fingerprint(text, game.options) != game.fingerprint:
        raise RulebookError(f"{game.file} changed since it was loaded: load it again to simulate it")
    return text


def _machine_of(game):
    """The bytecode machine of ``game`` (:mod:`interpreter.fast.vm`), or None when its kernel module
    uses what the machine lacks or the machine is off (``RULEBOOK_MACHINE=off``)."""
    from ..fast.typepass import NotTyped
    from ..fast.vm import enabled, machine_for
    if not enabled():
        return None
    try:
        return machine_for(game)
    except NotTyped:
        return None


def _games_while_compiling(game, n_games, num_players, seed, add, progress, schedule, speeds, bots, note,
                           compiling) -> tuple:
    """A run's first games played while another process compiles the kernel
    (:mod:`interpreter.fast.behind`), until it is done or the games are: on the bytecode machine
    (:mod:`interpreter.fast.vm`, the kernel's own games) in chunks, else on the step API. Returns
    ``(games played, their seconds, the compile's (CPU s, wall s, True) or None, why it failed or "",
    whether the machine played them)``; ``(0, 0.0, None, "", False)`` when there is nothing to
    compile (the kernel is in the cache) or no process to compile in."""
    from contextlib import nullcontext
    from ..cache import cache_dir
    from ..fast.kernel import kernel_for
    from ..fast.behind import CompileBehind
    kernel = kernel_for(game)
    if kernel.compiled:
        return 0, 0.0, None, "", False, None
    try:
        behind = CompileBehind(game, kernel, cache_dir())
    except OSError:
        return 0, 0.0, None, "", False, None
    machine, machine_cost = _machine_of(game), None
    if note is not None:
        note("compiling the kernel of this spec in another process (until its machine code is cached: a run "
             "that ends first stops the compile): the first games play on the " + (
                 "bytecode machine" if machine is not None else "step API") + " meanwhile, the same games")
    if machine is not None:
        from ..fast.prepare import made_ready
        from ..fast.vm import machine_compiled
        if not machine_compiled():  # (the installation's first run: timed apart, as a kernel's compile is)
            if note is not None:
                note("compiling the bytecode machine first (once per installation: 7-22 s of CPU, the most on a new "
                     "installation, whose own numba functions compile too; `rulebook compile` does it ahead)")
            with compiling(True, machine=True) if compiling is not None else nullcontext():
                machine_cost = made_ready(lambda: machine.run(num_players, seed, 0))
    i, chunk = 0, 1
    start = time.perf_counter()
    with behind, (compiling(True, behind=True) if compiling is not None else nullcontext()):
        while i < n_games and not behind.done():
            if machine is None:
                add(i, _play_one(game, num_players, seed, i, None, schedule, speeds, bots))
                i += 1
            else:  # chunks of about a tenth of a second, so the compile's end is seen soon
                n, began = min(chunk, n_games - i), time.perf_counter()
                _take_fast(game, i, *machine.run(num_players, seed + i, n), num_players, seed, add, schedule,
                           speeds, bots)
                i += n
                if time.perf_counter() - began < 0.05:
                    chunk *= 2
            if progress is not None:
                progress(i)
        seconds = time.perf_counter() - start
        ready = behind.outcome()
    if ready is not None:
        kernel.compiled = True
    return i, seconds, ready, behind.failure, machine is not None, machine_cost


def _fast_chunk(file, text, options, fingerprint, num_players, seed, indices, max_actions=None):
    """Worker of a parallel ``--fast`` run (a process of ``--jobs`` or a Dask worker): the
    kernel's ``(first game, scores, lengths, errors)`` of the games ``indices`` (a range), each of
    at most ``max_actions`` actions (the parent's Game.max_actions). The
    kernel's machine code comes from numba's cache (the parent made it ready: one compile for every
    worker sharing the cache folder; a worker of another machine compiles its own once). Raises
    RulebookError when the worker cannot run the kernel (numba missing there)."""
    from ..fast.kernel import kernel_for
    from ..fast.typepass import NotTyped
    game = _worker_game(file, text, options, fingerprint, max_actions)
    try:
        kernel = kernel_for(game)
    except NotTyped as exc:
        raise RulebookError(f"a worker cannot run the kernel: {exc}: install the same Rulebook with its fast "
                            f"extra on every worker, or run without --fast") from None
    return (indices.start,) + kernel.run(num_players, seed + indices.start, len(indices))


def _run_parallel(game, num_players, seed, n_games, jobs, backend, address, extra, add, progress, **chunks):
    """Play the games on ``jobs`` worker processes or on Dask (see :func:`simulate`), the spec's
    text sent to them; ``chunks``: :func:`_run_chunks`'s ``fn``, ``size`` and ``take``."""
    text = _spec_text(game)
    args = (game.file, text, game.options, game.fingerprint, num_players, seed)
    _FORKED.update(pid=os.getpid(), games={game.fingerprint: game})
    if backend == "dask":
        from .dask_backend import dask_pool
        with dask_pool(address, jobs) as pool:
            _run_chunks(pool, args, extra, n_games, add, progress, **chunks)
    else:
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(max_workers=jobs) as executor:
            _run_chunks(_Pool(executor, jobs), args, extra, n_games, add, progress, **chunks)


def simulate(game, n_games: int, num_players: int, seed: int = 0, progress=None, trace: dict | None = None,
             jobs: int = 1, schedule: str = "round-robin", speeds: dict | None = None, bots: dict | None = None,
             backend: str = "process", address: str | None = None, on_game=None, fast: bool = False,
             note=None, compiling=None, compile_behind: bool = False):
    """Play ``n_games`` games (game ``i`` with seed ``seed + i``: the same results whatever
    ``jobs`` or ``backend``). ``bots`` maps seats to ``KIND[:budget]`` texts (see
    :mod:`interpreter.agents.registry`); other seats are random bots. ``progress(done)`` is called
    as games finish. With ``trace`` (a dict), counts how often each spec step ran (for heat
    diagrams; single process only). ``schedule`` (``round-robin`` or ``random``) and ``speeds``
    (seat -> speed, reaction times) decide who acts first in real-time blocks (see
    :mod:`interpreter.agents.schedule`).

    Where the games are played: ``backend="process"`` in this process, or with ``jobs`` > 1 in
    that many worker processes; ``backend="dask"`` on a Dask cluster (``pip install -e
    '.[dask]'``): the scheduler at ``address`` (``tcp://host:port``; its workers need the same
    Rulebook installed, not the spec file: its text is sent), or without ``address`` a local
    cluster of ``jobs`` worker processes (``jobs`` 1: one per core). The games are split into
    chunks of consecutive games, and the results are merged in game order, so the statistics
    (and the order of ``on_game`` calls) are those of one process. ``on_game(i, scores,
    winners, length)``, when given, is called for each game in that order.

    ``fast=True`` plays the games in the typed playout kernel (:mod:`interpreter.fast`, needs the
    ``fast`` extra: numba) when the spec types and every bot is random, or ``ismcts``/``greedy`` with
    a number of iterations (those games run in the kernel's step API, each search in the kernel:
    :mod:`interpreter.fast.search`): with random bots, the same games, seed by seed, as the step API,
    on the same ``jobs``/``backend`` (each worker runs the kernel; the machine code is made ready
    here first, so workers sharing its cache folder compile nothing). Otherwise the
    games are played as without it and ``result.fast_note`` says why (``result.fast`` tells which
    ran). ``note(text)``, when given, is told of slow first steps (the kernel compiling);
    ``compiling(compiles)``, when given, is a context manager held while the kernel is made ready
    (``compiles``: numba compiles it, else it loads from the cache), e.g. a progress line. That
    time is not in ``result.seconds`` (nor in games per second): ``result.kernel_ready`` holds it.
    With search bots and ``compile_behind=True`` (one process), a search module not in the cache yet
    compiles in another process while the first decisions run on the bytecode machine (the same
    decisions: :class:`~interpreter.fast.search.MachineSearch`), ``result.search_on_machine`` True and
    ``kernel_note`` saying whether the compile finished; otherwise it is compiled before the games.
    ``compile_behind=True`` (random bots, not on Dask): a kernel not in the cache yet compiles
    in another process while the first games play here on the bytecode machine
    (:mod:`interpreter.fast.vm`; on the step API when the machine cannot run the spec), the same
    games, the kernel playing the rest once ready (on the ``jobs`` workers when more than one);
    ``compiling(True, behind=True)`` is held meanwhile. ``result.machine_games`` (or
    ``result.step_api_games``) counts the games played before, ``result.kernel_ready`` is that
    compile's and ``result.compiled_behind`` is True; if that process fails, this one compiles, as
    without, and ``result.kernel_note`` says why. A run whose games are all played first stops the
    compile (on the machine: ``result.fast`` True, ``kernel_note`` says so; on the step API:
    ``result.fast`` False, ``fast_note`` says so). ``result.seconds`` then counts the games of both
    phases. See :mod:`interpreter.fast.behind`.

    Raises RulebookError for an unknown backend, Dask missing or its scheduler unreachable, and
    RuleError (with the command that replays it) for a game that fails."""
    if backend not in BACKENDS:
        raise RulebookError(f"unknown backend {backend!r}: one of {', '.join(BACKENDS)}")
    if address is not None and backend != "dask":
        raise RulebookError("an address is for the dask backend (--backend dask --address tcp://HOST:PORT)")
    bots = dict(bots or {})
    result = SimulationResult(game.name, num_players, describe(num_players, bots),
                              [_Tally() for _ in range(num_players)], [Fraction(0)] * num_players)
    if getattr(game, "teams_fn", None) is not None:
        result.teams = game.teams(num_players)
        result.team_names = list(getattr(game, "team_names", None) or [])

    def add(i, outcome):
        result.add(*outcome)
        if on_game is not None:
            on_game(i, *outcome)

    start = time.perf_counter()
    if fast:
        from ..fast.kernel import why_not
        result.fast_note = why_not(game, num_players, bots, trace, speeds, (seed, n_games), schedule) or ""
        searched = None
        if not result.fast_note and any(k != "random" for k in bots.values()):
            from ..fast.kernel import search_ready
            from ..fast.search import search_kernel_for
            from ..fast.typepass import NotTyped
            # compiled here first without compile_behind, and for workers (each would start a compile behind)
            first = not compile_behind or (n_games > 1 and (jobs > 1 or backend == "dask"))
            try:
                searched = search_kernel_for(game, compiled=first)
                if first:
                    from ..fast.steps import step_kernel_for
                    step_kernel_for(game, compiled=True)
            except NotTyped as exc:
                result.fast_note = f"the spec does not type for the kernel's search: {exc}"
        if searched is not None:
            # search bots: every game in the kernel's step API, each search in the kernel
            # (interpreter.fast.search), made ready here first (one compile for every worker)
            result.kernel_ready = search_ready(searched, game, num_players, note, compiling)
            result.search_on_machine = searched.behind is not None
            start = time.perf_counter()
            if n_games > 1 and (jobs > 1 or backend == "dask"):
                _run_parallel(game, num_players, seed, n_games, jobs, backend, address,
                              (schedule, speeds, bots, True, game.max_actions), add, progress)
            else:
                for i in range(n_games):
                    add(i, _play_one(game, num_players, seed, i, None, schedule, speeds, bots, fast=True))
                    if progress is not None:
                        progress(i + 1)
            result.seconds = time.perf_counter() - start
            result.fast = True
            if searched.behind is not None:
                result.kernel_note = ("the search bots' first decisions ran on the bytecode machine (the same decisions) "
                                      "while another process compiled the spec's search module" + (
                                          "; that compile finished (the decisions after it used the compiled "
                                          "search) and is in the cache now"
                                          if searched.behind.done() else
                                          "; the run ended before that compile (it stops when this process ends: a "
                                          "longer run, or one with --compile-first, leaves it in the cache)"))
            return result
        if not result.fast_note:
            bulk = result if on_game is None else None
            first, before, behind, failure, on_machine, result.machine_ready = 0, 0.0, None, "", False, None
            if compile_behind and n_games > 0 and backend == "process":
                first, before, behind, failure, on_machine, result.machine_ready = _games_while_compiling(
                    game, n_games, num_players, seed, add, progress, schedule, speeds, bots, note, compiling)
                if first == n_games:
                    result.seconds = before
                    played = "bytecode machine" if on_machine else "step API"
                    why = f"the {played} played all the games of the run ({n_games}) before the " + (
                        "kernel was ready (it is in the cache now: the next run uses it)" if behind is not None else
                        f"kernel compiled (its compile in another process failed: {failure})" if failure else
                        "kernel compiled (the compile was stopped; a run long enough for it to finish, or one "
                        "with --compile-first, leaves it in the cache)")
                    if on_machine:  # the kernel's own games: played fast, said as a note
                        result.fast, result.machine_games, result.kernel_note = True, n_games, why
                    else:
                        result.fast_note = why
                    return result
            if failure:
                result.kernel_note = f"the kernel's compile in another process failed ({failure}): compiled here"
                if note is not None:
                    note(result.kernel_note)
            loaded = _kernel_ready(game, note, compiling)  # (in the cache before workers start)
            result.kernel_ready = behind or loaded
            if first:
                result.compiled_behind = behind is not None
                if on_machine:
                    result.machine_games = first
                else:
                    result.step_api_games = first
            start = time.perf_counter() - before
            if n_games > 1 and (jobs > 1 or backend == "dask"):
                size = max(1, min(FAST_CHUNK, (n_games - first) // (max(jobs, 1) * 4)))
                _run_parallel(game, num_players, seed, n_games, jobs, backend, address, (game.max_actions,), add,
                              progress, fn=_fast_chunk, size=size, first=first, take=lambda chunk: _take_fast(
                                  game, *chunk, num_players, seed, add, schedule, speeds, bots, bulk))
            else:
                _simulate_fast(game, n_games, num_players, seed, add, progress, schedule, speeds, bots, bulk, first)
            result.seconds = time.perf_counter() - start
            result.fast = True
            return result
    if trace is None and n_games > 1 and (jobs > 1 or backend == "dask"):
        _run_parallel(game, num_players, seed, n_games, jobs, backend, address,
                      (schedule, speeds, bots, False, game.max_actions), add, progress)
    else:
        for i in range(n_games):
            add(i, _play_one(game, num_players, seed, i, trace, schedule, speeds, bots))
            if progress is not None:
                progress(i + 1)
    result.seconds = time.perf_counter() - start
    return result


class _Pool:
    """A pool of ``workers`` workers for :func:`_run_chunks`: ``submit(fn, *args)`` gives a
    future (``.result()``), ``wait(futures)`` gives ``(finished, still pending)`` as soon as one
    finishes. Here over concurrent.futures; see dask_backend for Dask's."""

    def __init__(self, executor, workers: int):
        self.executor, self.workers = executor, workers

    def submit(self, fn, *args):
        return self.executor.submit(fn, *args)

    def wait(self, futures):
        from concurrent.futures import FIRST_COMPLETED, wait
        done, pending = wait(futures, return_when=FIRST_COMPLETED)
        return done, pending


def _run_chunks(pool, args, extra, n_games, add, progress, fn=None, size=None, take=None, first=0) -> None:
    """Play games first..n_games-1 in chunks of consecutive games on ``pool`` (``fn(*args, range,
    *extra)``, by default :func:`_play_chunk`; ``size`` games each, by default at most 25);
    ``take(result)`` counts a chunk's result in game order (a chunk that finishes early waits for
    those before it; by default ``add(i, outcome)`` for each of its ``(i, outcome)``), and
    ``progress(finished games)`` is called as chunks finish. At most four chunks per worker are in
    flight or waiting, so memory does not grow with ``n_games``."""
    workers = max(1, pool.workers)
    if take is None:
        def take(outcomes):
            for i, outcome in outcomes:
                add(i, outcome)
    size = size or max(1, min(25, n_games // (workers * 4) or 1))
    starts = iter(range(first, n_games, size))
    in_flight = workers * 4
    pending, ready = set(), {}   # ready: chunk start -> (its end, its result), until those before it are taken
    games_of = {}                # a pending future -> its games (a range)
    following = first            # the next game to count
    finished = first
    while True:
        while len(pending) + len(ready) < in_flight:
            k = next(starts, None)
            if k is None:
                break
            games = range(k, min(n_games, k + size))
            future = pool.submit(fn or _play_chunk, *args, games, *extra)
            games_of[future] = games
            pending.add(future)
        if not pending:
            break
        done, pending = pool.wait(pending)
        for fut in done:
            games = games_of.pop(fut)
            ready[games.start] = (games.stop, fut.result())
            finished += len(games)
        while following in ready:
            stop, chunk = ready.pop(following)
            take(chunk)
            following = stop
        if progress is not None:
            progress(finished)
