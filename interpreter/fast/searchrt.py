"""Real-time blocks in the kernel's search (:mod:`interpreter.fast.search`): who acts, and what.

In a real-time block the step module's generator (:func:`interpreter.fast.realtime._steps_wait`)
yields once per action with every seat that has options listed in rows of ``TMP`` (as a
simultaneous choice's: the seats in row ``row``; values, action indices, each seat's first index and
count in rows ``base + 2 .. base + 5``) and reads back **one** seat (``TMP[base + 6, 0]``) and that
seat's option index (``RI[RI_CHOSEN]``): the first to act gets the spot. :func:`realtime_ask`
answers that yield in a search:

- before the root (the game's recorded actions), the next record's seat acts with its recorded
  option, found by value and action index (a sampled world where that seat cannot take it is
  rejected, as a turn's);
- at the root, the searching seat acts (the decision asked of the bot);
- past the root (tree and rollout), a seat drawn at random among those with options acts, as the
  State API's search draws it (:func:`interpreter.agents.search._actor`), and picks by the tree's
  policy or at random.

An option's identity is its value and its action's index (the option's mode in the search's
tree: two verbs may offer the same value). Whether an action chooses cards (a recorded card is
then seen, and a rejected sample excludes cards: :func:`interpreter.fast.search._reject`) is a
bit per action in the site's flags (:func:`interpreter.fast.searchtables.site_flags`).

Before this module the search answered that yield as a simultaneous choice (an option index per
seat, no seat): the generator read an index as the seat and a stale ``RI[RI_CHOSEN]``, so it
played a value from outside the options (a card id out of range) and the process died (SIGSEGV).
"""
from __future__ import annotations

from numba import njit

from .lowtypes import RI_CHOSEN
from .searchdeal import mark_seen
from .searchtables import MAX_ACTIONS
from .search import (CUR, MODE, NREC, PREFIX, REJECT, SEAT, SIMULTANEOUS, STAGE, _at_root, _forced, _pick, on_ask,
                     rand_below)


@njit(cache=True)
def _seat_at(TMP, row, m, p):
    """The place of seat ``p`` among the ``m`` seats with options (row ``row``), or -1."""
    for k in range(m):
        if TMP[row, k] == p:
            return k
    return -1


@njit(cache=True)
def realtime_ask(ask, TMP, RI, SI, REC, LOC, INU, EXCL, TI, TF, PATH, CH, SITES, CLS, c):
    """Answer a real-time block's yield ``ask`` (see the module doc): write the acting seat in
    ``TMP[base + 6, 0]`` and its option's index in ``RI[RI_CHOSEN]``. False: stop this simulation
    (the root reached in the record pass, or the sample rejected)."""
    m = (ask >> 16) & 0xFFFFF
    site = ask >> 36
    row = SITES[site, 2]
    base = SITES[site, 3]
    flags = SITES[site, 4]
    vals = TMP[base + 2]
    mods = TMP[base + 3]
    if SI[STAGE] == PREFIX and SI[CUR] < SI[NREC]:
        j = SI[CUR]
        p = REC[j, 0]
        k = _seat_at(TMP, row, m, p)
        if k < 0:
            SI[REJECT] = 1
            return False
        off = TMP[base + 4, k]
        n = TMP[base + 5, k]
        if SI[MODE] == 0:
            alt = mods[off + REC[j, 1]] if 0 <= REC[j, 1] < n else 0
        else:
            alt = REC[j, 3]
        cards = (flags >> (1 + alt)) & 1 if 0 <= alt < MAX_ACTIONS else 0
        idx = _forced(SI, REC, j, LOC, INU, EXCL, vals, mods, off, n, p, 1, cards, CLS)
        if idx < 0:
            return False
        SI[CUR] = j + 1
        TMP[base + 6, 0] = p
        RI[RI_CHOSEN] = idx
        return True
    if SI[STAGE] == PREFIX:
        if not _at_root(SI):
            return False
        k = _seat_at(TMP, row, m, SI[SEAT])
        if k < 0:  # the searching seat has no option in this world
            SI[REJECT] = 1
            return False
    else:
        k = rand_below(SI, m)
    p = TMP[row, k]
    TMP[base + 6, 0] = p
    RI[RI_CHOSEN] = _pick(SI, TI, TF, PATH, CH, vals, mods, TMP[base + 4, k], TMP[base + 5, k], p, 1, c)
    return True


@njit(cache=True)
def answer(ask, Z, ZN, LOC, RG, RI, TMP, OPT, SB, SK, SI, REC, EVK, EVO, SIG, INU, EXCL, TI, TF, PATH, CH, SITES, CLS,
           VIS, SAW, c):
    """What the search's driver asks for every yield it does not answer itself: a real-time
    block's (:func:`realtime_ask`), else :func:`interpreter.fast.search.on_ask`'s answer. In the record
    pass, first what the seat sees (:func:`interpreter.fast.searchdeal.mark_seen`)."""
    if SI[MODE] == 0:
        mark_seen(ask, Z, ZN, SI, VIS, SAW)
    if (ask & 0xFFFF) == SIMULTANEOUS and SITES[ask >> 36, 4]:
        return realtime_ask(ask, TMP, RI, SI, REC, LOC, INU, EXCL, TI, TF, PATH, CH, SITES, CLS, c)
    return on_ask(ask, Z, ZN, LOC, RG, RI, TMP, OPT, SB, SK, SI, REC, EVK, EVO, SIG, INU, EXCL, TI, TF, PATH, CH,
                  SITES, CLS, c)
