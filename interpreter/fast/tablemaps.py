"""Map literals whose values are short lists in the typed kernel: a table such as
``{'low': [6, 'x', 40], 'none': [0, null, 250]}`` (constant keys, each value a list literal of
single values, all of one length), and ``keys(m)`` of a map literal.

Such a map is a :class:`TableV` (a :class:`~interpreter.fast.compound.MapV` whose values are
:class:`~interpreter.fast.compound.TupleV`): it is written where it is indexed. ``m[k]`` is a tuple
(read part by part, ``m[k][2]``): with a constant key, that entry's parts; with a key known only
at run time, one chain of comparisons per part read. A key the map does not hold gives null in the
step API, and indexing null is its error: the kernel flags the game there (``ERR_INDEX``, replayed
by the step API, which raises its located error). ``keys(m)`` lists the keys in the order the step
API's map keeps them (the order they are first written). Generated code comes only from the fixed
templates below (integer holes, generated names).
"""
from __future__ import annotations

from .compound import MapV, TupleV, TupT, as_tuple
from .lowtypes import ERR_INDEX, INT, NUL, RI_ERROR, ListT, NotTyped, _fold, _join, _names


class TableV(MapV):
    """A map literal whose values are tuples of one length: ``entries`` as MapV's, ``types`` the
    parts' joined types (a part null in every entry reads as a number)."""

    def __init__(self, entries, types, path=""):
        self.entries, self.path, self.types = entries, path, TupT(types)
        self.refs = set()
        for _, _, tv in entries:
            self.refs |= tv.refs

    def index(self, low, key_tree, env):
        """``m[k]``: see :func:`index` (compound.py calls it through the value, not the module)."""
        return index(low, self, key_tree, env)


def table(low, found):
    """The TableV of a map literal's ``found`` entries (key code -> (key type, value)) when some
    value is a list: every value must be a list literal of single values, all of one length;
    otherwise NotTyped (a map literal holding lists of several shapes, or maps)."""
    entries, types = [], None
    for kc, (kt, v) in found.items():
        tv = as_tuple(low, v) if isinstance(v, ListT) and getattr(v, "items", None) is not None else v
        if not isinstance(tv, TupleV) or not tv.parts or tv.null is not None:
            raise NotTyped("a map literal holding lists or maps (the kernel reads a map of list literals of "
                           "single values, all of one length)", low.path)
        if types is None:
            types = list(tv.types)
        elif len(types) != len(tv.parts):
            raise NotTyped("a map literal holding lists of different lengths", low.path)
        else:
            for k, ty in enumerate(tv.types):
                types[k] = _join(types[k], ty)
                if types[k] is None:
                    raise NotTyped("a map literal holding lists whose items at one place are of different kinds",
                                   low.path)
        entries.append((kc, kt, tv))
    return TableV(entries, [INT if ty == NUL else ty for ty in types], low.path)


def _matches(et, kt) -> bool:
    return _join(et, kt) is not None or NUL in (et, kt)


def index(low, obj: TableV, key_tree, env):
    """``m[k]`` of a TableV: a TupleV (its parts read lazily by ``m[k][j]``)."""
    kc, kt = low.scalar(key_tree, env)
    known = _fold(kc)
    if known is not None:
        for ek, et, tv in obj.entries:
            if _fold(ek) == known and type(_fold(ek)) is type(known) and _matches(et, kt):
                return TupleV([(c, ty) for (c, _), ty in zip(tv.parts, obj.types)], low.path)
        raise NotTyped("a map literal indexed by a constant key it does not hold (null, then indexed)", low.path)
    parts = []
    for j, ty in enumerate(obj.types):
        key, out = low.fresh("t"), low.fresh("t")
        lines, first = [f"{key} = {kc}", f"{out} = 0"], True
        for ek, et, tv in obj.entries:
            if not _matches(et, kt):
                continue  # a key of another kind never matches
            lines += [f"{'if' if first else 'elif'} {key} == {ek}:", f"    {out} = {tv.parts[j][0]}"]
            first = False
        lines += ["else:" if not first else "if True:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
        parts.append((low.helper(env, lines, out), ty))
    return TupleV(parts, low.path)


def keys(low, args, env):
    """``keys(m)`` of a map literal: a ListT of its keys (one kind: numbers or texts)."""
    if len(args) != 1:
        raise NotTyped("keys() with other than one argument", low.path)
    m = low.e(args[0], env)
    if not isinstance(m, MapV):
        raise NotTyped("keys() of something other than a map literal", low.path)
    ty = NUL
    for _, kt, _ in m.entries:
        ty = _join(ty, kt)
        if ty is None:
            raise NotTyped("keys() of a map whose keys are of several kinds", low.path)
    codes = [ek for ek, _, _ in m.entries]
    elem = INT if ty == NUL else ty

    def loop(var, body):
        out = []
        for c in codes:
            out += [f"{var} = {c}"] + body
        return out
    out = ListT(elem, loop, length=str(len(codes)), refs=_names(*codes))
    out.distinct = True  # (a map's keys are distinct)
    return out
