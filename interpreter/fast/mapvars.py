"""Game variables holding a map whose keys are known only at run time, in the typed kernel: a
variable that starts as ``{}`` (``taken: {}``), set whole to a map literal (``set: {taken:
"{}"}``), its entries set or added to by a key computed in the game (``set: {"taken[x]": v}``,
``add: {"m[k]": 1}``), read (``m[k]``: null for a key it does not hold, as the step API's map) and
tested (``k in m``, ``k not in m``). Its keys and its values are single values (numbers, texts,
cards, null), each of one kind.

Such a map is kept in two rows of ``Z`` after the zones' (and the list variables') rows: the keys
in the first, the values in the second, in the order the step API's map keeps them (the order the
keys were first set), with the number of entries in ``ZN`` of the first row; at most as many
entries as a row holds (``MAX_LIST``, or the number of cards if more): a longer map stops the
kernel's game (error 6), which the step API then replays. ``gather`` keeps the rows as they are.
Reading the whole map any other way (``count(m)``, ``for k in m``, passing it to a built-in) does
not type: NotTyped names the variable. Generated code comes only from the fixed templates below
(integer holes, generated names).
"""
from __future__ import annotations

from .compound import MapV
from . import groupmaps
from .lowtypes import BOOL, INT, NUL, RI_ERROR, ListT, NotTyped, _join, _known

GMAP = "game map"  # the type marker of such a variable in ``gtypes``


class Target:
    """The target ``m[k]`` of a set/add step: the variable's name and the key's expression."""

    def __init__(self, name, key_tree, env):
        self.name, self.key_tree, self.env = name, key_tree, env


def game_map(low, v, path):
    """GMAP when ``v`` (the default of ``variables.NAME``) is ``{}``: two rows of ``Z`` taken for it
    (kept in ``low.gmaps``); NotTyped for a map with entries at the start; else None."""
    if not (path.startswith("variables.") and isinstance(v, dict)):
        return None
    name = path[len("variables."):]
    if v:
        raise NotTyped(f"variable {name} starts as a map with entries (the kernel keeps a game variable's map "
                       f"that starts as {{}})", path)
    low.gmaps[name] = low.rows
    low.gmap_types[name] = (NUL, NUL)
    low.rows += 2
    return GMAP


def is_game_map(low, tree) -> bool:
    """Whether ``tree`` is the name of such a variable."""
    return getattr(tree, "data", None) == "name" and str(tree.children[0]) in low.gmaps


def read_whole(low, name):
    raise NotTyped(f"variable {name!r} (a map) read whole: the kernel reads its entries ({name}[key]) and "
                   f"tests its keys (key in {name})", low.path)


def _learn(low, name, kt=None, vt=None):
    """Join the key and value types seen; NotTyped when they take two kinds."""
    okt, ovt = low.gmap_types[name]
    nkt = _join(okt, kt) if kt is not None else okt
    nvt = _join(ovt, vt) if vt is not None else ovt
    if nkt is None or nvt is None:
        which = "keys" if nkt is None else "values"
        raise NotTyped(f"variable {name!r} (a map) holds {which} of several kinds", low.path)
    if (nkt, nvt) != (okt, ovt):
        low.gmap_types[name] = (nkt, nvt)
        low.changed = True


def _same_kind(low, name, kt) -> bool:
    okt = low.gmap_types[name][0]
    return NUL in (okt, kt) or _join(okt, kt) is not None


def _find(low, row, key, at):
    """Lines setting ``at`` to the place of ``key`` among the map's entries, or -1."""
    i = low.fresh("i")
    return [f"{at} = -1", f"for {i} in range(ZN[{row}]):", f"    if Z[{row}, {i}] == {key}:", f"        {at} = {i}",
            "        break"]


def entry(low, t, env):
    """``m[k]`` read: ``(code, type)``."""
    name = str(t.children[0].children[0])
    if groupmaps.is_group_map(low, name):  # (groupmaps.py)
        return groupmaps.entry(low, name, t.children[1], env)
    kc, kt = low.scalar(t.children[1], env)
    row = low.gmaps[name]
    vt = _known(low.gmap_types[name][1])
    if not _same_kind(low, name, kt):
        return "NULL", vt  # a key of another kind is never there
    key, at, out = low.fresh("t"), low.fresh("t"), low.fresh("t")
    lines = [f"{key} = {kc}"] + _find(low, row, key, at) + \
        [f"{out} = NULL", f"if {at} >= 0:", f"    {out} = Z[{row + 1}, {at}]"]
    return low.helper(env, lines, out), vt


def contains(low, t, env):
    """``k in m``: ``(code, type)``, or None when the list side is not such a map."""
    x, coll = t.children
    if not is_game_map(low, coll):
        return None
    name = str(coll.children[0])
    if groupmaps.is_group_map(low, name):  # (groupmaps.py)
        return groupmaps.contains(low, name, x, env)
    kc, kt = low.scalar(x, env)
    if not _same_kind(low, name, kt):
        return "0", BOOL
    row = low.gmaps[name]
    key, at = low.fresh("t"), low.fresh("t")
    return low.helper(env, [f"{key} = {kc}"] + _find(low, row, key, at), f"({at} >= 0)"), BOOL


def set_entry(low, target: Target, r, add: bool, path):
    """``set``/``add`` of ``m[k]``: ``(value lines, store lines)``; a new key is appended."""
    from .compound import TupleV
    if isinstance(r, (ListT, TupleV, MapV)):
        raise NotTyped(f"an entry of variable {target.name!r} (a map) set to a list or map (the kernel keeps "
                       f"single values in a map)", path)
    if groupmaps.is_group_map(low, target.name):
        raise NotTyped(f"an entry of variable {target.name!r} (a map set to group_by) set by a step", path)
    name, row = target.name, low.gmaps[target.name]
    code, vt = r
    if add and vt not in (INT, BOOL):
        raise NotTyped(f"add of a {vt}", path)
    kc, kt = low.scalar(target.key_tree, target.env)
    _learn(low, name, kt, INT if add else vt)
    key, val, at = low.fresh("t"), low.fresh("t"), low.fresh("t")
    value = [f"{key} = {kc}", f"{val} = {code}"]
    put = f"add_null(NULL, {val})" if add else val
    stores = _find(low, row, key, at) + [
        f"if {at} < 0:", f"    {at} = ZN[{row}]",
        f"    if {at} >= len(Z[0]):", f"        RI[{RI_ERROR}] = 6", "        return",
        f"    Z[{row}, {at}] = {key}", f"    Z[{row + 1}, {at}] = {put}", f"    ZN[{row}] = {at} + 1",
        "else:", f"    Z[{row + 1}, {at}] = {f'add_null(Z[{row + 1}, {at}], {val})' if add else val}"]
    return value, stores


def assign(low, name, r, add: bool, path):
    """``set: {m: "{k: v, ...}"}`` (``{}`` empties it): ``(value lines, store lines)``."""
    if isinstance(r, groupmaps.GroupV) and not add:  # set to group_by(...): groupmaps.py
        return groupmaps.assign(low, name, r, path)
    if add or not isinstance(r, MapV) or hasattr(r, "types"):
        raise NotTyped(f"variable {name!r} (a map) {'added to' if add else 'set'} other than to a map literal of "
                       f"single values", path)
    row = low.gmaps[name]
    value, stores = [], [f"ZN[{row}] = 0"]
    if len(r.entries) > 512:
        raise NotTyped(f"variable {name!r} (a map) set to a map literal of more than 512 entries", path)
    for k, (kc, kt, (vc, vt)) in enumerate(r.entries):
        _learn(low, name, kt, vt)
        tmp = low.fresh("t")
        value.append(f"{tmp} = {vc}")
        stores += [f"Z[{row}, {k}] = {kc}", f"Z[{row + 1}, {k}] = {tmp}"]
    if r.entries:
        stores.append(f"ZN[{row}] = {len(r.entries)}")
    return value, stores


def around_gather(low, lines):
    """``gather`` lines keeping the maps' numbers of entries (gather empties every row)."""
    if not low.gmaps:
        return lines
    keep = {row: low.fresh("t") for row in low.gmaps.values()}
    return [f"{t} = ZN[{row}]" for row, t in keep.items()] + lines + [f"ZN[{row}] = {t}" for row, t in keep.items()]
