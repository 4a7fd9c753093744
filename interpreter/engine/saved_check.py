"""Checks of a loaded State against the compiled programs (the engine's half of loading).

:mod:`interpreter.model.saved` checks the data; this module checks the control position,
which only the engine understands."""
from __future__ import annotations

from ..errors import RuleError
from ..model.cards import Card
from ..model.saved import SaveError, _short
from .context import Ctx
from .program import Call, Choose, ForInit, ForNext


def live_keys(game, phase) -> list:
    """For each position of ``phase``'s program, the loop and choice cursors (frame keys) that
    must exist there; computed once per game."""
    cache = game.__dict__.setdefault("_live_keys", {})
    if phase not in cache:
        prog = game.programs[phase]
        live = [set() for _ in range(len(prog) + 1)]
        for k, instr in enumerate(prog):
            if isinstance(instr, ForNext) and instr.end is not None:
                for pc in range(k, min(instr.end, len(prog))):
                    live[pc].add(instr.key)
        cache[phase] = live
    return cache[phase]


def check_control(game, st) -> None:
    """The stack, the pending decision and the cursors of a loaded State agree with the
    compiled programs (a frame's position follows a call of the next frame's phase, the top
    frame waits at a decision, every loop running there has its cursor, committed choices are
    legal options); raises :class:`SaveError` naming the frame."""
    stack = st.stack
    if not stack:
        return
    # stack[0] is the phase the game started in: the flow, or a set-up position's ``start``
    # phase (new_state(setup=...)); the loader has checked it names a phase.
    for i, (phase, pc, loc) in enumerate(stack):
        prog = game.programs[phase]
        top = i == len(stack) - 1
        if top:
            if pc >= len(prog) or not hasattr(prog[pc], "legal") or (
                    isinstance(prog[pc], Choose) == bool(st.pending.get("realtime"))):
                raise SaveError(f"stack[{i}]: position {pc} of {phase} is not a decision, yet one is pending")
        else:
            if pc == 0 or not isinstance(prog[pc - 1], Call) or prog[pc - 1].phase != stack[i + 1][0]:
                raise SaveError(f"stack[{i}]: position {pc} of {phase} does not follow a call of {stack[i + 1][0]}")
        at = pc - 1 if not top else pc
        need = live_keys(game, phase)[at]
        cursors = {k for k in loc if isinstance(k, str) and k.startswith("$") and ":" in k}
        known = {x.key for x in prog if isinstance(x, ForInit)}
        for key in need - set(loc):
            raise SaveError(f"stack[{i}]: the loop cursor {key} is missing at position {pc} of {phase}")
        for key in cursors:
            if key.startswith(("$for:", "$rep:", "$ch:")):
                if key not in known or key not in need:
                    raise SaveError(f"stack[{i}]: {key} is not a loop of {phase} running at position {pc}")
                cur = loc[key]
                if (type(cur) is not list or len(cur) != 2 or type(cur[0]) is not list or type(cur[1]) is not int
                        or not 0 <= cur[1] <= len(cur[0])):
                    raise SaveError(f"stack[{i}]: the loop cursor {key} must be [items, position within them]")
            elif key.startswith("$climb:"):
                cur = loc[key]
                if (type(cur) is not dict or set(cur) - {"spoken"} != {"order", "turn", "last", "passed"}
                        or type(cur["order"]) is not list or cur["turn"] not in cur["order"]
                        or (cur["last"] is not None and cur["last"] not in cur["order"])
                        or type(cur["passed"]) is not list or any(s not in cur["order"] for s in cur["passed"])
                        or type(cur.get("spoken", [])) is not list
                        or any(s not in cur["order"] for s in cur.get("spoken", []))):
                    raise SaveError(f"stack[{i}]: the climb cursor {key} must be {{order, turn, last, passed}} "
                                    "(and spoken, with all_speak) of the climb's seats")
            elif key.startswith("$while:") and (type(loc[key]) is not int or loc[key] < 0):
                raise SaveError(f"stack[{i}]: the while counter {key} must be a whole number")
    _check_committed(game, st)


def _check_committed(game, st) -> None:
    """Each committed choice is one of its player's legal options at the pending step."""
    committed = st.pending["committed"]
    if not committed:
        return
    frame = st.stack[-1]
    instr = game.programs[frame[0]][frame[1]]
    for k, (seat, value, cid, mode) in committed.items():
        try:
            opts = instr.legal(st, Ctx(st, frame[2]), seat)
        except (RuleError, TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError):
            raise SaveError(f"pending.committed[{k}]: the options of this decision cannot be listed") from None
        if not any(o[1] == value and type(o[1]) is type(value) and o[2] == cid and o[3] == mode for o in opts):
            raise SaveError(f"pending.committed[{k}]: {_short([value if type(value) is not Card else value.name, cid, mode])}"
                            " is not one of the options of that player")
