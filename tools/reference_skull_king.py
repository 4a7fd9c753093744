"""A hand-written Skull King random playout: the speed reference for tools/bench.py.

This is NOT part of Rulebook (no game lives in interpreter/); it exists only so the
benchmark can report how much the interpreter costs against plain Python doing the
same work: 10 rounds, random bids, random legal plays (Tigress as pirate or escape),
trick winners by the §6 precedence, classic §7 scoring with bonuses.
"""
from __future__ import annotations

import random

SUITS = ("green", "purple", "yellow", "black")
DECK = [("num", s, r) for s in SUITS for r in range(1, 15)] + [("escape", None, 0)] * 5 + \
    [("pirate", None, 0)] * 5 + [("tigress", None, 0), ("king", None, 0)] + [("mermaid", None, 0)] * 2


def _lead(trick):
    for kind, suit, _, _ in trick:
        if kind == "num":
            return suit
    return None


def _winner(trick):
    kinds = [t[0] for t in trick]
    if "mermaid" in kinds and "king" in kinds:
        return kinds.index("mermaid")
    for k in ("king", "pirate", "mermaid"):
        if k in kinds:
            return kinds.index(k)
    best = None
    lead = _lead(trick)
    for want in ("black", lead):
        for i, (kind, suit, rank, _) in enumerate(trick):
            if kind == "num" and suit == want and (best is None or rank > trick[best][2]):
                best = i
        if best is not None:
            return best
    return 0


def _bonus(trick, w):
    b = sum((20 if s == "black" else 10) for k, s, r, _ in trick if k == "num" and r == 14)
    kinds = [t[0] for t in trick]
    wk = kinds[w]
    if wk == "mermaid" and "king" in kinds:
        b += 50
    elif wk == "king":
        b += 30 * kinds.count("pirate")
    elif wk == "pirate":
        b += 20 * kinds.count("mermaid")
    return b


def play(n: int, seed: int) -> list:
    """One game of ``n`` players with random choices; returns the scores."""
    rng = random.Random(seed)
    scores = [0] * n
    for rnd in range(1, 11):
        deck = list(DECK)
        rng.shuffle(deck)
        dealt = min(rnd, len(deck) // n)
        dealer = (rnd - 1) % n
        hands = [[] for _ in range(n)]
        for _ in range(dealt):
            for i in range(n):
                hands[(dealer + 1 + i) % n].append(deck.pop())
        bids = [rng.randint(0, dealt) for _ in range(n)]
        tricks, bonus = [0] * n, [0] * n
        leader = (dealer + 1) % n
        for _ in range(dealt):
            trick = []
            for i in range(n):
                p = (leader + i) % n
                lead = _lead(trick)
                hand = hands[p]
                has = lead is not None and any(c[0] == "num" and c[1] == lead for c in hand)
                legal = [c for c in hand if c[0] != "num" or not has or c[1] == lead]
                card = rng.choice(legal)
                hand.remove(card)
                kind = card[0]
                if kind == "tigress":
                    kind = rng.choice(("pirate", "escape"))
                trick.append((kind, card[1], card[2], p))
            w = _winner(trick)
            leader = trick[w][3]
            tricks[leader] += 1
            bonus[leader] += _bonus(trick, w)
        for p in range(n):
            if bids[p] == 0:
                scores[p] += 10 * dealt if tricks[p] == 0 else -10 * dealt
            elif tricks[p] == bids[p]:
                scores[p] += 20 * bids[p] + bonus[p]
            else:
                scores[p] -= 10 * abs(tricks[p] - bids[p])
    return scores
