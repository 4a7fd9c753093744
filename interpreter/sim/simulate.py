"""Batch simulation of a game between bots, with summary statistics.

``simulate(game, n_games, num_players, seed, progress, bots=...)`` plays ``n_games`` games
between bots (random unless ``bots`` names others per seat; game ``i`` uses seed ``seed + i``, so
runs are reproducible) and returns a :class:`SimulationResult`.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from ..agents.basic import play_game
from ..agents.registry import bots_for, describe
from ..errors import RuleError, RulebookError
from .stats import wilson_interval


@dataclass
class SimulationResult:
    """``scores[seat]`` is the list of final scores of that seat (one per game);
    ``wins[seat]`` counts wins (a tie shares one win equally); ``lengths`` the number of
    actions per game; ``seconds`` the wall time; ``bots`` the bot of each seat (``"random"``,
    ``"ismcts:0.1s"``...)."""

    game: str
    num_players: int
    bots: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    wins: list = field(default_factory=list)
    lengths: list = field(default_factory=list)
    seconds: float = 0.0
    teams: list | None = None       # the team of each seat, for a spec with teams: (else None)
    team_wins: dict = field(default_factory=dict)  # team -> wins (a win of a team counts once)
    team_names: list = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.lengths)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def summary(self) -> dict:
        """Plain-data statistics: per seat its bot, mean, standard deviation, min, max, win rate and
        the win rate's 95% Wilson interval (``win_low``, ``win_high``)."""
        seats = []
        for p in range(self.num_players):
            s = self.scores[p]
            lo, hi = wilson_interval(self.wins[p], self.games)
            seats.append({
                "seat": p, "bot": self.bots[p] if p < len(self.bots) else "random",
                "mean": statistics.fmean(s) if s else 0.0,
                "stdev": statistics.pstdev(s) if len(s) > 1 else 0.0,
                "min": min(s) if s else 0, "max": max(s) if s else 0,
                "win_rate": self.wins[p] / self.games if self.games else 0.0,
                "win_low": lo, "win_high": hi,
            })
        out = {"game": self.game, "players": self.num_players, "games": self.games,
               "seconds": self.seconds, "games_per_second": self.games_per_second,
               "mean_length": statistics.fmean(self.lengths) if self.lengths else 0.0, "seats": seats}
        if self.teams is not None:
            rows = []
            for t in sorted(set(self.teams)):
                w = self.team_wins.get(t, 0)
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
                              [[] for _ in range(num_players)], [0.0] * num_players)
    start = time.perf_counter()
    outcomes = [None] * n_games
    if jobs > 1 and trace is None and n_games > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed
        size = max(1, min(25, n_games // (jobs * 4) or 1))
        chunks = [list(range(k, min(n_games, k + size))) for k in range(0, n_games, size)]
        done = 0
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_chunk, game.file, game.options, num_players, seed, c, schedule, speeds,
                                   bots) for c in chunks]
            for fut in as_completed(futures):
                for i, outcome in fut.result():
                    outcomes[i] = outcome
                    done += 1
                if progress is not None:
                    progress(done)
    else:
        for i in range(n_games):
            outcomes[i] = _play_one(game, num_players, seed, i, trace, schedule, speeds, bots)
            if progress is not None:
                progress(i + 1)
    if getattr(game, "teams_fn", None) is not None:
        result.teams = game.teams(num_players)
        result.team_names = list(getattr(game, "team_names", None) or [])
    for scores, winners, length in outcomes:
        for p in range(num_players):
            result.scores[p].append(scores[p])
        for w in winners:
            result.wins[w] += 1 / len(winners)
        if result.teams is not None:  # a team's win counts once for the team, not as a tie of its seats
            won = {result.teams[w] for w in winners}
            for t in won:
                result.team_wins[t] = result.team_wins.get(t, 0) + 1 / len(won)
        result.lengths.append(length)
    result.seconds = time.perf_counter() - start
    return result
