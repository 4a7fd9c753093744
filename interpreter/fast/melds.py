"""Melds of the *set* form (``melds: {NAME: {form: set, ...}}``) in the typed kernel
(:mod:`interpreter.fast.typepass`), as :mod:`interpreter.expr.melds` decides them:

- ``is_meld(cards, 'KIND')``: the cards (distinct) number ``min``..``max``, at least
  ``min_natural`` are not wild (``wild``), at most ``max_wild`` are, and every natural card has the
  same ``key`` (default ``c.rank``);
- ``count(melds_in(cards, 'KIND', size))``: how many melds the step API lists: for each key, every
  choice of ``k`` of its natural cards (``k`` from ``min_natural``) with as few wild cards as the
  size needs up to as many as it allows and the cards hold. Counted, not listed (a meld is a list
  of cards: other uses do not type). Past MAX_ITEMS templates or melds the step API raises an
  error: the game is flagged (``RI_ERROR`` 7) and replayed there;
- ``lay_offs(meld, cards)``: the cards of ``cards``, in order, not in ``meld``, that leave a meld
  of the kind when added (none when ``meld`` is no meld).

The kind is named by a text written out (one kind); `is_meld` and `lay_offs` also take run kinds
(:mod:`interpreter.fast.meldruns`) and a meld of `best_melds(...)["melds"]` (:mod:`interpreter.fast.bestmelds`). Each list
checked is copied into a row of ``TMP``. Every line comes from the fixed templates below, whose
holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.builtins import MAX_ITEMS
from ..expr.compiler import parse
from .lowtypes import BOOL, CARD, ERR_INDEX, INT, NUL, RI_ERROR, ListT, NotTyped, _indent
from . import bestmelds, meldlists, meldruns, meldvalue, wildruns


def _kinds(low, kind_tree, env, what, runs=False):
    """The spec's meld kinds named by ``kind_tree`` (None: all), each ``(name, declaration)``; only
    set kinds type, and run kinds where ``runs`` (:mod:`interpreter.fast.meldruns`)."""
    decl = low.spec.get("melds") or {}
    if not decl:
        raise NotTyped(f"{what} without melds: kinds", low.path)
    if kind_tree is None:
        names = list(decl)
    else:
        code, ty = low.scalar(kind_tree, env)
        names = [n for n in decl if ty == "text" and code == str(low.text(str(n)))]
        if not names:
            raise NotTyped(f"{what} of a meld kind not written out", low.path)
    out = []
    for n in names:
        d = decl[n]
        if runs and isinstance(d, dict) and d.get("form") == "run":
            (wildruns if d.get("wild") is not None else meldruns).check(low, n, d)  # (wild cards: wildruns.py)
        elif not isinstance(d, dict) or d.get("form") != "set":
            raise NotTyped(f"{what} of the meld kind {n!r}: only sets (form: set) are lowered", low.path)
        out.append((n, d))
    return out


def _card_env(env, cv):
    out = {k: v for k, v in env.items() if k.startswith("$")}
    out["c"] = (cv, CARD)
    return out


def _valid_lines(low, d, row, n, out, env, name=""):
    """Lines setting ``out`` to whether the cards ``TMP[row, :n]`` are one meld of kind ``d``."""
    a, b, c, nat, wild, k0, first, k = (low.fresh("t") for _ in range(8))
    cv = low.fresh("v")
    cenv = _card_env(env, cv)
    if d.get("form") == "run":
        return (wildruns if d.get("wild") is not None else meldruns).valid_lines(low, name, d, row, n, out, cenv, cv)
    key, kt = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)
    if kt == CARD or isinstance(key, ListT):
        raise NotTyped("a meld key that is a card", low.path)
    wild = low.truth(parse(str(d["wild"])), cenv) if d.get("wild") is not None else "False"
    lines = meldruns.size_and_distinct_lines(d, row, n, out, a, b) + [
             f"{nat} = 0", f"{c} = 0", f"{k0} = NULL", f"{first} = True",
             f"for {a} in range({n}):", f"    {cv} = TMP[{row}, {a}]", f"    if {wild}:", f"        {c} += 1",
             "    else:", f"        {nat} += 1", f"        {k} = {key}", f"        if {first}:",
             f"            {k0} = {k}", f"            {first} = False", f"        elif {k} != {k0}:",
             f"            {out} = False",
             f"if {nat} < {int(d.get('min_natural', 1))}:", f"    {out} = False"]
    if d.get("max_wild") is not None:
        lines += [f"if {c} > {int(d['max_wild'])}:", f"    {out} = False"]
    return lines


def _held(low, lst, env):
    """Lines copying a list of cards into a row of TMP: ``(lines, row, length name)``; the row is
    the caller's until it calls ``low.depth -= 1``."""
    if lst.elem not in (CARD, NUL):
        raise NotTyped(f"a meld of {lst.elem}s (cards are expected)", low.path)
    return low.snapshot(lst, env)


def call_is_meld(low, args, env):
    """``is_meld(cards, 'KIND')`` (or of any set kind: the spec's all) as ``(code, BOOL)``."""
    if len(args) not in (1, 2):
        raise NotTyped("is_meld with other than a list and a kind", low.path)
    kinds = _kinds(low, args[1] if len(args) == 2 else None, env, "is_meld", runs=True)
    lines, row, n = _held(low, bestmelds.meld_list(low, args[0], env), env)
    out, one = low.fresh("t"), low.fresh("t")
    lines += [f"{out} = False"]
    for name, d in kinds:
        lines += _valid_lines(low, d, row, n, one, env, name) + [f"{out} = {out} or {one}"]
    low.depth -= 1
    return low.helper(env, lines, out), BOOL


def melds_in(low, args, env):
    """``melds_in(cards, 'KIND'[, size])`` as a list that can only be counted (its ``length``)."""
    if len(args) not in (2, 3):
        raise NotTyped("melds_in without a meld kind written out", low.path)
    kinds = _kinds(low, args[1], env, "melds_in")
    if len(kinds) != 1:
        raise NotTyped("melds_in of several meld kinds", low.path)
    _, d = kinds[0]
    lines, row, n = _held(low, low.lst(args[0], env), env)
    lo, hi = int(d.get("min", 3)), d.get("max")
    lo_s, hi_s = low.fresh("t"), low.fresh("t")  # the sizes asked (hi_s -1: no bound)
    lines += [f"{lo_s} = {lo}", f"{hi_s} = {int(hi) if hi is not None else -1}"]
    if len(args) == 3:
        sc, st = low.scalar(args[2], env)
        if st not in (INT, BOOL):
            raise NotTyped(f"melds_in of a size that is a {st}", low.path)
        s = low.fresh("t")
        # (the step API refuses a size below 1: flagged)
        lines += [f"{s} = {sc}", f"if {s} < 1:", f"    RI[{RI_ERROR}] = {ERR_INDEX}",
                  f"if {s} > {lo_s}:", f"    {lo_s} = {s}", f"if {hi_s} < 0 or {s} < {hi_s}:", f"    {hi_s} = {s}"]
    a, b, nw, m, kk, need, top, c, temps, total, most, dup, key_a, over, j, jj, nat = (low.fresh("t") for _ in range(17))
    cv = low.fresh("v")
    cenv = _card_env(env, cv)
    wild = low.truth(parse(str(d["wild"])), cenv) if d.get("wild") is not None else "False"
    key, kt = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)
    if kt == CARD:
        raise NotTyped("a meld key that is a card", low.path)
    krow = low.depth  # a second row of TMP: the natural cards' keys
    low.depth += 1
    low.max_depth = max(low.max_depth, low.depth)
    most_wild = f"min({nw}, {int(d['max_wild'])})" if d.get("max_wild") is not None else nw
    first_k = max(int(d.get("min_natural", 1)), 1)
    # per key: every k of its m natural cards from min_natural (C(m, k) templates, counted up to
    # past MAX_ITEMS: C(m, j) grows with j up to m/2, so it is reckoned at min(k, m - k)), each
    # with `need` up to min(top, wild cards held) wild cards
    lines += [f"{nw} = 0", f"{nat} = 0", f"for {a} in range({n}):", f"    {cv} = TMP[{row}, {a}]", f"    if {wild}:",
              f"        {nw} += 1", "    else:", f"        TMP[{krow}, {nat}] = {key}", f"        {nat} += 1",
              f"{temps} = 0", f"{total} = 0", f"{most} = {most_wild}", f"{over} = False",
              f"if {hi_s} < 0 or {lo_s} <= {hi_s}:",
              f"    {a} = 0",
              f"    while {a} < {nat} and not {over}:",
              f"        {key_a} = TMP[{krow}, {a}]", f"        {dup} = False",
              f"        for {b} in range({a}):", f"            if TMP[{krow}, {b}] == {key_a}:", f"                {dup} = True",
              f"        if not {dup}:", f"            {m} = 0",
              f"            for {b} in range({nat}):", f"                if TMP[{krow}, {b}] == {key_a}:", f"                    {m} += 1",
              f"            {kk} = {first_k}",
              f"            while {kk} <= {m} and not {over}:",
              f"                {need} = max(0, {lo_s} - {kk})", f"                {top} = {most}",
              f"                if {hi_s} >= 0 and {hi_s} - {kk} < {top}:", f"                    {top} = {hi_s} - {kk}",
              f"                if {need} <= {top}:",
              f"                    {jj} = min({kk}, {m} - {kk})", f"                    {c} = 1", f"                    {j} = 1",
              f"                    while {j} <= {jj} and {c} <= {MAX_ITEMS}:",
              f"                        {c} = {c} * ({m} - {j} + 1) // {j}", f"                        {j} += 1",
              f"                    {temps} += {c}",
              f"                    if {temps} > {MAX_ITEMS}:", f"                        {over} = True",
              f"                    elif min({top}, {nw}) >= {need}:",
              f"                        {total} += {c} * (min({top}, {nw}) - {need} + 1)",
              f"                        if {total} > {MAX_ITEMS}:", f"                            {over} = True",
              f"                {kk} += 1",
              f"        {a} += 1",
              f"if {over}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]
    low.depth -= 2
    length = low.helper(env, lines, total)
    if d.get("wild") is not None:
        return meldlists.listed(low, d, args, env, length)  # listed in the step API's order (meldlists.py)

    def loop(var, body):  # listed: each meld a value (meldlist.py)
        from . import meldlist
        return meldlist.melds_in(low, args, env).loop(var, body)
    return ListT(meldvalue.MELDL, loop, length=length)


def lay_offs(low, args, env):
    """``lay_offs(meld, cards)`` as a ListT of cards."""
    if len(args) != 2:
        raise NotTyped("lay_offs with other than a meld and a list of cards", low.path)
    kinds = _kinds(low, None, env, "lay_offs", runs=True)
    meld, cards = bestmelds.meld_list(low, args[0], env), low.lst(args[1], env)
    if cards.elem not in (CARD, NUL):
        raise NotTyped(f"lay_offs of a list of {cards.elem}s", low.path)

    def loop(var, body):
        env2 = dict(env)
        env2["$lay_offs"] = (var, CARD)  # (the card checked: a local the helper is given)
        lines, row, n = _held(low, meld, env2)
        out, was, now, inside, a = (low.fresh("t") for _ in range(5))
        lines += [f"{out} = False", f"{inside} = False", f"for {a} in range({n}):",
                  f"    if TMP[{row}, {a}] == {var}:", f"        {inside} = True"]
        for name, d in kinds:
            lines += _valid_lines(low, d, row, n, was, env2, name)
            # (the card after the meld's: a meld holding every card is no meld with one more)
            lines += [f"{now} = False", f"if {n} < len(TMP[{row}]):", f"    TMP[{row}, {n}] = {var}"] + \
                _indent(_valid_lines(low, d, row, f"({n} + 1)", now, env2, name))
            lines += [f"if {was} and {now} and not {inside}:", f"    {out} = True"]
        low.depth -= 1
        return cards.loop(var, [f"if {low.helper(env2, lines, out)}:"] + _indent(body))
    return ListT(CARD, loop, refs=meld.refs | cards.refs)
