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
  order, sharing no card, each of its kind's smallest size. The kernel searches the same melds: at
  each name, every choice of that many cards not yet taken, in the order of the list given (past
  every choice whose first cards hold a card taken, or two natural cards of different keys for a
  set or suits for a run: none of them is a meld), whose
  wild cards (for that kind) are the first ones not yet taken (the step API's melds take the first
  wild cards), kept when it is a meld of the kind; depth first, back on a dead end. Two names of
  one kind in a row take their melds in order of first card (the same melds in another order are
  the same answer). The melds found are not kept: any other use of ``melds_for`` does not type
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
    base = low.depth  # rows: the levels' kinds, sizes, choices, masks; the meld checked; wild flags; classes
    lrow, srow, crow, mrow, cand, wrow = base, base + 1, base + 2, base + 3, base + 4, base + 5
    xrow = wrow + len(kinds)
    low.depth += 5 + 2 * len(kinds)
    low.max_depth = max(low.max_depth, low.depth)
    found, over, lvl, used, tries, fresh, kj, s, at, start, going, j, jj, m, free, q, w, cnt, okw, ok, one = \
        (low.fresh("t") for _ in range(21))
    res, cv, skip, nf, k0 = low.fresh("t"), low.fresh("v"), low.fresh("t"), low.fresh("t"), low.fresh("t")
    cenv = {k: v for k, v in env.items() if k.startswith("$")}
    cenv["c"] = (cv, CARD)
    lines += [f"{found} = False", f"{over} = False",
              f"if {n} > 62 or {nk} * {most} > len(TMP[0]):", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {over} = True",
              f"for {j} in range({nk}):", f"    {q} = TMP[{krow}, {j}]", f"    TMP[{lrow}, {j}] = -1"]
    for i, (name, d) in enumerate(kinds):
        lines += [f"    if {q} == {low.text(name)}:", f"        TMP[{lrow}, {j}] = {i}",
                  f"        TMP[{srow}, {j}] = {int(d.get('min', 3))}"]
    lines += [f"    if TMP[{lrow}, {j}] < 0:", f"        RI[{RI_ERROR}] = {ERR_INDEX}", f"        {over} = True"]
    for i, (name, d) in enumerate(kinds):  # which cards are wild for each kind
        wild = low.truth(parse(str(d["wild"])), cenv) if d.get("wild") is not None else "False"
        lines += [f"for {j} in range({n}):", f"    {cv} = TMP[{hrow}, {j}]",
                  f"    TMP[{wrow + i}, {j}] = 1 if {wild} else 0"]
        # each card's class for the kind: its key (a set) or suit (a run); two natural cards of
        # different classes are never in one meld of the kind
        cls = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)[0] if d.get("form") == "set" else \
            meldruns.card_exprs(low, d, cenv)[0]
        lines += [f"for {j} in range({n}):", f"    {cv} = TMP[{hrow}, {j}]", f"    TMP[{xrow + i}, {j}] = {cls}"]
    check = [f"{ok} = False"]
    for i, (name, d) in enumerate(kinds):
        check += [f"if {kj} == {i}:"] + _indent(melds._valid_lines(low, d, cand, s, one, env, name) + [f"{ok} = {one}"])
    # the next choice: past every choice sharing the first ``skip + 1`` cards when they cannot make a
    # meld (a card taken, or two natural cards of different classes), else the next in order
    advance = [f"{j} = {s} - 1 if {skip} < 0 else {skip}", f"{skip} = -1",
               f"while {j} >= 0 and TMP[{crow}, {at} + {j}] == {n} - {s} + {j}:", f"    {j} -= 1",
               f"if {j} < 0:", f"    {going} = False", "else:", f"    TMP[{crow}, {at} + {j}] += 1",
               f"    for {jj} in range({j} + 1, {s}):",
               f"        TMP[{crow}, {at} + {jj}] = TMP[{crow}, {at} + {jj} - 1] + 1", f"    {going} = True"]
    # a choice of cards not taken whose wild cards (for its kind) are the first ones not yet taken,
    # checked; a meld: the next level
    take = [f"{m} = 0", f"{skip} = -1", f"{nf} = True", f"{k0} = 0",
            f"for {j} in range({s}):", f"    {q} = TMP[{crow}, {at} + {j}]",
            f"    if {skip} < 0:",
            f"        if ({used} >> {q}) & 1:", f"            {skip} = {j}",
            f"        elif TMP[{wrow} + {kj}, {q}] == 0:",
            f"            if {nf}:", f"                {k0} = TMP[{xrow} + {kj}, {q}]", f"                {nf} = False",
            f"            elif TMP[{xrow} + {kj}, {q}] != {k0}:", f"                {skip} = {j}",
            f"    {m} |= 1 << {q}",
            f"{free} = {skip} < 0",
            f"{w} = 0", f"{cnt} = 0", f"{okw} = {free}",
            f"if {okw}:",
            f"    for {j} in range({s}):", f"        {w} += TMP[{wrow} + {kj}, TMP[{crow}, {at} + {j}]]",
            f"    for {q} in range({n}):",
            f"        if {cnt} < {w} and TMP[{wrow} + {kj}, {q}] == 1 and not ({used} >> {q}) & 1:",
            f"            if not ({m} >> {q}) & 1:", f"                {okw} = False", f"            {cnt} += 1",
            f"if {okw}:",
            f"    {tries} += 1",
            f"    if {tries} > {MAX_TRIES}:", f"        RI[{RI_ERROR}] = {ERR_INDEX}", "        break",
            f"    for {j} in range({s}):", f"        TMP[{cand}, {j}] = TMP[{hrow}, TMP[{crow}, {at} + {j}]]"] + \
        _indent(check) + [
            f"    if {ok}:",
            f"        TMP[{mrow}, {lvl}] = {m}", f"        {used} |= {m}", f"        {lvl} += 1", f"        {fresh} = True"]
    lines += [f"{lvl} = 0", f"{used} = 0", f"{tries} = 0", f"{fresh} = True", f"{skip} = -1",
              f"while not {over}:",
              f"    if {lvl} == {nk}:", f"        {found} = True", "        break",
              f"    {kj} = TMP[{lrow}, {lvl}]", f"    {s} = TMP[{srow}, {lvl}]", f"    {at} = {lvl} * {most}",
              f"    if {fresh}:",
              f"        {start} = 0",
              f"        if {lvl} > 0 and TMP[{lrow}, {lvl} - 1] == {kj}:",
              f"            {start} = TMP[{crow}, {at} - {most}] + 1",
              f"        for {j} in range({s}):", f"            TMP[{crow}, {at} + {j}] = {start} + {j}",
              f"        {going} = {start} + {s} <= {n}", f"        {fresh} = False",
              "    else:"] + _indent(advance, 2) + [
              f"    if not {going}:",
              f"        if {lvl} == 0:", "            break",
              f"        {lvl} -= 1", f"        {used} -= TMP[{mrow}, {lvl}]", f"        {skip} = -1"] + _indent(["else:"] + _indent(take)) + [
              f"{res} = 1 if {found} else NULL"]
    low.depth -= 7 + 2 * len(kinds)
    return low.helper(env, lines, res), FOUND
