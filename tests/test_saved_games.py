"""Saved games: a State saved by one process continues in another (every spec), and
tampered saves are refused with a clear error."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import load_game

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


def _play(game, seed, limit=400):
    """A seeded random game: the snapshots (JSON after some actions) and the actions taken."""
    rng = random.Random(seed)
    state = game.new_state(game.min_players, seed=seed)
    snaps, actions = [], []
    while not state.is_terminal() and len(actions) < limit:
        if len(actions) in (0, 1, 3, 7, 15, 40, 90):
            snaps.append((len(actions), state.to_json()))
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p))
        actions.append([p, a.text])
        state.apply(a.text, p)
    return snaps, actions, state.to_json()


_CONTINUE = r"""
import json, sys
from interpreter import State, load_game
spec, payload = sys.argv[1], json.load(sys.stdin)
game = load_game(spec)
out = []
for at, text in payload["snaps"]:
    state = State.from_json(game, text)
    for seat, action in payload["actions"][at:]:
        state.apply(action, seat)
    out.append(state.to_json())
print(json.dumps(out))
"""


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_saved_state_continues_in_another_process(spec):
    # Loop and choice cursors were keyed by memory addresses: a fresh process lost them
    # at the next loop step. Every snapshot must continue to the same end position.
    game = load_game(spec)
    snaps, actions, final = _play(game, seed=11)
    assert len(snaps) >= 4
    proc = subprocess.run([sys.executable, "-c", _CONTINUE, str(spec)], cwd=ROOT, text=True,
                          input=json.dumps({"snaps": snaps, "actions": actions}),
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ends = json.loads(proc.stdout)
    assert ends == [final] * len(snaps)
