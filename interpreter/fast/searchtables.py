"""Tables the kernel's search (:mod:`interpreter.fast.search`) reads about a spec's layout: its choice
sites (:func:`site_table`) and the rows of ``Z`` that hold cards (:func:`card_rows`). Plain Python,
made once per search kernel."""
from __future__ import annotations

import numpy as np

MAX_ACTIONS = 62  # the actions of one real-time block the flags can mark (bit 0: the site is real-time)


def site_table(sites: list):
    """The search's table of choice sites (``info["sites"]`` of :func:`~interpreter.fast.typepass.lower_search`),
    one row each (int64): whether its options have modes, whether they are cards, a simultaneous
    choice's (or real-time block's) rows of TMP (its seats, its first row of options), and
    :func:`site_flags`."""
    out = np.zeros((max(1, len(sites)), 5), dtype=np.int64)
    for k, s in enumerate(sites):
        out[k, 0] = 1 if s["modes"] else 0
        out[k, 1] = 1 if s["cards"] else 0
        sim = s.get("simultaneous")
        if sim:
            out[k, 2], out[k, 3] = sim["seats"], sim["rows"]
        out[k, 4] = site_flags(s)
    return out


def card_rows(game, info: dict) -> int:
    """How many rows of ``Z`` hold cards (the zones'; a list variable's rows, which hold records or
    values, come after them: :mod:`interpreter.fast.listvars`). The determinisation deals the
    hidden cards of these rows only (:func:`interpreter.fast.search.prepare`)."""
    n = 0
    for name, zd in game.zones.items():
        owners = int(game.max_players) if zd.per_player else 1
        span = info.get("zone_span", {}).get(name, 1)
        n += owners * span + (1 if zd.sets else 0)
    return n


def site_flags(site: dict) -> int:
    """The search's flags of a choice site (``info["sites"][k]``): 0 for a site that is not a
    real-time block's, else 1 plus bit ``1 + a`` for each action ``a`` that chooses cards."""
    alts = site.get("realtime")
    if not alts:
        return 0
    flags = 1
    for a, alt in enumerate(alts[:MAX_ACTIONS]):
        if alt.get("elem") == "card":
            flags |= 1 << (1 + a)
    return flags
