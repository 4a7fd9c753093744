"""List built-ins of the typed kernel (see :mod:`interpreter.fast.typepass`: a list is a loop
written where it is read, no list is built): ``without(xs, ys)``, ``sort_by(xs, x => KEY)`` and
slicing ``xs[a:b]`` (``product()`` is in :mod:`interpreter.fast.compound`, with the other tuples).

- ``without(xs, ys)``: the cards of ``xs`` that are not in ``ys``, in ``xs``'s order. The step API
  compares by identity, which for cards is the card; numbers and texts (whose identity Python
  does not promise) do not type.
- ``sort_by`` is the step API's ``sorted(xs, key=...)``: stable (equal keys keep the list's order),
  whole-number (or yes/no) keys. It keeps nothing: each round of its loop picks the next item by
  (key, place) among those after the last one picked, so it needs no rows of the state (a hand of
  ``n`` cards costs ``n * n`` key readings; the lists a spec sorts are hands). A null key among two
  or more items (the step API cannot compare it) flags :data:`~interpreter.fast.teams.RI_INDEX_ERROR`
  and the step API replays the game to its own error.
- ``xs[a:b]`` follows Python's rules as the step API does: a missing or null bound is the start or
  the end, a negative one counts from the end, bounds past either end are clipped. Slicing a text
  does not type.

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, CARD, INT, NUL, RI_ERROR, ListT, NotTyped, _indent, _names
from . import seatlists


def call_without(low, args, env):
    """``without(xs, ys)`` as a ListT of cards."""
    if len(args) != 2:
        raise NotTyped("without() with other than two lists", low.path)
    xs, ys = low.lst(args[0], env), low.lst(args[1], env)
    if seatlists.numbers(xs) and seatlists.numbers(ys):  # numbers (seats): seatlists.py
        return seatlists.without(low, xs, ys)
    for lst in (xs, ys):
        if lst.elem not in (CARD, NUL):
            raise NotTyped(f"without() of a list of {lst.elem}s (the step API compares items by identity: "
                           "cards only here)", low.path)
    if xs.length == "0" or ys.length == "0":
        return xs

    def loop(var, body):
        y, found = low.fresh("v"), low.fresh("t")
        return xs.loop(var, [f"{found} = False"] + ys.loop(y, [f"if {y} == {var}:", f"    {found} = True"]) +
                       [f"if not {found}:"] + _indent(body))
    return ListT(CARD, loop, refs=xs.refs | ys.refs)


def sort_by(low, args, env):
    """``sort_by(xs, x => KEY)`` as a ListT (``low``: the Lowering)."""
    from .compound import require_scalar_items
    from .teams import RI_INDEX_ERROR
    if len(args) != 2 or getattr(args[1], "data", None) != "lambda_":
        raise NotTyped("sort_by without a lambda (sort_by(xs, x => KEY))", low.path)
    src = low.lst(args[0], env)
    require_scalar_items(low, src, "sort_by")
    lam_var, lam_body = args[1].children
    path = low.path

    def key_of(w):
        env2 = dict(env)
        env2[str(lam_var)] = (w, src.elem)
        low.path = path
        kc, kt = low.scalar(lam_body, env2)
        if kt not in (INT, BOOL, NUL):
            raise NotTyped(f"sort_by by a {kt} (the kernel sorts by numbers)", path)
        return kc

    probe = low.fresh("v")
    reads = _names(key_of(probe)) - {probe}  # (types the key now: a key that does not type says so here)

    def loop(var, body):
        n, r, pk, pp, bk, bp, p, k, x = (low.fresh("t") for _ in range(9))
        w = low.fresh("v")
        count = [f"{n} = 0"] + src.loop(w, [f"{n} += 1"])
        better = f"({k} > {pk} or ({k} == {pk} and {p} > {pp})) and ({bp} == -1 or {k} < {bk} or " \
                 f"({k} == {bk} and {p} < {bp}))"
        pick = [f"{k} = {key_of(w)}", f"if {k} == NULL and {n} > 1:", f"    RI[{RI_ERROR}] = {RI_INDEX_ERROR}",
                f"if {better}:", f"    {bk} = {k}", f"    {bp} = {p}", f"    {x} = {w}", f"{p} += 1"]
        rounds = [f"{bk} = NULL", f"{bp} = -1", f"{p} = 0", f"{x} = NULL"] + src.loop(w, pick) + \
            [f"{var} = {x}"] + body + [f"{pk} = {bk}", f"{pp} = {bp}"]
        return count + [f"{pk} = NULL", f"{pp} = -1", f"for {r} in range({n}):"] + _indent(rounds)
    return ListT(src.elem, loop, length=src.length, refs=set(src.refs) | reads)


def slice_list(low, t, env):
    """``xs[a:b]`` (``t`` the slice node) of a list as a ListT; NotTyped for a text."""
    from .compound import require_scalar_items
    obj = low.e(t.children[0], env)
    if not isinstance(obj, ListT):
        raise NotTyped(f"slicing a {obj[1] if isinstance(obj, tuple) else 'value'} (the kernel slices lists only)",
                       low.path)
    require_scalar_items(low, obj, "slicing")
    bounds = []
    for c in t.children[1:3]:
        if c is None:
            bounds.append("NULL")
            continue
        code, ty = low.scalar(c, env)
        if ty not in (INT, NUL):
            raise NotTyped(f"a slice bound that is a {ty}", low.path)
        bounds.append(code)

    def loop(var, body):
        n, lo, hi, c = (low.fresh("t") for _ in range(4))
        w = low.fresh("v")
        count = [f"{n} = {obj.length}"] if obj.length is not None else [f"{n} = 0"] + obj.loop(w, [f"{n} += 1"])
        lines = count
        for name, code, empty in ((lo, bounds[0], "0"), (hi, bounds[1], n)):
            b = low.fresh("t")  # (one assignment of each name: numba's generators type them so)
            lines += [f"{b} = {code}",
                      f"{name} = {empty} if {b} == NULL else max({b} + {n}, 0) if {b} < 0 else min({b}, {n})"]
        return lines + [f"{c} = 0"] + obj.loop(w, [f"if {c} >= {lo} and {c} < {hi}:", f"    {var} = {w}"] +
                                            _indent(body) + [f"{c} += 1"])
    return ListT(obj.elem, loop, refs=set(obj.refs) | _names(*bounds))
