"""The instructions of a ``climb`` block: players take turns in order, each playing or
passing, until the climb ends (:class:`ClimbStart`, :class:`ClimbNext`, :class:`ClimbAfter`).
"""
from __future__ import annotations

from ..errors import RuleError
from .instr import Instr


# -- climbing turns: take turns until all the others pass --------------------------------------
def _climb_cursor(loc, key) -> dict:
    cur = loc.get(key)
    if type(cur) is not dict or not {"order", "turn", "last", "passed"} <= set(cur):
        raise RuleError("climb: its turn bookkeeping is missing or damaged (a saved State edited by hand?)")
    return cur


class ClimbStart(Instr):
    """Start of a ``climb`` block: evaluates the players' order (``players``, default every seat
    from 0) and who leads first (``lead``, default the first of them) and keeps them in the
    frame under ``key`` as ``{order, turn, last, passed}`` (replaced, never changed in place:
    clones share frames' values), plus ``spoken`` (the seats that have taken a turn) when
    ``all_speak`` is set. Binds ``last_name`` (the last player who played) to null."""

    __slots__ = ("key", "players", "lead", "last_name", "all_speak")
    kind = "climb"

    def __init__(self, key, players, lead, last_name, all_speak=False):
        self.key, self.players, self.lead, self.last_name = key, players, lead, last_name
        self.all_speak = all_speak

    def run(self, state, ctx, frame):
        n = state.num_players
        order = list(range(n)) if self.players is None else self.players(ctx)
        if not isinstance(order, list) or any(type(s) is not int or not 0 <= s < n for s in order) \
                or len(set(order)) != len(order):
            raise RuleError(f"climb: players must be a list of distinct seats, not {order!r:.80}")
        lead = order[0] if self.lead is None and order else self.lead(ctx) if self.lead is not None else None
        if order and lead not in order:
            raise RuleError(f"climb: the lead {lead!r} is not one of the players {order!r:.80}")
        frame[2][self.key] = {"order": list(order), "turn": lead, "last": None, "passed": []}
        if self.all_speak:
            frame[2][self.key]["spoken"] = []
        frame[2][self.last_name] = None
        frame[1] += 1


class ClimbNext(Instr):
    """The heart of a ``climb`` block, reached before every turn. In order:

    - the block ends (jumps to ``end``) when ``until`` holds, when fewer than two players are
      still in (``is_in`` of each seat, with the seat bound to ``as_name``; with ``all_speak``,
      only once each of them has taken a turn since the block started), or when every
      player still in has passed since the pile last cleared and nobody has played;
    - the pile clears (jumps to ``target``, the ``clear`` steps) when every player still in
      other than the last to play has passed since that play: ``last_name`` is bound to that
      player and ``as_name`` to the new leader (that player if still in, else the next player
      still in after them in the order);
    - else the next player still in, from the one whose turn it is, takes a turn: ``as_name``
      is bound to them and the turn's choice (the next instruction) asks them."""

    __slots__ = ("key", "as_name", "last_name", "is_in", "until", "choice_as", "target", "end")
    kind = "climb"

    def __init__(self, key, as_name, last_name, is_in, until, choice_as):
        self.key, self.as_name, self.last_name = key, as_name, last_name
        self.is_in, self.until, self.choice_as = is_in, until, choice_as
        self.target = self.end = None

    def inside(self, ctx, loc, order) -> list:
        """The seats of ``order`` still in (all of them without ``in``)."""
        if self.is_in is None:
            return list(order)
        had = self.as_name in loc
        old = loc.get(self.as_name)
        out = []
        try:
            for s in order:
                loc[self.as_name] = s
                if self.is_in(ctx):
                    out.append(s)
        finally:
            if had:
                loc[self.as_name] = old
            else:
                loc.pop(self.as_name, None)
        return out

    def run(self, state, ctx, frame):
        loc = frame[2]
        cur = _climb_cursor(loc, self.key)
        order, last, passed = cur["order"], cur["last"], cur["passed"]
        inside = self.inside(ctx, loc, order)
        loc[self.last_name] = last
        few = len(inside) < 2 and not ("spoken" in cur and any(s not in cur["spoken"] for s in inside))
        if few or (self.until is not None and self.until(ctx)):
            self.finish(loc, frame)
            return
        if all(s in passed for s in inside if s != last):
            if last is None:  # everybody still in passed and nobody played: over
                self.finish(loc, frame)
                return
            if last in inside:
                leader = last
            else:  # the last to play went out: the next player still in after them leads
                i = order.index(last)
                leader = next(order[(i + k) % len(order)] for k in range(1, len(order) + 1)
                              if order[(i + k) % len(order)] in inside)
            loc[self.key] = {**cur, "turn": leader, "last": None, "passed": []}
            loc[self.as_name] = leader
            frame[1] = self.target
            return
        i = order.index(cur["turn"])
        seat = next(order[(i + k) % len(order)] for k in range(len(order)) if order[(i + k) % len(order)] in inside)
        if seat != cur["turn"]:
            loc[self.key] = {**cur, "turn": seat}
        loc[self.as_name] = seat
        loc.pop(self.choice_as, None)
        frame[1] += 1

    def finish(self, loc, frame):
        loc.pop(self.key, None)
        frame[1] = self.end


class ClimbAfter(Instr):
    """After a turn of a ``climb`` block: a turn whose choice is null (the optional action: a
    pass) adds the player to those who passed since the last play; any other choice makes
    them the last to play and forgets the passes; either way the player has spoken (kept only
    with ``all_speak``). The turn moves to the next seat in the
    order, and control goes back to :class:`ClimbNext` (``target``)."""

    __slots__ = ("key", "as_name", "choice_as", "target")
    kind = "climb"

    def __init__(self, key, as_name, choice_as, target):
        self.key, self.as_name, self.choice_as, self.target = key, as_name, choice_as, target

    def run(self, state, ctx, frame):
        loc = frame[2]
        cur = _climb_cursor(loc, self.key)
        order = cur["order"]
        seat = loc.get(self.as_name)
        if seat not in order:
            raise RuleError(f"climb: {seat!r} took a turn but is not one of the players")
        if loc.get(self.choice_as) is None:
            last, passed = cur["last"], cur["passed"] + [seat]
        else:
            last, passed = seat, []
        turn = order[(order.index(seat) + 1) % len(order)]
        new = {"order": order, "turn": turn, "last": last, "passed": passed}
        if "spoken" in cur:
            new["spoken"] = cur["spoken"] + ([seat] if seat not in cur["spoken"] else [])
        loc[self.key] = new
        frame[1] = self.target
