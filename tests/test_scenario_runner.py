"""Mistakes in scenario files: each is a located failure of that scenario (file:line:col, what
is wrong, a hint), never a Python traceback, and a run of many scenarios goes on past it."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.errors import RulebookError
from interpreter.scenario import run_paths, run_scenario

ROOT = Path(__file__).resolve().parents[1]

HEAD = """\
rule: "a rule"
game: skull_king
players: 4
start: round
"""
GOOD = HEAD + "expect: {current_players: [0, 1, 2, 3]}\n"  # bids are simultaneous


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def _failures(tmp_path, text: str) -> str:
    """The failure text of one scenario run as ``rulebook test`` runs it (it must fail)."""
    [result] = run_paths([_write(tmp_path, "s.yaml", text)])
    assert not result.passed
    return "\n".join(result.failures)


def test_the_good_scenario_passes(tmp_path):
    assert run_scenario(_write(tmp_path, "good.yaml", GOOD)).passed


@pytest.mark.parametrize("setup, line, col, words", [
    ("setup:\n  player_vars: {9: {score: 1}}\n", 6, 17, "setup.player_vars: there is no seat 9 (4 players: seats 0..3)"),
    ("setup:\n  player_vars: [{}, {}, {}, {}, {score: 2}]\n", 6, 33, "there is no seat 4"),
    ("setup:\n  zones:\n    hand: {7: [escape]}\n", 7, 12, "setup.zones.hand: there is no seat 7"),
    ("setup:\n  zones:\n    trick: [{card: escape, by: 5}]\n", 7, 32, "by: there is no seat 5"),
])
def test_a_seat_out_of_range_in_setup_is_a_located_failure(tmp_path, setup, line, col, words):
    text = _failures(tmp_path, HEAD + setup + "expect: {terminal: false}\n")
    assert f"s.yaml:{line}:{col}: error: " in text and words in text
    assert "hint:" in text


def test_a_bad_scenario_does_not_stop_the_run(tmp_path, capsys):
    _write(tmp_path, "a_bad.yaml", HEAD + "setup:\n  player_vars: {9: {score: 1}}\n")
    _write(tmp_path, "b_eval.yaml", HEAD + "expect:\n  eval: {\"1/0\": 1}\n")
    _write(tmp_path, "c_good.yaml", GOOD)
    results = run_paths([tmp_path])
    assert [(Path(r.path).name, r.passed) for r in results] == [
        ("a_bad.yaml", False), ("b_eval.yaml", False), ("c_good.yaml", True)]
    assert main(["test", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "Traceback" not in out and "1 passed, 2 failed" in out and "there is no seat 9" in out


def test_expect_player_vars_of_a_missing_seat(tmp_path):
    text = _failures(tmp_path, HEAD + "expect:\n  player_vars: {7: {score: 0}}\n")
    assert "s.yaml:6:17: error: expect.player_vars: there is no seat 7 (4 players: seats 0..3)" in text


@pytest.mark.parametrize("expr, words", [
    ("1/0", "division by zero"),
    ("'a' + 1", "the expression failed"),
    ("1 < 'a'", "the expression failed"),
])
def test_an_expression_that_fails_in_expect_eval(tmp_path, expr, words):
    text = _failures(tmp_path, HEAD + f"expect:\n  eval: {{\"{expr}\": 1}}\n")
    assert re.search(r"s\.yaml:6:\d+: error: expect\.eval ", text), text
    assert words in text and "Traceback" not in text


def test_an_eval_error_at_a_checkpoint_does_not_stop_the_scenario(tmp_path):
    result = run_scenario(_write(tmp_path, "s.yaml", HEAD + "actions:\n  - expect: {eval: {\"1/0\": 1}}\n"
                                 "expect: {current_players: [0, 1, 2, 3]}\n"))
    assert result.checks == 2 and len(result.failures) == 1
    assert "actions[0].eval '1/0'" in result.failures[0]


@pytest.mark.parametrize("expect, words, known", [
    ("vars: {nope: 1}", "expect.vars: no variable named 'nope'", "variables: round, dealer"),
    ("player_vars: {0: {nope: 1}}", "expect.player_vars[0]: no player variable named 'nope'",
     "player variables: score, bid"),
    ("zones: {hnd: [escape]}", "expect.zones: no zone named 'hnd'", "zones: deck, hand"),
    ("zone_counts: {hnd: 3}", "expect.zone_counts: no zone named 'hnd'", "zones: deck, hand"),
])
def test_expect_names_that_do_not_exist(tmp_path, expect, words, known):
    text = _failures(tmp_path, HEAD + f"expect:\n  {expect}\n")
    assert words in text and known in text
    assert "<missing>" not in text and "got None" not in text
    assert "s.yaml:6:" in text


@pytest.mark.parametrize("action", ['"7: bid 1"', '{refuse: "7: bid 1"}'])
def test_an_action_by_a_seat_that_does_not_exist(tmp_path, action):
    text = _failures(tmp_path, HEAD + f"actions:\n  - {action}\nexpect: {{terminal: false}}\n")
    assert "there is no seat 7 (4 players: seats 0..3)" in text
    assert "not P7's turn" not in text


def test_an_empty_scenario_file_is_described_as_a_scenario(tmp_path):
    path = _write(tmp_path, "empty.yaml", "")
    [result] = run_paths([path])
    text = result.failures[0]
    assert "empty.yaml:1:1: error: the file is empty" in text
    assert "a scenario is a YAML mapping with rule, game (or spec), players" in text
    assert "a spec is" not in text


def test_a_missing_key_is_the_scenario_s(tmp_path):
    [result] = run_paths([_write(tmp_path, "s.yaml", "game: skull_king\nplayers: 4\n")])
    assert "the scenario: missing required key 'rule'" in result.failures[0]
    assert "the spec:" not in result.failures[0]


def test_neither_game_nor_spec(tmp_path):
    [result] = run_paths([_write(tmp_path, "s.yaml", "rule: r\nplayers: 4\nexpect: {terminal: false}\n")])
    assert "give either game: NAME or spec: PATH" in result.failures[0]
    assert "not a known step" not in result.failures[0]


def test_an_unknown_game_lists_the_games(tmp_path):
    [result] = run_paths([_write(tmp_path, "s.yaml", "rule: r\ngame: nope\nplayers: 4\nexpect: {terminal: false}\n")])
    assert "s.yaml:2:7: error: game: there is no spec named 'nope'" in result.failures[0]
    assert "skull_king" in result.failures[0]


def test_an_unknown_option_points_at_the_scenario(tmp_path):
    [result] = run_paths([_write(tmp_path, "s.yaml", HEAD + "options: {nope: 1}\nexpect: {terminal: false}\n")])
    assert "s.yaml:5:10: error: options: unknown option 'nope'" in result.failures[0]


def test_a_spec_given_to_rulebook_test(capsys):
    assert main(["test", str(ROOT / "specs" / "skull_king.yaml")]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "this looks like a game spec, not a scenario" in out and "rulebook validate" in out


def test_a_folder_without_scenarios(tmp_path, capsys):
    with pytest.raises(RulebookError, match="no scenario files found under"):
        run_paths([tmp_path])
    assert main(["test", str(tmp_path)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"no scenario files found under {tmp_path}" in err


def test_pytest_reports_a_broken_scenario_as_a_clean_failure(tmp_path):
    """The conftest plugin: a scenario whose eval divides by zero is FAILED with the message."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    _write(folder, "div.yaml", HEAD + "expect:\n  eval: {\"1/0\": 1}\n")
    _write(folder, "seat.yaml", HEAD + "setup:\n  zones:\n    hand: {7: [escape]}\nexpect: {terminal: false}\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(folder)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "2 failed" in out
    assert "division by zero" in out and "there is no seat 7" in out
    assert "Traceback" not in out and "ZeroDivisionError" not in out and "IndexError" not in out


def test_expect_seen_and_history_check_what_a_seat_may_read(tmp_path):
    """`seen` compares the cards a show step lets a seat see; `history` the last actions as a
    seat reads them (a simultaneous choice not yet revealed reads 'has chosen')."""
    text = _failures(tmp_path, HEAD + "actions:\n  - \"0: bid 0\"\nexpect:\n  seen: {1: [green-3]}\n"
                     "  history: {1: [\"0: bid 0\"], 0: [\"0: bid 1\"], 9: []}\n")
    assert "expect.seen[1]: expected ['green-3'], got []" in text
    assert "expect.history[1]: expected the last actions ['0: bid 0'], got ['0: P0 has chosen']" in text
    assert "expect.history[0]: expected the last actions ['0: bid 1'], got ['0: bid 0']" in text
    assert "expect.history: there is no seat 9 (4 players: seats 0..3)" in text
    ok = HEAD + "actions:\n  - \"0: bid 0\"\nexpect:\n  seen: {1: []}\n  history: {0: [\"0: bid 0\"], 1: [\"0: P0 has chosen\"]}\n"
    assert run_scenario(_write(tmp_path, "ok.yaml", ok)).passed


TRICK = """\
rule: "a rule"
game: skull_king
players: 3
start: trick
setup:
  vars: {leader: 0, round: 2, cards_dealt: 2}
  zones:
    hand: {0: [green-5, green-9], 1: [purple-1, purple-2], 2: [green-7, yellow-3]}
"""


@pytest.mark.parametrize("text, words", [
    # setup: a card placed in a zone, and a variable holding a card
    (TRICK.replace("green-9]", "gren-9]"), "hint: did you mean 'green-9'"),
    (TRICK.replace("cards_dealt: 2}", "cards_dealt: 2, drawn: {card: mermiad}}"),
     "hint: did you mean 'mermaid'?"),
    # an action's card, refused by the rules
    (TRICK + "actions: ['0: play gren-5']\n", "did you mean 'green-5'"),
    # expected zones, legal actions and what a seat saw
    (TRICK + "expect: {zones: {hand: {1: [purple-1, purpel-2]}}}\n",
     "'purpel-2' is no card of Skull King: did you mean 'purple-2'"),
    (TRICK + "expect: {zones: {trick: [skul-king]}}\n", "'skul-king' is no card of Skull King: did you mean 'skull-king'"),
    (TRICK + "expect: {legal: {0: [play green-5, play gren-9]}}\n", "'gren-9' is no card of Skull King: did you mean"),
    (TRICK + "expect: {legal_includes: {0: [play gren-9]}}\n", "did you mean 'green-9'"),
])
def test_a_misspelt_card_name_gets_a_did_you_mean(tmp_path, text, words):
    assert words in _failures(tmp_path, text)


def test_a_card_name_that_is_close_to_nothing_gets_no_guess(tmp_path):
    text = _failures(tmp_path, TRICK + "expect: {zones: {trick: [qqqqqqq]}}\n")
    assert "expected ['qqqqqqq'], got []" in text and "did you mean" not in text
