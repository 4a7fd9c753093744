"""Derived card attributes and texts joined with ``+`` in the typed kernel
(:mod:`interpreter.fast.typepass`).

- **Derived attributes** (``derived: {NAME: EXPR of c}``): ``c.NAME`` of a card is its expression
  written with ``c`` bound to the card, in a helper (so a rule reading it many times shares one
  function). Inside its own expression ``c.NAME`` reads the printed attribute; a definition it
  calls reads the derived value again, as the step API's compiler does. A derived attribute that
  reads itself through others does not type (the step API's error when met).
- **Texts joined** (``suit + 'J'``): texts are numbers in the kernel (their place in the spec's
  table of texts), so a text known only at run time joined to a constant text is a lookup written
  once the table is complete (:func:`finish`): every text of the table joined to the constant,
  the joined text numbered too. A run-time text outside the table (a numeral made by ``str()``,
  null) flags the game (``RI_ERROR`` :data:`~interpreter.fast.lowtypes.ERR_INDEX`): the step API
  replays it. Two texts both known only at run time join when each is one of a set of texts known
  while lowering (:mod:`interpreter.fast.textsets`); otherwise they do not type.
- **A variable not yet typed** (only null so far, read as a number) may stand beside a text in
  ``x if c else y`` and ``+``: the variable's type is learnt from the steps that set it, and the
  type pass runs again (see ``typepass._lower``), so the reading is checked once it is known.

Every line comes from fixed templates; their holes are generated names and integers.
"""
from __future__ import annotations

import re

from ..expr.compiler import parse
from . import lowtypes as tp
from . import textsets

_CANNOT = ("name", "id", "played_by", "mode")
_MAX_TEXTS = 2000  # the most texts the lookups of joined texts are written for


def parse_derived(low) -> dict:
    """The spec's ``derived:`` entries as name -> expression tree; NotTyped for an entry the step
    API refuses too."""
    out = {}
    for name, src in (low.spec.get("derived") or {}).items():
        if str(name) in _CANNOT or not isinstance(src, (str, bool, int)):
            raise tp.NotTyped(f"derived attribute {name!r}", f"derived.{name}")
        out[str(name)] = parse(str(src) if not isinstance(src, bool) else ("true" if src else "false"))
    return out


def read(low, name: str, card_code: str, env):
    """``(code, type)`` of ``card.NAME`` for a derived attribute ``name`` (None when ``name`` is
    not derived, or is the one whose own expression is being written: its printed value)."""
    if name not in low.derived or name == low.printed:
        return None
    if name in low.deriving:
        raise tp.NotTyped(f"derived attribute {name!r} reads itself", f"derived.{name}")
    x = low.fresh("t")
    saved = (low.printed, low.path)
    low.printed, low.path = name, f"derived.{name}"
    low.deriving.append(name)
    try:
        code, ty = low.scalar(low.derived[name], {"c": (x, tp.CARD)})
    finally:
        low.deriving.pop()
        low.printed, low.path = saved
    return low.helper(env, [f"{x} = {card_code}"], code), ty


def call_printed(low, args, env):
    """``printed(c, 'NAME')``: the card's printed attribute, read as inside NAME's own derived
    expression (``low.printed``); the name must be written out."""
    if len(args) != 2 or args[1].data != "string":
        raise tp.NotTyped("printed() without an attribute name written out", low.path)
    code, ty = low.scalar(args[0], env)
    if ty != tp.CARD:
        raise tp.NotTyped(f"printed() of a {ty}", low.path)
    name = str(args[1].children[0])[1:-1]
    x = low.fresh("t")
    saved, low.printed = low.printed, name
    try:
        return low.scalar(parse(f"{x}.{name}"), {**env, x: (code, tp.CARD)})
    finally:
        low.printed = saved


def untyped(low, code: str) -> bool:
    """Whether ``code`` reads a game or player variable whose type is not known yet (only null
    so far: read as a number until a step sets it)."""
    m = re.fullmatch(r"GV\[([0-9]+)\]", code)
    if m:
        names = [k for k, i in low.gvars.items() if i == int(m.group(1))]
        return bool(names) and low.gtypes.get(names[0]) in (None, tp.NUL)
    m = re.fullmatch(r"PV\[[^\[\]]+, ([0-9]+)\]", code)
    if m:
        names = [k for k, i in low.pvars.items() if i == int(m.group(1))]
        return bool(names) and low.ptypes.get(names[0]) in (None, tp.NUL)
    return False


def joined_type(low, a, b):
    """The type of ``x if c else y`` of ``a`` and ``b`` (``(code, type)``), a side reading a
    variable not yet typed taking the other's type; None when they differ."""
    ta = tp.NUL if untyped(low, a[0]) else a[1]
    tb = tp.NUL if untyped(low, b[0]) else b[1]
    return tp._join(ta, tb)


def text_plus(low, a, b):
    """``a + b`` where one side is a text: ``(code, TEXT)``; None when neither is a text."""
    ta = tp.TEXT if a[1] == tp.TEXT or untyped(low, a[0]) else a[1]
    tb = tp.TEXT if b[1] == tp.TEXT or untyped(low, b[0]) else b[1]
    if tp.TEXT not in (a[1], b[1]):
        return None
    if ta != tp.TEXT or tb != tp.TEXT:
        raise tp.NotTyped(f"+ of a {ta} and a {tb}", low.path)
    ka, kb = tp._fold(a[0]), tp._fold(b[0])
    from .compound import text_of_value
    words = {v: s for s, v in _table(low).items()}
    ka, kb = (text_of_value(k, words) if k is not None else None for k in (ka, kb))
    if ka is not None and kb is not None:
        return str(low.text(ka + kb)), tp.TEXT
    if ka is None and kb is None:
        found = textsets.join(low, a[0], b[0])  # each side one of a set of texts known here (textsets.py)
        if found is None:
            raise tp.NotTyped("+ of two texts both known only at run time", low.path)
        return found
    found = textsets.join(low, a[0], b[0])  # a text of a known set and a constant: a lookup in the set
    if found is not None:
        return found
    const, var, left = (kb, a[0], False) if ka is None else (ka, b[0], True)
    name = low.fresh("h")
    low.text_joins.append((name, const, left))
    return f"{name}(RI, {var})", tp.TEXT


def _table(low) -> dict:
    """Text -> its number, for the texts of the table so far."""
    return {s: low.text(s) for s in list(low.texts)}


def finish(low, njit: str) -> None:
    """Write the lookups of the texts joined at run time (once the rules are lowered, with every
    text of the table: the card table's too), as helper functions (``njit``: their decorator line)."""
    if not low.text_joins:
        return
    low.card_table()  # (numbers the deck's texts: the same numbers the info's table gets)
    for _ in range(3):  # joined texts are texts too (a join of a join): a few rounds, a bounded table
        before = len(low.texts)  # (a text past it flags its game at run time: the step API replays it)
        if before > _MAX_TEXTS:
            break
        for _, const, left in low.text_joins:
            for s in list(low.texts):
                low.text(const + s if left else s + const)
        if len(low.texts) == before:
            break
    for name, const, left in low.text_joins:
        x = low.fresh("t")
        body = []
        for s in list(low.texts):
            body += [f"if {x} == {low.text(s)}:", f"    return {low.text(const + s if left else s + const)}"]
        low.helpers += [njit, f"def {name}(RI, {x}):"] + tp._indent(body + [
            f"RI[{tp.RI_ERROR}] = {tp.ERR_INDEX}", "return NULL"]) + [""]

