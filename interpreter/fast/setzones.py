"""Zones of sets (``zones: {NAME: {sets: true}}``) in the typed kernel (:mod:`interpreter.fast.typepass`).

The step API keeps such a zone as a list of sets, each a list of cards (a player's, for a
per-player zone); a move to the zone without an index opens a new set at the end, a move to
``ZONE[k]`` adds to set ``k`` (0-based, negative from the end), and a set left empty by a move
disappears (the sets after it move down one).

Layout: every set is a row of ``Z``. A zone of sets has a block of ``ncards`` rows per owner (as
many sets as the game has cards: a set holds a card), and one spare row after its blocks. The sets
of a block are its first rows, in order, each holding a card; the first empty row is the end, so
a new set is the first empty row (moving nothing into it leaves it empty: no set opened, as in the
step API). After every move in a game with zones of sets the blocks are compacted: a row left
empty is dropped and the rows after it move down (``LOC`` follows). ``ZONE[k]`` out of range flags
the game (``RI_ERROR`` 7: the step API replays it and raises its located error) and reads the
spare row.

Read as a value, a zone of sets is a list whose items are its sets (type :data:`SET`, the row of
one set): it can be counted, indexed (``p.melds[k]``, a zone) and looped over in a comprehension,
where the name bound to a set reads as that set's cards. A set is not a value of its own (a
variable, a ``for`` step's snapshot or a comparison do not type: rows move when sets drop out).

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import ERR_INDEX, RI_ERROR, ListT, NotTyped, _indent, _names

SET = "set of cards"  # the item type of a zone of sets read as a list (the row of Z of one set)


def layout(low, name: str, zd) -> int:
    """Record zone ``name`` (a zone of sets) in ``low.set_zones`` (name -> rows per owner) and
    return how many rows of Z it takes (its blocks and the spare row)."""
    ks = max(1, low.ncards)
    low.set_zones[name] = ks
    return (low.maxp if zd.per_player else 1) * ks + 1


def span(low, name: str) -> int:
    """Rows of Z per owner of zone ``name``: ``ncards`` for a zone of sets, else 1."""
    return low.set_zones.get(name, 1)


def _block(low, name: str, owner) -> str:
    base = low.zone_row[name]
    return str(base) if owner is None else f"{base} + ({owner}) * {low.set_zones[name]}"


def _count_lines(low, name, owner, n):
    b = low.fresh("t")
    return [f"{b} = {_block(low, name, owner)}", f"{n} = 0", f"while {n} < {low.set_zones[name]} and ZN[{b} + {n}] > 0:",
            f"    {n} += 1"], b


def sets_list(low, name: str, owner, env) -> ListT:
    """Zone of sets ``name`` (of seat code ``owner``, or None for a game zone) as a list of its
    sets (items of type SET)."""
    n = low.fresh("t")
    lines, _ = _count_lines(low, name, owner, n)
    length = low.helper(env, lines, n)
    ks = low.set_zones[name]

    def loop(var, body):
        b, i = low.fresh("t"), low.fresh("t")
        return [f"{b} = {_block(low, name, owner)}", f"{i} = 0", f"while {i} < {ks} and ZN[{b} + {i}] > 0:",
                f"    {var} = {b} + {i}", f"    {i} += 1"] + _indent(body)
    out = ListT(SET, loop, length=length, refs=_names(str(owner)) if owner is not None else ())
    out.sets = (name, owner)  # (what a definition returning it names: see _found)
    return out


def _zone_of(low, tree):
    """``(zone name, owner tree or None)`` when ``tree`` names a zone of sets, else None."""
    if tree.data == "name" and str(tree.children[0]) in low.set_zones and not low.per_player[str(tree.children[0])]:
        return str(tree.children[0]), None
    if tree.data == "attr" and str(tree.children[1]) in low.set_zones and low.per_player[str(tree.children[1])]:
        return str(tree.children[1]), tree.children[0]
    return None


def _found(low, tree, env):
    """``(zone name, owner code or None)`` when ``tree`` names a zone of sets, directly or as a
    definition that returns one (``melds_of(p)`` defined as ``side(p).melds``), else None."""
    found = _zone_of(low, tree)
    if found is not None:
        return found[0], _owner_code(low, found[1], env, found[0])
    if tree.data != "call" or str(tree.children[0]) not in low.defines:
        return None
    try:
        r = low.e(tree, env)
    except NotTyped:
        return None
    return getattr(r, "sets", None)


def _owner_code(low, owner_tree, env, name=None):
    if owner_tree is None:
        return None
    from .partread import seat
    code, ty = seat(low, *low.scalar(owner_tree, env), env)  # (a number or a text: partread.py)
    if ty not in ("int", "bool"):
        raise NotTyped(f"a zone of sets of a {ty}", low.path)
    from . import teamzones
    return code if name is None else teamzones.seat(low, name, code, env)  # (a zone per team: the team's slot)


def set_row(low, t, env):
    """``ZONE[k]`` (``t`` the index node) of a zone of sets: the code of the row of that set,
    or None when ``t`` does not index a zone of sets."""
    obj, key = t.children
    found = _found(low, obj, env)
    if found is None:
        return None
    name, owner = found
    kc, kt = low.scalar(key, env)
    if kt not in ("int", "bool", "null"):
        raise NotTyped(f"a set of a zone of sets indexed by a {kt}", low.path)
    n, k, out = low.fresh("t"), low.fresh("t"), low.fresh("t")
    lines, b = _count_lines(low, name, owner, n)
    spare = low.zone_row[name] + (low.maxp if low.per_player[name] else 1) * low.set_zones[name]
    lines += [f"{k} = {kc}", f"if {k} < 0:", f"    {k} += {n}", f"{out} = {spare}",
              f"if {k} >= 0 and {k} < {n}:", f"    {out} = {b} + {k}", "else:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
    return low.helper(env, lines, out)


def index(low, t, env):
    """``ZONE[k]`` read as a value: the cards of that set (a zone list), or None."""
    row = set_row(low, t, env)
    return None if row is None else low.zone_list(row)


def read(low, tree, env):
    """A zone of sets read as a value (``p.melds``, or a game zone's name): its list of sets, or None."""
    found = _zone_of(low, tree)
    if found is None:
        return None
    name, owner_tree = found
    return sets_list(low, name, _owner_code(low, owner_tree, env, name), env)


def zone_code(low, text: str, env):
    """The row a zone reference ``text`` names when it is (one set of) a zone of sets: ``ZONE[k]``
    that set, ``ZONE`` alone a new set (its block's first empty row; past the last, the spare row
    and the game flagged). None when ``text`` names no zone of sets."""
    if not low.set_zones:
        return None
    tree = parse(text)
    if tree.data == "index":
        return set_row(low, tree, env)
    found = _found(low, tree, env)
    if found is None:
        return None
    name, owner = found
    n, out = low.fresh("t"), low.fresh("t")
    lines, b = _count_lines(low, name, owner, n)
    spare = low.zone_row[name] + (low.maxp if low.per_player[name] else 1) * low.set_zones[name]
    lines += [f"{out} = {b} + {n}", f"if {n} >= {low.set_zones[name]}:", f"    {out} = {spare}",
              f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
    return low.helper(env, lines, out)


def after_move(low, env) -> list:
    """Lines run after a move in a game with zones of sets: every block compacted (a set left
    empty drops out, the sets after it move down; ``LOC`` follows). No lines without such zones."""
    out = []
    for name, ks in low.set_zones.items():
        o, b, w, i, r, d, j, c = (low.fresh("t") for _ in range(8))
        owners = "NP" if low.per_player[name] else "1"
        lines = [f"for {o} in range({owners}):", f"    {b} = {low.zone_row[name]} + {o} * {ks}", f"    {w} = 0",
                 f"    for {i} in range({ks}):", f"        {r} = {b} + {i}", f"        if ZN[{r}] > 0:",
                 f"            if {w} != {i}:", f"                {d} = {b} + {w}",
                 f"                for {j} in range(ZN[{r}]):", f"                    {c} = Z[{r}, {j}]",
                 f"                    Z[{d}, {j}] = {c}", f"                    LOC[{c}] = {d}",
                 f"                ZN[{d}] = ZN[{r}]", f"                ZN[{r}] = 0", f"            {w} += 1"]
        # (given RI, read as its value: a helper that writes is never hoisted, see typepass._hoist)
        out.append(f"{low.fresh('t')} = {low.helper(env, lines, f'RI[{RI_ERROR}]')}")
    return out


def refuse_item(low, ty, what: str):
    """NotTyped when a value of type ``ty`` is one set of a zone of sets (``what`` cannot take it)."""
    if ty == SET:
        raise NotTyped(f"{what}: one set of a zone of sets as a value (sets are counted, indexed and "
                       "looped over in a comprehension)", low.path)
