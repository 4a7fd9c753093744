"""President (specs/president.yaml): whole games with bots, and the rules that span rounds."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.agents.basic import FirstLegalAgent, RandomAgent, play_game

SPEC = Path(__file__).resolve().parents[1] / "specs" / "president.yaml"


@pytest.mark.parametrize("players", [4, 5, 6, 7])
def test_games_end_and_every_round_ranks_every_player(players):
    game = load_game(SPEC, {"rounds": 2})
    for seed in range(3):
        for agents in ([FirstLegalAgent()] * players, [RandomAgent(seed * 10 + i) for i in range(players)]):
            state = play_game(game, players, seed, agents)
            assert state.is_terminal()
            assert sorted(state.vars["order"]) == list(range(players))
            # §9: +2 +1 -1 -2 per round, 0 for Citizens: the totals of a round add up to 0
            assert sum(state.scores()) == 0
            assert sorted(state.pvars[p]["place"] for p in range(players)) == list(range(1, players + 1))
            # §2: every card is dealt: 52 cards in the hands, the pile and the cleared piles
            assert sum(len(z) for z in state.zones["hand"]) + len(state.zones["pile"]) \
                + len(state.zones["discard"]) == 52


def test_the_scum_deals_and_leads_the_next_round():
    """§2, §8: after round 1 the Scum deals (from their left) and, after the exchanges, leads."""
    game = load_game(SPEC, {"rounds": 2})
    state = game.new_state(4, seed=3)
    agent = FirstLegalAgent()
    while state.vars["round"] < 2:
        seat = state.current_players()[0]
        state.apply(agent.act(state, seat), seat)
    scum, president = state.vars["order"][-1], state.vars["order"][0]
    assert state.vars["dealer"] == scum
    assert state.current_players() == [president]        # §7: the President gives back two cards
    assert len(state.zones["hand"][president]) == 15    # 13 dealt and the Scum's two best
    while state.current_players() != [scum]:             # the exchanges: the President, the Vice-President
        seat = state.current_players()[0]
        assert seat != scum
        state.apply(agent.act(state, seat), seat)
    texts = [a.text for a in state.legal_actions(scum)]
    assert all(t.startswith("pick ") for t in texts)   # the Scum leads: any card, and no pass
    assert state.zones["pile"] == [] and len(state.zones["hand"][scum]) == 13
