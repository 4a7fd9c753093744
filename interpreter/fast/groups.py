"""``values(group_by(xs, x => KEY))`` in the typed kernel (:mod:`interpreter.fast.typepass`), as the
step API's ``_group_by`` and ``_values``: the lists of the items of ``xs`` with equal keys, in order
of each key's first appearance, each list in the order of ``xs`` (``[first(g) for g in
values(group_by(h, c => c.name))]``: one card of each name). Lowered for a list of single values
(cards, numbers) whose key is a number, a text or a card; the groups are read as lists only.

Each place has its own slots of ``MEMO`` (the length, the items, their keys); the item a
comprehension binds is the position of its group's first item, of type ``group at MEMO base``,
read as a list by :func:`as_list`. Every line comes from the fixed templates below, whose holes
are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, CARD, INT, TEXT, ListT, NotTyped, _indent, _names
from . import compound

PREFIX = "group at MEMO "


def as_list(low, r):
    """A group bound by a comprehension (``(code, type)``) as a ListT of its items; else as it is."""
    if not (isinstance(r, tuple) and isinstance(r[1], str) and r[1].startswith(PREFIX)):
        return r
    base, elem = r[1][len(PREFIX):].split(" of ", 1)
    base, code, nc = int(base), r[0], max(1, low.ncards)

    def loop(var, body):
        i = low.fresh("i")
        return [f"for {i} in range(MEMO[{base}]):", f"    if MEMO[{base} + 1 + {nc} + {i}] == MEMO[{base} + 1 + {nc} + {code}]:",
                f"        {var} = MEMO[{base} + 1 + {i}]"] + _indent(body, 2)
    return ListT(elem, loop, refs=_names(code))


def call_values(low, args, env):
    """``values(group_by(xs, x => KEY))`` as a ListT of groups; NotTyped for other maps."""
    if len(args) != 1 or getattr(args[0], "data", None) != "call" or str(args[0].children[0]) != "group_by":
        raise NotTyped("values() of other than group_by(...)", low.path)
    gargs = [a for a in args[0].children[1:] if a is not None]
    if len(gargs) != 2 or getattr(gargs[1], "data", None) != "lambda_":
        raise NotTyped("group_by without a list and a lambda", low.path)
    src = low.lst(gargs[0], env)
    compound.require_scalar_items(low, src, "group_by")
    if src.elem not in (CARD, INT, BOOL, TEXT):
        raise NotTyped(f"group_by of a list of {src.elem}s", low.path)
    nc = max(1, low.ncards)
    if src.length is not None and src.zone is None and src.elem != CARD:
        raise NotTyped("group_by of a list that is not of cards", low.path)
    base = [low.memo_slot() for _ in range(1 + 2 * nc)][0]
    lam_var, lam_body = gargs[1].children

    def loop(var, body):
        v, n, a, b, dup = low.fresh("v"), low.fresh("t"), low.fresh("i"), low.fresh("i"), low.fresh("t")
        env2 = dict(env)
        env2[str(lam_var)] = (v, src.elem)
        kcode, kt = low.scalar(lam_body, env2)
        if kt not in (INT, BOOL, TEXT, CARD):
            raise NotTyped(f"group_by by a {kt}", low.path)
        lines = [f"{n} = 0"] + src.loop(v, [f"if {n} < {nc}:", f"    MEMO[{base} + 1 + {n}] = {v}",
                                            f"    MEMO[{base} + 1 + {nc} + {n}] = {kcode}", f"{n} += 1"])
        lines += [f"MEMO[{base}] = min({n}, {nc})",
                  f"for {a} in range(MEMO[{base}]):", f"    {dup} = False", f"    for {b} in range({a}):",
                  f"        if MEMO[{base} + 1 + {nc} + {b}] == MEMO[{base} + 1 + {nc} + {a}]:", f"            {dup} = True",
                  f"    if not {dup}:", f"        {var} = {a}"] + _indent(body, 2)
        return lines
    return ListT(f"{PREFIX}{base} of {src.elem}", loop, refs=src.refs)
