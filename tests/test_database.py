"""The web table's game database: a damaged, empty or foreign file is refused with a message
(never a traceback, never a fresh database in its place), backups and exports rebuild it, and a
request the database cannot answer gets a page in words with nothing logged of seeds or tokens.

No browser: the server is driven through Starlette's TestClient, as in test_web.py.
"""
from __future__ import annotations

import logging
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from interpreter.cli import main
from interpreter.errors import RulebookError
from interpreter.web import store as store_module
from interpreter.web.app import create_app
from interpreter.web.store import Store, backups_in

from test_web import SK, buttons, create

PAGE = 4096  # SQLite's default page size


def _app(db, **kw):
    return create_app([SK], f"sqlite:///{db}", bot_delay=0, realtime_delay=0, seed=7, **kw)


def _play(client, tokens, moves):
    """``moves`` moves by the human seats, each the first button of the seat to move."""
    for _ in range(moves):
        for t in tokens:
            r = client.get(f"/t/{t}/view").json()
            if buttons(r["html"]):
                assert client.post(f"/t/{t}/act", json={"action": buttons(r["html"])[0], "move": r["move"]}).status_code == 200
                break


def _damage(good: bytes, how: str) -> bytes:
    b = bytearray(good)
    pages = len(b) // PAGE
    if how == "truncate":
        return bytes(b[:len(b) // 2])
    if how == "bad header":
        b[:16] = b"not SQLite here!"
    elif how == "zeroed page":
        b[2 * PAGE:3 * PAGE] = bytes(PAGE)
    elif how == "random page":
        page = random.Random(how).randrange(1, pages)
        b[page * PAGE:(page + 1) * PAGE] = random.Random(page).randbytes(PAGE)
    return bytes(b)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A database with three all-human games: two created before the first backup, one after;
    moves made after the backup in one of the old games; then an export of everything."""
    d = tmp_path_factory.mktemp("db")
    db, backups = d / "games.db", d / "backups"
    with TestClient(_app(db)) as client:
        early = [create(client, seats=("human",) * 3) for _ in range(2)]
        _play(client, early[0][0], 3)
    with TestClient(_app(db, backup_dir=str(backups))) as client:  # a backup at start...
        late = create(client, seats=("human",) * 3)
        _play(client, early[0][0], 2)  # ... then moves the backup lacks
        _play(client, late[0], 4)
        moves = {spectator: client.get(f"/t/{spectator}/view").json()["move"] for _, spectator in early + [late]}
    assert main(["games", "export", str(d / "export.json"), "--db", f"sqlite:///{db}"]) == 0
    return {"dir": d, "db": db, "backups": backups, "games": early + [late], "moves": moves,
            "good": db.read_bytes()}


@pytest.mark.parametrize("how", ["truncate", "bad header", "zeroed page", "random page"])
def test_a_damaged_database_is_refused_then_rebuilt_from_a_backup_and_an_export(played, how, capsys, tmp_path):
    db = tmp_path / "games.db"
    db.write_bytes(_damage(played["good"], how))
    before = db.read_bytes()
    assert main(["serve", SK, "--db", f"sqlite:///{db}"]) == 1
    err = capsys.readouterr().err
    assert str(db) in err and "Traceback" not in err
    assert "damaged" in err or "not an SQLite database" in err
    assert "restore the newest backup" in err and "rulebook games import" in err
    assert db.read_bytes() == before  # nothing written to the damaged file
    # a write-ahead log beside the damaged file would be replayed into the restored copy: the hint says so
    assert f"first delete {db}-wal and {db}-shm if they exist" in " ".join(err.split())
    for log in (f"{db}-wal", f"{db}-shm"):
        Path(log).unlink(missing_ok=True)

    shutil.copy(backups_in(played["backups"])[0], db)  # the backup made at the start of the second run
    assert main(["games", "import", str(played["dir"] / "export.json"), "--db", f"sqlite:///{db}"]) == 0
    out = capsys.readouterr().out
    assert "1 game(s) added, 1 given the moves made since, 1 already there" in " ".join(out.split())
    with TestClient(_app(db)) as client:
        for tokens, spectator in played["games"]:
            want = played["moves"][spectator]
            for t in [*tokens, spectator]:  # (the view: the page itself would draw the diagram too)
                assert client.get(f"/t/{t}/view").json()["move"] == want
        _play(client, played["games"][2][0], 1)  # and the games go on
        assert client.get(f"/t/{played['games'][2][1]}/view").json()["move"] == played["moves"][played["games"][2][1]] + 1


def test_an_empty_file_a_foreign_file_and_another_programs_database_are_refused(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    text = tmp_path / "x.db"
    text.write_text("hi\n")
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE users (name TEXT)")
    for f, what in ((empty, "empty file"), (text, "not an SQLite database"), (other, "another program's tables")):
        before = f.read_bytes()
        assert main(["serve", SK, "--db", f"sqlite:///{f}"]) == 1
        err = " ".join(capsys.readouterr().err.split())
        assert str(f) in err and what in err and "Traceback" not in err
        assert f.read_bytes() == before
    with sqlite3.connect(other) as c:  # no Rulebook table was added to it
        assert [r[0] for r in c.execute("SELECT name FROM sqlite_master")] == ["users"]


def test_a_missing_database_with_backups_is_refused(tmp_path):
    db, backups = tmp_path / "games.db", tmp_path / "b"
    Store(f"sqlite:///{db}").backup(backups)
    db.unlink()
    with pytest.raises(RulebookError, match="missing, but .* holds backups"):
        Store(f"sqlite:///{db}", backup_dir=backups)
    assert not db.exists()


def test_backups_rotate_and_the_database_is_in_wal_mode(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'games.db'}")
    with store.engine.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    made = [store.backup(tmp_path / "b", keep=3) for _ in range(5)]
    assert backups_in(tmp_path / "b") == made[-3:]
    with sqlite3.connect(made[-1]) as c:
        assert c.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")} >= {"games", "seats", "actions"}
    store.close()


def test_a_request_the_database_cannot_answer_gets_a_page_in_words_and_no_secret_is_logged(tmp_path, caplog, monkeypatch):
    db = tmp_path / "games.db"
    secret = "SECRETtokenSECRETtoken"
    monkeypatch.setattr(store_module, "new_token", lambda: secret)
    app = create_app([SK], f"sqlite:///{db}", bot_delay=0, realtime_delay=0, seed=123456789)
    with TestClient(app, raise_server_exceptions=False) as client:
        with sqlite3.connect(db) as c:  # the database fails under the running server
            c.execute("DROP TABLE seats")
        caplog.set_level(logging.ERROR)
        r = client.post("/new", data={"spec": SK, "players": "3", "seat0": "human", "seat1": "human", "seat2": "human"})
        assert r.status_code == 503 and "the game database could not store the new game" in r.text
        assert client.get("/t/" + secret).status_code == 503
        r = client.post(f"/t/{secret}/act", json={"action": "bid 0", "move": 0})
        assert r.status_code == 503 and "game database" in r.json()["error"]
        logged = caplog.text + r.text
        assert "could not store the new game" in caplog.text
        assert secret not in logged and "123456789" not in logged


def test_import_refuses_a_file_not_shaped_as_an_export(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"games": [{"id": "x"}]}')
    assert main(["games", "import", str(bad), "--db", f"sqlite:///{tmp_path / 'g.db'}"]) == 1
    err = capsys.readouterr().err
    assert "game 0" in err and '"spec"' in err and "Traceback" not in err
