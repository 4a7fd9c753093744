"""The Witches of Blackmore's options that a rule scenario cannot check on its own:
first_player: random draws the leader with the State's seeded RNG (§2 decision)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from interpreter.agents.basic import RandomAgent, play_game
from interpreter.spec.loader import load_game

SPEC = Path(__file__).resolve().parents[1] / "specs" / "witches_of_blackmore.yaml"


def test_first_player_defaults_to_seat_0():
    game = load_game(SPEC)
    assert {tuple(game.new_state(4, seed).current_players()) for seed in range(30)} == {(0,)}


def test_first_player_random_is_seeded_and_covers_every_seat():
    game = load_game(SPEC, {"first_player": "random"})
    leads = Counter(game.new_state(4, seed).current_players()[0] for seed in range(400))
    assert set(leads) == {0, 1, 2, 3}
    assert all(60 < n < 140 for n in leads.values())  # about 100 each
    for seed in (1, 7, 42):
        a, b = game.new_state(4, seed), game.new_state(4, seed)
        assert a.current_players() == b.current_players() == [a.vars["leader"]]


def test_a_whole_game_uses_every_card_and_scores_the_score_piles():
    for players in range(2, 7):
        game = load_game(SPEC, {"wheel": "ascending", "first_player": "random"})
        state = play_game(game, players, 3, [RandomAgent(p) for p in range(players)])
        assert state.is_terminal()
        zones = state.zones
        in_play = sum(len(z) for z in zones["won"]) + len(zones["trump_pile"])
        assert in_play == 54 and not zones["stock"] and not zones["trick"]
        assert all(not h for h in zones["hand"])
        values = [[game.cards[i].attrs["value"] for i in z] for z in zones["won"]]
        assert state.scores() == [sum(v) for v in values]
