"""The constructs board Ligretto needs, in the typed kernel: boards of coloured squares
(interpreter/fast/boards.py), lists that start with items and that steps set (fast/liststarts.py),
a game variable set to group_by(...) (fast/groupmaps.py) and flatten of a comprehension of lists
(fast/flatlists.py): the same games as the step API, seed by seed, and what it cannot do said or
flagged."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.fast.kernel import kernel_for, why_not
from interpreter.sim.simulate import _play_one, simulate

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "tests" / "specs"


def _same_games(game, players: int, seed: int, n: int) -> set:
    """The kernel's final scores and lengths are the step API's for ``n`` games from ``seed``, none
    flagged; returns the scores seen, each with the game's length."""
    scores, lengths, errors = kernel_for(game).run(players, seed, n)
    seen = set()
    for i in range(n):
        want, _, length = _play_one(game, players, seed, i, None)
        assert errors[i] == 0, (players, seed + i)
        assert list(scores[i]) == list(want) and lengths[i] == length, (players, seed + i)
        seen.add(tuple(want) + (length,))
    return seen


def kernel_is_the_step_api(game, counts, min_distinct: int = 20) -> None:
    """The spec types, its kernel plays the step API's games (40 seeds at each player count in
    ``counts``, more than ``min_distinct`` different scores at each, so the construct under test
    varies), and ``simulate --fast`` matches ``simulate``."""
    assert why_not(game, counts[0]) is None
    for players in counts:
        seen = _same_games(game, players, 100, 40)
        assert len({s[:-1] for s in seen}) > min_distinct
    fast, plain = simulate(game, 20, 3, seed=7, fast=True), simulate(game, 20, 3, seed=7)
    assert fast.fast and fast.scores == plain.scores and fast.lengths == plain.lengths


@pytest.mark.parametrize("name", ["board_steps", "colour_walk", "list_starts", "group_maps"])
def test_board_and_list_start_specs_type(name):
    assert why_not(load_game(SPECS / f"{name}.yaml"), 2) is None


def test_board_built_ins_play_the_step_apis_games():
    """cells, colour_at, neighbours, step, adjacent, direction, marked and domino_colours (taken squares
    in a list variable, a list literal and a map variable) on a board chosen at run
    time (a 4x3 board with a hole for 2 players, a board of pieces for 3): the same games."""
    game = load_game(SPECS / "board_steps.yaml")
    for players in (2, 3):
        seen = _same_games(game, players, 100, 60)
        assert len(seen) > 20  # the squares reached and what they read differ from game to game


def test_lists_that_start_with_items_play_the_step_apis_games():
    """A list of nulls set entry by entry and whole again, a list of numbers set whole, a list of
    nulls as long as the players: the same games, and simulate --fast is simulate."""
    game = load_game(SPECS / "list_starts.yaml")
    for players in (2, 4):
        seen = _same_games(game, players, 100, 40)
        assert len(seen) > 10
    fast, plain = simulate(game, 20, 3, seed=7, fast=True), simulate(game, 20, 3, seed=7)
    assert fast.fast and fast.scores == plain.scores and fast.lengths == plain.lengths


def test_a_board_name_that_is_no_board_is_flagged_and_the_step_api_says_why(tmp_path):
    """A board named at run time by a text that is not a board: the kernel flags the game (code 7)
    and simulate replays it in the step API, which raises its located error."""
    text = (SPECS / "board_steps.yaml").read_text(encoding="utf-8")
    path = tmp_path / "no_board.yaml"
    path.write_text(text.replace("else 'wide'", "else 'nowhere'"), encoding="utf-8")
    game = load_game(path)
    scores, lengths, errors = kernel_for(game).run(3, 1, 2)
    assert list(errors) == [7, 7]
    from interpreter.errors import RuleError
    with pytest.raises(RuleError, match="no board named 'nowhere'"):
        simulate(game, 2, 3, seed=1, fast=True)


def test_a_list_start_of_values_of_several_kinds_says_why(tmp_path):
    text = (SPECS / "list_starts.yaml").read_text(encoding="utf-8")
    path = tmp_path / "mixed.yaml"
    path.write_text(text.replace("worth: [3, 1, 2]", "worth: [3, 'one', 2]"), encoding="utf-8")
    reason = why_not(load_game(path), 2)
    assert "variable 'worth' starts as a list of values of several kinds" in reason


def test_group_maps_and_flattened_lists_play_the_step_apis_games():
    """``m = group_by(pairs, e => e[0].suit)`` and ``group_by(ranks, r => r % 2)`` in game variables,
    read by ``m[k]``, ``if_null(m[k], [])`` and ``k in m``, emptied by ``{}``; flatten of
    comprehensions of lists of pairs and of single values; a pair read as a list (``[x for x in e]``):
    the same games as the step API."""
    game = load_game(SPECS / "group_maps.yaml")
    for players in (2, 4):
        seen = _same_games(game, players, 100, 40)
        assert len(seen) > 20
        assert any(max(s[:-1]) >= 1000 for s in seen)  # the branch where a suit is missing ran


def test_a_group_a_group_map_lacks_is_flagged_and_the_step_api_says_why(tmp_path):
    """``m[k]`` of a key the map lacks is null in the step API, and looping over it its error: the
    kernel flags the game (code 7); simulate replays it in the step API, which raises."""
    text = (SPECS / "group_maps.yaml").read_text(encoding="utf-8")
    path = tmp_path / "lacks.yaml"
    path.write_text(text.replace("sum([e[1] for e in by_suit[s]])", "sum([e[1] for e in by_suit['z']])"),
                    encoding="utf-8")
    game = load_game(path)
    scores, lengths, errors = kernel_for(game).run(2, 1, 2)
    assert list(errors) == [7, 7]
    from interpreter.errors import RuleError
    with pytest.raises(RuleError):
        simulate(game, 2, 2, seed=1, fast=True)
