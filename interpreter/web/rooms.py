"""Live games of the web table: one :class:`Room` per game, rebuilt from the database on demand.

A Room holds the game's State (replayed from its seed and stored actions), the bots of its bot
seats (:func:`interpreter.agents.registry.bots_for`, told of every action as in ``rulebook play``),
the engine events (for each viewer's log, filtered per seat) and the viewers listening for changes.
Every change goes through :meth:`Room.act`: checked (seat, move number, legality), applied,
written to the database, then announced. Bots move server-side on their own task, with a delay so
people can follow (longer in real-time phases, so that people have their chance too).
"""
from __future__ import annotations

import asyncio
import logging

from ..errors import IllegalAction, RulebookError
from .store import StoreUnavailable

log = logging.getLogger("rulebook.web")


class Refused(Exception):
    """A request the table refuses, with the message to show (``message``) and an HTTP status
    (``status``: 400 bad request, 403 not yours, 404 unknown, 409 illegal or stale)."""

    def __init__(self, message: str, status: int = 409):
        super().__init__(message)
        self.message, self.status = message, status


class Room:
    """One game being played: ``row`` (the stored game, see :meth:`Store.game
    <interpreter.web.store.Store.game>`), ``game`` (compiled), ``state``, ``events`` (engine
    events since the start, for the per-seat logs), ``agents`` (seat -> bot), ``listeners``
    (callbacks ``async f(room)`` called after each change). Build it with :meth:`load`."""

    def __init__(self, store, row, game, bot_delay: float, realtime_delay: float):
        self.store, self.row, self.game = store, row, game
        self.id = row["id"]
        self.bot_delay, self.realtime_delay = bot_delay, realtime_delay
        self.lock = asyncio.Lock()
        self.listeners = set()
        self.bot_task = None
        self.failure = None  # what stopped the bots, shown on every table
        self.stale = False  # holds a move the database could not record: rebuilt from it when next asked for
        self.kinds = {s["seat"]: s["bot"] for s in row["seats"] if s["kind"] == "bot"}
        from ..agents.registry import bots_for
        agents = bots_for(row["seed"], row["num_players"], self.kinds)
        self.agents = {p: agents[p] for p in self.kinds}
        for agent in self.agents.values():
            agent.reset()
        self.events = []
        self.state = game.new_state(row["num_players"], row["seed"], row["player_names"], events=self.events)
        self.decision_start = 0
        for i, (seat, text) in enumerate(row["actions"]):
            try:
                self._apply(seat, text)
            except IllegalAction as exc:
                raise RulebookError(f"game {self.id}: stored action {i} ({text!r} by seat {seat}) does not "
                                    f"replay: {exc.reason}") from None

    @classmethod
    def load(cls, store, gid: str, specs: dict, bot_delay: float = 0.5, realtime_delay: float = 2.0):
        """The Room of stored game ``gid``: its spec (one of ``specs``, path -> path as served) is
        loaded with the stored options, the fingerprint compared, and the actions replayed.
        Raises :class:`Refused` (404) for an unknown game, and (409) when the spec changed since."""
        from ..spec.loader import load_game
        row = store.game(gid)
        if row is None:
            raise Refused("there is no such game", 404)
        try:
            game = load_game(row["spec"], row["options"])
        except RulebookError as exc:
            raise Refused(f"this game's spec {row['spec']} cannot be loaded now: {exc}", 409) from None
        if game.fingerprint != row["fingerprint"]:
            raise Refused(f"the spec {row['spec']} has changed since this game was created, so its moves would "
                          "not replay the same game; serve the spec it was played with", 409)
        return cls(store, row, game, bot_delay, realtime_delay)

    # -- the rules -----------------------------------------------------------------------
    @property
    def move(self) -> int:
        """The move number: how many actions have been applied (a request carries the number it saw)."""
        return len(self.state.history)

    def _apply(self, seat: int, text: str) -> None:
        """Apply one action (bots told first), keep :attr:`decision_start` (the move at which the
        pending decision opened). Raises IllegalAction, leaving everything unchanged."""
        state = self.state
        before = state.pending
        action = text
        legal = state.legal_actions(seat) if state.pending is not None else []
        for a in legal[:2000] if isinstance(legal, list) else []:
            if a.text == text:
                action = a
                break
        if type(action) is str:
            # check first (a refused action must not reach the bots' memories)
            probe = state.clone()
            probe.events = None
            probe.apply(text, seat)
        for agent in dict.fromkeys(self.agents.values()):
            agent.notify(state, seat, action)
        state.apply(action, seat)
        if state.pending is not before:  # the decision closed (or a real-time action ran): a new one opens
            self.decision_start = len(state.history)

    def why_not(self, seat: int, text) -> str | None:
        """Why ``seat`` may not send action ``text`` now (the engine's reason), or None when it
        may: tried on a copy of the State, so nothing changes (a set choice asks this as cards are
        selected)."""
        if not isinstance(text, str) or not text.strip():
            return "send {\"action\": TEXT}"
        from .render import refusal
        return refusal(self.state, seat, text.strip())

    def check_move(self, seat: int, move) -> None:
        """Refuse (409) an action sent from an out-of-date table: ``move`` must be the current move
        number, or, while the same decision is still open and ``seat`` has not acted since, an
        older one of that decision (in a simultaneous choice, another player's secret choice does
        not make yours stale). In a real-time phase any action still legal is taken: first come,
        first served."""
        if isinstance(move, bool) or not isinstance(move, int):
            raise Refused("the request carries no move number (reload the page)", 400)
        now = self.move
        if move == now:
            return
        if move > now or move < 0:
            raise Refused(f"move {move} does not exist yet (the game is at move {now}); reload the page", 409)
        pending = self.state.pending
        if pending is not None and pending.get("realtime"):
            return
        since = self.state.history[move:]
        if move >= self.decision_start and all(s != seat for s, _ in since):
            return
        raise Refused(f"someone moved since your table was drawn (you saw move {move}, the game is at move "
                      f"{now}); the table has been refreshed — choose again", 409)

    async def act(self, seat: int, text, move) -> None:
        """Apply ``text`` for human ``seat`` if it is fresh (:meth:`check_move`) and legal; store it
        and tell the listeners. Raises :class:`Refused` with the reason, changing nothing (a move
        in which the rules fail, e.g. past the game's ``max_actions``, is not kept: the room is
        replayed from the database at the next request)."""
        if not isinstance(text, str) or not text.strip() or len(text) > 2000:
            raise Refused("send an action's text, e.g. the words on one of your buttons", 400)
        async with self.lock:
            if self.state.is_terminal():
                raise Refused("the game is over", 409)
            if seat in self.agents:
                raise Refused("this seat is played by a bot", 403)
            self.check_move(seat, move)
            try:
                self._apply(seat, " ".join(text.split()))
            except IllegalAction as exc:
                raise Refused(f"refused: {exc.reason}", 409) from None
            except RulebookError as exc:  # the rules failed in this move (the State may be half-changed)
                self.stale = True  # the move is not kept: the room is replayed from the database
                log.error("game %s: a move of seat %s failed: %s", self.id, seat, exc)
                raise Refused(f"this move cannot be played, the rules failed: {exc}", 409) from None
            self._store_last()
        await self.changed()

    def _store_last(self) -> None:
        """Write the last action to the database (and the scores when the game is over)."""
        n = len(self.state.history) - 1
        seat, text = self.state.history[n]
        try:
            self.store.add_action(self.id, n, seat, text)
            if self.state.is_terminal():
                self.store.finish(self.id, self.state.scores())
        except StoreUnavailable:
            self.stale = True  # the move is not kept, so it was not played: the room is replayed from the database
            raise

    async def changed(self) -> None:
        """Tell every listener, then let the bots move if it is their turn."""
        await self._tell()
        self.wake_bots()

    # -- bots ----------------------------------------------------------------------------
    def bot_turn(self) -> list:
        """The bot seats that may act now."""
        if self.state.is_terminal():
            return []
        return [p for p in self.state.current_players() if p in self.agents]

    def wake_bots(self) -> None:
        """Start the bots' task if a bot may act and none is running."""
        if self.failure is None and self.bot_turn() and (self.bot_task is None or self.bot_task.done()):
            self.bot_task = asyncio.get_running_loop().create_task(self._bots())

    async def _bots(self) -> None:
        turn = 0
        while True:
            seats = self.bot_turn()
            if not seats:
                return
            realtime = bool((self.state.pending or {}).get("realtime"))
            await asyncio.sleep(self.realtime_delay if realtime else self.bot_delay)
            async with self.lock:
                seats = self.bot_turn()
                if not seats:
                    return
                seat = seats[turn % len(seats)]  # in real time the bots take turns among themselves
                turn += 1
                agent = self.agents[seat]
                try:
                    if hasattr(agent, "dets"):  # a search bot thinks in a thread, on a copy
                        action = await asyncio.to_thread(agent.act, self.state.clone(), seat)
                    else:
                        action = agent.act(self.state, seat)
                    self._apply(seat, action.text)
                    self._store_last()
                except RulebookError as exc:  # a bot's (or the database's) failure stops the bots, not the server
                    log.error("game %s: the bot of seat %s failed: %s", self.id, seat, exc)
                    self.failure = f"the bot of {self.state.player_name(seat)} failed: {exc}"
                    await self._tell()
                    return
            await self._tell()

    async def _tell(self) -> None:
        """Call every listener (a closed connection is dropped)."""
        for listener in list(self.listeners):
            try:
                await listener(self)
            except Exception:  # noqa: BLE001 - a closed connection must not stop the game
                self.listeners.discard(listener)


class Rooms:
    """The open Rooms of a server, loaded from ``store`` when first asked for."""

    def __init__(self, store, bot_delay: float = 0.5, realtime_delay: float = 2.0):
        self.store, self.bot_delay, self.realtime_delay = store, bot_delay, realtime_delay
        self.rooms = {}

    def get(self, gid: str) -> Room:
        """The Room of game ``gid`` (replayed from the database the first time). Raises Refused."""
        room = self.rooms.get(gid)
        if room is None or room.stale:
            try:
                room = Room.load(self.store, gid, {}, self.bot_delay, self.realtime_delay)
            except Refused:
                raise
            except RulebookError as exc:  # a stored game that no longer replays: say so, keep serving
                raise Refused(f"this game cannot be opened: {exc}", 409) from None
            self.rooms[gid] = room
        return room
