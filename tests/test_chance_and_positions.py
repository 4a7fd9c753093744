"""Chance nodes (``new_state(..., chance=True)``) and starting from a position
(``new_state(..., setup=...)``), on the shipped specs."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import IllegalAction, load_game
from interpreter.errors import RulebookError
from interpreter.model.state import CHANCE

SPECS = Path(__file__).resolve().parents[1] / "specs"


@pytest.fixture(scope="module")
def sk():
    return load_game(SPECS / "skull_king.yaml")


def test_a_shuffle_is_a_chance_node(sk):
    state = sk.new_state(4, seed=1, chance=True)
    assert state.current_players() == [CHANCE] and state.is_chance_node()
    outs = state.chance_outcomes()
    assert len(outs) == 24 and abs(sum(p for _, p in outs) - 1) < 1e-9
    assert state.legal_actions(0) == [] and state.legal_actions(CHANCE) == [a for a, _ in outs]
    with pytest.raises(IllegalAction, match="waiting for chance"):
        state.apply("bid 0", 0)
    state.apply(outs[5][0])
    assert state.current_players() == [0, 1, 2, 3] and state.history == [[CHANCE, "outcome 5"]]
    again = sk.new_state(4, seed=1, chance=True)
    again.apply("outcome 5", CHANCE)
    assert again.zones == state.zones  # an outcome is a fixed order
    other = sk.new_state(4, seed=1, chance=True)
    other.apply("outcome 6", CHANCE)
    assert other.zones != state.zones
    with pytest.raises(IllegalAction, match="only at a chance node"):
        state.apply("bid 0", CHANCE)


def test_a_deal_can_be_injected_and_replayed(sk):
    state = sk.new_state(4, seed=1, chance=True)
    names = sorted(sk.cards[i].name for i in state.pending["chance"]["cards"])
    top = ["tigress", "pirate", "mermaid", "skull-king"]  # the last is the top of the deck
    for t in top:
        names.remove(t)
    state.apply("order " + ", ".join(names + top), CHANCE)
    # round 1: dealer seat 0, the deal starts at seat 1 (§3) from the top of the deck
    assert [[sk.cards[i].name for i in h] for h in state.zones["hand"]] == \
        [["tigress"], ["skull-king"], ["mermaid"], ["pirate"]]
    rng = random.Random(3)
    while not state.is_terminal() and len(state.history) < 40:
        if state.is_chance_node():
            state.apply(rng.choice(state.chance_outcomes())[0])
        else:
            p = state.current_players()[0]
            state.apply(rng.choice(state.legal_actions(p)), p)
    replayed = sk.replay(4, 1, state.history)
    assert (replayed.zones, replayed.vars, replayed.pvars, replayed.history, replayed.pending) == \
        (state.zones, state.vars, state.pvars, state.history, state.pending)
    with pytest.raises(RulebookError, match="saved as its history"):
        state.to_json()
    with pytest.raises(IllegalAction, match="not an order"):
        sk.new_state(4, seed=1, chance=True).apply("order pirate, pirate", CHANCE)
    with pytest.raises(IllegalAction, match="outcome K"):
        sk.new_state(4, seed=1, chance=True).apply("outcome x", CHANCE)


def test_small_shuffles_list_every_order_and_random_steps_are_exact(tmp_path):
    spec = tmp_path / "tiny.yaml"
    spec.write_text("""
name: Tiny
players: {min: 2, max: 2}
cards:
  - {name: a}
  - {name: b, count: 2}
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {first: 0}
player_variables: {score: 0}
flow:
  - shuffle: deck
  - random: {first: "[0, 1, 1]"}
  - deal: {from: deck, to: hand, count: 1, start: first}
  - choose: {action: keep, player: first, options: "[1, 2]", as: v, then: [{set: {first.score: v}}]}
score: p.score
""")
    game = load_game(spec)
    state = game.new_state(2, seed=0, chance=True)
    outs = state.chance_outcomes()
    assert sorted(a.text for a, _ in outs) == ["order a, b, b", "order b, a, b", "order b, b, a"]
    assert all(abs(p - 1 / 3) < 1e-9 for _, p in outs)
    state.apply("order b, b, a", CHANCE)
    outs = state.chance_outcomes()
    assert [(a.text, round(p, 3)) for a, p in outs] == [("outcome 0", 0.333), ("outcome 1", 0.333),
                                                        ("outcome 2", 0.333)]
    state.apply("outcome 0", CHANCE)
    assert state.vars["first"] == 0 and state.current_players() == [0]
    assert game.cards[state.zones["hand"][0][0]].name == "a"  # the top card went to seat 0
    fresh = game.new_state(2, seed=0, chance=True)
    fresh.apply("order a, b, b", CHANCE)
    with pytest.raises(IllegalAction, match=r"0\.\.2"):
        fresh.apply("outcome 3", CHANCE)
    assert fresh.is_chance_node() and fresh.history == [[CHANCE, "order a, b, b"]]


def test_new_state_from_a_position(sk):
    state = sk.new_state(4, seed=2, setup={"start": "round", "stacked": True, "vars": {"round": 1},
                                           "zones": {"deck": ["skull-king", "pirate", "escape", "green-3",
                                                              "black-1", "black-2", "black-3", "black-4"]}})
    # round 2: dealer seat 1, the deal starts at seat 2 from the top of the stacked deck
    assert state.vars["round"] == 2 and state.current_players() == [0, 1, 2, 3]
    hands = {p: sorted(sk.cards[i].name for i in h) for p, h in enumerate(state.zones["hand"])}
    assert hands[2] == ["black-1", "skull-king"] and hands[3] == ["black-2", "pirate"]
    with pytest.raises(RulebookError, match="no variable 'nope'"):
        sk.new_state(4, setup={"vars": {"nope": 1}})
    with pytest.raises(RulebookError, match="no seat 9"):
        sk.new_state(4, setup={"zones": {"hand": {9: ["pirate"]}}})
    with pytest.raises(RulebookError, match="no phase"):
        sk.new_state(4, start="nowhere")
    # a position mid-trick: seat 1 must follow green if it can
    pos = sk.new_state(4, seed=0, start="trick", setup={
        "vars": {"leader": 0},
        "zones": {"hand": {0: ["green-5"], 1: ["green-2", "black-9"], 2: ["pirate"], 3: ["escape"]}}})
    pos.apply("play green-5", 0)
    assert [a.text for a in pos.legal_actions(1)] == ["play green-2"]
