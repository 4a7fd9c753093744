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
step API raises an error reading past an item's end); an option's text skips it.

One item may itself be of several lengths: ``[pair, 'at', x] + (['from', y] if c else [])``
(:func:`tuple_plus`) is kept as one tuple of the parts of both lists, the places of the second
holding :data:`ABSENT` where ``c`` is false; ``count(m)`` of a chosen one counts the places it has
(:func:`count_parts`). Only the last list of such a sum may vary in length (an earlier one would
move the later places). Generated code comes only from the fixed templates below.
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


def tuple_like(r) -> bool:
    """Whether ``r`` may be kept as one tuple value where it is an item of a list: a TupleV (a
    list literal of values of several kinds), a list literal, ``x if c else y`` of them, or ``+``
    of them (:func:`tuple_plus`)."""
    return any(getattr(r, a, None) is not None for a in ("parts", "items", "alts", "joined"))  # (parts: a TupleV)


def tuple_plus(low, ra, rb, TupleV, concat):
    """``xs + ys`` of two list literals (or ``x if c else y`` of them, or such sums) where one of
    them holds values of several kinds or lists of different lengths, as an item of a list
    (choice options such as ``[pair, 'at', x, dir] + (['from', y] if c else [])``): a ListT that
    :func:`joined_tuple` reads as one TupleV; as a list it is the plain ``+`` when its items are
    of one kind. None when a side is no list literal (the caller joins the lists). ``TupleV``,
    ``concat``: compound's (which imports this module)."""
    if not (tuple_like(ra) and tuple_like(rb)):
        return None
    out = None
    if isinstance(ra, ListT) and isinstance(rb, ListT) and ra.elem is not None and rb.elem is not None:
        try:
            out = concat(low, ra, rb)
        except NotTyped:
            out = None
        if out is ra or out is rb:  # (one side empty: the other as it is)
            return out
    if out is None:
        def unlisted(var, body):
            raise NotTyped("+ of lists of values of several kinds, read as a list", low.path)
        out = ListT(None, unlisted, refs=set(ra.refs) | set(rb.refs))
    out.joined = (ra, rb)
    return out


def joined_tuple(low, r, TupleV, as_tuple):
    """The TupleV of ``xs + ys`` kept by :func:`tuple_plus`: the parts of ``xs`` then those of
    ``ys``. Only the last list may vary in length (its places then padded: see the module's doc);
    an earlier one that may lack a place does not type (its later places would move)."""
    ra, rb = r.joined
    ta, tb = as_tuple(low, ra), as_tuple(low, rb)
    if not (isinstance(ta, TupleV) and isinstance(tb, TupleV)):
        raise NotTyped("+ of lists as an item of a list, one of them made at run time", low.path)
    if ta.null is not None or tb.null is not None:
        raise NotTyped("+ of a chosen option that may be null", low.path)
    if any(is_padded(t) for _, t in ta.parts):
        raise NotTyped("+ of lists as an item of a list, a list of several lengths before another", low.path)
    return TupleV(ta.parts + tb.parts, low.path)


def count_parts(r, TupleV):
    """``count(x)`` of a tuple value ``x`` (a chosen option kept as its parts): its length, the
    places it lacks (:data:`ABSENT`) not counted, as ``(code, INT)``; None for anything else."""
    if not isinstance(r, TupleV) or r.null is not None:
        return None
    fixed = sum(1 for _, t in r.parts if not is_padded(t))
    terms = [str(fixed)] + [f"(1 if ({c}) != {ABSENT} else 0)" for c, t in r.parts if is_padded(t)]
    return "(" + " + ".join(terms) + ")", INT
