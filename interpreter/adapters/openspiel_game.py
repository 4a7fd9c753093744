"""Any spec as an OpenSpiel Python game (needs the ``openspiel`` extra).

    import pyspiel
    from interpreter.adapters.openspiel_game import register
    name = register("specs/GAME.yaml", players=4)      # "python_rulebook_<game name>_4p"
    game = pyspiel.load_game(name)
    state = game.new_initial_state()                         # a chance node: the first shuffle

The game is sequential with explicit chance (``shuffle`` and ``random`` steps are chance nodes, see
:mod:`interpreter.engine.chance`; a chance action is the index of an outcome in
``state.chance_outcomes()``), imperfect information, constant-sum: the returns give each winner
``1 / number of winners`` and the others 0. A simultaneous step is played one seat after the other
(none sees the others' secret choices); in a real-time block the seat to act is the next one
clockwise, among those that may act, after the seat that acted last (the project's round-robin
schedule), so every seat gets its moves and random play ends.
Player actions are the ids of :class:`~interpreter.adapters.spaces.Spaces`; observation and
information-state tensors and strings come from the same class (and ``State.observation``; the
information-state string shows no chance outcome, since an outcome's label tells the deal).
``max_game_length`` is the game's ``max_actions`` (the engine's own bound: a game that takes that
many actions, chance outcomes included, stops with a located error), so no game is played to
register a spec; ``register(..., discovery=K)`` with ``K > 0`` gives instead twice the longest of
``K`` seeded random games plus 10 (a smaller figure for algorithms that size buffers by it, found
by playing: not a bound).

**Resampling.** ``state.resample_from_infostate(seat, sampler)`` returns a state the seat could be in
(:class:`~interpreter.agents.determinize.Determiniser`: the cards it cannot see dealt again among
the places it cannot see, keeping what it has seen and what other players have shown they lack).
OpenSpiel's Python ISMCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) calls it.

**OpenSpiel's C++ bots.** ``pyspiel.MCTSBot.step`` and ``pyspiel.ISMCTSBot.step`` release Python's
GIL (open_spiel 2.0.2, ``python/pybind11/bots.cc``), and a Python game's methods then run without it:
the process dies of a segmentation fault. Importing this module makes those two ``step`` methods hold
the GIL when the state is a Python game's (they call the search through ``pyspiel.Bot.step``, which
does not release it); states of C++ games keep the original. The C++ ISMCTS also needs
``State::ResampleFromInfostate``, which OpenSpiel's bridge for Python games (``PyState``) does not pass
on to Python, and its ``SetResampler`` is not exposed to Python: on a Python game it raises
:class:`UnsupportedByOpenSpiel` (from ``step``, ``step_with_policy``, ``get_policy`` and
``pyspiel.evaluate_bots``), before any C++ code runs, unless the installed OpenSpiel does forward it
(checked once, by calling the C++ method).

**Serialization.** ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` (and
``random_sim_test(..., serialize=True)``) work: a state's Python side pickles as its history (a
sampled state: the history when it was sampled, the seat and the sample's seed, and the actions
since). ``pickle`` of the game gives the :func:`register` arguments (it registers the game again in
another process; the spec path must be valid there); ``pickle`` of a state gives its game and its
serialization. ``deserialize_game_and_state`` in another process needs :func:`register` first
(OpenSpiel loads a Python game by its registered name).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
from dataclasses import dataclass, field

import numpy as np
import pyspiel

from ..agents.schedule import round_robin_seat
from ..errors import RulebookError
from ..model.state import CHANCE
from ..spec.loader import load_game
from .spaces import Spaces

_REGISTERED: dict = {}  # (spec, options JSON, players) -> short name
_BY_NAME: dict = {}  # short name -> _Registration


class UnsupportedByOpenSpiel(RulebookError):
    """Something OpenSpiel cannot do with a game written in Python (raised before OpenSpiel's C++
    code is reached; the message says what to use instead)."""


@dataclass
class _Registration:
    """One registered game: what :func:`register` was given (``source``, to load it again) and
    what it built."""
    name: str
    source: tuple  # register()'s arguments: (spec, players, options, discovery, name)
    game: object  # the compiled Rulebook Game
    players: int
    spaces: Spaces
    game_type: object = None
    info: object = None
    state_class: type = None
    start: object = None  # the first position, made once (new_rb gives clones of it)
    start_token: object = field(default_factory=object)  # the _Position.token of every fresh first position
    start_seen: dict = field(default_factory=dict)  # {(kind, seat): tensor or string} of the first position
    recent: dict = field(default_factory=dict)  # {(token, kind, seat): ...} of the last RECENT made elsewhere

    def new_rb(self):
        """A new Rulebook State in chance mode (the first position of the OpenSpiel game): a clone
        of the one made at the first call (OpenSpiel makes a new initial state for every tensor
        it reads of a Python game, to size it: running the spec's start each time cost a board
        game ~9 ms per read)."""
        if self.start is None:
            self.start = self.game.new_state(self.players, 0, chance=True)
        return self.start.clone()


def register(spec, players: int, options: dict | None = None, discovery: int = 0, name: str | None = None) -> str:
    """Register ``spec`` (a path) for ``players`` seats with pyspiel; returns its short name (for
    ``pyspiel.load_game``). Registering the same spec, options and players again returns the same
    name. ``discovery``: 0 (the default) plays no game, ``max_game_length`` is the Game's
    ``max_actions``; ``K > 0`` plays ``K`` seeded random games and gives twice the longest plus 10
    (see the module doc). Raises SpecError for a malformed spec or options."""
    key = (str(spec), json.dumps(options or {}, sort_keys=True), players)
    if key in _REGISTERED:
        return _REGISTERED[key]
    game = load_game(spec, options or {})
    short = name or "python_rulebook_" + re.sub(r"[^a-z0-9]+", "_", game.name.lower()).strip("_") + f"_{players}p"
    if options:
        short += "_" + hashlib.sha256(key[1].encode()).hexdigest()[:8]  # stable across runs
    sp = Spaces(game, players, discovery=discovery)
    reg = _Registration(short, (str(spec), players, options, discovery, name), game, players, sp)
    reg.game_type = pyspiel.GameType(
        short_name=short, long_name=f"Rulebook: {game.name} ({players} players)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.CONSTANT_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players, min_num_players=players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={})
    reg.info = pyspiel.GameInfo(
        num_distinct_actions=sp.num_actions, max_chance_outcomes=max(sp.max_chance_outcomes, 1),
        num_players=players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
        max_game_length=2 * sp.max_length + 10 if discovery > 0 else game.max_actions)
    # the states of this game know it through their class, so a state's __dict__ (which OpenSpiel
    # deep-copies at each clone and pickles to serialize) holds only its position
    reg.state_class = type("RulebookState", (RulebookState,), {"reg": reg, "__module__": __name__})
    # a class, not a function, as the creator: OpenSpiel's registry frees it after Python has shut
    # down, and a function freed then aborts the process (a class lives in reference cycles)
    game_class = type("RulebookGame", (RulebookGame,), {"reg": reg, "__module__": __name__})
    pyspiel.register_game(reg.game_type, game_class)
    _BY_NAME[short] = reg
    _REGISTERED[key] = short
    return short


def _load(spec, players, options, discovery, name):
    """The game :func:`register` makes of these arguments (how a pickled game is loaded)."""
    return pyspiel.load_game(register(spec, players, options, discovery, name))


class RulebookGame(pyspiel.Game):
    """A pyspiel Game over a compiled Rulebook game (made by :func:`register`; ``rb_game``,
    ``rb_players`` and ``spaces`` are the Rulebook Game, the number of seats and the Spaces)."""

    reg = None  # the _Registration, set on each game's subclass by register()

    def __init__(self, params=None):
        reg = self.reg
        super().__init__(reg.game_type, reg.info, params or {})
        self.rb_game, self.rb_players, self.spaces = reg.game, reg.players, reg.spaces

    def new_initial_state(self):
        return self.reg.state_class(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RulebookObserver(self.spaces, perfect_recall)

    def __reduce__(self):
        return _load, self.reg.source


class _Position:
    """The Python side of a :class:`RulebookState` (its only attribute): the Rulebook State ``rb``;
    ``known``: seat -> Determiniser that has observed every action of ``rb`` (kept up to date as
    actions are applied; a clone starts without, and rebuilds one by replay when asked); ``origin``:
    None for a position reached by play, ``(history length, seat, seed)`` for a sample made by
    :meth:`RulebookState.resample_from_infostate` and the positions played on from it.

    OpenSpiel's C++ code asks a position for its player, legal actions and terminality several
    times per move (every question is a call into Python), so ``player`` (the OpenSpiel player to
    act, see :func:`_to_act`), ``moves`` (``{id: move}`` of that player, from
    :meth:`Spaces.legal_moves`) and ``ids`` (the sorted ids) are kept until the next action
    (None: not asked yet). They are never changed in place, so clones share them.

    ``token``: an object naming this position for :class:`RulebookObserver`'s cache of tensors
    and strings (see :func:`_observed`): a new one after each action, the same in clones (and in
    every fresh first position of a game, the registration's ``start_token``). ``counts`` and
    ``texts``: ``{seat: (n, ...)}``, the seat's history counts (``Spaces.information_state``'s
    ``kept``) and information-state string entries (:meth:`RulebookObserver._string`) of the first
    ``n`` actions, kept along the line of play (after actions too; a clone starts without, so the
    clones OpenSpiel keeps of every position hold none), so reading an information state again
    costs the actions since the last read, not the whole game."""
    __slots__ = ("rb", "name", "known", "origin", "player", "moves", "ids", "token", "counts", "texts")

    def __init__(self, rb, name, origin=None, token=None):
        self.rb, self.name, self.known, self.origin = rb, name, None, origin
        self.player = self.moves = self.ids = None
        self.token = object() if token is None else token
        self.counts, self.texts = {}, {}

    def moved(self):
        """Forget what was kept of the position before an action."""
        self.player = self.moves = self.ids = None
        self.token = object()

    def __deepcopy__(self, memo):
        # OpenSpiel's Clone deep-copies the state's attributes: a search must not pay the
        # determinisers' observing at each of its moves, nor list the legal actions again
        rb = self.rb
        new = _Position(rb.clone(), self.name, self.origin)
        # the engine's listing of the options is valid for the copy too (the engine replaces its
        # cache or pops from it, never changes a list in it)
        new.rb._legal_cache = rb._legal_cache.copy()
        new.player, new.moves, new.ids, new.token = self.player, self.moves, self.ids, self.token
        return new  # (counts and texts start empty: OpenSpiel keeps a clone of every position it checks)

    def __reduce__(self):
        return _restore, (self.name, self.rb.history, self.origin)


_TERMINAL, _CHANCE = int(pyspiel.PlayerId.TERMINAL), int(pyspiel.PlayerId.CHANCE)


def _to_act(rb) -> int:
    """The OpenSpiel player to act in ``rb``: TERMINAL, CHANCE, or a seat. In a real-time block,
    where several seats may act, the next seat clockwise after the last one that acted (the
    project's round-robin schedule, :func:`~interpreter.agents.schedule.round_robin_seat`), so every
    seat gets its turns; the history says who acted, so the choice is the same on replay."""
    pending = rb.pending
    if pending is None:
        return _TERMINAL if rb.is_terminal() else rb.current_players()[0]
    if "chance" in pending:
        return _CHANCE
    return round_robin_seat(rb)


def _observe_rng(rb, seat) -> random.Random:
    """The generator a Determiniser's probe uses before the next action of ``rb`` (the same as the
    project's search bots, so a replay learns exactly what play learnt)."""
    return random.Random(len(rb.history) * 7919 + seat)


def _replay(reg, history, seat=None):
    """``(Rulebook State after history, Determiniser of seat that observed it, or None)``."""
    from ..agents.determinize import Determiniser
    rb = reg.new_rb()
    det = None if seat is None else Determiniser(reg.game, seat)
    for player, text in history:
        if det is not None and player != CHANCE:
            det.observe(rb, player, text, _observe_rng(rb, seat))
        rb.apply(text, player)
    return rb, det


def _sample(det, rb, seed: int):
    """A determinisation of ``rb`` by ``det`` from ``seed``. In a simultaneous step the others'
    secret choices are drawn again at random among their legal options (OpenSpiel plays the step
    seat after seat, so who has chosen must stay as it is; what they chose must not be carried)."""
    from ..engine.run import legal_options
    rng = random.Random(seed)
    world = det.sample(rb, rng, keep_commits=True)
    pending = world.pending
    if pending is not None and pending.get("simultaneous"):
        committed = dict(pending["committed"])
        for key in [k for k in committed if k != str(det.seat)]:
            player = int(key)
            pending["committed"] = {k: v for k, v in committed.items() if k != key}
            world._legal_cache = {}
            opts = legal_options(world, player)
            if isinstance(opts, list) and opts:  # (a product decision keeps its choice: a known limit)
                c = opts[rng.randrange(len(opts))]
                committed[key] = (player, c[1], c[2], c[3])
        pending["committed"] = committed
        world._legal_cache = {}
    return world


def _restore(name, history, origin):
    """The _Position that ``_Position.__reduce__`` gave (the game ``name`` must be registered)."""
    reg = _BY_NAME.get(name)
    if reg is None:
        raise RulebookError(f"the OpenSpiel game {name!r} is not registered in this process: call "
                            "interpreter.adapters.openspiel_game.register(spec, players, options) first")
    if origin is None:
        return _Position(_replay(reg, history)[0], name)
    n, seat, seed = origin
    rb, det = _replay(reg, history[:n], seat)
    rb = _sample(det, rb, seed)
    for player, text in history[n:]:
        rb.apply(text, player)
    return _Position(rb, name, origin)


class RulebookState(pyspiel.State):
    """A pyspiel State wrapping a Rulebook State in chance mode (``rb``; ``spaces`` is the game's
    Spaces). OpenSpiel clones it by deep-copying its one attribute (the Rulebook State's
    ``clone``)."""

    reg = None  # the _Registration, set on each game's subclass by register()

    def __init__(self, game, rb_state=None):
        super().__init__(game)
        if rb_state is not None:
            self._pos = _Position(rb_state, self.reg.name)
        # else made when first needed: OpenSpiel's Clone makes a new initial state, then replaces
        # its attributes with the copies

    def _position(self) -> _Position:
        pos = self.__dict__.get("_pos")
        if pos is None:
            reg = self.reg
            pos = self._pos = _Position(reg.new_rb(), reg.name, token=reg.start_token)
        return pos

    @property
    def rb(self):
        return self._position().rb

    @property
    def spaces(self) -> Spaces:
        return self.reg.spaces

    def current_player(self):
        pos = self._position()
        player = pos.player
        if player is None:
            player = pos.player = _to_act(pos.rb)
        return player

    def _moves(self, pos, player) -> dict:
        """``{id: move}`` of ``player`` now (kept in ``pos`` for the player to act)."""
        if player != self.current_player():
            return self.spaces.legal_moves(pos.rb, player)
        if pos.moves is None:
            pos.moves = self.spaces.legal_moves(pos.rb, player)
        return pos.moves

    def _legal_actions(self, player):
        pos = self._position()
        if player != self.current_player():
            return sorted(self._moves(pos, player))
        if pos.ids is None:
            pos.ids = sorted(self._moves(pos, player))
        return pos.ids

    def chance_outcomes(self):
        return [(a.index, p) for a, p in self.rb.chance_outcomes()]

    def _apply_action(self, action):
        pos = self._position()
        rb = pos.rb
        player = self.current_player()
        if player == _CHANCE:
            pos.moved()
            rb.apply(int(action), CHANCE)
            return
        move = self._moves(pos, player).get(int(action)) if player >= 0 else None
        if move is None:  # not legal now: the engine says why (IllegalAction)
            move = self.spaces.action_for(rb, player, int(action))
        text = move if isinstance(move, str) else move.text
        for seat, det in (pos.known or {}).items():
            det.observe(rb, player, text, _observe_rng(rb, seat))
        pos.moved()
        rb.apply(move, player)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            outs = self.rb.chance_outcomes()
            return outs[action][0].text if 0 <= action < len(outs) else f"outcome {action}"
        return self.spaces.action_text(int(action))

    def is_terminal(self):
        return self.current_player() == _TERMINAL

    def returns(self):
        rb = self.rb
        n = rb.num_players
        if not rb.is_terminal():
            return [0.0] * n
        winners = rb.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def resample_from_infostate(self, player_id, probability_sampler):
        """A new state ``player_id`` cannot tell from this one: the cards it cannot see dealt again
        by :class:`~interpreter.agents.determinize.Determiniser` (which keeps what the seat has
        seen and what others have shown they lack), with a fresh seed for the rules' own draws.
        ``probability_sampler``: a callable giving a float in [0, 1) (as
        ``pyspiel.UniformProbabilitySampler``), drawn once for the sample's seed. The state keeps
        its history (OpenSpiel's, and the Rulebook State's).

        Raises UnsupportedByOpenSpiel for a state that is itself a sample (or played on from one):
        what the seat learnt is known only along the real game."""
        pos = self._position()
        if pos.origin is not None:
            raise UnsupportedByOpenSpiel("resample_from_infostate of a sampled state (or one played on from "
                                         "it): resample the real game's state instead")
        seat = int(player_id)
        if not 0 <= seat < self.reg.players:
            raise RulebookError(f"resample_from_infostate: there is no seat {player_id!r} "
                                f"(seats 0..{self.reg.players - 1})")
        known = pos.known or {}
        det = known.get(seat)
        if det is None:
            det = _replay(self.reg, pos.rb.history, seat)[1]
            pos.known = {**known, seat: det}
        seed = int(float(probability_sampler()) * (1 << 53))
        world = self.clone()  # OpenSpiel's Clone keeps OpenSpiel's history and move number
        world._pos = _Position(_sample(det, pos.rb, seed), pos.name, (len(pos.rb.history), seat, seed))
        return world

    def __str__(self):
        # made once per position (OpenSpiel compares a state's and its clone's at every step)
        return _observed(self, ("str",), -1,
                         lambda rb, _: json.dumps({"history": rb.history, "to_act": rb.current_players()}))

    def __reduce__(self):
        return self.get_game().deserialize_state, (self.serialize(),)

    def __deepcopy__(self, memo):
        return self.clone()


class RulebookObserver:
    """pyspiel observer: ``tensor`` (numpy ``float32``) and ``dict`` (``{"observation": tensor}``),
    filled by ``set_from(state, player)``; ``string_from`` gives the seat's view as JSON (with
    perfect recall, the history as the seat may know it, chance outcomes hidden)."""

    def __init__(self, sp: Spaces, perfect_recall: bool):
        self.spaces, self.perfect_recall = sp, perfect_recall
        size = sp.information_state_size if perfect_recall else sp.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        if self.perfect_recall:
            counts, sp = state._position().counts, self.spaces
            make = lambda rb, seat: sp.information_state(rb, seat, counts, _observation(state, sp, seat))  # noqa: E731
        else:
            make = lambda rb, seat: _observation(state, self.spaces, seat)  # noqa: E731
        self.tensor[:] = _observed(state, ("tensor", self.perfect_recall), player, make)

    def string_from(self, state, player):
        texts = state._position().texts
        return _observed(state, ("string", self.perfect_recall), player,
                         lambda rb, seat: self._string(state, rb, seat, texts))

    def _string(self, state, rb, player, texts) -> str:
        """The seat's view as JSON: ``{"history": [...], "observation": {...}}`` with keys sorted
        (with perfect recall), else the observation. The history entries settled (all but a
        simultaneous decision's choices not revealed yet) are encoded once along the line of play
        (``texts``, see :class:`_Position`)."""
        obs = _observed(state, ("string", False), player,
                        lambda rb, seat: json.dumps(_view(state, seat), sort_keys=True, default=str))
        if not self.perfect_recall:
            return obs
        from ..view import unrevealed_entries
        settled = min(unrevealed_entries(rb), default=len(rb.history))
        done, head = texts.get(player, (0, ""))
        if done > settled:
            done, head = 0, ""
        if done < settled:
            head = _joined(head, _entries_json(rb, player, done, settled))
            texts[player] = (settled, head)
        return '{"history": [' + _joined(head, _entries_json(rb, player, settled, None)) + '], "observation": ' + obs + "}"


def _joined(a: str, b: str) -> str:
    return a + ", " + b if a and b else a or b


def _entries_json(rb, seat, start, stop) -> str:
    """``history_for(rb, seat, start, stop)`` as JSON list items (keys sorted), chance outcomes
    hidden: an outcome is a label of one of a few seeded deals, it would tell every card."""
    from ..view import history_for
    return ", ".join(json.dumps({"player": CHANCE, "hidden": "chance outcome"} if h["player"] == CHANCE else h,
                                sort_keys=True, default=str) for h in history_for(rb, seat, start, stop))


RECENT = 128  # views, tensors and strings kept of positions other than the first (RulebookObserver)


def _view(state, seat) -> dict:
    """``rb.observation(seat)`` of ``state``'s position, made once (see :func:`_observed`): the
    tensors and strings of a seat's observation and information state all start from it."""
    return _observed(state, ("view",), seat, lambda rb, s: rb.observation(s))


def _observation(state, sp, seat) -> np.ndarray:
    """``sp.observation`` of ``seat`` in ``state``'s position, made once (see :func:`_observed`)."""
    return _observed(state, ("tensor", False), seat, lambda rb, s: sp.observation(rb, s, _view(state, s)))


def _observed(state, kind, seat, make):
    """``make(rb, seat)`` for ``state``'s position, made once and then kept: for the first
    position always (OpenSpiel's C++ sizes a Python game's tensor by reading it on a new initial
    state, at every read), for other positions among the last ``RECENT`` made (OpenSpiel keeps
    clones of every position it visits: keeping each one's tensors would grow memory with the
    game's length). Never changed in place: callers copy a tensor out."""
    pos = state._position()
    reg = state.reg
    if pos.token is reg.start_token:
        cache, key = reg.start_seen, (kind, seat)
    else:
        cache, key = reg.recent, (pos.token, kind, seat)
    value = cache.get(key)
    if value is None:
        value = cache[key] = make(pos.rb, seat)
        if cache is reg.recent and len(cache) > RECENT:
            del cache[next(iter(cache))]  # the oldest
    return value


# -- OpenSpiel's C++ bots on Python games ------------------------------------------------------------
_ISMCTS_MESSAGE = (
    "OpenSpiel's C++ ISMCTSBot cannot search a game written in Python: it asks the C++ State for "
    "ResampleFromInfostate, which OpenSpiel's bridge for Python games does not pass on to Python, and "
    "ISMCTSBot's SetResampler is not exposed to Python. Use OpenSpiel's ISMCTS written in Python, which "
    "calls this game's resample_from_infostate (it samples only what the seat may know): "
    "open_spiel.python.algorithms.ismcts.ISMCTSBot(game, "
    "open_spiel.python.algorithms.mcts.RandomRolloutEvaluator(1, numpy.random.RandomState(0)), 2.0, 100, "
    "random_state=numpy.random.RandomState(0)); pyspiel.evaluate_bots accepts it")
_forwarded = []  # [bool] once checked: whether C++ ResampleFromInfostate reaches Python here


def _python_state(state) -> bool:
    """Whether ``state`` belongs to a game written in Python (states of C++ games have no
    ``__dict__``; this is how OpenSpiel's bridge itself tells them apart)."""
    return isinstance(state, pyspiel.State) and hasattr(state, "__dict__")


def _resample_reaches_python(state) -> bool:
    """Whether OpenSpiel's C++ ``State::ResampleFromInfostate`` calls a Python game's
    ``resample_from_infostate`` (it does not in open_spiel 2.0.2); asked once, of the C++ method."""
    if not _forwarded:
        err = os.dup(2)  # OpenSpiel prints its error on standard error before raising it
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 2)
        try:
            pyspiel.State.resample_from_infostate(state, 0, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            _forwarded.append(True)
        except pyspiel.SpielError:
            _forwarded.append(False)
        finally:
            os.dup2(err, 2)
            os.close(err)
            os.close(quiet)
    return _forwarded[0]


def _ismcts_refused(state) -> bool:
    return (_python_state(state) and state.get_game().get_type().information
            != pyspiel.GameType.Information.PERFECT_INFORMATION and not _resample_reaches_python(state))


def _holding_gil(released, ismcts: bool):
    """A ``step`` for a C++ bot class: on a Python game's state, the C++ search through
    ``pyspiel.Bot.step`` (which keeps the GIL); otherwise ``released``, the original binding."""
    def step(self, state):
        if not _python_state(state):
            return released(self, state)
        if ismcts and _ismcts_refused(state):
            raise UnsupportedByOpenSpiel(_ISMCTS_MESSAGE)
        return pyspiel.Bot.step(self, state)
    step.rulebook_original = released
    step.__doc__ = released.__doc__
    return step


def _refusing(original):
    """A method of the C++ ISMCTSBot that raises UnsupportedByOpenSpiel on a Python game's state."""
    def method(self, state):
        if _ismcts_refused(state):
            raise UnsupportedByOpenSpiel(_ISMCTS_MESSAGE)
        return original(self, state)
    method.rulebook_original = original
    method.__doc__ = original.__doc__
    return method


def _evaluate_bots(original):
    def evaluate_bots(state, bots, seed):
        if any(isinstance(b, pyspiel.ISMCTSBot) for b in bots) and _ismcts_refused(state):
            raise UnsupportedByOpenSpiel(_ISMCTS_MESSAGE)
        return original(state, bots, seed)
    evaluate_bots.rulebook_original = original
    evaluate_bots.__doc__ = original.__doc__
    return evaluate_bots


def _guard_cpp_bots() -> None:
    """Install the wrappers described in the module doc (once per process)."""
    if hasattr(pyspiel.MCTSBot.step, "rulebook_original"):
        return
    pyspiel.MCTSBot.step = _holding_gil(pyspiel.MCTSBot.step, ismcts=False)
    pyspiel.ISMCTSBot.step = _holding_gil(pyspiel.ISMCTSBot.step, ismcts=True)
    for attr in ("step_with_policy", "get_policy"):
        setattr(pyspiel.ISMCTSBot, attr, _refusing(getattr(pyspiel.ISMCTSBot, attr)))
    pyspiel.evaluate_bots = _evaluate_bots(pyspiel.evaluate_bots)


_guard_cpp_bots()
