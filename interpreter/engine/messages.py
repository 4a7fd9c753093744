"""Instructions that tell the players something: ``log``, ``show``, ``end`` and ``assert``, and
the rendering of their message parts to text (bounded by :data:`~interpreter.expr.builtins.MAX_TEXT`).
"""
from __future__ import annotations

from ..errors import RuleError
from ..expr.compiler import MAX_TEXT
from ..model.cards import Card
from .instr import Instr


class Log(Instr):
    """A message for the players. ``visible`` (a compiled expression giving a seat or a list of
    seats, or None for everyone) limits who reads it; the others read ``hidden`` (a template)
    if given, else nothing."""
    __slots__ = ("parts", "table", "visible", "hidden")
    kind = "log"

    def __init__(self, parts, table, visible=None, hidden=None):
        self.parts, self.table, self.visible, self.hidden = parts, table, visible, hidden

    def run(self, state, ctx, frame):
        if state.events is not None:  # nobody is watching: skip building the text
            text = render(ctx, self.parts)
            to = other = None
            if self.visible is not None:
                to = seat_list(state, self.visible(ctx), "visible_to")
                other = render(ctx, self.hidden) if self.hidden is not None else None
            # the table is a snapshot: later steps change the variables
            state.emit("log", text=text, table=state.game.table_rows(state) if self.table else None,
                       to=to, other=other)
        frame[1] += 1


class Show(Instr):
    """``show: {cards, to}``: the seats ``to`` (a seat or a list of seats) see ``cards`` (a card
    or a list of cards) wherever they lie, until each card moves (see ``State.shown``)."""
    __slots__ = ("cards", "to")
    kind = "show"

    def __init__(self, cards, to):
        self.cards, self.to = cards, to

    def run(self, state, ctx, frame):
        chosen = self.cards(ctx)
        if chosen is None:
            chosen = []
        elif type(chosen) is Card:
            chosen = [chosen]
        elif not isinstance(chosen, list):
            raise RuleError(f"show: cards must be a card or a list of cards, not {chosen!r}")
        seats = seat_list(state, self.to(ctx), "show: to")
        shown = state.shown
        for card in chosen:
            if type(card) is not Card:
                raise RuleError(f"show: {card!r} is not a card")
            old = shown.get(card.id, [])
            shown[card.id] = sorted(set(old) | set(seats))  # a new list: clones share the old one
        if chosen and seats:
            names = ", ".join(state.player_name(p) for p in seats)
            # in card-table order: the seer learns which cards, not their order in a hidden pile
            cards = ", ".join(c.name for c in sorted(chosen, key=lambda c: c.id))
            state.emit("log", text=f"shown to {names}: {cards}", table=None, to=seats, other=None)
        frame[1] += 1


def seat_list(state, value, what) -> list:
    """``value`` (a seat or a list of seats) as a sorted list of distinct seats; raises
    :class:`RuleError` naming ``what`` for anything else."""
    items = [value] if type(value) is int else value
    if not isinstance(items, list):
        raise RuleError(f"{what}: {value!r} is not a player or a list of players")
    for seat in items:
        if type(seat) is not int or not 0 <= seat < state.num_players:
            raise RuleError(f"{what}: {seat!r} is not a player")
    return sorted(set(items))


def render(ctx, parts) -> str:
    """The text of a compiled template (literal strings and compiled ``{expr}`` parts), cut
    with "..." past MAX_TEXT characters (a list may hold one sub-list many times)."""
    out = []
    budget = [MAX_TEXT]
    for p in parts:
        if isinstance(p, str):
            out.append(p)
            budget[0] -= len(p)
        else:
            _text_into(out, p(ctx), budget, 0)
        if budget[0] < 0:
            return "".join(out)[:MAX_TEXT] + "..."
    return "".join(out)


def _text(ctx, value):
    out = []
    budget = [MAX_TEXT]
    _text_into(out, value, budget, 0)
    text = "".join(out)
    return text[:MAX_TEXT] + "..." if budget[0] < 0 else text


def _text_into(out, value, budget, depth):
    """Append the text of ``value`` to ``out`` while ``budget[0]`` (characters) lasts."""
    if budget[0] < 0:
        return
    if type(value) is dict:
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            out.append(", " if i else "")
            _text_into(out, k, budget, depth + 1)
            out.append(": ")
            budget[0] -= 4
            _text_into(out, v, budget, depth + 1)
            if budget[0] < 0:
                return
        out.append("}")
        return
    if type(value) is list or type(value) is tuple:
        if depth > 60:
            out.append("...")
            budget[0] = -1
            return
        for i, v in enumerate(value):
            if i:
                out.append(", ")
                budget[0] -= 2
            _text_into(out, v, budget, depth + 1)
            if budget[0] < 0:
                return
        return
    if type(value) is Card:
        text = value.name
    elif value is None:
        text = "none"
    elif isinstance(value, bool):
        text = "yes" if value else "no"
    else:
        text = str(value)
    out.append(text)
    budget[0] -= len(text)


class End(Instr):
    __slots__ = ("parts",)
    kind = "end"

    def __init__(self, parts):
        self.parts = parts

    def run(self, state, ctx, frame):
        if self.parts:
            state.emit("log", text=render(ctx, self.parts), table=None, to=None, other=None)
        state.stack.clear()


class Assert(Instr):
    """``assert``: a condition the rules require at this point; when it does not hold the game
    stops with a RuleError carrying the spec's message (not a confusing failure later)."""
    __slots__ = ("cond", "parts", "text")
    kind = "assert"

    def __init__(self, cond, parts, text):
        self.cond, self.parts, self.text = cond, parts, text

    def run(self, state, ctx, frame):
        if not self.cond(ctx):
            message = "".join(p if isinstance(p, str) else _text(ctx, p(ctx)) for p in self.parts)
            raise RuleError(f"the rules require {self.text}" + (f": {message}" if message else ""))
        frame[1] += 1
