"""Schedulers: who acts next when several players may act at once.

In a real-time block (``realtime:`` in a spec) every player with a legal action is a
current player, and the first to act gets the spot. Who is first is not part of the
rules, so it is decided here, outside the State:

- ``round-robin`` (the default, deterministic): the next seat after the last one that acted,
  clockwise, among those who can act;
- ``random``: any of them, uniformly, from the scheduler's own generator;
- reaction times (``speeds``): each seat acts after a delay drawn from an exponential
  distribution of mean ``1 / speed`` (its own generator), the earliest goes first; a
  seat of speed 2.0 acts on average twice as often as a seat of speed 1.0.

A scheduler never touches the State's random generator: the history (who acted, in
order) replays the game exactly without it. Outside real-time blocks (turns and
simultaneous secret choices) the order cannot change the outcome and every scheduler
takes the lowest current seat first, as the plain play loop always did.
"""
from __future__ import annotations

import random

SCHEDULES = ("round-robin", "random")


class Scheduler:
    """Picks who acts next among ``state.current_players()``.

    ``kind`` is ``"round-robin"`` or ``"random"``; ``seed`` (int) seeds its generator
    (never the State's); ``speeds`` (dict seat -> float > 0, default 1.0 for unlisted seats)
    turns on reaction times. Raises ValueError for an unknown kind or a speed <= 0.
    Use :meth:`next_player`, then :meth:`acted` once that player has acted (or let the
    moment pass, e.g. a human who waits)."""

    def __init__(self, kind: str = "round-robin", seed: int = 0, speeds: dict | None = None):
        if kind not in SCHEDULES:
            raise ValueError(f"unknown schedule {kind!r}: one of {', '.join(SCHEDULES)}")
        for seat, speed in (speeds or {}).items():
            if not isinstance(speed, (int, float)) or isinstance(speed, bool) or not speed > 0:
                raise ValueError(f"the speed of seat {seat} must be a number above 0, not {speed!r}")
        self.kind = kind
        self.speeds = dict(speeds or {})
        self.rng = random.Random(f"schedule/{seed}")
        self.last = -1  # the seat that acted last in a real-time block
        self.now = 0.0  # reaction-time clock
        self.ready: dict = {}  # seat -> the moment it acts next

    def _delay(self, seat: int) -> float:
        return self.rng.expovariate(self.speeds.get(seat, 1.0))

    def next_player(self, state) -> int | None:
        """The seat to act now (None when nobody can act)."""
        current = state.current_players()
        if not current:
            return None
        # (a FastState has no real-time steps, nor a `pending`)
        if len(current) == 1 or not (getattr(state, "pending", None) or {}).get("realtime"):
            return current[0]
        if self.speeds:
            for p in current:
                if p not in self.ready:
                    self.ready[p] = self.now + self._delay(p)
            n = state.num_players
            # earliest first; a tie goes to the next seat clockwise after the last one
            return min(current, key=lambda p: (max(self.ready[p], self.now), (p - self.last - 1) % n))
        if self.kind == "random":
            return self.rng.choice(current)
        n = state.num_players
        return min(current, key=lambda p: (p - self.last - 1) % n)

    def acted(self, seat: int) -> None:
        """Note that ``seat`` acted (or let its moment pass) in a real-time block."""
        self.last = seat
        if self.speeds:
            self.now = max(self.now, self.ready.get(seat, self.now))
            self.ready[seat] = self.now + self._delay(seat)


def round_robin_seat(state) -> int | None:
    """The seat the ``round-robin`` schedule gives the move to now, read from the State alone (the
    last seat that acted is the history's last player move), for callers that keep no
    :class:`Scheduler`: the lowest current seat outside real-time blocks, else the next seat
    clockwise after the last one that acted among those who may act; None when nobody can act."""
    current = state.current_players()
    if not current:
        return None
    if len(current) == 1 or not (state.pending or {}).get("realtime"):
        return current[0]
    last = next((p for p, _ in reversed(state.history) if p >= 0), -1)
    n = state.num_players
    return min(current, key=lambda p: (p - last - 1) % n)


def parse_speeds(pairs) -> dict:
    """``["0=2.0", "3=0.5"]`` -> ``{0: 2.0, 3: 0.5}``; raises ValueError with the bad pair."""
    out = {}
    for pair in pairs or []:
        seat, sep, value = str(pair).partition("=")
        try:
            s, v = int(seat), float(value)
        except ValueError:
            raise ValueError(f"--speed takes SEAT=SPEED, e.g. --speed 0=2.0 (got {pair!r})") from None
        if not sep or not v > 0 or v != v or v == float("inf"):
            raise ValueError(f"--speed takes SEAT=SPEED with a speed above 0, e.g. --speed 0=2.0 (got {pair!r})")
        out[s] = v
    return out
