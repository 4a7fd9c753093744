"""The `random` step: like `set`, but each target receives one item of a list, drawn with the
State's seeded random generator (a start player chosen at random, a random variant card...)."""
from __future__ import annotations

import textwrap

import pytest

from interpreter.errors import RuleError, SpecError
from interpreter.model.state import State
from interpreter.spec.loader import check_spec, load_game

SPEC = """
name: Random pick
players: {min: 2, max: 6}
cards:
  - each: {n: "range(1, 4)"}
    name: "c{n}"
zones:
  deck: {visibility: hidden, initial: all}
variables: {first: null, colour: null, picks: []}
player_variables: {lucky: null}
flow:
  - random: {first: players, colour: "['red', 'blue', 'green']"}
  - for: p
    in: players
    do:
      - random: {p.lucky: "range(10, 20)"}
  - repeat: 5
    do:
      - random: {first: players}
      - set: {picks: "picks + [first]"}
"""


def _game(tmp_path, text=SPEC):
    path = tmp_path / "random_pick.yaml"
    path.write_text(textwrap.dedent(text))
    return path, load_game(path)


def test_random_picks_an_item_of_the_list(tmp_path):
    _, game = _game(tmp_path)
    state = game.new_state(4, seed=3)
    assert state.is_terminal()
    assert state.vars["first"] in range(4)
    assert state.vars["colour"] in ("red", "blue", "green")
    assert all(pv["lucky"] in range(10, 20) for pv in state.pvars)
    assert all(p in range(4) for p in state.vars["picks"])


def test_random_is_reproducible_from_the_seed(tmp_path):
    _, game = _game(tmp_path)
    a, b = game.new_state(5, seed=11), game.new_state(5, seed=11)
    assert (a.vars, a.pvars) == (b.vars, b.pvars)
    # each draw advances the generator like a shuffle does
    assert a.rng_count == 2 + 5 + 5


def test_random_covers_every_item_across_seeds(tmp_path):
    _, game = _game(tmp_path)
    firsts = {game.new_state(3, seed=s).vars["colour"] for s in range(60)}
    assert firsts == {"red", "blue", "green"}
    seats = [game.new_state(3, seed=s).vars["picks"][0] for s in range(300)]
    for seat in range(3):  # roughly uniform: each seat about 100 times
        assert 60 < seats.count(seat) < 140


def test_random_takes_the_first_item_in_stacked_scenarios(tmp_path):
    _, game = _game(tmp_path)
    state = State(game, 4, seed=99)
    state.zones[game.initial_zone].extend(range(len(game.cards)))
    state.stacked = True
    state.stack = [["flow", 0, {}]]
    from interpreter.engine.run import advance
    advance(state)
    assert state.vars["colour"] == "red"
    assert state.vars["picks"] == [0, 0, 0, 0, 0]
    assert state.rng_count == 0


def test_random_of_an_empty_list_is_a_rule_error(tmp_path):
    _, game = _game(tmp_path, SPEC.replace("range(10, 20)", "[]"))
    with pytest.raises(RuleError, match="random: needs a non-empty list"):
        game.new_state(2, seed=0)


def test_random_target_must_be_a_variable(tmp_path):
    path, _ = _game(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text(textwrap.dedent(SPEC).replace("random: {first: players, colour:", "random: {nothing: players, colour:"))
    diags = check_spec(bad)
    assert any("cannot set 'nothing'" in d.message for d in diags)
    with pytest.raises(SpecError):
        load_game(bad)
    assert [d for d in check_spec(path) if d.severity == "error"] == []


def test_random_must_be_a_mapping(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(textwrap.dedent(SPEC).replace("- random: {first: players, colour: \"['red', 'blue', 'green']\"}",
                                                 "- random: first"))
    assert any(d.severity == "error" for d in check_spec(bad))
