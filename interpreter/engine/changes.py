"""Instructions that change the game's variables and zones: ``set``/``add`` (:class:`Assign`),
``random`` (:class:`RandomSet`), ``shuffle``, ``move``, ``gather`` and ``deal``, with the zone
references they read and write (:class:`ZoneRef`).
"""
from __future__ import annotations

from ..errors import RuleError
from ..expr.compiler import _add, check_value
from ..model.cards import Card
from .instr import Instr, _copy_plain


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
        if ctx.game.zones[self.name].team:  # a zone per team: the team's slot
            seat = ctx.game.zone_seat(self.name, seat, state.num_players)
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
