"""Lists of lists of different shapes in the typed kernel: ``xs + ys`` where the items of ``xs``
and ``ys`` are lists of different lengths, or hold a number in one and a text in the other at the
same place (choice options such as ``['on', 'set', 2]`` beside ``['in', 'a', 'new', 'set']``).

The items are kept as tuples of the longest length (:mod:`interpreter.fast.compound` keeps a list of
tuples as one row per part). A place where the items hold a number in some and a text in others
has the type :data:`MIX`: its value is the number or the text's code (texts are numbered from
:data:`~interpreter.fast.lowtypes.TEXT_BASE`, above every number a game holds, so the two never
meet); it compares for equality as it is and reads as a number in arithmetic, where a text flags
the game (:data:`~interpreter.fast.lowtypes.ERR_INDEX`: the step API replays it and raises its
error, as it does for a text in arithmetic). A place some items lack holds :data:`ABSENT`, its type
``"T or absent"`` (:func:`padded`): reading it is checked (:mod:`interpreter.fast.partread`: the
step API raises an error reading past an item's end); an option's text skips it. Generated code comes only from the fixed
templates below.
"""
from __future__ import annotations

from .lowtypes import BOOL, ERR_INDEX, INT, NUL, NULL, RI_ERROR, TEXT, TEXT_BASE, ListT, NotTyped, _join

MIX = "number or text"
ABSENT = NULL + 3  # a place an item lacks
_PAD = " or absent"


def padded(ty: str) -> str:
    """The type of a place some items lack, whose items that have it are of type ``ty``."""
    return ty if ty.endswith(_PAD) else ty + _PAD


def is_padded(ty) -> bool:
    return isinstance(ty, str) and ty.endswith(_PAD)


def _join_part(a, b):
    base_a, base_b = (t[:-len(_PAD)] if is_padded(t) else t for t in (a, b))
    j = _join(base_a, base_b)
    if j is None and {base_a, base_b} <= {INT, BOOL, TEXT, MIX}:
        j = MIX
    if j is None:
        return None
    return padded(j) if is_padded(a) or is_padded(b) else j


def concat(low, a: ListT, b: ListT, TupT, parts_of):
    """``a + b`` of two lists of tuples that :func:`interpreter.fast.compound.concat` cannot join
    (different lengths, or a number and a text at one place): a ListT of padded tuples, or None
    when they do not join this way either (``TupT``, ``parts_of``: compound's, which imports this
    module)."""
    if not (isinstance(a.elem, TupT) and isinstance(b.elem, TupT)):
        return None
    n = max(len(a.elem), len(b.elem))
    parts = []
    for k in range(n):
        ta = a.elem[k] if k < len(a.elem) else None
        tb = b.elem[k] if k < len(b.elem) else None
        if ta is None or tb is None:
            t = padded(ta if tb is None else tb)
        else:
            t = _join_part(ta, tb)
            if t is None:
                return None
        parts.append(t)
    elem = TupT(parts)

    def loop(var, lines):
        names = parts_of(var, n)
        return a.loop(var, [f"{names[k]} = {ABSENT}" for k in range(len(a.elem), n)] + lines) + \
            b.loop(var, [f"{names[k]} = {ABSENT}" for k in range(len(b.elem), n)] + lines)
    length = f"({a.length} + {b.length})" if a.length is not None and b.length is not None else None
    return ListT(elem, loop, length=length, refs=a.refs | b.refs)


def equal_types(ta, tb) -> bool:
    """Whether ``==`` of values of these types compares their codes (a MIX against a number or text)."""
    return MIX in (ta, tb) and {ta, tb} <= {MIX, INT, BOOL, TEXT, NUL}


def numeric(low, r, env):
    """A MIX operand of arithmetic read as a number (a text flags the game); anything else as it is."""
    if not isinstance(r, tuple) or r[1] != MIX:
        return r
    x = low.fresh("t")
    return low.helper(env, [f"{x} = {r[0]}", f"if {x} >= {TEXT_BASE}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"], x), INT


def base(ty):
    """The type of the items that have a place of type ``ty`` (``ty`` without " or absent")."""
    return ty[:-len(_PAD)] if is_padded(ty) else ty


def if_tuple(low, r, TupleV, as_tuple):
    """``[a, b, c] if cond else [d, e, f, g]`` as one item of a list (``r``: the ListT of
    ``Expressions.e_ifelse`` with its ``alts``, ``(condition code, then, else)``): a TupleV whose
    place ``k`` is the chosen side's, :data:`ABSENT` where that side is shorter (its type then
    padded), a number on one side and a text on the other a :data:`MIX` (``TupleV``, ``as_tuple``:
    compound's, which imports this module)."""
    cc, ra, rb = r.alts
    ta, tb = as_tuple(low, ra), as_tuple(low, rb)
    if not (isinstance(ta, TupleV) and isinstance(tb, TupleV)):
        raise NotTyped("x if c else y of lists as an item of a list", low.path)
    pa, pb = ta.parts, tb.parts
    parts = []
    for k in range(max(len(pa), len(pb))):
        if k < len(pa) and k < len(pb):
            ty = _join_part(pa[k][1], pb[k][1])
            if ty is None:
                raise NotTyped(f"x if c else y of lists holding a {pa[k][1]} and a {pb[k][1]} at one place", low.path)
            parts.append((f"(({pa[k][0]}) if {cc} else ({pb[k][0]}))", ty))
        elif k < len(pa):
            parts.append((f"(({pa[k][0]}) if {cc} else ({ABSENT}))", padded(pa[k][1])))
        else:
            parts.append((f"(({ABSENT}) if {cc} else ({pb[k][0]}))", padded(pb[k][1])))
    return TupleV(parts, low.path)


def compare_tuples(low, op, ra, rb, TupleV, as_tuple):
    """``xs == ys`` / ``!=`` (``ra``, ``rb``: the sides lowered) where both are lists kept as
    tuples (list literals, ``x if c else y`` of them, a chosen option that is a list): equal when
    every place holds the same value (a
    place one side lacks holds :data:`ABSENT`, which no value equals); a chosen null (the optional
    action) equals no list. ``(code, BOOL)``, or None for any other comparison (``TupleV``,
    ``as_tuple``: compound's)."""
    if str(op) not in ("==", "!="):
        return None
    ra, rb = as_tuple(low, ra), as_tuple(low, rb)
    if not (isinstance(ra, TupleV) and isinstance(rb, TupleV)):
        return None
    from . import nestedlists
    nestedlists.refuse(low, "== or !=", ra.types, rb.types)
    terms = [f"({x.null})" for x in (ra, rb) if x.null is not None]
    terms = [f"(not {c})" for c in terms]
    for k in range(max(len(ra.parts), len(rb.parts))):
        ca, ta = ra.parts[k] if k < len(ra.parts) else (str(ABSENT), NUL)
        cb, tb = rb.parts[k] if k < len(rb.parts) else (str(ABSENT), NUL)
        ta, tb = base(ta), base(tb)
        if ta != tb and _join(ta, tb) is None and not {ta, tb} & {MIX, NUL}:
            terms = ["False"]  # values of different kinds are never equal
            break
        terms.append(f"(({ca}) == ({cb}))")
    code = "(" + " and ".join(terms or ["True"]) + ")"
    return (code if str(op) == "==" else f"(not {code})"), BOOL
