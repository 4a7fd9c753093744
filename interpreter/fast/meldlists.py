"""``melds_in(cards, 'KIND'[, size])`` listed in the typed kernel (:mod:`interpreter.fast.typepass`),
for a kind of the *set* form, wild cards too (``wild``, ``min_natural``, ``max_wild``): the melds in
the step API's order (:func:`interpreter.expr.melds.melds_in`): the natural cards grouped by
``key`` in order of first appearance; per group, ``k`` natural cards from ``min_natural`` (at
least 1) up to the group's size, every choice of ``k`` of them in ``itertools.combinations``
order; per choice, the fewest wild cards the size needs up to the most it allows and the cards
hold, the wild cards being the first ones of the list. A meld is its naturals in the list's order
then its wild cards. (The step API's check of each meld and its removal of repeated melds change
nothing for a set kind over distinct cards.) Past MAX_ITEMS melds the game is flagged (the count
of :func:`interpreter.fast.melds.melds_in`) and replayed in the step API, which raises its error.

Each place that lists the melds has its own slots of ``MEMO`` (the cards, their keys, the
naturals, a group, the wild cards, a choice and the meld at hand: ``ncards`` slots each). The
item a comprehension binds is the meld's length, of type ``meld at MEMO[base]``: read as a list
(:func:`as_list`), it is the cards ``MEMO[base : base + length]``. Every line comes from the fixed
templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import CARD, ListT, NotTyped, _indent, _names
from . import groups

_PREFIX = "meld at MEMO "


def is_listed_meld(ty) -> bool:
    """Whether ``ty`` is the type of a meld this module lists."""
    return isinstance(ty, str) and ty.startswith(_PREFIX)


def as_list(low, r):
    """A group of :mod:`interpreter.fast.groups` (``(code, type)``) read as a ListT of its items;
    NotTyped for a meld listed here kept past its loop (``first(melds_in(...))``: the slots then
    hold another meld); anything else as it is."""
    r = groups.as_list(low, r)
    if isinstance(r, tuple) and is_listed_meld(r[1]):
        raise NotTyped("a meld of melds_in() kept past its loop (first, last, a variable...): lowered only "
                       "as the name a comprehension over melds_in() binds", low.path)
    return r


def bind(low, inner, elem):
    """What a comprehension over a list of items of type ``elem`` binds its name to when the
    item is a meld listed here or a group (a ListT of its cards or items), else None."""
    if isinstance(elem, str) and elem.startswith(groups.PREFIX):
        return groups.as_list(low, (inner, elem))
    if not is_listed_meld(elem):
        return None
    code, base = inner, int(elem[len(_PREFIX):])

    def loop(var, body):
        i = low.fresh("i")
        return [f"for {i} in range({code}):", f"    {var} = MEMO[{base} + {i}]"] + _indent(body)
    return ListT(CARD, loop, length=f"({code})", refs=_names(code))


def listed(low, d, args, env, count):
    """The melds of ``melds_in(args...)`` of the set kind ``d`` as a ListT (``count``: the code of
    their number, which also flags a game past MAX_ITEMS)."""
    if d.get("form") != "set":
        raise NotTyped("melds_in() of a run kind other than counted", low.path)
    nc = max(1, low.ncards)
    base = [low.memo_slot() for _ in range(7 * nc)][0]
    cb, kb, nb, gb, wb, xb, mb = (base + j * nc for j in range(7))
    src = low.lst(args[0], env)
    size = low.scalar(args[2], env)[0] if len(args) == 3 else None
    lo, hi = int(d.get("min", 3)), d.get("max")

    def loop(var, body):
        cv = low.fresh("v")
        cenv = {k: v for k, v in env.items() if k.startswith("$")}
        cenv["c"] = (cv, CARD)
        wild = low.truth(parse(str(d["wild"])), cenv) if d.get("wild") is not None else "False"
        key, kt = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)
        if kt == CARD:
            raise NotTyped("a meld key that is a card", low.path)
        n, nw, nat, lo_s, hi_s, s, most, a, b, dup, m, kk, need, top, j, jj, w, going, flag = \
            (low.fresh("t") for _ in range(19))
        v = low.fresh("v")
        lines = [f"{flag} = {count}", f"{n} = 0"] + src.loop(v, [f"MEMO[{cb} + {n}] = {v}", f"{n} += 1"])
        lines += [f"{lo_s} = {lo}", f"{hi_s} = {int(hi) if hi is not None else -1}"]
        if size is not None:
            lines += [f"{s} = {size}", f"if {s} > {lo_s}:", f"    {lo_s} = {s}",
                      f"if {hi_s} < 0 or {s} < {hi_s}:", f"    {hi_s} = {s}"]
        lines += [f"{nw} = 0", f"{nat} = 0", f"for {a} in range({n}):", f"    {cv} = MEMO[{cb} + {a}]",
                  f"    if {wild}:", f"        MEMO[{wb} + {nw}] = {cv}", f"        {nw} += 1", "    else:",
                  f"        MEMO[{kb} + {nat}] = {key}", f"        MEMO[{nb} + {nat}] = {cv}", f"        {nat} += 1",
                  f"{most} = " + (f"min({nw}, {int(d['max_wild'])})" if d.get("max_wild") is not None else nw),
                  f"for {a} in range({nat}):",
                  f"    {dup} = {hi_s} >= 0 and {lo_s} > {hi_s}",
                  f"    for {b} in range({a}):", f"        if MEMO[{kb} + {b}] == MEMO[{kb} + {a}]:", f"            {dup} = True",
                  f"    {m} = 0",
                  f"    for {b} in range({nat}):", f"        if not {dup} and MEMO[{kb} + {b}] == MEMO[{kb} + {a}]:",
                  f"            MEMO[{gb} + {m}] = {b}", f"            {m} += 1",
                  f"    for {kk} in range({max(int(d.get('min_natural', 1)), 1)}, {m} + 1):",
                  f"        {need} = max(0, {lo_s} - {kk})", f"        {top} = {most}",
                  f"        if {hi_s} >= 0 and {hi_s} - {kk} < {top}:", f"            {top} = {hi_s} - {kk}",
                  f"        for {j} in range({kk}):", f"            MEMO[{xb} + {j}] = {j}",
                  f"        {going} = {need} <= {top}",
                  f"        while {going}:",
                  f"            for {j} in range({kk}):", f"                MEMO[{mb} + {j}] = MEMO[{nb} + MEMO[{gb} + MEMO[{xb} + {j}]]]",
                  f"            for {w} in range({need}, min({top}, {nw}) + 1):",
                  f"                for {j} in range({w}):", f"                    MEMO[{mb} + {kk} + {j}] = MEMO[{wb} + {j}]",
                  f"                {var} = {kk} + {w}"] + _indent(body, 4) + [
                  f"            {j} = {kk} - 1",
                  f"            while {j} >= 0 and MEMO[{xb} + {j}] == {m} - {kk} + {j}:", f"                {j} -= 1",
                  f"            if {j} < 0:", f"                {going} = False",
                  "            else:", f"                MEMO[{xb} + {j}] += 1",
                  f"                for {jj} in range({j} + 1, {kk}):",
                  f"                    MEMO[{xb} + {jj}] = MEMO[{xb} + {jj} - 1] + 1"]
        return lines
    return ListT(_PREFIX + str(mb), loop, length=count, refs=src.refs)
