"""Determinisations of hidden cards dealt by several shuffles, in the kernel's search
(:mod:`interpreter.fast.search`).

The search deals the cards its seat cannot see (``U``) again at random and replays the game with
every shuffle from ``K0`` on relabelled (:func:`interpreter.fast.search.prepare`): ``K0`` is the
last shuffle that held every card of ``U`` (the current deal). A game where each player shuffles
their own cards (each seat its own deck, as in games where everybody plays at once) has no such
shuffle: each hidden card's deal is the last shuffle that held it, one per player.
:func:`prepare_deal` then groups the hidden cards by that shuffle (``SLOTS[m, 3]``, the slots
sorted by group) and starts the relabelling at the earliest of them; :func:`sample_world` deals each group's
cards again among that group's places only (a card stays in the deal it was shuffled in), so every
relabelled shuffle holds the cards it held. Without a group (a card of ``U`` that no recorded
shuffle held) the seat is not searched in the kernel, as before.

Limits: the groups are taken as known to the seat. That holds when the rules say which cards each
shuffled zone holds (each player's own cards; a public pile turned over), not when a shuffled zone
received cards in secret. The exclusions a rejected sample teaches (``EXCL``, a player who showed
lacking a card) are not used in a deal by groups (rejection alone keeps the samples consistent).
"""
from __future__ import annotations

from numba import njit

from .lowtypes import SEARCH_SHUFFLE
from .search import CUR, EV, K0, MODE, NEV, NREC, NSKIP, NSNAP, NU, prepare, rand_below, sample

GROUPED = 37  # SI: 1 when the hidden cards are dealt by groups (a free slot of the search's scalars)


@njit(cache=True)
def prepare_deal(Z, ZN, LOC, GV, PV, SI, REC, EVK, EVO, INU, VIS, PINV, SLOTS, POOL, EXCL, TI, SF, VAL, NP, SNAP, SAW):
    """:func:`~interpreter.fast.search.prepare`, and when no one shuffle dealt every hidden card,
    the deal by groups (see the module doc). False: the seat cannot be searched this way."""
    SI[GROUPED] = 0
    if prepare(Z, ZN, LOC, GV, PV, SI, REC, EVK, EVO, INU, VIS, PINV, SLOTS, POOL, EXCL, TI, SF, VAL, NP, SNAP, SAW):
        return True
    nu = SI[NU]
    k0 = SI[NEV]
    for m in range(nu):
        x = SLOTS[m, 2]
        g = -1
        ev = SI[NEV] - 1
        while ev >= 0 and g < 0:  # the last shuffle that held x
            if EVK[ev, 0] == SEARCH_SHUFFLE:
                for i in range(EVK[ev, 2]):
                    if EVO[ev, i] == x:
                        g = ev
                        break
            ev -= 1
        if g < 0:
            return False
        SLOTS[m, 3] = g
        if g < k0:
            k0 = g
    for m in range(1, nu):  # the slots by group (insertion sort, stable: place order within a group)
        r, i, x, g = SLOTS[m, 0], SLOTS[m, 1], SLOTS[m, 2], SLOTS[m, 3]
        j = m - 1
        while j >= 0 and SLOTS[j, 3] > g:
            SLOTS[j + 1, :] = SLOTS[j, :]
            j -= 1
        SLOTS[j + 1, 0], SLOTS[j + 1, 1], SLOTS[j + 1, 2], SLOTS[j + 1, 3] = r, i, x, g
    SI[K0] = k0
    at = Z.size + ZN.size + GV.size + PV.size + 3 * LOC.shape[0]  # (the phases replayed: as prepare, from K0)
    SI[NSKIP] = 0
    while SI[NSKIP] < SI[NSNAP] and SNAP[SI[NSKIP], at + 2] <= SI[K0] and SNAP[SI[NSKIP], at + 1] <= SI[NREC]:
        SI[NSKIP] += 1
    SI[GROUPED] = 1
    return True


@njit(cache=True)
def sample_world(SI, SIG, INU, SLOTS, POOL, EXCL, ORD, USED):
    """A determinisation: :func:`~interpreter.fast.search.sample`'s, or by groups (each group's
    cards dealt again at random among its places: ``SIG`` maps the card at each place to the one
    dealt there)."""
    if SI[GROUPED] == 0:
        sample(SI, SIG, INU, SLOTS, POOL, EXCL, ORD, USED)
        return
    nu = SI[NU]
    for x in range(SIG.shape[0]):
        SIG[x] = x
    a = 0
    while a < nu:
        b = a
        while b < nu and SLOTS[b, 3] == SLOTS[a, 3]:
            POOL[b] = SLOTS[b, 2]
            b += 1
        for i in range(b - 1, a, -1):
            j = a + rand_below(SI, i - a + 1)
            t = POOL[i]
            POOL[i] = POOL[j]
            POOL[j] = t
        for m in range(a, b):
            SIG[SLOTS[m, 2]] = POOL[m]
        a = b


@njit(cache=True)
def mark_seen(ask, Z, ZN, SI, VIS, SAW):
    """The record pass's note of what the seat saw, at each yield ``ask`` it answers: ``SAW[card]``
    for every card in a row the seat sees (``VIS``: a public zone, its own hand), so that a card seen
    face up (a pile's first card turned from the stock, a discard pile taken into a hand) is not
    dealt again at random when it is hidden at the root (:func:`~interpreter.fast.search.prepare`
    pins it where it is). A shuffle of a row the seat does not see forgets the cards in it (where
    they went is not known). Cleared at the game's first yield. Nothing outside the record pass."""
    if SI[MODE] != 0:
        return
    if SI[CUR] == 0 and SI[EV] == 0:
        SAW[:] = False
    for r in range(VIS.shape[0]):
        if VIS[r]:
            for i in range(ZN[r]):
                SAW[Z[r, i]] = True
    if (ask & 0xFFFF) == SEARCH_SHUFFLE:
        r = (ask >> 16) & 0xFFFFF
        if r < VIS.shape[0] and not VIS[r]:
            for i in range(ZN[r]):
                SAW[Z[r, i]] = False
