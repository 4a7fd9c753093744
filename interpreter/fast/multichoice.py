"""Set choices in the typed kernel: ``choose`` with ``cards`` and ``min``/``max`` (a meld, a play of
several cards, an exchange), played with the step API's protocol
(:meth:`interpreter.engine.program.Choose.set_legal`), one action at a time:

- ``pick NAME`` for each kind of card not yet picked (one option per name, in card-table order of
  the first such card) that may join the set picked so far (``where``, with the set bound to ``as``
  and the card to ``each``) and after which a set of ``min``..``max`` cards that passes ``valid`` is
  still reachable. Reachability is the step API's depth-first search over the names, with its
  budget of tries (:data:`~interpreter.engine.program.SET_SEARCH_BUDGET`, shared by one listing;
  when it runs out the card is offered), written here as a loop over an explicit stack;
- ``VERB NAME NAME ...`` (the cards picked, in card-table order) when they form a valid set;
- ``undo`` once a card has been picked;
- then the optional action, when the step has one.

A ``pick`` or ``undo`` is an action of its own (it counts toward the game's length, as in the step
API); the choice ends with the set (bound to ``as`` as a list of cards in card-table order; played
to ``to`` as one move) or the optional action (``as`` reads null). The playout kernel draws each
action as the random bot of the step API does (one draw per action); the step API's generator
yields at each; the search's forces the recorded ones by value (a pick by its card, the set by its
size, undo by its mode).

Options in ``OPT``: a pick is (card, :data:`PICK`), the set is (-1 - size, :data:`CONFIRM`), undo
(-1, :data:`UNDO`), the optional action (NULL, NULL). The kernel step API writes their texts from
the site's row of the cards picked (:func:`text_maker`).

Rows of TMP (from the choice's first row ``b``): ``b`` the cards picked (in pick order while the set
is built, sorted once chosen: the ``then`` steps read it), ``b+1`` the set being tried (the search's
prefix), ``b+2..b+4`` each name's card-name number, count and first place in ``b+5``, ``b+5`` the
cards not picked grouped by name, ``b+6`` how many of a name the search has used, ``b+7``/``b+8``
the search's next name and last name per depth, ``b+9``/``b+10`` the cards not picked (sorted) and
their name's place. Generated code comes only from the fixed templates below (integer holes,
generated names).
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import (CARD, ERR_MAX_ACTIONS, INT, MAX_LIST, NULL, ListT, NotTyped, RI_ACTIONS, RI_CHOSEN, RI_ERROR,
                       RI_MAX_ACTIONS, _indent)
from . import realtime, setzones

PICK, UNDO, CONFIRM = NULL + 16, NULL + 17, NULL + 18  # the modes of a set choice's options
ROWS = 11
SET_SEARCH_BUDGET = 2000  # (the step API's: interpreter.engine.program.SET_SEARCH_BUDGET; a test checks)


def is_set_choice(c: dict) -> bool:
    """Whether the ``choose`` mapping ``c`` chooses a set of cards (``min``/``max``, as the step API)."""
    return "min" in c or "max" in c


def card_list(low, row: int, length: str, null: str | None = None) -> ListT:
    """The cards in ``TMP[row, :length]`` as a list (``length`` a generated ``v`` name); ``null``:
    the code that tells the choice's optional action was taken (the list then reads as null)."""
    def loop(var, body):
        i = low.fresh("i")
        return [f"for {i} in range({length}):", f"    {var} = TMP[{row}, {i}]"] + _indent(body)
    out = ListT(CARD, loop, length=length, refs={length})
    out.null = null
    return out


def lower_set_choice(low, c: dict, env: dict, cp: str) -> list:
    """The lines of a set choice (``c`` the ``choose`` mapping, ``cp`` its path) for ``low`` (the
    :class:`~interpreter.fast.typepass.Lowering`); sets ``low.choice_value`` (NULL when the
    optional action was chosen). NotTyped for a set choice of several players at once."""
    if "players" in c or "player" not in c:
        raise NotTyped("a set choice (choose with min:/max:) of several players at once", cp)
    if "cards" not in c:
        raise NotTyped("a set choice without cards:", cp)
    if low.ncards + 4 > MAX_LIST:
        raise NotTyped(f"a set choice in a game of more than {MAX_LIST - 4} cards", cp)
    optional = c.get("optional")
    if optional is True:
        optional = {}
    elif not isinstance(optional, dict):
        optional = None
    verb = str(c.get("action", "choose"))
    as_name, by_name, each_name = str(c.get("as", "choice")), str(c.get("by", "player")), str(c.get("each", "card"))
    seat, npk, dv, value, mode, card = (low.fresh("v") for _ in range(6))
    pc, _ = low.expr(c["player"], env, cp + ".player")
    lines = [f"{seat} = {pc}"]
    env_opt = dict(env)
    env_opt[by_name] = (seat, INT)
    r, lo, hi = low.fresh("v"), low.fresh("v"), low.fresh("v")
    lines.append(f"{r} = {low.zone_row_code(c['cards'], env_opt, cp + '.cards')}")
    b = low.depth
    low.depth += ROWS
    low.max_depth = max(low.max_depth, low.depth)
    PR, PX, GN, GC, GS, GI, GU, PJ, LJ, CI, CG = range(b, b + ROWS)
    low.path = cp + ".min"
    lo_code = low.scalar(parse(str(c["min"])), env_opt)[0] if "min" in c else "1"
    low.path = cp + ".max"
    hi_code = low.scalar(parse(str(c["max"])), env_opt)[0] if "max" in c else f"ZN[{r}]"
    # where: the set so far (the prefix row) bound to `as`, the card tried to `each`
    env_w = dict(env_opt)
    env_w[as_name] = card_list(low, PX, dv)
    env_w[each_name] = (card, CARD)
    low.path = cp + ".where"
    where = low.truth(parse(str(c["where"])), env_w) if "where" in c else "True"
    env_v = dict(env_opt)
    env_v[as_name] = card_list(low, PX, dv)
    low.path = cp + ".valid"
    valid = low.truth(parse(str(c["valid"])), env_v) if "valid" in c else "True"
    n, ng, m, i, q, g, f, nm, acc, go, ret, j, u, budget, confirm, entering, ok, k0, more = \
        (low.fresh("t") for _ in range(19))
    # the cards not picked, sorted, grouped by name (names in order of their first card)
    listing = [f"sort_row(Z[{r}], ZN[{r}], SK)", f"{m} = 0", f"{ng} = 0", f"for {i} in range(ZN[{r}]):",
               f"    {f} = False", f"    for {q} in range({npk}):", f"        if TMP[{PR}, {q}] == SK[{i}]:",
               f"            {f} = True", f"    if not {f}:", f"        {nm} = ATTR[{low.name_id_row}, SK[{i}]]",
               f"        {g} = 0", f"        while {g} < {ng} and TMP[{GN}, {g}] != {nm}:", f"            {g} += 1",
               f"        if {g} == {ng}:", f"            TMP[{GN}, {g}] = {nm}", f"            TMP[{GC}, {g}] = 0",
               f"            {ng} += 1", f"        TMP[{CI}, {m}] = SK[{i}]", f"        TMP[{CG}, {m}] = {g}",
               f"        TMP[{GC}, {g}] += 1", f"        {m} += 1",
               f"{acc} = 0", f"for {g} in range({ng}):", f"    TMP[{GS}, {g}] = {acc}", f"    {acc} += TMP[{GC}, {g}]",
               f"    TMP[{GU}, {g}] = 0", f"for {i} in range({m}):", f"    {g} = TMP[{CG}, {i}]",
               f"    TMP[{GI}, TMP[{GS}, {g}] + TMP[{GU}, {g}]] = TMP[{CI}, {i}]", f"    TMP[{GU}, {g}] += 1",
               f"for {g} in range({ng}):", f"    TMP[{GU}, {g}] = 0",
               f"for {q} in range({npk}):", f"    TMP[{PX}, {q}] = TMP[{PR}, {q}]",
               f"{lo} = {lo_code}", f"{hi} = {hi_code}"]
    # the search (Choose.set_legal's `reachable`, one depth per card of the set tried): at the root
    # (the cards picked) every name is tried once and each reachable one gives a pick option; below,
    # the names from the parent's on, each try spending the budget; a valid set returns True
    listing += [f"{n} = 0", f"{budget} = {SET_SEARCH_BUDGET}", f"{dv} = {npk}", f"{entering} = True", f"{ret} = -1",
                f"{confirm} = False", f"{more} = True",
                f"while {more}:",
                f"    if {entering}:",
                f"        {entering} = False",
                f"        {ok} = {lo} <= {dv} and {dv} <= {hi}",
                f"        if {ok}:",
                f"            {ok} = {valid}",
                f"        if {dv} == {npk}:",
                f"            {confirm} = {ok}",
                f"            TMP[{PJ}, {dv}] = {ng} if {dv} >= {hi} else 0",
                f"        elif {ok}:",
                f"            {ret} = 1",
                f"            {dv} -= 1",
                f"        elif {dv} >= {hi}:",
                f"            {ret} = 0",
                f"            {dv} -= 1",
                "        else:",
                f"            TMP[{PJ}, {dv}] = 0 if {dv} - 1 == {npk} else TMP[{LJ}, {dv} - 1]",
                f"    elif {ret} >= 0:",  # the search one deeper returned ret
                f"        TMP[{GU}, TMP[{LJ}, {dv}]] -= 1",
                f"        if {dv} == {npk}:",
                f"            if {ret} == 1:",
                f"                OPT[0, {n}] = TMP[{PX}, {dv}]",
                f"                OPT[1, {n}] = {PICK}",
                f"                {n} += 1",
                f"            {ret} = -1",
                f"        elif {ret} == 0:",
                f"            {ret} = -1",
                "        else:",
                f"            {dv} -= 1",
                "    else:",
                f"        {j} = TMP[{PJ}, {dv}]",
                f"        if {j} >= {ng}:",
                f"            if {dv} == {npk}:",
                f"                {more} = False",
                "            else:",
                f"                {ret} = 0",
                f"                {dv} -= 1",
                "        else:",
                f"            TMP[{PJ}, {dv}] = {j} + 1",
                f"            {u} = TMP[{GU}, {j}]",
                f"            if {dv} == {npk} or {u} < TMP[{GC}, {j}]:",
                f"                if {dv} > {npk}:",
                f"                    {budget} -= 1",
                f"                if {dv} > {npk} and {budget} < 0:",
                f"                    {ret} = 1",
                f"                    {dv} -= 1",
                "                else:",
                f"                    {card} = TMP[{GI}, TMP[{GS}, {j}] + {u}]",
                f"                    if {where}:",
                f"                        TMP[{GU}, {j}] += 1",
                f"                        TMP[{LJ}, {dv}] = {j}",
                f"                        TMP[{PX}, {dv}] = {card}",
                f"                        {dv} += 1",
                f"                        {entering} = True",
                f"if {confirm}:",
                f"    OPT[0, {n}] = -1 - {npk}",
                f"    OPT[1, {n}] = {CONFIRM}",
                f"    {n} += 1",
                f"if {npk} > 0:",
                f"    OPT[0, {n}] = -1",
                f"    OPT[1, {n}] = {UNDO}",
                f"    {n} += 1"]
    if optional is not None:  # the optional action (`pass`, or its own verb), last, while `when` holds
        add = [f"OPT[0, {n}] = NULL", f"OPT[1, {n}] = NULL", f"{n} += 1"]
        if "when" in optional:
            low.path = cp + ".optional.when"
            listing += [f"if {low.truth(parse(str(optional['when'])), env_opt)}:"] + _indent(add)
        else:
            listing += add
    if low.steps:
        low.sites.append({"verb": verb, "cards": True, "elem": CARD, "tuple_row": None, "modes": True,
                          "optional": None if optional is None else str(optional.get("action", "pass")),
                          "set": {"row": PR}})
        ask = [f"if RI[{RI_ERROR}] != 0:", "    return",
               f"yield {seat} + ({n} << 16) + ({len(low.sites) - 1} << 36)", f"{k0} = RI[{RI_CHOSEN}]"]
    else:
        ask = [f"{k0} = randbelow_row(RG, RI[4] + {seat}, {n})"]
    pick = [f"if {n} == 0:", f"    RI[{RI_ERROR}] = 5", "    return"] + ask + \
        [f"{value} = OPT[0, {k0}]", f"{mode} = OPT[1, {k0}]", f"RI[{RI_ACTIONS}] += 1"] + realtime.acted(low, seat)
    if not low.steps:
        pick += [f"if RI[{RI_ACTIONS}] > RI[{RI_MAX_ACTIONS}]:", f"    RI[{RI_ERROR}] = {ERR_MAX_ACTIONS}",
                 "    return"]
    pick += [f"if {mode} == {PICK}:", f"    TMP[{PR}, {npk}] = {value}", f"    {npk} += 1",
             f"elif {mode} == {UNDO}:", f"    {npk} -= 1", "else:", f"    {go} = False"]
    low.depth = b + 1  # the rows of the listing are free again; the set's row stays for `then`
    # the set chosen, in card-table order (an insertion sort of a few cards); none for the optional action
    x = low.fresh("t")
    chosen = [f"if {value} == NULL:", f"    {npk} = 0", f"for {i} in range(1, {npk}):", f"    {x} = TMP[{PR}, {i}]",
              f"    {j} = {i}", f"    while {j} > 0 and TMP[{PR}, {j} - 1] > {x}:",
              f"        TMP[{PR}, {j}] = TMP[{PR}, {j} - 1]", f"        {j} -= 1", f"    TMP[{PR}, {j}] = {x}"]
    env_then = dict(env)
    env_then[by_name] = (seat, INT)
    env_then[as_name] = card_list(low, PR, npk, null=f"({value} == NULL)")
    played = []
    if "to" in c:
        dst = low.fresh("v")
        play = [f"{dst} = {low.zone_row_code(c['to'], env_then, cp + '.to')}", f"for {i} in range({npk}):",
                f"    play_card(Z, ZN, PB, MD, LOC, TMP[{PR}, {i}], {dst}, {seat}, NULL)"] + \
            setzones.after_move(low, env)
        played = [f"if {npk} > 0:"] + _indent(play)
    low.choice_value = value
    then = low.block(c.get("then", []), env_then, cp + ".then")
    low.depth = b
    head = [f"{npk} = 0", f"{go} = True", f"while {go}:"] + _indent(listing + pick)
    return lines + head + chosen + played + then


def text_maker(verb: str, names: list, row: int, tmp):
    """The text of a set choice's option ``(value, mode)`` in a state whose TMP array is ``tmp``
    (``row``: the site's row of the cards picked), as the step API writes it."""
    def text(v, m):
        if m == PICK:
            return f"pick {names[v]}"
        if m == UNDO:
            return "undo"
        return " ".join([verb] + [names[int(x)] for x in sorted(tmp[row, :-1 - v])])
    return text
