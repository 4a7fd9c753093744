"""``meld_kind(cards)`` in the typed kernel: the name of the first of the spec's meld kinds, in
their order, the cards are a meld of, or null (:func:`interpreter.expr.melds.meld_kind`); each kind
decided by :mod:`interpreter.fast.melds` (sets) and :mod:`interpreter.fast.meldruns` (runs). Every
line comes from the fixed templates there, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import TEXT, NotTyped
from . import bestmelds, melds


def call_meld_kind(low, args, env):
    """``meld_kind(cards)``: the name (a text) of the first of the spec's meld kinds, in their
    order, the cards are a meld of, or null (:mod:`interpreter.fast.melds` decides each kind)."""
    if len(args) != 1:
        raise NotTyped("meld_kind with other than one list of cards", low.path)
    kinds = melds._kinds(low, None, env, "meld_kind", runs=True)
    lines, row, n = melds._held(low, bestmelds.meld_list(low, args[0], env), env)
    out, one = low.fresh("t"), low.fresh("t")
    lines += [f"{out} = NULL"]
    for name, d in kinds:
        lines += melds._valid_lines(low, d, row, n, one, env, name) + \
            [f"if {out} == NULL and {one}:", f"    {out} = {low.text(str(name))}"]
    low.depth -= 1
    return low.helper(env, lines, out), TEXT
