"""Hardening (issue 11): hostile spec values, tampered game logs, the API under misuse.

Each test is a kind of fault found from outside; the fix is for the kind, the test keeps one case."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter import IllegalAction, RulebookError, load_game
from interpreter.cli import main
from interpreter.spec.loader import check_spec

REPO = Path(__file__).resolve().parents[1]
SK = REPO / "specs" / "skull_king.yaml"

SMALL = """\
name: Small
players: {min: 2, max: 3}
cards:
  - each: {suit: [red, blue], rank: "range(1, 4)"}
    name: "{suit}-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  pile: {visibility: public}
variables: {v: 1}
player_variables: {score: 0}
flow:
  - deal: {from: deck, to: hand, count: 2}
  - for: p
    in: turn_order(0)
    do:
      - choose: {player: p, cards: p.hand, action: play, to: pile}
      - add: {p.score: v}
"""


def _errors(tmp_path, text, name="spec.yaml"):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return [d for d in check_spec(path) if d.severity == "error"]


# -- spec values are plain JSON data, checked at load ------------------------------------------
@pytest.mark.parametrize("value, match", [
    ("2020-01-01", "timestamp"), ("!!set {a, b}", "set"), ("!!binary aGVsbG8=", "binary"),
    ("1.0e+400", "finite"), (".nan", "finite"), ("9" * 5000, "digits"),
])
def test_values_that_are_not_plain_data_are_located(tmp_path, value, match):
    errs = _errors(tmp_path, SMALL.replace("variables: {v: 1}", f"variables: {{v: 1, w: {value}}}"))
    assert len(errs) == 1 and match in errs[0].message
    assert (errs[0].line, errs[0].column) == (10, 22)


@pytest.mark.parametrize("key", ["yes", "1.5", "~"])
def test_map_keys_that_read_as_other_things_are_located(tmp_path, key):
    errs = _errors(tmp_path, SMALL.replace("variables: {v: 1}", f"variables: {{v: 1, w: {{{key}: 2}}}}"))
    assert len(errs) == 1 and "key" in errs[0].message and errs[0].line == 10


def test_a_control_character_is_located(tmp_path):
    errs = _errors(tmp_path, SMALL.replace("name: Small", "name: Sm\x07all"))
    assert (errs[0].line, errs[0].column) == (1, 9) and "control character" in errs[0].message


def test_a_file_that_is_not_utf8_is_located(tmp_path):
    errs = _errors(tmp_path, SMALL.replace("name: Small", "name: Sm\xe9all").encode("latin-1"))
    assert (errs[0].line, errs[0].column) == (1, 9) and "UTF-8" in errs[0].message


# -- game logs (rulebook replay) -------------------------------------------------------------
def _log(tmp_path, **fields):
    data = {"spec": str(SK), "num_players": 4, "seed": 1, "history": []}
    data.update(fields)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data) if not isinstance(data.get("raw"), str) else data["raw"])
    return path


@pytest.mark.parametrize("fields, match", [
    ({"raw": '{"spec": "x", "num_players": 4, "history": [], "seed": ' + "9" * 5000 + "}"}, "digits"),
    ({"raw": '{"spec": ' + "[" * 100_000 + "]" * 100_000 + "}"}, "nested"),
    ({"spec": "a" * 100_000}, "does not exist"),
    ({"spec": "a\x00b"}, "does not exist"),
    ({"options": {"kraken": True}, "fingerprint": "sha256:0"}, "changed since"),
    ({"options": {"no_such_option": 1}}, "option"),
])
def test_replay_of_a_bad_log_is_a_clear_error(tmp_path, capsys, fields, match):
    path = _log(tmp_path, **fields)
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err


def test_replay_refuses_a_changed_spec_unless_asked(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", str(SK), "-p", "3", "--seed", "2", "--save", str(log)]) == 0
    changed = tmp_path / "sk.yaml"
    changed.write_text(SK.read_text() + "\n# edited\n")
    capsys.readouterr()
    assert main(["replay", str(log), "--spec", str(changed)]) == 1
    assert "changed since" in capsys.readouterr().err
    assert main(["replay", str(log), "--spec", str(changed), "--any-spec"]) == 0
    assert main(["replay", str(log)]) == 0


def test_game_replay_checks_its_input():
    game = load_game(SK)
    with pytest.raises(RulebookError, match="another version"):
        game.replay(4, 1, [], fingerprint="sha256:other")
    with pytest.raises(RulebookError, match="pair"):
        game.replay(4, 1, [[0]])
    with pytest.raises(IllegalAction, match="action 0"):
        game.replay(4, 1, [[0, "bid 9"]])
    assert game.replay(4, 1, [[0, "bid 1"]], fingerprint=game.fingerprint).history == [[0, "bid 1"]]


# -- the API under misuse ----------------------------------------------------------------------
def test_seats_are_type_checked_and_the_state_is_unchanged():
    game = load_game(SK)
    state = game.new_state(4, seed=1)
    before = state.to_json()
    for seat in (True, 1.0, "1", -1, 4, None.__class__):
        with pytest.raises(IllegalAction, match="no seat"):
            state.apply("bid 1", seat)
    assert state.to_json() == before
    from interpreter import Action
    with pytest.raises(IllegalAction, match="not an action"):
        state.apply(Action(True, "bid 1", 0))
    assert state.to_json() == before
    state.apply("bid 1", 1)
    assert game.replay(4, 1, state.history).to_json() == state.to_json()


def test_a_simultaneous_choice_needs_the_seat():
    # guessing the seat from who holds the option would act for the wrong player and reveal hands
    game = load_game(SK)
    state = game.new_state(4, seed=1)
    before = state.to_json()
    with pytest.raises(IllegalAction, match="say which player"):
        state.apply("bid 1")
    with pytest.raises(IllegalAction, match="say which player"):
        state.apply(0)
    assert state.to_json() == before
