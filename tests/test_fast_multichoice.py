"""Set choices (``choose`` with ``min``/``max``: several cards as one decision, picked card by card)
and lists of lists of different shapes in the typed kernel (interpreter/fast/multichoice.py,
interpreter/fast/ragged.py): the playout kernel plays the step API's games, the kernel step API
lists the same actions (pick NAME, undo, the whole set, the optional action) in lock step, and what
they cannot lower says so. numba is installed by the `test` extra: nothing here is skipped."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.engine import program
from interpreter.errors import RulebookError
from interpreter.fast import multichoice
from interpreter.fast.kernel import kernel_for, why_not
from interpreter.fast.typepass import NotTyped, lower
from interpreter.sim.simulate import _play_one

from test_fast_steps import _side_by_side

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "specs" / "set_choices.yaml"


def _same_games(game, counts, seeds=8):
    kernel = kernel_for(game)
    for players in counts:
        scores, lengths, errors = kernel.run(players, 100, seeds)
        for i in range(seeds):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0
            assert list(scores[i]) == list(want), (players, 100 + i)
            assert lengths[i] == length, (players, 100 + i)


@pytest.mark.parametrize("rounds", [2, 3])
def test_set_choices_play_the_step_apis_games(rounds):
    """Scores and lengths (every pick and undo is an action) seed by seed, then action by action:
    the same legal actions (texts, order, indices) and histories."""
    game = load_game(SPEC, {"rounds": rounds})
    _same_games(game, [2, 3, 4])
    seen = set()
    for seed in range(8):
        fast, slow = _side_by_side(game, 2 + seed % 3, seed, seed + 100)
        seen.update(t.split()[0] + (" " + t.split()[1] if t.startswith("place") else "") for _, t in slow.history)
    # the protocol's every kind of action was taken (the picks, undo, a whole set, the optional
    # actions, and options of both shapes)
    assert {"pick", "undo", "give", "meld", "play", "pass", "stop", "place on", "place in", "keep"} <= seen


def test_the_set_so_far_is_offered_as_the_step_api_offers_it():
    """Mid-set: the picks left, the set once valid (cards in card-table order) and undo, as the State."""
    game = load_game(SPEC)
    fast, slow = game.new_state(2, seed=3, fast=True), game.new_state(2, seed=3)
    for _ in range(12):
        acts = slow.legal_actions()
        assert [a.text for a in fast.legal_actions()] == [a.text for a in acts]
        pick = next((a for a in acts if a.text.startswith("pick ")), None)
        if pick is None:
            break
        fast.apply(pick.text)
        slow.apply(pick.text)
    assert fast.history == slow.history and any(t == "undo" for t in (a.text for a in slow.legal_actions()))


def test_the_search_budget_is_the_step_apis(tmp_path):
    """When no valid set exists the step API still offers the cards its bounded search could not
    rule out (SET_SEARCH_BUDGET tries): the kernel lists the same picks."""
    assert multichoice.SET_SEARCH_BUDGET == program.SET_SEARCH_BUDGET
    text = SPEC.read_text().replace('valid: "count([x in m where x.rank > 0]) >= 2"',
                                    'valid: "sum([x.rank for x in m]) == 1000"').replace(
        "min: 3\n", "min: 5\n              max: 12\n").replace('where: "fits(card, m)"', 'where: "true"').replace(
        "count: 6}", "count: 12}")
    path = tmp_path / "budget.yaml"
    path.write_text(text)
    game = load_game(path)
    state = game.new_state(2, seed=1)
    while not any(a.text == "stop" for a in state.legal_actions()):
        state.apply(state.legal_actions()[0])
    # no valid meld exists, yet picks are offered: the budget ran out
    assert any(a.text.startswith("pick ") for a in state.legal_actions())
    fast = game.new_state(2, seed=1, fast=True)
    for a in state.history:
        fast.apply(a[1], a[0])
    assert [a.text for a in fast.legal_actions()] == [a.text for a in state.legal_actions()]
    for seed in range(3):
        _side_by_side(game, 2, seed, seed)


def test_president_and_queen_of_scots_run_in_the_kernel():
    for name, players in (("president", 4), ("queen_of_scots", 2)):
        assert why_not(load_game(ROOT / "specs" / f"{name}.yaml"), players) is None


def _spec_with(tmp_path, old, new):
    text = SPEC.read_text()
    assert old in text
    path = tmp_path / "s.yaml"
    path.write_text(text.replace(old, new))
    return load_game(path)


def test_what_the_kernel_cannot_do_with_set_choices_says_why(tmp_path):
    game = _spec_with(tmp_path, "w[2] - 1", "w[-1]")  # a different place in options of different lengths
    with pytest.raises(NotTyped, match=r"a part counted from the end .* of lists of different lengths .*spec line"):
        lower(game)
    simultaneous = ROOT / "tests" / "specs" / "three_card_pass.yaml"
    with pytest.raises(NotTyped, match=r"a set choice .* of several players at once .*spec line \d+"):
        lower(load_game(simultaneous))


def test_a_text_in_arithmetic_is_the_step_apis_error(tmp_path):
    """A place holding a number in some options and a text in others reads as a number in
    arithmetic; a text there is flagged, and the kernel step API raises the State's error."""
    game = _spec_with(tmp_path, "w != null and w[0] == 'on'", "w != null and (w[2] - 1 > 0 or w[0] == 'on')")
    state = game.new_state(2, seed=0, fast=True)
    with pytest.raises(RulebookError):
        while not state.is_terminal():
            acts = state.legal_actions()
            state.apply(next((a for a in acts if a.text.startswith("place in")), acts[0]))


def test_search_bots_decide_set_choices_in_the_kernel():
    """ISMCTS and greedy search the picks, undos and sets in the kernel (a pick forced by its card,
    the set by its size, in each sampled world): every decision of theirs runs there, the same
    game on a FastState as on a State."""
    from interpreter.agents.basic import RandomAgent, play_game
    from interpreter.agents.search import GreedyAgent, ISMCTSAgent
    game = load_game(SPEC)
    finals = []
    for fast in (True, False):
        bots = [ISMCTSAgent(iterations=20, seed=4), RandomAgent(1), GreedyAgent(iterations=8, seed=2)]
        st = play_game(game, 3, 5, bots, fast=fast)
        finals.append((st.history, st.scores()))
        for bot in (bots[0], bots[2]):
            assert bot.kernel_decisions > 0 and bot.python_decisions == 0
        assert any(t.startswith("pick ") for seat, t in st.history if seat == 0)
    assert finals[0] == finals[1]


def test_helpers_calling_different_helpers_stay_apart():
    """Two generated helpers alike but for the helper each calls are two functions (they were
    merged as one, so Queen of Scots's lay-off options read a list from another helper's row)."""
    from interpreter.fast.typepass import Lowering
    low = Lowering(load_game(SPEC), steps=False, fold=frozenset(), search=False)
    low.helpers, low.helper_names, low.counter, low.memo_slots = [], {}, 0, 0
    a = low.helper({}, ["t1 = h7(TMP) + 1"], "t1")
    b = low.helper({}, ["t1 = h8(TMP) + 1"], "t1")
    assert a != b  # (before: one function, calling h7)


def test_tuple_options_keep_their_rows_apart_from_their_own_lists():
    """Queen of Scots's lay-off options (pairs whose `where` keeps a list in a row of TMP while
    they are listed): this game's lists differed at its 190th action (an option's card name read
    from the row of that list) before the pairs' rows were taken apart from it."""
    game = load_game(ROOT / "specs" / "queen_of_scots.yaml")
    fast, slow = _side_by_side(game, 2, 1, 101)
    assert len(slow.history) > 190 and any(t.startswith("lay-off ") for _, t in slow.history)
