"""Boards of coloured squares (``boards:`` in a spec, docs/spec-language.md "Boards"): the grid
model, the board built-ins, load-time checks, and scenario boards, on the small test spec
tests/specs/colour_walk.yaml."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from interpreter.errors import RuleError, SpecError
from interpreter.model.board import build_grid, parse_cell
from interpreter.scenario import run_scenario
from interpreter.spec.loader import load_game

HERE = Path(__file__).resolve().parent
WALK = HERE / "specs" / "colour_walk.yaml"


@pytest.fixture(scope="module")
def game():
    return load_game(WALK)


def ev(state, text):
    from interpreter.scenario import evaluate
    return evaluate(state, text)


def test_cells_are_named_from_the_top_left_and_holes_are_left_out(game):
    grid = game.boards["small"]
    assert (grid.width, grid.height) == (4, 3)
    assert grid.cells == ["a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "c3", "d3"]
    assert "d2" not in grid.colours  # the '.' of row 2
    assert grid.colours["a1"] == "red" and grid.colours["c3"] == "green"
    assert grid.marks == {"start": ["a1"], "goal": ["d3"]}
    assert parse_cell("c4") == (2, 3) and parse_cell("C4") is None and parse_cell("c0") is None


def test_neighbours_are_orthogonal_on_the_board_only(game):
    grid = game.boards["small"]
    assert grid.neighbours["a1"] == ["b1", "a2"]            # up, right, down, left order
    assert grid.neighbours["c2"] == ["c1", "c3", "b2"]      # d2 is a hole
    assert grid.neighbours["d3"] == ["c3"]                  # nothing above (hole), nothing right/below
    assert grid.step("c2", "right") is None and grid.step("c2", "left") == "b2"


def test_pieces_are_put_together_by_the_layout(game):
    grid = game.boards["pieced"]
    assert (grid.width, grid.height) == (4, 4)
    # A = [RG, GR] top-left and bottom-right, B = all green
    assert [grid.colours[c] for c in ("a1", "b1", "c1", "d1")] == ["red", "green", "green", "green"]
    assert [grid.colours[c] for c in ("c3", "d3", "c4", "d4")] == ["red", "green", "green", "red"]


def test_board_builtins_in_expressions(game):
    state = game.new_state(2, seed=0)
    assert ev(state, "colour_at('small', 'b2')") == "blue"
    assert ev(state, "colour_at('small', 'd2')") is None       # a hole
    assert ev(state, "colour_at('small', 'z9')") is None       # off the board
    assert ev(state, "neighbours('small', 'b2')") == ["b1", "c2", "b3", "a2"]
    assert ev(state, "step('small', 'b2', 'down')") == "b3"
    assert ev(state, "step('small', 'a1', 'up')") is None
    assert ev(state, "adjacent('b2', 'b3')") is True
    assert ev(state, "adjacent('b2', 'c3')") is False         # a corner is not an edge
    assert ev(state, "direction('b2', 'a2')") == "left"
    assert ev(state, "direction('b2', 'd2')") is None
    assert ev(state, "marked('small', 'goal')") == ["d3"]
    assert ev(state, "marked('small', 'nothing')") == []
    assert len(ev(state, "cells('small')")) == 11
    assert ev(state, "flatten([[1, 2], [], [3], 4])") == [1, 2, 3, 4]
    assert ev(state, "count([c in cells('small') where colour_at('small', c) == 'blue'])") == 4


def test_unknown_board_at_run_time_is_a_rule_error(game):
    state = game.new_state(2, seed=0)
    with pytest.raises(RuleError, match="no board named 'huge'"):
        ev(state, "let b = 'huge'; cells(b)")
    with pytest.raises(RuleError, match="not a direction"):
        ev(state, "step('small', 'a1', 'north')")


def _dominoes_by_hand(grid, cell, taken):
    """domino_colours computed the long way: every ordered pair [x, y] of neighbouring free
    squares with x next to cell, as colours, each pair once."""
    out = []
    for x in grid.neighbours.get(cell, ()):
        for y in grid.neighbours[x]:
            pair = [grid.colours[x], grid.colours[y]]
            if cell not in (x, y) and x not in taken and y not in taken and pair not in out:
                out.append(pair)
    return out


@pytest.mark.parametrize("path", ["closures", "generated"])
def test_domino_colours_lists_the_free_places_next_to_a_square(game, path, monkeypatch):
    from interpreter.expr import codegen
    monkeypatch.setattr(codegen, "ENABLED", path == "generated")
    monkeypatch.setattr(codegen, "WARM_CALLS", 0)  # generated code from the first call
    state = game.new_state(2, seed=0)
    # RGBR / GBR. / BRGB: from b2, x is b1, c2, b3 or a2 and y one of x's other neighbours
    assert ev(state, "domino_colours('small', 'b2')") == [
        ["green", "blue"], ["green", "red"], ["red", "blue"], ["red", "green"]]
    # a list and a map of taken squares (c1 taken, a3 covered): fewer places
    assert ev(state, "domino_colours('small', 'b2', ['c1'], {'a3': 'card'})") == [
        ["green", "red"], ["red", "green"]]
    assert ev(state, "domino_colours('small', 'd3', ['c3'])") == []      # its only neighbour taken
    assert ev(state, "domino_colours('small', 'z9')") == []              # off the board
    # "does a red-blue piece fit next to b2, either way round?"
    assert ev(state, "let d = domino_colours('small', 'b2', ['c1']); ['red', 'blue'] in d or ['blue', 'red'] in d")
    grid = game.boards["small"]
    for taken in ([], ["b2"], ["a1", "c2", "b3"], grid.cells[::2]):
        for cell in grid.cells:
            got = ev(state, f"domino_colours('small', '{cell}', {taken!r})")
            assert got == _dominoes_by_hand(grid, cell, taken), (cell, taken)


def test_domino_colours_refuses_taken_squares_that_are_not_a_list_or_map(game, tmp_path):
    state = game.new_state(2, seed=0)
    with pytest.raises(RuleError, match="taken squares must be lists of cells or maps"):
        ev(state, "domino_colours('small', 'b2', 'c1')")
    with pytest.raises(RuleError, match="no board named 'huge'"):
        ev(state, "let b = 'huge'; domino_colours(b, 'a1')")


def test_the_game_plays_on_the_board_and_replays_exactly(game):
    for seed in range(5):
        state = game.new_state(2, seed=seed)
        while not state.is_terminal():
            state.apply(state.legal_actions()[0])
        again = game.replay(2, seed, state.history)
        assert again.to_json() == state.to_json()
        assert all(t in game.boards["small"].cells for t in state.vars["tokens"])


def _write(tmp_path, text):
    path = tmp_path / "g.yaml"
    path.write_text(textwrap.dedent(text))
    return path


BASE = """
name: t
players: {min: 2, max: 2}
cards: [{name: x}]
zones: {deck: {initial: all}}
variables: {where: null}
player_variables: {score: 0}
flow:
  - set: {where: "%s"}
boards:
  b:
%s
"""


def test_a_literal_board_name_is_checked_at_load_time(tmp_path):
    path = _write(tmp_path, BASE % ("neighbours('bb', 'a1')", "    rows: [RG]\n    legend: {R: red, G: green}"))
    with pytest.raises(SpecError) as err:
        load_game(path)
    text = str(err.value)
    assert "no board named 'bb'" in text and "boards: b" in text
    assert "g.yaml:9:" in text  # the set step's line


@pytest.mark.parametrize("board, message", [
    ("    rows: [RX]\n    legend: {R: red, G: green}", "'X' is not in the legend"),
    ("    rows: [RG]\n    legend: {R: red, G: green}\n    marks: {start: [c1]}", "c1' is not a square"),
    ("    pieces: {A: [RG]}\n    layout: [A B]\n    legend: {R: red, G: green}", "there is no piece 'B'"),
    ("    rows: ['.']\n    legend: {R: red}", "has no squares"),
])
def test_bad_boards_are_located_errors(tmp_path, board, message):
    path = _write(tmp_path, BASE % ("1", board))
    with pytest.raises(SpecError) as err:
        load_game(path)
    assert message in str(err.value)
    assert str(path) + ":1" in str(err.value)  # located on the board's lines (12-15)


def test_rows_without_legend_are_colour_names(tmp_path):
    path = _write(tmp_path, BASE % ("colour_at('b', 'b2')", "    rows: ['red green', 'blue red']"))
    game = load_game(path)
    assert game.new_state(2).vars["where"] == "red"


def test_build_grid_reports_both_forms_given():
    grid, problems = build_grid("x", {"rows": ["ab"], "pieces": {"A": ["ab"]}, "layout": ["A"]})
    assert grid is None and "not both" in problems[0][1]


def test_board_contents_are_plain_state_data(game):
    state = game.new_state(3, seed=2)
    state.apply(state.legal_actions()[0])
    back = type(state).from_json(game, state.to_json())
    assert back.to_json() == state.to_json()
    assert json.loads(state.to_json())["vars"]["tokens"] == state.vars["tokens"]


def test_a_scenario_replaces_a_board(tmp_path):
    scen = tmp_path / "s.yaml"
    scen.write_text(textwrap.dedent(f"""
        rule: "a scenario's board replaces the spec's board of that name"
        spec: {WALK}
        players: 2
        setup:
          boards:
            small:
              legend: {{R: red, G: green}}
              rows: [RG, GR]
              marks: {{start: [a1], goal: [b2]}}
          zones:
            hand: {{0: [green], 1: [red]}}
        actions:
          - "0: move green to b1"
        expect:
          eval: {{"tokens": [b1, a1], "colour_at(board, 'b2')": red}}
    """))
    result = run_scenario(scen)
    assert result.passed, result.failures


def test_a_bad_scenario_board_is_a_located_error(tmp_path):
    scen = tmp_path / "s.yaml"
    scen.write_text(textwrap.dedent(f"""
        rule: "x"
        spec: {WALK}
        players: 2
        setup:
          boards:
            small:
              rows: [RZ]
              legend: {{R: red}}
        expect: {{terminal: false}}
    """))
    with pytest.raises(SpecError) as err:
        run_scenario(scen)
    assert "'Z' is not in the legend" in str(err.value) and ":8:" in str(err.value)
    scen.write_text(scen.read_text().replace("small:", "tiny:"))
    with pytest.raises(SpecError, match="has no board 'tiny'"):
        run_scenario(scen)
