"""specs/gin_rummy.yaml with the `openspiel` preset plays exactly OpenSpiel's gin_rummy (its defaults):
OpenSpiel's own random games are replayed in Rulebook from the same deal and the same stock,
comparing the legal actions at every decision and the returns (needs pyspiel, installed by the
`test` extra). `python tools/openspiel_replay.py gin_rummy -n 1000` runs it over more games."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.engine.run import advance
from interpreter.scenario import build_state

pyspiel = pytest.importorskip("pyspiel")  # the test extra installs it: CI never skips this

SPEC = Path(__file__).resolve().parents[1] / "specs" / "gin_rummy.yaml"
RANKS, SUITS = "A23456789TJQK", "scdh"
KNOCK, PASS = 55, 54  # OpenSpiel's kKnockAction, kPassAction


def card_name(card: int) -> str:
    """OpenSpiel's card id as our card's name: rank = id % 13 (A..K), suit = id // 13 (s c d h)."""
    return RANKS[card % 13] + SUITS[card // 13].upper()


def os_key(text: str):
    """An OpenSpiel action text (`Player: 0 Action: 7c`) in a form ours is compared in: a card's
    name, a meld as the sorted names of its cards, or the word (Draw upcard, Draw stock, Pass, Knock)."""
    what = text.split("Action: ", 1)[1]
    if what in ("Draw upcard", "Draw stock", "Pass", "Knock"):
        return what
    names = [what[i:i + 2] for i in range(0, len(what), 2)]
    names = [n[0] + n[1].upper() for n in names]
    return names[0] if len(names) == 1 else tuple(sorted(names))


def our_key(text: str):
    """Our action text in the same form: `take-upcard 7C` and `draw discard` -> Draw upcard,
    `draw stock` -> Draw stock, `pass` -> Pass, `knock` / `knock 7C` -> Knock, `discard 7C` and
    `lay-off 7C` -> 7C, `meld 7 set without S` -> (7C, 7D, 7H), `meld AS to 3S` -> (2S, 3S, AS)."""
    verb, _, rest = text.partition(" ")
    if verb == "take-upcard" or text == "draw discard":
        return "Draw upcard"
    if text == "draw stock":
        return "Draw stock"
    if verb in ("pass", "knock"):
        return verb.capitalize()
    if verb == "meld":
        words = rest.split()
        if words[1] == "to":    # a run by its ends: AS to 3S
            lo, hi = RANKS.index(words[0][0]), RANKS.index(words[2][0])
            words = [RANKS[r] + words[0][1] for r in range(lo, hi + 1)]
        else:                   # a set: 7 set without S, 7 set of four
            words = [words[0] + s for s in "CDHS" if words[-1] != s]
        return tuple(sorted(words))
    return rest


def _near(a: str, b: str) -> bool:
    """Whether two cards (our names) could share a meld: the same rank, or next ranks in a suit."""
    return a[0] == b[0] or (a[1] == b[1] and abs(RANKS.index(a[0]) - RANKS.index(b[0])) == 1)


def openspiel_game(seed: int, policy: str = "random"):
    """One OpenSpiel gin_rummy game: (hands, upcard, stock draws, decisions, returns), each decision
    ``(seat, sorted legal keys, chosen key)``. ``policy`` "random" picks every action uniformly;
    "knock" knocks whenever it may and then lays out every meld and lay-off it can (else uniformly),
    and deals meld-rich hands (most cards dealt fit one already in that hand), so that more games
    reach the lay-out and its scores (random players knock in about 2% of games and seldom undercut)."""
    state = pyspiel.load_game("gin_rummy").new_initial_state()
    rng = random.Random(seed)
    chance, decisions = [], []
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = [a for a, _ in state.chance_outcomes()]
            a = rng.choice(outcomes)
            if policy == "knock" and len(chance) < 20 and rng.random() < 0.7:
                # a meld-rich deal: most cards fit (same rank, or next in the suit) one already dealt to that hand
                hand = chance[:10] if len(chance) < 10 else chance[10:]
                near = [x for x in outcomes if any(_near(card_name(x), h) for h in hand)]
                a = rng.choice(near or outcomes)
            chance.append(card_name(a))
        else:
            p = state.current_player()
            legal = sorted((os_key(state.action_to_string(p, a)) for a in state.legal_actions()), key=str)
            a = rng.choice(state.legal_actions())
            if policy == "knock" and KNOCK in state.legal_actions():
                a = KNOCK
            elif policy == "knock" and str(state.current_phase()) in ("Phase.KNOCK", "Phase.LAYOFF"):
                a = rng.choice([x for x in state.legal_actions() if x != PASS] or [PASS])
            decisions.append((p, legal, os_key(state.action_to_string(p, a))))
        state.apply_action(a)
    # ApplyDealAction: ten cards to player 0, ten to player 1, the upcard, then each stock draw
    return chance[:10], chance[10:20], chance[20], chance[21:], decisions, [int(r) for r in state.returns()]


def replay(game, seed: int, policy: str = "random") -> None:
    """Replays OpenSpiel's game ``seed`` (played by ``policy``, see openspiel_game) in Rulebook;
    raises AssertionError at the first difference. OpenSpiel's player 0 acts first, so player 1
    deals; its returns are the score difference."""
    hand0, hand1, upcard, stock, decisions, returns = openspiel_game(seed, policy)
    state = build_state(game, {"players": 2, "start": "hand",
                               "setup": {"vars": {"dealer": 1},
                                         "zones": {"hand": {0: hand0, 1: hand1}, "discard": [upcard],
                                                   "deck": stock}}})
    advance(state)
    for seat, legal, chosen in decisions:
        assert state.current_players() == [seat], (seed, state.current_players(), seat)
        ours = {our_key(a.text): a.text for a in state.legal_actions(seat)}
        assert sorted(ours, key=str) == legal, (seed, seat, sorted(ours, key=str), legal)
        state.apply(ours[chosen], seat)
    assert state.is_terminal(), seed
    s = state.scores()
    assert [s[0] - s[1], s[1] - s[0]] == returns, (seed, s, returns)


def test_rulebook_replays_openspiel_gin_rummy_games():
    # random players: games 0..29 end at the wall, by a card thrown back twice or by a knock;
    # games 208 and 635 end with a knock at the wall (the last discard taken)
    game = load_game(SPEC, {"preset": "openspiel"})
    for seed in [*range(30), 208, 635]:
        replay(game, seed)


def test_rulebook_replays_openspiel_games_that_end_in_a_knock():
    # knocking players: 19 of games 0..39 end in a knock (lay-outs, lay-offs); 137 in an undercut,
    # 360 in a tie (no score under OpenSpiel's rules), 573 in gin
    game = load_game(SPEC, {"preset": "openspiel"})
    for seed in [*range(40), 137, 360, 573]:
        replay(game, seed, "knock")
