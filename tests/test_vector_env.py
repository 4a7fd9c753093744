"""The kernel-backed vectorised environment (interpreter/adapters/vector_env.py): the same games as
the PettingZoo environment for the same seeds and ids, its tensor equal to Spaces.observation where
it is filled, and its refusals. Needs numba and pettingzoo (the test extra)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interpreter import load_game
from interpreter.errors import RulebookError
from test_adapters import _need  # (skips a missing extra outside CI, fails in CI)

SPECS = Path(__file__).resolve().parents[1] / "specs"


@pytest.mark.parametrize("spec,n,steps", [("oh_hell", 3, 400), ("witches_of_blackmore", 3, 150),
                                          ("ligretto_classic", 2, 300), ("go_fish", 2, 200),
                                          ("skull_queen", 2, 60), ("skull_king", 3, 260)])
def test_batch_plays_the_games_of_single_environments(spec, n, steps):
    """Each game of the batch, stepped by the same ids as a RulebookAECEnv of the same seed, has the
    same seat to act, the same mask, the same rewards when it ends, and the same observation
    tensor on every entry the kernel fills (all of zones, sizes, turn and seat); a game that ends is
    replaced by the next seed. Ligretto's real-time block checks the round-robin seat; Go Fish and Skull
    Queen the ids of options that are pairs (read from TMP), Skull Queen's of a simultaneous choice;
    Skull King's cards with the same name (counted, not set, in the zones section); board Ligretto
    in tests/test_fast_realtime_lists.py (beside its step module's other test: one compile)."""
    batch_is_single_environments(load_game(SPECS / f"{spec}.yaml"), n, steps)


def batch_is_single_environments(game, n: int, steps: int) -> None:
    """The check of :func:`test_batch_plays_the_games_of_single_environments` for ``game`` at
    ``n`` players over ``steps`` batch steps."""
    _need("numba")
    _need("pettingzoo")
    from interpreter.adapters.pettingzoo_env import RulebookAECEnv
    from interpreter.adapters.vector_env import VectorEnv
    spec = game.name
    venv = VectorEnv(game, n, num_envs=3, seed=10)
    obs, mask, seat = venv.reset()
    assert obs.shape == (3, venv.spaces.observation_size) and obs.dtype == np.float32
    assert mask.shape == (3, venv.spaces.num_actions) and mask.dtype == np.int8 and venv.seeds == [10, 11, 12]
    sections = dict(venv.spaces.sections)
    assert venv.filled.sum() >= sections["zones"] + sections["sizes"] + sections["turn"] + sections["seat"]
    singles = []
    for i in range(3):
        e = RulebookAECEnv(game, n, spaces_=venv.spaces)
        e.reset(seed=10 + i)
        singles.append(e)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(steps):
        for i, e in enumerate(singles):
            assert e._index[e.agent_selection] == seat[i]
            single = e.observe(e.agent_selection)
            assert np.array_equal(single["action_mask"], mask[i])
            assert np.array_equal(obs[i] * venv.filled, single["observation"] * venv.filled)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        obs, mask, seat, rewards, done = venv.step(actions)
        for i, e in enumerate(singles):
            e.step(int(actions[i]))
            if done[i]:
                ended += 1
                assert e.state.is_terminal() and abs(rewards[i].sum() - 1.0) < 1e-6
                assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents]
                e.reset(seed=venv.seeds[i])
            else:
                assert not rewards[i].any()
    assert ended > 0 or "Ligretto" in spec  # (a Ligretto game is long)


def test_an_illegal_id_moves_no_game_and_says_which():
    _need("numba")
    from interpreter.adapters.vector_env import VectorEnv
    venv = VectorEnv(SPECS / "oh_hell.yaml", 3, num_envs=2, seed=0, observations=False)
    obs, mask, seat = venv.reset()
    assert obs is None
    before = [list(s.history) for s in venv.states]
    good = int(np.flatnonzero(mask[0])[0])
    bad = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(RulebookError, match=rf"game 1: action id {bad} is not legal for seat {seat[1]}"):
        venv.step([good, bad])
    assert [s.history for s in venv.states] == before
    with pytest.raises(RulebookError, match="one action id per game: 2, not 3"):
        venv.step([good, good, good])
    with pytest.raises(RulebookError, match="integer action ids"):  # 0.5 is not id 0
        venv.step([float(good), 0.5])
    assert [s.history for s in venv.states] == before


def test_specs_the_kernel_cannot_batch_are_refused_with_the_reason(tmp_path):
    _need("numba")
    from interpreter.adapters.vector_env import VectorEnv
    with pytest.raises(RulebookError, match="does not run set choices"):
        VectorEnv(SPECS / "president.yaml", 4, num_envs=2)
    untyped = tmp_path / "untyped.yaml"  # a seat's name (the player's, unknown to the kernel) in the score
    untyped.write_text((SPECS.parent / "tests" / "specs" / "realtime_lists.yaml").read_text()
                       .replace('score: "p.score"', 'score: "p.score + (1 if name(p) == \'x\' else 0)"'))
    with pytest.raises(RulebookError, match=r"the fast step API cannot run this game: .*spec line \d+"):
        VectorEnv(untyped, 2, num_envs=2)
    with pytest.raises(RulebookError, match="num_envs"):
        VectorEnv(SPECS / "oh_hell.yaml", 3, num_envs=0)
