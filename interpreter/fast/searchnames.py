"""Identical cards in the kernel's search (:mod:`interpreter.fast.search`): a recorded action is
forced by its card's *name*.

The step API and the kernel list identical cards (the same name) as one option: the first such card
in card-table order that the rules allow (``play NAME``, ``pick NAME``). The record pass writes down
the card that option held in the real game; in a sampled world the same player may hold another copy
of that name earlier in card-table order (a hidden copy dealt to them), and the option then holds
that copy. Forcing by card id rejected such worlds (in a rummy game with copies of each card most of them: many decisions
after a few picks of a name fell back to the State API's search); forcing by name accepts them, as
the State API's search, which forces actions by their text, does. A world that cannot play the name
at all is still rejected.

A rejected sample teaches, at a card choice, that the cards of ``U`` the player could have played
are not in their zone (:func:`~interpreter.fast.search._reject`): true where holding more cards only
removes options (following suit), false at a set choice, where a pick is offered only when a whole
set can still be made (holding more cards adds options). There a rejection teaches nothing
(:func:`learns`): before, the exclusions drove the cards that make a set out of the hand that had
shown one, and every later sample was rejected.

The card ids the search keeps elsewhere (pinned cards, the tree's options) are unchanged: two copies
of a name may then sit in different places in two worlds, which changes no rule (the rules read a
card's name and attributes, and identical cards share them).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from .multichoice import CONFIRM, PICK, UNDO


def card_classes(game) -> np.ndarray:
    """``CLS[card id]``: the id of the first card of ``game`` (card-table order) with that card's name
    (int64, one per card)."""
    first: dict = {}
    return np.array([first.setdefault(c.name, i) for i, c in enumerate(game.cards)] or [0], dtype=np.int64)


@njit(cache=True)
def same_card(CLS, a, b, cards):
    """Whether option value ``a`` is recorded value ``b``: equal, or (``cards`` nonzero: the values are
    card ids) two cards of the same name."""
    if a == b:
        return True
    return cards != 0 and 0 <= a < CLS.shape[0] and 0 <= b < CLS.shape[0] and CLS[a] == CLS[b]


@njit(cache=True)
def learns(cards, usemode, mode):
    """The ``cards`` flag :func:`~interpreter.fast.search._reject` gets for a recorded option of mode
    ``mode``: 0 (no exclusion learnt) for a set choice's pick, set or undo, else ``cards``."""
    if usemode and (mode == PICK or mode == UNDO or mode == CONFIRM):
        return 0
    return cards
