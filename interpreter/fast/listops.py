"""List built-ins of the typed kernel (:mod:`interpreter.fast.typepass`): ``without(xs, ys)`` and
``product(xs, ys, ...)``, written where the list is consumed (no list is built).

- ``without(xs, ys)``: the cards of ``xs`` that are not in ``ys``, in ``xs``'s order. The step API
  compares by identity, which for cards is the card; numbers and texts (whose identity Python
  does not promise) do not type.
- ``product(xs, ys, ...)``: every combination ``[x, y, ...]``, the first list outermost, as a
  list of tuples (the parts of each item kept apart, see :mod:`interpreter.fast.compound`). A
  product of more than the step API's MAX_ITEMS items flags the game (``RI_ERROR`` 7: the step
  API replays it and raises its error).

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.builtins import MAX_ITEMS
from . import compound
from .lowtypes import CARD, ERR_INDEX, NUL, RI_ERROR, ListT, NotTyped, _indent
from .setzones import refuse_item


def call_without(low, args, env):
    """``without(xs, ys)`` as a ListT of cards."""
    if len(args) != 2:
        raise NotTyped("without() with other than two lists", low.path)
    xs, ys = low.lst(args[0], env), low.lst(args[1], env)
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


def call_product(low, args, env):
    """``product(xs, ys, ...)`` as a ListT of tuples."""
    if len(args) < 2:
        raise NotTyped("product() of fewer than two lists", low.path)
    lists = [low.lst(a, env) for a in args]
    for lst in lists:
        compound.require_scalar_items(low, lst, "product()")
        refuse_item(low, lst.elem, "product()")
    if any(lst.length == "0" for lst in lists):
        from .lowtypes import _empty_list
        return _empty_list()
    refs = set()
    for lst in lists:
        refs |= lst.refs

    def loop(var, body):
        parts = compound.parts_of(var, len(lists))
        total, n, w = low.fresh("t"), low.fresh("t"), low.fresh("v")
        size = [f"{total} = 1"]
        for lst in lists:  # the step API refuses a product of more than MAX_ITEMS items: flagged
            size += [f"{n} = 0"] + lst.loop(w, [f"{n} += 1"]) + [f"{total} *= {n}"]
        size += [f"if {total} > {MAX_ITEMS}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
        core = body
        for p, lst in reversed(list(zip(parts, lists))):
            core = lst.loop(p, core)
        return size + [f"if {total} <= {MAX_ITEMS}:"] + _indent(core)
    return ListT(compound.TupT(lst.elem for lst in lists), loop, refs=refs)
