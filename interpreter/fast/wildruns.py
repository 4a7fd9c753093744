"""Melds of the *run* form with wild cards (``melds: {NAME: {form: run, wild: EXPR, ...}}``) in the
typed kernel, where a meld is checked (``is_meld``, ``meld_kind``, ``lay_offs``: dispatched from
:mod:`interpreter.fast.melds`), as :func:`interpreter.expr.melds._valid` decides them: the cards
distinct, ``min``..``max`` of them, at least ``min_natural`` not wild and at most ``max_wild`` wild,
the natural cards of one ``suit``, no more cards than the span of positions, and some choice of
each natural ace's place (low or high) that leaves the naturals' positions distinct with no more
gaps between the lowest and the highest than there are wild cards.

The span (lowest, highest position over the deck's natural cards, a high ace one above the highest
rank) is the step API's own (``_rank_span``), reckoned once when the module is written: the kind's
``wild`` and ``rank`` must read the card only (a card attribute, a test of attributes); one that
reads the game does not type (NotTyped names the kind). Every line comes from the fixed templates
below, whose holes are generated names and integers.
"""
from __future__ import annotations

from types import SimpleNamespace

from ..expr.compiler import parse
from .lowtypes import NotTyped
from . import meldruns


def span(low, name, d):
    """``(lo, hi)``: the step API's span of the run kind ``name`` with wild cards, or NotTyped."""
    mk = (getattr(low.game, "meld_kinds", None) or {}).get(name)
    if mk is None:
        raise NotTyped(f"the meld kind {name!r} is not compiled", low.path)
    from ..expr.melds import _rank_span
    # the card expressions read the card only: a context holding the cards and nothing of a game
    game = SimpleNamespace(cards=low.game.cards)
    ctx = SimpleNamespace(game=game, state=None, options={}, locals={}, bound={}, memo=None, hoisted=None, work=0)
    try:
        lo, hi = _rank_span(ctx, mk)
    except Exception:  # noqa: BLE001 (an expression reading the game, or no rank: not lowered)
        raise NotTyped(f"the meld kind {name!r}: a run with wild cards whose wild or rank reads more than "
                       "the card", low.path) from None
    if hi - lo > 60:
        raise NotTyped(f"the meld kind {name!r}: a run over more than 61 ranks", low.path)
    return lo, hi


def check(low, name, d):
    """NotTyped unless the run kind ``d`` with wild cards is one the kernel checks."""
    span(low, name, d)


def valid_lines(low, name, d, row, n, out, cenv, cv):
    """Lines setting ``out`` to whether the cards ``TMP[row, :n]`` are one run of kind ``d`` (with
    wild cards): see the module's doc."""
    lo, hi = span(low, name, d)
    a, b, s0, na, m, k, seen, pl, ph, p1, p2, p, bad, ok, nat, nw, first = (low.fresh("t") for _ in range(17))
    wild = low.truth(parse(str(d["wild"])), cenv)
    suit, rank = meldruns.card_exprs(low, d, cenv)
    pos = meldruns.positions(d, rank, hi, p1, p2)
    lines = meldruns.size_and_distinct_lines(d, row, n, out, a, b) + [
             f"{nat} = 0", f"{nw} = 0", f"{first} = True", f"{s0} = NULL",
             f"for {a} in range({n}):", f"    {cv} = TMP[{row}, {a}]", f"    if {wild}:", f"        {nw} += 1",
             "    else:", f"        {nat} += 1", f"        if {first}:", f"            {s0} = {suit}",
             f"            {first} = False", f"        elif {suit} != {s0}:", f"            {out} = False",
             f"if {nat} < {max(int(d.get('min_natural', 1)), 1)} or {n} > {hi - lo + 1}:", f"    {out} = False"]
    if d.get("max_wild") is not None:
        lines += [f"if {nw} > {int(d['max_wild'])}:", f"    {out} = False"]
    scan = [f"{cv} = TMP[{row}, {a}]", f"if not {wild}:"]
    lines += [f"if {out}:", f"    {na} = 0", f"    for {a} in range({n}):"] + \
        [f"        {x}" for x in scan] + [f"            {x}" for x in pos] + \
        [f"            if {p2} != NULL:", f"                {na} += 1",
         f"    {ok} = False", f"    for {m} in range(1 << {na}):",
         f"        {seen} = 0", f"        {pl} = {hi + 1}", f"        {ph} = {lo - 1}", f"        {bad} = False",
         f"        {k} = 0", f"        for {a} in range({n}):"] + [f"            {x}" for x in scan] + \
        [f"                {x}" for x in pos] + \
        [f"                {p} = {p1}", f"                if {p2} != NULL:",
         f"                    if ({m} >> {k}) & 1:", f"                        {p} = {p2}", f"                    {k} += 1",
         f"                if {p} < {lo} or {p} > {hi} or ({seen} >> ({p} - {lo})) & 1:", f"                    {bad} = True",
         "                else:", f"                    {seen} |= 1 << ({p} - {lo})",
         f"                if {p} < {pl}:", f"                    {pl} = {p}", f"                if {p} > {ph}:",
         f"                    {ph} = {p}",
         f"        if not {bad} and {ph} - {pl} + 1 - {nat} <= {nw}:", f"            {ok} = True",
         f"    {out} = {ok}"]
    return lines
