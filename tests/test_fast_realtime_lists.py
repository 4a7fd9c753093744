"""Choice options that are lists of different lengths made by ``+`` (``[a, 'at', x] + (['from', y]
if c else [])``), in a real-time block, in the typed kernel (interpreter/fast/ragged.py,
interpreter/fast/realtime.py): with count(m), m[k] of parts some options lack, name() of a card and
a key in a group_by(...) held in a let name (tests/specs/realtime_lists.yaml). The kernel plays the
step API's games seed by seed, and its step API lists and applies the State's actions, seat by seat,
in lock step. Board Ligretto (specs/ligretto.yaml) is the spec that needs them."""
from __future__ import annotations

import random
from pathlib import Path

from interpreter import load_game
from interpreter.fast.kernel import why_not
from test_fast_boards import kernel_is_the_step_api
from test_vector_env import batch_is_single_environments

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "specs" / "realtime_lists.yaml"


def in_lock_step(game, players: int, seed: int) -> set:
    """Play one game in a FastState and a State together: at each position the same waiting seats
    and, for each, the same legal actions; one random seat acts. Returns the action texts offered."""
    fast, slow = game.new_state(players, seed=seed, fast=True), game.new_state(players, seed=seed)
    rng = random.Random(seed)
    moves, texts = 0, set()
    while not slow.is_terminal():
        waiting = slow.current_players()
        assert fast.current_players() == waiting, (seed, moves)
        for p in waiting:
            assert list(fast.legal_actions(p)) == list(slow.legal_actions(p)), (seed, moves, p)
            texts.update(a.text for a in slow.legal_actions(p))
        p = rng.choice(waiting)
        k = rng.randrange(len(slow.legal_actions(p)))
        fast.apply(fast.legal_actions(p)[k], p)
        slow.apply(slow.legal_actions(p)[k], p)
        moves += 1
    assert fast.is_terminal() and fast.history == slow.history
    assert fast.scores() == slow.scores()
    return texts


def test_list_options_of_different_lengths_play_the_step_apis_games():
    kernel_is_the_step_api(load_game(SPEC), (2, 3), 10)


def test_list_options_of_different_lengths_in_lock_step():
    game = load_game(SPEC)
    texts = set()
    for seed in range(24):
        texts |= in_lock_step(game, 2 + seed % 2, seed)
    # both lengths of `lay` (3 parts; 5 with the pile's top card, a name of two words) and `give`
    lengths = {len(t.split()) for t in texts if t.startswith("lay ")}
    assert lengths == {4, 7}, lengths
    assert any(t.startswith("give ") and t.endswith(" away") for t in texts)


def test_an_earlier_list_of_several_lengths_is_refused_with_its_line(tmp_path):
    """(xs if c else []) + ys: the places of ys would move with c: refused, located."""
    text = SPEC.read_text(encoding="utf-8")
    old = "[[k.rank, 'away'] for k in p.hand where k.rank > 2]"
    assert old in text
    path = tmp_path / "moving.yaml"
    path.write_text(text.replace(old, "[(['big'] if k.rank > 3 else []) + [k.rank, 'away'] for k in p.hand where k.rank > 2]"),
                    encoding="utf-8")
    reason = why_not(load_game(path), 2)
    assert "a list of several lengths before another" in reason and "spec line" in reason, reason


def test_board_ligretto_in_lock_step_and_in_a_batch():
    """Board Ligretto's real-time block (place options of 4 or 6 parts, jokers of 2 or 4) in the
    kernel's step API, one round at 2, 3 and 4 players, action by action against the State; and
    its vectorised environment beside single PettingZoo environments (real-time options that are
    lists, ids by their texts; text variables holding board cells, whose codes lie far apart). One
    test: the step module compiles once."""
    game = load_game(ROOT / "specs" / "ligretto.yaml", options={"rounds": 1})
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        texts = in_lock_step(game, players, seed)
        assert any(t.startswith("place ") for t in texts) and any(t.startswith("reveal") for t in texts)
    batch_is_single_environments(load_game(ROOT / "specs" / "ligretto.yaml"), 2, 150)
