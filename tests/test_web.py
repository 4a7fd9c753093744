"""The web table (rulebook serve) through its HTTP and WebSocket interface (no browser: see
test_web_browser.py for the end-to-end tests in Chromium).

What is checked: private links, hidden information (every table sent to a seat or a spectator,
over HTTP and WebSocket, holds no card its observation hides, and no unrevealed secret choice),
refused requests that change nothing, persistence across a restart, replays, set choices as a
multi-select, real-time phases pushed live, and the rule-flow diagram's current step.
"""
from __future__ import annotations

import html
import json
import random
import re

import pytest

# the web extra is part of the test extra: these tests are never skipped
from starlette.testclient import TestClient  # noqa: E402

from interpreter import load_game  # noqa: E402
from interpreter.view import SPECTATOR, observation_for  # noqa: E402
from interpreter.web.app import create_app  # noqa: E402
from interpreter.web.render import log_lines, table_view  # noqa: E402

SK = "specs/skull_king.yaml"


def make_app(tmp_path, specs=(SK,), **kw):
    kw.setdefault("bot_delay", 0)
    kw.setdefault("realtime_delay", 0)
    kw.setdefault("seed", 7)
    return create_app(list(specs), f"sqlite:///{tmp_path / 'games.db'}", **kw)


def create(client, spec=SK, players=3, seats=("human", "human", "random"), options=""):
    """Create a game in the lobby; returns (seat tokens by seat (None for bots), spectator token)."""
    data = {"spec": spec, "players": str(players), "options": options}
    for p, kind in enumerate(seats):
        data[f"seat{p}"] = kind
    r = client.post("/new", data=data, follow_redirects=True)
    assert r.status_code == 200, r.text
    tokens = [None] * players
    for seat, link in re.findall(r'class="seat-link" data-seat="(\d+)" href="http://testserver/t/([^"]+)"', r.text):
        tokens[int(seat)] = link
    spectator = re.search(r'class="spectator-link" href="http://testserver/t/([^"]+)"', r.text).group(1)
    return tokens, spectator


def room_of(app):
    rooms = list(app.state.rooms.rooms.values())
    assert len(rooms) == 1
    return rooms[0]


def buttons(fragment: str) -> list:
    return [html.unescape(a) for a in re.findall(r'<button type="button" class="act" data-action="([^"]*)"', fragment)]


def picks(fragment: str) -> list:
    """The cards a set choice offers, one entry per card (``data-pick``)."""
    return [html.unescape(a) for a in re.findall(r'data-pick="([^"]*)"', fragment)]


def move_of(fragment: str) -> int:
    return int(re.search(r'data-move="(\d+)"', fragment).group(1))


def hidden_names(state, seat) -> set:
    """Names of the cards ``seat`` may not see now (in hidden zones and others' owner zones),
    less every name it may legitimately read (in its observation: identical cards share a name)."""
    game = state.game
    hidden = set()
    for name, zdef in game.zones.items():
        z = state.zones[name]
        if zdef.sets:
            continue
        if zdef.per_player:
            for p, ids in enumerate(z):
                if zdef.visibility == "hidden" or (zdef.visibility == "owner" and p != seat):
                    hidden.update(game.cards[i].name for i in ids)
        elif zdef.visibility != "public":
            hidden.update(game.cards[i].name for i in z)
    obs = observation_for(state, seat)
    seen = set(re.findall(r'"([^"]*)"', json.dumps(obs)))
    for text in (obs.get("pending") or {}).get("my_options", []):  # "play X as MODE": a mode may be a card's name
        seen.update(text.split())
    return hidden - seen


def assert_no_leak(state, events, seat, fragment: str) -> None:
    """``fragment`` (a table sent to ``seat``, drawn at ``state``) holds no card ``seat`` may not
    see outside its log, and its log is exactly the lines the per-seat filter lets it read."""
    log = re.search(r'<ol id="log" class="log-lines"[^>]*>(.*?)</ol>', fragment, re.S)
    assert log is not None
    outside = fragment[:log.start()] + fragment[log.end():]
    lines = [line["text"] for line in log_lines(state, events, seat)]
    last = re.search(r'<p class="last-move" id="last-move">(.*?)</p>', outside, re.S)
    if last is not None:  # the last move repeats the newest action line of the seat's own log, nothing else
        assert html.unescape(last.group(1)) == next(t["text"] for t in reversed(log_lines(state, events, seat))
                                                    if t["kind"] == "action")
        outside = outside[:last.start()] + outside[last.end():]
    names = hidden_names(state, seat)
    if names:
        found = re.search(r"(?<![\w-])(" + "|".join(re.escape(html.escape(n)) for n in sorted(names, key=len, reverse=True))
                          + r")(?![\w-])", outside)
        assert found is None, f"seat {seat} was sent {found.group(1)!r}, which it may not see"
    got = [html.unescape(x) for x in re.findall(r"<li class=\"\w+\">(.*?)</li>", log.group(1), re.S)]
    assert got == lines


def state_at(room, move):
    """The State and its events after ``move`` actions of the room's game (replayed)."""
    events = []
    s = room.game.new_state(room.state.num_players, room.state.seed, room.state.player_names, events=events)
    for p, text in room.state.history[:move]:
        s.apply(text, p)
    return s, events


def test_lobby_links_are_private_and_unguessable(tmp_path):
    app = make_app(tmp_path, seed=918273645546372)
    with TestClient(app) as client:
        tokens, spectator = create(client)
        assert tokens[2] is None and all(len(t) >= 20 for t in tokens[:2]) and len(set(tokens[:2] + [spectator])) == 3
        lobby = client.get("/").text
        assert spectator in lobby  # the lobby lists games with their spectator link
        assert not any(t in lobby for t in tokens[:2])  # never a seat's link
        client.get(f"/t/{spectator}")
        seed = str(room_of(app).row["seed"])
        assert seed not in lobby and seed not in client.get(f"/t/{spectator}").text
        assert seed not in client.get(f"/t/{tokens[0]}").text
        page = client.get(f"/t/{tokens[0]}").text
        assert "you are <strong>Player 0</strong>" in page
        assert "spectator: public information only" in client.get(f"/t/{spectator}").text


def positions(room) -> dict:
    """``{move: (State, events so far)}`` for every move of the room's game (one replay)."""
    events = []
    s = room.game.new_state(room.state.num_players, room.state.seed, room.state.player_names, events=events)
    out = {0: (s.clone(), list(events))}
    for i, (p, text) in enumerate(room.state.history, 1):
        s.apply(text, p)
        out[i] = (s.clone(), list(events))
    return out


def test_whole_game_every_table_sent_hides_what_the_observation_hides(tmp_path):
    """Two people and a bot play a whole game; every table sent to each seat and to a spectator
    (HTTP answers and WebSocket pushes) is checked against that viewer's observation then."""
    app = make_app(tmp_path)
    rng = random.Random(5)
    sent = []  # (seat, table): checked at the end, against the State of the table's move
    with TestClient(app) as client:
        tokens, spectator = create(client)
        viewers = {0: tokens[0], 1: tokens[1], SPECTATOR: spectator}
        sockets = {seat: client.websocket_connect(f"/t/{tok}/ws") for seat, tok in viewers.items()}
        for ws in sockets.values():
            ws.__enter__()
        room = room_of(app)
        while not room.state.is_terminal():
            for seat in (0, 1):
                r = client.get(f"/t/{tokens[seat]}/view").json()
                sent.append((seat, r["html"]))
                choices = buttons(r["html"])
                if not choices:
                    continue
                out = client.post(f"/t/{tokens[seat]}/act", json={"action": rng.choice(choices), "move": r["move"]})
                assert out.status_code == 200, out.json()
                sent.append((seat, out.json()["html"]))
            sent.append((SPECTATOR, client.get(f"/t/{spectator}/view").json()["html"]))
            for seat, tok in viewers.items():  # the whole page too (header, table, diagram frame)
                sent.append((seat, client.get(f"/t/{tok}").text))
        assert room.state.is_terminal() and len(room.state.history) == 195  # 10 rounds of 3 players
        pushes = {}
        for seat, ws in sockets.items():
            while True:
                msg = json.loads(ws.receive_text())
                assert move_of(msg["html"]) == msg["move"]
                sent.append((seat, msg["html"]))
                pushes[seat] = pushes.get(seat, 0) + 1
                if 'data-terminal="yes"' in msg["html"]:
                    break
            ws.__exit__(None, None, None)
        assert all(n > 100 for n in pushes.values()), pushes  # about one per move
        assert "Game over" in client.get(f"/t/{spectator}").text
        at = positions(room)
    for seat, table in sent:
        state, events = at[move_of(table)]
        assert_no_leak(state, events, seat, table)
    assert len(sent) > 500


def test_a_secret_choice_is_not_shown_before_the_reveal(tmp_path):
    """Seat 1's table and the spectator's are the same whichever bid seat 0 made in secret."""
    game = load_game(SK)
    views = {}
    for bid in ("bid 0", "bid 1"):
        events = []
        s = game.new_state(3, 11, events=events)
        s.apply(bid, 0)
        views[bid] = {seat: table_view(s, seat, events, len(s.history)) for seat in (1, 2, SPECTATOR)}
        assert table_view(s, 0, events, 1)["status"].startswith(f"You chose “{bid}”. Waiting for the others")
    assert views["bid 0"] == views["bid 1"]
    assert "Waiting for" not in views["bid 0"][1]["status"] and views["bid 0"][1]["my_turn"]
    assert views["bid 0"][1]["chosen"] == [0]  # that seat 0 has chosen is public; what, is not


def test_bad_requests_are_refused_and_change_nothing(tmp_path):
    app = make_app(tmp_path)
    with TestClient(app) as client:
        tokens, spectator = create(client, seats=("human", "human", "human"))
        t0 = tokens[0]
        assert client.get("/t/not-a-real-token-at-all").status_code == 404
        r = client.post("/t/not-a-real-token-at-all/act", json={"action": "bid 0", "move": 0})
        assert r.status_code == 404 and "no game has this link" in r.json()["error"]
        with client.websocket_connect("/t/not-a-real-token-at-all/ws") as ws:
            assert "no game has this link" in json.loads(ws.receive_text())["error"]
        client.get(f"/t/{spectator}")
        room = room_of(app)
        assert client.post(f"/t/{spectator}/act", json={"action": "bid 0", "move": 0}).status_code == 403
        assert client.post(f"/t/{t0}/act", content=b"{nope").status_code == 400
        assert client.post(f"/t/{t0}/act", json={"action": "bid 0"}).status_code == 400  # no move number
        r = client.post(f"/t/{t0}/act", json={"action": "bid 7", "move": 0})  # round 1: bids 0..1
        assert r.status_code == 409 and r.json()["error"].startswith("refused: ")
        assert room.state.history == [] and room.store.game(room.id)["actions"] == []
        # sequential play: after the bids, a move from a table drawn before someone else moved is stale
        for seat in range(3):
            assert client.post(f"/t/{tokens[seat]}/act", json={"action": "bid 1", "move": 0}).status_code == 200
        assert len(room.state.history) == 3
        leader = room.state.current_players()[0]
        other = (leader + 1) % 3
        before = client.get(f"/t/{tokens[other]}/view").json()
        play = buttons(client.get(f"/t/{tokens[leader]}/view").json()["html"])[0]
        assert client.post(f"/t/{tokens[leader]}/act", json={"action": play, "move": 3}).status_code == 200
        mine = buttons(client.get(f"/t/{tokens[other]}/view").json()["html"])
        r = client.post(f"/t/{tokens[other]}/act", json={"action": mine[0], "move": before["move"]})
        assert r.status_code == 409 and "someone moved since your table was drawn" in r.json()["error"]
        assert len(room.state.history) == 4 and len(room.store.game(room.id)["actions"]) == 4


def test_simultaneous_choice_is_not_stale_after_another_players_secret_choice(tmp_path):
    app = make_app(tmp_path)
    with TestClient(app) as client:
        tokens, _ = create(client, seats=("human", "human", "human"))
        view1 = client.get(f"/t/{tokens[1]}/view").json()
        assert client.post(f"/t/{tokens[0]}/act", json={"action": "bid 0", "move": 0}).status_code == 200
        r = client.post(f"/t/{tokens[1]}/act", json={"action": "bid 1", "move": view1["move"]})
        assert r.status_code == 200
        assert "Waiting for the others: Player 2" in r.json()["html"]


def test_restart_mid_game_loses_nothing_and_the_game_finishes(tmp_path):
    rng = random.Random(2)
    with TestClient(make_app(tmp_path)) as client:
        tokens, spectator = create(client)
        for _ in range(12):
            for seat in (0, 1):
                r = client.get(f"/t/{tokens[seat]}/view").json()
                if buttons(r["html"]):
                    client.post(f"/t/{tokens[seat]}/act", json={"action": rng.choice(buttons(r["html"])), "move": r["move"]})
        played = client.get(f"/t/{spectator}/view").json()["move"]
    assert played > 10
    app = make_app(tmp_path)  # a new server on the same database
    with TestClient(app) as client:
        r = client.get(f"/t/{spectator}/view").json()
        assert r["move"] >= played  # (a bot may move once the game is opened again)
        room = room_of(app)
        first = load_game(SK).replay(3, room.row["seed"], room.state.history[:played])
        assert first.history == room.state.history[:played]
        while not room.state.is_terminal():
            for seat in (0, 1):
                r = client.get(f"/t/{tokens[seat]}/view").json()
                if buttons(r["html"]):
                    client.post(f"/t/{tokens[seat]}/act", json={"action": rng.choice(buttons(r["html"])), "move": r["move"]})
        stored = room.store.game(room.id)
        assert stored["finished"] and stored["actions"] == room.state.history
        assert stored["scores"] == room.state.scores()
        # the stored (spec, options, seed, actions) replay the same game exactly
        again = load_game(SK, stored["options"]).replay(3, stored["seed"], stored["actions"])
        assert again.scores() == room.state.scores()
        # the finished game opens as a replay that steps forward and back
        total = len(stored["actions"])
        page = client.get(f"/t/{tokens[0]}/replay?step=5").text
        assert f"move 5 of {total}" in page and 'href="?step=4"' in page and 'href="?step=6"' in page
        page0 = client.get(f"/t/{spectator}/replay?step=0").text
        assert "◀ back</span>" in page0 and f"move 0 of {total}" in page0
        state5, events5 = state_at(room, 5)
        body = page[page.index('<div class="tbl"'):]
        assert_no_leak(state5, events5, 0, body[:body.index("</main>")])
        assert "Open the replay" in client.get(f"/t/{tokens[0]}").text


def test_replay_only_once_the_game_is_over(tmp_path):
    with TestClient(make_app(tmp_path)) as client:
        tokens, spectator = create(client)
        assert client.get(f"/t/{spectator}/replay").status_code == 409


def test_set_choice_is_a_multi_select_sent_whole(tmp_path):
    spec = "tests/specs/three_card_pass.yaml"
    app = make_app(tmp_path, specs=(spec,))
    with TestClient(app) as client:
        tokens, _ = create(client, spec=spec, seats=("human", "random", "random"))
        r = client.get(f"/t/{tokens[0]}/view").json()
        form = re.search(r'<form class="set-choice" id="set-choice" data-verb="([^"]+)" data-min="3" data-max="3">(.*?)</form>',
                         r["html"], re.S)
        assert form is not None, r["html"]
        verb = form.group(1)
        names = picks(r["html"])  # each card of the hand, one by one (copies of a name too)
        assert len(names) >= 3 and "at least 3, at most 3" in form.group(2)
        assert not any(b.startswith("pick ") for b in buttons(r["html"]))  # picks are the checkboxes
        bad = client.post(f"/t/{tokens[0]}/act", json={"action": f"{verb} {names[0]}", "move": r["move"]})
        assert bad.status_code == 409  # one card is not a set of 3
        ok = client.post(f"/t/{tokens[0]}/act", json={"action": f"{verb} {' '.join(names[:3])}", "move": r["move"]})
        assert ok.status_code == 200, ok.json()


def test_a_set_is_checked_live_and_nothing_changes(tmp_path):
    """POST /check answers whether an action would be taken (a set choice asks it as cards are
    selected), with the engine's reason when not, and changes neither the game nor the database."""
    spec = "tests/specs/three_card_pass.yaml"
    app = make_app(tmp_path, specs=(spec,))
    with TestClient(app) as client:
        tokens, spectator = create(client, spec=spec, seats=("human", "random", "random"))
        r = client.get(f"/t/{tokens[0]}/view").json()
        verb = re.search(r'id="set-choice" data-verb="([^"]+)"', r["html"]).group(1)
        names = picks(r["html"])
        room = room_of(app)
        ok = client.post(f"/t/{tokens[0]}/check", json={"action": f"{verb} {' '.join(names[:3])}"}).json()
        assert ok == {"legal": True, "reason": None}
        bad = client.post(f"/t/{tokens[0]}/check", json={"action": f"{verb} {names[0]}"}).json()
        assert bad["legal"] is False and bad["reason"]
        assert client.post(f"/t/{spectator}/check", json={"action": f"{verb} {names[0]}"}).status_code == 403
        assert client.post(f"/t/{tokens[0]}/check", content=b"{nope").status_code == 400
        # (the bots pass their cards meanwhile): nothing of seat 0's was applied or stored
        assert all(seat != 0 for seat, _ in room.state.history)
        assert all(seat != 0 for seat, _ in room.store.game(room.id)["actions"])
        assert client.post(f"/t/{tokens[0]}/act", json={"action": f"{verb} {' '.join(names[:3])}",
                                                         "move": client.get(f"/t/{tokens[0]}/view").json()["move"]}
                           ).status_code == 200  # and the set checked legal is taken


def test_realtime_phase_is_pushed_live(tmp_path):
    """In a real-time phase the bots act on their own clock: a watcher's socket receives new
    tables without anyone sending an action."""
    spec = "specs/ligretto_classic.yaml"
    app = make_app(tmp_path, specs=(spec,))
    with TestClient(app) as client:
        tokens, spectator = create(client, spec=spec, players=2, seats=("human", "random"), options="rounds=1")
        page = client.get(f"/t/{tokens[0]}").text
        assert "real time" in page
        with client.websocket_connect(f"/t/{spectator}/ws") as ws:
            moves = [json.loads(ws.receive_text())["move"] for _ in range(4)]
        assert moves == sorted(moves) and moves[-1] > moves[0]
        room = room_of(app)
        assert all(seat == 1 for seat, _ in room.state.history)  # only the bot acted
        # a person acts in the same phase with the table they saw: first come, first served
        r = client.get(f"/t/{tokens[0]}/view").json()
        mine = buttons(r["html"])
        if mine and not room.state.is_terminal():
            out = client.post(f"/t/{tokens[0]}/act", json={"action": mine[0], "move": r["move"]})
            assert out.status_code in (200, 409)
            if out.status_code == 409:  # the bot took the place first: the reason says so
                assert out.json()["error"].startswith("refused: ")


def test_diagram_outlines_the_step_the_game_waits_at(tmp_path):
    with TestClient(make_app(tmp_path)) as client:
        tokens, _ = create(client)
        frag = client.get(f"/t/{tokens[0]}/view").json()["html"]
        line = int(re.search(r'data-line="(\d+)"', frag).group(1))
        spec_lines = open(SK, encoding="utf-8").read().split("\n")
        assert "bid" in spec_lines[line - 1] or "choose" in spec_lines[line - 1]
        svg = client.get(f"/t/{tokens[0]}/diagram.svg")
        assert svg.status_code == 200 and f'spec#L{line}"'.encode() in svg.content
        source = client.get(f"/t/{tokens[0]}/spec").text
        assert f'id="L{line}"' in source
        tables = client.get(f"/t/{tokens[0]}/tables")  # the rules panel's rule tables
        assert tables.status_code == 200 and "Who wins a trick of two cards" in tables.text
        assert client.get(f"/t/{tokens[0]}/image/escape").status_code == 404  # the spec has no images
        assert client.get("/t/not-a-real-token-at-all/tables").status_code == 404


def test_lobby_refuses_bad_games_with_a_message(tmp_path):
    with TestClient(make_app(tmp_path)) as client:
        r = client.post("/new", data={"spec": SK, "players": "9", "seat0": "human"})
        assert r.status_code == 400 and "2 to 8 players, not 9" in r.text
        r = client.post("/new", data={"spec": SK, "players": "3", "options": "krakn=true"})
        assert r.status_code == 400 and "krakn" in r.text
        r = client.post("/new", data={"spec": "specs/other.yaml", "players": "3"})
        assert r.status_code == 400 and "choose one of the served specs" in r.text
        r = client.post("/new", data={"spec": SK, "players": "3", "seat1": "cleverbot"})
        assert r.status_code == 400 and "unknown bot" in r.text
        # a valid bot with a budget the lobby does not offer: the server's CPU is not the visitor's
        r = client.post("/new", data={"spec": SK, "players": "3", "seat1": "ismcts:999999s"})
        assert r.status_code == 400 and "unknown bot" in r.text and "ismcts:999999s" in r.text and "offers" in r.text
        assert client.get("/").text.count("none yet") == 1  # nothing was created


def test_serve_listens_on_localhost_by_default():
    from interpreter.cli import build_parser
    args = build_parser().parse_args(["serve", SK])
    assert args.host == "127.0.0.1" and args.db.startswith("sqlite:///")


def test_the_leak_check_catches_a_leak():
    """The checker above is not vacuous: seat 1's own table, checked as if sent to seat 0, fails."""
    game = load_game(SK)
    events = []
    s = game.new_state(3, 4, events=events)
    s.apply("bid 0", 0), s.apply("bid 1", 1), s.apply("bid 1", 2)  # round 1: one card each, now played
    from interpreter.web.app import _env
    table = _env().get_template("_table.html").render(v=table_view(s, 1, events, 3), token="x")
    assert_no_leak(s, events, 1, table)
    with pytest.raises(AssertionError, match="which it may not see"):
        assert_no_leak(s, events, 0, table)


def test_a_stored_game_that_no_longer_replays_is_refused_with_a_message(tmp_path):
    with TestClient(make_app(tmp_path)) as client:
        tokens, spectator = create(client, seats=("human", "human", "human"))
        gid = client.app.state.store.find_token(spectator)[0]
    store = client.app.state.store.__class__(f"sqlite:///{tmp_path / 'games.db'}")
    store.add_action(gid, 0, 0, "bid 9")  # not a legal bid in round 1
    store.close()
    with TestClient(make_app(tmp_path)) as client:
        r = client.get(f"/t/{tokens[0]}")
        assert r.status_code == 409 and "stored action 0" in r.text and "bid 9" in r.text
        assert client.get("/").status_code == 200  # the server goes on


def test_a_failing_bot_stops_the_bots_and_every_table_says_so(tmp_path):
    from interpreter.errors import RulebookError
    app = make_app(tmp_path)
    with TestClient(app) as client:
        tokens, spectator = create(client)
        gid = app.state.store.find_token(spectator)[0]
        room = app.state.rooms.get(gid)

        def broken(state, seat):
            raise RulebookError("no legal option (a test)")
        room.agents[2].act = broken
        client.get(f"/t/{tokens[0]}")  # opening a table lets the bots move: this one fails
        for _ in range(100):
            if room.failure:
                break
            client.get("/")  # (the bots' task runs in the server's loop)
        assert room.failure == "the bot of Bot 2 failed: no legal option (a test)"
        page = client.get(f"/t/{spectator}").text
        assert "The game cannot go on: the bot of Bot 2 failed" in page
        assert room.state.history == []  # nothing was applied for it


@pytest.mark.parametrize("spec", sorted(str(p) for p in __import__("pathlib").Path("specs").glob("*.yaml")))
def test_every_spec_plays_at_the_web_table(tmp_path, spec):
    """Any spec: a person (seat 0) plays 15 decisions against random bots through the web table, and
    every table sent to the person and to a spectator hides what their observation hides."""
    game = load_game(spec)
    n = 3 if game.min_players <= 3 <= game.max_players else game.min_players
    app = make_app(tmp_path, specs=(spec,))
    rng = random.Random(1)
    with TestClient(app) as client:
        tokens, spectator = create(client, spec=spec, players=n, seats=["human"] + ["random"] * (n - 1),
                                   options="rounds=1" if "rounds" in (game.spec.get("options") or {}) else "")
        sent, acted = [], 0
        for _ in range(400):
            r = client.get(f"/t/{tokens[0]}/view").json()
            sent.append((0, r["html"]))
            if 'data-terminal="yes"' in r["html"] or acted >= 15:
                break
            choices = buttons(r["html"])
            form = re.search(r'<form class="set-choice" id="set-choice" data-verb="([^"]+)" data-min="(\d*)"', r["html"])
            if form:
                names = picks(r["html"])
                choices = choices + [f"{html.unescape(form.group(1))} " + " ".join(names[:int(form.group(2) or 1)])]
            if not choices:
                continue  # the bots' turn: they move in the server's loop
            out = client.post(f"/t/{tokens[0]}/act", json={"action": rng.choice(choices), "move": r["move"]})
            assert out.status_code in (200, 409), out.text
            if out.status_code == 200:
                acted += 1
            sent.append((0, out.json()["html"]))
            sent.append((SPECTATOR, client.get(f"/t/{spectator}/view").json()["html"]))
        room = room_of(app)
        assert acted >= 1 or room.state.is_terminal()
        at = positions(room)
    for seat, table in sent:
        state, events = at[move_of(table)]
        assert_no_leak(state, events, seat, table)


def test_a_long_option_doc_is_cut_at_a_word_with_an_ellipsis():
    from interpreter.web.app import _shorten
    assert _shorten("short text", 300) == "short text"
    source = "Harry the Giant may change his bid by one " * 20
    cut = _shorten(source, 60)
    assert len(cut) <= 60 and cut.endswith("…")
    assert all(word in source.split() for word in cut[:-1].split())  # no word cut in two
