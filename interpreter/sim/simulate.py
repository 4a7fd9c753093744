"""Batch simulation of a game between bots, with summary statistics.

``simulate(game, n_games, num_players, seed, progress, bots=...)`` plays ``n_games`` games
between bots (random unless ``bots`` names others per seat; game ``i`` uses seed ``seed + i``, so
runs are reproducible) and returns a :class:`SimulationResult`.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..agents.basic import play_game
from ..agents.registry import bots_for, describe
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


def _play_one(game, num_players, seed, i, trace, schedule="round-robin", speeds=None, bots=None):
    """Game ``i`` of a run as ``(scores, winners, number of actions)`` (see :func:`_play_state`)."""
    state = _play_state(game, num_players, seed, i, trace, schedule, speeds, bots)
    return state.scores(), state.winners(), len(state.history)


def _play_state(game, num_players, seed, i, trace, schedule="round-robin", speeds=None, bots=None):
    """The final State of game ``i`` of a run: seed ``seed + i`` and the bots of that seed (see
    bots_for); ``schedule`` and ``speeds`` make its scheduler (see interpreter.agents.schedule).
    A failing game raises RuleError with the command that replays it."""
    from ..agents.schedule import Scheduler
    try:
        return play_game(game, num_players, seed + i, bots_for(seed + i, num_players, bots or {}), trace,
                         Scheduler(schedule, seed + i, speeds))
    except RulebookError as exc:
        raise RuleError(f"{exc}\n    in game {i + 1} (seed {seed + i}); watch it with: rulebook play {game.file} "
                        f"--players {num_players} --seed {seed + i}"
                        + "".join(f" --option {k}={_text(v)}" for k, v in game.options.items())
                        + "".join(f" --bot {p}={k}" for p, k in sorted((bots or {}).items()))) from None


def _text(value) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _play_chunk(spec_file, options, num_players, seed, indices, schedule="round-robin", speeds=None, bots=None):
    """Worker of a parallel run: loads the spec once, plays the games ``indices``."""
    from ..spec.loader import load_game
    game = load_game(spec_file, options)
    return [(i, _play_one(game, num_players, seed, i, None, schedule, speeds, bots)) for i in indices]


def simulate(game, n_games: int, num_players: int, seed: int = 0, progress=None, trace: dict | None = None,
             jobs: int = 1, schedule: str = "round-robin", speeds: dict | None = None, bots: dict | None = None):
    """Play ``n_games`` games (game ``i`` with seed ``seed + i``: the same results whatever
    ``jobs``). ``bots`` maps seats to ``KIND[:budget]`` texts (see
    :mod:`interpreter.agents.registry`); other seats are random bots. ``progress(done)`` is called
    as games finish. With ``trace`` (a dict), counts how often each spec step ran (for heat
    diagrams; single process only). ``jobs`` > 1 plays in that many worker processes.
    ``schedule`` (``round-robin`` or ``random``) and ``speeds`` (seat -> speed, reaction times)
    decide who acts first in real-time blocks (see :mod:`interpreter.agents.schedule`)."""
    bots = dict(bots or {})
    result = SimulationResult(game.name, num_players, describe(num_players, bots),
                              [_Tally() for _ in range(num_players)], [Fraction(0)] * num_players)
    if getattr(game, "teams_fn", None) is not None:
        result.teams = game.teams(num_players)
        result.team_names = list(getattr(game, "team_names", None) or [])
    start = time.perf_counter()
    # Results are counted as games finish (streaming statistics, exact sums: the same whatever
    # the order), and only a few chunks are in flight: memory does not grow with n_games.
    if jobs > 1 and trace is None and n_games > 1:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
        size = max(1, min(25, n_games // (jobs * 4) or 1))
        starts = iter(range(0, n_games, size))
        done = 0
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            pending = set()
            while True:
                while len(pending) < jobs * 4:
                    k = next(starts, None)
                    if k is None:
                        break
                    chunk = range(k, min(n_games, k + size))
                    pending.add(pool.submit(_play_chunk, game.file, game.options, num_players, seed, chunk,
                                            schedule, speeds, bots))
                if not pending:
                    break
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    for _, outcome in fut.result():
                        result.add(*outcome)
                        done += 1
                if progress is not None:
                    progress(done)
    else:
        for i in range(n_games):
            result.add(*_play_one(game, num_players, seed, i, trace, schedule, speeds, bots))
            if progress is not None:
                progress(i + 1)
    result.seconds = time.perf_counter() - start
    return result
