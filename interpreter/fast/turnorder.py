"""Turn order in the typed kernel (:mod:`interpreter.fast.typepass`): seats sitting out
(``turns: {skip: EXPR of p}``), ``for … until`` (go round until one accepts) and ``end`` (the game
ends in the middle of a phase).

- **Sitting out.** The ``skip`` expression is written with ``p`` bound to the seat where a seat is
  tested (an expression of the seat and the state, as ``teams.of`` is). ``turn_order(s)`` loops
  over the seats from ``s`` clockwise, passing those for which it holds; ``next_player(s, k)`` and
  ``prev_player(s)`` step over them as the step API's built-ins do (from a seat that sits out,
  the next seat in play is the first step). ``players`` and ``num_players`` still count every
  seat. Every seat sitting out is the step API's error: the kernel flags the game (``RI_ERROR``
  :data:`~interpreter.fast.lowtypes.ERR_INDEX`; the step API replays it and says why).
- **for … until.** The list is read once, when the step starts (as every ``for``); before each
  pass, the first too, the loop ends as soon as ``until`` holds (evaluated without the loop's
  name bound, as the step API evaluates it before binding the next item).
- **end.** The kernel's step API (a generator with every phase written inline) returns; the
  playout kernel sets ``RI[RI_END]`` and returns, and every phase call returns at once after it
  (the flow clears the mark when a game starts).

Every line comes from the fixed templates below; their holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from . import lowtypes as tp

RI_END = tp.RI_END


def skip_of(low):
    """The tree of ``turns.skip``, or None when no seat ever sits out."""
    turns = low.spec.get("turns")
    if not isinstance(turns, dict) or turns.get("skip") is None:
        return None
    return parse(str(turns["skip"]))


def sits_out(low, seat_code: str) -> str:
    """Code true when the seat ``seat_code`` (a generated name) sits out now."""
    saved = low.path
    low.path = "turns.skip"
    code = low.truth(skip_of(low), {"p": (seat_code, tp.INT)})
    low.path = saved
    return code


def _none_in_play(low, flag_lines):
    """Lines that count the seats in play into a new name and run ``flag_lines`` (indented under
    an ``if``) when there is none; returns (lines, count name)."""
    m, i = low.fresh("t"), low.fresh("i")
    return [f"{m} = 0", f"for {i} in range(NP):", f"    if not {sits_out(low, i)}:", f"        {m} += 1",
            f"if {m} == 0:", f"    RI[{tp.RI_ERROR}] = {tp.ERR_INDEX}"] + tp._indent(flag_lines), m


def turn_order(low, start: str):
    """``turn_order(start)`` with seats sitting out: a ListT of the seats in play, clockwise from
    ``start``."""
    def loop(var, body):
        i, s, n = low.fresh("i"), low.fresh("t"), low.fresh("t")
        return [f"{s} = {start}", f"{n} = 0", f"for {i} in range(NP):", f"    {var} = ({s} + {i}) % NP",
                f"    if not {sits_out(low, var)}:", f"        {n} += 1"] + tp._indent(body, 2) + \
            [f"if {n} == 0:", f"    RI[{tp.RI_ERROR}] = {tp.ERR_INDEX}"]
    return tp.ListT(tp.INT, loop, refs=tp._names(start))


def _step_on(low, frm: str, to: str) -> list:
    """Lines setting ``to`` to the first seat in play after ``frm`` (clockwise)."""
    i, q, f = low.fresh("i"), low.fresh("t"), low.fresh("t")
    return [f"{f} = 0", f"{to} = {frm}", f"for {i} in range(1, NP):", f"    {q} = ({frm} + {i}) % NP",
            f"    if {f} == 0 and not {sits_out(low, q)}:", f"        {to} = {q}", f"        {f} = 1"]


def next_player(low, args, env):
    """``next_player(s)`` / ``next_player(s, k)`` passing the seats that sit out (as the step
    API's: the seats in play in a ring, ``k`` steps from ``s``); None without ``turns.skip``."""
    if skip_of(low) is None:
        return None
    sc, _ = low.scalar(args[0], env)
    kc = low.scalar(args[1], env)[0] if len(args) == 2 else "1"
    s, k, out, j, nxt = low.fresh("t"), low.fresh("t"), low.fresh("t"), low.fresh("i"), low.fresh("t")
    count, m = _none_in_play(low, [f"{k} = 0"])
    lines = [f"{s} = {sc}", f"{k} = {kc}", f"{out} = NULL"] + count + ["else:"] + tp._indent(
        [f"if {sits_out(low, s)}:"] + tp._indent(_step_on(low, s, nxt) + [f"{s} = {nxt}", f"{k} -= 1"]) +
        [f"{k} = {k} % {m}", f"{out} = {s}", f"for {j} in range({k}):"] +
        tp._indent(_step_on(low, out, nxt) + [f"{out} = {nxt}"]))
    return low.helper(env, lines, out), tp.INT


def prev_player(low, args, env):
    """``prev_player(s)``: the first seat in play before ``s`` (``s`` itself when it alone is in
    play); None without ``turns.skip``."""
    if skip_of(low) is None:
        return None
    sc, _ = low.scalar(args[0], env)
    s, out, q, i = low.fresh("t"), low.fresh("t"), low.fresh("t"), low.fresh("i")
    count, _ = _none_in_play(low, ["pass"])
    lines = [f"{s} = {sc}", f"{out} = NULL"] + count + [
        f"for {i} in range(1, NP + 1):", f"    {q} = ({s} - {i}) % NP",
        f"    if {out} == NULL and not {sits_out(low, q)}:", f"        {out} = {q}"]
    return low.helper(env, lines, out), tp.INT


def for_until(low, step, env, path):
    """``for: NAME, in: LIST, until: COND, do: [...]``: the lines of the loop."""
    lst = low.expr(step.get("in", "[]"), env, path + ".in")
    if not isinstance(lst, tp.ListT):
        raise tp.NotTyped("a for step over a value that is not a list", path)
    lines, row, n = low.snapshot(lst, env)
    low.path = path + ".until"
    until = step["until"]
    cond = low.truth(parse("true" if until is True else "false" if until is False else str(until)), env)
    v, i, done = low.fresh("v"), low.fresh("i"), low.fresh("t")
    env2 = dict(env)
    env2[str(step["for"])] = (v, lst.elem)
    body = low.block(step.get("do", []), env2, path + ".do")
    low.depth -= 1
    return lines + [f"{done} = False", f"for {i} in range({n}):", f"    if not {done} and {cond}:",
                    f"        {done} = True", f"    if not {done}:", f"        {v} = TMP[{row}, {i}]"] + \
        tp._indent(body, 2)


def uses_end(spec) -> bool:
    """Whether an ``end`` step appears anywhere in the spec's flow or phases."""
    todo = [spec.get("flow"), spec.get("phases")]
    while todo:
        x = todo.pop()
        if isinstance(x, dict):
            if "end" in x:  # (a key of no other step: at worst one more check after each phase)
                return True
            todo.extend(x.values())
        elif isinstance(x, list):
            todo.extend(x)
    return False


def end_step(low, step, env, path) -> list:
    """``end: TEXT``: the game ends now (its message is a log: nothing in the game)."""
    if low.steps:
        return ["return"]
    return [f"RI[{RI_END}] = 1", "return"]


def after_phase(low) -> str:
    """The condition on which the code after a phase call returns at once: an error flagged, or
    (in a spec with ``end``) the game ended."""
    if not low.steps and uses_end(low.spec):
        return f"RI[{tp.RI_ERROR}] != 0 or RI[{RI_END}] != 0"
    return f"RI[{tp.RI_ERROR}] != 0"


def flow_start(low) -> list:
    """The playout flow's first lines: the end mark cleared (a spec with ``end``)."""
    if not low.steps and uses_end(low.spec):
        return [f"RI[{RI_END}] = 0"]
    return []
