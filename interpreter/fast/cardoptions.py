"""A choice whose ``options:`` are cards (``options: "[top(discard)]"``) in the typed kernel: the
options in the list's order, one per text as the step API lists them (:class:`interpreter.engine.program.Choose`:
a card's text is its name; the same card twice is one option; two different cards of one name
are the step API's error, "two options read the same": the game is flagged there,
:data:`~interpreter.fast.lowtypes.ERR_INDEX`, and replayed in the step API, as is a null offered
as a card). The option's text is ``VERB NAME`` (:mod:`interpreter.fast.steps`). Every line comes
from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import ERR_INDEX, RI_ERROR, _indent


def listing(low, lst, value, where, room, n, j, dup, x):
    """Lines writing the options (cards of ``lst`` passing ``where``, a code reading ``value``) into
    ``OPT`` and their number into ``n`` (``room``: the lines checking TMP's room before one is kept;
    ``j``, ``dup``, ``x``: generated names)."""
    nr = low.name_id_row
    other = low.fresh("t")
    return [f"{n} = 0"] + lst.loop(x, [f"{value} = {x}", f"{dup} = False", f"{other} = False",
                                       f"if {value} == NULL:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", "else:",
                                       f"    for {j} in range({n}):",
                                       f"        if ATTR[{nr}, OPT[0, {j}]] == ATTR[{nr}, {value}]:",
                                       f"            {dup} = True",
                                       f"            {other} = OPT[0, {j}] != {value}",
                                       f"    if {where}:",
                                       f"        if {other}:", f"            RI[{RI_ERROR}] = {ERR_INDEX}",
                                       f"        if not {dup}:"] +
                                   _indent(room(n) + [f"OPT[0, {n}] = {value}", f"OPT[1, {n}] = NULL", f"{n} += 1"], 3))
