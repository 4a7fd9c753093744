"""Pictures of simulation results (matplotlib, no display needed)."""
from __future__ import annotations

from pathlib import Path

from ..errors import RulebookError


def plot_formats() -> dict:
    """File suffixes matplotlib can write (``{"png": "Portable Network Graphics", ...}``)."""
    from matplotlib.backend_bases import FigureCanvasBase
    return FigureCanvasBase.get_supported_filetypes()


def check_plot_path(path) -> None:
    """Raise RulebookError unless ``path``'s suffix is a format the plot can be written in
    (checked before a long simulation)."""
    suffix = Path(path).suffix.lower().lstrip(".")
    formats = plot_formats()
    if suffix not in formats:
        said = f"the format .{suffix} is not supported" if suffix else "a name without a suffix has no format"
        raise RulebookError(f"--plot {path}: cannot write the plot: {said}\n"
                            f"    hint: end the name with one of: {', '.join('.' + f for f in sorted(formats))}"
                            " (e.g. scores.png)")


def plot_simulation(result, path: str) -> None:
    """Write a PNG/SVG (by ``path``'s suffix) with one histogram of final scores per seat
    and a bar chart of win rates. ``result`` is a SimulationResult."""
    from matplotlib.figure import Figure  # no pyplot: no global backend is chosen or changed

    n = result.num_players
    fig = Figure(figsize=(12, 4.8))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2, 1]})
    tallies = result.tallies  # streaming: each seat's scores as value -> how many games
    lo = min(t.low for t in tallies)
    hi = max(t.high for t in tallies)
    bins = 25
    for p in range(n):
        counts = tallies[p].counts
        ax1.hist(list(counts), weights=list(counts.values()), bins=bins, range=(lo, hi + 1e-9), histtype="step",
                 linewidth=1.6, label=f"seat {p} ({_bot(result, p)})")
    ax1.set_title(f"{result.game}: final scores over {result.games} games ({n} players)")
    ax1.set_xlabel("final score")
    ax1.set_ylabel("games")
    ax1.legend(fontsize="small", framealpha=0.85)
    wins = [float(w) for w in result.wins]
    rates = [100 * w / result.games for w in wins]
    equal = 100 / n
    from .stats import wilson_interval
    bounds = [wilson_interval(w, result.games) for w in wins]
    errors = [[r - 100 * b[0] for r, b in zip(rates, bounds)], [100 * b[1] - r for r, b in zip(rates, bounds)]]
    ax2.bar([f"{p}\n{_bot(result, p)}" for p in range(n)], rates, color="tab:blue", yerr=errors, capsize=3)
    ax2.axhline(equal, color="grey", linestyle="--", linewidth=1, label=f"equal share ({equal:.1f}%)")
    ax2.set_title("win rate per seat (ties shared; 95% interval)")
    ax2.set_xlabel("seat and bot")
    ax2.set_ylabel("% of games won")
    ax2.set_ylim(0, min(100, max([100 * b[1] for b in bounds] + [equal]) * 1.12) or 1)
    # below the axes, clear of the bars whatever their heights
    ax2.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except (OSError, ValueError) as exc:  # a missing folder, or a suffix matplotlib cannot write
        raise RulebookError(f"cannot write the plot {path}: {exc}") from None


def _bot(result, p) -> str:
    bots = getattr(result, "bots", None) or []
    return bots[p] if p < len(bots) else "random"
