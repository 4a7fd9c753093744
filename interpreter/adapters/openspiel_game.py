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
(none sees the others' secret choices); a real-time block lets the first seat that may act act.
Player actions are the ids of :class:`~interpreter.adapters.spaces.Spaces`; observation and
information-state tensors and strings come from the same class (and ``State.observation``).
``max_game_length`` is twice the longest discovery game (a bound OpenSpiel asks for, not a rule).
"""
from __future__ import annotations

import hashlib
import json
import re

import numpy as np
import pyspiel

from ..model.state import CHANCE
from ..spec.loader import load_game
from .spaces import Spaces

_REGISTERED: dict = {}


def register(spec, players: int, options: dict | None = None, discovery: int = 10, name: str | None = None) -> str:
    """Register ``spec`` (a path) for ``players`` seats with pyspiel; returns its short name (for
    ``pyspiel.load_game``). Registering the same spec, options and players again returns the same
    name."""
    game = load_game(spec, options or {})
    key = (str(spec), json.dumps(options or {}, sort_keys=True), players)
    if key in _REGISTERED:
        return _REGISTERED[key]
    short = name or "python_rulebook_" + re.sub(r"[^a-z0-9]+", "_", game.name.lower()).strip("_") + f"_{players}p"
    if options:
        short += "_" + hashlib.sha256(key[1].encode()).hexdigest()[:8]  # stable across runs
    sp = Spaces(game, players, discovery=discovery)
    game_type = pyspiel.GameType(
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
    info = pyspiel.GameInfo(
        num_distinct_actions=sp.num_actions, max_chance_outcomes=max(sp.max_chance_outcomes, 1),
        num_players=players, min_utility=0.0, max_utility=1.0, utility_sum=1.0,
        max_game_length=2 * sp.max_length + 10)

    class _Game(RulebookGame):
        def __init__(self, params=None):
            super().__init__(game_type, info, params, game, players, sp)

    pyspiel.register_game(game_type, _Game)
    _REGISTERED[key] = short
    return short


class RulebookGame(pyspiel.Game):
    """A pyspiel Game over a compiled Rulebook game (made by :func:`register`)."""

    def __init__(self, game_type, info, params, game, players, sp):
        super().__init__(game_type, info, params or {})
        self.rb_game, self.rb_players, self.spaces = game, players, sp

    def new_initial_state(self):
        return RulebookState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return RulebookObserver(self.spaces, perfect_recall)


class RulebookState(pyspiel.State):
    """A pyspiel State wrapping a Rulebook State in chance mode (pyspiel clones it with
    ``copy.deepcopy``, which is ``State.clone``)."""

    def __init__(self, game, rb_state=None):
        super().__init__(game)
        self.spaces = game.spaces
        self.rb = rb_state if rb_state is not None else game.rb_game.new_state(game.rb_players, 0, chance=True)

    def current_player(self):
        if self.rb.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if self.rb.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        return self.rb.current_players()[0]

    def _legal_actions(self, player):
        return sorted(self.spaces.legal_ids(self.rb, player))

    def chance_outcomes(self):
        return [(a.index, p) for a, p in self.rb.chance_outcomes()]

    def _apply_action(self, action):
        if self.rb.is_chance_node():
            self.rb.apply(int(action), CHANCE)
        else:
            seat = self.rb.current_players()[0]
            self.rb.apply(self.spaces.action_for(self.rb, seat, int(action)), seat)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            outs = self.rb.chance_outcomes()
            return outs[action][0].text if 0 <= action < len(outs) else f"outcome {action}"
        return self.spaces.action_text(int(action))

    def is_terminal(self):
        return self.rb.is_terminal()

    def returns(self):
        n = self.rb.num_players
        if not self.rb.is_terminal():
            return [0.0] * n
        winners = self.rb.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]

    def __str__(self):
        return json.dumps({"history": self.rb.history, "to_act": self.rb.current_players()})



class RulebookObserver:
    """pyspiel observer: ``tensor`` (numpy ``float32``) and ``dict`` (``{"observation": tensor}``),
    filled by ``set_from(state, player)``; ``string_from`` gives the seat's view as JSON."""

    def __init__(self, sp: Spaces, perfect_recall: bool):
        self.spaces, self.perfect_recall = sp, perfect_recall
        size = sp.information_state_size if perfect_recall else sp.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        t = (self.spaces.information_state if self.perfect_recall else self.spaces.observation)(state.rb, player)
        self.tensor[:] = t

    def string_from(self, state, player):
        if self.perfect_recall:
            from ..view import history_for
            return json.dumps({"observation": state.rb.observation(player),
                               "history": history_for(state.rb, player)}, sort_keys=True, default=str)
        return json.dumps(state.rb.observation(player), sort_keys=True, default=str)
