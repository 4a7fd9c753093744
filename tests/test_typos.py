"""Typos in text literals and number/text mixes are found by validate, not silently run (issue 14 §3)."""
from __future__ import annotations

import pytest

from interpreter import SpecError, load_game
from interpreter.spec.loader import check_spec

SPEC = """\
name: T
players: {min: 2, max: 3}
options:
  scoring: {values: [classic, rascal], default: classic}
cards:
  - each: {suit: [red, blue], rank: "range(1, 4)"}
    name: "{suit}-{rank}"
    attributes: {kind: numbered}
  - name: wild-card
    attributes: {kind: wild}
    modes: {high: {rank: 9}, low: {rank: 0}}
  - name: bonus-card
    when: "options.scoring == 'rascal'"
    attributes: {kind: bonus}
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {rounds: 0, label: ''}
player_variables: {score: 0}
define:
  special(c): "CONDITION"
flow:
  - set: {x_count: "count([c in deck where special(c)])"}
  - choose: {action: go, player: 0, options: "[1, 2]"}
"""


def spec_with(tmp_path, condition, extra=""):
    text = SPEC.replace("CONDITION", condition).replace(
        "variables: {rounds: 0, label: ''}", "variables: {rounds: 0, label: '', x_count: 0}") + extra
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return path


def diagnostics(path):
    return [d for d in check_spec(path) if d.severity in ("error", "warning")]


@pytest.mark.parametrize("condition,wrong,suggestion", [
    ("c.kind == 'numberd'", "kind is never 'numberd'", "did you mean 'numbered'?"),
    ("'wlid' == c.kind", "kind is never 'wlid'", "did you mean 'wild'?"),
    ("c.suit != 'rde'", "suit is never 'rde'", "did you mean 'red'?"),
    ("c.kind in ['wild', 'bnus']", "kind is never 'bnus'", "did you mean 'bonus'?"),
    ("c.name == 'wild_card'", "card name is never 'wild_card'", "did you mean 'wild-card'?"),
    ("options.scoring == 'rascall'", "option scoring is never 'rascall'", "did you mean 'rascal'?"),
    ("c.mode == 'hihg'", "mode is never 'hihg'", "did you mean 'high'?"),
])
def test_a_misspelt_literal_is_an_error_with_did_you_mean(tmp_path, condition, wrong, suggestion):
    path = spec_with(tmp_path, condition)
    with pytest.raises(SpecError) as exc:
        load_game(path)
    (d,) = exc.value.diagnostics
    assert wrong in d.message and suggestion in d.hint
    assert (d.line, d.column) == (21, 16 + condition.index("'" + wrong.split("'")[1]))


def test_a_literal_no_card_has_and_nothing_resembles_is_a_warning(tmp_path):
    path = spec_with(tmp_path, "c.kind == 'trump'")
    load_game(path)  # still loads: only a warning
    (d,) = [d for d in diagnostics(path) if "is never '" in d.message]
    assert d.severity == "warning" and "kind is never 'trump'" in d.message
    assert "numbered" in d.hint and "wild" in d.hint


@pytest.mark.parametrize("condition", [
    "c.kind == 'bonus'",              # a card left out by its `when:` still counts
    "c.suit == 'red' or c.kind == 'wild'",
    "c.kind in ['wild', 'numbered']",
    "c.rank == 2",                   # numbers are not judged by this check
    "let kind = 'x'; kind == 'x'",     # a local name, not an attribute
])
def test_literals_that_some_card_has_pass(tmp_path, condition):
    path = spec_with(tmp_path, condition)
    load_game(path)
    assert not [d for d in diagnostics(path) if "is never '" in d.message]


@pytest.mark.parametrize("expr,op", [("rounds + '1'", "'+'"), ("'1' - rounds", "'-'"),
                                     ("rounds < 'x'", "'<'"), ("p.score // '2'", "'//'")])
def test_number_and_text_mixed_is_found_by_validate(tmp_path, expr, op):
    extra = f'score: "{expr.replace("rounds", "p.score") if "p." not in expr else expr}"\n'
    path = spec_with(tmp_path, "true", extra)
    with pytest.raises(SpecError) as exc:
        load_game(path)
    (d,) = exc.value.diagnostics
    assert d.message.startswith(f"{op} between a number and a text")


def test_text_repetition_and_formatting_and_shadowing_are_not_mixes(tmp_path):
    extra = 'score: "count([rounds for rounds in [\'a\', \'b\'] where rounds + \'x\' == \'ax\'])"\n'
    path = spec_with(tmp_path, "len('ab' * 2) == 4 and len(label + 'x') == 1", extra)
    load_game(path)


@pytest.mark.parametrize("condition,suggestion", [
    ("c.suitt == 'red'", "did you mean 'suit'?"),
    ("count(players[0].hnad) > 0", "did you mean 'hand'?"),
    ("players[0].scor > 0", "did you mean 'score'?"),
])
def test_a_misspelt_attribute_player_variable_or_zone_has_did_you_mean(tmp_path, condition, suggestion):
    """The hint lists player variables and zones too, not only card attributes (a new-user trial
    misspelt p.hand and was shown the card attributes)."""
    with pytest.raises(SpecError) as exc:
        load_game(spec_with(tmp_path, condition))
    (d,) = exc.value.diagnostics
    assert "is named" in d.message and suggestion in d.hint and "player variables and zones: hand, score" in d.hint
