"""Step programs: the spec's steps compiled to a flat list of instructions per phase.

The control position of a game is data: a stack of frames ``[phase, pc, locals]``
in the State, where ``pc`` indexes the phase's instruction list and ``locals``
holds the names bound by enclosing steps (loop variables, chosen values).
Each instruction's ``run(state, ctx, frame)`` does its work and sets ``frame[1]``.
"""
from __future__ import annotations

from ..errors import RuleError
from ..expr.builtins import MAX_ITEMS, _check_size
from ..expr.compiler import MAX_TEXT, _add, check_value
from ..model.cards import Card
from ..model.saved import MAX_STACK
from .context import Ctx

CHOICES = "$choices"


def _own(v):
    """A deep copy of plain data (lists and maps; cards, numbers and texts shared): one slice
    for a flat list."""
    t = type(v)
    if t is list:
        for x in v:
            tx = type(x)
            if tx is list or tx is dict or tx is tuple:
                return [_own(y) for y in v]
        return v[:]
    if t is dict:
        return {k: _own(x) for k, x in v.items()}
    if t is tuple:
        return tuple([_own(x) for x in v])
    return v
LAZY_PRODUCTS = True  # False: product options listed as texts like any list (the tests compare both)


class Instr:
    """Base instruction. ``path`` is the spec path of the step it comes from;
    ``step_id`` names that step in the rule-flow graph (for traces)."""

    __slots__ = ("path", "step_id")
    kind = "instr"

    def run(self, state, ctx, frame):  # pragma: no cover - abstract
        raise NotImplementedError


class ZoneRef:
    """A zone named in a step: a game zone (``owner`` is None) or a player's zone
    (``owner`` is a compiled expression giving the seat). For a zone of sets, ``index``
    (a compiled expression, 0-based) names one set; without it the zone as a destination
    means a new set."""

    __slots__ = ("name", "owner", "text", "index", "sets")

    def __init__(self, name, owner, text, index=None, sets=False):
        self.name, self.owner, self.text = name, owner, text
        self.index, self.sets = index, sets

    def _whole(self, state, ctx, write=False):
        owner = self.owner
        if owner is None:
            return state.zone_for_write(self.name) if write else state.zones[self.name]
        seat = owner(ctx)
        if type(seat) is not int or not 0 <= seat < state.num_players:
            raise RuleError(f"{self.text}: {seat!r} is not a player")
        return state.zone_for_write(self.name, seat) if write else state.zones[self.name][seat]

    def cards(self, state, ctx, write=False) -> list:
        """The zone's list of card ids (the live list, not a copy); one set of a zone of sets.
        ``write``: the caller changes it in place (:meth:`State.zone_for_write`)."""
        zone = self._whole(state, ctx, write)
        if not self.sets:
            return zone
        if self.index is None:
            raise RuleError(f"{self.text} is a zone of sets: name one set, e.g. {self.text}[0]")
        k = self.index(ctx)
        if type(k) is not int or not -len(zone) <= k < len(zone):
            raise RuleError(f"{self.text}: there is no set {k!r} (there are {len(zone)})")
        return zone[k]

    def dest(self, state, ctx) -> list:
        """The live list cards are put into, ready to change: a zone of sets without an index
        opens a new set."""
        if self.sets and self.index is None:
            zone = self._whole(state, ctx, True)
            zone.append([])
            return zone[-1]
        return self.cards(state, ctx, True)


# phases running inside each other (a game's own nesting is a handful): as many as a save may hold
MAX_CALL_DEPTH = MAX_STACK


class Call(Instr):
    """Enter a phase. ``args`` is a list of (name, compiled expression): evaluated in the
    caller's scope, they are the phase's own step-bound names (``phases: {trick(leader): ...}``)."""
    __slots__ = ("phase", "args")
    kind = "phase"

    def __init__(self, phase, args=()):
        self.phase, self.args = phase, list(args)

    def run(self, state, ctx, frame):
        if len(state.stack) >= MAX_CALL_DEPTH:  # phases calling each other in a cycle, through decisions
            raise RuleError(f"phase {self.phase}: more than {MAX_CALL_DEPTH} phases are running inside each other "
                            "(each called the next and none has ended): phases calling each other in a cycle "
                            "never return; loop with repeat, or let a phase end before the next one starts")
        local = {name: f(ctx) for name, f in self.args}
        frame[1] += 1
        state.stack.append([self.phase, 0, local])


class Jump(Instr):
    __slots__ = ("target",)

    def __init__(self, target=None):
        self.target = target

    def run(self, state, ctx, frame):
        frame[1] = self.target


class JumpIfNot(Instr):
    __slots__ = ("cond", "target")
    kind = "if"

    def __init__(self, cond, target=None):
        self.cond, self.target = cond, target

    def run(self, state, ctx, frame):
        if self.cond(ctx):
            frame[1] += 1
        else:
            frame[1] = self.target


class ForInit(Instr):
    """Evaluates the list to loop over and stores it with a cursor in the frame."""
    __slots__ = ("key", "items")
    kind = "for"

    def __init__(self, key, items):
        self.key, self.items = key, items

    def run(self, state, ctx, frame):
        items = self.items(ctx)
        if isinstance(items, int) and not isinstance(items, bool):
            if items > MAX_ITEMS:
                raise RuleError(f"cannot loop {items} times: a loop runs at most {MAX_ITEMS} times")
            items = list(range(1, items + 1))  # `repeat: N` counts 1..N; N <= 0 runs no time
        elif isinstance(items, dict):
            items = list(items)
        elif not isinstance(items, list):
            raise RuleError(f"cannot loop over {items!r}: expected a list or a number")
        else:
            check_value(ctx, items)
            # the cursor owns its items: a list an expression returns may be a live variable
            # (changed in place later), and clones share a cursor (State.clone)
            items = _own(items)
        # the cursor is a pair replaced at each pass (never changed in place)
        frame[2][self.key] = (items, 0)
        frame[1] += 1


class ForNext(Instr):
    __slots__ = ("key", "var", "end", "own")

    def __init__(self, key, var, end=None):
        self.key, self.var, self.end = key, var, end
        # the engine's own names ($choice) are never read by the rules: bound as they are
        self.own = var is not None and not var.startswith("$")

    def run(self, state, ctx, frame):
        loc = frame[2]
        items, i = loc[self.key]
        if i < len(items):
            if self.var is not None:
                x = items[i]
                tx = type(x)
                # an item that is a list or map is bound as a copy: the cursor's items are never
                # reachable from the rules, so clones may share them (State.clone)
                loc[self.var] = _own(x) if self.own and (tx is list or tx is dict) else x
            loc[self.key] = (items, i + 1)
            frame[1] += 1
        else:
            del loc[self.key]
            frame[1] = self.end


class ForNextUntil(ForNext):
    """:class:`ForNext` of a ``for`` with ``until``: before each pass (the first too) the loop
    ends as soon as ``until`` holds ("go round from X until one accepts")."""
    __slots__ = ("until",)

    def __init__(self, key, var, until, end=None):
        super().__init__(key, var, end)
        self.until = until

    def run(self, state, ctx, frame):
        if self.until(ctx):
            frame[2].pop(self.key, None)
            frame[1] = self.end
            return
        super().run(state, ctx, frame)


class ChoicesInit(ForInit):
    """The start of a choice's ``then`` loop (over the choices made, one per chooser), with the
    first pass of that loop run at once: :class:`ForInit`, :class:`ForNext` and
    :class:`BindChoice` in one step, then, when the ``then`` is empty and one player chose,
    the loop's end too. The frame ends exactly as after those steps one by one (same cursor,
    same locals, same position), so States saved either way continue alike."""
    __slots__ = ("next", "bind", "bind_pc", "jump_pc")

    def __init__(self, key, items):
        super().__init__(key, items)
        self.next = self.bind = None  # set by the compiler once the loop is laid out
        self.bind_pc = self.jump_pc = None

    def run(self, state, ctx, frame):
        loc = frame[2]
        items = loc.pop(CHOICES)  # built by the engine for this loop: owned already
        if not items or self.bind is None:  # (a choice with no chooser jumps past the loop)
            loc[self.key] = (items, 0)
            frame[1] += 1
            return
        loc[self.key] = (items, 1)
        loc[self.next.var] = items[0]
        frame[1] = self.bind_pc
        self.bind.run(state, ctx, frame)
        if frame[1] == self.jump_pc and len(items) == 1:  # empty `then`, one chooser: the loop is over
            del loc[self.key]
            frame[1] = self.next.end


class WhileCheck(Instr):
    """``while`` with a bound: counts passes in the frame and stops with an error past ``max``."""
    __slots__ = ("key", "cond", "max", "end")
    kind = "while"

    def __init__(self, key, cond, max_, end=None):
        self.key, self.cond, self.max, self.end = key, cond, max_, end

    def run(self, state, ctx, frame):
        loc = frame[2]
        if self.cond(ctx):
            n = loc.get(self.key, 0) + 1
            if n > self.max:
                raise RuleError(f"the while loop ran more than its max of {self.max} times")
            loc[self.key] = n
            frame[1] += 1
        else:
            loc.pop(self.key, None)
            frame[1] = self.end


class Assign(Instr):
    """``set`` and ``add``: ``targets`` is a list of ``(kind, name, extra, value_fn)`` with
    kind ``var`` (game variable), ``local``, ``player`` (extra: seat expression) or
    ``index`` (extra: container and key expressions, for ``m[key]``)."""
    __slots__ = ("targets", "add")
    kind = "set"

    def __init__(self, targets, add=False):
        self.targets, self.add = targets, add

    def run(self, state, ctx, frame):
        targets = self.targets
        if len(targets) == 1 and not self.add:  # one game variable or step-bound name: set at once
            kind, name, _, fn = targets[0]
            if kind == "var" or kind == "local":
                value = fn(ctx)
                t = type(value)
                if t is list or t is dict or t is tuple:
                    check_value(ctx, value)
                    state.note_nested(kind, name)
                (state.vars if kind == "var" else frame[2])[name] = value
                frame[1] += 1
                return
        # Evaluate every value first so that `set: {a: b, b: a}` swaps.
        values = [(t, check_value(ctx, t[3](ctx))) for t in targets]
        for (kind, name, extra, _), value in values:
            if kind == "var":
                store, key = state.vars, name
            elif kind == "local":
                store, key = frame[2], name
            elif kind == "player" or kind == "team":
                seat = extra(ctx)
                if type(seat) is not int or not 0 <= seat < state.num_players:
                    raise RuleError(f"cannot set .{name} of {seat!r}: not a player")
                store, key = state.pvars[seat], name
                if kind == "team":  # a team variable: every member of the seat's team holds the value
                    if self.add:
                        old = store.get(key)
                        value = check_value(ctx, _add(0 if old is None else old, value))
                    teams = state.game.teams(state.num_players)
                    nested = type(value) in (list, dict)
                    for q in range(state.num_players):
                        if teams[q] == teams[seat]:
                            state.pvars[q][key] = _copy_plain(value) if nested else value
                    if nested:
                        state.note_nested(kind, name)
                    continue
            else:
                store, key = extra[0](ctx), extra[1](ctx)
                if type(store) is not dict and type(store) is not list:
                    raise RuleError(f"cannot set an entry of {store!r}: not a map or list")
                if type(value) is list or type(value) is dict:
                    # a copy: `m[k]` set to m itself (or to a list holding m) would make a value
                    # that contains itself, which no one can print, copy or save
                    value = _copy_plain(value)
            if self.add:
                old = store[key] if type(store) is list else store.get(key)
                value = check_value(ctx, _add(0 if old is None else old, value))
            store[key] = value
            if type(value) is list or type(value) is dict or type(value) is tuple:
                state.note_nested(kind, name)
        frame[1] += 1


class RandomSet(Assign):
    """``random``: like ``set``, but each value is a list and the target receives one item of
    it drawn with the State's seeded generator (the first item in stacked scenarios)."""
    __slots__ = ()
    kind = "random"

    def __init__(self, targets):
        super().__init__([(k, n, x, _random_item(f)) for k, n, x, f in targets])


def _random_item(fn):
    def pick(ctx):
        items = fn(ctx)
        if isinstance(items, dict):
            items = list(items)
        if not isinstance(items, list) or not items:
            raise RuleError(f"random: needs a non-empty list to pick from, not {items!r}")
        state = ctx.state
        if state.chance is not None and not state.stacked:  # a chance node: the outcome comes from outside
            from .chance import next_outcome
            index = next_outcome(state, "random", len(items))[1]
            state.rng_count += 1
            return items[index]
        return items[state.random_index(len(items))]
    return pick


class Shuffle(Instr):
    __slots__ = ("zone",)
    kind = "shuffle"

    def __init__(self, zone):
        self.zone = zone

    def run(self, state, ctx, frame):
        ids = self.zone.cards(state, ctx, True)
        if state.chance is not None and not state.stacked:  # a chance node: the outcome comes from outside
            from .chance import next_outcome, shuffle_with
            shuffle_with(state, ids, next_outcome(state, "shuffle", len(ids), ids))
            state.rng_count += 1
        else:
            state.shuffle(ids)
        frame[1] += 1


class Move(Instr):
    """Moves cards: ``count`` from the top of ``src``, or the given ``cards`` (from ``src``
    if given, else from wherever they are). ``at`` is ``top`` or ``bottom`` of ``dst``."""
    __slots__ = ("src", "dst", "count", "cards", "at", "sets_touched")
    kind = "move"

    def __init__(self, src, dst, count, cards, at, sets_touched=False):
        self.src, self.dst, self.count, self.cards, self.at = src, dst, count, cards, at
        self.sets_touched = sets_touched  # the game has zones of sets: a set emptied here disappears

    def run(self, state, ctx, frame):
        marks = state.marks
        if self.cards is not None:
            chosen = self.cards(ctx)
            if chosen is None:
                chosen = []
            elif type(chosen) is Card:
                chosen = [chosen]
            ids = []
            for card in chosen:
                if type(card) is not Card:
                    raise RuleError(f"move: {card!r} is not a card")
                if card.id in ids:  # moved once already: a card is in one place at a time
                    raise RuleError(f"move: {card.name} is listed twice in the cards to move "
                                    "(a card can be moved once per step)")
                src = self.src.cards(state, ctx, True) if self.src is not None else state.find_zone(card.id)
                try:
                    src.remove(card.id)
                except ValueError:
                    raise RuleError(f"move: {card.name} is not in {self.src.text}") from None
                ids.append(card.id)
        else:
            src = self.src.cards(state, ctx, True)
            if self.count is None:
                ids = list(src)
                src.clear()
            else:
                n = self.count(ctx)
                if type(n) is not int or n < 0:
                    raise RuleError(f"move: count must be a whole number, not {n!r}")
                n = min(n, len(src))
                ids = src[len(src) - n:] if n else []
                del src[len(src) - n:]
                ids.reverse()  # taking one at a time from the top reverses their order
        shown = state.shown
        for i in ids:
            marks.pop(i, None)
            if shown:
                shown.pop(i, None)  # a card shown to some seats is known only until it moves
        if ids or not self.dst.sets:  # moving nothing opens no new set
            dst = self.dst.dest(state, ctx)
            if self.at == "bottom":
                dst[0:0] = ids
            else:
                dst.extend(ids)
        if self.sets_touched:
            state.drop_empty_sets()
        frame[1] += 1


class Gather(Instr):
    """Moves every card of the game to one zone, in card-table order, clearing marks."""
    __slots__ = ("dst",)
    kind = "gather"

    def __init__(self, dst):
        self.dst = dst

    def run(self, state, ctx, frame):
        dst = self.dst.cards(state, ctx, True)
        kept = list(dst) if state.stacked else []  # scenario decks keep their given order on top
        for name, zdef in state.game.zones.items():
            if zdef.per_player:
                for seat in range(state.num_players):
                    state.zone_for_write(name, seat).clear()
            else:
                state.zone_for_write(name).clear()
        held = set(kept)
        dst.extend(i for i in state.game.cards_in_play(state.num_players) if i not in held)
        dst.extend(kept)
        state.marks.clear()
        state.shown.clear()
        frame[1] += 1


class Deal(Instr):
    """Deals ``count`` cards to each player, one at a time clockwise from ``start``.
    ``count`` is a compiled expression, None (as many as deal evenly; the rest stays) or
    ``"all"`` (every card of the source round the table: the first seats may get one more)."""
    __slots__ = ("src", "zone", "count", "start", "players")
    kind = "deal"

    def __init__(self, src, zone, count, start, players):
        self.src, self.zone, self.count, self.start, self.players = src, zone, count, start, players

    def run(self, state, ctx, frame):
        src = self.src.cards(state, ctx, True)
        hands = [state.zone_for_write(self.zone, p) for p in range(state.num_players)]
        if self.count == "all":
            n = None
        else:
            n = self.count(ctx) if self.count is not None else None
        if self.players is not None:
            seats = self.players(ctx)
        else:
            start = self.start(ctx) if self.start is not None else 0
            seats = [(start + i) % state.num_players for i in range(state.num_players)]
        if n is None:  # deal everything evenly; the rest stays in the source
            n = len(src) // max(1, len(seats))
        if self.count == "all":
            k = 0
            while src and seats:
                cid = src.pop()
                state.marks.pop(cid, None)
                state.shown.pop(cid, None)
                hands[seats[k % len(seats)]].append(cid)
                k += 1
            frame[1] += 1
            return
        if self.count is not None and n * len(seats) > len(src):
            raise RuleError(f"cannot deal {n} card(s) to each of {len(seats)} players: "
                            f"{self.src.text} holds only {len(src)}")
        marks, shown = state.marks, state.shown
        if marks or shown:
            for _ in range(n):
                for p in seats:
                    cid = src.pop()
                    marks.pop(cid, None)
                    shown.pop(cid, None)
                    hands[p].append(cid)
        else:  # nothing marked or shown (a fresh deck): no mark to forget
            for _ in range(n):
                for p in seats:
                    hands[p].append(src.pop())
        frame[1] += 1


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


def _copy_plain(v):
    """A deep copy of plain data (lists and maps; cards and scalars shared)."""
    t = type(v)
    if t is dict:
        return {k: _copy_plain(x) for k, x in v.items()}
    if t is list or t is tuple:
        return [_copy_plain(x) for x in v]
    return v


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


PICK, UNDO = "$pick", "$undo"  # the mode field of a set choice's building options
SET_SEARCH_BUDGET = 2000  # cards tried while checking that a partial set can still be completed


class Choose(Instr):
    """A decision. Sequential (``player``) or simultaneous (``players``): every chooser
    picks one option without seeing the others'. Options are cards of a zone (``cards``,
    filtered by ``where``; identical cards give one option; a card with modes gives one
    option per mode) or values of a list (``options``).
    ``visible`` (a compiled expression of the chooser and the choice, or None for everyone)
    limits who reads the chosen action; the others read ``hidden`` (a template).

    ``optional`` is None or ``(text, when)``: an extra action (``pass`` by default, or the
    spec's own verb) that chooses nothing, offered while ``when`` (None: always) holds.

    A *set choice* (``min``/``max`` given, with ``cards``) chooses several cards of the zone as
    one decision: the chooser builds the set card by card (``pick NAME``, ``undo``) and
    confirms it with ``VERB NAME NAME ...``, listed once the set so far satisfies ``valid``
    and the size bounds (see :meth:`set_legal`); that full text is also accepted directly.
    """

    __slots__ = ("action", "player", "players", "cards", "where", "options", "to", "optional",
                 "as_name", "by_name", "skip_to", "label", "visible", "hidden", "min", "max", "valid",
                 "each_name", "product", "card_options")
    kind = "choose"

    def __init__(self, action, player, players, cards, where, options, to, optional, as_name, by_name,
                 visible=None, hidden=None, min_=None, max_=None, valid=None, each_name="card"):
        self.action, self.player, self.players = action, player, players
        self.cards, self.where, self.options = cards, where, options
        self.to, self.as_name, self.by_name = to, as_name, by_name
        if optional is True:
            optional = ("pass", None)
        self.optional = optional or None
        self.visible, self.hidden = visible, hidden
        self.min, self.max, self.valid, self.each_name = min_, max_, valid, each_name
        self.skip_to = None
        # card id -> the options of that card (one per mode), built once: texts are constant
        self.card_options = {}
        # the factors (compiled lists) when `options` is a product(...) of lists: the options
        # are then listed lazily, by index (see ProductOptions)
        self.product = None

    @property
    def is_set(self) -> bool:
        """Whether this is a set choice (several cards as one decision)."""
        return self.min is not None or self.max is not None

    def privacy(self, state, ctx, seat, option) -> list | None:
        """``[seats who read the action, text the others read]`` for ``seat``'s chosen ``option``
        (a ``(text, value, card_id, mode)`` tuple), or None when the action is public. The
        chooser always reads their own action."""
        if self.visible is None:
            return None
        b = ctx.bound
        b[self.by_name] = seat
        b[self.as_name] = state.game.cards[option[2]] if option[2] is not None else option[1]
        try:
            seats = seat_list(state, self.visible(ctx), "visible_to")
            if self.hidden is not None:
                other = render(ctx, self.hidden)
            else:
                other = f"{state.player_name(seat)} made a hidden choice ({self.action})"
        finally:
            b.clear()
        return [sorted(set(seats) | {seat}), other]

    def run(self, state, ctx, frame):
        if self.player is not None:
            seat = self.player(ctx)
            if type(seat) is not int or not 0 <= seat < state.num_players:
                raise RuleError(f"choose: {seat!r} is not a player")
            seats = [seat]
        else:
            seats = self.players(ctx)
            if not isinstance(seats, list):
                raise RuleError(f"choose: players must be a list of seats, not {seats!r:.80}")
            for seat in seats:
                if type(seat) is not int or not 0 <= seat < state.num_players:
                    raise RuleError(f"choose: {seat!r:.40} in players is not a player "
                                    f"(seats are 0..{state.num_players - 1})")
            if len(set(seats)) != len(seats):
                raise RuleError(f"choose: players names a seat twice ({seats!r:.80}); each player chooses once")
            if not seats:
                frame[1] = self.skip_to
                return
        state.pending = {"players": list(seats), "committed": {}, "simultaneous": self.player is None}

    def legal(self, state, ctx, seat) -> list:
        """The options of ``seat`` as ``(text, value, card_id, mode)`` tuples, in a stable order."""
        b = ctx.bound
        b[self.by_name] = seat
        out = []
        ctx.hoisted = {}  # the parts of `where` that do not depend on the option: once per listing
        try:
            if self.min is not None or self.max is not None:  # a set choice (is_set, inline)
                out = self.set_legal(state, ctx, seat)
            elif self.cards is not None:
                zone = self.cards.cards(state, ctx)
                cards = state.game.cards
                seen = set()
                as_name, where = self.as_name, self.where
                known = self.card_options
                for cid in sorted(zone):
                    card = cards[cid]
                    name = card.name
                    if name in seen:
                        continue
                    if where is not None:
                        b[as_name] = card
                        if not where(ctx):
                            continue
                    seen.add(name)
                    opts = known.get(cid)
                    if opts is None:
                        if card.modes:
                            opts = [(f"{self.action} {name} as {mode}", None, cid, mode) for mode in card.modes]
                        else:
                            opts = [(f"{self.action} {name}", None, cid, None)]
                        known[cid] = opts
                    out += opts
            elif self.options is None:  # a real-time action without a value: the verb alone
                if self.where is not None:
                    b[self.as_name] = None
                if self.where is None or self.where(ctx):
                    out.append((self.action, None, None, None))
            else:
                if self.product is not None and self.where is None and LAZY_PRODUCTS:
                    lazy = ProductOptions.make(self.action, [f(ctx) for f in self.product])
                    if lazy is not None:
                        if self.optional is not None:
                            text, when = self.optional
                            if when is None or when(ctx):
                                if lazy.find(text) is not None:
                                    raise RuleError(f"the optional action {text!r} reads like another option")
                                lazy.tail = [(text, None, None, None)]
                        return lazy
                values = self.options(ctx)
                if isinstance(values, dict):
                    values = list(values)
                seen = {}
                for v in values:
                    if type(v) is list or type(v) is dict:
                        check_value(ctx, v)
                    if self.where is not None:
                        b[self.as_name] = v
                        if not self.where(ctx):
                            continue
                    text = f"{self.action} {_value_text(v)}"
                    if text in seen:
                        if seen[text] != v or type(seen[text]) is not type(v):
                            raise RuleError(f"two options read the same ({text!r}): {seen[text]!r} and {v!r}")
                        continue
                    seen[text] = v
                    out.append((text, v, None, None))
            if self.optional is not None:
                text, when = self.optional
                if when is None or when(ctx):
                    if any(o[0] == text for o in out):
                        raise RuleError(f"the optional action {text!r} reads like another option")
                    out.append((text, None, None, None))
        finally:
            b.clear()
            ctx.hoisted = None
        return out

    # -- set choices ------------------------------------------------------------------
    def bounds(self, ctx, zone_size) -> tuple:
        """``(min, max)`` sizes of a set choice (max defaults to the zone's size)."""
        lo = self.min(ctx) if self.min is not None else 1
        hi = self.max(ctx) if self.max is not None else zone_size
        for what, v in (("min", lo), ("max", hi)):
            if isinstance(v, bool) or not isinstance(v, int):
                raise RuleError(f"choose: {what} must be a whole number, not {v!r}")
        return lo, hi

    def set_fits(self, ctx, ids) -> bool:
        """Whether the cards ``ids`` satisfy ``valid`` (the set bound to ``as``)."""
        if self.valid is None:
            return True
        cards = ctx.game.cards
        ctx.bound[self.as_name] = [cards[i] for i in ids]
        return bool(self.valid(ctx))

    def may_join(self, ctx, prefix, cid) -> bool:
        """Whether card ``cid`` may join the set ``prefix`` (``where``, with the set so far bound
        to ``as`` and the card to ``each``)."""
        if self.where is None:
            return True
        cards = ctx.game.cards
        ctx.bound[self.as_name] = [cards[i] for i in prefix]
        ctx.bound[self.each_name] = cards[cid]
        return bool(self.where(ctx))

    def set_legal(self, state, ctx, seat) -> list:
        """The options of a set choice for ``seat``, given the cards already picked
        (``state.pending["picked"][seat]``, card ids):

        - ``pick NAME`` for each kind of card that may join (``where``) and after which a valid
          set is still reachable within ``max`` (a bounded search; past SET_SEARCH_BUDGET tries
          the card is offered);
        - ``VERB NAME ...`` (the cards picked, in card-table order) when they form a valid set
          of ``min``..``max`` cards; its value is the list of cards;
        - ``undo`` when a card has been picked.

        So a player with 11 cards sees at most a dozen options at every stage, never every
        subset."""
        cards = state.game.cards
        zone = self.cards.cards(state, ctx)
        picked = list(((state.pending or {}).get("picked") or {}).get(str(seat), ()))
        taken = set(picked)
        by_name: dict = {}
        for cid in sorted(zone):
            if cid not in taken:
                by_name.setdefault(cards[cid].name, []).append(cid)
        lo, hi = self.bounds(ctx, len(zone))
        names = list(by_name)
        budget = [SET_SEARCH_BUDGET]

        def complete(prefix):
            return lo <= len(prefix) <= hi and self.set_fits(ctx, prefix)

        def reachable(prefix, used, start):
            if complete(prefix):
                return True
            if len(prefix) >= hi:
                return False
            for j in range(start, len(names)):
                ids = by_name[names[j]]
                u = used.get(j, 0)
                if u >= len(ids):
                    continue
                budget[0] -= 1
                if budget[0] < 0:
                    return True  # too many to search: offer it (undo is always there)
                if not self.may_join(ctx, prefix, ids[u]):
                    continue
                used[j] = u + 1
                found = reachable(prefix + [ids[u]], used, j)
                used[j] = u
                if found:
                    return True
            return False

        out = []
        if len(picked) < hi:
            for j, name in enumerate(names):
                cid = by_name[name][0]
                if self.may_join(ctx, picked, cid) and reachable(picked + [cid], {j: 1}, 0):
                    out.append((f"pick {name}", None, cid, PICK))
        if complete(picked):
            chosen = sorted(picked)
            out.append((set_text(self.action, [cards[i].name for i in chosen]),
                        [cards[i] for i in chosen], None, None))
        if picked:
            out.append(("undo", None, None, UNDO))
        return out

    def direct_set(self, state, ctx, seat, names):
        """The option for the whole set ``names`` typed at once (``VERB NAME NAME ...``), or a
        reason (str) why it is not legal. The cards already picked must be among them."""
        cards = state.game.cards
        zone = sorted(self.cards.cards(state, ctx))
        picked = list(((state.pending or {}).get("picked") or {}).get(str(seat), ()))
        wanted = list(names)
        for cid in picked:
            if cards[cid].name in wanted:
                wanted.remove(cards[cid].name)
            else:
                return f"the set must include the card(s) already picked ({', '.join(cards[i].name for i in picked)}); type undo to drop one"
        prefix = list(picked)
        where = f"their {self.cards.name}" if self.cards.owner is not None else self.cards.text
        for name in wanted:
            cid = next((i for i in zone if cards[i].name == name and i not in prefix), None)
            if cid is None:
                have = sum(1 for i in zone if cards[i].name == name)
                return (f"there is no card named {name!r} in this game" if name not in state.game.card_names
                        else f"not enough {name} in {where} ({have} held)")
            if not self.may_join(ctx, prefix, cid):
                return f"{name} may not join {', '.join(cards[i].name for i in prefix) or 'the set'}"
            prefix.append(cid)
        lo, hi = self.bounds(ctx, len(zone))
        if not lo <= len(prefix) <= hi:
            return f"a set here has {lo} to {hi} cards, not {len(prefix)}"
        if not self.set_fits(ctx, prefix):
            return "these cards do not form a valid set here"
        chosen = sorted(prefix)
        return (set_text(self.action, [cards[i].name for i in chosen]), [cards[i] for i in chosen], None, None)


def set_text(action, names) -> str:
    """The text of a chosen set: the verb and the card names (``meld seven seven joker``)."""
    return " ".join([action] + list(names))


def _value_text(v) -> str:
    t = type(v)
    if t is str:  # fast paths: big option lists (product(...)) are mostly strings and numbers
        return v
    if t is int:
        return str(v)
    if t is Card:
        return v.name
    if t is list or t is tuple:
        parts = []
        for x in v:  # inline the common items: this runs once per item of every option
            tx = type(x)
            parts.append(x if tx is str else str(x) if tx is int else _value_text(x))
        return " ".join(parts)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "none"
    return str(v)


class BindChoice(Instr):
    """Start of a choice's ``then`` loop body: binds the chooser and the chosen value,
    and plays a chosen card to the ``to`` zone (marking who played it, and its mode)."""

    __slots__ = ("as_name", "by_name", "to", "src")

    def __init__(self, as_name, by_name, to, src=None):
        self.as_name, self.by_name, self.to, self.src = as_name, by_name, to, src

    def run(self, state, ctx, frame):
        loc = frame[2]
        seat, value, cid, mode = loc["$choice"]
        loc[self.by_name] = seat
        if cid is not None:
            card = state.game.cards[cid]
            loc[self.as_name] = card
            if self.to is not None:
                ctx.locals = loc
                dst = self.to.dest(state, ctx)
                src = None
                if self.src is not None:
                    ctx.bound[self.by_name] = seat
                    src = self.src.cards(state, ctx, True)
                    if cid not in src:
                        src = None
                (src if src is not None else state.find_zone(cid)).remove(cid)
                dst.append(cid)
                state.shown.pop(cid, None)
                state.marks[cid] = [seat, mode]
                if state.game.has_sets:
                    state.drop_empty_sets()
        else:
            # a list or map chosen is bound as a copy: the choice is kept in the loop's cursor,
            # which clones share (see ForNext)
            loc[self.as_name] = _own(value) if type(value) is list or type(value) is dict else value
            if self.to is not None and type(value) is list and value:  # a set choice: one move
                ctx.locals = loc
                dst = self.to.dest(state, ctx)
                for card in value:
                    state.find_zone(card.id).remove(card.id)
                    state.marks[card.id] = [seat, None]
                    state.shown.pop(card.id, None)
                dst.extend(card.id for card in value)
                state.drop_empty_sets()
        frame[1] += 1


MAX_REALTIME_ACTIONS = 50_000  # actions in one real-time block (the longest seen in a shipped spec: under 500)
REALTIME_COUNT = "$realtime"  # the frame's count of its block's actions


class RealtimeWait(Instr):
    """A real-time block waiting for its next action: from here any listed player (``players``,
    default every seat) may take any of the ``alts`` (Choose instructions, never run as steps)
    at any moment, until ``until`` holds or nobody has a legal action; then it jumps to ``end``.

    Each time it runs (at the start and after every action's ``then``) it checks ``until``,
    lists every listed player's options (the union of the alternatives' options, each
    tagged with the alternative's index) and makes the players who have any the current
    players; the engine then runs the chosen alternative's body (``entries[index]``), which
    jumps back here. Who acts first is not the rules' business: a scheduler decides."""

    __slots__ = ("players", "until", "alts", "entries", "end")
    kind = "realtime"
    cards = None  # not a card choice itself (see the engine's refusal reasons)
    action = None

    def __init__(self, players, until):
        self.players, self.until = players, until
        self.alts, self.entries, self.end = [], [], None

    def seats(self, state, ctx) -> list:
        if self.players is None:
            return list(range(state.num_players))
        seats = self.players(ctx)
        if not isinstance(seats, list) or any(type(s) is not int or not 0 <= s < state.num_players for s in seats):
            raise RuleError(f"realtime: players must be a list of seats, not {seats!r}")
        return seats

    def run(self, state, ctx, frame):
        loc = frame[2]
        if self.until is not None and self.until(ctx):
            loc.pop(REALTIME_COUNT, None)
            frame[1] = self.end
            return
        # a block whose until never holds while an action stays possible would run for ever: its
        # actions are counted (in the frame, so clones and saves count on) up to a bound
        n = loc.get(REALTIME_COUNT, 0) + 1
        if n > MAX_REALTIME_ACTIONS:
            raise RuleError(f"realtime: {MAX_REALTIME_ACTIONS} actions were taken in this block and its until "
                            "never held: a block that cannot end?")
        loc[REALTIME_COUNT] = n
        memo = {}  # the State does not change while the options are listed
        active = []
        for seat in self.seats(state, ctx):
            c = Ctx(state, frame[2])
            c.memo = memo
            opts = self.legal(state, c, seat)
            state._legal_cache[seat] = opts
            if opts:
                active.append(seat)
        if not active:  # nobody can act: the block is over
            state._legal_cache = {}
            loc.pop(REALTIME_COUNT, None)
            frame[1] = self.end
            return
        state.pending = {"players": active, "committed": {}, "simultaneous": False, "realtime": True}

    def legal(self, state, ctx, seat) -> list:
        """``seat``'s options: ``(text, value, card_id, mode, alternative index)`` tuples, the
        alternatives in spec order. Two alternatives offering the same text is an error."""
        out, seen = [], set()
        memo = ctx.memo
        for i, alt in enumerate(self.alts):
            ctx.memo = memo
            for opt in alt.legal(state, ctx, seat):
                if opt[0] in seen:
                    raise RuleError(f"realtime: two actions read the same ({opt[0]!r}); give each action its own verb")
                seen.add(opt[0])
                out.append(opt + (i,))
        return out


class RealtimeBind(BindChoice):
    """Start of a real-time action's body: binds the acting player and the chosen value like
    a choice's ``then`` (and plays a chosen card to ``to``), then forgets the pending choice."""

    __slots__ = ()

    def run(self, state, ctx, frame):
        super().run(state, ctx, frame)
        frame[2].pop("$choice", None)


class ProductOptions:
    """The options of a choice among ``product(A, B, ...)`` (no ``where``), listed lazily: a
    read-only sequence of ``(text, value, None, None)`` tuples in the order ``product`` lists them
    (the last list varying fastest), where option ``i`` is computed from ``i`` alone (mixed radix).
    So a bot draws an index and only that option is built, never the whole list of texts (a
    placement of one side and four tokens on five cells: 2 x 5^4 = 1,250 per seat and round).
    ``len`` builds nothing; :meth:`value` builds an option's value alone; :meth:`text` builds one
    text (the only place one is built: iterating, slicing or indexing builds texts, for display);
    :meth:`index_of` checks a text from its words. The options after the product's ``n`` are the
    ``tail`` (an optional action such as ``pass``).

    Only made when every list's items read differently (as one word each, ignoring case): then
    every option reads differently too, and the eager listing would give exactly these options."""

    __slots__ = ("prefix", "lists", "texts", "lookup", "exact", "sizes", "n", "tail")

    @classmethod
    def make(cls, action, lists, tail=()):
        """A ProductOptions, or None when the lists do not qualify (then list them eagerly)."""
        texts, lookup = [], []
        total = 1
        for xs in lists:
            if isinstance(xs, dict):
                xs = list(xs)
            if not isinstance(xs, list):
                return None
            words = [_value_text(x) for x in xs]
            low = {w.lower(): j for j, w in enumerate(words)}
            if len(low) != len(words) or any(not w or " " in w for w in words):
                return None
            texts.append(words)
            lookup.append(low)
            total *= len(xs)
        if not lists or total == 0:
            return None
        _check_size(total)  # the same bound product() itself enforces
        self = cls.__new__(cls)
        self.prefix = action + " "
        self.lists = [list(xs) if isinstance(xs, dict) else xs for xs in lists]
        self.texts, self.lookup = texts, lookup
        self.exact = [{w: j for j, w in enumerate(words)} for words in texts]
        self.sizes = [len(xs) for xs in self.lists]
        self.n = total
        self.tail = list(tail)
        return self

    def __len__(self):
        return self.n + len(self.tail)

    def picks(self, i: int) -> list:
        """The position in each list of option ``i`` (0 <= i < n, the product's options only)."""
        picks = []
        for size in reversed(self.sizes):
            i, j = divmod(i, size)
            picks.append(j)
        picks.reverse()
        return picks

    def value(self, i: int):
        """The value of option ``i`` (a list with one item of each list; a tail option's value),
        built without its text. Raises IndexError out of range."""
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n][1]
        return [xs[j] for xs, j in zip(self.lists, self.picks(i))]

    def text(self, i: int) -> str:
        """The text of option ``i`` (``prefix`` and one word per list). Raises IndexError out of
        range. The only place a product option's text is built."""
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n][0]
        return self.prefix + " ".join(t[j] for t, j in zip(self.texts, self.picks(i)))

    def _index(self, i: int) -> int:
        n = self.n + len(self.tail)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        return i

    def __getitem__(self, i):
        if type(i) is slice:
            return [self[k] for k in range(*i.indices(len(self)))]
        i = self._index(i)
        if i >= self.n:
            return self.tail[i - self.n]
        return (self.text(i), self.value(i), None, None)

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def index_of(self, text: str, exact: bool = False):
        """The index of the option whose text is ``text`` (ignoring case; with ``exact``, only
        the text exactly as listed), or None: found from its words (one table look-up per list),
        without building any option's text. This is how a product option is checked."""
        if type(text) is not str:
            return None
        if exact:
            for k, opt in enumerate(self.tail):
                if opt[0] == text:
                    return self.n + k
            if not text.startswith(self.prefix):
                return None
            words, tables = text[len(self.prefix):].split(" "), self.exact
        else:
            low = text.lower()
            for k, opt in enumerate(self.tail):
                if opt[0].lower() == low:
                    return self.n + k
            if not low.startswith(self.prefix.lower()):
                return None
            words, tables = low[len(self.prefix):].split(" "), self.lookup
        if len(words) != len(tables):
            return None
        i = 0
        for word, table, size in zip(words, tables, self.sizes):
            j = table.get(word)
            if j is None:
                return None
            i = i * size + j
        return i

    def find(self, text):
        """The option whose text is ``text`` (compared ignoring case), or None (see :meth:`index`)."""
        i = self.index_of(text)
        return None if i is None else self[i]


# -- climbing turns: take turns until all the others pass --------------------------------------
def _climb_cursor(loc, key) -> dict:
    cur = loc.get(key)
    if type(cur) is not dict or not {"order", "turn", "last", "passed"} <= set(cur):
        raise RuleError("climb: its turn bookkeeping is missing or damaged (a saved State edited by hand?)")
    return cur


class ClimbStart(Instr):
    """Start of a ``climb`` block: evaluates the players' order (``players``, default every seat
    from 0) and who leads first (``lead``, default the first of them) and keeps them in the
    frame under ``key`` as ``{order, turn, last, passed}`` (replaced, never changed in place:
    clones share frames' values). Binds ``last_name`` (the last player who played) to null."""

    __slots__ = ("key", "players", "lead", "last_name")
    kind = "climb"

    def __init__(self, key, players, lead, last_name):
        self.key, self.players, self.lead, self.last_name = key, players, lead, last_name

    def run(self, state, ctx, frame):
        n = state.num_players
        order = list(range(n)) if self.players is None else self.players(ctx)
        if not isinstance(order, list) or any(type(s) is not int or not 0 <= s < n for s in order) \
                or len(set(order)) != len(order):
            raise RuleError(f"climb: players must be a list of distinct seats, not {order!r:.80}")
        lead = order[0] if self.lead is None and order else self.lead(ctx) if self.lead is not None else None
        if order and lead not in order:
            raise RuleError(f"climb: the lead {lead!r} is not one of the players {order!r:.80}")
        frame[2][self.key] = {"order": list(order), "turn": lead, "last": None, "passed": []}
        frame[2][self.last_name] = None
        frame[1] += 1


class ClimbNext(Instr):
    """The heart of a ``climb`` block, reached before every turn. In order:

    - the block ends (jumps to ``end``) when ``until`` holds, when fewer than two players are
      still in (``is_in`` of each seat, with the seat bound to ``as_name``), or when every
      player still in has passed since the pile last cleared and nobody has played;
    - the pile clears (jumps to ``target``, the ``clear`` steps) when every player still in
      other than the last to play has passed since that play: ``last_name`` is bound to that
      player and ``as_name`` to the new leader (that player if still in, else the next player
      still in after them in the order);
    - else the next player still in, from the one whose turn it is, takes a turn: ``as_name``
      is bound to them and the turn's choice (the next instruction) asks them."""

    __slots__ = ("key", "as_name", "last_name", "is_in", "until", "choice_as", "target", "end")
    kind = "climb"

    def __init__(self, key, as_name, last_name, is_in, until, choice_as):
        self.key, self.as_name, self.last_name = key, as_name, last_name
        self.is_in, self.until, self.choice_as = is_in, until, choice_as
        self.target = self.end = None

    def inside(self, ctx, loc, order) -> list:
        """The seats of ``order`` still in (all of them without ``in``)."""
        if self.is_in is None:
            return list(order)
        had = self.as_name in loc
        old = loc.get(self.as_name)
        out = []
        try:
            for s in order:
                loc[self.as_name] = s
                if self.is_in(ctx):
                    out.append(s)
        finally:
            if had:
                loc[self.as_name] = old
            else:
                loc.pop(self.as_name, None)
        return out

    def run(self, state, ctx, frame):
        loc = frame[2]
        cur = _climb_cursor(loc, self.key)
        order, last, passed = cur["order"], cur["last"], cur["passed"]
        inside = self.inside(ctx, loc, order)
        loc[self.last_name] = last
        if len(inside) < 2 or (self.until is not None and self.until(ctx)):
            self.finish(loc, frame)
            return
        if all(s in passed for s in inside if s != last):
            if last is None:  # everybody still in passed and nobody played: over
                self.finish(loc, frame)
                return
            if last in inside:
                leader = last
            else:  # the last to play went out: the next player still in after them leads
                i = order.index(last)
                leader = next(order[(i + k) % len(order)] for k in range(1, len(order) + 1)
                              if order[(i + k) % len(order)] in inside)
            loc[self.key] = {"order": order, "turn": leader, "last": None, "passed": []}
            loc[self.as_name] = leader
            frame[1] = self.target
            return
        i = order.index(cur["turn"])
        seat = next(order[(i + k) % len(order)] for k in range(len(order)) if order[(i + k) % len(order)] in inside)
        if seat != cur["turn"]:
            loc[self.key] = {**cur, "turn": seat}
        loc[self.as_name] = seat
        loc.pop(self.choice_as, None)
        frame[1] += 1

    def finish(self, loc, frame):
        loc.pop(self.key, None)
        frame[1] = self.end


class ClimbAfter(Instr):
    """After a turn of a ``climb`` block: a turn whose choice is null (the optional action: a
    pass) adds the player to those who passed since the last play; any other choice makes
    them the last to play and forgets the passes. The turn moves to the next seat in the
    order, and control goes back to :class:`ClimbNext` (``target``)."""

    __slots__ = ("key", "as_name", "choice_as", "target")
    kind = "climb"

    def __init__(self, key, as_name, choice_as, target):
        self.key, self.as_name, self.choice_as, self.target = key, as_name, choice_as, target

    def run(self, state, ctx, frame):
        loc = frame[2]
        cur = _climb_cursor(loc, self.key)
        order = cur["order"]
        seat = loc.get(self.as_name)
        if seat not in order:
            raise RuleError(f"climb: {seat!r} took a turn but is not one of the players")
        if loc.get(self.choice_as) is None:
            last, passed = cur["last"], cur["passed"] + [seat]
        else:
            last, passed = seat, []
        turn = order[(order.index(seat) + 1) % len(order)]
        loc[self.key] = {"order": order, "turn": turn, "last": last, "passed": passed}
        frame[1] = self.target
