"""The variant workflow (issue 14 §2): scenarios against an edited spec, and `rulebook diff`."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.analysis.diff import spec_diff
from interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
SK = ROOT / "specs" / "skull_king.yaml"
KINGS = "    else first(kings) if count(kings) > 0\n    else first(pirates) if count(pirates) > 0\n"
PIRATES = "    else first(pirates) if count(pirates) > 0\n    else first(kings) if count(kings) > 0\n"


@pytest.fixture
def house(tmp_path):
    """Skull King where pirates beat the Skull King (a house rule), one escape fewer and a new log step."""
    text = SK.read_text()
    assert KINGS in text
    text = text.replace(KINGS, PIRATES).replace("  - name: escape\n    count: 5", "  - name: escape\n    count: 4")
    i = text.index("\n  trick:\n")
    j = text.index("\n", i + 10)
    text = text[:j + 1] + '    - log: "House rules!"\n' + text[j + 1:]
    path = tmp_path / "house.yaml"
    path.write_text(text)
    return path


def test_scenarios_against_an_edited_spec_name_the_rules_it_changes(house, capsys):
    code = main(["test", str(ROOT / "tests/scenarios/skull_king"), "--spec", str(house)])
    out = capsys.readouterr().out
    assert code == 1
    assert "rule(s) the edit changes" in out
    changed = [line for line in out.splitlines() if line.strip().startswith("CHANGED")]
    assert any("§6.5b" in line and "special_skull_king_beats_pirates.yaml" in line for line in changed)
    assert all("FAILS ALSO WITHOUT THE EDIT" not in line for line in out.splitlines())
    assert f"({len(changed)} changed by the edit)" in out
    # each changed rule says which expectation the edit changes
    block = out[out.index("special_skull_king_beats_pirates.yaml"):]
    assert "expect.vars.winning: expected 'skull-king', got 'pirate'" in block.split("CHANGED")[0]


def test_an_edited_spec_that_does_not_load_is_one_located_error(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\n")
    assert main(["test", str(ROOT / "tests/scenarios/skull_king"), "--spec", str(bad)]) == 1
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert f"{bad}:1:1: error" in text and "missing required key 'players'" in text
    assert "CHANGED" not in text
    assert main(["test", str(ROOT / "tests/scenarios/skull_king"), "--spec", str(tmp_path / "none.yaml")]) == 1
    assert "no such spec file" in capsys.readouterr().err


def test_scenarios_against_the_same_rules_all_pass(capsys):
    assert main(["test", str(ROOT / "tests/scenarios/skull_king"), "--spec", str(SK)]) == 0
    assert " 0 failed (0 changed by the edit)" in capsys.readouterr().out


def test_diff_says_which_rules_differ_in_words(house):
    text = spec_diff(load_game(SK), load_game(house))
    assert "card **escape**: 5 → 4 copies" in text
    assert "the deck has 69 cards instead of 70" in text
    assert "definition **normal_winner(cards)** changed" in text
    assert "+ else first(pirates) if count(pirates) > 0" in text
    assert "- else first(pirates) if count(pirates) > 0" in text
    assert "phase trick: new step “House rules!”" in text
    # nothing else is reported: the options, zones and other phases are the same
    assert "## Options" not in text and "## Zones" not in text and "phase round" not in text


def test_diff_of_a_spec_with_itself_and_its_exit_status(house, capsys):
    assert main(["diff", str(SK), str(SK)]) == 0
    assert "The two specs have the same rules." in capsys.readouterr().out
    assert main(["diff", str(SK), str(house)]) == 1


def test_diff_sees_options_variables_and_nested_steps(tmp_path):
    base = (ROOT / "specs" / "witches_of_blackmore.yaml").read_text()
    a = tmp_path / "a.yaml"
    a.write_text(base)
    b = tmp_path / "b.yaml"
    text = base.replace("player_variables:", "player_variables:\n  swaps: 0", 1)
    b.write_text(text)
    out = spec_diff(load_game(a), load_game(b))
    assert "new player variable **swaps**: `0`" in out


def test_diff_shows_text_as_written(tmp_path):
    """An option's doc with § is shown with §, not JSON-escaped as \\u00a7 (a new-user trial)."""
    text = SK.read_text()
    old = 'doc: "§7 / A2: bonus when a Mermaid captures the Skull King'
    assert old in text
    edited = tmp_path / "edited.yaml"
    edited.write_text(text.replace(old, 'doc: "§7 / A2 (house): bonus when a Mermaid captures the Skull King'))
    out = spec_diff(load_game(SK), load_game(edited))
    assert "§7 / A2 (house)" in out and "\\u00a7" not in out


def test_diff_describes_option_and_preset_changes_in_words(tmp_path):
    """An option's changes read as its name and old → new default, range, values or doc (a new-user
    trial read JSON objects); a new option is described by its kind, default and range."""
    oh = (ROOT / "specs" / "oh_hell.yaml").read_text()
    edits = [("    values: [1, 2, 3, 4]\n    default: 4", "    values: [1, 2, 3, 4, 5]\n    default: 3"),
             ("    default: 13\n    min: 2\n    max: 13", "    default: 10\n    min: 3\n    max: 13"),
             ('  points_per_trick:\n    type: int\n    default: 1\n',
              '  bonus:\n    type: int\n    default: 10\n    min: 0\n    max: 50\n    doc: "for an exact bid"\n'
              '  points_per_trick:\n    type: int\n    default: 1\n    min: 0\n')]
    for old, new in edits:
        assert old in oh
        oh = oh.replace(old, new)
    edited = tmp_path / "oh.yaml"
    edited.write_text(oh)
    out = spec_diff(load_game(ROOT / "specs" / "oh_hell.yaml"), load_game(edited))
    assert "- option **num_suits**: default 4 → 3; values 1, 2, 3, 4 → 1, 2, 3, 4, 5\n" in out
    assert "- option **num_cards_per_suit**: default 13 → 10; range 2 to 13 → 3 to 13\n" in out
    assert "- option **points_per_trick**: allowed values any → at least 0\n" in out
    assert "- new option **bonus**: int, default 10, 0 to 50: “for an exact bid”\n" in out
    assert '{"default"' not in out
    sk = SK.read_text()
    old = "rulebook_2021: {lead_suit: official, mermaid_captures_king_bonus: 40}"
    assert old in sk
    edited.write_text(sk.replace(old, "rulebook_2021: {lead_suit: official, mermaid_captures_king_bonus: 50, "
                                      "kraken: true}\n  quick: {kraken: false}"))
    out = spec_diff(load_game(SK), load_game(edited))
    assert "- new preset **quick**: kraken=false\n" in out
    assert "- preset **rulebook_2021**: kraken=true added, mermaid_captures_king_bonus 40 → 50\n" in out
