"""Real-time steps in the typed kernel (``realtime:``): several players may act at any moment, a
scheduler decides who is first (:mod:`interpreter.agents.schedule`, the README's "Real-time
games").

The kernel plays the step API's games with the default scheduler, ``round-robin``: the seat to
act is the first one clockwise after the seat that acted last (any action of the game, turns
included: ``Scheduler.acted`` is told of every action) that has a legal action. That seat is
kept in a hidden game slot (``GV[last_slot]``, -1 at the start of a game, as ``Scheduler.last``);
every choice of the spec writes it when the spec has a real-time step. A run with another
schedule or reaction times (``--schedule random``, ``--speed``) uses the step API
(:func:`interpreter.fast.kernel.why_not` says so).

The block, as ``RealtimeWait`` runs it: ``until`` is checked first (and after every action's
``then``); the seats are tried clockwise from the one after the last to act, each seat's options
being the union of the actions' options in the actions' order (``OPT[0]`` the value, ``OPT[1]``
the action's index); the first seat with any acts (its random bot picks one of them as
``RandomAgent`` does); nobody with an option ends the block; more than ``MAX_REALTIME_ACTIONS``
actions in one block is an error, as in the step API. Options that are lists (kept as tuples,
:mod:`interpreter.fast.ragged` for lists of several lengths) keep their parts in rows of TMP, and
``OPT[0]`` their place there (:func:`_tuple_listing`).

Generated code comes only from the fixed templates below (integer holes, generated names).
"""
from __future__ import annotations

from ..expr.compiler import parse
from . import compound, ragged, setzones

# the step API's bound on one block's actions (engine.program.MAX_REALTIME_ACTIONS; the engine is a
# layer above this package: tests/test_fast_kernel.py checks that the two agree)
MAX_REALTIME_ACTIONS = 50_000


def uses_realtime(spec) -> bool:
    """Whether a ``realtime`` step appears anywhere in the spec's flow or phases."""
    todo = [spec.get("flow"), spec.get("phases")]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if "realtime" in x:
                return True
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return False


def acted(low, seat_code: str) -> list:
    """The line noting that ``seat_code`` acted (for the scheduler), when the spec has real time."""
    slot = getattr(low, "last_slot", None)
    return [] if slot is None else [f"GV[{slot}] = {seat_code}"]


def lower_realtime(low, step, env, path):
    """The lines of a ``realtime`` step in the games kernel; NotTyped for what it does not cover
    (the step API's module, ``players:``, actions choosing cards with modes)."""
    from .lowtypes import BOOL, CARD, INT, NUL, TEXT, RI_ACTIONS, RI_ERROR, ERR_REALTIME_ACTIONS, ListT, NotTyped, _indent
    r = step["realtime"]
    rp = path + ".realtime"
    if not isinstance(r, dict) or "players" in r:
        raise NotTyped("a realtime step with players: (the kernel lets every seat act)", path)
    low.path = rp + ".until"
    until = low.truth(parse(str(r["until"])), env) if "until" in r else "False"
    seat, n, go, d, cnt, k0, value, alt, tot = (low.fresh("v" if x in "sv" else "t") for x in "sttttsvtt")
    slot = low.last_slot
    listings, thens, alts = [], [], []
    parts_rows = []  # (first row, count) of the TMP rows holding options that are lists, held to the block's end
    for i, a in enumerate(r.get("actions") or []):
        c = a["choose"]
        ap = f"{rp}.actions[{i}].choose"
        by_name, as_name = str(c.get("by", "player")), str(c.get("as", "choice"))
        for key in ("min", "max", "valid", "each"):
            if key in c:
                raise NotTyped(f"a real-time action with {key}:", ap)
        env_opt = dict(env)
        env_opt[by_name] = (seat, INT)
        x = low.fresh("v")  # (a v-name: the helpers `where` calls take it as an argument)
        j, dup, n0 = (low.fresh("t") for _ in range(3))
        to = None
        if "options" in c:
            lst = low.expr(c["options"], env_opt, ap + ".options")
            if not isinstance(lst, ListT):
                raise NotTyped("options: that is not a list", ap)
            elem = lst.elem
            if isinstance(elem, compound.TupT):  # options that are lists: their parts in rows of TMP
                listing, elem, row = _tuple_listing(low, c, ap, env_opt, as_name, i, n, n0, tot if low.steps else "0")
                parts_rows.append((row, len(elem)))
            elif elem not in (INT, BOOL, TEXT, CARD):
                raise NotTyped(f"real-time options that are {elem}s", ap)
            else:
                env_opt[as_name] = (x, elem)
                low.path = ap + ".where"
                where = low.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
                if elem == CARD:  # one option per text: a card's text is its name
                    same = f"ATTR[{low.name_id_row}, OPT[0, {j}]] == ATTR[{low.name_id_row}, {x}]"
                else:
                    same = f"OPT[0, {j}] == {x}"
                body = [f"{dup} = False", f"for {j} in range({n0}, {n}):", f"    if {same}:", f"        {dup} = True",
                        f"if not {dup} and {where}:", f"    OPT[0, {n}] = {x}", f"    OPT[1, {n}] = {i}",
                        f"    {n} += 1"]
                listing = [f"{n0} = {n}"] + lst.loop(x, body)
        elif "cards" in c:
            if low.max_modes:
                raise NotTyped("a real-time action choosing cards that have modes", ap)
            row = low.zone_row_code(c["cards"], env_opt, ap + ".cards")
            elem = CARD
            env_opt[as_name] = (x, CARD)
            low.path = ap + ".where"
            where = low.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
            rr, q = low.fresh("t"), low.fresh("i")
            same = f"ATTR[{low.name_id_row}, OPT[0, {j}]] == ATTR[{low.name_id_row}, {x}]"
            listing = [f"{n0} = {n}", f"{rr} = {row}", f"sort_row(Z[{rr}], ZN[{rr}], SK)",
                       f"for {q} in range(ZN[{rr}]):", f"    {x} = SK[{q}]", f"    {dup} = False",
                       f"    for {j} in range({n0}, {n}):", f"        if {same}:", f"            {dup} = True",
                       f"    if not {dup} and {where}:", f"        OPT[0, {n}] = {x}", f"        OPT[1, {n}] = {i}",
                       f"        {n} += 1"]
            to = low.zone_row_code(c["to"], env_opt, ap + ".to") if "to" in c else None
        else:  # the verb alone
            elem = NUL
            env_opt[as_name] = ("NULL", NUL)
            low.path = ap + ".where"
            where = low.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
            listing = [f"if {where}:", f"    OPT[0, {n}] = NULL", f"    OPT[1, {n}] = {i}", f"    {n} += 1"]
        listings += listing
        tuple_row = parts_rows[-1][0] if isinstance(elem, compound.TupT) else None
        alts.append({"verb": str(c.get("action", "choose")), "elem": list(elem) if tuple_row is not None else elem,
                     "cards": "cards" in c, "tuple_row": tuple_row})
        env_then = dict(env)
        env_then[by_name] = (seat, INT)
        env_then[as_name] = (value, elem) if elem != NUL else ("NULL", NUL)
        chosen = []
        if tuple_row is not None:  # the chosen option's parts, read from its place in the rows
            vt = low.fresh("v")
            env_then[as_name] = compound.bind(vt, elem)
            chosen = [f"{vt} = {value}"] + compound.bind_chosen(vt, elem, tuple_row)
        played = [f"play_card(Z, ZN, PB, MD, LOC, {value}, {to}, {seat}, NULL)"] + setzones.after_move(low, env) \
            if to is not None else []
        thens.append(chosen + played + low.block(c.get("then", []), env_then, ap + ".then"))
    if not thens:
        raise NotTyped("a realtime step without actions", rp)
    dispatch = []
    for i, body in enumerate(thens):
        dispatch += [f"{'if' if i == 0 else 'elif'} {alt} == {i}:"] + _indent(body)
    guard = [f"{cnt} += 1", f"if {cnt} > {int(MAX_REALTIME_ACTIONS)}:", f"    RI[{RI_ERROR}] = {ERR_REALTIME_ACTIONS}", "    return"]
    if low.steps:
        act = guard + _steps_wait(low, listings, alts, seat, n, go, value, alt, tot) + \
            [f"    RI[{RI_ACTIONS}] += 1", f"    GV[{slot}] = {seat}"] + _indent(dispatch)
    else:
        pick = [f"{k0} = randbelow_row(RG, RI[4] + {seat}, {n})", f"{value} = OPT[0, {k0}]", f"{alt} = OPT[1, {k0}]",
                f"RI[{RI_ACTIONS}] += 1", f"GV[{slot}] = {seat}"] + dispatch
        seek = [f"{n} = 0", f"{d} = 0", f"while {n} == 0 and {d} < NP:",
                f"    {seat} = (GV[{slot}] + 1 + {d}) % NP"] + _indent(listings) + [f"    {d} += 1"]
        act = guard + seek + [f"if {n} == 0:", f"    {go} = False", "else:"] + _indent(pick)
    low.depth -= sum(k for _, k in parts_rows)
    return [f"{cnt} = 0", f"{go} = True", f"while {go}:", f"    if {until}:", f"        {go} = False", "    else:"] + \
        _indent(act, 2)


def _tuple_listing(low, c, ap, env_opt, as_name, i, n, n0, offset):
    """The listing of a real-time action whose options are lists (kept as tuples: compound.py):
    each option's parts go into rows of TMP taken from ``low.depth`` (held by the caller to the
    block's end), at place ``offset + n`` (``offset``: 0 in the games kernel, where only the seat
    that acts is listed last; in the step API each seat's options sit after the seats' before it),
    and that place into ``OPT[0]``, the action's index ``i`` into ``OPT[1]``. An option reading as
    one this action already listed (equal parts; cards by name) is listed once, as the step API
    lists one action per text. Returns ``(lines, item type, first row)``."""
    from .lowtypes import CARD, RI_ERROR, _indent
    from . import nestedlists
    lst = low.expr(c["options"], env_opt, ap + ".options")
    nestedlists.refuse(low, "a choice", lst.elem)
    size = len(lst.elem)
    row = low.depth
    low.depth += size
    low.max_depth = max(low.max_depth, low.depth)
    lst = low.expr(c["options"], env_opt, ap + ".options")  # again: rows its own loops keep sit above the parts'
    x, j, dup = low.fresh("v"), low.fresh("t"), low.fresh("t")
    xs = compound.parts_of(x, size)
    env_opt[as_name] = compound.bind(x, lst.elem)
    low.path = ap + ".where"
    where = low.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
    at = f"{offset} + {n}"

    def same(k):
        a = f"TMP[{row + k}, {offset} + {j}]"
        if ragged.base(lst.elem[k]) == CARD:
            return f"card_get(ATTR[{low.name_id_row}], {a}) == card_get(ATTR[{low.name_id_row}], {xs[k]})"
        return f"{a} == {xs[k]}"
    body = [f"{dup} = False", f"for {j} in range({n0}, {n}):", f"    if {' and '.join(same(k) for k in range(size))}:",
            f"        {dup} = True", "        break",
            f"if not {dup} and {where}:", f"    if {at} >= len(TMP[0]):", f"        RI[{RI_ERROR}] = 6", "        return"] + \
        [f"    TMP[{row + k}, {at}] = {xs[k]}" for k in range(size)] + \
        [f"    OPT[0, {n}] = {at}", f"    OPT[1, {n}] = {i}", f"    {n} += 1"]
    return [f"{n0} = {n}"] + lst.loop(x, body), lst.elem, row


def _steps_wait(low, listings, alts, seat, n, go, value, alt, tot):
    """The step API's wait (lines ending in an ``else:`` whose body the caller adds, indented):
    every seat's options listed into rows of TMP (as a simultaneous choice's: the seats that have
    any, in seat order; all values; all action indices; each seat's first index and count), one
    yield (seat field 0xFFFF, the number of seats with options, the site), then the caller's seat
    (``TMP[base + 6, 0]``) and index (``RI[RI_CHOSEN]``) read back. The site records the rows and
    each action's verb and option type (the option texts: see steps.StepKernel)."""
    from .lowtypes import RI_CHOSEN, RI_ERROR, _indent
    row = low.depth
    base = row + 1
    low.depth += 8
    low.max_depth = max(low.max_depth, low.depth)
    low.sites.append({"verb": "realtime", "cards": False, "elem": "int", "modes": False, "optional": None,
                      "tuple_row": None, "realtime": alts, "simultaneous": {"seats": row, "rows": base}})
    site = len(low.sites) - 1
    m, q, s_ = (low.fresh("t") for _ in range(3))
    per_seat = [f"{n} = 0"] + listings + [
        f"if {n} > 0:", f"    if {tot} + {n} > len(TMP[0]):", f"        RI[{RI_ERROR}] = 6", "        return",
        f"    TMP[{row}, {m}] = {seat}", f"    TMP[{base + 4}, {m}] = {tot}", f"    TMP[{base + 5}, {m}] = {n}",
        f"    for {q} in range({n}):", f"        TMP[{base + 2}, {tot} + {q}] = OPT[0, {q}]",
        f"        TMP[{base + 3}, {tot} + {q}] = OPT[1, {q}]", f"    {tot} += {n}", f"    {m} += 1"]
    out = [f"{m} = 0", f"{tot} = 0", f"for {seat} in range(NP):"] + _indent(per_seat) + \
        [f"if {m} == 0:", f"    {go} = False", "else:",
         f"    yield 65535 + ({m} << 16) + ({site} << 36)",
         f"    {seat} = TMP[{base + 6}, 0]",
         f"    {s_} = -1",
         f"    for {q} in range({m}):", f"        if TMP[{row}, {q}] == {seat}:",
         f"            {s_} = TMP[{base + 4}, {q}] + RI[{RI_CHOSEN}]",
         f"    {value} = TMP[{base + 2}, {s_}]", f"    {alt} = TMP[{base + 3}, {s_}]"]
    low.depth -= 8  # (the rows are read back before the action's then runs)
    return out
