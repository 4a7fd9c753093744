"""specs/oh_hell.yaml plays exactly OpenSpiel's oh_hell: OpenSpiel's own random games are
replayed in Rulebook from the same deal, comparing the legal actions at every decision and the
final scores (needs the `bench` extra, installed by the `test` extra)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.engine.run import advance
from interpreter.scenario import build_state

pyspiel = pytest.importorskip("pyspiel")  # the test extra installs it: CI never skips this

SPEC = Path(__file__).resolve().parents[1] / "specs" / "oh_hell.yaml"
CASES = [  # (players, OpenSpiel parameters), each played with 12 seeds
    (3, {}), (4, {}), (5, {}), (7, {}),
    (4, {"off_bid_penalty": True, "points_per_trick": 2}),
    (3, {"num_suits": 3, "num_cards_per_suit": 7}),
    (4, {"num_tricks_fixed": 5}),
    (3, {"num_suits": 1, "num_cards_per_suit": 9, "num_tricks_fixed": 2}),
]


def _openspiel_game(players, params, seed):
    """One random OpenSpiel game: (num_tricks, dealer, hands, trump card, decisions), each decision
    ``(seat, sorted legal action strings, chosen string)``, and the final returns."""
    game = pyspiel.load_game("oh_hell", {"players": players, **params})
    state = game.new_initial_state()
    rng = random.Random(seed)
    chance = []
    decisions = []
    while not state.is_terminal():
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
            a = rng.choice(actions)
            chance.append(a)
        else:
            p = state.current_player()
            legal = [state.action_to_string(p, a) for a in state.legal_actions()]
            a = rng.choice(state.legal_actions())
            decisions.append((p, legal, state.action_to_string(p, a)))
        state.apply_action(a)
    num_suits = params.get("num_suits", 4)
    name = lambda card: "CDSH"[card % num_suits] + "23456789TJQKA"[card // num_suits]  # noqa: E731
    num_tricks, dealer, deal = chance[0], chance[1], chance[2:]
    hands = {p: [name(c) for c in deal[p:players * num_tricks:players]] for p in range(players)}
    return num_tricks, dealer, hands, name(deal[-1]), decisions, state.returns()


@pytest.mark.parametrize("players,params", CASES, ids=[f"{n}p-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'default'}"
                                                       for n, p in CASES])
def test_rulebook_replays_openspiel_games(players, params):
    game = load_game(SPEC, {k: v for k, v in params.items()})
    for seed in range(12):
        num_tricks, dealer, hands, trump, decisions, returns = _openspiel_game(players, params, seed)
        state = build_state(game, {
            "players": players, "start": "hand",
            "setup": {"vars": {"num_tricks": num_tricks, "dealer": dealer, "trump": trump[0]},
                      "zones": {"hand": hands, "trump_card": [trump]}}})
        advance(state)
        for seat, legal, chosen in decisions:
            assert state.current_players() == [seat]
            ours = [a.text.split(" ", 1)[1] for a in state.legal_actions(seat)]
            assert sorted(ours) == sorted(legal), (seed, seat, ours, legal)
            verb = "play" if chosen[0] in "CDSH" else "bid"
            state.apply(f"{verb} {chosen}", seat)
        assert state.is_terminal()
        assert state.scores() == [int(r) for r in returns], (seed, state.scores(), returns)
