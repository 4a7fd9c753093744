"""``rulebook simulate A.yaml --compare B.yaml``: what a rule change does to the games played.

:func:`compare` plays the same ``n`` seeds with game A and game B (game ``i`` of each with seed
``seed + i`` and the same bots), then reports for every measure — each seat's mean score, the
mean over seats, each seat's win rate, the game length, and any variable the user names
(``NAME`` for a game variable, ``p.NAME`` for a player variable averaged over the seats) — its
mean under A, under B, and the difference B − A with a 95% confidence interval.

Games of A and B are paired by seed, so the interval is that of the mean of the per-game
differences (mean ± 1.96·sd/√n): valid whether or not the paired games are alike, and much
narrower when they are (the same deal under a changed scoring rule). Statistics are kept as
running sums, so memory does not grow with ``n``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..errors import RuleError, RulebookError

Z95 = 1.959963984540054


@dataclass
class Running:
    """Running mean and variance (Welford) of paired values: A, B and B − A."""

    n: int = 0
    sum_a: float = 0.0
    sum_b: float = 0.0
    mean_d: float = 0.0
    m2_d: float = 0.0

    def add(self, a: float, b: float) -> None:
        self.n += 1
        self.sum_a += a
        self.sum_b += b
        d = b - a
        delta = d - self.mean_d
        self.mean_d += delta / self.n
        self.m2_d += delta * (d - self.mean_d)

    def row(self, name: str) -> dict:
        """``{measure, a, b, diff, low, high}``: means and the 95% interval of B − A."""
        n = self.n or 1
        sd = math.sqrt(self.m2_d / (self.n - 1)) if self.n > 1 else 0.0
        half = Z95 * sd / math.sqrt(n)
        return {"measure": name, "a": self.sum_a / n, "b": self.sum_b / n, "diff": self.mean_d,
                "low": self.mean_d - half, "high": self.mean_d + half}


@dataclass
class Comparison:
    """The result of :func:`compare`: ``rows`` (list of dicts, see :meth:`Running.row`) in
    report order, the two games' names, ``games`` played of each, and wall ``seconds``."""

    a: str
    b: str
    games: int
    num_players: int
    rows: list = field(default_factory=list)
    seconds: float = 0.0

    def significant(self) -> list:
        """The measures whose 95% interval of B − A does not contain 0."""
        return [r for r in self.rows if r["low"] > 0 or r["high"] < 0]


def _measures(state, track) -> dict:
    scores = state.scores()
    winners = state.winners()
    n = state.num_players
    out = {}
    for p in range(n):
        out[f"seat {p} mean score"] = float(scores[p])
    out["mean score (all seats)"] = sum(scores) / n
    for p in range(n):
        out[f"seat {p} win rate"] = (1 / len(winners)) if p in winners else 0.0
    out["game length (actions)"] = float(len(state.history))
    for name in track:
        out[f"{name} at the end"] = _tracked(state, name)
    return out


def _tracked(state, name: str) -> float:
    if name.startswith("p."):
        key = name[2:]
        values = [pv.get(key) for pv in state.pvars]
    else:
        values = [state.vars.get(name)]
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not nums:
        raise RuleError(f"--track {name}: its value at the end of the game is {values[0]!r}, not a number")
    return sum(nums) / len(nums)


def check_track(game, track) -> None:
    """Refuse a tracked name that is not a numeric variable of ``game`` (RulebookError with the
    names it has)."""
    for name in track:
        if name.startswith("p."):
            known = game.pvar_defaults
            key = name[2:]
            kind = "player variable"
        else:
            known, key, kind = game.var_defaults, name, "game variable"
        if key not in known:
            names = ", ".join(["p." + k for k in game.pvar_defaults] + list(game.var_defaults)) or "none"
            raise RulebookError(f"--track {name}: {game.name} has no {kind} {key!r}\n    hint: variables: {names}")


def compare(game_a, game_b, n_games: int, num_players: int, seed: int = 0, bots: dict | None = None,
            track=(), progress=None) -> Comparison:
    """Play ``n_games`` seeds of ``game_a`` and of ``game_b`` (compiled games) with the same bots
    (``bots``: seat -> ``KIND[:budget]``, others random) and compare them; ``track``: variable
    names (``NAME`` or ``p.NAME``) whose final values are compared too. ``progress(done)`` is
    called after each pair of games. Raises :class:`RuleError` naming the game and seed that failed."""
    import time

    from .simulate import _play_state
    check_track(game_a, track)
    check_track(game_b, track)
    start = time.perf_counter()
    stats: dict = {}
    for i in range(n_games):
        ma = _measures(_play_state(game_a, num_players, seed, i, None, bots=bots), track)
        mb = _measures(_play_state(game_b, num_players, seed, i, None, bots=bots), track)
        for k, va in ma.items():
            stats.setdefault(k, Running()).add(va, mb[k])
        if progress is not None:
            progress(i + 1)
    result = Comparison(game_a.name, game_b.name, n_games, num_players,
                        [r.row(k) for k, r in stats.items()], time.perf_counter() - start)
    return result


def plot_comparison(result: Comparison, path: str, label_a: str, label_b: str) -> None:
    """Draw B − A of every measure with its 95% interval (a forest plot) to ``path`` (PNG/SVG/PDF)."""
    import matplotlib
    from matplotlib.figure import Figure
    del matplotlib
    rows = result.rows
    fig = Figure(figsize=(8, 0.42 * len(rows) + 1.6))
    groups = [("score", [r for r in rows if "score" in r["measure"]]),
              ("win rate", [r for r in rows if "win rate" in r["measure"]]),
              ("other", [r for r in rows if "score" not in r["measure"] and "win rate" not in r["measure"]])]
    groups = [(g, rs) for g, rs in groups if rs]
    axes = fig.subplots(len(groups), 1, squeeze=False, gridspec_kw={"height_ratios": [len(rs) for _, rs in groups]})
    for ax, (title, rs) in zip(axes[:, 0], groups):
        ys = list(range(len(rs)))[::-1]
        for y, r in zip(ys, rs):
            colour = "#c0392b" if r["low"] > 0 or r["high"] < 0 else "#555555"
            ax.errorbar(r["diff"], y, xerr=[[r["diff"] - r["low"]], [r["high"] - r["diff"]]], fmt="o",
                        color=colour, capsize=3)
        ax.axvline(0, color="#999999", lw=1)
        ax.set_yticks(ys, [r["measure"] for r in rs])
        ax.set_xlabel(f"B − A ({title}), 95% interval")
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(f"A = {label_a}\nB = {label_b}  ({result.games} games each, {result.num_players} players)",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


__all__ = ["compare", "Comparison", "plot_comparison", "check_track", "RulebookError"]
