"""What one seat may know: the one per-seat filter every output a person sees goes through.

``rulebook play`` and ``rulebook replay --seat`` print through it, :meth:`State.export
<interpreter.model.state.State.export>` writes through it, and the web table (``rulebook serve``,
:mod:`interpreter.web`) serves each seat and each spectator through it. The full record (``State.history``, ``State.to_json()``,
``play --save``) keeps everything; only what passes here is shown to a person.

A *seat* is a player's seat (int), or ``None`` for a spectator, who reads only what is public.
What a seat may not read:

- the cards of zones it may not see (``hidden`` zones, others' ``owner`` zones), except the cards
  a ``show`` step let it see (they are in its :meth:`observation <interpreter.model.state.State.observation>`);
- log lines with ``visible_to`` that do not name it (it reads their ``hidden_text``, if any);
- actions of ``choose`` steps with ``visible_to`` that do not name it (it reads their ``hidden_text``);
- the choices of others in a simultaneous decision, until everyone has chosen;
- the seed (the seed alone gives every shuffle, hence every hand).

Text that reaches a terminal also goes through :func:`sanitize`, so a spec or a player name
cannot move the cursor, clear the screen or fake a prompt.
"""
from __future__ import annotations

import re

from .errors import RulebookError

SPECTATOR = None

# ANSI/VT escape sequences: CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), and two-byte ESC x
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
# control characters (C0 but newline and tab, DEL, C1) and the Unicode controls that reorder or hide text
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def sanitize(text) -> str:
    """``text`` (any value; str() of it) safe to print on a terminal: escape sequences removed,
    other control characters (carriage return, backspace, bell, bidi overrides...) shown as
    ``\\xNN``/``\\uNNNN``; newlines and tabs kept."""
    text = _ESCAPES.sub("", str(text))
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                         else f"\\u{ord(m.group()):04x}", text)


def can_read(to, seat) -> bool:
    """Whether ``seat`` may read something shown to ``to`` (a list of seats, or None: everyone)."""
    return to is None or (seat is not None and seat in to)


def event_for(state, event: dict, seat) -> dict | None:
    """The engine ``event`` (see :meth:`Game.new_state <interpreter.engine.game.Game.new_state>`)
    as ``seat`` sees it, or None when it sees nothing of it. Returns a dict with ``kind``:

    - ``log``: ``text`` and ``table`` (score-table rows or None);
    - ``action``: ``player`` (seat) and ``text`` (the action);
    - ``note``: ``text``, what is shown in place of a private action (e.g. "Bot 2 made a hidden
      choice (discard)").

    A simultaneous choice is shown to nobody when it is made (it is revealed when everyone has
    chosen, as a ``reveal`` event that reads like an action)."""
    kind = event["kind"]
    to = event.get("to")
    if kind == "log":
        if can_read(to, seat):
            return {"kind": "log", "text": event["text"], "table": event.get("table")}
        if event.get("other"):
            return {"kind": "log", "text": event["other"], "table": None}
        return None
    if kind == "action" and event.get("hidden"):
        return None  # committed in secret: shown at the reveal
    if kind in ("action", "reveal"):
        if can_read(to, seat):
            return {"kind": "action", "player": event["player"], "text": event["text"]}
        return {"kind": "note", "text": event.get("other") or f"{state.player_name(event['player'])} made a hidden choice"}
    return None


def line_for(state, shown: dict) -> str:
    """A display event from :func:`event_for` as one plain line of text."""
    if shown["kind"] == "action":
        return f"{state.player_name(shown['player'])}: {shown['text']}"
    return shown["text"]


def unrevealed_entries(state) -> set:
    """The indices in ``state.history`` of the choices of a simultaneous decision not revealed yet
    (its choosers' last entries); every other entry reads the same for a seat from now on."""
    pending = state.pending
    if pending is not None and pending["simultaneous"] and pending["committed"]:
        from .engine.run import last_entries  # the commits so far: their choosers' last entries
        return set(last_entries(state.history, [int(p) for p in pending["committed"]]).values())
    return set()


def history_for(state, seat, start: int = 0, stop: int | None = None) -> list:
    """``state.history`` as ``seat`` may know it: a list of ``{"player": seat, "action": text}``,
    or ``{"player": seat, "hidden": text}`` for an action it may not read (a private action of
    another player, or another player's choice in a simultaneous decision not yet revealed).
    ``start``/``stop``: only the entries ``history[start:stop]``."""
    unrevealed = unrevealed_entries(state)
    out = []
    history = state.history
    for i in range(start, len(history) if stop is None else stop):
        player, text = history[i]
        secret = state.private.get(str(i))
        if player == seat:
            out.append({"player": player, "action": text})
        elif i in unrevealed:
            out.append({"player": player, "hidden": f"{state.player_name(player)} has chosen"})
        elif secret is not None and not can_read(secret[0], seat):
            out.append({"player": player, "hidden": secret[1]})
        else:
            out.append({"player": player, "action": text})
    return out


def log_for(state, seat) -> list | None:
    """The lines ``seat`` has read so far (log lines, actions, notes), by replaying the game's
    history from its seed with the events on; None when the State cannot be replayed (a scenario
    position set up by hand)."""
    if state.stacked:
        return None
    game = state.game
    try:
        replay = game.new_state(state.num_players, state.seed, player_names=state.player_names, events=[])
        for player, text in state.history:
            replay.apply(text, player)
    except RulebookError:
        return None
    out = []
    for event in replay.events:
        shown = event_for(replay, event, seat)
        if shown is not None:
            out.append(line_for(replay, shown))
    return out


def observation_for(state, seat) -> dict:
    """What ``seat`` may see now, as plain data: :meth:`State.observation
    <interpreter.model.state.State.observation>` for a seat (int), and for a spectator (``None``)
    the same shape with only what is public: no ``owner`` or ``hidden`` zone's cards (counts only),
    no card a ``show`` step showed to a seat, and in ``pending`` only who must decide and who has
    already chosen (``my_*`` keys left out). Raises :class:`RulebookError` for a seat that does
    not exist."""
    if seat is not SPECTATOR:
        return state.observation(seat)
    obs = state.game.observation(state, None)  # None is no seat: owner zones and shown cards stay hidden
    pending = obs.get("pending")
    if pending is not None:
        obs["pending"] = {k: v for k, v in pending.items() if not k.startswith("my_")}
    return obs


def export(state, seat) -> dict:
    """Everything ``seat`` may know of the game, as plain JSON data: ``game``, ``options``,
    ``num_players``, ``player_names``, ``seat``, ``observation`` (see :meth:`State.observation
    <interpreter.model.state.State.observation>`), ``history`` (see :func:`history_for`),
    ``log`` (see :func:`log_for`) and, once the game is over, ``scores`` and ``winners``.
    No seed, no hidden zone, no unrevealed choice of another player. Raises
    :class:`RulebookError` for a seat that does not exist."""
    observation = state.observation(seat)  # checks the seat
    out = {
        "format": "rulebook seat view 1", "game": state.game.name, "options": state.game.options,
        "num_players": state.num_players, "player_names": list(state.player_names), "seat": seat,
        "observation": observation, "history": history_for(state, seat), "log": log_for(state, seat),
        "terminal": state.is_terminal(),
    }
    if out["terminal"]:
        out["scores"] = state.scores()
        out["winners"] = state.winners()
    return out
