"""Parts of lists of different lengths read in the typed kernel (:mod:`interpreter.fast.typepass`).

A list of lists of different lengths (choice options such as ``['AD', 'on', 'seat', 2, 'meld', 1]``
beside ``['9H', 'to', 'JH']``) keeps its items as tuples of the longest length, a place some
items lack holding :data:`~interpreter.fast.ragged.ABSENT` (:mod:`interpreter.fast.ragged`).
Here ``x[k]`` of such an item reads the place (``k`` a constant whole number from the start) as a
value of the type the items that have it hold; where the item lacks it the step API stops the
game with an error (an index out of range), so the kernel flags the game (``RI_ERROR``
:data:`~interpreter.fast.lowtypes.ERR_INDEX`: the step API replays it and raises its located
error) and reads null (0 for a number: a seat or an index inside the state's arrays until the
flag stops the game). A place counted from the end (``x[-1]``) is a different place in items of
different lengths: it does not type.

A place holding a number in some items and a text in others (type
:data:`~interpreter.fast.ragged.MIX`) read as a seat (``x[3].melds``, ``x[3].score``) is that
number; a text, null or a number that is no seat flags the game the same way and reads seat 0,
so that nothing reads outside the state's arrays before the game stops.

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, ERR_INDEX, INT, RI_ERROR, NotTyped
from . import ragged


def part(low, obj, k: int, env):
    """Place ``k`` (a constant) of the tuple ``obj`` (a ``compound.TupleV``) as ``(code, type)``:
    as it is when every item has it; read with a check when some lack it (see the module's doc).
    NotTyped for a place counted from the end of items of different lengths."""
    code, ty = obj.parts[k]
    if k < 0 and any(ragged.is_padded(t) for _, t in obj.parts):
        raise NotTyped("a part counted from the end (x[-k]) of lists of different lengths", low.path)
    if not ragged.is_padded(ty):
        return code, ty
    base = ragged.base(ty)
    # (a number reads 0 there: a seat or an index that stays inside the arrays until the flag stops the game)
    none = "0" if base in (INT, BOOL, ragged.MIX) else "NULL"
    x = low.fresh("t")
    lines = [f"{x} = {code}", f"if {x} == {ragged.ABSENT}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {x} = {none}"]
    return low.helper(env, lines, x), base


def seat(low, code: str, ty: str, env):
    """A value of type MIX (a number in some items, a text in others) read as a seat:
    ``(code, INT)``; any other value as it is. A value that is no seat of this game flags it
    (see the module's doc)."""
    if ty != ragged.MIX:
        return code, ty
    x = low.fresh("t")
    lines = [f"{x} = {code}", f"if {x} < 0 or {x} >= NP:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {x} = 0"]
    return low.helper(env, lines, x), INT
