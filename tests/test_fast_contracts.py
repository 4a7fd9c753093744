"""Rummy contracts in the typed kernel (interpreter/fast): a list of lists of different lengths and
a row of it picked at run time (fast/raggedrows.py), runs with wild cards (fast/wildruns.py), melds_for and is_meld of meld kinds known only at run time
(fast/meldsfor.py), without() of seats (fast/seatlists.py), options that are cards (fast/cardoptions.py), each construct with a small spec under
tests/specs/ played by the kernel and by the step API (the same games, seed by seed) and in lock
step by the kernel's step API and the State (the same legal actions, histories and scores).
numba is installed by the `test` extra: nothing here is skipped."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter import load_game
from interpreter.errors import RuleError
from interpreter.fast.kernel import kernel_for
from interpreter.sim.simulate import _play_one, simulate
from test_fast_steps import _side_by_side

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "tests" / "specs"

CASES = [("ragged_rows.yaml", {}), ("ragged_rows.yaml", {"pick": 3}), ("card_options.yaml", {}),
         ("card_options.yaml", {"rounds": 5})]


def _same_games(game, players, seed, n):
    scores, lengths, errors = kernel_for(game).run(players, seed, n)
    for i in range(n):
        want, _, length = _play_one(game, players, seed, i, None)
        assert errors[i] == 0, (players, seed + i)
        assert list(scores[i]) == list(want), (players, seed + i)
        assert lengths[i] == length, (players, seed + i)


@pytest.mark.parametrize("name,opts", CASES)
def test_the_kernel_plays_the_step_apis_games(name, opts):
    """Final scores and lengths, seed by seed, at every player count."""
    game = load_game(SPECS / name, opts or None)
    for players in range(game.min_players, game.max_players + 1):
        _same_games(game, players, 100, 8)


@pytest.mark.parametrize("name,opts", CASES)
def test_the_kernels_step_api_is_the_state_action_by_action(name, opts):
    game = load_game(SPECS / name, opts or None)
    lo, hi = game.min_players, game.max_players
    for seed in range(4):
        _side_by_side(game, lo + seed % (hi - lo + 1), seed, seed + 100)


def test_a_row_out_of_range_is_flagged_and_the_step_api_says_why():
    """rows[k] past the last row: the kernel flags the game (code 7; the empty row then leaves the
    choice among its texts with no option: code 5), simulate replays it in the step API, which
    raises its located error."""
    game = load_game(SPECS / "ragged_rows.yaml", {"pick": 9})
    _, _, errors = kernel_for(game).run(2, 0, 3)
    assert list(errors) == [5, 5, 5]
    with pytest.raises(RuleError, match="out of range"):
        simulate(game, 3, 2, seed=0, fast=True)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 8), st.integers(2, 4))
def test_runs_with_wild_cards_are_the_step_apis_on_random_hands(seed, size, players):
    """is_meld (of a run kind with wild cards, of any kind), meld_kind and lay_offs in the kernel
    against the step API on random hands of ``size`` cards from two short decks with jokers (a run
    of four or more, ace low or high, at least two natural cards; a set of three or more):
    tests/specs/wild_runs.yaml, each seat's score a signature of these over parts of its hand."""
    game = load_game(SPECS / "wild_runs.yaml", {"size": size})
    _same_games(game, players, seed, 3)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 9), st.integers(2, 4))
def test_contracts_are_the_step_apis_on_random_hands(seed, size, players):
    """melds_for(...) != null (kinds from a row of a list of lists picked at run time, its slices,
    literal lists, [], sets and runs with jokers and a set kind without) and is_meld of a kind known
    only at run time, in the kernel against the step API on random hands (tests/specs/contracts.yaml)."""
    game = load_game(SPECS / "contracts.yaml", {"size": size})
    _same_games(game, players, seed, 3)


@pytest.mark.parametrize("size,players", [(9, 4), (19, 2)])
def test_runs_in_contracts_are_the_step_apis(size, players):
    """melds_for(...) != null with runs of three without wild cards (ace high, low or either) and
    with jokers, on hands of up to 19 cards (tests/specs/contract_runs.yaml): the kernel, which
    passes over a run's choices whose natural cards share a position or lie further apart than the
    run is long, plays the step API's games seed by seed."""
    game = load_game(SPECS / "contract_runs.yaml", {"size": size})
    _same_games(game, players, 11, 40)


def test_melds_for_used_as_a_list_says_why(tmp_path):
    """melds_for is lowered where it is compared with null: counting its melds does not type."""
    from interpreter.fast.typepass import NotTyped, lower
    text = (SPECS / "contracts.yaml").read_text()
    assert "1 if melds_for(h, ks) != null else 0" in text
    (tmp_path / "c.yaml").write_text(text.replace("1 if melds_for(h, ks) != null else 0", "count(melds_for(h, ks))"))
    with pytest.raises(NotTyped, match="melds_for"):
        lower(load_game(tmp_path / "c.yaml"))


def test_without_of_numbers_that_may_be_other_objects_is_flagged(tmp_path):
    """without() leaves out items by identity: a number past 256 equal to one left out may be
    another object in the step API, so the kernel flags the game (code 7) and simulate replays it
    (there the two 1000s are two objects: 1000 stays in the list and is no seat)."""
    text = (SPECS / "ragged_rows.yaml").read_text()
    assert "[p, next_player(next_player(p)), options.pick]" in text
    (tmp_path / "w.yaml").write_text(text.replace("turn_order(next_player(p)), [p,", "turn_order(next_player(p)) + [1000], [1000, p,"))
    game = load_game(tmp_path / "w.yaml")
    _, _, errors = kernel_for(game).run(2, 0, 3)
    assert list(errors) == [7, 7, 7]
    with pytest.raises(RuleError, match="not a player"):
        simulate(game, 3, 2, seed=0, fast=True)


def test_contract_rummy_runs_in_the_kernel():
    """Contract Rummy as shipped types (its lay-off choice `onto:` too, fast/onto.py), the kernel plays
    the step API's games (one deal, four players) and its step API is the State's action by action
    (the contract's set choices, buying, the contract checks, lay-offs onto a set)."""
    from interpreter.fast.kernel import why_not
    game = load_game(ROOT / "specs" / "contract_rummy.yaml", {"deals": 1})
    assert why_not(game, 4) is None
    _same_games(game, 4, 0, 4)
    for seed in range(2):
        _side_by_side(game, 3 + seed, seed, seed + 100)
