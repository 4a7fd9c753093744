"""The State of a game: plain data, cloneable, serialisable, replayable.

A State holds the zones (lists of card ids), the game and player variables,
the marks of played cards (who played each, its declared mode), the control
stack of frames ``[phase, pc, locals]``, the pending decision, the seeded RNG
position and the history of actions. Everything else lives in the immutable
:class:`~interpreter.engine.game.Game`.

Layering: this module is data only and imports nothing from the engine. The public
methods that follow the rules (:meth:`State.apply`, :meth:`State.legal_actions`,
:meth:`State.scores`, :meth:`State.observation`, :meth:`State.export`) are one-line
delegations to the State's Game (engine layer, the facade), which owns the behaviour; nothing
here imports the engine or the views (tests/test_speed.py checks it).
"""
from __future__ import annotations

import json
import random
from typing import NamedTuple

from ..errors import IllegalAction, RuleError, RulebookError
from .cards import Card
from .saved import _NESTED, has_nested, nested_keys, state_from_json, state_to_json


TURN_KEY = "$turn"  # the local of a turn's frame holding card_places() as the turn began (turns: {phase})
CHANCE = -1  # the chance player's seat at a chance node (as OpenSpiel's kChancePlayerId)


class Action(NamedTuple):
    """A legal action: ``player`` (seat, int), ``text`` (readable and stable, e.g.
    ``"play black-14"``, ``"bid 2"``, ``"play joker as ace"``, ``"pass"``) and
    ``index`` (its position in ``legal_actions(player)``, an int for learning tools)."""

    player: int
    text: str
    index: int

    def __str__(self) -> str:
        return self.text


class State:
    """One position of a game. Create it with ``game.new_state(num_players, seed)``.

    Public API (OpenSpiel-like): :meth:`current_players`, :meth:`legal_actions`,
    :meth:`apply`, :meth:`is_terminal`, :meth:`scores`, :meth:`winners`,
    :meth:`observation`, :meth:`clone`, :meth:`to_json` / :meth:`from_json`,
    and :attr:`history` (list of ``[seat, action text]``).
    """

    __slots__ = ("game", "num_players", "seed", "rng_count", "vars", "pvars", "zones", "marks",
                 "stack", "pending", "history", "player_names", "events", "_legal_cache", "stacked",
                 "trace", "_hist_shared", "shown", "private", "chance", "nested_pvars", "nested_vars",
                 "shared_frames", "low_water", "owned_zones")

    def __init__(self, game, num_players: int, seed: int = 0, player_names=None):
        self.game = game
        self.num_players = num_players
        self.seed = seed
        self.rng_count = 0
        self.vars = _copy(game.var_defaults)
        self.pvars = [_copy(game.pvar_defaults) for _ in range(num_players)]
        # True once a player variable may hold a list or map (clone then copies them deeply);
        # whoever sets a player variable to one sets this (the engine's `set`, loading, scenarios)
        self.nested_pvars = has_nested(self.pvars)
        # the game variables that may hold a list or map (clone copies these deeply); whoever sets
        # a game variable to one adds it (note_nested)
        self.nested_vars = nested_keys(self.vars)
        self.zones = {}
        for name, zdef in game.zones.items():
            self.zones[name] = [[] for _ in range(num_players)] if zdef.per_player else []
        # copy on write: None while every zone list is this State's own; after a clone, the
        # zones it may change in place (see zone_for_write, the engine's only way to write a zone)
        self.owned_zones = None
        self.marks = {}
        self.stack = []
        # the frames stack[:shared_frames] may be shared with clones (copy on write): the engine
        # copies a frame when it becomes the top again (pop_frame); only the top frame changes
        self.shared_frames = 0
        # the shallowest the control stack has been since a search set it (pop_frame lowers it)
        self.low_water = 0
        self.pending = None
        self.history = []
        self._hist_shared = False  # True while `history` is shared with a clone (copy on write)
        self.player_names = list(player_names) if player_names else [f"P{i}" for i in range(num_players)]
        self.events = None  # a list to receive events, or None (set by the CLI)
        self._legal_cache = {}
        self.stacked = False  # scenario tests: shuffles keep the order given
        self.trace = None  # a dict step_id -> count, when tracing for diagrams
        # card id -> seats a `show` step let see it, until it moves (lists are replaced, never changed)
        self.shown = {}
        # history index (str) -> [seats who read that action, the text the others read] for the
        # actions of `choose` steps with visible_to (see interpreter.view for every per-seat output)
        self.private = {}
        # chance mode (interpreter.engine.chance): None, or the outcomes given for the step waiting
        self.chance = None

    # -- helpers used by the engine --------------------------------------------------
    def shuffle(self, ids: list) -> None:
        """Shuffle ``ids`` in place with the State's seeded generator (one draw per shuffle)."""
        if self.stacked:
            return
        rng = random.Random(f"{self.seed}/{self.rng_count}")
        self.rng_count += 1
        rng.shuffle(ids)

    def random_index(self, n: int) -> int:
        """A seeded random index in ``0..n-1`` (one draw, like a shuffle); ``0`` when stacked."""
        if self.stacked:
            return 0
        rng = random.Random(f"{self.seed}/{self.rng_count}")
        self.rng_count += 1
        return rng.randrange(n)

    def card_lists(self):
        """Every live list of card ids: ``(zone name, owner seat or None, set index or None, list)``.
        A zone of sets (``sets: true``) gives one list per set."""
        for name, zone in self.zones.items():
            zdef = self.game.zones[name]
            owners = enumerate(zone) if zdef.per_player else [(None, zone)]
            for seat, z in owners:
                if zdef.sets:
                    for k, s in enumerate(z):
                        yield name, seat, k, s
                else:
                    yield name, seat, None, z

    def card_places(self) -> list:
        """The place of every card, a list of ints indexed by card id: ``zone number * 1024 + seat + 1``
        (zones numbered in the spec's order; seat ``-1`` for a game zone; the set of a zone of sets
        does not count), ``-1`` for a card in no zone. What ``turns: {phase: NAME}`` keeps when a
        turn begins and ``moved_this_turn`` compares with (``TURN_KEY`` in the turn's frame)."""
        out = [-1] * len(self.game.cards)
        number = {name: i for i, name in enumerate(self.game.zones)}
        for name, seat, _, z in self.card_lists():
            code = number[name] * 1024 + (0 if seat is None else seat + 1)
            for cid in z:
                out[cid] = code
        return out

    def find_zone(self, cid: int) -> list:
        """The live list that holds card ``cid`` (one set, for a zone of sets), ready to be
        changed in place (:meth:`zone_for_write`)."""
        for name, seat, k, z in self.card_lists():
            if cid in z:
                z = self.zone_for_write(name, seat)
                return z if k is None else z[k]
        # the run loop puts the line of the step that lost it in front of a RuleError
        raise RuleError(f"card {self.game.cards[cid].name} (card {cid}) is in no zone: a step took it out and "
                        "did not put it anywhere")

    def zone_for_write(self, name: str, seat=None) -> list:
        """The list of zone ``name`` (of seat ``seat`` for a per-player zone), which this State
        may now change in place: a list still shared with a clone is copied first (copy on
        write). Every change to a zone goes through here; reading ``zones`` needs nothing.
        Zones of sets are copied whole at each clone, so they are always this State's own."""
        owned = self.owned_zones
        zones = self.zones
        if owned is None:
            return zones[name] if seat is None else zones[name][seat]
        if seat is None:
            if name in owned:
                return zones[name]
            owned[name] = True
            z = zones[name] = zones[name][:]
            return z
        seats = owned.get(name)
        if seats is None:  # the list of hands is shared too
            hands = zones[name] = zones[name][:]
            seats = owned[name] = set()
        else:
            hands = zones[name]
            if seats is True or seat in seats:  # True: a zone of sets, copied at the clone
                return hands[seat]
        seats.add(seat)
        z = hands[seat] = hands[seat][:]
        return z

    def zone_of(self, cid: int) -> tuple:
        """``(zone name, owner seat or None)`` of card ``cid``."""
        for name, seat, _, z in self.card_lists():
            if cid in z:
                return name, seat
        raise RuleError(f"card {self.game.cards[cid].name} (card {cid}) is in no zone: a step took it out and "
                        "did not put it anywhere")

    def drop_empty_sets(self) -> None:
        """Remove sets left empty (a set exists while it holds a card)."""
        for name, zdef in self.game.zones.items():
            if zdef.sets:
                zone = self.zones[name]
                for z in (zone if zdef.per_player else [zone]):
                    if any(not s for s in z):
                        z[:] = [s for s in z if s]

    def emit(self, kind: str, **data) -> None:
        if self.events is not None:
            data["kind"] = kind
            self.events.append(data)

    def player_name(self, seat: int) -> str:
        if isinstance(seat, int) and 0 <= seat < self.num_players:
            return self.player_names[seat]
        return str(seat)

    # -- public API ---------------------------------------------------------------------
    def current_players(self) -> list:
        """Seats (ints) that must decide now: one in turn-based steps, several in a
        simultaneous step (those who have not yet chosen); ``[CHANCE]`` (-1) at a chance node
        (only in chance mode: ``new_state(..., chance=True)``); ``[]`` when terminal."""
        if self.pending is None:
            return []
        committed = self.pending["committed"]
        return [p for p in self.pending["players"] if str(p) not in committed]

    def is_terminal(self) -> bool:
        """True once the game is over."""
        return not self.stack and self.pending is None

    def legal_actions(self, player: int | None = None) -> list:
        """The legal actions (list of :class:`Action`) of ``player`` (default: the only current
        player); ``[]`` if that player has nothing to decide now."""
        return self.game.legal_actions(self, player)

    def apply(self, action, player: int | None = None) -> None:
        """Apply ``action`` (an :class:`Action`, its text, or its index in ``legal_actions``)
        for ``player`` (default: the action's player, or the only current player), then run the
        rules until the next decision.

        Raises :class:`IllegalAction` with the reason, leaving the State unchanged, when the
        game is over, the player is not to act, or the action is not legal; RuleError (at the
        spec line, the State unchanged) when the game has taken ``game.max_actions`` actions
        (default 1,000,000) and is not over.
        """
        self.game.apply(self, action, player)

    def is_chance_node(self) -> bool:
        """True when the State waits for a chance outcome (see :meth:`chance_outcomes`)."""
        return self.pending is not None and "chance" in self.pending

    def chance_outcomes(self) -> list:
        """At a chance node, ``[(Action, probability), ...]`` (the Action's player is ``CHANCE``,
        -1); ``[]`` elsewhere. See :mod:`interpreter.engine.chance` for the outcomes of a shuffle."""
        return self.game.chance_outcomes(self)

    def scores(self) -> list:
        """Each player's score (list indexed by seat), by the spec's ``score`` expression."""
        return self.game.scores(self)

    def winners(self) -> list:
        """Seats with the best score (ties share the win); ``[]`` unless terminal."""
        if not self.is_terminal():
            return []
        scores = self.scores()
        best = (min if self.game.winner_rule == "lowest" else max)(scores)
        return [p for p, s in enumerate(scores) if s == best]

    def observation(self, player: int) -> dict:
        """What ``player`` may see, as plain data: game and player variables, every zone
        the player may see (others as card counts, ``{"count": n}``, with ``"seen": [names]``
        for the cards a ``show`` step let the player see, in card-table order), marks of visible
        cards, who must act, and the player's own uncommitted/committed status."""
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.num_players:
            raise RulebookError(f"there is no seat {player!r} ({self.num_players} players: seats 0..{self.num_players - 1})")
        return self.game.observation(self, player)

    def clone(self) -> "State":
        """An independent copy. Cheap: variables are copied as plain dicts, cards are shared
        (immutable), and three parts are copied on write: each zone list is shared until one of
        the two States changes it (:meth:`zone_for_write`), the history list until one of them
        records an action, and the frames below the top of the control stack until one of them
        returns to them (:meth:`pop_frame`)."""
        new = _new_state(State)
        game = new.game = self.game
        new.num_players = self.num_players
        new.seed = self.seed
        new.rng_count = self.rng_count
        new.vars = nv = self.vars.copy()
        for k in self.nested_vars:
            nv[k] = _copy(nv[k])
        new.nested_vars = self.nested_vars
        new.pvars = [*map(_dict_copy, self.pvars)] if not self.nested_pvars else [*map(_copy, self.pvars)]
        new.nested_pvars = self.nested_pvars
        # zones: copy on write (zone_for_write), so both States now share every plain zone list
        new.zones = nz = self.zones.copy()
        sets = _set_zones(game)
        for k in sets:  # a zone of sets is one level deeper (a list of sets per seat): copied now
            nz[k] = _copy(nz[k])
        new.owned_zones = dict.fromkeys(sets, True)
        self.owned_zones = dict.fromkeys(sets, True)
        new.marks = self.marks.copy()  # the engine replaces a mark, never edits one in place
        stack = self.stack
        if stack:
            top = stack[-1]
            new.stack = stack[:]
            new.stack[-1] = [top[0], top[1], _copy_locals(top[2])]
            self.shared_frames = new.shared_frames = len(stack) - 1
        else:
            new.stack = []
            new.shared_frames = 0
        new.low_water = self.low_water
        p = self.pending
        if p is not None:
            p = p.copy()
            p["players"] = p["players"][:]
            c = p["committed"]
            p["committed"] = _copy(c) if c else {}
            if len(p) > 3:  # picked cards of a set being built, a chance node, real time
                for k in ("picked", "chance"):
                    if k in p:
                        p[k] = _copy(p[k])
        new.pending = p
        new.history = self.history
        new._hist_shared = self._hist_shared = True
        new.player_names = self.player_names
        new.events = None
        new._legal_cache = {}
        new.stacked = self.stacked
        new.trace = self.trace
        new.shown = self.shown.copy()  # values are never changed in place
        new.private = self.private.copy()
        new.chance = _copy(self.chance) if self.chance is not None else None
        return new

    def note_nested(self, kind: str, name: str) -> None:
        """Variable ``name`` of ``kind`` (``"var"``: a game variable; ``"player"`` or ``"team"``:
        a player variable; any other kind: nothing to note) now holds a list or map: clones copy
        it deeply from now on (whoever sets a variable to a list or map calls this)."""
        if kind == "player" or kind == "team":
            self.nested_pvars = True
        elif kind == "var" and name not in self.nested_vars:
            self.nested_vars += (name,)

    def pop_frame(self) -> None:
        """Return from the top phase (the engine's only way to pop a frame): the frame below
        becomes the top, copied first if a clone may share it; :attr:`low_water` follows."""
        stack = self.stack
        stack.pop()
        depth = len(stack)
        if depth < self.low_water:
            self.low_water = depth
        if depth and depth <= self.shared_frames:
            f = stack[-1]
            stack[-1] = [f[0], f[1], _copy_locals(f[2])]
            self.shared_frames = depth - 1

    def __deepcopy__(self, memo) -> "State":
        """``copy.deepcopy`` is :meth:`clone` (the Game is shared: it is immutable)."""
        return self.clone()

    def __copy__(self) -> "State":
        return self.clone()

    def __reduce__(self):
        """A State pickles as its Game and :meth:`to_json` (rebuilt by :meth:`from_json`, which
        checks it)."""
        return _state_from_pickle, (self.game, self.to_json())

    def record(self, player: int, text: str) -> None:
        """Append ``[player, text]`` to the history (copying it first if a clone shares it)."""
        if self._hist_shared:
            self.history = self.history[:]
            self._hist_shared = False
        self.history.append([player, text])

    def export(self, player: int) -> dict:
        """What ``player`` may know of the game, as plain data (no seed, no card it may not see,
        no unrevealed or private choice of another player): see :func:`interpreter.view.export`.
        The full record is :meth:`to_json`. Raises :class:`RulebookError` for a seat that does
        not exist."""
        return self.game.export(self, player)

    def to_json(self, seat: int | None = None) -> str:
        """The State as a JSON string, including the game's fingerprint (a hash of the spec text
        and options); cards are ``{"card": id}`` and maps with non-text keys ``{"$map": [[k, v]]}``
        (see :mod:`interpreter.model.saved`). With ``seat``, only what that player may know
        (:meth:`export` as JSON; not loadable). Raises :class:`RulebookError` for a value that
        is not plain data or is nested too deeply to save."""
        if seat is not None:
            return json.dumps(self.export(seat), sort_keys=True)
        return state_to_json(self)

    @classmethod
    def from_json(cls, game, text: str) -> "State":
        """Rebuild a State of ``game`` from :meth:`to_json` output (str or UTF-8 bytes).

        Everything is checked before the State is used: the JSON (size, nesting, number lengths),
        the game, its options and spec fingerprint, every type and shape, every card in exactly
        one zone, and (by the game's engine) the control stack against the compiled program and
        committed choices against the legal options. Raises :class:`RulebookError` (a
        ``SaveError``) saying what is wrong and where; never a Python error."""
        return state_from_json(cls, game, text, getattr(game, "check_loaded_state", None))


def _state_from_pickle(game, text: str) -> "State":
    """The State of a pickle (see :meth:`State.__reduce__`)."""
    return State.from_json(game, text)


_dict_copy = dict.copy
_new_state = object.__new__


def _set_zones(game) -> tuple:
    """The names of the game's zones of sets, which :meth:`State.clone` copies at once (computed
    once per Game)."""
    names = game.__dict__.get("_set_zones")
    if names is None:
        names = game.__dict__["_set_zones"] = tuple(k for k, z in game.zones.items() if z.sets)
    return names


def _copy_locals(loc: dict) -> dict:
    """A copy of a frame's locals: lists and maps deep-copied, loop cursors (tuples ``(items,
    position)``) shared: the engine replaces a cursor at each pass and its items are owned by it
    (copied when the loop starts, bound as copies), so they never change in place."""
    new = loc.copy()
    for k, v in loc.items():
        t = type(v)
        if t is list or t is dict:
            new[k] = _copy(v)
    return new


_NESTED_TYPES = frozenset(_NESTED)


def _copy(v):
    """Deep copy of plain data; cards, numbers and texts are shared (immutable)."""
    t = type(v)
    if t is dict:
        if _NESTED_TYPES.isdisjoint(map(type, v.values())):  # flat: one C-level copy
            return v.copy()
        return {k: _copy(x) if type(x) in _NESTED else x for k, x in v.items()}
    if t is list:
        if _NESTED_TYPES.isdisjoint(map(type, v)):
            return v[:]
        return [_copy(x) if type(x) in _NESTED else x for x in v]
    if t is tuple:  # a loop cursor (items, position): the items may be a live list
        if _NESTED_TYPES.isdisjoint(map(type, v)):
            return v
        return tuple([_copy(x) if type(x) in _NESTED else x for x in v])
    return v
