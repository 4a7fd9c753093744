"""Pictures of simulation results (matplotlib, no display needed)."""
from __future__ import annotations


def plot_simulation(result, path: str) -> None:
    """Write a PNG/SVG (by ``path``'s suffix) with one histogram of final scores per seat
    and a bar chart of win rates. ``result`` is a SimulationResult."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = result.num_players
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [2, 1]})
    all_scores = [s for seat in result.scores for s in seat]
    lo, hi = min(all_scores), max(all_scores)
    bins = 25
    for p in range(n):
        ax1.hist(result.scores[p], bins=bins, range=(lo, hi + 1e-9), histtype="step", linewidth=1.6,
                 label=f"seat {p}")
    ax1.set_title(f"{result.game}: final scores over {result.games} games ({n} players)")
    ax1.set_xlabel("final score")
    ax1.set_ylabel("games")
    ax1.legend(fontsize="small")
    rates = [100 * w / result.games for w in result.wins]
    ax2.bar([str(p) for p in range(n)], rates, color="tab:blue")
    ax2.axhline(100 / n, color="grey", linestyle="--", linewidth=1, label="equal share")
    ax2.set_title("win rate per seat (ties shared)")
    ax2.set_xlabel("seat")
    ax2.set_ylabel("% of games won")
    ax2.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except (OSError, ValueError) as exc:  # a missing folder, or a suffix matplotlib cannot write
        from ..errors import RulebookError
        raise RulebookError(f"cannot write the plot {path}: {exc}") from None
    finally:
        plt.close(fig)
