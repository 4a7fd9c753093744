"""``best_melds(cards, rest => VALUE[, 'min'|'max'])`` in the typed kernel (:mod:`interpreter.fast.typepass`),
the same bounded exact search as the step API's (:func:`interpreter.expr.melds.best_melds`), read at
``['value']``, ``['rest']`` or ``['melds']`` (a key written out), and the meld values it gives.

The search, written into one generated helper per call:

- the cards are copied into a row of ``TMP`` (positions 0..n-1, at most 62: a longer list flags
  ``RI_ERROR`` 7 and the step API replays the game);
- the candidate melds (templates) are listed as the step API's ``_templates`` lists them, kind by kind
  in the spec's order: a set kind's groups of equal ``key`` in the order their first card comes, each
  group's choices of ``k`` cards in ``itertools.combinations`` order for ``k`` from the least size; a
  run kind's suits in the order their first card comes, each start position in rank order, each run
  length from the least, each choice of one card per position in ``itertools.product`` order. A
  template is kept as the bit mask of its positions and its first (lowest) position; past the row's
  room the game is flagged (the step API's own bound, MAX_ITEMS, is higher);
- the walk of ``_walk_partitions`` without recursion (a stack of frames in rows of ``TMP``): each
  card, in order, is first left out, then starts each template (in order) whose first card it is and
  that shares no card with those chosen; at each leaf the value of the unmelded cards is computed
  and kept when strictly better (so among equal values the first found wins, as in the step API).
  Past MAX_SEARCH nodes the game is flagged.

Read at ``'value'`` the helper returns the best value; at ``'rest'`` the mask of melded positions (the
list is then the cards not melded, in the list's order); at ``'melds'`` it writes each meld of the best
partition, in the order chosen, into slots of ``MEMO`` (one set of slots per place the list is read)
and returns how many. A meld is then one value (type ``meld``): the bit mask of its cards' ids (a
deck of at most 62 cards), read as a list only by ``lay_offs``, ``is_meld`` and ``count`` (its cards
in id order: uses that see the order of a meld's cards do not type). Kinds with wild cards do not
type here yet. Every line comes from the fixed templates below, whose holes are generated names and
integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from ..expr.melds import MAX_SEARCH
from .lowtypes import BOOL, CARD, ERR_INDEX, INT, NUL, RI_ERROR, ListT, NotTyped, _indent, _names
from . import meldlists, meldruns, meldvalue
from . import cardmeld

MELD = "meld"  # the type of one meld (a bit mask of card ids)
MAX_POSITIONS = 62  # the most cards one search takes (a position is a bit of an int64)


def _is_call(tree) -> bool:
    return getattr(tree, "data", None) == "call" and str(tree.children[0]) == "best_melds"


def call_best_melds(low, args, env):
    """``best_melds(...)`` not read at a key written out."""
    raise NotTyped("best_melds() other than read at ['value'], ['rest'] or ['melds']", low.path)


def index(low, t, env):
    """``best_melds(...)[KEY]`` (``t`` the index node) lowered, or None when ``t`` is another index."""
    obj, key = t.children
    if not _is_call(obj):
        return None
    if getattr(key, "data", None) != "string":
        raise NotTyped("best_melds() read at a key not written out", low.path)
    k = str(key.children[0])[1:-1]
    args = [a for a in obj.children[1:] if a is not None]
    if k == "value":
        pre, body, names, env_s = _search(low, args, env)
        low.depth -= names["rows"]
        return _call(low, env, pre, low.helper(env_s, body, names["best"])), INT
    if k == "rest":
        return _rest(low, args, env)
    if k == "melds":
        return _melds(low, args, env)
    return "NULL", NUL  # (a map without that key: null, as the step API reads it)


def _rest(low, args, env):
    src = low.lst(args[0], env)

    def loop(var, body):
        pre, lines, names, env_s = _search(low, args, env)
        low.depth -= names["rows"]
        used = low.fresh("t")
        pos, w = low.fresh("t"), low.fresh("v")
        call = _call(low, env, pre, low.helper(env_s, lines, names["used"]))
        return [f"{used} = {call}", f"{pos} = 0"] + \
            src.loop(w, [f"if not ({used} >> {pos}) & 1:", f"    {var} = {w}"] + _indent(body, 1) + [f"{pos} += 1"])
    return ListT(CARD, loop, refs=src.refs)


def _melds(low, args, env):
    src = low.lst(args[0], env)
    if low.ncards > MAX_POSITIONS:
        raise NotTyped(f"best_melds()['melds'] of a deck of more than {MAX_POSITIONS} cards", low.path)
    kinds = low.spec.get("melds") or {}
    least = min([max(1, int(d.get("min", 3))) for d in kinds.values() if isinstance(d, dict)] or [1])
    most = MAX_POSITIONS // least + 1

    def loop(var, body):
        slots = [low.memo_slot() for _ in range(most)]
        pre, lines, names, env_s = _search(low, args, env)
        j, t, i, cm, sb = [low.fresh("t") for _ in range(4)] + [low.fresh("v")]
        r, n, bm, tm = names["row"], names["n"], names["BM"], names["TM"]
        lines += [f"for {j} in range({names['nbest']}):", f"    {t} = TMP[{bm}, {j}]", f"    {cm} = 0",
                  f"    for {i} in range({n}):", f"        if (TMP[{tm}, {t}] >> {i}) & 1:",
                  f"            {cm} |= 1 << TMP[{r}, {i}]",
                  f"    MEMO[{sb} + {j}] = {cm}"]
        low.depth -= names["rows"]
        env_s = dict(env_s)
        env_s["$slot"] = (sb, INT)  # (the first slot: a parameter, so that one helper serves every place)
        count, k = low.fresh("t"), low.fresh("t")
        call = _call(low, env, pre + [f"{sb} = {slots[0]}"], low.helper(env_s, lines, names["nbest"]))
        return [f"{count} = {call}", f"for {k} in range({count}):",
                f"    {var} = MEMO[{slots[0]} + {k}]"] + _indent(body)
    return ListT(MELD, loop, refs=src.refs)


def _call(low, env, pre, inner):
    """A helper running ``pre`` (the copy of the cards) then returning the search's ``inner`` call."""
    out = low.fresh("t")
    return low.helper(env, pre + [f"{out} = {inner}"], out)


def meld_list(low, tree, env):
    """The list ``tree`` names as a ListT of cards: a list, or one meld value (its cards in id order)."""
    r = meldlists.as_list(low, cardmeld.listed(low, low.e(tree, env)))  # (a meld melds_in listed: meldlists.py)
    if isinstance(r, ListT):
        return r
    if isinstance(r, tuple) and r[1] == meldvalue.MELDL:  # one meld of melds_in
        return meldvalue.as_list(low, r[0])
    if not isinstance(r, tuple) or r[1] != MELD:
        raise NotTyped("a value" + (f" ({r[1]})" if isinstance(r, tuple) else "") + " where a list is expected", low.path)
    code = r[0]

    def loop(var, body):
        m, i = low.fresh("t"), low.fresh("i")
        return [f"{m} = {code}", f"if {m} != NULL:", f"    for {i} in range({low.ncards}):",
                f"        if ({m} >> {i}) & 1:", f"            {var} = {i}"] + _indent(body, 3)
    return ListT(CARD, loop, refs=_names(code))


def _first_at(low, out, row_k, key, row_p1, row_p2, p, after, n):
    """Lines setting ``out`` to the first position after ``after`` whose key is ``key`` and whose
    run position (either of two) is ``p``, or -1."""
    b = low.fresh("t")
    return [f"{out} = -1", f"for {b} in range({after} + 1, {n}):",
            f"    if {out} < 0 and TMP[{row_k}, {b}] == {key} and (TMP[{row_p1}, {b}] == {p} or TMP[{row_p2}, {b}] == {p}):",
            f"        {out} = {b}"]


def _store(R, mask, first, over, T):
    """Lines keeping one template (``mask`` of positions, its first position) unless the rows are full."""
    return [f"if {T} >= len(TMP[0]):", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {over} = True",
            "else:", f"    TMP[{R['TM']}, {T}] = {mask}", f"    TMP[{R['TF']}, {T}] = {first}", f"    {T} += 1"]


def _set_templates(low, d, R, n, over, T, cenv, cv):
    key, kt = low.scalar(parse(str(d.get("key", "c.rank"))), cenv)
    if kt == CARD:
        raise NotTyped("a meld key that is a card", low.path)
    lo, hi = int(d.get("min", 3)), d.get("max")
    kmin = max(int(d.get("min_natural", 1)), 1, lo)
    a, b, dup, m, k, more, mask, j, jj = (low.fresh("t") for _ in range(9))
    KR, G, D = R["A"], R["G"], R["D"]
    top = f"min({m}, {int(hi)})" if hi is not None else m
    return [f"if not {over}:",
            f"    for {a} in range({n}):", f"        {cv} = TMP[{R['row']}, {a}]", f"        TMP[{KR}, {a}] = {key}",
            f"    for {a} in range({n}):",
            f"        {dup} = False", f"        for {b} in range({a}):",
            f"            if TMP[{KR}, {b}] == TMP[{KR}, {a}]:", f"                {dup} = True",
            f"        if not {dup}:", f"            {m} = 0", f"            for {b} in range({a}, {n}):",
            f"                if TMP[{KR}, {b}] == TMP[{KR}, {a}]:", f"                    TMP[{G}, {m}] = {b}",
            f"                    {m} += 1",
            f"            {k} = {kmin}",
            f"            while {k} <= {top} and not {over}:",
            f"                for {j} in range({k}):", f"                    TMP[{D}, {j}] = {j}",
            f"                {more} = True",
            f"                while {more} and not {over}:",
            f"                    {mask} = 0",
            f"                    for {j} in range({k}):", f"                        {mask} |= 1 << TMP[{G}, TMP[{D}, {j}]]"] + \
        _indent(_store(R, mask, f"TMP[{G}, TMP[{D}, 0]]", over, T), 5) + \
        [f"                    {j} = {k} - 1",
         f"                    while {j} >= 0 and TMP[{D}, {j}] == {m} - {k} + {j}:", f"                        {j} -= 1",
         f"                    if {j} < 0:", f"                        {more} = False", "                    else:",
         f"                        TMP[{D}, {j}] += 1",
         f"                        for {jj} in range({j} + 1, {k}):",
         f"                            TMP[{D}, {jj}] = TMP[{D}, {jj} - 1] + 1",
         f"                {k} += 1"]


def _run_templates(low, name, d, R, n, over, T, cenv, cv):
    lo, hi = meldruns.span(low, name, d)
    suit, rank = meldruns.card_exprs(low, d, cenv)
    lo_n, hi_n = int(d.get("min", 3)), d.get("max")
    least = max(lo_n, int(d.get("min_natural", 1)), 1)
    longest = hi - lo + 1 if hi_n is None else min(int(hi_n), hi - lo + 1)
    a, b, dup, s, st, f, ln, length, more, mask, ok, j, nx, fi, p1, p2 = (low.fresh("t") for _ in range(16))
    KR, P1, P2, D = R["A"], R["B"], R["C"], R["D"]
    row = R["row"]
    odo = [f"for {j} in range({length}):"] + _indent(_first_at(low, nx, KR, s, P1, P2, f"{st} + {j}", -1, n)) + \
        [f"    TMP[{D}, {j}] = {nx}", f"{more} = True",
         f"while {more} and not {over}:",
         f"    {mask} = 0", f"    {ok} = True",
         f"    for {j} in range({length}):", f"        if ({mask} >> TMP[{D}, {j}]) & 1:", f"            {ok} = False",
         f"        {mask} |= 1 << TMP[{D}, {j}]",
         f"    if {ok}:", f"        {fi} = 0", f"        while not ({mask} >> {fi}) & 1:", f"            {fi} += 1"] + \
        _indent(_store(R, mask, fi, over, T), 2) + \
        [f"    {j} = {length} - 1", f"    while {j} >= 0:"] + \
        _indent(_first_at(low, nx, KR, s, P1, P2, f"{st} + {j}", f"TMP[{D}, {j}]", n), 2) + \
        [f"        if {nx} >= 0:", f"            TMP[{D}, {j}] = {nx}", "            break"] + \
        _indent(_first_at(low, nx, KR, s, P1, P2, f"{st} + {j}", -1, n), 2) + \
        [f"        TMP[{D}, {j}] = {nx}", f"        {j} -= 1",
         f"    if {j} < 0:", f"        {more} = False"]
    return [f"if not {over}:",
            f"    for {a} in range({n}):", f"        {cv} = TMP[{row}, {a}]", f"        TMP[{KR}, {a}] = {suit}"] + \
        _indent(meldruns.positions(d, rank, hi, p1, p2), 2) + \
        [f"        TMP[{P1}, {a}] = {p1}", f"        TMP[{P2}, {a}] = {p2}",
         f"    for {a} in range({n}):",
         f"        {dup} = False", f"        for {b} in range({a}):",
         f"            if TMP[{KR}, {b}] == TMP[{KR}, {a}]:", f"                {dup} = True",
         f"        if not {dup}:", f"            {s} = TMP[{KR}, {a}]",
         f"            for {st} in range({lo}, {hi + 1}):"] + \
        _indent(_first_at(low, f, KR, s, P1, P2, st, -1, n), 4) + \
        [f"                if {f} >= 0 and not {over}:", f"                    {ln} = 0",
         f"                    while {st} + {ln} <= {hi} and {ln} < {longest}:"] + \
        _indent(_first_at(low, nx, KR, s, P1, P2, f"{st} + {ln}", -1, n), 6) + \
        [f"                        if {nx} < 0:", "                            break",
         f"                        {ln} += 1",
         f"                    for {length} in range({least}, {ln} + 1):"] + _indent(odo, 6)


def _search(low, args, env):
    """``(pre, lines, names, env)``: the lines copying the cards into a row of TMP (the caller's
    helper), the search's lines (its own helper, in ``env``: the caller's and the row and length as
    parameters), and the names: ``row``/``n`` (the cards), ``best`` (the value), ``used`` (the
    melded positions), ``nbest`` and the rows ``BM`` (the best partition's templates) and ``TM``
    (each template's positions), ``rows`` (how many rows of TMP it holds: the caller gives them
    back with ``low.depth -= rows`` once its own lines are written)."""
    if len(args) not in (2, 3) or getattr(args[1], "data", None) != "lambda_":
        raise NotTyped("best_melds without a lambda (best_melds(cards, rest => VALUE))", low.path)
    better = "<"
    if len(args) == 3:
        g = args[2]
        goal = str(g.children[0])[1:-1] if getattr(g, "data", None) == "string" else None
        if goal not in ("min", "max"):
            raise NotTyped("best_melds with a goal not written out as 'min' or 'max'", low.path)
        better = "<" if goal == "min" else ">"
    decl = low.spec.get("melds") or {}
    if not decl:
        raise NotTyped("best_melds without melds: kinds", low.path)
    for name, d in decl.items():
        if not isinstance(d, dict) or d.get("form") not in ("set", "run"):
            raise NotTyped(f"best_melds: the meld kind {name!r}", low.path)
        if d.get("wild") is not None:
            raise NotTyped(f"best_melds with wild cards (the meld kind {name!r})", low.path)
    lst = low.lst(args[0], env)
    if lst.elem not in (CARD, NUL):
        raise NotTyped(f"best_melds of {lst.elem}s (cards are expected)", low.path)
    held, row, n0 = low.snapshot(lst, env)
    # the rows: from `base`, a parameter of the search's helper (the row is the caller's: one helper
    # serves every place searching with the same rules), as is the length `n` (the parameters of a
    # helper are the v-names its environment reads)
    base, n = low.fresh("v"), low.fresh("v")
    R = {"row": base}
    names = ("A", "B", "C", "D", "G", "TM", "TF", "FI", "FC", "FT", "BM")
    for k, nm in enumerate(names):
        R[nm] = f"({base} + {k + 1})"
    env = dict(env)
    env["$base"], env["$n"] = (base, INT), (n, INT)
    low.depth += len(names)
    low.max_depth = max(low.max_depth, low.depth)
    over, T = low.fresh("t"), low.fresh("t")
    cv = low.fresh("v")
    cenv = {k: v for k, v in env.items() if k.startswith("$")}
    cenv["c"] = (cv, CARD)
    lines = [f"{over} = False", f"{T} = 0",
                    f"if {n} > {MAX_POSITIONS}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}", f"    {over} = True"]
    for name, d in decl.items():
        if d.get("form") == "set":
            lines += _set_templates(low, d, R, n, over, T, cenv, cv)
        else:
            meldruns.check(low, name, d)
            lines += _run_templates(low, name, d, R, n, over, T, cenv, cv)
    # the value of the unmelded cards (positions not in `used`), the lambda's body
    used, best, bused, nbest, nodes, sp, i, top, j, found, v, q = (low.fresh("t") for _ in range(12))
    lam_var, lam_body = args[1].children
    pos = low.fresh("t")

    def rest_loop(var, body):
        return [f"for {pos} in range({n}):", f"    if not ({used} >> {pos}) & 1:",
                f"        {var} = TMP[{base}, {pos}]"] + _indent(body, 2)
    env2 = dict(env)
    env2[str(lam_var)] = ListT(CARD, rest_loop, refs={used, n, base})
    vcode, vt = low.scalar(lam_body, env2)
    if vt not in (INT,):
        raise NotTyped(f"best_melds whose value is a {vt} (a number is expected)", low.path)
    FI, FC, FT, TM, TF, BM = R["FI"], R["FC"], R["FT"], R["TM"], R["TF"], R["BM"]
    walk = [
        f"{used} = 0", f"{best} = NULL", f"{bused} = 0", f"{nbest} = 0", f"{nodes} = 0", f"{sp} = 0", f"{i} = 0",
        "descend = True",
        f"while not {over}:",
        "    if descend:",
        f"        {nodes} += 1",
        f"        if {nodes} > {MAX_SEARCH}:", f"            RI[{RI_ERROR}] = {ERR_INDEX}", "            break",
        f"        while {i} < {n} and ({used} >> {i}) & 1:", f"            {i} += 1",
        f"        if {i} == {n}:",
        f"            {v} = {vcode}",
        f"            if {v} == NULL:", f"                RI[{RI_ERROR}] = {ERR_INDEX}",
        f"            elif {best} == NULL or {v} {better} {best}:",
        f"                {best} = {v}", f"                {bused} = {used}", f"                {nbest} = 0",
        f"                for {q} in range({sp}):", f"                    if TMP[{FT}, {q}] >= 0:",
        f"                        TMP[{BM}, {nbest}] = TMP[{FT}, {q}]", f"                        {nbest} += 1",
        "        else:",
        f"            TMP[{FI}, {sp}] = {i}", f"            TMP[{FC}, {sp}] = -1", f"            TMP[{FT}, {sp}] = -1",
        f"            {sp} += 1",
        "        descend = False",
        f"    if {sp} == 0:", "        break",
        f"    {top} = {sp} - 1",
        f"    if TMP[{FT}, {top}] >= 0:", f"        {used} ^= TMP[{TM}, TMP[{FT}, {top}]]", f"        TMP[{FT}, {top}] = -1",
        f"    if TMP[{FC}, {top}] == -1:",
        f"        TMP[{FC}, {top}] = 0", f"        {i} = TMP[{FI}, {top}] + 1", "        descend = True",
        "    else:",
        f"        {j} = TMP[{FC}, {top}]", f"        {found} = -1",
        f"        while {j} < {T}:",
        f"            if TMP[{TF}, {j}] == TMP[{FI}, {top}] and (TMP[{TM}, {j}] & {used}) == 0:",
        f"                {found} = {j}", "                break",
        f"            {j} += 1",
        f"        if {found} >= 0:",
        f"            TMP[{FC}, {top}] = {found} + 1", f"            TMP[{FT}, {top}] = {found}",
        f"            {used} |= TMP[{TM}, {found}]", f"            {i} = TMP[{FI}, {top}] + 1", "            descend = True",
        "        else:",
        f"            {sp} -= 1",
        f"if {best} == NULL:", f"    {best} = 0"]
    # ("descend": one name per helper; numba types it as a bool)
    d = low.fresh("t")
    walk = [ln.replace("descend", d) for ln in walk]
    lines += [f"{used} = 0", f"{best} = NULL", f"{bused} = 0", f"{nbest} = 0"] + walk
    return held + [f"{base} = {row}", f"{n} = {n0}"], lines, {"row": base, "n": n, "best": best, "used": bused, "nbest": nbest,
                                                "BM": BM, "TM": TM, "rows": len(names) + 1}, env
