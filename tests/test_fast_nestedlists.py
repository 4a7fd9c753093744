"""Lists inside the items of a list variable in the typed kernel (interpreter/fast/nestedlists.py):
a variable set to a comprehension whose items hold numbers and lists made at run time, read by
``[a, b] in e[k]``, ``x in e[k]``, ``count(e[k])`` and comprehensions over ``e[k]``: the same games as
the step API, seed by seed; a list of lists the kernel cannot keep is still refused, with its line."""
from __future__ import annotations

from pathlib import Path

from interpreter import load_game
from interpreter.fast.kernel import kernel_for, why_not
from interpreter.sim.simulate import simulate
from test_fast_boards import kernel_is_the_step_api

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "specs" / "nested_lists.yaml"


def test_lists_kept_in_a_list_variable_play_the_step_apis_games():
    kernel_is_the_step_api(load_game(SPEC), (2, 4))


def _variant(tmp_path, old, new):
    text = SPEC.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return load_game(path), 1 + text[:text.index(old)].count("\n")


def test_a_list_inside_a_list_read_before_it_is_kept_is_refused_with_its_line(tmp_path):
    """The comprehension's lists are read where it is made, not from the variable: not typed."""
    old = "- add: {p.points: \"sum([count(e[3]) for e in slots where c.rank in e[3]])\"}"
    game, line = _variant(tmp_path, old, "- add: {p.points: \"sum([count(e[3]) for e in all_slots])\"}")
    reason = why_not(game, 2)
    assert "a list inside a list read before it is kept in a variable" in reason and f"spec line {line}" in reason, reason


def test_lists_of_lists_of_lists_are_refused_with_their_line(tmp_path):
    old = "flatten([[k.rank, k.rank] for k in q.hand])]"
    game, _ = _variant(tmp_path, old, "[[[k.rank] for j in [1]] for k in q.hand]]")
    reason = why_not(game, 2)
    assert reason is not None and "a list of lists" in reason and "spec line" in reason, reason


def test_lists_longer_than_the_pool_stop_the_kernels_game_and_the_step_api_replays_it(tmp_path):
    """2 seats x 4 cards x 700 ranks: more items than the pool holds (error 6, then replayed)."""
    old = "flatten([[k.rank, k.rank] for k in q.hand])]"
    game, _ = _variant(tmp_path, old, "flatten([[k.rank for j in range(0, 700)] for k in q.hand])]")
    assert why_not(game, 2) is None
    _, _, errors = kernel_for(game).run(2, 100, 3)
    assert list(errors) == [6, 6, 6]
    fast, plain = simulate(game, 3, 2, seed=7, fast=True), simulate(game, 3, 2, seed=7)
    assert fast.scores == plain.scores and fast.lengths == plain.lengths


def test_lists_whose_items_hold_lists_joined_by_plus_are_refused_with_their_line(tmp_path):
    """Two such lists joined by + (their lists kept in different places) do not type."""
    old = "- set: {slots: all_slots}"
    game, line = _variant(tmp_path, old, "- set: {slots: \"all_slots + all_slots\"}")
    reason = why_not(game, 2)
    assert "+ of a list whose items hold lists" in reason and f"spec line {line}" in reason, reason
