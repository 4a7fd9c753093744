"""Step programs: the spec's steps compiled to a flat list of instructions per phase.

The control position of a game is data: a stack of frames ``[phase, pc, locals]``
in the State, where ``pc`` indexes the phase's instruction list and ``locals``
holds the names bound by enclosing steps (loop variables, chosen values).
Each instruction's ``run(state, ctx, frame)`` does its work and sets ``frame[1]``.
"""
from __future__ import annotations

from ..errors import RuleError, did_you_mean
from ..expr.compiler import check_value
from ..model.saved import MAX_STACK
from ..model.state import TURN_KEY
from .changes import Assign, Deal, Gather, Move, RandomSet, Shuffle, ZoneRef, _random_item
from .climb import ClimbAfter, ClimbNext, ClimbStart, _climb_cursor
from .context import Ctx
from .instr import CHOICES, Instr, _copy_plain, _own
from .loops import ChoicesInit, ForInit, ForNext, ForNextUntil, JumpIfNot, Jump, WhileCheck
from .messages import Assert, End, Log, Show, _text, _text_into, render, seat_list
from .products import ProductOptions, _value_text

# re-exported: the step compiler (spec/steps.py), the engine and tests reach every instruction here
__all__ = ["Assert", "Assign", "BindChoice", "CHOICES", "Call", "ChoicesInit", "Choose", "ClimbAfter", "ClimbNext",
           "ClimbStart", "Ctx", "Deal", "End", "ForInit", "ForNext", "ForNextUntil", "Gather", "Instr", "Jump",
           "JumpIfNot", "LAZY_PRODUCTS", "Log", "MAX_CALL_DEPTH", "MAX_REALTIME_ACTIONS", "Move", "PICK",
           "ProductOptions", "REALTIME_COUNT", "RandomSet", "RealtimeBind", "RealtimeWait", "SET_SEARCH_BUDGET",
           "Show", "Shuffle", "UNDO", "WhileCheck", "ZoneRef", "render", "seat_list", "set_text", "_climb_cursor",
           "_copy_plain", "_own", "_random_item", "_text", "_text_into", "_value_text"]

LAZY_PRODUCTS = True  # False: product options listed as texts like any list (the tests compare both)


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
        if self.phase == getattr(state.game, "turn_phase", None):  # a turn begins (turns: {phase: NAME})
            local[TURN_KEY] = state.card_places()
        frame[1] += 1
        state.stack.append([self.phase, 0, local])


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
                 "each_name", "product", "card_options", "onto", "at_name")
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
        # `onto`: a ZoneRef to a zone of sets: the options are (card, set) pairs, the set's index
        # bound to `at_name` (see onto_legal)
        self.onto, self.at_name = None, None

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
            elif self.cards is not None and self.onto is not None:
                out = self.onto_legal(state, ctx)
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
                    if opts is None and card.modes and state.game.mode_when:  # modes offered by the State
                        when = state.game.mode_when.get(state.game.card_entries[cid])
                        if when is not None:
                            out += self.modes_now(ctx, card, when, seat)
                            continue
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

    def modes_now(self, ctx, card, when, seat) -> list:
        """The options of ``card`` whose entry has ``mode_when``: one per mode for which ``when``
        (compiled with ``c``, ``mode`` and ``player`` bound) holds now, or the card as itself when
        none does. Not cached: they follow the State."""
        b = ctx.bound
        saved = {k: b[k] for k in ("c", "mode", "player") if k in b}
        try:
            b["c"], b["player"] = card, seat
            modes = []
            for mode in card.modes:
                b["mode"] = mode
                if when(ctx):
                    modes.append(mode)
        finally:
            for k in ("c", "mode", "player"):
                b.pop(k, None)
            b.update(saved)
        if not modes:
            return [(f"{self.action} {card.name}", None, card.id, None)]
        return [(f"{self.action} {card.name} as {mode}", None, card.id, mode) for mode in modes]

    def onto_legal(self, state, ctx) -> list:
        """The options of a choice with ``onto``: for each set of the ``onto`` zone (in order) each
        card of ``cards`` (one per name) that can be laid off on it (``lay_offs``: the set with the
        card is still a meld of a kind the set is) and for which ``where`` holds (the card bound to
        ``as``, the set's 0-based index to ``at``): ``(ACTION NAME I, I, card id, None)``."""
        from ..expr.melds import lay_offs
        b, cards = ctx.bound, state.game.cards
        zone = [cards[i] for i in sorted(self.cards.cards(state, ctx))]
        sets = self.onto._whole(state, ctx)
        out = []
        for k, ids in enumerate(sets):
            b[self.at_name] = k
            meld, seen = [cards[i] for i in ids], set()
            for card in lay_offs(ctx, meld, [c for c in zone if c.name not in seen and not seen.add(c.name)]):
                if self.where is not None:
                    b[self.as_name] = card
                    if not self.where(ctx):
                        continue
                out.append((f"{self.action} {card.name} {k}", k, card.id, None))
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
                if name not in state.game.card_names:
                    guess = did_you_mean(name, state.game.card_names).strip()
                    return f"there is no card named {name!r} in this game" + (f" ({guess})" if guess else "")
                return f"not enough {name} in {where} ({have} held)"
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


class BindChoice(Instr):
    """Start of a choice's ``then`` loop body: binds the chooser and the chosen value,
    and plays a chosen card to the ``to`` zone (marking who played it, and its mode)."""

    __slots__ = ("as_name", "by_name", "to", "src", "onto", "at_name")

    def __init__(self, as_name, by_name, to, src=None, onto=None, at_name=None):
        self.as_name, self.by_name, self.to, self.src = as_name, by_name, to, src
        self.onto, self.at_name = onto, at_name  # a choice with onto: the card goes on set `value`

    def run(self, state, ctx, frame):
        loc = frame[2]
        seat, value, cid, mode = loc["$choice"]
        loc[self.by_name] = seat
        if cid is not None:
            card = state.game.cards[cid]
            loc[self.as_name] = card
            if self.onto is not None:
                loc[self.at_name] = value
            if self.to is not None or self.onto is not None:
                ctx.locals = loc
                if self.onto is None:
                    dst = self.to.dest(state, ctx)
                else:
                    sets = self.onto._whole(state, ctx, True)
                    if type(value) is not int or not 0 <= value < len(sets):
                        raise RuleError(f"{self.onto.text}: there is no set {value!r} (there are {len(sets)})")
                    dst = sets[value]
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
            if self.onto is not None:  # the optional action of a choice with onto: no card, no set
                loc[self.at_name] = None
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

