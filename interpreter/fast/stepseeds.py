"""Draw generators seeded ahead for the kernel's step API, many games at once.

A game of seed ``s`` draws its ``k``-th shuffle or random pick from ``random.Random(f"{s}/{k}")``
(:mod:`interpreter.fast.rng`): seeding one costs ~1,250 dependent steps of MT19937's
``init_by_array`` plus a SHA-512, a few microseconds, and a short game (Oh Hell: three draws) spends
about a third of ``new_state(fast=True)`` there. The playout kernel seeds the draws of 128 games side
by side, one vector lane each (:func:`interpreter.fast.runtime.prepare_batch`); :class:`SeedsAhead`
does the same for the step API when games are started with seeds in sequence (``s``, ``s + 1``, ...:
the loop ``for seed in range(n)`` and the vectorised environment): from the second seed in
sequence it seeds the first draws of the next games (8, then twice as many each time, up to 64)
and a new state takes its rows. The number of draws seeded per game is learnt: the most draws a
game of this kernel has made (at most :data:`MOST`). A game drawing more, or a seed out of
sequence, seeds its draws one by one as before; the generators are the same either way (the
kernel's same-games tests compare both kernels with the State, draw by draw).
"""
from __future__ import annotations

import numpy as np

from .rng import STATE_SIZE

RI_FIRST_DRAW, RI_AHEAD, RI_DRAWS = 5, 6, 1  # RI: the first row of the draws seeded ahead, their number, draws made
MOST = 8     # draws of one game seeded ahead at most
GAMES = 64   # games seeded ahead at most in one batch
_SEEDS = 2 ** 62  # seeds seeded ahead: |seed| below this (their texts fit the batch's 64 bytes)


class SeedsAhead:
    """The draws seeded ahead for one step kernel: :meth:`rows` gives a game's RG array (its
    first ``e`` draws in rows ``0 .. e - 1``, the spare row last) or None."""

    __slots__ = ("draws", "last", "batch", "games")

    def __init__(self):
        self.draws = 0      # the most draws a finished game made (0: none finished yet)
        self.last = None    # the seed of the last game started
        # (rows, first seed, games, draws each) read and replaced as one tuple (threads see a whole
        # batch): game j's draw k in row j * each + k
        self.batch = (None, 0, 0, 0)
        self.games = 8      # games in the next batch (doubles up to GAMES)

    def learn(self, draws: int) -> None:
        """A game ended having made ``draws`` draws."""
        if draws > self.draws:
            self.draws = min(draws, MOST)

    def rows(self, seed: int):
        """``(RG int64[e + 1, STATE_SIZE], e)`` for a new game of ``seed`` with its first ``e``
        draws seeded, or None (its draws are then seeded as they come)."""
        last, self.last = self.last, seed
        rows, first, count, e = self.batch
        j = seed - first
        if rows is None or not 0 <= j < count:
            if last is None or seed != last + 1 or self.draws == 0 or not -_SEEDS < seed < _SEEDS - GAMES:
                return None
            rows, first, count, e = self.batch = self._seed(seed)
            j = 0
        rg = np.zeros((e + 1, STATE_SIZE), dtype=np.int64)
        rg[:e] = rows[j * e:(j + 1) * e]
        return rg, e

    def _seed(self, first: int) -> tuple:
        """Seed the first ``draws`` draws of games ``first .. first + games - 1`` side by side;
        returns the new batch tuple."""
        from .runtime import prepare_batch
        nb, e = self.games, self.draws
        self.games = min(2 * nb, GAMES)
        c = nb * e
        batch = np.zeros((c, STATE_SIZE), dtype=np.int64)
        prepare_batch(batch, np.int64(first), np.int64(nb), np.int64(0), np.int64(e),
                      np.zeros((c, 48), dtype=np.int64), np.zeros(c, dtype=np.int64),
                      np.zeros((624, c), dtype=np.uint32), np.zeros((48, c), dtype=np.uint32),
                      np.zeros(c, dtype=np.int64), np.zeros((3, 50), dtype=np.int64), np.zeros(49, dtype=np.int64),
                      np.zeros((c, 64), dtype=np.uint8), np.zeros((2, c), dtype=np.int64),
                      np.zeros((24, c), dtype=np.uint64))
        return batch, first, nb, e
