"""Zones per team (``zones: {NAME: {per_team: true}}``) in the typed kernel (:mod:`interpreter.fast.typepass`).

The step API keeps a zone per team as a per-player zone whose cards sit in the slot of the team's
first seat (:meth:`interpreter.engine.game.Game.zone_seat`: the lowest seat whose team, by
``teams: {of: EXPR}``, is the seat's); every member of the team reads and writes that slot, and
the other members' slots stay empty. The kernel keeps the same layout (one row, or for a zone of
sets one block of rows, per seat: :mod:`interpreter.fast.setzones`), so ``holder()``, the search's
deals and the State's zones read the same rows; only the seat that names the zone
(``p.ZONE``, ``2.ZONE``, ``side(p).ZONE``) is mapped to the team's first seat, here.

Every line comes from the fixed template below, whose holes are generated names and the code of
the ``teams: of:`` expression (:meth:`~interpreter.fast.teams.TeamsAndIndexing.team_code`).
"""
from __future__ import annotations


def is_team_zone(low, name: str) -> bool:
    """Whether zone ``name`` of ``low``'s game is a zone per team (``per_team: true``)."""
    zd = low.game.zones.get(name)
    return zd is not None and bool(getattr(zd, "team", False))


def seat(low, name: str, seat_code: str, env) -> str:
    """The code of the seat whose slot of per-player zone ``name`` the seat ``seat_code`` reads and
    writes: ``seat_code`` itself, or for a zone per team the first seat of that seat's team (a
    generated helper: the seat's team, then the first seat from 0 with the same team)."""
    if not is_team_zone(low, name):
        return seat_code
    s, ts, q, out = low.fresh("t"), low.fresh("t"), low.fresh("i"), low.fresh("t")
    lines = [f"{s} = {seat_code}", f"{ts} = {low.team_code(s)}", f"{out} = {s}",
             f"for {q} in range(NP):", f"    if {low.team_code(q)} == {ts}:", f"        {out} = {q}",
             "        break"]
    return low.helper(env, lines, out)
