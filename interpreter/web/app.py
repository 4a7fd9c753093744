"""The web application of ``rulebook serve``: lobby, tables, live updates, replays, diagrams.

Pages are rendered on the server (Jinja2, autoescaped); a little plain JavaScript
(``static/table.js``, no build step, nothing from a CDN) sends actions and swaps in the table that
the server renders for the viewer, pushed over a WebSocket after every change.

Routes (``TOKEN`` is a seat's private link token, the spectator token, or the creator's token):

- ``GET /``: the lobby (create a game; the recent games with their spectator links);
- ``POST /new``: create a game, then ``GET /created/TOKEN``: the links to hand out;
- ``GET /t/TOKEN``: the table as that seat (or a spectator) sees it; ``GET /t/TOKEN/view``:
  the same table as a fragment (JSON ``{"html", "move"}``);
- ``POST /t/TOKEN/act`` with JSON ``{"action": TEXT, "move": N}``: play; answers
  ``{"ok": true, "html", "move"}`` or an error status with ``{"error": MESSAGE}``, changing nothing;
- ``WS /t/TOKEN/ws``: the table fragment after every change (``{"html", "move"}``);
- ``GET /t/TOKEN/replay?step=N``: a finished game, step by step, as that viewer saw it;
- ``POST /t/TOKEN/check`` with JSON ``{"action": TEXT}``: ``{"legal": bool, "reason"}``, changing nothing
  (a set choice asks it as cards are selected);
- ``GET /t/TOKEN/diagram.svg``, ``GET /t/TOKEN/tables`` and ``GET /t/TOKEN/spec``: the rule-flow
  diagram, the spec's rule tables (HTML) and the spec text; ``GET /t/TOKEN/image/NAME``: a card's
  image file (``appearance: images``).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from pathlib import Path

from ..errors import RulebookError, SpecError
from .render import table_view
from .rooms import Refused, Room, Rooms, log
from .store import Store, StoreUnavailable

HERE = Path(__file__).parent
BOT_CHOICES = ("random", "first", "greedy", "ismcts:0.1s")


def _env():
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    env = Environment(loader=FileSystemLoader(str(HERE / "templates")), autoescape=select_autoescape(default=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["tojson_attr"] = lambda v: json.dumps(v)
    return env


def _shorten(text: str, most: int) -> str:
    """``text`` cut to at most ``most`` characters at a word, with an ellipsis when cut."""
    if len(text) <= most:
        return text
    return text[:most - 1].rsplit(" ", 1)[0] + "…"


def create_app(specs, db_url: str = "sqlite:///rulebook-games.db", bot_delay: float = 0.5,
               realtime_delay: float = 2.0, seed: int | None = None, backup_dir=None,
               backup_every: float = 600.0, backup_keep: int = 10):
    """The Starlette application serving ``specs`` (list of spec paths) with games stored at
    ``db_url`` (any SQLAlchemy URL). ``bot_delay``/``realtime_delay``: seconds a bot waits before
    each move (turn-based / in a real-time phase). ``seed``: the games created get the seeds
    ``seed``, ``seed + 1``... (reproducible tests); by default each gets a random seed.
    ``backup_dir``: an SQLite database is backed up there at start, every ``backup_every``
    seconds and at shutdown, the newest ``backup_keep`` kept (:meth:`Store.backup`). A request the
    database cannot answer gets a page in words (503). Raises :class:`RulebookError` for a spec
    that does not load or a database that cannot be opened, is damaged or is another program's."""
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
    from starlette.routing import Mount, Route, WebSocketRoute
    from starlette.staticfiles import StaticFiles
    from starlette.websockets import WebSocketDisconnect

    from ..spec.loader import load_game

    served = {}
    for path in specs:
        try:
            game = load_game(path)
        except SpecError as exc:
            raise RulebookError("\n".join(str(d) for d in exc.diagnostics)) from None
        served[str(path)] = {"path": str(path), "name": game.name, "min": game.min_players, "max": game.max_players,
                             "options": _option_docs(game)}
    if not served:
        raise RulebookError("rulebook serve needs at least one spec, e.g. rulebook serve specs/*.yaml")
    store = Store(db_url, backup_dir)
    if backup_dir:
        store.backup(backup_dir, backup_keep)  # a sound copy before the first move, and --backup checked now
    rooms = Rooms(store, bot_delay, realtime_delay)
    env = _env()
    diagrams = {}
    seeds_used = [0]

    def page(name, status=200, **ctx):
        return HTMLResponse(env.get_template(name).render(**ctx), status_code=status)

    def error_page(message, status):
        return page("error.html", status=status, message=message)

    def lookup(token):
        found = store.find_token(token)
        if found is None or found[1] == "admin":
            raise Refused("no game has this link: check that you copied the whole link you were given", 404)
        gid, seat = found
        room = rooms.get(gid)
        room.wake_bots()  # a game opened again (after a restart) goes on where bots are to move
        return room, seat

    def fragment(room: Room, seat, token) -> str:
        view = table_view(room.state, seat, room.events, room.move)
        return env.get_template("_table.html").render(v=view, token=token, failure=room.failure)

    async def lobby(request, error=None, form=None):
        return page("lobby.html", status=400 if error else 200, specs=list(served.values()), games=store.list_games(),
                    bots=BOT_CHOICES, error=error, form=form or {})

    async def new_game(request):
        form = await request.form()
        f = {k: form.get(k) for k in form.keys()}
        try:
            spec = f.get("spec")
            if spec not in served:
                raise Refused("choose one of the served specs", 400)
            try:
                n = int(f.get("players") or "")
            except ValueError:
                raise Refused("the number of players must be a whole number", 400) from None
            info = served[spec]
            if not info["min"] <= n <= info["max"]:
                raise Refused(f"{info['name']} is for {info['min']} to {info['max']} players, not {n}", 400)
            from ..options import parse_options
            options = parse_options([ln for ln in (f.get("options") or "").replace(",", "\n").splitlines() if ln.strip()])
            seats, names = [], []
            for p in range(n):
                kind = (f.get(f"seat{p}") or "human").strip()
                if kind == "human":
                    seats.append(("human", None))
                elif kind in BOT_CHOICES:
                    # only the lobby's own bots: a bot's budget is the server's CPU, which a
                    # visitor may not set (an "ismcts:999999s" seat would hold it for good)
                    seats.append(("bot", kind))
                else:
                    raise Refused(f"unknown bot {kind!r} for seat {p}: this server offers "
                                  + ", ".join(BOT_CHOICES), 400)
                name = " ".join((f.get(f"name{p}") or "").split())[:40]
                names.append(name or (f"Bot {p}" if kind != "human" else f"Player {p}"))
            if len(set(names)) < len(names):
                raise Refused("two seats have the same name: give each its own", 400)
            try:
                game = load_game(spec, options)
            except SpecError as exc:
                raise Refused("; ".join(d.message if hasattr(d, "message") else str(d) for d in exc.diagnostics), 400) from None
            if seed is None:
                game_seed = secrets.randbelow(2 ** 62)
            else:
                game_seed = seed + seeds_used[0]
                seeds_used[0] += 1
            game.new_state(n, game_seed, names)  # the options' constraints and the first steps run now
            created = store.create(spec, game.fingerprint, options, n, game_seed, names, seats)
        except Refused as exc:
            return await lobby(request, exc.message, f)
        except StoreUnavailable:
            raise  # a page in words (503), not the lobby's "check your form"
        except RulebookError as exc:
            return await lobby(request, str(exc), f)
        return RedirectResponse(f"/created/{created['admin_token']}", status_code=303)

    async def created(request):
        token = request.path_params["token"]
        found = store.find_token(token)
        if found is None or found[1] != "admin":
            return error_page("no game was created with this link", 404)
        row = store.game(found[0])
        base = str(request.base_url).rstrip("/")
        seats = [{"seat": s["seat"], "name": row["player_names"][s["seat"]], "kind": s["kind"], "bot": s["bot"],
                  "link": f"{base}/t/{s['token']}" if s["token"] else None} for s in row["seats"]]
        return page("created.html", row=row, seats=seats, spectator=f"{base}/t/{row['spectator_token']}",
                    spec=served.get(row["spec"], {"name": row["spec"]}))

    async def table(request):
        token = request.path_params["token"]
        try:
            room, seat = lookup(token)
        except Refused as exc:
            return error_page(exc.message, exc.status)
        room.wake_bots()
        diagram_of(room)  # start drawing it now: the page asks for it next
        return page("table.html", token=token, title=room.game.name, you=room.state.player_name(seat) if seat is not None else None,
                    table=fragment(room, seat, token), move=room.move, finished=room.state.is_terminal(),
                    spec=room.row["spec"])

    async def view(request):
        token = request.path_params["token"]
        try:
            room, seat = lookup(token)
        except Refused as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return JSONResponse({"html": fragment(room, seat, token), "move": room.move})

    def file_room(request):
        """The Room of the request's link, or the plain-text refusal to answer for a file it asks."""
        try:
            return lookup(request.path_params["token"])[0]
        except Refused as exc:
            return Response(exc.message, status_code=exc.status, media_type="text/plain")

    async def json_body(request, shape: str) -> dict:
        """The JSON object a POST carries; Refused (400) naming ``shape`` when it is not one."""
        try:
            body = json.loads(await request.body() or b"null")
        except (ValueError, UnicodeDecodeError):
            raise Refused(f"the request is not JSON: send {shape}", 400) from None
        if not isinstance(body, dict):
            raise Refused(f"send {shape}", 400)
        return body

    async def act(request):
        token = request.path_params["token"]
        room = seat = None
        try:
            room, seat = lookup(token)
            if seat is None:
                raise Refused("a spectator's link cannot play: use your seat's own link", 403)
            body = await json_body(request, "{\"action\": TEXT, \"move\": N}")
            await room.act(seat, body.get("action"), body.get("move"))
        except StoreUnavailable as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        except Refused as exc:
            out = {"error": exc.message}
            if room is not None and not room.stale:  # the table as it is now, so the page shows what is still legal
                out.update(html=fragment(room, seat, token), move=room.move)
            return JSONResponse(out, status_code=exc.status)
        return JSONResponse({"ok": True, "html": fragment(room, seat, token), "move": room.move})

    async def check(request):
        """Whether an action would be taken now, changing nothing (a set choice asks as cards are selected)."""
        token = request.path_params["token"]
        try:
            room, seat = lookup(token)
            if seat is None:
                raise Refused("a spectator's link cannot play", 403)
            body = await json_body(request, "{\"action\": TEXT}")
            reason = room.why_not(seat, body.get("action"))
        except Refused as exc:
            return JSONResponse({"error": exc.message}, status_code=exc.status)
        return JSONResponse({"legal": reason is None, "reason": reason})

    async def rule_tables(request):
        """The spec's rule tables (``tables:``) as HTML, computed once per spec and options."""
        room = file_room(request)
        if isinstance(room, Response):
            return room
        key = ("tables", room.row["spec"], room.game.fingerprint)
        if key not in diagrams:
            from ..analysis.tables import compute_tables, table_html
            game = room.game
            diagrams[key] = asyncio.ensure_future(asyncio.to_thread(
                lambda: "".join(table_html(t) for t in compute_tables(game))))
        return HTMLResponse(await diagrams[key])

    async def card_image(request):
        """A card's image file (``appearance: images``), found next to the spec."""
        room = file_room(request)
        if isinstance(room, Response):
            return room
        from starlette.responses import FileResponse
        from ..spec.appearance import of as appearance_of
        face = appearance_of(room.game).face(request.path_params["name"])
        folder = Path(room.row["spec"]).resolve().parent
        path = (folder / face["image"]).resolve() if face.get("image") else None
        if path is None or folder not in path.parents or not path.is_file():  # never a file outside the spec's folder
            return Response("no image for this card", status_code=404, media_type="text/plain")
        return FileResponse(path)

    async def socket(websocket):
        token = websocket.path_params["token"]
        try:
            room, seat = lookup(token)
        except (Refused, StoreUnavailable) as exc:
            await websocket.accept()
            await websocket.send_text(json.dumps({"error": exc.message}))
            await websocket.close(code=4404)
            return
        await websocket.accept()
        sent = {"move": None}
        one_at_a_time = asyncio.Lock()  # pushes from a person's action and from a bot never interleave

        async def push(r):
            async with one_at_a_time:
                if sent["move"] == r.move and sent.get("terminal") == r.state.is_terminal() \
                        and sent.get("failure") == r.failure:
                    return
                sent["move"], sent["terminal"], sent["failure"] = r.move, r.state.is_terminal(), r.failure
                await websocket.send_text(json.dumps({"html": fragment(r, seat, token), "move": r.move}))

        room.listeners.add(push)
        try:
            await push(room)
            room.wake_bots()
            while True:
                await websocket.receive_text()  # the client only pings; actions come by POST
        except (WebSocketDisconnect, RuntimeError, StoreUnavailable):
            pass
        finally:
            room.listeners.discard(push)

    async def replay(request):
        token = request.path_params["token"]
        try:
            room, seat = lookup(token)
        except Refused as exc:
            return error_page(exc.message, exc.status)
        if not room.state.is_terminal():
            return error_page("the replay opens once the game is over", 409)
        history = room.state.history
        try:
            step = int(request.query_params.get("step", len(history)))
        except ValueError:
            return error_page("step must be a whole number", 400)
        step = max(0, min(step, len(history)))
        events = []
        state = room.game.new_state(room.state.num_players, room.state.seed, room.state.player_names, events=events)
        for p, text in history[:step]:
            state.apply(text, p)
        v = table_view(state, seat, events, step)
        v["actions"], v["set_choice"], v["card_verb"], v["my_turn"] = [], None, None, False
        for z in v["zones"]:
            for part in z.get("parts", [z]):
                for c in part.get("cards", []):
                    c["clickable"], c["acts"], c["pickable"] = False, [], False
        for row in (v["board"] or {}).get("rows", []):
            for square in row:
                square["acts"] = []
        last = None
        if step:
            from ..view import history_for
            seen = history_for(state, seat)[step - 1]
            last = f"{state.player_name(seen['player'])}: {seen.get('action') or seen.get('hidden')}"
        return page("replay.html", token=token, title=room.game.name, step=step, total=len(history), last=last,
                    table=env.get_template("_table.html").render(v=v, token=token, replay=True),
                    you=state.player_name(seat) if seat is not None else None)

    async def diagram(request):
        room = file_room(request)
        if isinstance(room, Response):
            return room
        return Response(await diagram_of(room), media_type="image/svg+xml")

    def diagram_of(room):
        """The rule-flow diagram (SVG bytes) of the room's spec and options, drawn once in a thread
        (it takes a few seconds) and kept: an awaitable, started as soon as a table is opened."""
        key = (room.row["spec"], room.game.fingerprint)
        if key not in diagrams:
            from ..analysis.export import to_image
            from ..analysis.graph import flow_graph
            game = room.game

            def draw():
                return to_image(flow_graph(game), "svg", None, game.name,
                                "the step the game waits at is outlined in red", link=lambda line: f"spec#L{line}")
            diagrams[key] = asyncio.ensure_future(asyncio.to_thread(draw))
        return diagrams[key]

    async def spec_source(request):
        token = request.path_params["token"]
        try:
            room, _ = lookup(token)
        except Refused as exc:
            return error_page(exc.message, exc.status)
        try:
            lines = Path(room.row["spec"]).read_text(encoding="utf-8").split("\n")
        except OSError as exc:
            return error_page(f"cannot read {room.row['spec']}: {exc.strerror}", 404)
        return page("spec.html", title=room.game.name, spec=room.row["spec"], lines=lines)

    async def not_found(request, exc):
        return error_page("there is no such page", 404)

    async def unavailable(request, exc):
        if request.url.path.endswith(("/view", "/act")):
            return JSONResponse({"error": str(exc)}, status_code=503)
        return error_page(str(exc), 503)

    routes = [
        Route("/", lobby),
        Route("/new", new_game, methods=["POST"]),
        Route("/created/{token}", created),
        Route("/t/{token}", table),
        Route("/t/{token}/view", view),
        Route("/t/{token}/act", act, methods=["POST"]),
        Route("/t/{token}/check", check, methods=["POST"]),
        Route("/t/{token}/tables", rule_tables),
        Route("/t/{token}/image/{name}", card_image),
        WebSocketRoute("/t/{token}/ws", socket),
        Route("/t/{token}/replay", replay),
        Route("/t/{token}/diagram.svg", diagram),
        Route("/t/{token}/spec", spec_source),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    async def backups():
        while True:
            await asyncio.sleep(backup_every)
            try:
                await asyncio.to_thread(store.backup, backup_dir, backup_keep)
            except RulebookError as exc:  # a damaged database is not copied over a good backup
                log.error("%s", exc)

    @contextlib.asynccontextmanager
    async def lifespan(app):
        task = asyncio.ensure_future(backups()) if backup_dir else None
        yield
        for room in list(rooms.rooms.values()):
            if room.bot_task is not None:
                room.bot_task.cancel()
        if task is not None:
            task.cancel()
            try:
                store.backup(backup_dir, backup_keep)
            except RulebookError as exc:
                log.error("%s", exc)
        store.close()

    app = Starlette(routes=routes, exception_handlers={404: not_found, StoreUnavailable: unavailable},
                    lifespan=lifespan)
    app.state.store, app.state.rooms, app.state.specs = store, rooms, served
    return app


def _option_docs(game) -> list:
    """The spec's options for the lobby: ``{"name", "default", "values", "doc"}``."""
    out = []
    for name, o in (game.spec.get("options") or {}).items():
        if not isinstance(o, dict):
            continue
        out.append({"name": name, "default": o.get("default"), "choices": o.get("values"),
                    "doc": _shorten(" ".join(str(o.get("doc") or "").split()), 300)})
    for name in (game.spec.get("presets") or {}):
        out.append({"name": "preset", "default": None, "choices": [name], "doc": "a named set of options"})
    return out
