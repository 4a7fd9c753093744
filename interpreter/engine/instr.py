"""The base of every step instruction (:class:`Instr`) and the plain-data copies instructions
make of values they keep (:func:`_own`, :func:`_copy_plain`).

See :mod:`interpreter.engine.program` for how instructions run: each ``run(state, ctx, frame)``
does its work and sets ``frame[1]``.
"""
from __future__ import annotations


CHOICES = "$choices"


def _own(v):
    """A deep copy of plain data (lists and maps; cards, numbers and texts shared): one slice
    for a flat list."""
    t = type(v)
    if t is list:
        for x in v:
            tx = type(x)
            if tx is list or tx is dict or tx is tuple:
                return [_own(y) for y in v]
        return v[:]
    if t is dict:
        return {k: _own(x) for k, x in v.items()}
    if t is tuple:
        return tuple([_own(x) for x in v])
    return v


class Instr:
    """Base instruction. ``path`` is the spec path of the step it comes from;
    ``step_id`` names that step in the rule-flow graph (for traces)."""

    __slots__ = ("path", "step_id")
    kind = "instr"

    def run(self, state, ctx, frame):  # pragma: no cover - abstract
        raise NotImplementedError


def _copy_plain(v):
    """A deep copy of plain data (lists and maps; cards and scalars shared)."""
    t = type(v)
    if t is dict:
        return {k: _copy_plain(x) for k, x in v.items()}
    if t is list or t is tuple:
        return [_copy_plain(x) for x in v]
    return v
