"""A card entry's ``mode_when`` in the typed kernel (see :mod:`interpreter.fast.typepass`).

The step API offers a card whose entry has ``mode_when`` once per mode (in the card's order) for
which the expression holds, with ``c`` the card, ``mode`` the mode's name and ``player`` the
chooser, or the card as itself (no mode) when none does. The kernel writes the same options in
the same order: a card choice's listing tests the card's entry (its ids written out) and, for such
an entry, each mode in turn; other cards keep the listing of
:meth:`~interpreter.fast.lowsteps.StepLowering` (every mode, or the card alone).

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import CARD, INT, TEXT, _indent


def options_add(low, value: str, n: str, seat: str, env: dict, add: list) -> list:
    """The lines adding card ``value``'s options at ``OPT[:, n]`` (``n`` counts them): ``add`` (the
    listing of cards whose modes do not read the State) unless its entry has ``mode_when``."""
    whens = getattr(low.game, "mode_when", None) or {}
    if not whens or not low.max_modes:
        return add
    cards = low.spec.get("cards") or []
    out = []
    for entry in sorted(whens):
        ids = [cid for cid, e in enumerate(low.game.card_entries) if e == entry]
        if not ids:
            continue
        mode, j, k = low.fresh("v"), low.fresh("i"), low.fresh("t")
        env2 = dict(env)
        env2.update({"c": (value, CARD), "player": (seat, INT), "mode": (mode, TEXT)})
        path = low.path
        low.path = f"cards[{entry}].mode_when"
        cond = low.truth(parse(str(cards[entry]["mode_when"])), env2)
        low.path = path
        test = " or ".join(f"{value} == {cid}" for cid in ids)
        out += [f"{'if' if not out else 'elif'} {test}:"] + _indent(
            [f"{k} = 0", f"for {j} in range(ATTR[{low.nmodes_row}, {value}]):",
             f"    {mode} = ATTR[{low.nmodes_row + 1} + {j}, {value}]", f"    if {cond}:",
             f"        OPT[0, {n}] = {value}", f"        OPT[1, {n}] = {mode}", f"        {n} += 1",
             f"        {k} += 1", f"if {k} == 0:", f"    OPT[0, {n}] = {value}", f"    OPT[1, {n}] = NULL",
             f"    {n} += 1"])
    return out + ["else:"] + _indent(add) if out else add
