"""Lists of lists of different lengths in the typed kernel, and a row of a list of lists picked at
run time (``rows[k]``, e.g. ``[['a', 'b'], ['a', 'b', 'c']][n - 1]``).

- A list literal whose items are list literals of single values of different lengths is a list of
  padded tuples (:mod:`interpreter.fast.ragged`): each item's parts, :data:`~interpreter.fast.ragged.ABSENT`
  at the places it lacks (those places' types are padded: reading one from a bound item does not
  type, as there).
- ``rows[k]`` of a list of tuples (padded or not) with ``k`` known only at run time is a list (a
  ListT) of that row's parts, in order, up to its first absent place: each part read by its own
  helper (one pass over the rows counting to ``k``; ``k`` negative counts from the end), so it can
  be counted, indexed, sliced, looped over and given to any built-in that takes a list. An index
  out of range flags the game (:data:`~interpreter.fast.lowtypes.ERR_INDEX`: the step API replays it
  and raises its located error) and reads as the empty list. The row's parts must be of one kind
  (numbers, texts, cards...): a row holding a number and a text does not type.

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, ERR_INDEX, INT, NUL, RI_ERROR, ListT, NotTyped, _indent, _join, _names
from . import ragged


def padded_list(low, tuples, TupT, TupleV, item_loop):
    """The ListT of padded tuples of the list literal whose items are ``tuples`` (TupleVs of
    different lengths); NotTyped when one place holds values of different kinds (``TupT``,
    ``TupleV``, ``item_loop``: compound's, which imports this module)."""
    n = max(len(tv.parts) for tv in tuples)
    types = []
    for k in range(n):
        ty = NUL
        absent = False
        for tv in tuples:
            if k >= len(tv.parts):
                absent = True
                continue
            ty = _join(ty, tv.parts[k][1])
            if ty is None:
                raise NotTyped("a list of lists whose items at one place are of different kinds", low.path)
        ty = INT if ty == NUL else ty
        types.append(ragged.padded(ty) if absent else ty)
    refs = set()
    for tv in tuples:
        refs |= tv.refs

    def loop(var, lines):
        out = []
        for tv in tuples:
            full = TupleV(list(tv.parts) + [(str(ragged.ABSENT), NUL)] * (n - len(tv.parts)))
            out += item_loop(full, var, lines)
        return out
    return ListT(TupT(types), loop, length=str(len(tuples)), refs=refs)


def row(low, t, env, TupT, parts_of):
    """``rows[k]`` of a list of tuples (``t`` the index node) as a ListT of the row's parts, or None
    when ``rows`` is not a list of tuples (the caller goes on)."""
    obj = low.e(t.children[0], env)
    if not isinstance(obj, ListT) or not isinstance(obj.elem, TupT):
        return None
    kc, kt = low.scalar(t.children[1], env)
    if kt not in (INT, BOOL, NUL):
        raise NotTyped(f"a list indexed by a {kt}", low.path)
    width = len(obj.elem)
    elem = NUL
    for ty in obj.elem:
        elem = _join(elem, ragged.base(ty))
        if elem is None or ragged.base(ty) == ragged.MIX:
            raise NotTyped("a row picked at run time of a list of lists holding values of different kinds", low.path)
    elem = INT if elem == NUL else elem
    parts = []
    for j in range(width):
        k, n, out, c = (low.fresh("t") for _ in range(4))
        v = low.fresh("v")
        pj = parts_of(v, width)[j]
        count = [f"{n} = {obj.length}"] if obj.length is not None else [f"{n} = 0"] + obj.loop(v, [f"{n} += 1"])
        lines = count + [f"{k} = {kc}", f"if {k} < 0:", f"    {k} += {n}", f"{out} = {ragged.ABSENT}", f"{c} = 0"] + \
            obj.loop(v, [f"if {c} == {k}:", f"    {out} = {pj}", f"{c} += 1"])
        if j == 0:  # (the index checked once)
            lines += [f"if {k} < 0 or {k} >= {n}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
        parts.append(low.helper(env, lines, out))

    def loop(var, body):
        qs = [low.fresh("t") for _ in parts]
        i, x = low.fresh("i"), low.fresh("t")
        pick = qs[-1]
        for j in range(len(qs) - 2, -1, -1):
            pick = f"({qs[j]} if {i} == {j} else {pick})"
        head = [f"{q} = {p}" for q, p in zip(qs, parts)]
        # (a row lacking a place ends there; a row out of range, flagged, lacks every place)
        return head + [f"for {i} in range({width}):", f"    {x} = {pick}", f"    if {x} == {ragged.ABSENT}:",
                       "        break", f"    {var} = {x}"] + _indent(body)
    return ListT(elem, loop, refs=obj.refs | _names(kc))
