"""Option limits, constraints between options and player counts, and the assert step (issue 14 §3)."""
from __future__ import annotations

import pytest

from interpreter import RuleError, RulebookError, SpecError, load_game
from interpreter.analysis.rulesdoc import rules_markdown
from interpreter.analysis.graph import flow_graph

SPEC = """\
name: T
players: {min: 2, max: 4}
options:
  rounds: {type: int, default: 3, min: 1, max: 10, doc: "how many rounds"}
constraints:
  - check: "options.rounds * num_players <= 20"
    message: "{options.rounds} rounds of {num_players} players need more than 20 cards"
cards:
  - each: {rank: "range(1, 21)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
variables: {x: 0}
player_variables: {score: 0}
flow:
  - assert: "x == 0"
  - set: {x: "options.rounds"}
  - assert: "x < 5"
    message: "x is {x}, more than the rules allow"
  - choose: {action: go, player: 0, options: "[1, 2]"}
"""


@pytest.fixture
def path(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(SPEC)
    return p


@pytest.mark.parametrize("value,limit", [(0, "at least 1"), (11, "at most 10"), ("-3", "at least 1")])
def test_an_option_outside_its_limits_is_refused_at_load(path, value, limit):
    with pytest.raises(SpecError) as exc:
        load_game(path, {"rounds": value})
    (d,) = exc.value.diagnostics
    assert f"option rounds must be {limit} and at most 10" in d.message or f"must be at least 1 and {limit}" in d.message
    assert (d.line, d.column) == (4, 3)


def test_a_default_outside_its_limits_points_at_the_default(tmp_path):
    p = tmp_path / "t.yaml"
    p.write_text(SPEC.replace("default: 3, min: 1", "default: 0, min: 1"))
    with pytest.raises(SpecError) as exc:
        load_game(p)
    (d,) = exc.value.diagnostics
    assert "must be at least 1" in d.message and d.line == 4 and d.column == p.read_text().split("\n")[3].index("0,") + 1


def test_a_constraint_between_options_and_players_says_why(path):
    game = load_game(path, {"rounds": 6})
    with pytest.raises(RuleError, match="x is 6"):
        game.new_state(3)  # 18 cards: allowed, so the game starts (and its assert then fails)
    with pytest.raises(RulebookError) as exc:
        game.new_state(4)
    text = str(exc.value)
    assert "t.yaml:6:12:" in text and "cannot be played by 4 players: 6 rounds of 4 players need more than 20" in text
    assert "rounds=6" in text


def test_an_assert_that_fails_stops_the_game_with_its_message_and_line(path):
    load_game(path, {"rounds": 4}).new_state(2)  # x = 4 < 5
    with pytest.raises(RuleError) as exc:
        load_game(path, {"rounds": 5}).new_state(2)
    text = str(exc.value)
    assert "t.yaml:18:5:" in text and "the rules require x < 5: x is 5, more than the rules allow" in text


def test_assert_and_constraints_appear_in_the_doc_and_the_diagram(path):
    game = load_game(path)
    doc = rules_markdown(game)
    assert "| `rounds` | 1–10 | 3 |" in doc
    assert "options.rounds * num_players <= 20" in doc and "need more than 20 cards" in doc
    assert "The rules require `x < 5`" in doc
    labels = [d.get("label") for _, d in flow_graph(game).nodes(data=True)]
    assert "the rules require x < 5" in labels


@pytest.mark.parametrize("option, words", [
    ("num_suits=0", "option num_suits cannot be 0"),  # a deck without suits: c.suit read three times
    ("num_suits=abc", "option num_suits must be int, not 'abc'"),
    ("num_cards_per_suit=1", "option num_cards_per_suit must be at least 2 and at most 13, not 1"),
])
def test_a_refused_option_is_the_only_error_not_a_cascade(capsys, option, words):
    """An option value that breaks the spec (Oh Hell with 0 suits) is one error, at the option:
    the spec is checked with the default instead, so no error follows from the refused value."""
    from pathlib import Path

    from interpreter.cli import main
    spec = Path(__file__).resolve().parents[1] / "specs" / "oh_hell.yaml"
    assert main(["validate", str(spec), "--option", option]) == 1
    out = capsys.readouterr().out  # validate prints its report on standard output
    lines = [line for line in out.splitlines() if ": error: " in line]
    assert len(lines) == 1 and words in lines[0], out
    assert "1 error(s)" in out


def test_two_refused_options_are_two_errors_and_the_spec_s_own_error_still_shows(path, tmp_path):
    with pytest.raises(SpecError) as exc:
        load_game(path, {"rounds": 99})
    assert [d.message for d in exc.value.diagnostics] == ["option rounds must be at least 1 and at most 10, not 99"]
    broken = tmp_path / "broken.yaml"
    broken.write_text(SPEC.replace('- assert: "x == 0"', '- assert: "x == nothing"'))
    with pytest.raises(SpecError) as exc:
        load_game(broken, {"rounds": 0})
    messages = [d.message for d in exc.value.diagnostics]
    assert messages[0] == "option rounds must be at least 1 and at most 10, not 0"
    assert len(messages) == 2 and "nothing" in messages[1]


def test_a_failed_constraint_lists_the_options_as_typed():
    from pathlib import Path
    game = load_game(Path(__file__).resolve().parents[1] / "specs" / "oh_hell.yaml", {"num_tricks_fixed": 50})
    with pytest.raises(RulebookError) as exc:
        game.new_state(3, 0)
    assert "num_tricks_fixed=50" in str(exc.value) and "off_bid_penalty=false" in str(exc.value)
    assert "False" not in str(exc.value)
