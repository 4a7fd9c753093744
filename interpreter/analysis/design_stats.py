"""Statistics helpers of the design measures (:mod:`.design`): the intervals (normal, bootstrap),
the measure row every measure returns, the wording of a rate against its expected value, and the
constants the measures share.

Split out of :mod:`.design` (issue 34); :mod:`.design` re-exports every name.
"""
from __future__ import annotations

import math
import random

POINTS = 10               # the game is cut into this many equal parts of its decisions
MAX_DECISIONS = 5000      # a game still running after this many decisions is stopped and counted as stalled
Z95 = 1.959963984540054
BOOTSTRAP = 400           # resamples of the bootstrap intervals (seeded: the same report every run)
SECURE = 0.9              # "the winner is known": the leader wins this often from that point on
EDGE = 0.15               # skill: "no better" is claimed only when the interval excludes this edge over 1/N


# -- statistics --------------------------------------------------------------------------------------------
def _share(record, seat) -> float:
    w = record["winners"]
    return 1 / len(w) if seat in w else 0.0


def _mean_interval(xs) -> tuple:
    """``(mean, low, high)``: the mean of ``xs`` and its 95% normal interval (mean ± 1.96·sd/√n)."""
    n = len(xs)
    if not n:
        return (0.0, 0.0, 0.0)
    m = sum(xs) / n
    if n < 2:
        return (m, m, m)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = Z95 * sd / math.sqrt(n)
    return (m, m - h, m + h)


def _bootstrap(records, f, reps: int = BOOTSTRAP, seed: int = 0) -> tuple:
    """The 95% percentile bootstrap interval ``(low, high)`` of ``f(records)`` (resampling games)."""
    if len(records) < 2:
        v = f(records) if records else 0.0
        return (v, v)
    rng = random.Random(seed)
    n = len(records)
    vals = sorted(f([records[rng.randrange(n)] for _ in range(n)]) for _ in range(reps))
    return (vals[int(0.025 * (reps - 1))], vals[int(math.ceil(0.975 * (reps - 1)))])


def _measure(name, value, low, high, games, reading, **more) -> dict:
    return dict({"measure": name, "value": value, "low": low, "high": high, "games": games,
                 "reading": reading}, **more)


def _unmeasured(name, records) -> dict:
    """The row of a measure that no finished game of ``records`` (all stalled) can give."""
    return _measure(name, None, None, None, 0, f"not measured: none of the {len(records)} games finished within "
                    f"{MAX_DECISIONS} decisions", not_measured=True)


def _pct(x) -> str:
    return f"{100 * x:.0f}%"


def _rate_words(value, low, high, expected) -> str:
    if low > expected:
        return "more than"
    if high < expected:
        return "less than"
    return "within the interval of"


def _leaders(row, lowest: bool) -> list:
    known = [s for s in row if s is not None]
    if not known:
        return []
    best = min(known) if lowest else max(known)
    return [p for p, s in enumerate(row) if s == best]

