"""A game variable set to ``group_by(xs, x => KEY)`` in the typed kernel: a map from each key to the
list of the items of ``xs`` with that key (``open_slots: {}`` then ``set: {open_slots:
"group_by(ways, e => e[3])"}``), read by ``m[k]`` (the list of key ``k``'s items, in the order of
``xs``), ``if_null(m[k], [])`` and ``k in m``. The items are single values or tuples (lists of
single values of one length: each part one value).

The variable is one of :mod:`interpreter.fast.mapvars`' (it starts as ``{}``; ``set: {m: "{}"}``
empties it); once set to a ``group_by`` its rows of ``Z`` are its own: the items' keys in the first
row, each part of the items in one row after it, in the order of ``xs`` (so a key's items are read in
the step API's order), with the number of items in ``ZN`` of the first row (``mapvars.around_gather``
keeps it across ``gather``). A group map holds at most as many items as a row (``MAX_LIST``, or the
number of cards if more): a longer one stops the kernel's game (error 6), which the step API replays.
``m[k]`` of a key the map lacks is null in the step API: looping over it is the step API's error, so
the kernel flags the game there (``ERR_INDEX``), except inside ``if_null(m[k], [])``.

Generated code comes only from the fixed templates below (integer holes, generated names).
"""
from __future__ import annotations

from .compound import TupT, bind, parts_of
from .lowtypes import BOOL, CARD, ERR_INDEX, INT, NUL, RI_ERROR, TEXT, ListT, NotTyped, _join, _names


class GroupV:
    """``group_by(xs, x => KEY)`` where a whole map is expected: the list and the key lambda."""

    def __init__(self, src, lam, env):
        self.src, self.lam, self.env = src, lam, env
        self.refs = set(src.refs)

    def __getitem__(self, k):  # (read as a value: only a game variable's set step takes it whole)
        raise NotTyped("group_by(...) other than as the value of a game variable's map (or in values())")


def key_in(low, cx: str, tx, r: GroupV, env):
    """``x in group_by(xs, y => KEY)`` (the map held in a ``let`` name, say): whether some item of
    ``xs`` has the key ``x`` (``cx``, ``tx``: ``x`` lowered), as ``(code, BOOL)``: the map's keys
    are the items' keys, so no map is built."""
    src, (lam_var, lam_body) = r.src, r.lam.children
    v = low.fresh("v")
    env2 = dict(r.env)
    env2[str(lam_var)] = bind(v, src.elem)
    kcode, kt = low.scalar(lam_body, env2)
    bound = {v} | (set(parts_of(v, len(src.elem))) if isinstance(src.elem, TupT) else set())

    def loop(var, body):
        return src.loop(v, [f"{var} = {kcode}"] + body)
    keys = ListT(kt, loop, refs=set(src.refs) | (_names(kcode) - bound))
    return low.reduce_in(cx, keys, env), BOOL


def _maps(low) -> dict:
    """name -> (first row, item type, key type), kept across the lowering's passes."""
    if not hasattr(low, "group_maps"):
        low.group_maps = {}
    return low.group_maps


def is_group_map(low, name: str) -> bool:
    return name in _maps(low)


def call_group_by(low, args, env):
    """``group_by(xs, x => KEY)`` as a :class:`GroupV` (only a game variable's set step takes it)."""
    if len(args) != 2 or getattr(args[1], "data", None) != "lambda_":
        raise NotTyped("group_by without a list and a lambda", low.path)
    src = low.lst(args[0], env)
    if not (src.elem in (CARD, INT, BOOL, TEXT) or (isinstance(src.elem, TupT) and type(src.elem) is TupT)):
        raise NotTyped(f"group_by of a list of {src.elem}s", low.path)
    return GroupV(src, args[1], env)


def assign(low, name, r: GroupV, path):
    """``set: {m: "group_by(...)"}``: ``(value lines, store lines)``; the rows are taken at the first
    such step (the lowering runs again with them)."""
    src, (lam_var, lam_body) = r.src, r.lam.children
    v = low.fresh("v")
    env2 = dict(r.env)
    env2[str(lam_var)] = bind(v, src.elem)
    kcode, kt = low.scalar(lam_body, env2)
    if kt not in (INT, BOOL, TEXT, CARD, NUL):
        raise NotTyped(f"group_by by a {kt}", path)
    maps = _maps(low)
    n_parts = len(src.elem) if isinstance(src.elem, TupT) else 1
    if name not in maps:
        maps[name] = (low.rows, src.elem, kt)
        low.rows += 1 + n_parts
        low.changed = True
    row, elem, okt = maps[name]
    if isinstance(elem, TupT) != isinstance(src.elem, TupT) or (isinstance(elem, TupT) and len(elem) != n_parts):
        raise NotTyped(f"variable {name!r} set to groups of lists of different lengths", path)
    joined = TupT(_join(a, b) for a, b in zip(elem, src.elem)) if isinstance(elem, TupT) else _join(elem, src.elem)
    jk = _join(okt, kt)
    if jk is None or joined is None or (isinstance(joined, TupT) and None in joined):
        raise NotTyped(f"variable {name!r} set to groups of items (or keys) of several kinds", path)
    if joined != elem or jk != okt:
        maps[name] = (row, joined, jk)
        low.changed = True
    if low.gmaps.get(name) != row:
        low.gmaps[name] = row  # (mapvars.around_gather keeps ZN of this row across gather)
        low.changed = True
    from . import nestedlists
    nestedlists.refuse(low, "group_by", src.elem)
    parts = parts_of(v, n_parts) if isinstance(src.elem, TupT) else [v]
    base = low.depth
    low.depth += 1 + n_parts
    low.max_depth = max(low.max_depth, low.depth)
    n, i = low.fresh("t"), low.fresh("i")
    body = [f"if {n} >= len(TMP[0]) or {n} >= len(Z[0]):", f"    RI[{RI_ERROR}] = 6", "    return",
            f"TMP[{base}, {n}] = {kcode}"] + [f"TMP[{base + 1 + j}, {n}] = {p}" for j, p in enumerate(parts)] + \
        [f"{n} += 1"]
    value = [f"{n} = 0"] + src.loop(v, body)
    stores = [f"for {i} in range({n}):"] + [f"    Z[{row + j}, {i}] = TMP[{base + j}, {i}]" for j in range(1 + n_parts)] + \
        [f"ZN[{row}] = {n}"]
    return value, stores


def entry(low, name, key_tree, env, flag=True):
    """``m[k]``: a ListT of key ``k``'s items (``flag``: a key the map lacks flags the game)."""
    row, elem, kt = _maps(low)[name]
    kc, _ = low.scalar(key_tree, env)
    n_parts = len(elem) if isinstance(elem, TupT) else 1

    def loop(var, body):
        key, i, seen = low.fresh("t"), low.fresh("i"), low.fresh("t")
        parts = parts_of(var, n_parts) if isinstance(elem, TupT) else [var]
        lines = [f"{key} = {kc}", f"{seen} = False", f"for {i} in range(ZN[{row}]):", f"    if Z[{row}, {i}] == {key}:",
                 f"        {seen} = True"] + [f"        {p} = Z[{row + 1 + j}, {i}]" for j, p in enumerate(parts)] + \
            ["        " + ln for ln in body]
        if flag:
            lines += [f"if not {seen}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
        return lines
    return ListT(elem, loop, refs=_names(kc))


def contains(low, name, key_tree, env):
    """``k in m``: ``(code, type)``."""
    row = _maps(low)[name][0]
    kc, _ = low.scalar(key_tree, env)
    key, at, i = low.fresh("t"), low.fresh("t"), low.fresh("i")
    lines = [f"{key} = {kc}", f"{at} = -1", f"for {i} in range(ZN[{row}]):", f"    if Z[{row}, {i}] == {key}:",
             f"        {at} = {i}", "        break"]
    return low.helper(env, lines, f"({at} >= 0)"), BOOL


def if_null_list(low, args, env):
    """``if_null(m[k], [])`` of a group map: its ListT without the flag; None for anything else."""
    a, b = args
    if not (getattr(a, "data", None) == "index" and getattr(a.children[0], "data", None) == "name"
            and is_group_map(low, str(a.children[0].children[0]))):
        return None
    if not (getattr(b, "data", None) == "list_" and not [c for c in b.children if c is not None]):
        raise NotTyped("if_null of a group of a map and other than []", low.path)
    return entry(low, str(a.children[0].children[0]), a.children[1], env, flag=False)
