"""Record (or check) Skull King games played with its optional modules off.

The file it writes, ``tests/data/skull_king_modules_off.json``, holds for a fixed list of
(players, options, seed) the SHA-256 of the game's history and its final scores. It was
written from the spec *before* the optional modules (§8-§11) were added; the test
``tests/test_skull_king_modules.py`` replays the same games with today's spec and requires
identical histories and scores, so adding modules (off by default) changed no game.

    python tools/skull_king_golden.py          # rewrite the file (only when a rule change is intended)
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402

SPEC = ROOT / "specs" / "skull_king.yaml"
OUT = ROOT / "tests" / "data" / "skull_king_modules_off.json"
OPTION_SETS = [{}, {"kraken": True, "white_whale": True}, {"preset": "rulebook_2021"},
               {"lead_suit": "official", "kraken": True}]
CASES = [(players, i, seed) for players in range(3, 9) for i in range(len(OPTION_SETS)) for seed in (players * 7 + i,)]


def play(game, players: int, seed: int):
    """A game with random legal actions drawn from ``random.Random(seed)``: (history, scores)."""
    rng = random.Random(seed)
    state = game.new_state(players, seed)
    while not state.is_terminal():
        p = rng.choice(state.current_players())
        state.apply(rng.choice(state.legal_actions(p)))
    return state.history, state.scores()


def digest(history) -> str:
    return hashlib.sha256(json.dumps(history).encode()).hexdigest()


def record() -> list:
    games = {}
    out = []
    for players, i, seed in CASES:
        options = OPTION_SETS[i]
        key = json.dumps(options, sort_keys=True)
        if key not in games:
            games[key] = load_game(SPEC, options)
        history, scores = play(games[key], players, seed)
        out.append({"players": players, "options": options, "seed": seed, "actions": len(history),
                    "history_sha256": digest(history), "scores": scores})
    return out


if __name__ == "__main__":
    OUT.write_text(json.dumps(record(), indent=1) + "\n")
    print(f"wrote {OUT}")
