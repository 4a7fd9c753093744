"""Meld kinds known only at run time in the typed kernel: ``melds_for(cards, KINDS)`` where it is
compared with null (whether the cards hold the melds of a rummy contract), and
``is_meld(cards, KIND)`` with ``KIND`` a text known only at run time.

- ``is_meld(cards, KIND)``: every kind the spec declares is checked (:mod:`interpreter.fast.melds`,
  runs with wild cards :mod:`interpreter.fast.wildruns`) and the one named is taken; a null kind is
  any kind (as the step API's); a name the spec does not declare flags the game
  (:data:`~interpreter.fast.lowtypes.ERR_INDEX`: the step API replays it and raises its error).
- ``melds_for(cards, KINDS)`` (``KINDS`` any list of texts: a literal, a row picked at run time, a
  slice of one) has the type :data:`FOUND`: ``melds_for(...) == null`` / ``!= null`` is whether
  the step API's search (:func:`interpreter.expr.melds.melds_for`) finds one meld per name, in
  order, sharing no card, each of its kind's smallest size. The answer is all the kernel keeps, so
  it searches the same melds in its own order: at each name, the natural cards (not wild for its
  kind) sorted by class (a set's key, a run's suit: two natural cards of different classes are
  never in one meld of the kind), and for each class with 0, 1, ... wild cards (the first ones not
  yet taken: the step API's melds take the first wild cards), every choice of the rest of the
  meld's cards among that class's cards not taken (past every choice whose first cards hold a card
  taken, or, for a run, two natural cards of one position or further apart than the meld's size:
  a run's cards of one class come in order of position, and an ace that may count low or high
  is never the one that rules a choice out), then the meld of wild cards only; each choice is checked (its cards in the list's order)
  and a meld goes to the next name; depth first, back on a dead end. Two names of one kind in a
  row take their melds in order of class (the same melds in another order are the same answer).
  Choices that mix classes are never made (a search through every choice of that many cards
  made and passed over each of them: most of its steps on a hand that holds no contract).
  The melds found are not kept: any other use of ``melds_for`` does not type
  (NotTyped says so). A search past :data:`MAX_TRIES` melds checked, more than 62 cards, or an
  unknown kind name flags the game (the step API replays it: its work bound may stop it there).

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import BOOL, CARD, ERR_INDEX, NUL, RI_ERROR, TEXT, NotTyped, _fold, _indent
from . import bestmelds, meldruns, melds, wildruns

FOUND = "melds_for(...), lowered only compared with null"  # its type (any other use names it)
MAX_TRIES = 1_000_000  # the most candidate melds one search checks (past it: flagged, replayed)


def _declared(low, what):
    """Every meld kind of the spec as ``(name, declaration)``, each one the kernel checks."""
    decl = low.spec.get("melds") or {}
    if not decl:
        raise NotTyped(f"{what} without melds: kinds", low.path)
    out = []
    for name, d in decl.items():
        if not isinstance(d, dict) or d.get("form") not in ("set", "run"):
            raise NotTyped(f"{what} of the meld kind {name!r}", low.path)
        if d.get("form") == "run":
            (wildruns if d.get("wild") is not None else meldruns).check(low, name, d)
        out.append((str(name), d))
    return out


def kind_at_run_time(low, tree, env) -> bool:
    """Whether a meld kind argument is a value known only at run time (not a text written out)."""
    if getattr(tree, "data", None) == "null":
        return False
    code, _ = low.scalar(tree, env)
    return _fold(code) is None


def call_is_meld(low, args, env):
    """``is_meld(cards, KIND)`` with ``KIND`` known only at run time, as ``(code, BOOL)``."""
    kinds = _declared(low, "is_meld")
    kc, kt = low.scalar(args[1], env)
    if kt not in (TEXT, NUL):
        raise NotTyped(f"is_meld of a meld kind that is a {kt}", low.path)
    lines, row, n = melds._held(low, bestmelds.meld_list(low, args[0], env), env)
    out, one, k, known = (low.fresh("t") for _ in range(4))
    lines += [f"{k} = {kc}", f"{out} = False", f"{known} = {k} == NULL"]
    for name, d in kinds:
        code = low.text(name)
        lines += melds._valid_lines(low, d, row, n, one, env, name) + \
            [f"if {k} == {code} or {k} == NULL:", f"    {out} = {out} or {one}", f"    {known} = True"]
    lines += [f"if not {known}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
    low.depth -= 1
    return low.helper(env, lines, out), BOOL


def call_melds_for(low, args, env):
    """``melds_for(cards, KINDS)`` as ``(code, FOUND)``: 1 when the melds exist, else NULL."""
    if len(args) != 2:
        raise NotTyped("melds_for with other than cards and a list of meld kinds", low.path)
    kinds = _declared(low, "melds_for")
    cards, names = bestmelds.meld_list(low, args[0], env), low.lst(args[1], env)
    if cards.elem not in (CARD, NUL):
        raise NotTyped(f"melds_for of a list of {cards.elem}s (cards are expected)", low.path)
    if names.length == "0":
        return "1", FOUND  # melds_for(cards, []) is [] (not null)
    if names.elem not in (TEXT, NUL):
        raise NotTyped(f"melds_for of a list of {names.elem}s (meld kind names are expected)", low.path)
    most = max(int(d.get("min", 3)) for _, d in kinds)  # the widest meld: a level's room in its row
    lines, hrow, n = low.snapshot(cards, env)
    more, krow, nk = low.snapshot(names, env)
    lines += more
    base = low.depth  # rows: the levels' kinds, sizes, choices, masks, groups, wild counts; the meld
    # checked; per kind: wild flags, classes, natural cards by class, their groups' ends, wild
    # cards, run positions and whether a position is the only one (a run's ace may have two)
    nkd = len(kinds)
    lrow, srow, crow, mrow, cand, grow, wcrow, nrow = range(base, base + 8)
    wrow, xrow, orow, erow, wlrow, prow, frow = (base + 8 + i * nkd for i in range(7))
    low.depth += 8 + 7 * nkd
    low.max_depth = max(low.max_depth, low.depth)
    found, over, lvl, used, tries, fresh, kj, s, at, going, j, jj, m, q, w, cnt, ok, one = \
        (low.fresh("t") for _ in range(18))
    res, skip, g, ge, k, nn, nw, avail, init, x, y = (low.fresh("t") for _ in range(11))
    p1, p2, px, pb, pl, hb = (low.fresh("t") for _ in range(6))
    cv = low.fresh("v")
    cenv = {k_: v for k_, v in env.items() if k_.startswith("$")}
    cenv["c"] = (cv, CARD)
    lines += [f"{found} = False", f"{over} = False", f"{k} = 0", f"{ge} = 0", f"{going} = False",
              f"if {n} > 62 or {nk} * {most} > len(TMP[0]):", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {over} = True",
              f"for {j} in range({nk}):", f"    {q} = TMP[{krow}, {j}]", f"    TMP[{lrow}, {j}] = -1"]
    for i, (name, d) in enumerate(kinds):
        lines += [f"    if {q} == {low.text(name)}:", f"        TMP[{lrow}, {j}] = {i}",
                  f"        TMP[{srow}, {j}] = {int(d.get('min', 3))}"]
    lines += [f"    if TMP[{lrow}, {j}] < 0:", f"        RI[{RI_ERROR}] = {ERR_INDEX}", f"        {over} = True"]
    for i, (name, d) in enumerate(kinds):
        # which cards are wild for each kind, and each card's class for the kind: its key (a set)
        # or suit (a run); two natural cards of different classes are never in one meld of the kind
        wild = low.truth(parse(str(d["wild"])), cenv) if d.get("wild") is not None else "False"
        cls = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)[0] if d.get("form") == "set" else \
            meldruns.card_exprs(low, d, cenv)[0]
        # a run's natural cards also by position: the first place (``p1``), and whether it is
        # the only one (not an ace that may count low or high); a set's: one place, never alone
        if d.get("form") == "run":
            hi = (wildruns if d.get("wild") is not None else meldruns).span(low, name, d)[1]
            place = meldruns.positions(d, meldruns.card_exprs(low, d, cenv)[1], hi, p1, p2) + \
                [f"TMP[{prow + i}, {j}] = {p1}", f"TMP[{frow + i}, {j}] = 0 if {p2} == NULL else 1"]
        else:
            place = [f"TMP[{prow + i}, {j}] = 0", f"TMP[{frow + i}, {j}] = 1"]
        # the kind's wild cards in order (row wlrow + i, nrow[nkd + i] of them), its natural cards
        # sorted by class, in order within one (row orow + i, nrow[i] of them), and at each of those
        # the end of its class's group (row erow + i)
        lines += [f"TMP[{nrow}, {i}] = 0", f"TMP[{nrow}, {nkd + i}] = 0",
                  f"for {j} in range({n} if not {over} else 0):", f"    {cv} = TMP[{hrow}, {j}]",
                  f"    TMP[{wrow + i}, {j}] = 1 if {wild} else 0",
                  f"    if TMP[{wrow + i}, {j}] == 1:",
                  f"        TMP[{wlrow + i}, TMP[{nrow}, {nkd + i}]] = {j}", f"        TMP[{nrow}, {nkd + i}] += 1",
                  "    else:",
                  f"        {x} = {cls}", f"        TMP[{xrow + i}, {j}] = {x}"] + _indent(place, 2) + [
                  f"        {px} = TMP[{prow + i}, {j}]",
                  f"        {y} = TMP[{nrow}, {i}]", f"        TMP[{nrow}, {i}] += 1",
                  f"        while {y} > 0 and (TMP[{xrow + i}, TMP[{orow + i}, {y} - 1]] > {x} or "
                  f"TMP[{xrow + i}, TMP[{orow + i}, {y} - 1]] == {x} and TMP[{prow + i}, TMP[{orow + i}, {y} - 1]] > {px}):",
                  f"            TMP[{orow + i}, {y}] = TMP[{orow + i}, {y} - 1]", f"            {y} -= 1",
                  f"        TMP[{orow + i}, {y}] = {j}",
                  f"{y} = TMP[{nrow}, {i}]",
                  f"for {j} in range({y} - 1, -1, -1):",
                  f"    if {j} + 1 < {y} and TMP[{xrow + i}, TMP[{orow + i}, {j} + 1]] == TMP[{xrow + i}, TMP[{orow + i}, {j}]]:",
                  f"        TMP[{erow + i}, {j}] = TMP[{erow + i}, {j} + 1]",
                  "    else:", f"        TMP[{erow + i}, {j}] = {j} + 1"]
    check = [f"{ok} = False"]
    for i, (name, d) in enumerate(kinds):
        check += [f"if {kj} == {i}:"] + _indent(melds._valid_lines(low, d, cand, s, one, env, name) + [f"{ok} = {one}"])
    # a level's choices: for each group of natural cards of one class (in order of class), with
    # 0, 1, ... wild cards (the first ones not yet taken, while there are), every choice of the
    # rest of the meld's cards in the group, in order (past every choice whose first cards hold a
    # card taken); then the meld of wild cards only. ``g`` a group's first place (``nn``: the wild
    # cards only), ``w`` the wild cards, ``k`` the natural cards
    pick = [f"{nn} = TMP[{nrow}, {kj}]", f"{nw} = TMP[{nrow}, {nkd} + {kj}]",
            f"{avail} = 0",
            f"for {j} in range({nw}):", f"    if not ({used} >> TMP[{wlrow} + {kj}, {j}]) & 1:", f"        {avail} += 1",
            f"if {fresh}:",
            f"    {fresh} = False",
            f"    {g} = 0",
            f"    if {lvl} > 0 and TMP[{lrow}, {lvl} - 1] == {kj}:",
            f"        {g} = TMP[{grow}, {lvl} - 1]",
            f"    {w} = 0 if {g} < {nn} else {s}",
            f"    {init} = True",
            "else:",
            f"    {g} = TMP[{grow}, {lvl}]", f"    {w} = TMP[{wcrow}, {lvl}]", f"    {init} = False",
            f"{going} = False",
            f"while {g} < {nn} or {avail} >= {s}:",
            f"    {ge} = TMP[{erow} + {kj}, {g}] if {g} < {nn} else {nn}",
            f"    {k} = {s} - {w}",
            f"    if {init}:",
            f"        if {g} + {k} <= {ge}:",
            f"            for {j} in range({k}):", f"                TMP[{crow}, {at} + {j}] = {g} + {j}",
            f"            {going} = True", "            break",
            f"    elif {k} > 0:",
            f"        {j} = {k} - 1 if {skip} < 0 else {skip}", f"        {skip} = -1",
            f"        while {j} >= 0 and TMP[{crow}, {at} + {j}] == {ge} - {k} + {j}:", f"            {j} -= 1",
            f"        if {j} >= 0:", f"            TMP[{crow}, {at} + {j}] += 1",
            f"            for {jj} in range({j} + 1, {k}):",
            f"                TMP[{crow}, {at} + {jj}] = TMP[{crow}, {at} + {jj} - 1] + 1",
            f"            {going} = True", "            break",
            f"    {init} = True", f"    {skip} = -1",
            f"    if {g} >= {nn}:", "        break",
            f"    if {w} + 1 < {s} and {w} + 1 <= {avail}:", f"        {w} += 1",
            "    else:", f"        {g} = {ge}", f"        {w} = 0",
            f"        if {g} >= {nn}:", f"            {g} = {nn}", f"            {w} = {s}",
            f"TMP[{grow}, {lvl}] = {g}", f"TMP[{wcrow}, {lvl}] = {w}"]
    # the choice: its natural cards not taken, and then its wild cards, checked; a meld: the next
    # level. Past every choice whose first cards hold a card taken, or (a run) two natural cards
    # of one position or further apart than the meld's size (each such place is the only one
    # of its card; the cards come in order of place: any later card is no nearer)
    take = [f"{m} = 0", f"{skip} = -1", f"{hb} = False", f"{pb} = 0", f"{pl} = 0",
            f"for {j} in range({k}):", f"    {q} = TMP[{orow} + {kj}, TMP[{crow}, {at} + {j}]]",
            f"    if ({used} >> {q}) & 1:", f"        {skip} = {j}", "        break",
            f"    if TMP[{frow} + {kj}, {q}] == 0:",
            f"        {px} = TMP[{prow} + {kj}, {q}]",
            f"        if not {hb}:", f"            {hb} = True", f"            {pb} = {px}",
            f"        elif {px} == {pl} or {px} - {pb} >= {s}:", f"            {skip} = {j}", "            break",
            f"        {pl} = {px}",
            f"    {m} |= 1 << {q}",
            f"if {skip} < 0:",
            f"    {cnt} = 0",
            f"    for {j} in range({nw}):",
            f"        {q} = TMP[{wlrow} + {kj}, {j}]",
            f"        if {cnt} < {w} and not ({used} >> {q}) & 1:", f"            {m} |= 1 << {q}", f"            {cnt} += 1",
            f"    {tries} += 1",
            f"    if {tries} > {MAX_TRIES}:", f"        RI[{RI_ERROR}] = {ERR_INDEX}", "        break",
            f"    {x} = 0",
            f"    for {q} in range({n}):",
            f"        if ({m} >> {q}) & 1:", f"            TMP[{cand}, {x}] = TMP[{hrow}, {q}]", f"            {x} += 1"] + \
        _indent(check) + [
            f"    if {ok}:",
            f"        TMP[{mrow}, {lvl}] = {m}", f"        {used} |= {m}", f"        {lvl} += 1", f"        {fresh} = True"]
    lines += [f"{lvl} = 0", f"{used} = 0", f"{tries} = 0", f"{fresh} = True", f"{skip} = -1",
              f"while not {over}:",
              f"    if {lvl} == {nk}:", f"        {found} = True", "        break",
              f"    {kj} = TMP[{lrow}, {lvl}]", f"    {s} = TMP[{srow}, {lvl}]", f"    {at} = {lvl} * {most}"] + \
        _indent(pick) + [
              f"    if not {going}:",
              f"        if {lvl} == 0:", "            break",
              f"        {lvl} -= 1", f"        {used} -= TMP[{mrow}, {lvl}]", f"        {skip} = -1"] + _indent(["else:"] + _indent(take)) + [
              f"{res} = 1 if {found} else NULL"]
    low.depth -= 10 + 7 * nkd
    return low.helper(env, lines, res), FOUND
