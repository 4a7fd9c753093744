"""tools/reference_skull_king_numba.py, the hand-lowered numba Skull King that tools/bench.py
measures the kernel against: it must play the spec's rules, or the ratio means nothing. With the
exact generators it plays the kernel's games (hence the step API's), seed by seed; with its own
xorshift generator, the same rules give the same score distribution."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import reference_skull_king_numba as ref  # noqa: E402


@pytest.mark.parametrize("players", [3, 4, 7])
def test_the_numba_reference_plays_the_kernels_games(players):
    assert ref.check_same_games(200, players, seed=5) == 0


def test_the_check_counts_a_game_that_differs(monkeypatch):
    """The check can fail: one game's score changed (as a wrong bonus would) is counted."""
    real = ref.play

    def one_off(seed, players, n, exact=True):
        scores, lengths = real(seed, players, n, exact)
        scores[3, 1] += 10
        return scores, lengths
    monkeypatch.setattr(ref, "play", one_off)
    assert ref.check_same_games(20, 4, seed=5) == 1


def test_its_own_generator_gives_the_same_score_distribution():
    import numpy as np
    exact, _ = ref.play(0, 4, 20000)
    fast, lengths = ref.play(0, 4, 20000, exact=False)
    assert not np.array_equal(exact, fast)  # other games...
    assert abs(exact.mean() - fast.mean()) < 3.0  # ...the same rules (means about six standard errors apart at most)
    assert abs(exact.std() - fast.std()) < 3.0
    assert set(lengths.tolist()) == {260}


def test_the_numba_reference_refuses_two_players():
    with pytest.raises(ValueError, match="3 to 8"):
        ref.play(0, 2, 1)
