"""Lists inside the items of a list variable in the typed kernel: ``set: {slots: "[[i, j, near(j),
flatten([...])] for i in xs for j in ys(i)]"}``, each item holding single values and lists made at
run time (of single values or of tuples of them), then ``x in e[2]``, ``count(e[2])``, ``[y for y
in e[3]]`` of an item ``e`` of ``slots``; and ``pair in list_of_pairs`` (``[a, b] in e[2]``).

A list part of a tuple has the type :class:`SubT` (its items' type). In a list literal (the item
of a comprehension) it carries the list it holds, lowered where the item is made; stored in a game
variable (:mod:`interpreter.fast.listvars`) the items of every item's list part go, in turn, into
a pool of rows of ``Z`` of its own (``POOL_BLOCKS`` blocks of one row per part of the inner items,
so it holds ``POOL_BLOCKS * len(Z[0])`` items), and the part's row holds ``start * NEST +
length``; its list is read back from there (:func:`part_list`). A set step first writes the new
lists into staging rows (the value may read the variable's old lists), then copies them into the
pool. A list longer than the pool (or than ``NEST``) stops the kernel's game (error 6): the step API
then replays it. A list part read before it is kept in a variable (or a list of lists of lists,
maps or sets) does not type, with its line.

Generated code comes only from the fixed templates below (integer holes, generated names).
"""
from __future__ import annotations

from .lowtypes import BOOL, CARD, INT, NUL, RI_ERROR, TEXT, ListT, NotTyped, _indent, _join, _names

NEST = 2 ** 24  # a list part's row holds start * NEST + length
POOL_BLOCKS = 4  # rows (per part of the inner items) in a list part's pool


class SubT:
    """The type of a tuple's part holding a list: ``elem`` its items' type (a single value's type or
    a TupT of them); ``lst`` the ListT it holds (a list literal's part) or ``pool`` the first row of
    its pool (a variable's part). Equal to another SubT of the same items' type."""

    def __init__(self, elem, lst=None, pool=None):
        self.elem, self.lst, self.pool = elem, lst, pool

    def __eq__(self, other):
        return isinstance(other, SubT) and other.elem == self.elem

    def __hash__(self):
        return hash(("SubT", self.elem))

    def __repr__(self):
        return f"list of {self.elem}"

    @property
    def width(self):
        """Rows per block: the parts of an inner item (1 for a single value)."""
        return len(self.elem) if isinstance(self.elem, tuple) else 1


def _check_elem(low, elem):
    # (a tuple of single values; a record's parts are tuples themselves, refused here)
    if isinstance(elem, tuple) and any(t not in (INT, BOOL, TEXT, CARD) for t in elem):
        raise NotTyped("a list of lists holding lists of lists of lists (or of maps, or of values of several kinds)",
                       low.path)
    if not isinstance(elem, tuple) and elem not in (INT, BOOL, TEXT, CARD, NUL):
        raise NotTyped(f"a list of lists holding lists of {elem}s", low.path)
    return INT if elem == NUL else elem


def literal(low, items, TupleV):
    """A list literal whose items are single values and lists made at run time (at least one), as a
    ``TupleV`` (compound's, passed in) with :class:`SubT` parts; None when some item is something else."""
    if not any(isinstance(it, ListT) for it in items):
        return None
    parts, refs = [], set()
    for it in items:
        if isinstance(it, ListT):
            if getattr(it, "items", None) is not None and any(not isinstance(x, tuple) for x in it.items):
                return None
            parts.append(("0", SubT(_check_elem(low, it.elem), lst=it)))
            refs |= it.refs
        elif isinstance(it, tuple):
            parts.append(it)
        else:
            return None
    out = TupleV(parts, low.path)
    out.refs = out.refs | refs
    out.nested = True  # (a comprehension of these items may be kept in a variable: see store_lines)
    return out


def has_lists(ty) -> bool:
    """Whether the item type ``ty`` (a TupT) has a list part."""
    return isinstance(ty, tuple) and any(isinstance(t, SubT) for t in ty)


def pools(low, name, ty):
    """The variable's item type (a ``compound.TupT``) with every list part given its pool (rows of Z
    made once, kept across the lowering's passes): ``(type, {part: (pool row, staging row)})``."""
    made = low.__dict__.setdefault("nest_pools", {}).setdefault(name, {})
    out = []
    for j, t in enumerate(ty):
        if isinstance(t, SubT):
            if j not in made:
                n = POOL_BLOCKS * t.width
                made[j] = (low.rows, low.rows + n)
                low.rows += 2 * n
                low.changed = True
            t = SubT(t.elem, pool=made[j][0])
        out.append(t)
    return type(ty)(out), made


def store_lines(low, fresh_ty, made, n, base, v, parts_of):
    """For a set step of a variable with list parts: ``(lines before the loop, lines per item
    storing its parts into ``TMP[base + j, n]``, lines copying the staged lists into the pools)``.
    ``fresh_ty`` is the value's item type (its SubT parts carry the lists), ``v`` the item's name,
    ``parts_of`` compound's (the names of a tuple's parts)."""
    if not all(isinstance(t, SubT) and t.lst is not None or not isinstance(t, SubT) for t in fresh_ty):
        raise NotTyped("a list of lists whose inner lists are not made where it is set", low.path)
    k = len(fresh_ty)
    parts = parts_of(v, k)
    head, body, copy = [], [], []
    for j, t in enumerate(fresh_ty):
        if not isinstance(t, SubT):
            body.append(f"TMP[{base + j}, {n}] = {parts[j]}")
            continue
        pool, stage = made[j]
        w = t.width
        cur, s, u, i, q = (low.fresh(x) for x in "ttvit")
        head.append(f"{cur} = 0")
        uparts = parts_of(u, w) if isinstance(t.elem, tuple) else [u]
        put = [f"if {cur} >= {POOL_BLOCKS} * len(Z[0]) or {cur} >= {NEST}:", f"    RI[{RI_ERROR}] = 6", "    return"] + \
            [f"Z[{stage} + ({cur} // len(Z[0])) * {w} + {r}, {cur} % len(Z[0])] = {p}" for r, p in enumerate(uparts)] + \
            [f"{cur} += 1"]
        body += [f"{s} = {cur}"] + t.lst.loop(u, put) + [f"TMP[{base + j}, {n}] = {s} * {NEST} + ({cur} - {s})"]
        copy += [f"for {i} in range({cur}):", f"    {q} = ({i} // len(Z[0])) * {w}"] + \
            [f"    Z[{pool} + {q} + {r}, {i} % len(Z[0])] = Z[{stage} + {q} + {r}, {i} % len(Z[0])]" for r in range(w)]
    return head, body, copy


def part_list(low, code, ty: SubT, parts_of):
    """The list a list part holds (``code`` the part's value, ``ty`` its SubT), as a ListT
    (``parts_of``: compound's)."""
    if ty.pool is None:
        raise NotTyped("a list inside a list read before it is kept in a variable", low.path)
    pool, w = ty.pool, ty.width

    def loop(var, body):
        s, m, i, q = (low.fresh(x) for x in "ttit")
        names = parts_of(var, w) if isinstance(ty.elem, tuple) else [var]
        return [f"{s} = ({code}) // {NEST}", f"{m} = ({code}) % {NEST}", f"for {i} in range({m}):",
                f"    {q} = {s} + {i}"] + \
            [f"    {p} = Z[{pool} + ({q} // len(Z[0])) * {w} + {r}, {q} % len(Z[0])]" for r, p in enumerate(names)] + \
            _indent(body)
    return ListT(ty.elem, loop, length=f"(({code}) % {NEST})", refs=_names(code))


def tuple_in(low, x, lst, env, parts_of):
    """``[a, b] in xs`` (``x`` a ``compound.TupleV``, ``xs`` a ListT of tuples; ``parts_of``
    compound's): whether some item equals it part by part, as ``(code, BOOL)``; None when ``xs``
    is not a list of tuples of single values."""
    if not isinstance(lst, ListT) or not isinstance(lst.elem, tuple) or x.null is not None or \
            any(t not in (INT, BOOL, TEXT, CARD) for t in lst.elem) or \
            any(t not in (INT, BOOL, TEXT, CARD, NUL) for _, t in x.parts):
        return None  # (anything else: the caller's lowering, which says why it does not type)
    if len(lst.elem) != len(x.parts):
        return "0", BOOL  # (lists of different lengths are never equal)
    found, v = low.fresh("t"), low.fresh("v")
    tests = []
    for (c, tx), p, ty in zip(x.parts, parts_of(v, len(x.parts)), lst.elem):
        if _join(tx, ty) is None and NUL not in (tx, ty):
            return "0", BOOL  # values of different kinds are never equal
        tests.append(f"({p} == {c})")
    lines = [f"{found} = False"] + lst.loop(v, [f"if {' and '.join(tests)}:", f"    {found} = True"])
    return low.helper(env, lines, found), BOOL


def refuse(low, what, *types):
    """NotTyped (``what`` says where) when one of the item ``types`` has a list part: the places
    that copy, compare, group or join items part by part keep single values only."""
    if any(has_lists(t) for t in types):
        raise NotTyped(f"{what} of a list whose items hold lists", low.path)
