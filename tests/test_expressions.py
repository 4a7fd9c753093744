"""The expression language: parsing, errors with positions, evaluation, bounds."""
from __future__ import annotations

import textwrap

import pytest

from interpreter import SpecError, load_game
from interpreter.errors import RuleError
from interpreter.expr.compiler import ExprSyntaxError, parse
from interpreter.scenario import evaluate

SPEC = """\
name: Expr test
players: {min: 2, max: 4}
options:
  bonus: {type: int, default: 5}
cards:
  - each: {suit: [red, blue], rank: "range(1, 4)"}
    name: "{suit}-{rank}"
  - name: joker
    count: 2
    attributes: {wild: true}
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  table: {visibility: public}
variables: {n: 3, m: {a: 1}}
player_variables: {score: 0}
define:
  double(x): "2 * x"
  same_suit(c, d): "c.suit == d.suit"
  # the argument c is evaluated in the caller's scope, not the comprehension's own c
  count_suit(x): "count([c in deck where c.suit == x.suit])"
  reds: "[c in deck where c.suit == 'red']"
flow:
  - choose: {action: pick, player: 0, options: "[1]"}
"""


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    path = tmp_path_factory.mktemp("spec") / "expr.yaml"
    path.write_text(SPEC)
    return load_game(path).new_state(2, 0)


@pytest.mark.parametrize("text,value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("7 // 2", 3), ("7 % 3", 1), ("6 / 3", 2), ("-n + 1", -2),
    ("1 < 2 and not false", True), ("null == null", True), ("3 if n > 2 else 4", 3),
    ("2 in [1, 2]", True), ("5 not in [1, 2]", True), ("m['a']", 1), ("[1, 2, 3][-1]", 3),
    ("double(n)", 6), ("options.bonus", 5), ("let x = 4; x * x", 16),
    ("count(reds)", 3), ("count([c in deck where c.wild])", 2),
    ("[c.rank for c in deck where c.suit == 'blue']", [1, 2, 3]),
    ("argmax([c in deck where c.rank != null], c => c.rank).name", "red-3"),
    ("argmax([c in deck where c.rank != null], c => c.rank, 'last').name", "blue-3"),
    ("argmin(reds, c => c.rank).name", "red-1"),
    ("[c.name for c in sort_by(reds, c => -c.rank)]", ["red-3", "red-2", "red-1"]),
    ("keys(group_by([c in deck where c.suit != null], c => c.suit))", ["red", "blue"]),
    ("max([3, 1, 2])", 3), ("min(4, 2, 9)", 2), ("max([])", None), ("sum([1, 2, 3])", 6), ("abs(-4)", 4),
    ("first([])", None), ("first([], 7)", 7), ("last([1, 2])", 2), ("top(table)", None),
    ("turn_order(1)", [1, 0]), ("next_player(1)", 0), ("prev_player(0)", 1), ("num_players", 2),
    ("players", [0, 1]), ("0.score", 0), ("count(0.hand)", 0), ("product([1, 2], ['a'])", [[1, "a"], [2, "a"]]),
    ("if_null(null, 3)", 3), ("str(12)", "12"), ("index_of([4, 5], 5)", 1),
    ("[count_suit(c) for c in reds]", [3, 3, 3]),
    ("any([c in deck where same_suit(c, first(reds))])", True),
    # issue 33: a comprehension whose element is a membership test ("unexpected 'for'" before)
    ("[x in [2, 3] for x in [1, 2, 3]]", [False, True, True]),
    ("[x in [2] or x == 3 for x in [1, 2, 3]]", [False, True, True]),
    ("[x in [1, 2] or [3] where x > 1]", [2]),            # a filter's source still goes on with or/and
    ("[x in [1, 2, 3] and [4] where x > 1]", [4]),
])
def test_evaluates(state, text, value):
    assert evaluate(state, text) == value


@pytest.mark.parametrize("text,line,column", [
    ("1 +", 1, 4), ("a b", 1, 3), ("[c in xs where]", 1, 15), ("[1 where x]", 1, 2), ("f(1,", 1, 5), ("1 $ 2", 1, 3),
    ("x if y", 1, 7), ("let x = 1 x", 1, 11),
])
def test_syntax_errors_have_positions(text, line, column):
    with pytest.raises(ExprSyntaxError) as exc:
        parse(text)
    assert (exc.value.line, exc.value.column) == (line, column)


@pytest.mark.parametrize("text", ["1 / 0", "null.suit", "[1][5]", "null < 1", "range(0, 200000)"])
def test_runtime_errors_are_rule_errors(state, text):
    with pytest.raises((RuleError, ZeroDivisionError)):
        evaluate(state, text)


def _spec_with(tmp_path, define_block):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("define:\n", "define:\n" + textwrap.indent(define_block, "  ")))
    return path


def test_recursion_is_refused(tmp_path):
    path = _spec_with(tmp_path, 'loop(x): "loop(x)"\n')
    with pytest.raises(SpecError) as exc:
        load_game(path)
    assert "may not call themselves" in str(exc.value)


def test_no_python_reachable(tmp_path):
    """Only the language's attributes exist: no __class__, no eval."""
    for body in ['"n.__class__"', '"eval(1)"', '"__import__(1)"']:
        path = _spec_with(tmp_path, f"bad: {body}\n")
        with pytest.raises(SpecError):
            load_game(path)


def test_unknown_name_points_at_the_name(tmp_path):
    path = _spec_with(tmp_path, 'oops: "n + undefined_thing"\n')
    with pytest.raises(SpecError) as exc:
        load_game(path)
    d = exc.value.diagnostics[0]
    line = SPEC.split("\n").index("define:") + 2
    assert (d.line, d.column) == (line, 14)
    assert "undefined_thing" in d.message
