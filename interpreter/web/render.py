"""What one seat (or a spectator) is shown at the web table, built only through the per-seat filter.

:func:`table_view` turns a State into a plain dict for the page template, reading nothing of the
State but what :mod:`interpreter.view` lets the viewer know: the viewer's observation
(:func:`interpreter.view.observation_for`), the log lines it may read
(:func:`interpreter.view.event_for`), its own legal actions, the public score table
(``display.player_columns``, as ``rulebook play`` shows it) and the spec line of the pending
decision (public: the rules are public). The full State, its seed and its history never go into a
view. Nothing here knows any game: zones, cards and actions are shown by their spec names, drawn
as the spec's ``appearance:`` says (:mod:`interpreter.spec.appearance`, defaults otherwise).
"""
from __future__ import annotations

from ..errors import IllegalAction, RulebookError
from ..spec.appearance import SQUARE
from ..spec.appearance import of as appearance_of
from ..view import SPECTATOR, event_for, line_for, observation_for

MAX_BUTTONS = 80  # more legal actions than this (a product choice): the first ones and a text box
MAX_LOG = 300     # the log lines shown (the newest)


def _card(entry, look) -> dict:
    """A card as observed (a name, or ``{"card", "played_by", "mode"}``) as ``{"name", "by", "mode",
    "face"}`` (``face``: :meth:`Appearance.face <interpreter.spec.appearance.Appearance.face>` of its name)."""
    if isinstance(entry, dict):
        name = entry.get("card")
        return {"name": name, "by": entry.get("played_by"), "mode": entry.get("mode"), "face": look.face(name)}
    return {"name": entry, "by": None, "mode": None, "face": look.face(entry)}


def _cards(part, look):
    """A zone (or a seat's part of one) as observed: ``{"cards": [...]}``, ``{"count": n, "seen": [...]}``
    (hidden cards) or ``{"sets": [[cards]...]}`` / ``{"set_counts": [n...]}`` (a zone of sets)."""
    if isinstance(part, dict):
        if "sets" in part:
            return {"set_counts": list(part["sets"])}
        return {"count": part.get("count", 0), "seen": [look.face(n) for n in part.get("seen") or []]}
    if part and isinstance(part[0], list):
        return {"sets": [[_card(c, look) for c in s] for s in part]}
    return {"cards": [_card(c, look) for c in part]}


def _scalar(v) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _short(v) -> str:
    """A variable's value as short text (true/false, -, lists joined)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(_short(x) for x in v) if v else "(none)"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_short(x)}" for k, x in v.items())
    return str(v)


def pending_step(state):
    """The compiled step the game waits at (a ``choose`` or ``realtime`` instruction), or None."""
    if state.pending is None or not state.stack:
        return None
    frame = state.stack[-1]
    try:
        return state.game.programs[frame[0]][frame[1]]
    except (KeyError, IndexError):
        return None


def step_line(state) -> int | None:
    """The spec line of the step the game waits at (public: the rules are public), or None."""
    instr = pending_step(state)
    if instr is None or getattr(instr, "path", None) is None:
        return None
    try:
        return state.game.position(instr.path).line
    except Exception:  # noqa: BLE001 - a position is only a highlight
        return None


def step_doc(state) -> str | None:
    """The ``doc:`` of the spec step the game waits at (public: the rules are public), or None."""
    instr = pending_step(state)
    try:
        node = state.game.spec
        for key in instr.path:
            node = node[key]
    except (AttributeError, KeyError, IndexError, TypeError):
        return None
    doc = node.get("doc") if isinstance(node, dict) else None
    return " ".join(doc.split()) if isinstance(doc, str) and doc.strip() else None


def log_lines(state, events, seat) -> list:
    """The lines of ``events`` (engine events of ``state``) that ``seat`` may read, oldest first:
    ``{"text", "table"}`` (``table``: score rows with their column titles, or None)."""
    out = []
    for ev in events:
        shown = event_for(state, ev, seat)
        if shown is None:
            continue
        out.append({"kind": shown["kind"], "text": line_for(state, shown), "table": shown.get("table")})
    return out[-MAX_LOG:]


def _score_rows(state) -> tuple:
    """``(titles, rows)`` of the spec's score table now (``display.player_columns``)."""
    game = state.game
    titles = [t for t, _ in getattr(game, "columns", ())]
    if not titles:
        return [], []
    rows = game.table_rows(state)
    return titles, [{"name": state.player_name(p), "cells": [_short(r.get(t)) for t in titles]}
                    for p, r in enumerate(rows)]


def _matches(text: str, name: str, verb: str | None) -> bool:
    """Whether action ``text`` plays card ``name``: ``VERB NAME`` or ``VERB NAME as MODE``."""
    if verb is None:
        return False
    head = f"{verb} {name}"
    return text == head or text.startswith(head + " as ")


def _set_bounds(state, instr, seat) -> dict:
    """``{"min", "max"}`` of a set choice for ``seat`` (None where unknown)."""
    from ..engine.run import _ctx_for
    out = {}
    for key in ("min", "max"):
        f = getattr(instr, key, None)
        try:
            out[key] = f(_ctx_for(state, seat, instr)) if f is not None else None
        except Exception:  # noqa: BLE001 - a hint only: the engine checks the set
            out[key] = None
    if out["min"] is None and out["max"] is not None:
        out["min"] = 1
    return out


def _plays(text: str, name: str, verb: str | None) -> bool:
    """Whether action ``text`` plays card ``name``: ``VERB NAME`` (``VERB NAME as MODE``) of the
    open card choice, or, in a real-time phase or a choice of listed options, any action naming the card."""
    return _matches(text, name, verb) if verb is not None else name in text.split(" ")


def refusal(state, seat, text: str) -> str | None:
    """Why ``seat`` may not send action ``text`` now (the engine's reason), or None when it may:
    tried on a copy of the State, so nothing changes."""
    probe = state.clone()
    probe.events = None
    try:
        probe.apply(text, seat)
    except IllegalAction as exc:
        return str(exc.reason)
    except RulebookError as exc:
        return str(exc).split("\n")[0]
    return None


def _mark_last(zones, last: str | None) -> None:
    """Outline the cards of the centre that the last action (``last``, a log line) names."""
    if not last:
        return
    words = set(last.replace(":", " ").split())
    for z in zones:
        if z["place"] == "centre":
            for c in z.get("cards", []):
                c["last"] = c["name"] in words


def _seats(zones, rows, titles, names, seat, deciding, chosen) -> list:
    """The players around the table, the viewer last (at the bottom), the others clockwise from the
    viewer's left: ``{"seat", "name", "me", "turn", "chosen", "cells" [(title, value)], "zones"
    [{"zone", "title", "visibility", "show", ...the seat's part of the zone}]}`` (the zones drawn at
    the seats, in spec order)."""
    n = len(names)
    order = [(seat + k) % n for k in range(1, n + 1)] if seat is not SPECTATOR else list(range(n))
    out = []
    for p in order:
        cells = list(zip(titles, rows[p]["cells"])) if p < len(rows) else []
        parts = [{"zone": z["name"], "title": z["title"], "visibility": z["visibility"], "show": z["show"],
                  **z["parts"][p]} for z in zones if z["per_player"] and z["place"] == "seat"]
        out.append({"seat": p, "name": names[p], "me": p == seat, "turn": p in deciding, "chosen": p in chosen,
                    "cells": cells, "zones": parts})
    return out


def _board(game, look, variables, actions) -> dict | None:
    """The board of ``appearance: board`` as rows of squares ``{"cell", "colour", "fill", "covered",
    "token", "acts"}`` (``acts``: the viewer's legal actions naming that square), or None."""
    spec = look.board
    if not spec:
        return None
    name = spec["grid"]
    grid = game.boards.get(variables.get(name) if name in variables else name)
    if grid is None:
        return None
    covered = variables.get(spec.get("covered")) or {}
    tokens = variables.get(spec.get("tokens")) or []
    tokens = tokens if isinstance(tokens, list) else []
    from ..model.board import cell_name
    rows = []
    for y in range(grid.height):
        row = []
        for x in range(grid.width):
            cell = cell_name(x, y)
            colour = grid.colours.get(cell)
            cover = covered.get(cell) if isinstance(covered, dict) else None
            row.append({"cell": cell, "colour": colour, "fill": SQUARE.get(str(colour), look.tint(colour)[1]) if colour else None,
                        "covered": None if cover is None else str(cover), "token": tokens.index(cell) + 1 if cell in tokens else None,
                        "acts": [a for a in actions if cell in a.split(" ")]})
        rows.append(row)
    return {"name": grid.name, "rows": rows, "width": grid.width}


def _piles(look, variables) -> dict | None:
    """The piles of ``appearance: piles`` (a game variable listing maps) as card faces, or None."""
    spec = look.piles
    if not spec:
        return None
    items = variables.get(spec["list"])
    out = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            colour, mark = item.get(spec.get("colour", "colour")), item.get(spec.get("mark", "mark"))
            tint = look.tint(colour) if colour is not None else ("#fdfbf5", "#222222")
            out.append({"mark": "" if mark is None else str(mark), "suit": "" if colour is None else str(colour),
                        "tints": [tint]})
    return {"title": spec.get("title") or str(spec["list"]).replace("_", " "), "piles": out}


def table_view(state, seat, events, move: int) -> dict:
    """The table as ``seat`` (int, or None for a spectator) may see it, as plain data for the page
    template: ``players`` (names, whose turn, chosen), ``zones`` (each zone: shared cards, or one
    part per seat), ``vars`` (the game's variables as short texts), ``scores`` (titles and rows),
    ``log``, ``status`` (a sentence: whose turn, waiting for the others, game over), ``actions``
    (this seat's legal actions), ``set_choice`` (the cards of a set choice, for a multi-select),
    ``card_verb`` (the verb of a card choice: a click on a card sends ``VERB NAME``),
    ``line`` (the pending step's spec line), ``move`` (the move number a request must carry), and
    for the table's drawing: ``seats`` (see :func:`_seats`), ``board`` and ``piles`` (the spec's
    ``appearance:``, or None), ``last`` (the newest action line of the seat's own log) and ``back``;
    every card carries its ``face`` (:mod:`interpreter.spec.appearance`), a card of the viewer's with
    no legal action ``why`` (the engine's reason), a set choice's cards ``pickable``.
    Reads the State only through :func:`interpreter.view.observation_for` and
    :func:`interpreter.view.event_for`, plus ``seat``'s own legal actions."""
    game = state.game
    obs = observation_for(state, seat)
    n = state.num_players
    names = [state.player_name(p) for p in range(n)]
    pending = obs.get("pending") or {}
    deciding = [p for p in pending.get("players", []) if p not in pending.get("chosen", [])]
    actions = []
    if seat is not SPECTATOR and not obs["terminal"]:
        actions = [a.text for a in state.legal_actions(seat)[:MAX_BUTTONS + 1]]
    more = len(actions) > MAX_BUTTONS
    actions = actions[:MAX_BUTTONS]
    instr = pending_step(state)
    verb = getattr(instr, "action", None) if instr is not None and getattr(instr, "cards", None) is not None else None
    my_turn = bool(actions)
    # a set choice (choose with min/max): the candidate cards as a multi-select, sent whole
    set_choice = None
    if my_turn and pending.get("my_picked") is not None and getattr(instr, "is_set", False):
        picks = [a[len("pick "):] for a in actions if a.startswith("pick ")]
        if picks:
            set_choice = {"verb": instr.action, "cards": picks, **_set_bounds(state, instr, seat)}
            actions = [a for a in actions if not a.startswith("pick ") and a != "undo"]
    look = appearance_of(game)
    set_names = set(set_choice["cards"]) if set_choice else set()
    reasons = {}  # card name -> why it may not be played now (the server's own refusal, shortened)
    zones = []
    for name, zdef in game.zones.items():
        part = obs["zones"][name]
        place, show = look.place(name, zdef.per_player), look.show(name)
        title = look.title(name)
        if zdef.per_player:
            parts = []
            for p, z in enumerate(part):
                shown = _cards(z, look)
                mine = seat is not SPECTATOR and p == seat
                for c in shown.get("cards", []):
                    c["acts"] = [a for a in actions if _plays(a, c["name"], verb)] if mine else []
                    # a card of one's own hidden hand is clickable while a card choice is open: a
                    # card with no legal action sends VERB NAME, and the server says why it is refused
                    c["clickable"] = mine and my_turn and not set_choice and (
                        bool(c["acts"]) or (verb is not None and zdef.visibility == "owner"))
                    c["pickable"] = mine and c["name"] in set_names
                    if c["clickable"] and not c["acts"]:
                        if c["name"] not in reasons:
                            reasons[c["name"]] = (refusal(state, seat, f"{verb} {c['name']}") or "").split(" (legal: ")[0]
                        c["why"] = reasons[c["name"]]
                parts.append({"seat": p, "name": names[p], "mine": mine, **shown})
            zones.append({"name": name, "title": title, "per_player": True, "visibility": zdef.visibility,
                          "parts": parts, "place": place, "show": show, "doc": None})
        else:
            shown = _cards(part, look)
            for c in shown.get("cards", []):
                c["acts"], c["clickable"], c["pickable"] = [], False, False
            zones.append({"name": name, "title": title, "per_player": False, "visibility": zdef.visibility,
                          "place": place, "show": show, **shown})
    if set_choice:  # candidates of the set not among the viewer's own cards on the table: picked in the form
        held = {c["name"] for z in zones if z["per_player"] for c in z["parts"][seat].get("cards", [])}
        set_choice["extra"] = [look.face(n) for n in set_choice["cards"] if n not in held]
    variables = [{"name": k, "value": _short(v)} for k, v in sorted(obs["vars"].items())
                 if _scalar(v) or (isinstance(v, list) and len(v) <= 12 and all(_scalar(x) for x in v))]
    titles, rows = _score_rows(state)
    for p, row in enumerate(rows):
        row["turn"] = p in deciding
        row["chosen"] = p in pending.get("chosen", [])
        row["me"] = p == seat
    you = names[seat] if seat is not SPECTATOR else None
    if obs["terminal"]:
        scores = state.scores()
        winners = state.winners()
        status = "Game over. " + ("Winner: " if len(winners) == 1 else "Winners: ") + \
            ", ".join(names[p] for p in winners) + " — scores " + \
            ", ".join(f"{names[p]} {scores[p]}" for p in range(n))
    elif pending.get("realtime"):
        status = ("Real time: everyone plays at once — act whenever you can." if my_turn
                  else "Real time: everyone plays at once; you have no legal action right now.") \
            if seat is not SPECTATOR else "Real time: everyone plays at once."
    elif seat is not SPECTATOR and pending.get("my_choice") is not None:
        others = [names[p] for p in deciding]
        status = f"You chose “{pending['my_choice']}”. Waiting for the others: " + ", ".join(others) + "." \
            if others else f"You chose “{pending['my_choice']}”."
    elif my_turn and len(pending.get("players", [])) > 1:
        status = "Your turn: everyone chooses at once, in secret (revealed when all have chosen)."
    elif my_turn:
        status = "Your turn."
    else:
        status = "Waiting for " + ", ".join(names[p] for p in deciding) + "." if deciding else ""
    log = log_lines(state, events, seat)
    last = next((line["text"] for line in reversed(log) if line["kind"] == "action"), None)
    _mark_last(zones, last)
    return {
        "seats": _seats(zones, rows, titles, names, seat, deciding, pending.get("chosen", [])),
        "board": _board(game, look, obs["vars"], actions if my_turn else []),
        "piles": _piles(look, obs["vars"]), "last": last, "back": look.back,
        "game": game.name, "seat": seat, "you": you, "move": move, "players": names,
        "deciding": deciding, "chosen": list(pending.get("chosen", [])),
        "simultaneous": len(pending.get("players", [])) > 1 and not pending.get("realtime"),
        "realtime": bool(pending.get("realtime")), "terminal": obs["terminal"],
        "phase": [p for p in obs.get("phase", []) if p != "flow"],
        "zones": zones, "vars": variables, "score_titles": titles, "score_rows": rows,
        "log": log, "status": status, "actions": actions, "more_actions": more,
        "set_choice": set_choice, "card_verb": verb if my_turn else None, "my_turn": my_turn,
        "line": step_line(state) if not obs["terminal"] else None,
        "picked": pending.get("my_picked") or [],
        "doc": step_doc(state) if my_turn else None,
    }
