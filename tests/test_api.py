"""The Python API (OpenSpiel-like) on the Skull King spec: decisions, simultaneity, actions."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter import IllegalAction, State, load_game
from interpreter.cli import main

SK = Path(__file__).resolve().parents[1] / "specs" / "skull_king.yaml"


@pytest.fixture(scope="module")
def game():
    return load_game(SK)


def test_bids_are_simultaneous_and_secret(game):
    state = game.new_state(4, seed=7)
    assert state.current_players() == [0, 1, 2, 3]
    assert [a.text for a in state.legal_actions(2)] == ["bid 0", "bid 1"]
    state.apply("bid 1", 2)
    # the bid is committed but not revealed: nobody's variable shows it yet
    assert state.current_players() == [0, 1, 3]
    assert all(pv["bid"] is None for pv in state.pvars)
    assert state.observation(0)["pending"]["chosen"] == [2]
    assert state.observation(0)["pending"]["my_choice"] is None
    assert state.observation(2)["pending"]["my_choice"] == "bid 1"  # only the chooser sees it
    with pytest.raises(IllegalAction, match="already chosen"):
        state.apply("bid 0", 2)
    for p in (0, 1, 3):
        state.apply("bid 0", p)
    assert [pv["bid"] for pv in state.pvars] == [0, 0, 1, 0]
    # round 1: dealer seat 0, so seat 1 leads the first trick (§3)
    assert state.current_players() == [1]


def test_actions_by_object_text_or_index(game):
    a = game.new_state(4, seed=3)
    b = game.new_state(4, seed=3)
    c = game.new_state(4, seed=3)
    for p in range(4):
        a.apply(a.legal_actions(p)[1])
        b.apply(b.legal_actions(p)[1].text.upper(), p)  # text is case-insensitive
        c.apply(1, p)
    assert a.to_json() == b.to_json() == c.to_json()


def test_illegal_action_leaves_state_unchanged(game):
    state = game.new_state(4, seed=5)
    for p in range(4):
        state.apply("bid 0", p)
    before = state.to_json()
    leader = state.current_players()[0]
    other = (leader + 1) % 4
    with pytest.raises(IllegalAction, match="not .*turn"):
        state.apply(state.legal_actions(leader)[0].text, other)
    with pytest.raises(IllegalAction, match="no card named"):
        state.apply("play purple-99", leader)
    with pytest.raises(IllegalAction, match="out of range"):
        state.apply(99, leader)
    assert state.to_json() == before


def test_tigress_is_declared_when_played(game):
    state = game.new_state(3, seed=0)
    texts = set()
    for seed in range(60):
        state = game.new_state(3, seed=seed)
        while not state.is_terminal():
            p = state.current_players()[0]
            acts = [a.text for a in state.legal_actions(p)]
            texts.update(t for t in acts if "tigress" in t)
            state.apply(0, p)
        if texts:
            break
    assert texts == {"play tigress as pirate", "play tigress as escape"}


def test_identical_cards_give_one_action(game):
    from interpreter.engine.run import advance
    from interpreter.scenario import build_state
    state = build_state(game, {"players": 3, "start": "trick", "setup": {
        "vars": {"leader": 0, "round": 3, "cards_dealt": 3},
        "zones": {"hand": {0: ["escape", "escape", "green-3"], 1: ["pirate", "pirate", "mermaid"],
                           2: ["black-1", "black-2", "black-3"]}}}})
    advance(state)
    assert sorted(a.text for a in state.legal_actions(0)) == ["play escape", "play green-3"]
    state.apply("play escape", 0)
    assert sorted(a.text for a in state.legal_actions(1)) == ["play mermaid", "play pirate"]
    # the second escape is still in hand
    assert [game.cards[i].name for i in state.zones["hand"][0]].count("escape") == 1


def test_game_over(game):
    state = game.new_state(3, seed=1)
    while not state.is_terminal():
        state.apply(0, state.current_players()[0])
    assert state.current_players() == []
    assert state.legal_actions(0) == []
    assert len(state.history) == 3 * 10 + 3 * 55  # 10 rounds of bids, 55 tricks of 3 cards
    with pytest.raises(IllegalAction, match="over"):
        state.apply("bid 0", 0)
    assert state.winners() and all(w in range(3) for w in state.winners())


def test_options_and_presets(game):
    g = load_game(SK, {"preset": "rulebook_2021"})
    assert g.options["lead_suit"] == "official" and g.options["mermaid_captures_king_bonus"] == 40
    g = load_game(SK, {"kraken": "true", "white_whale": "yes"})
    assert len(g.cards) == 72
    assert {"kraken", "white-whale"} <= g.card_names
    assert len(game.cards) == 70


def test_from_json_refuses_other_options(game):
    text = game.new_state(4, seed=1).to_json()
    other = load_game(SK, {"kraken": "true"})
    with pytest.raises(Exception, match="options"):
        State.from_json(other, text)


def test_play_and_replay_from_the_cli(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", str(SK), "--players", "3", "--seed", "4", "--save", str(log)]) == 0
    out = capsys.readouterr().out
    assert "Round 10" in out and "Game over" in out and "wins the trick" in out
    data = json.loads(log.read_text())
    assert data["num_players"] == 3 and len(data["history"]) == 3 * 10 + 3 * 55
    assert main(["replay", str(log)]) == 0
    replayed = capsys.readouterr().out
    final = load_game(SK).replay(3, 4, data["history"])
    assert f"scores: {final.scores()}" in replayed


def test_observation_of_a_missing_seat(game):
    from interpreter import RulebookError
    state = game.new_state(4, seed=1)
    for seat in (4, -1, "0"):
        with pytest.raises(RulebookError, match="no seat"):
            state.observation(seat)
