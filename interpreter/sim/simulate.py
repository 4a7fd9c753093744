"""Batch simulation of a game between bots, with summary statistics.

``simulate(game, n_games, num_players, seed, progress)`` plays ``n_games`` games of
random bots (game ``i`` uses seed ``seed + i``, so runs are reproducible) and
returns a :class:`SimulationResult`.
"""
from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from ..agents.basic import RandomAgent, play_game


@dataclass
class SimulationResult:
    """``scores[seat]`` is the list of final scores of that seat (one per game);
    ``wins[seat]`` counts wins (a tie shares one win equally); ``lengths`` the number of
    actions per game; ``seconds`` the wall time."""

    game: str
    num_players: int
    scores: list = field(default_factory=list)
    wins: list = field(default_factory=list)
    lengths: list = field(default_factory=list)
    seconds: float = 0.0

    @property
    def games(self) -> int:
        return len(self.lengths)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    def summary(self) -> dict:
        """Plain-data statistics: per seat mean, standard deviation, min, max, win rate."""
        seats = []
        for p in range(self.num_players):
            s = self.scores[p]
            seats.append({
                "seat": p, "mean": statistics.fmean(s) if s else 0.0,
                "stdev": statistics.pstdev(s) if len(s) > 1 else 0.0,
                "min": min(s) if s else 0, "max": max(s) if s else 0,
                "win_rate": self.wins[p] / self.games if self.games else 0.0,
            })
        return {"game": self.game, "players": self.num_players, "games": self.games,
                "seconds": self.seconds, "games_per_second": self.games_per_second,
                "mean_length": statistics.fmean(self.lengths) if self.lengths else 0.0, "seats": seats}


def simulate(game, n_games: int, num_players: int, seed: int = 0, progress=None, trace: dict | None = None):
    """Play ``n_games`` random-bot games. ``progress(i)`` is called after each game.
    With ``trace`` (a dict), counts how often each spec step ran (for heat diagrams)."""
    result = SimulationResult(game.name, num_players, [[] for _ in range(num_players)],
                              [0.0] * num_players)
    start = time.perf_counter()
    for i in range(n_games):
        agents = [RandomAgent(seed * 1_000_003 + i * 101 + p) for p in range(num_players)]
        state = play_game(game, num_players, seed + i, agents, trace)
        scores = state.scores()
        winners = state.winners()
        for p in range(num_players):
            result.scores[p].append(scores[p])
        for w in winners:
            result.wins[w] += 1 / len(winners)
        result.lengths.append(len(state.history))
        if progress is not None:
            progress(i + 1)
    result.seconds = time.perf_counter() - start
    return result
