"""One meld of ``melds_in`` as a value of the typed kernel (:mod:`interpreter.fast.meldlist` lists
them): type :data:`MELDL`, its cards' ids, each plus one, in six bits apiece from the lowest, in the
meld's order (the step API's), so ``m[0]``, ``last(m)``, a comprehension over ``m``, ``m + xs`` or
moving ``m`` see the cards as the step API does. At most :data:`SLOTS` cards. Every line comes from
the fixed template below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import CARD, ERR_INDEX, RI_ERROR, ListT, _indent, _names

MELDL = "meld of melds_in"  # the type of one listed meld (its cards' ids packed in order)
SLOTS = 10  # the most cards a listed meld holds (six bits each)


def as_list(low, code):
    """The cards of the meld value ``code`` (type MELDL) as a ListT, in the meld's order. A null
    meld read as a list flags the game (the step API raises its error)."""
    def loop(var, body):
        m, i, x = low.fresh("t"), low.fresh("i"), low.fresh("t")
        return [f"{m} = {code}", f"if {m} == NULL:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", "else:",
                f"    for {i} in range({SLOTS}):", f"        {x} = ({m} >> (6 * {i})) & 63",
                f"        if {x} == 0:", "            break", f"        {var} = {x} - 1"] + _indent(body, 2)
    return ListT(CARD, loop, refs=_names(code))
