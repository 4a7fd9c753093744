"""Melds of the *run* form (``melds: {NAME: {form: run, ...}}``) in the typed kernel
(:mod:`interpreter.fast.melds`), as :mod:`interpreter.expr.melds` decides them: cards of one
``suit`` whose ``rank`` positions are consecutive; the card of rank ``ace_rank`` counts low, high
(one above the deck's highest rank) or either (``ace: both``), never both ends at once.

Lowered: the run kinds without wild cards whose ``rank`` is a card attribute (``c.NAME``, a whole
number on every card of the deck): the span of positions (lowest, highest) is then known when the
module is written, as the step API reckons it over the deck (``_rank_span``). A run kind with
``wild`` does not type yet (NotTyped names it). Every line comes from the fixed templates below,
whose holes are generated names and integers.
"""
from __future__ import annotations

import re

from ..expr.compiler import parse
from .lowtypes import CARD, NotTyped

_ATTR = re.compile(r"^\s*c\.([A-Za-z_]\w*)\s*$")


def check(low, name, d):
    """NotTyped unless the run kind ``d`` (named ``name``) is one the kernel lowers."""
    if d.get("wild") is not None:
        raise NotTyped(f"the meld kind {name!r}: a run with wild cards", low.path)
    span(low, name, d)


def span(low, name, d):
    """``(lo, hi)``: the lowest and highest position a card of the run kind ``d`` can take over the
    game's deck (a high ace: one above the highest rank), as the step API's ``_rank_span``."""
    m = _ATTR.match(str(d.get("rank", "c.rank")))
    if not m:
        raise NotTyped(f"the meld kind {name!r}: a run whose rank is not a card attribute (c.NAME)", low.path)
    ranks = [c.attrs.get(m.group(1)) for c in low.game.cards]
    if not ranks or any(type(r) is not int for r in ranks):
        raise NotTyped(f"the meld kind {name!r}: a run rank that is not a whole number on every card", low.path)
    lo, hi = min(ranks), max(ranks)
    ace, ace_rank = d.get("ace", "low"), int(d.get("ace_rank", 1))
    if ace in ("high", "both") and ace_rank in ranks:
        hi += 1
        if ace == "high" and ace_rank == lo:
            lo = min((r for r in ranks if r != ace_rank), default=lo)
    if hi - lo > 60:
        raise NotTyped(f"the meld kind {name!r}: a run over more than 61 ranks", low.path)
    return lo, hi


def card_exprs(low, d, cenv):
    """``(suit code, rank code)`` of the card bound in ``cenv`` for the run kind ``d``."""
    suit, st = low.scalar(parse(str(d.get("suit", "c.suit"))), cenv)
    rank, rt = low.scalar(parse(str(d.get("rank", "c.rank"))), cenv)
    if st == CARD:
        raise NotTyped("a run's suit that is a card", low.path)
    return suit, rank


def positions(d, rank, hi, p1, p2):
    """Lines setting ``p1`` (and ``p2``: NULL, or the second place of an ace that counts low or
    high) to the run positions of a card of rank ``rank`` (code), as ``_positions``."""
    ace, ace_rank = d.get("ace", "low"), int(d.get("ace_rank", 1))
    if ace == "low":
        return [f"{p1} = {rank}", f"{p2} = NULL"]
    if ace == "high":
        return [f"{p1} = {hi} if {rank} == {ace_rank} else {rank}", f"{p2} = NULL"]
    return [f"{p1} = {rank}", f"{p2} = {hi} if {rank} == {ace_rank} else NULL"]


def size_and_distinct_lines(d, row, n, out, a, b):
    """Lines setting ``out`` to whether the ``n`` cards ``TMP[row, :n]`` are between the meld kind
    ``d``'s ``min`` and ``max`` in number and all different (the first checks of every meld form)."""
    lo_n, hi_n = int(d.get("min", 3)), d.get("max")
    return [f"{out} = {n} >= {lo_n}" + (f" and {n} <= {int(hi_n)}" if hi_n is not None else ""),
            f"for {a} in range({n}):", f"    for {b} in range({a}):",
            f"        if TMP[{row}, {a}] == TMP[{row}, {b}]:", f"            {out} = False"]


def valid_lines(low, name, d, row, n, out, cenv, cv):
    """Lines setting ``out`` to whether the cards ``TMP[row, :n]`` are one run of kind ``d``
    (``_valid``: the size, distinct cards, one suit, no longer than the span, and some choice of
    each ace's place that leaves the positions distinct and consecutive)."""
    lo, hi = span(low, name, d)
    a, b, s0, na, m, k, seen, pl, ph, p1, p2, p, bad, ok = (low.fresh("t") for _ in range(14))
    suit, rank = card_exprs(low, d, cenv)
    pos = positions(d, rank, hi, p1, p2)
    return size_and_distinct_lines(d, row, n, out, a, b) + [
            f"if {n} < {max(int(d.get('min_natural', 1)), 1)} or {n} > {hi - lo + 1}:", f"    {out} = False",
            f"if {out}:", f"    {cv} = TMP[{row}, 0]", f"    {s0} = {suit}",
            f"    for {a} in range(1, {n}):", f"        {cv} = TMP[{row}, {a}]",
            f"        if {suit} != {s0}:", f"            {out} = False",
            f"if {out}:", f"    {na} = 0", f"    for {a} in range({n}):", f"        {cv} = TMP[{row}, {a}]"] + \
        [f"        {x}" for x in pos] + [f"        if {p2} != NULL:", f"            {na} += 1",
                                         f"    {ok} = False", f"    for {m} in range(1 << {na}):",
                                         f"        {seen} = 0", f"        {pl} = {hi + 1}", f"        {ph} = {lo - 1}",
                                         f"        {bad} = False", f"        {k} = 0",
                                         f"        for {a} in range({n}):", f"            {cv} = TMP[{row}, {a}]"] + \
        [f"            {x}" for x in pos] + \
        [f"            {p} = {p1}", f"            if {p2} != NULL:",
         f"                if ({m} >> {k}) & 1:", f"                    {p} = {p2}", f"                {k} += 1",
         f"            if {p} < {lo} or {p} > {hi} or ({seen} >> ({p} - {lo})) & 1:", f"                {bad} = True",
         "            else:", f"                {seen} |= 1 << ({p} - {lo})",
         f"            if {p} < {pl}:", f"                {pl} = {p}", f"            if {p} > {ph}:", f"                {ph} = {p}",
         f"        if not {bad} and {ph} - {pl} + 1 == {n}:", f"            {ok} = True",
         f"    {out} = {ok}"]
