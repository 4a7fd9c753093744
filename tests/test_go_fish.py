"""Go Fish (specs/go_fish.yaml) ends with any bots.

Regression: an earlier Go Fish spec (commit b08efc8, never landed) looped for ever once the stock
was empty: with three or more players, a player who always asks the same player for the same rank
(the first legal action) is told "go fish" every time and nothing changes. The spec now ends such a
game (§7, option stall_rounds) and skips players with no cards and no stock (§6); these tests play
games to the end with first-action and random bots within a bound on the number of actions."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.agents.basic import FirstLegalAgent, RandomAgent

SPEC = Path(__file__).resolve().parents[1] / "specs" / "go_fish.yaml"
MAX_ACTIONS = 2_000  # a game draws at most 52 cards and each ask that gets cards leaves a holder fewer


def _play(game, players, seed, agents):
    state = game.new_state(players, seed=seed)
    n = 0
    while not state.is_terminal():
        seat = state.current_players()[0]
        state.apply(agents[seat].act(state, seat), seat)
        n += 1
        assert n <= MAX_ACTIONS, f"{players} players, seed {seed}: no end after {MAX_ACTIONS} actions"
    return state, n


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("bots", ["first", "random"])
def test_games_end_within_a_bound(players, bots):
    game = load_game(SPEC)
    ended_by_books = 0
    for seed in range(15):
        agents = [FirstLegalAgent()] * players if bots == "first" else [RandomAgent(seed * 7 + i) for i in range(players)]
        state, _ = _play(game, players, seed, agents)
        books = sum(state.pvars[p]["books"] for p in range(players))
        laid = sum(len(z) for z in state.zones["laid"])
        assert laid == 4 * books                        # every book is four cards laid down
        assert sum(len(z) for z in state.zones["hand"]) + len(state.zones["deck"]) + laid == 52
        if books == 13:
            ended_by_books += 1
            assert not any(state.zones["hand"]) and not state.zones["deck"]
        else:  # ended by the stall rule: the stock is empty
            assert state.zones["deck"] == [] and state.vars["failed"] > 0
    if bots == "random":
        assert ended_by_books == 15                     # random askers find the cards in the end
    if bots == "first" and players == 2:
        assert ended_by_books == 15                     # two players: every ask with no stock succeeds


def test_first_action_bots_stall_with_three_players_and_the_game_ends():
    """The case that looped: three first-action bots with the stock gone."""
    game = load_game(SPEC, {"stall_rounds": 1})
    state, n = _play(game, 3, 0, [FirstLegalAgent()] * 3)
    assert state.is_terminal() and state.zones["deck"] == []
    assert sum(state.pvars[p]["books"] for p in range(3)) < 13
    assert state.vars["failed"] >= sum(1 for z in state.zones["hand"] if z)
