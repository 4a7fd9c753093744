"""A variable holding a card at some steps and a meld at others, in the typed kernel
(:mod:`interpreter.fast.typepass`).

A game or player variable set both to a card and to one meld of ``melds_in`` (a value of type
:data:`~interpreter.fast.meldvalue.MELDL`: its cards' ids packed in six bits apiece, below bit 60)
has the type :data:`CARDMELD`. It holds a card as the card's id, a meld as its MELDL value with the
bit :data:`TAG` set (above every MELDL value, so the two never meet), and null as null. Read:

- as one value (an attribute, ``[x]``, a condition...): the card; a meld there flags the game
  (``RI_ERROR`` :data:`~interpreter.fast.lowtypes.ERR_INDEX`: the step API replays it and raises
  its error, or plays it on) and reads null;
- as a list (a comprehension, ``count``, ``x in``, ``+``, ``x[k]``, ``meld_kind``...): the meld's
  cards in the meld's order; a card or null there flags the game the same way and lists nothing;
- moved (``move: {cards: x}``): a card moves alone, a meld's cards move in order, null moves
  nothing (as the step API's ``cards:`` of a card, a list or null);
- compared with ``==``/``!=``: equal to the same card, or to a meld of the same cards in the same
  order (the step API compares lists item by item); a card never equals a meld.

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, CARD, ERR_INDEX, INT, NUL, RI_ERROR, TEXT, ListT, _indent, _names
from .meldvalue import MELDL, SLOTS

CARDMELD = "card or meld"  # the type of a variable set to a card and to a meld of melds_in
TAG = 1 << 61  # a meld held in such a variable: its MELDL value with this bit set

_KINDS = {CARD, MELDL, CARDMELD}


def join(old, new):
    """The type of a variable holding values of types ``old`` and ``new``: CARDMELD when they
    are a card and a meld (either already CARDMELD), else None (the caller's join decides)."""
    if old != new and {old, new} <= _KINDS:
        return CARDMELD
    return None


def stored(low, code: str, ty, var_ty, env) -> str:
    """The code storing the value ``code`` of type ``ty`` into a variable of type ``var_ty``: a
    meld into a CARDMELD variable gets its tag; anything else as it is."""
    if var_ty != CARDMELD or ty != MELDL:
        return code
    x = low.fresh("t")
    return low.helper(env, [f"{x} = {code}", f"if {x} != NULL:", f"    {x} = {x} | {TAG}"], x)


def one_card(low, r, env):
    """``r`` (a lowered value) read as one value: a CARDMELD as its card (a meld flags the game
    and reads null); anything else as it is."""
    if not (isinstance(r, tuple) and r[1] == CARDMELD):
        return r
    x = low.fresh("t")
    lines = [f"{x} = {r[0]}", f"if {x} != NULL and {x} >= {TAG}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}",
             f"    {x} = NULL"]
    return low.helper(env, lines, x), CARD


def _unpack(m, i, x, var, body):
    return [f"for {i} in range({SLOTS}):", f"    {x} = ({m} >> (6 * {i})) & 63", f"    if {x} == 0:",
            "        break", f"    {var} = {x} - 1"] + _indent(body)


def listed(low, r):
    """``r`` read as a list: a CARDMELD as the ListT of its meld's cards, in the meld's order (a
    card or null flags the game and lists nothing); anything else as it is."""
    if not (isinstance(r, tuple) and r[1] == CARDMELD):
        return r
    code = r[0]

    def loop(var, body):
        m, i, x = low.fresh("t"), low.fresh("i"), low.fresh("t")
        return [f"{m} = {code}", f"if {m} == NULL or {m} < {TAG}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", "else:",
                f"    {m} = {m} ^ {TAG}"] + _indent(_unpack(m, i, x, var, body))
    return ListT(CARD, loop, refs=_names(code))


def moved(low, r):
    """``r`` as the cards of ``move: {cards: ...}``: a CARDMELD as a ListT of its card alone or its
    meld's cards in order (null: none); anything else as it is."""
    if not (isinstance(r, tuple) and r[1] == CARDMELD):
        return r
    code = r[0]

    def loop(var, body):
        m, i, x = low.fresh("t"), low.fresh("i"), low.fresh("t")
        return [f"{m} = {code}", f"if {m} != NULL and {m} < {TAG}:", f"    {var} = {m}"] + _indent(body) + \
            [f"elif {m} != NULL:", f"    {m} = {m} ^ {TAG}"] + _indent(_unpack(m, i, x, var, body))
    return ListT(CARD, loop, refs=_names(code))


def compare(low, op, ra, rb, env):
    """``a == b`` / ``a != b`` where a side is a CARDMELD (``ra``, ``rb``: the sides lowered) as
    ``(code, BOOL)``, else None: the held values compared as they are (a meld of melds_in on the
    other side tagged first); a number, text or yes/no value never equals a card or a meld."""
    if str(op) not in ("==", "!=") or not any(isinstance(r, tuple) and r[1] == CARDMELD for r in (ra, rb)):
        return None
    if not all(isinstance(r, tuple) for r in (ra, rb)):
        return None  # a list on the other side: read as a value, it does not type (the caller says why)
    codes = []
    for code, ty in (ra, rb):
        if ty in (INT, BOOL, TEXT):
            return ("0" if str(op) == "==" else "1"), BOOL  # values of different kinds are never equal
        if ty == MELDL:
            code = stored(low, code, MELDL, CARDMELD, env)
        elif ty not in (CARD, NUL, CARDMELD):
            return None
        codes.append(code)
    return f"(({codes[0]}) {op} ({codes[1]}))", BOOL
