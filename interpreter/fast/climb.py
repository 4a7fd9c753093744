"""The ``climb`` step in the typed kernel: players take turns in order until all the others pass
(climbing games; docs/spec-language.md, "climb"), written as one loop with the step API's rules
(:class:`~interpreter.engine.program.ClimbNext`, ``ClimbAfter``) in the same order:

- before every turn, who is still in (``in`` of each seat of the order, with the ``as`` name bound
  to that seat); the climb ends when fewer than two are in (with ``all_speak``, only once each of
  them has had a turn: a row of TMP by seat), when ``until`` holds, or when everyone
  still in has passed and nobody has played since the pile cleared;
- the pile clears when every player still in other than the last to play has passed since that
  play: ``clear`` runs with ``last`` bound to that player and ``as`` to the next leader (that
  player if still in, else the next player still in after them in the order);
- else the next player still in, from the seat whose turn it is, takes the turn (the ``turn``
  choice, its player the ``as`` name); a null choice (the optional action, the pass) marks the seat
  as passed, any other makes it the last to play and forgets the passes.

The order is kept in a row of TMP (a snapshot, as the step API's list), the passes and who is in
by seat in two more rows. An order that is not a list of distinct seats, or a lead not in it,
flags :data:`~interpreter.fast.lowtypes.ERR_CLIMB` (the step API then replays the game to its
located error). Generated code comes only from the fixed templates below (integer holes,
generated names).
"""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import ERR_CLIMB, INT, RI_ERROR, ListT, NotTyped, _indent


def lower_climb(low, step, env, path):
    """The lines of a ``climb`` step (``low``: the :class:`~interpreter.fast.typepass.Lowering`)."""
    r = step["climb"]
    rp = path + ".climb"
    if not isinstance(r, dict) or not isinstance(r.get("turn"), dict):
        raise NotTyped("a climb without its turn", rp)
    as_name, last_name = str(r.get("as", "player")), str(r.get("last", "last_player"))
    if "players" in r:
        order = low.expr(r["players"], env, rp + ".players")
        if not isinstance(order, ListT) or order.elem != INT:
            raise NotTyped("a climb whose players are not a list of seats", rp + ".players")
    else:
        order = low.range_list("0", "NP")
    snap, orow, m = low.snapshot(order, env)
    all_speak = r.get("all_speak", False) is True
    rows = 3 if all_speak else 2
    prow, irow, srow = low.depth, low.depth + 1, low.depth + 2  # by seat: passed, still in (, has spoken)
    low.depth += rows
    low.max_depth = max(low.max_depth, low.depth)
    cur, sv, last, lastb, tpos, cnt, allp, go, lead, j, q, found = (low.fresh("v") for _ in range(12))
    mute = low.fresh("v") if all_speak else None  # seats still in that have not had a turn
    spoken = (lambda lines: lines) if all_speak else (lambda lines: [])
    i, k = low.fresh("i"), low.fresh("i")
    env_main = dict(env)
    env_main[as_name], env_main[last_name] = (cur, INT), (lastb, INT)
    env_in = dict(env_main)
    env_in[as_name] = (sv, INT)
    low.path = rp + ".lead"
    lead_code = low.scalar(parse(str(r["lead"])), env)[0] if "lead" in r else f"TMP[{orow}, 0]"
    fail = [f"    RI[{RI_ERROR}] = {ERR_CLIMB}", "    return"]
    # the order: distinct seats; the lead one of them (its place is where the turns start)
    lines = snap + [f"for {q} in range(NP):", f"    TMP[{prow}, {q}] = 0", f"    TMP[{irow}, {q}] = 0"] + \
        spoken([f"    TMP[{srow}, {q}] = 0"]) + [f"{tpos} = 0", f"if {m} > 0:", f"    {lead} = {lead_code}", f"    {found} = False",
                    f"    for {i} in range({m}):", f"        {sv} = TMP[{orow}, {i}]",
                    f"        if {sv} < 0 or {sv} >= NP or {sv} == NULL or TMP[{irow}, {sv}] != 0:"] + \
        _indent(fail, 2) + \
        [f"        TMP[{irow}, {sv}] = 1", f"        if {sv} == {lead}:", f"            {found} = True",
         f"            {tpos} = {i}", f"    if not {found}:"] + _indent(fail, 1) + \
        [f"{last} = NULL", f"{lastb} = NULL", f"{cur} = NULL", f"{go} = True"]
    low.path = rp + ".in"
    is_in = low.truth(parse(str(r["in"])), env_in) if "in" in r else "True"
    low.path = rp + ".until"
    until = low.truth(parse(str(r["until"])), env_main) if "until" in r else "False"
    inside = [f"{cnt} = 0"] + spoken([f"{mute} = 0"]) + [f"{allp} = True", f"for {i} in range({m}):",
              f"    {sv} = TMP[{orow}, {i}]", f"    if {is_in}:", f"        TMP[{irow}, {sv}] = 1", f"        {cnt} += 1"] + \
        spoken([f"        {mute} += 1 - TMP[{srow}, {sv}]"]) + [
              f"        if {sv} != {last} and TMP[{prow}, {sv}] == 0:", f"            {allp} = False",
              "    else:", f"        TMP[{irow}, {sv}] = 0", f"{lastb} = {last}"]
    forget = [f"for {i} in range({m}):", f"    TMP[{prow}, TMP[{orow}, {i}]] = 0"]
    # the pile clears: the last to play leads if still in, else the next player in after them
    clear_body = low.block(r.get("clear", []), env_main, rp + ".clear")
    clear = [f"{j} = 0", f"for {i} in range({m}):", f"    if TMP[{orow}, {i}] == {last}:", f"        {j} = {i}",
             f"{tpos} = {j}", f"if TMP[{irow}, {last}] == 0:", f"    {found} = False",
             f"    for {k} in range(1, {m} + 1):", f"        {sv} = TMP[{orow}, ({j} + {k}) % {m}]",
             f"        if not {found} and TMP[{irow}, {sv}] == 1:", f"            {found} = True",
             f"            {tpos} = ({j} + {k}) % {m}",
             f"{cur} = TMP[{orow}, {tpos}]", f"{last} = NULL"] + forget + clear_body
    # a turn: the next player still in from the turn's seat
    turn = {k_: v for k_, v in r["turn"].items() if k_ not in ("player", "players")}
    turn["player"] = as_name
    turn.setdefault("by", as_name)
    pick = [f"{found} = False", f"for {k} in range({m}):", f"    {j} = ({tpos} + {k}) % {m}",
            f"    if not {found} and TMP[{irow}, TMP[{orow}, {j}]] == 1:", f"        {found} = True",
            f"        {tpos} = {j}", f"{cur} = TMP[{orow}, {tpos}]"]
    low.choice_value = None
    choice = low.s_choose({"choose": turn}, env_main, rp + ".turn")
    chosen = low.choice_value
    if chosen is None:
        raise NotTyped("a climb's turn of another form", rp + ".turn")
    after = [f"if {chosen} == NULL:", f"    TMP[{prow}, {cur}] = 1", "else:", f"    {last} = {cur}"] + \
        _indent(forget) + spoken([f"TMP[{srow}, {cur}] = 1"]) + [f"{tpos} = ({tpos} + 1) % {m}"]
    low.depth -= rows + 1
    few = f"{cnt} < 2 and {mute} == 0" if all_speak else f"{cnt} < 2"
    body = inside + [f"if {few}:", f"    {go} = False", f"elif {until}:", f"    {go} = False",
                     f"elif {allp} and {last} == NULL:", f"    {go} = False", f"elif {allp}:"] + \
        _indent(clear) + ["else:"] + _indent(pick + choice + after)
    return lines + [f"while {go}:"] + _indent(body)
