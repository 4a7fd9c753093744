"""Game variables holding a list of records or of tuples in the typed kernel: ``rows: []`` then
``set: {rows: "rows + [{'seat': p, 'total': 1}]"}``, ``set: {"rows[k]": {...}}`` and
comprehensions over ``rows`` reading ``r['total']``; or ``pairs: []`` then
``set: {pairs: "pairs + [[a, b]]"}`` and comprehensions reading ``x[0]``, ``p in x``; and game
variables holding a list of single values (cards, numbers, texts: ``set: {group: "[c in trick where
c.suit == s]"}``, one entry set by ``set: {"group[k]": v}``), kept in one row of ``Z`` the same way (its
type is then the items' type, not a TupT).

A record is a map literal with constant keys (numbers or texts) whose values are single values
(:class:`RecT`: its keys, in key order, and the type of each value); a tuple is a list literal of
single values (:class:`TupT`: each part's type). A variable holding a list of
records (tuples) keeps it in rows of ``Z`` after the zones' rows, one row per key or part
(``Z[row + k, i]``: the value of key ``k`` of item ``i``) with its length in ``ZN[row]``; at most ``MAX_LIST`` items (or
as many as the card table has cards, if more): a longer list stops the kernel's game, which the
step API then replays. ``gather`` keeps these
rows as they are. The variable must start as ``[]``.

Generated code comes only from the fixed templates below (integer holes, generated names).
"""
from __future__ import annotations

from .compound import MapV, RecT, TupT, _sorted_entries, join, parts_of, record_lines, record_type
from . import nestedlists


def _join_items(old, new, low):
    """The item type holding both ``old`` and ``new`` (records: :func:`compound.join`; tuples: part
    by part); NotTyped when they differ in keys, length or kind."""
    from .lowtypes import NotTyped, _join
    if isinstance(old, RecT) or isinstance(new, RecT):
        if not (isinstance(old, RecT) and isinstance(new, RecT)):
            raise NotTyped("a list variable holding both maps and lists", low.path)
        return join(old, new, low)
    parts = [_join(a, b) for a, b in zip(old, new)]
    if len(old) != len(new) or None in parts:
        raise NotTyped(f"a list variable holding lists of {list(old)} and of {list(new)}", low.path)
    return TupT(parts)


class Entry:
    """The target ``xs[k]`` of a set step: the variable's name and the index's expression."""

    def __init__(self, name, index_tree, env):
        self.name, self.index_tree, self.env = name, index_tree, env


def record_list(low, items):
    """A list literal of map literals with the same keys, as a ListT of records."""
    from .lowtypes import ListT, NotTyped, _names
    ty = None
    for it in items:
        if not isinstance(it, MapV):
            raise NotTyped("a list mixing maps and other values", low.path)
        ty = join(ty, record_type(it), low)

    def loop(var, body):
        out = []
        for it in items:
            out += record_lines(it, var) + body
        return out
    refs = set()
    for it in items:
        refs |= it.refs
    out = ListT(ty, loop, length=str(len(items)), refs=refs | _names())
    return out


def read(low, name):
    """The variable ``name`` (a list of records) as a ListT over its rows."""
    from .lowtypes import ListT

    row, ty = low.list_rows[name]
    if not isinstance(ty, TupT):  # a list of single values: one row

        def loop1(var, body):
            i = low.fresh("i")
            return [f"for {i} in range(ZN[{row}]):", f"    {var} = Z[{row}, {i}]"] + ["    " + ln for ln in body]
        return ListT(ty, loop1, length=f"ZN[{row}]")

    def loop(var, body):
        i = low.fresh("i")
        parts = parts_of(var, len(ty))
        return [f"for {i} in range(ZN[{row}]):"] + [f"    {p} = Z[{row + k}, {i}]" for k, p in enumerate(parts)] + \
            ["    " + ln for ln in body]
    return ListT(ty, loop, length=f"ZN[{row}]")


def _register(low, name, ty):
    """Rows for the variable (made once, kept across the lowering's passes); its type joined."""
    from .lowtypes import NotTyped, _join
    rows = low.list_rows
    if name not in rows:
        rows[name] = (low.rows, ty)
        low.rows += len(ty) if isinstance(ty, TupT) else 1
        low.changed = True
        return
    row, old = rows[name]
    if isinstance(old, TupT) != isinstance(ty, TupT):
        raise NotTyped(f"variable {name!r} holds lists of maps (or lists) and lists of single values", low.path)
    if not isinstance(ty, TupT):
        new = _join(old, ty)
        if new is None:
            raise NotTyped(f"variable {name!r} holds lists of {old}s and of {ty}s", low.path)
    elif len(old) != len(ty):
        raise NotTyped(f"variable {name!r} holds lists of maps (or lists) with different keys (lengths)", low.path)
    else:
        new = _join_items(old, ty, low)
    if new != old:
        rows[name] = (row, new)
        low.changed = True


def store(low, which, r, path):
    """``set: {name: LIST}`` for a list of records or tuples (or []): ``(value lines, store lines)``."""
    from .lowtypes import NotTyped, RI_ERROR
    kind, name = which
    if kind != "g":
        raise NotTyped(f"player variable {name!r} is set to a list (the kernel keeps lists of maps in game "
                       f"variables only)", path)
    if r.length == "0" and name not in low.list_rows:
        return None  # [] before anything else: not yet a list of records (typed as an empty list)
    from .lowtypes import NUL
    if r.length == "0" or r.elem == NUL:
        r.elem = low.list_rows[name][1] if name in low.list_rows else r.elem
    if r.elem == NUL:
        return None  # (only nulls so far: typed once something else is stored)
    fresh, made = r.elem, None
    if nestedlists.has_lists(fresh):  # items holding lists: each list part kept in a pool (nestedlists.py)
        if not getattr(r, "nested", False):
            raise NotTyped(f"variable {name!r} set to a list whose items hold lists, other than by a comprehension "
                           f"making them", path)
        pooled, made = nestedlists.pools(low, name, fresh)
        _register(low, name, pooled)
    else:
        _register(low, name, r.elem)
    row, ty = low.list_rows[name]
    k = len(ty) if isinstance(ty, TupT) else 1
    base = low.depth
    low.depth += k
    low.max_depth = max(low.max_depth, low.depth)
    n, v = low.fresh("t"), low.fresh("v")
    parts = parts_of(v, k) if isinstance(ty, TupT) else [v]
    head, copy = [], []
    if made is not None:
        head, puts, copy = nestedlists.store_lines(low, fresh, made, n, base, v, parts_of)
    else:
        puts = [f"TMP[{base + j}, {n}] = {p}" for j, p in enumerate(parts)]
    body = [f"if {n} >= len(TMP[0]):", f"    RI[{RI_ERROR}] = 6", "    return"] + puts + [f"{n} += 1"]
    value = head + [f"{n} = 0"] + r.loop(v, body) + [f"if {n} > len(Z[0]):", f"    RI[{RI_ERROR}] = 6", "    return"]
    i = low.fresh("i")
    stores = [f"for {i} in range({n}):"] + [f"    Z[{row + j}, {i}] = TMP[{base + j}, {i}]" for j in range(k)] + \
        [f"ZN[{row}] = {n}"] + copy
    # the rows stay taken until the set step's stores have run (the caller gives them back): another
    # list set in the same step keeps its items in rows of its own
    return value, stores


def set_entry(low, entry: Entry, r, path):
    """``set: {"name[k]": {...}}`` (a list of maps), or ``set: {"name[k]": v}`` (a list of single
    values): ``(value lines, store lines)``; an index outside the list (or null) is a run-time
    error, as in the step API."""
    from .lowtypes import NotTyped
    rows = low.list_rows
    if entry.name not in rows:
        if low.gtypes.get(entry.name) is not None:
            low.changed = True  # typed on a later pass, once the list is known
        raise NotTyped(f"setting an entry of {entry.name!r} (a list of maps is set whole before its entries)", path)
    if not isinstance(rows[entry.name][1], TupT):  # a list of single values (numbers, texts, cards)
        return _set_value_entry(low, entry, r, path)
    if not isinstance(r, MapV):
        raise NotTyped(f"an entry of {entry.name!r} set to something other than a map", path)
    row, ty = rows[entry.name]
    _register(low, entry.name, record_type(r))
    row, ty = rows[entry.name]
    k, value = _index_lines(low, entry, row, path)
    vals = [low.fresh("t") for _ in ty]
    value += [f"{t} = {c}" for t, (_, _, (c, _)) in zip(vals, _sorted_entries(r))]
    stores = [f"Z[{row + j}, {k}] = {t}" for j, t in enumerate(vals)]
    return value, stores


def _index_lines(low, entry, row, path):
    """``(index name, lines)``: the entry's index read and checked (null or outside the list: the
    step API's error, flagged), counted from the end when negative."""
    from .lowtypes import INT, BOOL, NotTyped, RI_ERROR, ERR_LIST_ENTRY
    kc, kt = low.scalar(entry.index_tree, entry.env)
    if kt not in (INT, BOOL):
        raise NotTyped(f"an entry of {entry.name!r} picked by a {kt}", path)
    k = low.fresh("t")
    return k, [f"{k} = {kc}", f"if {k} == NULL or {k} >= ZN[{row}] or {k} < -ZN[{row}]:",
               f"    RI[{RI_ERROR}] = {ERR_LIST_ENTRY}", "    return", f"if {k} < 0:", f"    {k} += ZN[{row}]"]


def _set_value_entry(low, entry: Entry, r, path):
    """``set: {"name[k]": v}`` of a list of single values: ``(value lines, store lines)``."""
    from .lowtypes import ListT, NotTyped
    from .compound import TupleV
    if isinstance(r, (ListT, TupleV, MapV)):
        raise NotTyped(f"an entry of {entry.name!r} (a list of single values) set to a list or map", path)
    code, vt = r
    _register(low, entry.name, vt)
    row, _ = low.list_rows[entry.name]
    k, value = _index_lines(low, entry, row, path)
    t = low.fresh("t")
    return value + [f"{t} = {code}"], [f"Z[{row}, {k}] = {t}"]


def around_gather(low, lines):
    """``gather`` lines keeping the lengths of the list variables' rows (gather empties every row)."""
    rows = low.list_rows
    if not rows:
        return lines
    keep = {row: low.fresh("t") for row, _ in rows.values()}
    return [f"{t} = ZN[{row}]" for row, t in keep.items()] + lines + [f"ZN[{row}] = {t}" for row, t in keep.items()]
