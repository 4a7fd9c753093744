"""Small statistics helpers for simulation reports."""
from __future__ import annotations

import math


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple:
    """The Wilson score interval ``(low, high)`` of a proportion ``successes / n`` (95% by default,
    ``z`` = 1.96). Shared wins count as fractions. ``(0.0, 1.0)`` when ``n`` is 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, round(centre - half, 12)), min(1.0, round(centre + half, 12)))
