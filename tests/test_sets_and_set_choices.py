"""Zones of sets, set choices (choose with min/max) and named conditional optional actions.

Checked here: located validation errors for their misuse; the option list of a set choice stays
short (at most one pick per kind of card held, plus confirm, undo and the optional action) over
random Queen of Scots games; a set typed whole gives the same State as the same set picked card by
card; picks stay private to the chooser (history, export, observation); a half-built set survives
JSON and cloning; a refused set leaves the State unchanged; Queen of Scots for 2, 3 and 4 players
(cards never created or lost, games end, replay exact, hands hidden).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import IllegalAction, SpecError, State, load_game
from interpreter.view import export, history_for

ROOT = Path(__file__).resolve().parents[1]
QOS = ROOT / "specs" / "queen_of_scots.yaml"

BASE = """\
name: T
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 7)"}
    name: "c{rank}"
    count: 2
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  melds: {per_player: true, visibility: public, sets: true}
player_variables: {score: 0}
flow:
  - deal: {from: deck, to: hand, count: 4}
STEP
"""


def spec(tmp_path, step):
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("STEP", step))
    return path


def errors_of(path):
    with pytest.raises(SpecError) as exc:
        load_game(path)
    return [(d.line, d.message) for d in exc.value.diagnostics]


@pytest.mark.parametrize("step, line, words", [
    ("  - shuffle: 0.melds", 14, "is a zone of sets"),
    ("  - deal: {from: deck, to: melds, count: 1}", 14, "is a zone of sets"),
    ("  - choose: {action: go, player: 0, options: '[1]', valid: 'true'}", 14, "valid is for set choices"),
    ("  - choose: {action: go, player: 0, options: '[1]', min: 1}", 14, "chooses cards"),
    ("  - choose: {action: pick, player: 0, cards: 0.hand, min: 1}", 14, "is used to build a set"),
    ("  - choose: {action: go, player: 0, cards: 0.hand, min: 3, max: 2}", 14, "min 3 is more than max 2"),
    ("  - choose: {action: go, player: 0, cards: 0.hand, optional: {action: go}}", 14, "reads like the choice's own verb"),
    ("  - choose: {action: go, player: 0, cards: 0.hand, optional: {action: stop, when: 'nope'}}", 14, "unknown name 'nope'"),
    ("  - move: {from: 0.melds, to: deck}", 14, "is a zone of sets"),
])
def test_misuse_is_a_located_error(tmp_path, step, line, words):
    errors = errors_of(spec(tmp_path, step))
    assert any(l == line and words in m for l, m in errors), errors


def test_zones_of_sets_open_extend_and_read(tmp_path):
    game = load_game(spec(tmp_path, """\
  - move: {cards: "0.hand", to: 0.melds}
  - move: {from: deck, to: "0.melds[0]", count: 1}
  - move: {cards: "[1.hand[0]]", to: 0.melds}
  - move: {cards: "0.melds[1]", to: 1.hand}
  - choose: {action: go, player: 0, options: "[count(0.melds), count(0.melds[0])]"}"""))
    state = game.new_state(2, 1)
    # set 0: seat 0's four cards plus one from the deck; set 1 was opened then emptied, so it is gone
    assert [len(s) for s in state.zones["melds"][0]] == [5]
    assert [a.text for a in state.legal_actions(0)] == ["go 1", "go 5"]
    assert len(state.zones["hand"][1]) == 4
    obs = state.observation(1)
    assert obs["zones"]["melds"][0] and len(obs["zones"]["melds"][0][0]) == 5


def qos(options=None):
    return load_game(QOS, options or {"target_score": 300})


def test_set_choice_options_stay_few():
    """A player with up to 12 cards never sees more than one pick per kind of card held,
    plus the confirmation, undo and the optional action."""
    game = qos()
    rng = random.Random(4)
    seen_set_choices = 0
    for seed in range(3):
        state = game.new_state(3, seed)
        steps = 0
        while not state.is_terminal() and steps < 3000:
            p = state.current_players()[0]
            actions = state.legal_actions(p)
            if state.observation(p)["pending"].get("my_picked") is not None:
                seen_set_choices += 1
                kinds = len({game.cards[i].name for i in state.zones["hand"][p]})
                assert len(actions) <= kinds + 3, [a.text for a in actions]
            state.apply(rng.choice(actions))
            steps += 1
    assert seen_set_choices > 50


def _meld_position():
    """A Queen of Scots State at seat 0's meld decision with a known hand."""
    from interpreter.scenario import build_state  # the scenario runner's position builder
    data = {"rule": "t", "game": "queen_of_scots", "players": 2, "start": "meld",
            "setup": {"vars": {"current": 0},
                      "zones": {"hand": {0: ["mary", "elizabeth", "crown-jewels", "knox", "knox", "knox"],
                                         1: ["cecil"]}}}}
    return build_state(load_game(QOS), data)


def _ready(state):
    from interpreter.engine.run import advance
    advance(state)
    return state


def test_typed_whole_equals_picked_card_by_card():
    a = _ready(_meld_position())
    b = a.clone()
    a.apply("meld crown-jewels elizabeth mary", 0)
    for text in ("pick elizabeth", "pick crown-jewels", "pick mary", "meld mary elizabeth crown-jewels"):
        b.apply(text, 0)
    assert a.zones == b.zones and a.pending == b.pending
    assert a.history[-1] == [0, "meld mary elizabeth crown-jewels"]  # recorded in card-table order


def test_picks_are_private():
    state = _ready(_meld_position())
    state.apply("pick knox", 0)
    state.apply("pick knox", 0)
    assert state.observation(0)["pending"]["my_picked"] == ["knox", "knox"]
    assert state.observation(1)["pending"] is None or "knox" not in str(state.observation(1)["pending"])
    seen_by_1 = history_for(state, 1)
    assert all("knox" not in str(entry) for entry in seen_by_1[-2:])
    assert "knox" not in str(export(state, 1)["history"])
    copy = state.clone()
    copy.apply("pick knox", 0)
    copy.apply("meld knox knox knox", 0)
    assert [state.game.cards[i].name for i in copy.zones["melds"][0][0]] == ["knox"] * 3
    assert state.observation(0)["pending"]["my_picked"] == ["knox", "knox"]  # the original is untouched


def test_a_half_built_set_survives_json():
    """A game saved in the middle of building a set continues exactly after loading."""
    game = qos()
    rng = random.Random(7)
    state = game.new_state(3, 7)
    while not any(a.text.startswith("pick ") for a in state.legal_actions()):
        state.apply(rng.choice(state.legal_actions()))
    state.apply(next(a for a in state.legal_actions() if a.text.startswith("pick ")))
    p = state.current_players()[0]
    assert state.observation(p)["pending"]["my_picked"]
    again = State.from_json(game, state.to_json())
    assert again.observation(p) == state.observation(p)
    for _ in range(40):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        state.apply(action.text, action.player)
        again.apply(action.text, action.player)
    assert again.to_json() == state.to_json()


def test_a_refused_set_leaves_the_state_unchanged():
    state = _ready(_meld_position())
    state.apply("pick mary", 0)
    before = state.to_json()
    for bad in ("meld knox knox crown-jewels", "meld mary knox knox", "meld mary", "pick cecil"):
        with pytest.raises(IllegalAction):
            state.apply(bad, 0)
        assert state.to_json() == before


@pytest.mark.parametrize("players", [2, 3, 4])
def test_queen_of_scots_games_keep_invariants(players):
    game = qos()
    total = len(game.cards)
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_state(players, seed)
        steps = 0
        while not state.is_terminal():
            p = state.current_players()[0]
            state.apply(rng.choice(state.legal_actions(p)))
            steps += 1
            assert steps < 20_000, "the game did not end"
            ids = [i for _, _, _, z in state.card_lists() for i in z]
            assert sorted(ids) == list(range(total)), "a card was created or lost"
            if steps % 25 == 0:
                for viewer in range(players):
                    hands = state.observation(viewer)["zones"]["hand"]
                    for seat, shown in enumerate(hands):
                        assert (shown == {"count": len(state.zones["hand"][seat])}) == (seat != viewer)
        assert max(state.scores()) >= 300 and state.winners()
        assert game.replay(players, seed, state.history).to_json() == state.to_json()


@pytest.mark.parametrize("bad, guess", [("meld mary elizabth crown-jewels", "did you mean 'elizabeth'?"),
                                        ("pick knx", "did you mean 'knox'?")])
def test_a_misspelt_card_in_a_set_gets_a_did_you_mean(bad, guess):
    state = _ready(_meld_position())
    with pytest.raises(IllegalAction) as refused:
        state.apply(bad, 0)
    assert "there is no card named" in refused.value.reason and guess in refused.value.reason
