"""Mistakes a designer makes editing a shipped spec, each reported by ``validate`` at its line.

Every case edits a copy of ``specs/skull_king.yaml`` the way a designer would (a number quoted, a
card entry pasted twice, a dedent) and checks the diagnostic's line, column and words.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.spec.loader import check_spec

ROOT = Path(__file__).resolve().parent.parent
SKULL_KING = (ROOT / "specs" / "skull_king.yaml").read_text(encoding="utf-8")


def _edit(tmp_path, old: str, new: str, count: int = 1) -> tuple[Path, str]:
    assert SKULL_KING.count(old) >= 1, old
    text = SKULL_KING.replace(old, new, count)
    path = tmp_path / "house_rules.yaml"
    path.write_text(text, encoding="utf-8")
    return path, text


def _line_col(text: str, needle: str, start_line: int = 1) -> tuple[int, int]:
    """The 1-based line and column of ``needle``, searching from ``start_line``."""
    lines = text.split("\n")
    for i in range(start_line - 1, len(lines)):
        if needle in lines[i]:
            return i + 1, lines[i].index(needle) + 1
    raise AssertionError(needle)


def _found(diags, line, col=None, words=(), severity="error"):
    hits = [d for d in diags if d.line == line and (col is None or d.column == col) and d.severity == severity
            and all(w in d.message + " " + d.hint for w in words)]
    assert hits, "\n".join(f"{d.line}:{d.column} {d.severity} {d.message} / {d.hint}" for d in diags)
    return hits[0]


def test_a_text_added_to_a_number_variable(tmp_path):
    path, text = _edit(tmp_path, "- add: {round: 1}", "- add: {round: \"'1'\"}")
    line, col = _line_col(text, "'1'")
    d = _found(check_spec(path), line, col, ["add: round holds a number", "'1'", "add: {round: 1}"])
    assert d.file == str(path)


def test_bids_written_as_texts_are_reported_at_the_comparison_inside_the_definition(tmp_path):
    path, text = _edit(tmp_path, 'options: "range(0, cards_dealt + 1)"', "options: \"['0','1','2']\"")
    diags = check_spec(path)
    line, col = _line_col(text, "if p.bid > 0")
    set_line, _ = _line_col(text, "- set: {player.bid: amount}")
    d = _found(diags, line, col + len("if p.bid "), ["'>' between a number and a text", "p.bid can be a text",
                                                     f"set to a text at line {set_line}"])
    assert "define" not in d.message
    # nothing is reported at the step that calls the definition (the score step)
    call_line, _ = _line_col(text, "round_score(p)", _line_col(text, "flow:")[0])
    assert not [x for x in diags if x.line == call_line]


def test_a_text_option_compared_with_a_number_in_a_step(tmp_path):
    # a choice's options written as texts and the chosen value compared in the same choice's then:
    path, text = _edit(tmp_path, 'options: "range(0, cards_dealt + 1)"', "options: \"['0','1']\"")
    text = text.replace("- set: {player.bid: amount}", "- set: {player.bid: amount}\n          - if: \"amount > "
                        "cards_dealt\"\n            then: [{log: too many}]", 1)
    path.write_text(text, encoding="utf-8")
    line, col = _line_col(text, "amount > cards_dealt")
    _found(check_spec(path), line, col + len("amount "), ["'>' between a number and a text", "amount can be a text"])


def test_numbers_compared_with_numbers_are_not_reported(tmp_path):
    path, _ = _edit(tmp_path, "- add: {round: 1}", "- add: {round: \"1 + 0\"}")
    assert not [d for d in check_spec(path) if "between a number and a text" in d.message or "add:" in d.message]


def test_a_card_entry_pasted_twice_is_reported_at_the_second(tmp_path):
    entry = "  - name: skull-king\n    attributes: {kind: king}\n"
    path, text = _edit(tmp_path, entry, entry + entry)
    first, _ = _line_col(text, "- name: skull-king")
    _found(check_spec(path), first + 2, None, [f"repeats the one at line {first}", "count: 2"], severity="warning")


def test_a_name_used_for_two_different_cards_is_reported_at_the_later_entry(tmp_path):
    path, text = _edit(tmp_path, "  - name: skull-king\n", "  - name: mermaid\n")
    first, _ = _line_col(text, "- name: mermaid")
    second, col = _line_col(text, "- name: mermaid", first + 1)
    _found(check_spec(path), second, col + len("- name: "), ["two different cards are both named 'mermaid'",
                                                            f"line {first}"])


def test_an_empty_then_left_by_a_dedent_gets_a_hint(tmp_path):
    old = "      then:\n        - move: {from: deck, to: ghost, count: cards_dealt}"
    path, text = _edit(tmp_path, old, "      then:\n    - move: {from: deck, to: ghost, count: cards_dealt}")
    line, _ = _line_col(text, "then:", _line_col(text, "- if: ghost_game")[0])
    d = _found(check_spec(path), line, None, ["nothing is written under then:", "indented further than then:"])
    assert "None" not in d.message


@pytest.mark.parametrize("spec", sorted(p.name for p in (ROOT / "specs").glob("*.yaml")))
def test_shipped_specs_have_none_of_these_mistakes(spec):
    words = ("between a number and a text", "holds a number", "repeats the one", "two different cards",
             "look like numbers")
    assert not [d for d in check_spec(ROOT / "specs" / spec) if any(w in d.message for w in words)]


def test_an_option_whose_values_are_quoted_numbers(tmp_path):
    old = "  mermaid_captures_king_bonus:\n    type: int\n    default: 50\n"
    path, text = _edit(tmp_path, old, "  mermaid_captures_king_bonus:\n    values: ['40', '50']\n    default: '50'\n")
    text = text.replace("mermaid_captures_king_bonus: 40}", "mermaid_captures_king_bonus: '40'}")
    path.write_text(text, encoding="utf-8")
    line, col = _line_col(text, "['40', '50']")
    _found(check_spec(path), line, col, ["option mermaid_captures_king_bonus's values are texts",
                                         "values: [40, 50]"], severity="warning")


@pytest.mark.parametrize("old, new, literal, words", [
    ("c.rank == 14 and c.suit != 'black'", "c.rank == '14' and c.suit != 'black'", "'14'",
     ["'==' between a number and a text is never true", "c.rank holds only numbers", "write 14, not '14'"]),
    ("c.kind == 'numbered'", "c.kind == 13", "13", ["c.kind holds only texts", "c.kind takes:", "mermaid"]),
    ("c.suit == 'black'];", "c.suit == 3];", "3", ["'==' between", "c.suit holds only texts", "black, green"]),
    ("c.rank == 14 and c.suit != 'black'", "c.rank == 14 and c.suit != 3", "3",
     ["'!=' between a number and a text is always true", "c.suit holds only texts"]),
    ("options.lead_suit == 'first_numbered'", "options.lead_suit == 1", "1",
     ["options.lead_suit holds only texts", "first_numbered, official"]),
    ("c.kind == 'kraken' or", "c.kind in ['kraken', 7] or", "7", ["'in' between", "c.kind holds only texts"]),
])
def test_a_text_compared_with_a_number_is_reported_at_the_literal(tmp_path, old, new, literal, words):
    path, text = _edit(tmp_path, old, new)
    line, col = _line_col(text, new)
    col += new.index(literal)
    _found(check_spec(path), line, col, words)


def test_null_and_mixed_values_compared_with_literals_are_not_reported(tmp_path):
    # current_lead can be null; a bid may be compared with a number; p.bid == null is fine
    path, _ = _edit(tmp_path, "c.kind == 'numbered'", "c.kind == 'numbered' and c.kind != null and c.rank != 0")
    assert not [d for d in check_spec(path) if "between a number and a text" in d.message]


@pytest.mark.parametrize("old, new, wrong, guess", [
    ("- add: {round: 1}", "- add: {rnd: 1}", "rnd", "round"),
    ("- set: {p.round_points: ", "- set: {p.round_point: ", "p.round_point", "round_points"),
])
def test_a_misspelt_variable_written_by_a_step_has_did_you_mean_and_a_quick_fix(tmp_path, old, new, wrong, guess):
    from interpreter.lsp.document import quick_fix
    path, text = _edit(tmp_path, old, new)
    line, col = _line_col(text, new)
    d = _found(check_spec(path), line, col + new.index(wrong), [f"did you mean {guess!r}?"])
    lines = text.split("\n")
    title, fline, start, end, replacement = quick_fix(lines, d)
    fixed = lines[fline][:start] + replacement + lines[fline][end:]
    assert fixed == lines[fline].replace(new, old)


@pytest.mark.parametrize("old, new, needle, words", [
    # the target of add:/set: is a zone (a player's, then a game zone)
    ("- add: {leader.tricks: 1, leader.bonus:", "- add: {leader.hand: 1, leader.bonus:", "leader.hand",
     ["add: leader.hand is a zone (it holds cards), not a variable", "a number cannot be added to it",
      "move: {from: ZONE, to: leader.hand", "count(leader.hand)"]),
    ("- set: {ghost_leads: \"next_lead == null\"", "- set: {trick: 0, ghost_leads: \"next_lead == null\"", "trick: 0",
     ["set: trick is a zone (it holds cards), not a variable", "it cannot be given a value", "count(trick)"]),
])
def test_a_zone_as_the_target_of_add_or_set(tmp_path, old, new, needle, words):
    path, text = _edit(tmp_path, old, new)
    line, col = _line_col(text, needle, _line_col(text, "flow:")[0])
    _found(check_spec(path), line, col, words)


def test_a_zone_added_to_a_number(tmp_path):
    """add: {p.score: p.hand} (the value a zone), and a zone in a sum with a number, fail when the
    rules run: reported at the value and at the operator, with count(...) as the fix."""
    path, text = _edit(tmp_path, "- add: {p.score: p.round_points}", "- add: {p.score: p.hand}")
    line, col = _line_col(text, "p.hand}", _line_col(text, "flow:")[0])
    _found(check_spec(path), line, col, ["add: p.score holds a number", "the zone p.hand (a list of cards)",
                                         "add: {p.score: count(p.hand)}"])
    path, text = _edit(tmp_path, "- add: {p.score: p.round_points}", "- add: {p.score: \"p.round_points + p.hand\"}")
    line, col = _line_col(text, "+ p.hand", _line_col(text, "flow:")[0])
    _found(check_spec(path), line, col, ["'+' between a number and a list", "p.hand is a zone", "count(p.hand)"])
