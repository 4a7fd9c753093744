"""specs/euchre.yaml plays exactly OpenSpiel's euchre (its defaults, the `openspiel` preset):
OpenSpiel's own random games are replayed in Rulebook from the same deal, comparing the legal
actions at every decision and the returns (needs pyspiel, installed by the `test` extra)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.engine.run import advance
from interpreter.scenario import build_state

pyspiel = pytest.importorskip("pyspiel")  # the test extra installs it: CI never skips this

SPEC = Path(__file__).resolve().parents[1] / "specs" / "euchre.yaml"
NAMES = {"pass": "Pass"}


def card_name(card: int) -> str:
    """OpenSpiel's card id as its text: suit = id % 4 (C D H S), rank = id // 4 (9 T J Q K A)."""
    return "CDHS"[card % 4] + "9TJQKA"[card // 4]


def openspiel_game(seed: int):
    """One random OpenSpiel euchre game: (dealer, hands, upcard, decisions, returns), each decision
    ``(seat, sorted legal action strings, chosen string)``."""
    game = pyspiel.load_game("euchre")
    state = game.new_initial_state()
    rng = random.Random(seed)
    chance, decisions = [], []
    while not state.is_terminal():
        if state.is_chance_node():
            a = rng.choice([a for a, _ in state.chance_outcomes()])
            chance.append(a)
        else:
            p = state.current_player()
            legal = sorted(state.action_to_string(p, a) for a in state.legal_actions())
            a = rng.choice(state.legal_actions())
            decisions.append((p, legal, state.action_to_string(p, a)))
        state.apply_action(a)
    dealer, deal = chance[0], chance[1:]
    hands = {p: [] for p in range(4)}
    for i, card in enumerate(deal[:20]):         # ApplyDealAction: card i to (dealer + i) % 4
        hands[(dealer + i) % 4].append(card_name(card))
    return dealer, hands, card_name(deal[20]), decisions, [int(r) for r in state.returns()]


def _text(action_text: str) -> str:
    """Our action text as OpenSpiel writes the action: `play HK` -> HK, `call Clubs` -> Clubs."""
    verb, _, rest = action_text.partition(" ")
    return NAMES.get(verb, rest)


def replay(game, seed: int) -> None:
    """Replays OpenSpiel's game ``seed`` in Rulebook; raises AssertionError at the first difference."""
    dealer, hands, upcard, decisions, returns = openspiel_game(seed)
    state = build_state(game, {"players": 4, "start": "hand",
                               "setup": {"vars": {"dealer": dealer}, "zones": {"hand": hands, "upcard": [upcard]}}})
    advance(state)
    for seat, legal, chosen in decisions:
        assert state.current_players() == [seat], (seed, state.current_players(), seat)
        ours = {_text(a.text): a.text for a in state.legal_actions(seat)}
        assert sorted(ours) == legal, (seed, seat, sorted(ours), legal)
        state.apply(ours[chosen], seat)
    assert state.is_terminal(), seed
    assert state.scores() == returns, (seed, state.scores(), returns)


def test_rulebook_replays_openspiel_euchre_games():
    game = load_game(SPEC, {"preset": "openspiel"})
    for seed in range(120):
        replay(game, seed)
