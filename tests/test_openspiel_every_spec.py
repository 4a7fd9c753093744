"""OpenSpiel's own checks on every shipped spec, at its minimum and maximum player counts, through
the adapter (interpreter/adapters/openspiel_game.py): ``pyspiel.random_sim_test`` with
``serialize=True`` (each game's legal actions, chance outcomes, tensors, strings, clones and
serialization at every early and power-of-two step) and ``serialize_game_and_state`` /
``deserialize_game_and_state`` mid-game. One random game each; specs whose default game is long
play a shorter one by their own options (same rules, fewer rounds or a lower target).
Needs open_spiel (the test extra)."""
from __future__ import annotations

import importlib
import os
import random
from pathlib import Path

import pytest

from interpreter import load_game

SPECS = Path(__file__).resolve().parents[1] / "specs"
# options that shorten a game (its rules unchanged): one round, one hand, a low target
SHORT = {"hearts": {"target": 1}, "ligretto": {"rounds": 1}, "ligretto_classic": {"rounds": 1},
         "president": {"rounds": 1}, "queen_of_scots": {"target_score": 100}, "rummy_500": {"max_hands": 1},
         "spades": {"max_hands": 1}, "canasta": {"max_hands": 1}, "contract_rummy": {"deals": 1}}


def _pairs():
    for f in sorted(SPECS.glob("*.yaml")):
        game = load_game(f)
        for n in sorted({game.min_players, game.max_players}):
            yield pytest.param(f.stem, n, id=f"{f.stem}-{n}p")


@pytest.fixture(scope="module")
def pyspiel():
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("open_spiel is not installed (pip install -e '.[openspiel]')")


@pytest.mark.parametrize("spec,n", list(_pairs()))
def test_random_sim_test_with_serialization(pyspiel, spec, n):
    from interpreter.adapters.openspiel_game import register
    game = pyspiel.load_game(register(SPECS / f"{spec}.yaml", players=n, options=SHORT.get(spec)))
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    state, rng = game.new_initial_state(), random.Random(n)
    for _ in range(25):
        if state.is_terminal():
            break
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(rng.choice(actions))
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert game2.get_type().short_name == game.get_type().short_name
    assert str(state2) == str(state) and state2.history() == state.history()
    if not state.is_terminal():
        assert state2.legal_actions() == state.legal_actions()
        assert state2.current_player() == state.current_player()
        seat = max(state.current_player(), 0)
        assert state2.information_state_tensor(seat) == state.information_state_tensor(seat)


def test_reading_a_tensor_does_not_run_the_spec_start_again(pyspiel, monkeypatch):
    """OpenSpiel makes a new initial state of a Python game for every tensor it reads (to size
    it); the adapter clones the first position made, instead of running the rules' start each
    time (9 ms a read on a board game)."""
    from interpreter.adapters.openspiel_game import register
    from interpreter.engine.game import Game
    game = pyspiel.load_game(register(SPECS / "oh_hell.yaml", players=3))
    state = game.new_initial_state()
    state.apply_action(state.chance_outcomes()[0][0])
    first = state.information_state_tensor(0)
    monkeypatch.setattr(Game, "new_state", lambda *a, **k: pytest.fail("the spec's start was run again"))
    again = game.new_initial_state()
    again.apply_action(again.chance_outcomes()[0][0])
    assert again.information_state_tensor(0) == first and again.observation_tensor(1) == state.observation_tensor(1)


def test_tensors_and_strings_are_made_once_per_position_and_again_after_an_action(pyspiel, monkeypatch):
    """OpenSpiel's checks read each tensor of a position several times (and size it on a new
    initial state each time): the adapter makes each once per position, shares it with clones,
    and makes it again after an action, so states that differ for a seat read differently."""
    from interpreter.adapters import spaces
    from interpreter.adapters.openspiel_game import register
    made = []
    real = spaces.Spaces.information_state
    monkeypatch.setattr(spaces.Spaces, "information_state",
                        lambda sp, st, seat, *kept: made.append(seat) or real(sp, st, seat, *kept))
    game = pyspiel.load_game(register(SPECS / "oh_hell.yaml", players=3))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    first = state.information_state_tensor(1)
    count = len(made)
    assert state.information_state_tensor(1) == first and state.clone().information_state_tensor(1) == first
    assert len(made) == count  # nothing made again: the position, its clone and the initial state
    seat = state.current_player()
    a, b = state.legal_actions()[:2]
    other = state.clone()
    state.apply_action(a)
    other.apply_action(b)
    assert state.information_state_string(seat) != other.information_state_string(seat)
    assert state.information_state_tensor(seat) != other.information_state_tensor(seat)
    assert len(made) == count + 2


@pytest.mark.parametrize("spec,n", [("skull_king", 3), ("hearts", 4), ("president", 4)])
def test_information_state_kept_along_the_game_equals_it_made_from_the_whole_history(pyspiel, spec, n):
    """The adapter counts and encodes only the actions since its last read of an information
    state (kept along the line of play); what it gives is what the whole
    history gives, for every seat at every step, on specs with simultaneous choices (revealed
    later) and private actions, on the real game and on a clone played another way."""
    import json

    from interpreter.adapters.openspiel_game import register
    from interpreter.model.state import CHANCE
    from interpreter.view import history_for
    game = pyspiel.load_game(register(SPECS / f"{spec}.yaml", players=n, options=SHORT.get(spec)))
    sp = game.spaces

    def whole(state, seat):
        rb = state.rb
        history = [{"player": CHANCE, "hidden": "chance outcome"} if h["player"] == CHANCE else h
                   for h in history_for(rb, seat)]
        text = json.dumps({"observation": rb.observation(seat), "history": history}, sort_keys=True, default=str)
        return list(sp.information_state(rb, seat)), text

    rng = random.Random(7)
    states, steps = [game.new_initial_state()], 0
    while steps < 120 and not states[0].is_terminal():
        for state in states:
            if state.is_terminal():
                continue
            if not state.is_chance_node():
                for seat in range(n):
                    assert (list(state.information_state_tensor(seat)), state.information_state_string(seat)) \
                        == whole(state, seat)
            actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
            state.apply_action(rng.choice(actions))
        if steps == 40:
            states.append(states[0].clone())
        steps += 1
    assert steps == 120 or states[0].is_terminal()


def test_the_four_views_of_a_seat_read_its_observation_once(pyspiel, monkeypatch):
    """OpenSpiel's checks read a seat's information-state and observation tensors and strings at
    every step: the adapter makes the seat's observation (``State.observation``) and its tensor
    once per position for the four, and what they give is what each made alone gives."""
    import json

    from interpreter.adapters.openspiel_game import register
    from interpreter.model.state import State
    game = pyspiel.load_game(register(SPECS / "oh_hell.yaml", players=3))
    sp = game.spaces
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[0])
    rb = state.rb
    alone = (list(sp.information_state(rb, 1)), list(sp.observation(rb, 1)),
             json.dumps(rb.observation(1), sort_keys=True, default=str))
    state.information_state_tensor(2), state.observation_tensor(2)  # (OpenSpiel sizes them on a first position)
    seen = []
    real = State.observation
    monkeypatch.setattr(State, "observation", lambda st, seat: seen.append(seat) or real(st, seat))
    info, obs = list(state.information_state_tensor(1)), list(state.observation_tensor(1))
    info_text, obs_text = state.information_state_string(1), state.observation_string(1)
    assert seen == [1]
    assert (info, obs, obs_text) == alone and json.loads(info_text)["observation"] == json.loads(obs_text)


def test_a_state_and_its_clone_print_their_position_once(pyspiel, monkeypatch):
    """``str(state)`` (OpenSpiel's ``ToString``, the history as JSON) is made once per position:
    OpenSpiel's checks print a state and its clone at every step, and the text grows with the game."""
    import json

    import interpreter.adapters.openspiel_game as og
    from interpreter.adapters.openspiel_game import register
    game = pyspiel.load_game(register(SPECS / "oh_hell.yaml", players=3))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    made = []
    real = og.json.dumps

    class Counting:  # the json module, counting dumps
        def __getattr__(self, name):
            return getattr(json, name)

        @staticmethod
        def dumps(value, **kw):
            made.append(value)
            return real(value, **kw)
    monkeypatch.setattr(og, "json", Counting())
    text = str(state)
    assert str(state) == str(state.clone()) == text and len(made) == 1
    state.apply_action(state.legal_actions()[0])
    assert str(state) != text and len(made) == 2 and str(state.clone()) == str(state) and len(made) == 2
