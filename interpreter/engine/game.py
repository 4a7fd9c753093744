"""The compiled Game: immutable, shared by every State of it."""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import IllegalAction, RuleError, RulebookError, SpecError
from ..model.saved import check_seed
from ..model.state import CHANCE, Action, State
from ..spec.positions import position_of
from . import run
from .context import Ctx

_FAST_STATE = None  # interpreter.fast.steps.fast_state, imported at the first new_state(fast=True)


@dataclass(frozen=True)
class ZoneDef:
    """A zone's declaration: ``per_player`` (bool), ``visibility`` (public | owner | hidden) and
    ``sets`` (bool): a zone of sets (melds on the table) holds a list of sets, each a list of
    card ids of its own, instead of one list of card ids. ``team`` (bool, ``per_team: true``): one
    zone per team, kept as a per-player zone in the slot of the team's first seat (see
    :meth:`Game.zone_seat`); ``per_player`` is then true too."""

    name: str
    per_player: bool
    visibility: str
    sets: bool = False
    team: bool = False


class Game:
    """A spec compiled with a choice of options.

    Attributes: ``name`` (str), ``file`` (spec path), ``options`` (dict name -> value),
    ``cards`` (list of :class:`~interpreter.model.cards.Card`, index = id),
    ``card_names`` (set), ``zones`` (dict name -> :class:`ZoneDef`), ``programs``
    (dict phase name -> instruction list; ``"flow"`` is the entry), ``spec`` (the
    YAML data as loaded), ``positions`` (path -> source position), ``min_players``/
    ``max_players``, ``winner_rule`` (``highest``/``lowest``), ``display`` (dict), ``boards``
    (dict name -> :class:`~interpreter.model.board.Grid`), ``max_actions`` (int: the actions one
    game may take before :meth:`apply` raises a located RuleError naming this bound, default
    :data:`interpreter.engine.run.MAX_GAME_ACTIONS`; set it on the Game to allow longer games).
    """

    max_actions = run.MAX_GAME_ACTIONS

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def teams(self, num_players: int) -> list:
        """The team of each seat (list of ints, index = seat) by the spec's ``teams: {of: EXPR}``
        (an expression of the seat ``p``, ``num_players`` and options); without teams, every seat is
        its own team. Raises RuleError, at the line of teams.of, when a team is not a whole number from 0
        or the expression fails (it reads a variable, zone or card: there is none before the game)."""
        cache = self.__dict__.setdefault("_teams", {})
        if num_players not in cache:
            fn = getattr(self, "teams_fn", None)
            if fn is None:
                cache[num_players] = list(range(num_players))
            else:
                from types import SimpleNamespace
                ctx = SimpleNamespace(options=self.options, locals={}, memo=None, work=0, game=self,
                                      state=SimpleNamespace(num_players=num_players), bound={}, hoisted=None)
                out = []
                for p in range(num_players):
                    ctx.bound = {"p": p}
                    try:
                        t = fn(ctx)
                    except AttributeError:  # a variable, zone or card of the game: there is none yet
                        raise self._teams_error("it can read only p, num_players and options (the teams are "
                                                "fixed before the game starts: no variable, zone or card yet)") from None
                    except RuleError as exc:
                        raise self._teams_error(str(exc)) from None
                    except run._PY_ERRORS as exc:
                        raise self._teams_error(run.describe_python_error(exc)) from None
                    if type(t) is not int or t < 0:
                        raise self._teams_error(f"the team of seat {p} is {t!r}, not a whole number from 0")
                    out.append(t)
                cache[num_players] = out
        return cache[num_players]

    def zone_seat(self, name: str, seat: int, num_players: int) -> int:
        """The slot of per-player zone ``name`` that ``seat`` reads and writes: ``seat`` itself, or
        for a zone per team (``per_team: true``) the first seat of ``seat``'s team (so every member
        of a team reads the same cards). ``seat`` must be a seat of the game."""
        if not self.zones[name].team:
            return seat
        teams = self.teams(num_players)
        return teams.index(teams[seat])

    def _teams_error(self, why: str) -> RuleError:
        """A RuleError at the spec's ``teams: of:`` saying ``why`` its value cannot be had."""
        try:
            pos = self.position(("teams", "of"))
            where = f"{self.file}:{pos.line}:{pos.column}: "
        except (KeyError, TypeError, AttributeError):
            where = f"{self.file}: "
        return RuleError(f"{where}error: teams: of: {why}\n    hint: teams.of is an expression of the seat p, "
                         f"num_players and options, e.g. \"p % 2\"")

    def __reduce__(self):
        """A Game pickles as its spec text, file name and options (rebuilt by compiling them
        again, so a pickle holds no compiled code): for multiprocess training and OpenSpiel's
        serialisation."""
        return _load_pickled, (self.source_text, self.file, dict(self.options))

    def __copy__(self):  # a shallow copy (scenario setups replace the boards of one)
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):  # immutable: copies share it
        return self

    def position(self, path):
        """The source position (line, column) of a spec path."""
        return position_of(self.positions, path)

    def new_state(self, num_players: int, seed: int = 0, player_names=None, trace: dict | None = None,
                  events: list | None = None, setup: dict | None = None, start: str | None = None,
                  chance: bool = False, chance_samples: int | None = None, fast: bool = False):
        """A new State at the first decision of a game for ``num_players`` players.

        ``seed`` (int) fixes every shuffle; ``player_names`` (list of str) is for display;
        ``events`` (a list) receives what happens, for display (dicts with ``kind``: ``log``,
        ``action``, ``reveal``); ``trace`` (a dict) receives how often each spec step ran.

        ``setup`` starts from a position instead of the deck: the ``setup`` mapping of a rule
        scenario (``stacked``, ``vars``, ``player_vars``, ``zones``; see docs/scenarios.md), and
        ``start`` (or ``setup["start"]``) the phase to run (default ``flow``; a phase runs once,
        then the game is over). ``chance=True`` makes ``shuffle`` and ``random`` steps chance
        nodes (see :mod:`interpreter.engine.chance`; ``chance_samples`` bounds the outcomes listed
        for a shuffle). ``fast=True`` returns a :class:`~interpreter.fast.steps.FastState`: the
        same game run by the typed kernel (needs numba; plays, lists and scores as a State, with
        the same actions; :meth:`~interpreter.fast.steps.FastState.to_state` gives the State for
        everything else). Raises :class:`RulebookError` when the player count is outside the spec's
        range, or with the reason when ``fast`` cannot run this game, and
        :class:`~interpreter.errors.SpecError` for a setup the spec cannot have."""
        check_seed(seed)
        if fast:
            if (trace is not None or events is not None or setup is not None or start is not None or chance
                    or chance_samples is not None or player_names is not None):
                raise RulebookError("fast=True plays whole games from the deal: no trace, events, setup, start, "
                                    "chance or player names")
            if getattr(self, "teams_fn", None) is not None and isinstance(num_players, int):
                self.teams(num_players)  # a bad teams: expression stops the game at its start, as below
            global _FAST_STATE
            if _FAST_STATE is None:  # imported once (an import statement at every call costs ~1 µs)
                from ..fast.steps import fast_state as _FAST_STATE
            return _FAST_STATE(self, num_players, seed)
        if isinstance(num_players, bool) or not isinstance(num_players, int):
            raise RulebookError(f"the number of players must be a whole number, not {num_players!r}")
        if not self.min_players <= num_players <= self.max_players:
            raise RulebookError(f"{self.name} is for {self.min_players} to {self.max_players} players, "
                                f"not {num_players}")
        if getattr(self, "teams_fn", None) is not None:
            self.teams(num_players)  # a bad teams: expression stops the game at its start
        if player_names is not None and not (isinstance(player_names, (list, tuple)) and len(player_names) == num_players
                                             and all(isinstance(x, str) for x in player_names)):
            raise RulebookError(f"player_names must be a list of {num_players} texts, not {player_names!r:.80}")
        if setup is not None or start is not None:
            from ..scenario import build_state  # the scenario format's own reader: one copy of it
            if setup is not None and not isinstance(setup, dict):
                raise RulebookError(f"setup must be a mapping (stacked, vars, player_vars, zones, start), "
                                    f"not {type(setup).__name__}")
            setup = dict(setup or {})
            start = start or setup.pop("start", None) or "flow"
            try:
                state = build_state(self, {"players": num_players, "seed": seed, "setup": setup, "start": start},
                                    file="setup")
            except SpecError as exc:  # no file position: say where instead
                raise RulebookError(str(exc).replace("setup:0:0: error: ", "new_state(setup=...): ", 1)) from None
            if player_names:
                state.player_names = list(player_names)
        else:
            state = State(self, num_players, seed, player_names)
            state.zones[self.initial_zone].extend(self.cards_in_play(num_players))
            state.stack = [["flow", 0, {}]]
        state.trace = trace
        state.events = events
        if chance:
            from .chance import new_chance
            state.chance = new_chance(chance_samples)
        self.check_constraints(state)
        run.advance(state)
        return state

    def cards_in_play(self, num_players: int) -> list:
        """The ids of the cards a game of ``num_players`` plays with: every card, except the
        sets of ``per_player`` card entries that belong to seats not in the game."""
        if not getattr(self, "_per_player_cards", False):
            return list(range(len(self.cards)))
        return [c.id for c in self.cards if c.seat is None or c.seat < num_players]

    # -- the rules of a State (its public methods delegate here: the State is data only) -----
    def check_loaded_state(self, game, state) -> None:
        """See :func:`interpreter.engine.saved_check.check_control` (used by State.from_json)."""
        from .saved_check import check_control
        check_control(self, state)

    def legal_actions(self, state, player=None) -> list:
        """See :meth:`State.legal_actions <interpreter.model.state.State.legal_actions>`."""
        if state.pending is not None and "chance" in state.pending:
            if player not in (None, CHANCE):
                return []
            return [a for a, _ in self.chance_outcomes(state)]
        return run.legal_actions(state, player)

    def chance_outcomes(self, state) -> list:
        """See :meth:`State.chance_outcomes <interpreter.model.state.State.chance_outcomes>`."""
        if state.pending is None or "chance" not in state.pending:
            return []
        from . import chance
        return [(Action(CHANCE, text, i), p) for i, (text, p) in enumerate(chance.outcomes(state))]

    def apply(self, state, action, player=None) -> None:
        """See :meth:`State.apply <interpreter.model.state.State.apply>`. Raises RuleError (the
        State unchanged) when the game has taken ``max_actions`` actions and is not over."""
        if len(state.history) >= self.max_actions and state.pending is not None:
            raise run.too_long(state)
        if state.pending is not None and "chance" in state.pending:
            if player not in (None, CHANCE) or (type(action) is Action and action.player != CHANCE):
                raise IllegalAction("waiting for chance (a shuffle or a random draw): apply an outcome "
                                    "for the chance player, CHANCE = -1")
            from . import chance
            text = chance.apply(state, action)
            state.record(CHANCE, text)
            state.pending = None
            run.advance(state)
            return
        if player == CHANCE and state.chance is not None:  # (outside chance mode: "no seat -1")
            raise IllegalAction("the chance player acts only at a chance node")
        run.apply_action(state, action, player)

    def scores(self, state) -> list:
        """See :meth:`State.scores <interpreter.model.state.State.scores>`."""
        return run.final_scores(state)

    def observation(self, state, player: int) -> dict:
        """See :meth:`State.observation <interpreter.model.state.State.observation>`."""
        return run.observe(state, player)

    def export(self, state, player: int) -> dict:
        """See :meth:`State.export <interpreter.model.state.State.export>`."""
        from ..view import export
        return export(state, player)

    def check_constraints(self, state) -> None:
        """The spec's ``constraints`` (conditions on options and the player count) for a new
        State; raises :class:`RulebookError` with the spec's message and line for the first that
        does not hold."""
        ctx = Ctx(state)
        for check, parts, path in getattr(self, "constraints", ()):
            try:
                ok = check(ctx)
                message = "".join(p if isinstance(p, str) else str(p(ctx)) for p in parts)
            except RulebookError as exc:
                ok, message = False, str(exc)
            except (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError) as exc:
                ok, message = False, run.describe_python_error(exc)
            if not ok:
                pos = self.position(path)
                message = message or f"the check {self.spec['constraints'][path[1]]['check']!r} does not hold"
                options = ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"  # as typed: true, not True
                                    for k, v in self.options.items()) or "none"
                raise RulebookError(f"{self.file}:{pos.line}:{pos.column}: these options cannot be played by "
                                    f"{state.num_players} players: {message}\n    hint: options now: {options}")

    def replay(self, num_players: int, seed: int, actions, player_names=None, fingerprint: str | None = None,
               setup=None, start=None):
        """Replay ``actions`` (list of ``[seat, text]``, e.g. a State's ``history``) from a new
        State (from ``setup``/``start`` if given, as :meth:`new_state`); returns the final State.
        A history with chance outcomes (seat ``CHANCE``, -1) is replayed in chance mode. ``fingerprint`` (from a saved game) must be this game's
        (same spec text and options), else the replay would silently be another game.

        Raises :class:`RulebookError` for a malformed entry or another fingerprint, and
        IllegalAction (naming the entry) if an action does not apply."""
        from ..errors import IllegalAction
        if fingerprint is not None and fingerprint != self.fingerprint:
            raise RulebookError(f"these actions were played with another version of {self.file} or other "
                                f"options (fingerprint {fingerprint!r}, this game's is {self.fingerprint!r})")
        if not isinstance(actions, (list, tuple)):
            raise RulebookError(f"actions must be a list of [seat, action text] pairs, not {type(actions).__name__}")
        chance = any(isinstance(e, (list, tuple)) and len(e) == 2 and e[0] == CHANCE for e in actions)
        state = self.new_state(num_players, seed, player_names, setup=setup, start=start, chance=chance)
        for i, entry in enumerate(actions):
            if not (isinstance(entry, (list, tuple)) and len(entry) == 2 and isinstance(entry[1], str)):
                raise RulebookError(f"action {i}: not a [seat, action text] pair: {entry!r:.80}")
            try:
                state.apply(entry[1], entry[0])
            except IllegalAction as exc:
                raise IllegalAction(f"action {i} ({entry[1]!r:.60} by seat {entry[0]!r:.20}): {exc.reason}") from None
        return state

    def table_rows(self, state) -> list:
        """The score table now: one dict per seat, column title -> plain value
        (``display.player_columns``; by default every player variable)."""
        ctx = Ctx(state)
        rows = []
        for p in range(state.num_players):
            ctx.bound = {"p": p}
            rows.append({title: run._plainify(f(ctx)) for title, f in self.columns})
        return rows

    def card(self, name: str):
        """The first card called ``name``; raises RulebookError if there is none."""
        for c in self.cards:
            if c.name == name:
                return c
        raise RulebookError(f"there is no card named {name!r} in {self.name}")


_UNPICKLED: dict = {}  # (spec text, file, options) -> Game: the states of one pickle stream share their Game


def _load_pickled(text: str, file: str, options: dict) -> Game:
    """The Game of a pickle (see :meth:`Game.__reduce__`), compiled once per process and kept
    (the last 8 specs)."""
    import json
    key = (text, file, json.dumps(options, sort_keys=True, default=str))
    game = _UNPICKLED.get(key)
    if game is None:
        from ..spec.loader import load_game_text
        game = load_game_text(text, file, options)
        if len(_UNPICKLED) >= 8:
            _UNPICKLED.pop(next(iter(_UNPICKLED)))
        _UNPICKLED[key] = game
    return game
