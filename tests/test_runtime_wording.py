"""Run-time rule errors speak the spec's language: never Python's words (issue 14 §3)."""
from __future__ import annotations

import re

import pytest

from interpreter import RuleError, load_game

BASE = """\
name: T
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 7)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {x: 0, m: {}, l: [], n: null, y: 0}
player_variables: {score: 0}
flow:
  - set: {y: "EXPR"}
  - choose: {action: go, player: 0, options: "[1, 2]"}
"""

PYTHON_WORDS = re.compile(r"NoneType|\bNone\b|\bTrue\b|\bFalse\b|object|subscriptable|iterable|unhashable|"
                          r"'(int|str|list|dict|float|bool)'|attribute|Traceback|len\(\)|operand|sequence")


@pytest.mark.parametrize("expr,meaning", [
    ("n[0]", "null"), ("x[0]", "a number"), ("len(x)", "a number is not a list"), ("-n", "cannot apply - to null"),
    ("m[l]", "a list cannot be a map key"), ("count(n)", "null is not a list"), ("sum(n)", "null is not a list"),
    ("[c for c in x]", "a number is not a list"), ("'a' * 1.5", "whole number of times"),
    ("n < 1", "null < 1"), ("top(deck) < 3", "cannot"), ("sort_by(n, c => c)", "null is not a list"),
    ("{l: 1}", "a list cannot be a map key"), ("keys(l)", "a list cannot be used here"),
    ("1 // 0", "division by zero"), ("index_of(n, 1)", "null is not a list"), ("range(1, 'a')", "a text"),
    ("l[n]", "null"), ("product(n)", "null is not a list"), ("without(n, 1)", "not a list"),
    ("group_by(n, c => c)", "null is not a list"), ("argmax(n, c => c)", "null is not a list"),
    ("turn_order(n)", "null"), ("abs(n)", ""), ("'a' % n", ""), ("any(x)", "a number is not a list"),
    ("n + 1", "cannot apply + to null and a number"), ("[1, str(n)][x + 1] + 1", "cannot add a number to a text"),
])
def test_a_runtime_error_has_no_python_words(tmp_path, expr, meaning):
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("EXPR", expr))
    with pytest.raises(RuleError) as exc:
        load_game(path).new_state(2)
    first_line = str(exc.value).split("\n")[0]
    assert first_line.startswith(f"{path}:12:5: error while running the rules: ")
    assert not PYTHON_WORDS.search(first_line), first_line
    assert meaning in first_line


def test_a_text_added_to_a_number_that_validate_can_see_is_found_at_load(tmp_path):
    """``str(n) + 1`` is refused when the spec loads, at the ``+``, quoting the whole operand."""
    from interpreter.errors import SpecError
    path = tmp_path / "t.yaml"
    path.write_text(BASE.replace("EXPR", "str(n) + 1"))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    assert "t.yaml:12:22: error: '+' between a number and a text fails when the rules run: str(n) can be a text" \
        in str(exc.value)
