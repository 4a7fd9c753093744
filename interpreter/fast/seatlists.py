"""``without(xs, ys)`` of lists of numbers (seats) in the typed kernel.

The step API's ``without`` leaves out the items of ``xs`` that *are* items of ``ys`` (by identity,
:func:`interpreter.expr.builtins._without`). For whole numbers from -5 to 256 (seats among them)
and for yes/no values and null, Python keeps one object per value, so identity is equality: the
kernel leaves out an item equal to one of ``ys``. A number outside that range equal to one of
``ys`` may or may not be the same object: the game is flagged there
(:data:`~interpreter.fast.lowtypes.ERR_INDEX`) and replayed in the step API. Every line comes from
the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import BOOL, ERR_INDEX, INT, NUL, RI_ERROR, ListT, NotTyped, _indent

SMALL = (-5, 256)  # the whole numbers CPython keeps one object for


def numbers(lst) -> bool:
    """Whether ``lst`` (a ListT) holds numbers, yes/no values or nothing."""
    return lst.elem in (INT, BOOL, NUL)


def without(low, xs, ys):
    """``without(xs, ys)`` of lists of numbers as a ListT (see the module's doc)."""
    if BOOL in (xs.elem, ys.elem) and INT in (xs.elem, ys.elem):
        raise NotTyped("without() of numbers and yes/no values", low.path)
    if xs.length == "0" or ys.length == "0":
        return xs

    def loop(var, body):
        y, found = low.fresh("v"), low.fresh("t")
        return xs.loop(var, [f"{found} = False"] + ys.loop(y, [f"if {y} == {var}:", f"    {found} = True"]) +
                       [f"if {found} and {var} != NULL and ({var} < {SMALL[0]} or {var} > {SMALL[1]}):",
                        f"    RI[{RI_ERROR}] = {ERR_INDEX}",
                        f"if not {found}:"] + _indent(body))
    return ListT(xs.elem if xs.elem != NUL else ys.elem, loop, refs=xs.refs | ys.refs)
