"""Fixed action ids, masks and tensors (numpy) for any spec, and the PettingZoo and OpenSpiel
adapters. The adapters' packages are in the test extra: CI runs these tests (a missing package is
an error there, a skip only outside CI)."""
from __future__ import annotations

import importlib
import os
import random
from pathlib import Path

import numpy as np
import pytest

from interpreter import load_game
from interpreter.adapters.spaces import Spaces
from interpreter.agents.determinize import Determiniser
from interpreter.errors import RulebookError

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _need(module):
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (pip install -e '.[research]')")


@pytest.fixture(scope="module")
def witches():
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    return game, Spaces(game, 3, discovery=3)


def test_action_ids_cover_every_legal_action_and_tensors_have_their_shapes(witches):
    game, sp = witches
    assert sp.num_actions == len(sp.actions) == len(set(sp.actions))
    assert sp.observation_size == sum(size for _, size in sp.sections)
    rng = random.Random(5)
    for seed in (11, 12):  # games not used for discovery
        state = game.new_state(3, seed)
        while not state.is_terminal():
            p = state.current_players()[0]
            legal = state.legal_actions(p)
            mask = sp.mask(state, p)
            assert mask.dtype == np.int8 and mask.shape == (sp.num_actions,)
            assert mask.sum() == len(legal)
            assert [sp.action_text(i) for i in sp.legal_ids(state, p)] == [a.text for a in legal]
            obs = sp.observation(state, p)
            info = sp.information_state(state, p)
            assert obs.dtype == np.float32 and obs.shape == (sp.observation_size,)
            assert info.shape == (sp.information_state_size,) and np.array_equal(info[:sp.observation_size], obs)
            state.apply(rng.choice(legal), p)
    with pytest.raises(RulebookError, match="no id"):
        sp.action_id("fly away")
    with pytest.raises(RulebookError, match="out of range"):
        sp.action_text(sp.num_actions)


def test_value_options_are_discovered_and_card_options_enumerated():
    game = load_game(SPECS / "skull_king.yaml")
    sp = Spaces(game, 4, discovery=1)
    assert [f"bid {k}" for k in range(11)] == [t for t in sp.actions if t.startswith("bid ")]
    assert "play tigress as pirate" in sp.ids and "play tigress as escape" in sp.ids
    assert "play tigress" not in sp.ids and "play black-14" in sp.ids


def test_tensors_hide_what_the_seat_may_not_see(witches):
    """The observation and information-state tensors of a seat are the same when the cards it
    cannot see are dealt differently (and they change when its own hand does)."""
    game, sp = witches
    state = game.new_state(3, 4)
    rng = random.Random(1)
    for _ in range(7):
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)), p)
    seat = state.current_players()[0]
    other = Determiniser(game, seat).sample(state, random.Random(3))
    assert other.zones != state.zones
    assert np.array_equal(sp.observation(state, seat), sp.observation(other, seat))
    assert np.array_equal(sp.information_state(state, seat), sp.information_state(other, seat))
    watcher = (seat + 1) % 3
    assert not np.array_equal(sp.observation(state, watcher), sp.observation(other, watcher))


def test_pettingzoo_api_test():
    _need("pettingzoo")
    from pettingzoo.test import api_test
    from interpreter.adapters.pettingzoo_env import RulebookAECEnv
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    env = RulebookAECEnv(game, 3, discovery=2)
    api_test(env, num_cycles=300)
    sk = RulebookAECEnv(load_game(SPECS / "skull_king.yaml"), 4, discovery=1, reward="score")
    api_test(sk, num_cycles=120)
    # a whole game by the mask, with rewards at the end
    env.reset(seed=3)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert abs(sum(total.values()) - 1.0) < 1e-9


def test_openspiel_random_simulation_and_mcts():
    pyspiel = _need("pyspiel")
    from interpreter.adapters.openspiel_game import register
    name = register(SPECS / "witches_of_blackmore.yaml", players=2, discovery=2)
    assert register(SPECS / "witches_of_blackmore.yaml", players=2, discovery=2) == name
    other = register(SPECS / "witches_of_blackmore.yaml", players=2, options={"wheel": "ascending"}, discovery=1)
    assert other != name and pyspiel.load_game(other).num_players() == 2
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    sk = pyspiel.load_game(register(SPECS / "skull_king.yaml", players=3, discovery=1))
    pyspiel.random_sim_test(sk, num_sims=1, serialize=False, verbose=False)
    state = game.new_initial_state()
    assert state.is_chance_node() and abs(sum(p for _, p in state.chance_outcomes()) - 1) < 1e-9
    from open_spiel.python.algorithms import mcts
    bot = mcts.MCTSBot(game, 2, 10, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(1))
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()
