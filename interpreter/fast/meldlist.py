"""``melds_in(cards[, KIND][, size])`` listed in the typed kernel (:mod:`interpreter.fast.typepass`),
each meld a value of its own, as :mod:`interpreter.expr.melds` gives them
(the meld values: :mod:`interpreter.fast.meldvalue`).

The melds are listed in the step API's order (``melds_in``): kind by kind in the spec's order (all
kinds when the kind is absent or null), each kind's candidate melds as its ``_templates`` lists
them (the template lines of :mod:`interpreter.fast.bestmelds`, which follow that order), those of
``size`` cards only when a size is given, a meld whose cards were already listed (the same cards
under another kind or ace placement) left out. Kinds with wild cards do not type here (NotTyped
names the kind).

A listed meld is one value of type ``MELDL`` (:mod:`interpreter.fast.meldvalue`), its cards in the
step API's order (a set: the order of the cards given; a run: rank order, the ace where the run puts
it). A meld of more than ``SLOTS`` cards, and more than :data:`MOST` melds from one call, flag the
game (``RI_ERROR`` 7: the step API replays it); the deck has at most 63 cards. One call's melds are kept in slots of ``MEMO`` (the
place's own) while its loop runs. Every line comes from the fixed templates below, whose holes are
generated names and integers.
"""
from __future__ import annotations

from .lowtypes import CARD, ERR_INDEX, INT, NUL, RI_ERROR, TEXT, ListT, NotTyped, _indent, _names
from .meldvalue import MELDL, SLOTS
from . import bestmelds, meldruns

MOST = 128  # the most melds one call lists (slots of MEMO)


def _kinds(low, args, env):
    decl = low.spec.get("melds") or {}
    if not decl:
        raise NotTyped("melds_in without melds: kinds", low.path)
    names = list(decl)
    if len(args) >= 2 and getattr(args[1], "data", None) != "null":
        code, ty = low.scalar(args[1], env)
        names = [n for n in decl if ty == TEXT and code == str(low.text(str(n)))]
        if not names:
            raise NotTyped("melds_in of a meld kind not written out", low.path)
    out = []
    for n in names:
        d = decl[n]
        if not isinstance(d, dict) or d.get("form") not in ("set", "run"):
            raise NotTyped(f"melds_in of the meld kind {n!r}", low.path)
        if d.get("wild") is not None:
            raise NotTyped(f"melds_in listed, of the meld kind {n!r} with wild cards", low.path)
        if d.get("form") == "run":
            meldruns.check(low, n, d)
        out.append((n, d))
    return out


def melds_in(low, args, env):
    """``melds_in(cards[, KIND][, size])`` as a ListT of MELDL values (see the module's doc)."""
    if not 1 <= len(args) <= 3:
        raise NotTyped("melds_in with other than cards, a kind and a size", low.path)
    if low.ncards > 63:
        raise NotTyped("melds_in listed, in a deck of more than 63 cards", low.path)
    kinds = _kinds(low, args, env)
    src = low.lst(args[0], env)
    if src.elem not in (CARD, NUL):
        raise NotTyped(f"melds_in of {src.elem}s (cards are expected)", low.path)
    size = None
    if len(args) == 3:
        size, st = low.scalar(args[2], env)
        if st not in (INT, NUL):
            raise NotTyped(f"melds_in of a size that is a {st}", low.path)

    def loop(var, body):
        slots = [low.memo_slot() for _ in range(MOST)]
        lines, cnt = _listing(low, kinds, src, size, env, slots[0])
        k = low.fresh("t")
        return [f"{cnt} = {lines}", f"for {k} in range({cnt}):", f"    {var} = MEMO[{slots[0]} + {k}]"] + _indent(body)
    return ListT(MELDL, loop, refs=src.refs | (_names(size) if size else set()))


def _listing(low, kinds, src, size, env, slot0):
    """``(call, count name)``: the call of a helper writing the melds into ``MEMO[slot0...]`` and
    returning how many."""
    held, row, n = low.snapshot(src, env)
    R = {"row": str(row)}
    names = ("A", "B", "C", "D", "G", "TM", "TF", "ID")
    for j, nm in enumerate(names):
        R[nm] = str(low.depth + j)
    low.depth += len(names)
    low.max_depth = max(low.max_depth, low.depth)
    over, T, cnt, t0, sz, s = (low.fresh("t") for _ in range(6))
    cv = low.fresh("v")
    cenv = {k: v for k, v in env.items() if k.startswith("$")}
    cenv["c"] = (cv, CARD)
    lines = held + [f"{over} = False", f"{T} = 0", f"{cnt} = 0", f"{s} = -1",
                    f"if {n} > {bestmelds.MAX_POSITIONS}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {over} = True"]
    if size is not None:
        # (a null size: every size; one below 1 the step API refuses: flagged)
        lines += [f"if {size} != NULL:", f"    {s} = {size}", f"    if {s} < 1:",
                  f"        RI[{RI_ERROR}] = {ERR_INDEX}", f"        {over} = True"]
    for name, d in kinds:
        lines += [f"{t0} = {T}"]
        if d.get("form") == "set":
            lines += bestmelds._set_templates(low, d, R, n, over, T, cenv, cv)
        else:
            lines += bestmelds._run_templates(low, name, d, R, n, over, T, cenv, cv)
        lines += _emit(low, name, d, R, n, over, T, t0, cnt, s, sz, slot0, cenv, cv)
    low.depth -= len(names) + 1
    return low.helper(env, lines, cnt), cnt


def _emit(low, name, d, R, n, over, T, t0, cnt, s, sz, slot0, cenv, cv):
    """Lines writing the kind's templates ``t0..T-1`` as meld values, in order, leaving out those
    of another size than ``s`` (-1: any) and those whose cards were listed already."""
    t, pm, p, q, idm, dup, v, j = (low.fresh("t") for _ in range(8))
    row, G, ID = R["row"], R["G"], R["ID"]
    if d.get("form") == "set":
        # a set: its cards in the order given
        pack = [f"for {p} in range({n}):", f"    if ({pm} >> {p}) & 1:",
                f"        {v} |= (TMP[{row}, {p}] + 1) << (6 * {j})", f"        {j} += 1"]
    else:
        # a run: its cards by run position; a card with two places (an ace low or high) is low when
        # the card one place above its low one is in the meld, else high
        lo, hi = meldruns.span(low, name, d)
        _, rank = meldruns.card_exprs(low, d, cenv)
        p1, p2, b, r1, r2 = (low.fresh("t") for _ in range(5))
        pos = meldruns.positions(d, rank, hi, p1, p2)
        pack = [f"for {p} in range({n}):", f"    if ({pm} >> {p}) & 1:", f"        {cv} = TMP[{row}, {p}]"] + \
            _indent(pos, 2) + [f"        TMP[{G}, {p}] = {p1}", f"        if {p2} != NULL:",
                               f"            TMP[{G}, {p}] = {p2}",
                               f"            for {b} in range({n}):",
                               f"                if {b} != {p} and ({pm} >> {b}) & 1:",
                               f"                    {cv} = TMP[{row}, {b}]"] + _indent(
                meldruns.positions(d, rank, hi, r1, r2), 5) + \
            [f"                    if {r1} == {p1} + 1 or {r2} == {p1} + 1:",
             f"                        TMP[{G}, {p}] = {p1}",
             f"for {q} in range({lo}, {hi + 1}):", f"    for {p} in range({n}):",
             f"        if ({pm} >> {p}) & 1 and TMP[{G}, {p}] == {q}:",
             f"            {v} |= (TMP[{row}, {p}] + 1) << (6 * {j})", f"            {j} += 1"]
    return [f"if not {over}:",
            f"    for {t} in range({t0}, {T}):",
            f"        {pm} = TMP[{R['TM']}, {t}]", f"        {sz} = 0", f"        {idm} = 0",
            f"        for {p} in range({n}):", f"            if ({pm} >> {p}) & 1:", f"                {sz} += 1",
            f"                {idm} |= 1 << TMP[{row}, {p}]",
            f"        {dup} = {s} >= 0 and {sz} != {s}",
            f"        for {q} in range({cnt}):",
            f"            if TMP[{ID}, {q}] == {idm}:", f"                {dup} = True",
            f"        if not {dup} and ({sz} > {SLOTS} or {cnt} >= {MOST} or {cnt} >= len(TMP[0])):",
            f"            RI[{RI_ERROR}] = {ERR_INDEX}", f"            {over} = True", "            break",
            f"        if not {dup}:",
            f"            {v} = 0", f"            {j} = 0"] + _indent(pack, 3) + \
        [f"            TMP[{ID}, {cnt}] = {idm}", f"            MEMO[{slot0} + {cnt}] = {v}", f"            {cnt} += 1"]
