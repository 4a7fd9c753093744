"""Game variables whose default is a non-empty list of single values that a step sets, in the typed
kernel: ``blocked: [null, null, null, null]`` then ``set: {"blocked[i]": p}`` or ``set: {blocked:
"[null for i in pawn_ids]"}``. A list no step sets stays a constant list (written where it is read,
:meth:`~interpreter.fast.teams.TeamsAndIndexing.constant_list`); this one is a list variable of
:mod:`interpreter.fast.listvars` (one row of ``Z``) that starts with its default's items instead of
``[]``: the flow's first lines write them (a row of ``Z`` holding values, not cards, cannot start in
``ZINIT``: ``new_game`` marks the place of every card it finds there). Its items' type is the
default's (a list of nulls only: numbers, as any variable only ever null), joined as steps set it.

Generated code comes only from the fixed templates below (integer holes, generated names).
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import EMPTY, INT, NUL, _join, NotTyped


def set_by_step(spec, name: str) -> bool:
    """Whether a ``set``/``add``/``random`` step anywhere in the spec's flow or phases writes game
    variable ``name`` or one of its entries (``name[k]``)."""
    def walk(x):
        if isinstance(x, list):
            return any(walk(y) for y in x)
        if not isinstance(x, dict):
            return False
        for key in ("set", "add", "random"):
            targets = x.get(key)
            if isinstance(targets, dict):
                for t in targets:
                    try:
                        tree = parse(str(t))
                    except Exception:  # (a target the loader refused already: not this variable's)
                        continue
                    if tree.data == "index":
                        tree = tree.children[0]
                    if tree.data == "name" and str(tree.children[0]) == name:
                        return True
        return any(walk(y) for y in x.values())
    return walk(spec.get("flow")) or walk(spec.get("phases"))


def declare(low, name: str, items: list):
    """Keep ``name``'s starting items (registered as a list variable by :func:`register`); returns the
    variable's type marker (its value lives in rows of ``Z``, not in ``GV``)."""
    if not hasattr(low, "list_starts"):
        low.list_starts = {}
    low.list_starts[name] = list(items)
    return EMPTY


def register(low) -> None:
    """Rows of ``Z`` for every declared variable, typed by its items (called once ``list_rows`` exists)."""
    from .listvars import _register
    for name, items in getattr(low, "list_starts", {}).items():
        ty = NUL
        for x in items:
            ty = _join(ty, low.type_of_value(x, f"an item of variable {name}"))
            if ty is None:
                raise NotTyped(f"variable {name!r} starts as a list of values of several kinds", f"variables.{name}")
        _register(low, name, INT if ty == NUL else ty)


def start_lines(low) -> list:
    """The flow's first lines: each declared variable's row of ``Z`` set to its starting items."""
    out = []
    for name, items in getattr(low, "list_starts", {}).items():
        row = low.list_rows[name][0]
        out += [f"Z[{row}, {i}] = {low.value(x, f'an item of variable {name}')}" for i, x in enumerate(items)]
        out.append(f"ZN[{row}] = {len(items)}")
    return out
