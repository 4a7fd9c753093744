"""Whole games of Skull Queen (specs/skull_queen.yaml) between random bots, for 2 to 6 players.

The rule scenarios in tests/scenarios/skull_queen check single tricks; these check what only a
whole game shows: as many rounds as players (§6), every hand played out, every card accounted
for, each round's points equal to the values of the cells its pirates ended on (§6), the totals
the sum of the rounds, and a game replayed from its history ending the same.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.agents.basic import RandomAgent
from interpreter.spec.loader import load_game

SPEC = Path(__file__).resolve().parents[1] / "specs" / "skull_queen.yaml"
COLOURS = ("red", "yellow", "green", "blue")


@pytest.fixture(scope="module")
def game():
    return load_game(SPEC)


def _play(game, players, seed):
    events = []
    state = game.new_state(players, seed, events=events)
    agents = [RandomAgent(seed * 31 + p) for p in range(players)]
    while not state.is_terminal():
        for p in state.current_players():
            state.apply(agents[p].act(state, p))
            if state.is_terminal():
                break
    return state, events


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_whole_game(game, players):
    state, events = _play(game, players, seed=100 + players)
    assert state.is_terminal()
    assert state.vars["round"] == players                       # §6: as many rounds as players

    # every card is somewhere; the hands and the Skull King's pile are played out
    zones = state.zones
    total = sum(len(z) for name, z in zones.items() if not game.zones[name].per_player)
    total += sum(len(h) for h in zones["hand"])
    assert total == len(game.cards) == 50
    assert all(len(h) == 0 for h in zones["hand"]) and zones["ghost"] == []
    assert len(zones["unused"]) == (8 if players <= 3 else 0)

    # decisions: one placement per player per round, then one card per player per trick
    hand = {2: 14, 3: 14, 4: 12, 5: 10, 6: 8}[players]
    places = [h for h in state.history if h[1].startswith("place ")]
    plays = [h for h in state.history if h[1].startswith("play ")]
    assert len(places) == players * players
    assert len(plays) == players * players * hand

    # §6: each round's points are the values of the cells the pirates ended on ('-': in the water)
    front = game.var_defaults["plank_front"]
    tables = [e["table"] for e in events if e["kind"] == "log" and e.get("table")]
    round_tables = tables[:-1]                                    # the last one is the final table
    assert len(round_tables) == players
    totals = [0] * players
    for table in round_tables:
        for p, row in enumerate(table):
            values = front if row["side"] == "front" else front[::-1]
            cells = [row[c] for c in COLOURS]
            assert all(c == "-" or c in {"1", "2", "3", "4", "5"} for c in cells)
            assert row["round_points"] == sum(values[int(c) - 1] for c in cells if c != "-")
            totals[p] += row["round_points"]
            assert row["score"] == totals[p]
    assert state.scores() == totals
    best = max(totals)
    assert state.winners() == [p for p in range(players) if totals[p] == best]


def test_replay_ends_the_same(game):
    state, _ = _play(game, 4, seed=7)
    again = game.replay(4, 7, state.history)
    assert again.is_terminal() and again.scores() == state.scores()
    assert again.to_json() == state.to_json()
