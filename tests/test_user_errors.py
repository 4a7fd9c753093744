"""User mistakes found by a new-user test: each gives a clear error, never a traceback or a hang."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import IllegalAction, RuleError, SpecError, load_game
from interpreter.cli import main
from interpreter.sim.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]

BASE = """\
name: T
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 7)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {x: 0}
player_variables: {score: 0}
define:
  top_rank: "max([c.rank for c in deck])"
flow:
  - choose: {action: go, player: 0, options: "[1, 2]"}
"""


def spec(tmp_path, text, name="t.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def errors_of(path):
    with pytest.raises(SpecError) as exc:
        load_game(path)
    return exc.value.diagnostics


def test_a_huge_repeat_is_refused_not_built(tmp_path):
    path = spec(tmp_path, BASE.replace("flow:\n", "flow:\n  - repeat: 1000000000\n    do: [{add: {x: 1}}]\n"))
    with pytest.raises(RuleError, match="at most 100000 times"):
        load_game(path).new_state(2)


def test_a_score_that_is_not_a_number(tmp_path):
    path = spec(tmp_path, BASE + 'score: "null"\n')
    state = load_game(path).new_state(2)
    state.apply("go 1")
    with pytest.raises(RuleError, match=r"t.yaml:\d+:\d+: .*score of P0 is null, not a number"):
        state.scores()


def test_a_very_long_expression_is_an_error_not_a_crash(tmp_path):
    path = spec(tmp_path, BASE.replace('  top_rank: "max([c.rank for c in deck])"',
                                       '  long: "' + "+".join(["1"] * 2000) + '"'))
    (d,) = errors_of(path)
    assert "too long or nested too deeply" in d.message


def test_builtin_argument_counts_are_checked(tmp_path):
    path = spec(tmp_path, BASE.replace("max([c.rank for c in deck])", "argmax([c in deck where c.rank > 1])"))
    (d,) = errors_of(path)
    assert "argmax takes 2 to 3 argument(s) (xs, key, ties?), given 1" in d.message
    assert d.line == 12


def test_dealing_more_than_the_deck_holds(tmp_path):
    path = spec(tmp_path, BASE.replace("flow:\n", "flow:\n  - deal: {from: deck, to: hand, count: 4}\n"))
    with pytest.raises(RuleError, match=r"cannot deal 4 card\(s\) to each of 2 players: deck holds only 6"):
        load_game(path).new_state(2)


def test_min_players_above_max(tmp_path):
    (d,) = errors_of(spec(tmp_path, BASE.replace("{min: 2, max: 3}", "{min: 5, max: 2}")))
    assert "min 5 is more than max 2" in d.message and d.line == 2


def test_mutual_recursion_reported_once(tmp_path):
    path = spec(tmp_path, BASE.replace('  top_rank: "max([c.rank for c in deck])"',
                                       '  a(n): "b(n)"\n  b(n): "a(n) + 1"'))
    (d,) = errors_of(path)
    assert "a -> b -> a" in d.message


def test_unknown_placeholder_in_a_card_name(tmp_path):
    diags = errors_of(spec(tmp_path, BASE.replace('name: "c{rank}"', 'name: "{colour}-{rank}"')))
    assert len(diags) == 1 and "uses {colour}, which is not an attribute" in diags[0].message


def test_did_you_mean(tmp_path):
    (d,) = errors_of(spec(tmp_path, BASE.replace("for c in deck]", "for c in dekc]")))
    assert "did you mean deck?" in d.hint


def test_no_score_is_a_warning(tmp_path):
    text = BASE.replace("player_variables: {score: 0}\n", "")
    diags = __import__("interpreter").check_spec(spec(tmp_path, text))
    assert [d.severity for d in diags if "how a player scores" in d.message] == ["warning"]


def test_refusal_names_the_rule(tmp_path):
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    from interpreter.engine.run import advance
    from interpreter.scenario import build_state
    state = build_state(game, {"players": 3, "start": "trick", "setup": {
        "vars": {"leader": 0, "round": 2, "cards_dealt": 2},
        "zones": {"hand": {0: ["green-5", "green-6"], 1: ["green-3", "purple-6"], 2: ["black-1", "black-2"]}}}})
    advance(state)
    state.apply("play green-5", 0)
    with pytest.raises(IllegalAction, match=r"purple-6 may not be played now: the rule here is `may_play\(c, p\)`"):
        state.apply("play purple-6", 1)


def test_a_failing_simulated_game_says_how_to_watch_it(tmp_path):
    # the rules fail only when seat 1 picks 2: a division by zero in play
    path = spec(tmp_path, BASE.replace('  - choose: {action: go, player: 0, options: "[1, 2]"}',
                                       '  - choose: {action: go, player: 1, options: "[1, 2]", as: v,'
                                       ' then: [{set: {x: "1 // (2 - v)"}}]}'))
    game = load_game(path)
    with pytest.raises(RuleError) as exc:
        simulate(game, 50, 2, seed=0)
    text = str(exc.value)
    assert "division by zero" in text and "rulebook play" in text and "--seed" in text


def test_cli_reports_rule_errors_without_traceback(tmp_path, capsys):
    path = spec(tmp_path, BASE.replace("flow:\n", "flow:\n  - deal: {from: deck, to: hand, count: 4}\n"))
    assert main(["play", str(path), "--players", "2", "--seed", "1"]) == 1
    err = capsys.readouterr().err
    assert "cannot deal" in err and "Traceback" not in err


def test_schemas_ship_inside_the_package():
    import interpreter
    pkg = Path(interpreter.__file__).parent
    assert (pkg / "schemas" / "game.schema.json").is_file()
    assert (pkg / "schemas" / "scenario.schema.json").is_file()


# -- second new-user pass: hostile specs end quickly with a clear message ---------------------

@pytest.mark.parametrize("expr,message", [
    ("sum([count([y for y in range(0, 100000)]) for x in range(0, 100000)])", "units of work"),
    ("sum([index_of(range(0, 100000), i) for i in range(0, 100000)])", "units of work"),
    ("count([i in range(0, 100000) where i in range(0, 100000)])", "units of work"),
    ("[1] * 1000000000", "repeating 1 items 1000000000 times"),
    ("'a' * 1000000000", "repeating 1 items"),
    ("2 ** 2", None),  # not in the language: a parse error at validate (checked below)
])
def test_expression_work_is_bounded(tmp_path, expr, message):
    text = BASE.replace("flow:\n", f'flow:\n  - set: {{x: "{expr}"}}\n')
    if message is None:
        errors_of(spec(tmp_path, text))
        return
    with pytest.raises(RuleError, match=message):
        load_game(spec(tmp_path, text)).new_state(2)


def test_runaway_numbers_are_refused(tmp_path):
    text = BASE.replace("variables: {x: 0}", "variables: {x: 3}").replace(
        "flow:\n", 'flow:\n  - while: "true"\n    max: 60\n    do: [{set: {x: "x * x + 2"}}]\n')
    with pytest.raises(RuleError, match="bits"):
        load_game(spec(tmp_path, text)).new_state(2)


def test_exponential_definitions_compile_fast(tmp_path):
    chain = "\n".join(f'  f{i}(x): "f{i - 1}(x) + f{i - 1}(x)"' for i in range(1, 30))
    text = BASE.replace('  top_rank: "max([c.rank for c in deck])"', '  f0(x): "x"\n' + chain).replace(
        "flow:\n", 'flow:\n  - set: {x: "f29(1)"}\n')
    game = load_game(spec(tmp_path, text))  # compiling is linear: inlining stops a few levels deep
    with pytest.raises(RuleError, match="units of work"):
        game.new_state(2)


@pytest.mark.parametrize("yaml_text,message", [
    ("a: &a [1, 2]\nb: [*a, *a]\n", "aliases"),
    ("loop: &l [1, *l]\n", "aliases"),
    ("a: " + "[" * 20000 + "]" * 20000 + "\n", "nested more than 100 levels deep"),
])
def test_yaml_bombs_are_refused(tmp_path, yaml_text, message):
    (d,) = errors_of(spec(tmp_path, yaml_text))
    assert message in d.message


def test_too_many_cards(tmp_path):
    diags = errors_of(spec(tmp_path, BASE.replace('    name: "c{rank}"', '    name: "c{rank}"\n    count: 1000000000')))
    assert "more than 10000 cards" in diags[0].message and diags[0].line == 4


def test_card_names_may_not_contain_as(tmp_path):
    (d,) = errors_of(spec(tmp_path, BASE.replace('name: "c{rank}"', 'name: "c{rank} as x"')))
    assert "' as '" in d.message


def test_option_defaults_and_presets_are_checked(tmp_path):
    text = BASE.replace("cards:\n", "options:\n  n: {type: int, default: x}\n  b: {type: bool, default: true}\n"
                                    "presets:\n  p: {zz: 1, b: 3}\ncards:\n")
    messages = [d.message for d in errors_of(spec(tmp_path, text))]
    assert any("default of option n" in m for m in messages)
    assert any("sets 'zz', which is not an option" in m for m in messages)
    assert any("sets b to 3" in m for m in messages)


def test_option_types_checked_through_the_api(tmp_path):
    text = BASE.replace("cards:\n", "options:\n  b: {type: bool, default: true}\ncards:\n")
    with pytest.raises(SpecError, match="option b must be a boolean"):
        load_game(spec(tmp_path, text), {"b": 2})


def test_options_that_read_alike_are_refused(tmp_path):
    path = spec(tmp_path, BASE.replace('options: "[1, 2]"', "options: \"[1, '1']\""))
    with pytest.raises(RuleError, match="two options read the same"):
        load_game(path).new_state(2)


def test_bad_seed_and_player_count(tmp_path):
    game = load_game(spec(tmp_path, BASE))
    from interpreter import RulebookError
    for bad in (None, "abc", 1.5):
        with pytest.raises(RulebookError, match="seed"):
            game.new_state(2, bad)
    with pytest.raises(RulebookError, match="whole number"):
        game.new_state("2")


def test_a_card_when_reads_only_options(tmp_path):
    text = BASE.replace('    name: "c{rank}"', '    name: "c{rank}"\n    when: "x > 0"')
    (d,) = errors_of(spec(tmp_path, text))
    assert "can read only options" in d.hint
