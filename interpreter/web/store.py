"""Where the web table keeps its games: any SQLAlchemy database (SQLite by default).

A game is stored as what replays it exactly: the spec's path and fingerprint, the options, the
player count and names, the seed, and its actions in order (``[seat, text]``). Each seat has a kind
(``human`` with a private link token, or ``bot`` with a bot kind such as ``random`` or
``ismcts:0.1s``). Every action is written (and committed) as soon as it is applied, so a server
restart loses nothing: the game is rebuilt by replaying its actions from its seed.

Tables: ``games``, ``seats``, ``actions`` (see :func:`tables`).
"""
from __future__ import annotations

import contextlib
import json
import logging
import secrets
import sqlite3
import time
from pathlib import Path

from ..errors import RulebookError

log = logging.getLogger("rulebook.web")


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


class StoreUnavailable(RulebookError):
    """The game database could not answer a request (a damaged page, a full disk, a lost server).
    The message says so in words; the database's own text (which may quote a seed or a link token
    as a query parameter) goes to the log without parameters, never to a page."""

    @property
    def message(self) -> str:
        """The text to show (as :class:`~interpreter.web.rooms.Refused` has it)."""
        return str(self)


# SQLite's first 16 bytes: a file without them is another kind of file, or a database whose first
# page was overwritten
SQLITE_HEADER = b"SQLite format 3\x00"
_COLUMNS = {"games": {"id", "spec", "fingerprint", "options", "num_players", "seed", "player_names",
                      "spectator_token", "admin_token", "created", "finished", "scores"},
            "seats": {"game_id", "seat", "kind", "bot", "token"},
            "actions": {"game_id", "n", "seat", "text"}}


def sqlite_file(url: str):
    """The file (a ``Path``) of an SQLite URL such as ``sqlite:///games.db``; None for another
    database, an in-memory one or a URL SQLAlchemy cannot parse."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError
    try:
        u = make_url(url)
    except ArgumentError:
        return None
    if u.get_backend_name() != "sqlite" or u.database in (None, "", ":memory:") or u.database.startswith("file:"):
        return None
    return Path(u.database)


def backups_in(directory) -> list:
    """The backups :meth:`Store.backup` wrote in ``directory``, oldest first (``Path`` list)."""
    d = Path(directory)
    return sorted(d.glob("*-backup-*.db")) if d.is_dir() else []


def _recovery_hint(file, url: str, backup_dir) -> str:
    newest = backups_in(backup_dir)[-1:] if backup_dir else []
    restore = (f"`cp {newest[0]} {file}`" if newest else
               f"`cp DIR/<newest>-backup-*.db {file}`, DIR being the folder given to rulebook serve --backup")
    # a write-ahead log left beside the damaged file would be replayed by SQLite into the restored copy
    restore = f"first delete {file}-wal and {file}-shm if they exist (the damaged file's write-ahead log), then {restore}"
    return (f"\n    hint: nothing was changed. To recover: restore the newest backup: {restore};\n    then add the "
            f"games played since from your last `rulebook games export`: `rulebook games import GAMES.json "
            f"--db {url}`;\n    or move {file} aside to start an empty database (the links of its games then stop "
            f"working)")


class Store:
    """The games of a server in the database at ``url`` (an SQLAlchemy URL, e.g.
    ``sqlite:///rulebook-games.db`` or ``postgresql://user@host/db``); the tables are created in a
    database that has none. An SQLite file is opened in WAL mode after an integrity check
    (``PRAGMA quick_check``); ``backup_dir``: where :meth:`backup` writes (its backups also tell
    that games are expected: a missing database file is then refused, not started anew).

    Raises :class:`RulebookError`, naming the file, what is wrong and what to do, for a URL
    SQLAlchemy cannot use, and (with ``check``, the default) for a file that is empty, not an SQLite
    database, damaged, or another program's database; nothing is written to such a file.
    ``check=False`` opens a damaged database as far as it reads (for ``rulebook games export``)."""

    def __init__(self, url: str, backup_dir=None, check: bool = True):
        from sqlalchemy import MetaData, create_engine, event, inspect
        from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError
        self.url, self.file, self.backup_dir = url, sqlite_file(url), backup_dir
        if check and self.file is not None:
            self._check_file()
        try:
            kw = {"connect_args": {"check_same_thread": False}} if url.startswith("sqlite") else {}
            # hide_parameters: an error's text would otherwise quote a new game's seed and tokens
            self.engine = create_engine(url, future=True, hide_parameters=True, **kw)
            if self.file is not None:
                event.listen(self.engine, "connect", _sqlite_pragmas)
            self.metadata = MetaData()
            self.games, self.seats, self.actions = tables(self.metadata)
            with self.engine.connect() as c:
                if check and self.file is not None:
                    self._check_integrity(c)
                present = set(inspect(c).get_table_names())
            if check:
                self._check_tables(present)
            if not present:
                self.metadata.create_all(self.engine)
            if self.file is not None:  # only once the file is known to be ours: WAL rewrites its header
                with self.engine.connect() as c:
                    c.exec_driver_sql("PRAGMA journal_mode = WAL")
        except DatabaseError as exc:  # the file reads as no database at all (also a locked or read-only one)
            raise RulebookError(self._where() + f"is damaged or unreadable: {_reason(exc)}"
                                + (_recovery_hint(self.file, url, backup_dir) if self.file else "")) from None
        except (ArgumentError, NoSuchModuleError, ImportError) as exc:
            raise RulebookError(f"--db {url!r}: cannot open this database ({exc.__class__.__name__}: "
                                f"{str(exc).splitlines()[0]})\n    hint: e.g. --db sqlite:///games.db "
                                "or --db postgresql://user@localhost/rulebook (with its driver installed)") from None

    def _where(self) -> str:
        return f"{self.file}: the game database " if self.file is not None else f"--db {self.url}: the game database "

    def _check_file(self) -> None:
        """Refuse an SQLite file that is empty, not SQLite, or missing while backups exist."""
        f = self.file
        if not f.exists():
            if self.backup_dir and backups_in(self.backup_dir):
                raise RulebookError(f"{f}: the game database is missing, but {self.backup_dir} holds backups of it, "
                                    "so games are expected" + _recovery_hint(f, self.url, self.backup_dir)
                                    + "\n    (to start an empty database anyway, give another --backup DIR)")
            return
        try:
            with open(f, "rb") as fh:
                head = fh.read(len(SQLITE_HEADER))
        except OSError as exc:
            raise RulebookError(f"{f}: cannot read the game database: {exc.strerror}") from None
        if not head:
            raise RulebookError(f"{f}: the game database is an empty file (0 bytes), so its games are gone; it "
                                "is not started anew" + _recovery_hint(f, self.url, self.backup_dir))
        if head != SQLITE_HEADER:
            raise RulebookError(f"{f}: this is not an SQLite database (its first bytes are not SQLite's header): "
                                "another kind of file, or a game database whose first page was overwritten"
                                + _recovery_hint(f, self.url, self.backup_dir))

    def _check_integrity(self, c) -> None:
        problems = _quick_check(c)
        if problems:
            raise RulebookError(f"{self.file}: the game database is damaged (SQLite's integrity check: "
                                + problems + ")" + _recovery_hint(self.file, self.url, self.backup_dir))

    def _check_tables(self, present: set) -> None:
        """Refuse a database holding tables other than Rulebook's, or Rulebook's incomplete."""
        if not present:
            return
        from sqlalchemy import inspect
        missing = [t for t in _COLUMNS if t not in present]
        if missing == list(_COLUMNS):
            raise RulebookError(self._where() + "holds another program's tables (" + ", ".join(sorted(present)[:8])
                                + "), not Rulebook's games; nothing was changed\n    hint: give --db a file of its own, "
                                "e.g. --db sqlite:///rulebook-games.db")
        if missing:
            raise RulebookError(self._where() + "lacks the table(s) " + ", ".join(missing) + " that hold its games"
                                + (_recovery_hint(self.file, self.url, self.backup_dir) if self.file else ""))
        insp = inspect(self.engine)
        for t, want in _COLUMNS.items():
            have = {col["name"] for col in insp.get_columns(t)}
            if not want <= have:
                raise RulebookError(self._where() + f"has a table {t} without the column(s) "
                                    + ", ".join(sorted(want - have)) + ": another program's table, or a damaged one"
                                    + (_recovery_hint(self.file, self.url, self.backup_dir) if self.file else ""))

    @contextlib.contextmanager
    def _db(self, what: str, write: bool = False):
        """A connection (a transaction when ``write``) whose database errors become
        :class:`StoreUnavailable`, logged without the query's parameters."""
        from sqlalchemy.exc import SQLAlchemyError
        try:
            with (self.engine.begin() if write else self.engine.connect()) as c:
                yield c
        except SQLAlchemyError as exc:
            log.error("the game database could not %s: %s", what, _reason(exc))
            raise StoreUnavailable(f"the game database could not {what} ({_reason(exc)}); nothing was changed. "
                                   "Try again in a moment; if it goes on, tell whoever runs this server") from None

    def create(self, spec: str, fingerprint: str, options: dict, num_players: int, seed: int,
               player_names: list, seats: list) -> dict:
        """Store a new game; ``seats`` is one ``(kind, bot)`` pair per seat (``("human", None)``
        or ``("bot", "random")``). Returns ``{"id", "admin_token", "spectator_token", "tokens"}``
        (``tokens[seat]``: the human seat's link token, None for a bot)."""
        gid = secrets.token_hex(8)
        admin, spectator = new_token(), new_token()
        tokens = [new_token() if kind == "human" else None for kind, _ in seats]
        with self._db("store the new game", write=True) as c:
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
        with self._db("read a game") as c:
            row = c.execute(select(self.games).where(self.games.c.id == gid)).mappings().first()
            if row is None:
                return None
            out = dict(row)
            out["seats"] = [dict(r) for r in c.execute(
                select(self.seats).where(self.seats.c.game_id == gid).order_by(self.seats.c.seat)).mappings()]
            out["actions"] = [[r.seat, r.text] for r in c.execute(
                select(self.actions).where(self.actions.c.game_id == gid).order_by(self.actions.c.n))]
        try:
            out["options"] = json.loads(out["options"])
            out["player_names"] = json.loads(out["player_names"])
            out["scores"] = json.loads(out["scores"]) if out["scores"] else None
            out["seed"] = int(out["seed"])
        except (TypeError, ValueError) as exc:
            raise StoreUnavailable(f"the game database holds game {gid} damaged ({exc.__class__.__name__}); "
                                   "it cannot be opened") from None
        return out

    def find_token(self, token: str):
        """``(game id, seat)`` for a seat's link token, ``(game id, None)`` for a spectator's,
        ``(game id, "admin")`` for the creator's page, or None for a token nobody was given."""
        from sqlalchemy import select
        if not isinstance(token, str) or not 8 <= len(token) <= 64:
            return None
        with self._db("look up a link") as c:
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
        with self._db("record the move", write=True) as c:
            c.execute(self.actions.insert().values(game_id=gid, n=n, seat=seat, text=text))

    def finish(self, gid: str, scores: list) -> None:
        """Mark game ``gid`` finished with its final ``scores``."""
        with self._db("record the end of the game", write=True) as c:
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
        with self._db("list the games") as c:
            return [dict(r) for r in c.execute(q).mappings()]

    # -- backups, export and import ------------------------------------------------------
    def backup(self, directory, keep: int = 10):
        """Copy an SQLite database into ``directory`` (created if missing) with SQLite's online
        backup API, while games go on, as ``<name>-backup-YYYYmmddTHHMMSS-micro.db``; keep the
        newest ``keep`` backups there. The database is checked first (``PRAGMA quick_check``): a
        damaged one is not copied, so it never pushes a good backup out. Returns the new file's
        ``Path``. Raises :class:`RulebookError` for a database that is not an SQLite file, or
        damaged, or a folder that cannot be written."""
        if self.file is None:
            raise RulebookError(f"--backup: {self.url} is not an SQLite file; back it up with its own tools "
                                "(e.g. pg_dump), or keep `rulebook games export` files")
        d = Path(directory)
        stamp = time.time()
        name = f"{self.file.stem}-backup-{time.strftime('%Y%m%dT%H%M%S', time.gmtime(stamp))}-{int(stamp * 1e6) % 10**6:06d}.db"
        try:
            d.mkdir(parents=True, exist_ok=True)
            tmp = d / (name + ".part")
            with self._db("check itself before a backup") as c:
                problems = _quick_check(c)
                if problems:
                    raise RulebookError(f"{self.file}: not backed up, the game database is damaged ({problems})")
                dest = sqlite3.connect(str(tmp))
                try:
                    c.connection.driver_connection.backup(dest)
                finally:
                    dest.close()
            tmp.replace(d / name)
        except OSError as exc:
            raise RulebookError(f"--backup {directory}: cannot write a backup there: {exc.strerror or exc}") from None
        for old in backups_in(d)[:-keep] if keep > 0 else []:
            old.unlink(missing_ok=True)
        return d / name

    def export_games(self) -> tuple:
        """Every stored game as plain data, oldest first, with what replays it and every link:
        ``(games, problems)``, ``games`` a list of dicts (the columns of ``games``, ``seats``: a
        list of ``{"seat", "kind", "bot", "token"}``, ``actions``: ``[[seat, text], ...]``),
        ``problems`` a list of texts for the games that could not be read (a damaged database is
        read as far as it goes). The result holds seeds and seat links: keep it private."""
        from sqlalchemy import select
        with self._db("list the games") as c:
            ids = [r.id for r in c.execute(select(self.games.c.id).order_by(self.games.c.created))]
        games, problems = [], []
        for gid in ids:
            try:
                g = self.game(gid)
            except StoreUnavailable as exc:
                problems.append(f"game {gid}: {exc}")
                continue
            if g is not None:
                g["seed"] = str(g["seed"])  # JSON readers lose precision beyond 2**53
                games.append(g)
        return games, problems

    def import_games(self, games: list, source: str = "the import") -> dict:
        """Add ``games`` (as :meth:`export_games` gives them) to this database: a game not here is
        added whole; a game here with fewer actions gets the rest, when its own actions are the
        first ones of the import's (the moves made since a backup); any other difference is left
        alone and reported. Returns ``{"added", "extended", "unchanged"}`` (counts) and
        ``"conflicts"`` (texts). Raises :class:`RulebookError` for data not shaped as an export."""
        out = {"added": 0, "extended": 0, "unchanged": 0, "conflicts": []}
        for i, g in enumerate(games):
            _check_exported(g, f"{source}: game {i}")
            here = self.game(g["id"])
            actions = [list(a) for a in g["actions"]]
            if here is None:
                with self._db("store an imported game", write=True) as c:
                    c.execute(self.games.insert().values(
                        id=g["id"], spec=g["spec"], fingerprint=g["fingerprint"], options=json.dumps(g["options"]),
                        num_players=g["num_players"], seed=str(g["seed"]), player_names=json.dumps(g["player_names"]),
                        spectator_token=g["spectator_token"], admin_token=g["admin_token"], created=g["created"],
                        finished=bool(g["finished"]),
                        scores=json.dumps(g["scores"]) if g.get("scores") is not None else None))
                    for s in g["seats"]:
                        c.execute(self.seats.insert().values(game_id=g["id"], seat=s["seat"], kind=s["kind"],
                                                             bot=s.get("bot"), token=s.get("token")))
                    for n, (seat, text) in enumerate(actions):
                        c.execute(self.actions.insert().values(game_id=g["id"], n=n, seat=seat, text=text))
                out["added"] += 1
                continue
            same = all(here[k] == (int(g[k]) if k == "seed" else g[k])
                       for k in ("spec", "fingerprint", "options", "num_players", "seed", "player_names"))
            if not same or here["actions"] != actions[:len(here["actions"])]:
                out["conflicts"].append(f"game {g['id']}: stored here differently (another seed, spec or moves); "
                                        "left as it is")
            elif len(here["actions"]) == len(actions) and here["finished"] == bool(g["finished"]):
                out["unchanged"] += 1
            else:
                with self._db("add an imported game's moves", write=True) as c:
                    for n in range(len(here["actions"]), len(actions)):
                        seat, text = actions[n]
                        c.execute(self.actions.insert().values(game_id=g["id"], n=n, seat=seat, text=text))
                    if g["finished"]:
                        c.execute(self.games.update().where(self.games.c.id == g["id"]).values(
                            finished=True, scores=json.dumps(g.get("scores"))))
                out["extended"] += 1
        return out

    def close(self) -> None:
        """Release the database connections."""
        self.engine.dispose()


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    """Every SQLite connection waits a few seconds for a busy file rather than failing. (WAL, set
    once the file is checked, is kept in the file: a crash never leaves a half-written page in
    the database, and readers do not wait for a writer.)"""
    cur = dbapi_connection.cursor()
    try:
        cur.execute("PRAGMA busy_timeout = 5000")
    finally:
        cur.close()


def _quick_check(c) -> str:
    """SQLite's ``PRAGMA quick_check`` on connection ``c``: its first problems as one text, or ""
    for a sound database."""
    from sqlalchemy import text
    lines = [ln for r in c.execute(text("PRAGMA quick_check(5)")) for ln in str(r[0]).splitlines()]
    return "" if lines == ["ok"] else "; ".join(ln for ln in lines if not ln.startswith("***"))


def _reason(exc) -> str:
    """A database error's own words (the driver's first line), without the SQL or its parameters."""
    text = str(getattr(exc, "orig", None) or exc)
    return text.splitlines()[0] if text else exc.__class__.__name__


_EXPORT_KEYS = {"id": str, "spec": str, "fingerprint": str, "options": dict, "num_players": int,
                "player_names": list, "spectator_token": str, "admin_token": str, "created": (int, float),
                "finished": bool, "seats": list, "actions": list}


def _check_exported(g, where: str) -> None:
    """Refuse an imported game not shaped as :meth:`Store.export_games` writes it."""
    if not isinstance(g, dict):
        raise RulebookError(f"{where}: not an object {{\"id\", \"spec\", ...}}")
    for key, kind in _EXPORT_KEYS.items():
        if not isinstance(g.get(key), kind) or (kind is int and isinstance(g.get(key), bool)):
            raise RulebookError(f"{where}: \"{key}\" is missing or not a {getattr(kind, '__name__', 'number')}")
    try:
        int(g.get("seed"))
    except (TypeError, ValueError):
        raise RulebookError(f"{where}: \"seed\" is missing or not a whole number") from None
    for s in g["seats"]:
        if not (isinstance(s, dict) and isinstance(s.get("seat"), int) and s.get("kind") in ("human", "bot")):
            raise RulebookError(f"{where}: a seat is not {{\"seat\": N, \"kind\": \"human\"|\"bot\", ...}}")
    for a in g["actions"]:
        if not (isinstance(a, list) and len(a) == 2 and isinstance(a[0], int) and isinstance(a[1], str)):
            raise RulebookError(f"{where}: an action is not a [seat, text] pair")
