"""OpenSpiel's C++ bots, ISMCTS resampling and serialization through the OpenSpiel adapter (issue 35).

Each bot run is a subprocess, so a segmentation fault (the bug: ``MCTSBot.step`` released the GIL
while the C++ search called the Python game) fails a test instead of killing pytest. The full check,
20 ``evaluate_bots`` games per spec, is ``tools/openspiel_bots_check.py``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "openspiel_bots_check.py"
pytest.importorskip("pyspiel")

# the issue's snippet, with both bots
SNIPPET = """
import pyspiel
from interpreter.adapters.openspiel_game import register, UnsupportedByOpenSpiel
game = pyspiel.load_game(register("specs/witches_of_blackmore.yaml", players=3))
state = game.new_initial_state()
while state.is_chance_node():
    state.apply_action(state.chance_outcomes()[0][0])
ev = pyspiel.RandomRolloutEvaluator(1, 0)
bot = pyspiel.MCTSBot(game, ev, 2.0, 20, 1000, False, 0, False)
assert bot.step(state) in state.legal_actions()
bot = pyspiel.ISMCTSBot(0, ev, 2.0, 20, -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
try:
    bot.step(state)
except UnsupportedByOpenSpiel as exc:
    print("refused:", exc)
"""


def _run(args, timeout=300):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_issue_snippet_does_not_crash():
    run = _run(["-c", SNIPPET])
    assert run.returncode == 0, run.stderr[-3000:]
    assert "refused: OpenSpiel's C++ ISMCTSBot cannot search a game written in Python" in run.stdout
    assert "open_spiel.python.algorithms.ismcts.ISMCTSBot" in run.stdout  # says what to use instead


# every shipped spec (its action ids come from the spec, so any first decision has them)
QUICK = sorted(p.stem for p in (ROOT / "specs").glob("*.yaml"))


@pytest.mark.parametrize("name", QUICK)
def test_every_bot_decides_and_states_serialize(name):
    run = _run([str(TOOL), f"specs/{name}.yaml", "--quick"])
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.strip() == f"{name}.yaml: ok"


def test_whole_games_and_evaluate_bots():
    """A whole game of the C++ MCTS at every seat, the C++ ISMCTS refused by step and by
    evaluate_bots, evaluate_bots with OpenSpiel's ISMCTS against C++ random bots, and
    random_sim_test(serialize=True) with round trips (see the tool's doc)."""
    run = _run([str(TOOL), "specs/witches_of_blackmore.yaml", "--games", "2"])
    assert run.returncode == 0, run.stdout[-3000:]
    assert "1 of 1 specs passed" in run.stdout


def test_resample_keeps_what_the_seat_sees_and_redraws_secret_choices():
    import numpy as np
    import pyspiel

    from interpreter.adapters.openspiel_game import UnsupportedByOpenSpiel, register
    game = pyspiel.load_game(register(ROOT / "specs/skull_king.yaml", players=2, discovery=1))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.legal_actions()[-1])  # seat 0 bids in secret; seat 1 to bid
    assert state.current_player() == 1
    before = str(state), state.rb.zones, dict(state.rb.pending["committed"])
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    hands, bids = set(), set()
    for _ in range(30):
        world = state.resample_from_infostate(1, sampler)
        assert world.information_state_string(1) == state.information_state_string(1)
        assert world.current_player() == 1 and world.history() == state.history()
        assert world.rb.zones["hand"][1] == state.rb.zones["hand"][1]  # its own hand
        hands.add(tuple(world.rb.zones["hand"][0]))
        bids.add(world.rb.pending["committed"]["0"][1])
        with pytest.raises(UnsupportedByOpenSpiel):
            world.resample_from_infostate(1, sampler)
    assert (str(state), state.rb.zones, dict(state.rb.pending["committed"])) == before  # unchanged
    assert len(hands) > 1 and len(bids) > 1  # the hidden hand and the secret bid are drawn again
    # the information-state string names no chance outcome (a label of the deal)
    history = json.loads(state.information_state_string(1))["history"]
    assert history[0] == {"player": -1, "hidden": "chance outcome"}
    assert np.asarray(world.information_state_tensor(1)).shape == np.asarray(state.information_state_tensor(1)).shape


def test_every_seat_acts_in_a_real_time_block_and_random_play_ends():
    """In a real-time block the seat to act is the next one clockwise after the last to act (it was
    always the first seat: the others never moved, and a random game ran into the engine's bound
    of 50000 actions in one block)."""
    import random

    import pyspiel

    from interpreter.adapters.openspiel_game import register
    game = pyspiel.load_game(register(ROOT / "specs/ligretto_classic.yaml", players=2))
    rng = random.Random(0)
    state = game.new_initial_state()
    seats = []
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
            continue
        if state.rb.pending.get("realtime") and len(state.rb.current_players()) == 2:
            seats.append(state.current_player())
        actions = state.legal_actions()
        assert actions == sorted(set(actions)) and actions == state.clone().legal_actions()
        state.apply_action(rng.choice(actions))
    assert sum(state.returns()) == pytest.approx(1.0)
    assert set(seats) == {0, 1} and 0.4 < seats.count(0) / len(seats) < 0.6
