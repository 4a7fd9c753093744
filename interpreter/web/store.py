"""Where the web table keeps its games: any SQLAlchemy database (SQLite by default).

A game is stored as what replays it exactly: the spec's path and fingerprint, the options, the
player count and names, the seed, and its actions in order (``[seat, text]``). Each seat has a kind
(``human`` with a private link token, or ``bot`` with a bot kind such as ``random`` or
``ismcts:0.1s``). Every action is written (and committed) as soon as it is applied, so a server
restart loses nothing: the game is rebuilt by replaying its actions from its seed.

Tables: ``games``, ``seats``, ``actions`` (see :func:`tables`).
"""
from __future__ import annotations

import json
import secrets
import time

from ..errors import RulebookError


def tables(metadata):
    """The three tables on ``metadata`` (a ``sqlalchemy.MetaData``): ``(games, seats, actions)``."""
    from sqlalchemy import Boolean, Column, Float, Integer, String, Table, Text, UniqueConstraint
    games = Table(
        "games", metadata,
        Column("id", String(32), primary_key=True),
        Column("spec", Text, nullable=False),            # the spec's path, as the server was given it
        Column("fingerprint", String(128), nullable=False),
        Column("options", Text, nullable=False),         # JSON object, as given (name -> text)
        Column("num_players", Integer, nullable=False),
        Column("seed", String(64), nullable=False),      # text: a seed may be larger than 64 bits
        Column("player_names", Text, nullable=False),    # JSON list
        Column("spectator_token", String(64), nullable=False, unique=True),
        Column("admin_token", String(64), nullable=False, unique=True),
        Column("created", Float, nullable=False),
        Column("finished", Boolean, nullable=False, default=False),
        Column("scores", Text),                          # JSON list once finished
    )
    seats = Table(
        "seats", metadata,
        Column("game_id", String(32), primary_key=True),
        Column("seat", Integer, primary_key=True),
        Column("kind", String(16), nullable=False),      # human | bot
        Column("bot", String(64)),                       # KIND[:budget] for a bot
        Column("token", String(64), unique=True),        # the private link of a human seat
    )
    actions = Table(
        "actions", metadata,
        Column("game_id", String(32), primary_key=True),
        Column("n", Integer, primary_key=True),          # 0, 1, 2... the move number
        Column("seat", Integer, nullable=False),
        Column("text", Text, nullable=False),
        UniqueConstraint("game_id", "n"),
    )
    return games, seats, actions


def new_token() -> str:
    """An unguessable link token (128 random bits, URL-safe text)."""
    return secrets.token_urlsafe(16)


class Store:
    """The games of a server in the database at ``url`` (an SQLAlchemy URL, e.g.
    ``sqlite:///rulebook-games.db`` or ``postgresql://user@host/db``); the tables are created
    if missing. Raises :class:`RulebookError` for a URL SQLAlchemy cannot use."""

    def __init__(self, url: str):
        from sqlalchemy import MetaData, create_engine
        from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError
        try:
            kw = {"connect_args": {"check_same_thread": False}} if url.startswith("sqlite") else {}
            self.engine = create_engine(url, future=True, **kw)
            self.metadata = MetaData()
            self.games, self.seats, self.actions = tables(self.metadata)
            self.metadata.create_all(self.engine)
        except (ArgumentError, NoSuchModuleError, OperationalError, ImportError) as exc:
            raise RulebookError(f"--db {url!r}: cannot open this database ({exc.__class__.__name__}: "
                                f"{str(exc).splitlines()[0]})\n    hint: e.g. --db sqlite:///games.db "
                                "or --db postgresql://user@localhost/rulebook (with its driver installed)") from None

    def create(self, spec: str, fingerprint: str, options: dict, num_players: int, seed: int,
               player_names: list, seats: list) -> dict:
        """Store a new game; ``seats`` is one ``(kind, bot)`` pair per seat (``("human", None)``
        or ``("bot", "random")``). Returns ``{"id", "admin_token", "spectator_token", "tokens"}``
        (``tokens[seat]``: the human seat's link token, None for a bot)."""
        gid = secrets.token_hex(8)
        admin, spectator = new_token(), new_token()
        tokens = [new_token() if kind == "human" else None for kind, _ in seats]
        with self.engine.begin() as c:
            c.execute(self.games.insert().values(
                id=gid, spec=spec, fingerprint=fingerprint, options=json.dumps(options), num_players=num_players,
                seed=str(seed), player_names=json.dumps(player_names), spectator_token=spectator,
                admin_token=admin, created=time.time(), finished=False, scores=None))
            for seat, ((kind, bot), token) in enumerate(zip(seats, tokens)):
                c.execute(self.seats.insert().values(game_id=gid, seat=seat, kind=kind, bot=bot, token=token))
        return {"id": gid, "admin_token": admin, "spectator_token": spectator, "tokens": tokens}

    def game(self, gid: str) -> dict | None:
        """The stored game ``gid`` as a dict (options, player names and scores decoded; ``seed``
        an int; ``seats``: a list of ``{"seat", "kind", "bot", "token"}``; ``actions``: a list of
        ``[seat, text]``), or None."""
        from sqlalchemy import select
        with self.engine.connect() as c:
            row = c.execute(select(self.games).where(self.games.c.id == gid)).mappings().first()
            if row is None:
                return None
            out = dict(row)
            out["seats"] = [dict(r) for r in c.execute(
                select(self.seats).where(self.seats.c.game_id == gid).order_by(self.seats.c.seat)).mappings()]
            out["actions"] = [[r.seat, r.text] for r in c.execute(
                select(self.actions).where(self.actions.c.game_id == gid).order_by(self.actions.c.n))]
        out["options"] = json.loads(out["options"])
        out["player_names"] = json.loads(out["player_names"])
        out["scores"] = json.loads(out["scores"]) if out["scores"] else None
        out["seed"] = int(out["seed"])
        return out

    def find_token(self, token: str):
        """``(game id, seat)`` for a seat's link token, ``(game id, None)`` for a spectator's,
        ``(game id, "admin")`` for the creator's page, or None for a token nobody was given."""
        from sqlalchemy import select
        if not isinstance(token, str) or not 8 <= len(token) <= 64:
            return None
        with self.engine.connect() as c:
            r = c.execute(select(self.seats.c.game_id, self.seats.c.seat).where(self.seats.c.token == token)).first()
            if r is not None:
                return r.game_id, r.seat
            r = c.execute(select(self.games.c.id).where(self.games.c.spectator_token == token)).first()
            if r is not None:
                return r.id, None
            r = c.execute(select(self.games.c.id).where(self.games.c.admin_token == token)).first()
            if r is not None:
                return r.id, "admin"
        return None

    def add_action(self, gid: str, n: int, seat: int, text: str) -> None:
        """Record action number ``n`` (0-based) of game ``gid``; committed at once."""
        with self.engine.begin() as c:
            c.execute(self.actions.insert().values(game_id=gid, n=n, seat=seat, text=text))

    def finish(self, gid: str, scores: list) -> None:
        """Mark game ``gid`` finished with its final ``scores``."""
        with self.engine.begin() as c:
            c.execute(self.games.update().where(self.games.c.id == gid).values(finished=True, scores=json.dumps(scores)))

    def list_games(self, limit: int = 50) -> list:
        """The newest games, public facts only: ``id``, ``spec``, ``num_players``, ``created``,
        ``finished``, ``moves`` and ``spectator_token`` (no seat link, no seed)."""
        from sqlalchemy import func, select
        g, a = self.games, self.actions
        moves = select(a.c.game_id, func.count().label("moves")).group_by(a.c.game_id).subquery()
        q = (select(g.c.id, g.c.spec, g.c.num_players, g.c.created, g.c.finished, g.c.spectator_token,
                    func.coalesce(moves.c.moves, 0).label("moves"))
             .select_from(g.outerjoin(moves, moves.c.game_id == g.c.id))
             .order_by(g.c.created.desc()).limit(limit))
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(q).mappings()]

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()
