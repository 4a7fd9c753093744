"""Turns and ``moved_this_turn(cards)`` in the typed kernel (see :mod:`interpreter.fast.typepass`).

The step API (``turns: {phase: NAME}``) keeps, in the frame of each run of the turn phase, the
place of every card as the turn began; ``moved_this_turn(cards)`` gives the cards of the list (or
of a zone of sets: of its sets) whose place differs now, in the list's order, and ``[]`` outside
a turn. A place is a zone and a seat: the set of a zone of sets does not count.

Layout: one row of ``Z`` (``low.turn_row``, after the zones' rows) holds, for each card id, its
place as the turn began plus 2, or 0 outside a turn (no card counts as moved). The place is the
card's row of ``Z`` (``LOC``), a row of a zone of sets taken back to its owner's first row (sets
move up and down rows as others empty). The row is cleared when the flow starts and when the turn
phase returns, and written when it is called; it is never counted as a zone (``ZN`` stays 0, so
``gather`` and a new game's placing pass it by). The step API refuses a phase that runs itself, so
turns never nest here.

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import CARD, NUL, ListT, NotTyped, _indent


def layout(low, row: int) -> int:
    """Record the turn phase (``low.turn_phase``, None without ``turns: {phase}``) and its row of
    Z (``low.turn_row``, which is ``row``); return how many rows it takes (1, or 0 without)."""
    low.turn_phase = getattr(low.game, "turn_phase", None)
    low.turn_row = row if low.turn_phase else None
    return 1 if low.turn_phase else 0


def _place(low, c: str):
    """(lines, name): the lines that set the generated name to card ``c``'s place (its row of Z;
    a zone of sets' row taken back to its owner's first row)."""
    r = low.fresh("t")
    lines = [f"{r} = LOC[{c}]"]
    for name, ks in low.set_zones.items():
        base = low.zone_row[name]
        owners = low.maxp if low.per_player[name] else 1
        lines += [f"if {base} <= {r} and {r} < {base + owners * ks}:",
                  f"    {r} = {base} + (({r} - {base}) // {ks}) * {ks}"]
    return lines, r


def _clear(low) -> list:
    c = low.fresh("i")
    return [f"for {c} in range({low.ncards}):", f"    Z[{low.turn_row}, {c}] = 0"]


def flow_start(low) -> list:
    """The flow's first lines: no turn yet (the row cleared; a game may reuse a last game's arrays)."""
    return _clear(low) if low.turn_row is not None else []


def around_call(low, name: str, call_lines: list) -> list:
    """``call_lines`` (a phase call and its return check) with the turn's start before them and
    its end after them when ``name`` is the turn phase."""
    if low.turn_row is None or name != low.turn_phase:
        return call_lines
    c = low.fresh("i")
    lines, r = _place(low, c)
    start = [f"for {c} in range({low.ncards}):"] + _indent(lines + [f"Z[{low.turn_row}, {c}] = {r} + 2"])
    return start + call_lines + _clear(low)


def call(low, args, env) -> ListT:
    """``moved_this_turn(cards)`` as a ListT of cards."""
    if len(args) != 1:
        raise NotTyped("moved_this_turn with other than one list", low.path)
    if low.turn_row is None:
        raise NotTyped("moved_this_turn without turns: {phase: NAME}", low.path)
    src = low.lst(args[0], env)
    if src.elem not in (CARD, NUL):
        from .setlists import call_flatten
        from .setzones import SET
        if src.elem != SET:
            raise NotTyped(f"moved_this_turn of a list of {src.elem}s (cards, or a zone of sets)", low.path)
        src = call_flatten(low, args, env)
    row = low.turn_row

    def loop(var, body):
        lines, r = _place(low, var)
        return src.loop(var, lines + [f"if Z[{row}, {var}] != 0 and Z[{row}, {var}] != {r} + 2:"] + _indent(body))
    return ListT(CARD, loop, refs=src.refs)
