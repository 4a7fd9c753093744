"""A hand-lowered numba Skull King: the speed reference a kernel compiler should approach.

This is NOT part of Rulebook (no game lives in interpreter/); tools/bench.py runs it beside the
kernel (``simulate --fast``) of specs/skull_king.yaml with its default options, to say what the
generic lowering costs against numba code written by hand for this one game. It plays the rules of
the spec with default options (the digest shared/rules/skull_king.md): 10 rounds of
``min(round, 70 // players)`` cards, random bids, random legal plays, the first numbered card sets
the suit to follow, trick winners by §6, classic §7 scoring with bonuses (Mermaid over Skull King
50). 3 to 8 players (2 players add Graybeard's ghost hand: not written here).

Random draws, two ways (``exact``):

- ``exact=True`` (the default): the very numbers the kernel and the step API draw: seat ``p``'s
  random bot is ``random.Random(seed * 1_000_003 + p)`` picking with ``choice`` among the legal
  actions as the step API lists them (the hand in card-table order, identical cards once, the
  Tigress twice: as pirate, then as escape), and round ``r``'s shuffle is ``random.Random(
  f"{seed}/{r - 1}")``'s. The generators are seeded and drawn with the kernel's own functions
  (``interpreter.fast.runtime.prepare_batch``, ``randbelow_row``, ``shuffle_row``: CPython's
  Mersenne Twister, seeded side by side), so the two play **the same games**, seed by seed
  (:func:`check_same_games` compares every game's scores and length), and what the ratio measures
  is the lowering of the rules, not the generator;
- ``exact=False``: one xorshift64* generator per game (Lemire's multiply-shift ``below``, Fisher-Yates
  shuffles) in place of the Mersenne Twister: not the same games (the same rules: compare score
  distributions), to say how much of a game's time the exact generators take.

``play(seed, num_players, n_games, exact)`` returns ``(scores int64[n, players], lengths int64[n])``
for games ``seed .. seed + n - 1``; the first call compiles (numba's ``cache=True``: later processes
load the machine code).

    python tools/reference_skull_king_numba.py [--games N] [--players P] [--check N]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit, uint64

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interpreter.fast.rng import STATE_SIZE  # noqa: E402
from interpreter.fast.runtime import prepare_batch, randbelow_row, shuffle_row  # noqa: E402

# The 70 cards in the spec's card-table order (the order `gather` leaves the deck in before each
# shuffle): 4 suits x 14 ranks, 5 Escapes, 5 Pirates, the Tigress, the Skull King, 2 Mermaids.
NUMBERED, ESCAPE, PIRATE, TIGRESS, KING, MERMAID = range(6)
BLACK = 3  # suits: green, purple, yellow, black (trump)
NCARDS = 70
KIND = np.array([NUMBERED] * 56 + [ESCAPE] * 5 + [PIRATE] * 5 + [TIGRESS, KING, MERMAID, MERMAID], dtype=np.int64)
SUIT = np.array([s for s in range(4) for _ in range(14)] + [-1] * 14, dtype=np.int64)
RANK = np.array([r for _ in range(4) for r in range(1, 15)] + [0] * 14, dtype=np.int64)
# identical cards (the step API lists them once): the same class
CLASS = np.array(list(range(56)) + [56] * 5 + [61] * 5 + [66, 67, 68, 68], dtype=np.int64)
DRAWS = 10      # random draws of a game: one shuffle per round
BATCH = 128     # generators seeded side by side (as the kernel's driver)
MAX_PLAYERS = 8


@njit(cache=True, boundscheck=False)
def _xorshift(S, g):
    """The next 64-bit output of xorshift64* generator ``S[g]``."""
    x = S[g]
    x ^= x >> uint64(12)
    x ^= x << uint64(25)
    x ^= x >> uint64(27)
    S[g] = x
    return x * uint64(0x2545F4914F6CDD1D)


@njit(cache=True, boundscheck=False)
def _below(exact, RG, row, S, n):
    """A number in ``0 .. n - 1``: CPython's ``_randbelow`` of generator row ``row`` (``exact``),
    else from the game's xorshift generator."""
    if exact:
        return randbelow_row(RG, row, n)
    return np.int64((_xorshift(S, 0) >> uint64(32)) * uint64(n) >> uint64(32))


@njit(cache=True, boundscheck=False)
def _game(exact, RG, base, S, NP, KIND, SUIT, RANK, CLASS, deck, hand, hn, trick, tkind, score):
    """One game; generators: bots in rows ``base + p``, round r's shuffle in ``base + NP + r - 1``
    (``exact``), else ``S``. Final scores into ``score[:NP]``; returns the number of actions."""
    actions = 0
    opt_card = np.empty(32, np.int64)
    opt_kind = np.empty(32, np.int64)
    bid = np.empty(MAX_PLAYERS, np.int64)
    tricks = np.empty(MAX_PLAYERS, np.int64)
    bonus = np.empty(MAX_PLAYERS, np.int64)
    tseat = np.empty(MAX_PLAYERS, np.int64)
    for p in range(NP):
        score[p] = 0
    for rnd in range(1, 11):
        dealer = (rnd - 1) % NP
        for c in range(NCARDS):  # gather, in card-table order
            deck[0, c] = c
        if exact:
            shuffle_row(RG, base + NP + rnd - 1, deck, 0, NCARDS)
        else:
            for i in range(NCARDS - 1, 0, -1):
                j = _below(False, RG, 0, S, i + 1)
                deck[0, i], deck[0, j] = deck[0, j], deck[0, i]
        dealt = min(rnd, NCARDS // NP)
        top = NCARDS
        for p in range(NP):
            hn[p] = 0
            tricks[p] = 0
            bonus[p] = 0
        start = (dealer + 1) % NP
        for _ in range(dealt):  # one card at a time from the top, clockwise from the dealer's left
            for i in range(NP):
                p = (start + i) % NP
                top -= 1
                hand[p, hn[p]] = deck[0, top]
                hn[p] += 1
        for p in range(NP):  # hands kept in card-table order (the order the step API lists them)
            for k in range(1, hn[p]):
                x = hand[p, k]
                j = k
                while j > 0 and hand[p, j - 1] > x:
                    hand[p, j] = hand[p, j - 1]
                    j -= 1
                hand[p, j] = x
        for p in range(NP):  # simultaneous bids: each seat its own generator
            bid[p] = _below(exact, RG, base + p, S, dealt + 1)
            actions += 1
        leader = start
        for _ in range(dealt):
            lead = -1
            for i in range(NP):
                p = (leader + i) % NP
                follow = False
                if lead >= 0:
                    for k in range(hn[p]):
                        c = hand[p, k]
                        if KIND[c] == NUMBERED and SUIT[c] == lead:
                            follow = True
                            break
                n = 0
                last = -1
                for k in range(hn[p]):
                    c = hand[p, k]
                    if CLASS[c] == last:
                        continue
                    last = CLASS[c]
                    kd = KIND[c]
                    if kd == NUMBERED:
                        if follow and SUIT[c] != lead:
                            continue
                        opt_card[n] = k
                        opt_kind[n] = NUMBERED
                        n += 1
                    elif kd == TIGRESS:  # declared: pirate, then escape (the spec's mode order)
                        opt_card[n] = k
                        opt_kind[n] = PIRATE
                        opt_card[n + 1] = k
                        opt_kind[n + 1] = ESCAPE
                        n += 2
                    else:
                        opt_card[n] = k
                        opt_kind[n] = kd
                        n += 1
                pick = _below(exact, RG, base + p, S, n)
                actions += 1
                k = opt_card[pick]
                c = hand[p, k]
                for j in range(k, hn[p] - 1):
                    hand[p, j] = hand[p, j + 1]
                hn[p] -= 1
                trick[i] = c
                tkind[i] = opt_kind[pick]
                tseat[i] = p
                if lead < 0 and tkind[i] == NUMBERED:
                    lead = SUIT[c]
            # §6: the winning card
            first_mermaid = first_king = first_pirate = best_black = best_lead = -1
            mermaids = pirates = 0
            for i in range(NP):
                kd = tkind[i]
                if kd == MERMAID:
                    mermaids += 1
                    if first_mermaid < 0:
                        first_mermaid = i
                elif kd == KING:
                    if first_king < 0:
                        first_king = i
                elif kd == PIRATE:
                    pirates += 1
                    if first_pirate < 0:
                        first_pirate = i
                elif kd == NUMBERED:
                    c = trick[i]
                    if SUIT[c] == BLACK:
                        if best_black < 0 or RANK[c] > RANK[trick[best_black]]:
                            best_black = i
                    if SUIT[c] == lead:
                        if best_lead < 0 or RANK[c] > RANK[trick[best_lead]]:
                            best_lead = i
            if first_mermaid >= 0 and first_king >= 0:
                w = first_mermaid
            elif first_king >= 0:
                w = first_king
            elif first_pirate >= 0:
                w = first_pirate
            elif first_mermaid >= 0:
                w = first_mermaid
            elif best_black >= 0:
                w = best_black
            elif best_lead >= 0:
                w = best_lead
            else:
                w = 0
            leader = tseat[w]
            tricks[leader] += 1
            b = 0  # §7 bonuses
            for i in range(NP):
                c = trick[i]
                if tkind[i] == NUMBERED and RANK[c] == 14:
                    b += 20 if SUIT[c] == BLACK else 10
            if tkind[w] == MERMAID and first_king >= 0:
                b += 50
            elif tkind[w] == KING:
                b += 30 * pirates
            elif tkind[w] == PIRATE:
                b += 20 * mermaids
            bonus[leader] += b
        for p in range(NP):  # §7 classic scoring; A4: a zero bid scores 10 x cards dealt
            if bid[p] > 0:
                if tricks[p] == bid[p]:
                    score[p] += 20 * bid[p] + bonus[p]
                else:
                    score[p] -= 10 * abs(tricks[p] - bid[p])
            elif tricks[p] == 0:
                score[p] += 10 * dealt + bonus[p]
            else:
                score[p] -= 10 * dealt
    return actions


@njit(cache=True, boundscheck=False)
def _run(first_seed, n_games, NP, exact, KIND, SUIT, RANK, CLASS, SCORES, LENGTHS, RG,
         KEYS, KL, GB, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH):
    deck = np.empty((1, NCARDS), np.int64)
    hand = np.empty((MAX_PLAYERS, 16), np.int64)
    hn = np.zeros(MAX_PLAYERS, np.int64)
    trick = np.empty(MAX_PLAYERS, np.int64)
    tkind = np.empty(MAX_PLAYERS, np.int64)
    S = np.empty(1, np.uint64)
    per = NP + DRAWS
    g = 0
    while g < n_games:
        nb = BATCH // per if exact else n_games - g
        if nb > n_games - g:
            nb = n_games - g
        if exact:
            prepare_batch(RG, first_seed + g, nb, NP, DRAWS, KEYS, KL, GB, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH)
        for j in range(nb):
            S[0] = uint64((first_seed + g + j) * 0x9E3779B97F4A7C15 + 1) | uint64(1)
            LENGTHS[g + j] = _game(exact, RG, j * per, S, NP, KIND, SUIT, RANK, CLASS, deck, hand, hn, trick, tkind,
                                   SCORES[g + j])
        g += nb


def play(seed: int, num_players: int, n_games: int, exact: bool = True) -> tuple:
    """``(scores int64[n_games, num_players], lengths int64[n_games])`` of the games of seeds
    ``seed .. seed + n_games - 1`` between random players (see the module's docstring for
    ``exact``). Raises ValueError for a player count outside 3..8."""
    if not 3 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"{num_players} players: this reference plays 3 to 8")
    scores = np.zeros((n_games, num_players), dtype=np.int64)
    lengths = np.zeros(n_games, dtype=np.int64)
    _run(np.int64(seed), np.int64(n_games), np.int64(num_players), exact, KIND, SUIT, RANK, CLASS, scores, lengths,
         np.zeros((BATCH + 1, STATE_SIZE), dtype=np.int64),
         np.zeros((BATCH, 48), dtype=np.int64), np.zeros(BATCH, dtype=np.int64),
         np.zeros((624, BATCH), dtype=np.uint32), np.zeros((48, BATCH), dtype=np.uint32),
         np.zeros(BATCH, dtype=np.int64), np.zeros((3, 50), dtype=np.int64),
         np.zeros(49, dtype=np.int64), np.zeros((BATCH, 64), dtype=np.uint8),
         np.zeros((2, BATCH), dtype=np.int64), np.zeros((24, BATCH), dtype=np.uint64))
    return scores, lengths


def check_same_games(n_games: int, num_players: int = 4, seed: int = 0) -> int:
    """How many of ``n_games`` games (seeds ``seed ..``) differ, in final scores or length, between
    this reference (``exact``) and the kernel of specs/skull_king.yaml (``simulate --fast``'s,
    default options), each game's scores and length compared."""
    from interpreter import load_game
    from interpreter.fast.kernel import kernel_for
    game = load_game(Path(__file__).resolve().parents[1] / "specs" / "skull_king.yaml")
    ks, kl, ke = kernel_for(game).run(num_players, seed, n_games)
    rs, rl = play(seed, num_players, n_games)
    return int(((ks != rs).any(axis=1) | (kl != rl) | (ke != 0)).sum())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--check", type=int, default=0, metavar="N",
                    help="also compare N games with the kernel of specs/skull_king.yaml, game by game")
    args = ap.parse_args()
    play(0, args.players, 2)
    play(0, args.players, 2, exact=False)
    for exact in (True, False):
        t = time.process_time()
        scores, lengths = play(0, args.players, args.games, exact)
        spent = time.process_time() - t
        print(f"{'exact' if exact else 'xorshift'}: {args.games / spent:,.0f} games per CPU second, "
              f"{spent / lengths.sum() * 1e6:.3f} µs per decision; mean score {scores.mean():.2f}")
    if args.check:
        print(f"same games as the kernel: {args.check - check_same_games(args.check, args.players)} of {args.check}")


if __name__ == "__main__":
    main()
