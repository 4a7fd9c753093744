"""Saving and loading States as JSON, with every invariant checked on load.

A saved State is plain JSON. Values the JSON model cannot hold are written in a tagged form
that reads back exactly: a card is ``{"card": id}``; a map whose keys are not all texts (numbers,
cards, ``null``), or that could be mistaken for a tag, is ``{"$map": [[key, value], ...]}``.

:func:`state_from_json` refuses, with a :class:`~interpreter.errors.RulebookError` that says what
is wrong and where (``vars.bid``, ``zones.hand[2]``, ``stack[1]``), any text that is not a State
of this very game: malformed or hostile JSON (deep nesting, huge numbers), a State of another spec
text or other options (the game's fingerprint), wrong types or shapes, cards lost, duplicated or
unknown; the engine adds its checks of the control stack (see
:func:`interpreter.engine.saved_check.check_control`). This module is data only: no engine import.
"""
from __future__ import annotations

import json
import math

from ..errors import RulebookError
from .cards import Card

FORMAT = "rulebook-state/2"
MAX_DEPTH = 100          # nesting of one saved value (a spec's data needs a few levels)
MAX_TEXT_CHARS = 50_000_000
MAX_STACK = 10_000       # frames of the control stack
MAX_SEED_DIGITS = 40
_TAGS = ("card", "$map")


class SaveError(RulebookError):
    """A saved State or game log cannot be loaded; the message says what and where."""


# -- game logs (rulebook play --save) -----------------------------------------------------------
LOG_DIGEST_KEYS = ("fingerprint", "options", "num_players", "seed", "player_names", "history", "scores")


def log_digest(data: dict) -> str:
    """The digest a game log (``play --save``) carries: ``"sha256:HEX"`` of the canonical JSON of
    what replays it (:data:`LOG_DIGEST_KEYS`: the spec's fingerprint, options, players, seed,
    actions and scores). A log whose digest differs was changed after it was written; the digest
    catches edits, it is no signature (anyone may compute it again)."""
    import hashlib
    body = json.dumps({k: data.get(k) for k in LOG_DIGEST_KEYS}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True)
    return "sha256:" + hashlib.sha256(body.encode("ascii")).hexdigest()


# -- encoding -----------------------------------------------------------------------------------
def encode(value, depth: int = 0):
    """``value`` (plain data with cards) as JSON data; see the module doc for the tags.

    Raises :class:`SaveError` for a value nested past :data:`MAX_DEPTH` or not plain data."""
    if depth > MAX_DEPTH:
        raise SaveError(f"a value is nested more than {MAX_DEPTH} levels deep: it cannot be saved")
    t = type(value)
    if t is Card:
        return {"card": value.id}
    if t is list or t is tuple:
        return [encode(v, depth + 1) for v in value]
    if t is dict:
        if all(type(k) is str for k in value) and not (len(value) == 1 and next(iter(value)) in _TAGS):
            return {k: encode(v, depth + 1) for k, v in value.items()}
        return {"$map": [[encode(k, depth + 1), encode(v, depth + 1)] for k, v in value.items()]}
    if value is None or t in (str, int, bool):
        return value
    if t is float:
        if not math.isfinite(value):
            raise SaveError(f"the number {value} cannot be saved (not finite)")
        return value
    raise SaveError(f"{value!r} is not plain data (a {t.__name__}) and cannot be saved")


_ENCODER = json.JSONEncoder(sort_keys=True, allow_nan=False, check_circular=False)  # reused: saving is frequent


def dumps(data) -> str:
    """JSON text of already-encoded data (strict JSON: no NaN)."""
    return _ENCODER.encode(data)


# -- decoding -----------------------------------------------------------------------------------
def loads(text, what: str = "the saved State"):
    """Parse JSON ``text`` with clear errors (never a Python traceback): not text, invalid JSON,
    numbers too long, nesting too deep, or NaN/Infinity."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise SaveError(f"{what} is not UTF-8 text") from None
    if not isinstance(text, str):
        raise SaveError(f"{what} must be JSON text, not a {type(text).__name__}")
    if len(text) > MAX_TEXT_CHARS:
        raise SaveError(f"{what} is too large ({len(text)} characters; at most {MAX_TEXT_CHARS})")
    depth = _max_depth(text)
    if depth > MAX_DEPTH + 20:
        raise SaveError(f"{what} is nested {depth} levels deep (at most {MAX_DEPTH + 20}): not a saved game")

    def no_constant(name):
        raise SaveError(f"{what} contains {name}, which is not a number JSON allows")

    try:
        return json.loads(text, parse_constant=no_constant, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        raise SaveError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:  # pragma: no cover - depth is checked above
        raise SaveError(f"{what} is nested too deeply") from None


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_SEED_DIGITS:
        raise SaveError(f"a number of {len(digits.lstrip('-'))} digits is longer than the {MAX_SEED_DIGITS} "
                        "a saved game may hold")
    return int(digits)


def _max_depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text``, outside strings (a linear scan)."""
    depth = best = 0
    in_str = esc = False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > best:
                best = depth
        elif ch in "]}":
            depth -= 1
    return best


def decode(game, value, where: str, depth: int = 0):
    """JSON data back to a plain value with cards; :class:`SaveError` naming ``where``."""
    if depth > MAX_DEPTH:
        raise SaveError(f"{where}: nested more than {MAX_DEPTH} levels deep")
    t = type(value)
    if t is dict:
        if len(value) == 1 and "card" in value:
            cid = value["card"]
            if type(cid) is not int or not 0 <= cid < len(game.cards):
                raise SaveError(f"{where}: {{\"card\": {cid!r}}} is not a card of {game.name} "
                                f"(card ids are 0..{len(game.cards) - 1})")
            return game.cards[cid]
        if len(value) == 1 and "$map" in value:
            pairs = value["$map"]
            if type(pairs) is not list:
                raise SaveError(f"{where}: $map must be a list of [key, value] pairs")
            out = {}
            for i, pair in enumerate(pairs):
                if type(pair) is not list or len(pair) != 2:
                    raise SaveError(f"{where}: $map entry {i} is not a [key, value] pair")
                key = decode(game, pair[0], f"{where} key {i}", depth + 1)
                if type(key) in (list, dict):
                    raise SaveError(f"{where}: a map key cannot be a {type(key).__name__}")
                out[key] = decode(game, pair[1], f"{where}[{key!r}]", depth + 1)
            return out
        return {k: decode(game, v, f"{where}.{k}", depth + 1) for k, v in value.items()}
    if t is list:
        return [decode(game, v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
    return value


# Lists, maps and tuples: the plain data that nests. The State keeps, per game, which variables
# hold such values (its copies deep-copy only those); saving rebuilds that record on load.
_NESTED = (dict, list, tuple)


def nested_keys(values: dict) -> tuple:
    """The keys of ``values`` whose value is a list, map or tuple (plain data nested inside)."""
    return tuple(k for k, x in values.items() if type(x) in _NESTED)


def has_nested(pvars: list) -> bool:
    """True when some player variable (of ``pvars``, one dict per seat) holds a list or map."""
    return any(type(x) in _NESTED for pv in pvars for x in pv.values())


# -- the State ----------------------------------------------------------------------------------
_KEYS = {"format", "game", "fingerprint", "options", "num_players", "seed", "rng_count", "vars", "pvars",
         "zones", "marks", "stack", "pending", "history", "player_names", "stacked"}
_OPTIONAL = {"shown", "private"}  # added later: a save without them has none


def state_to_json(state) -> str:
    """See :meth:`State.to_json`."""
    if state.chance is not None:
        raise RulebookError("a State with chance nodes (new_state(..., chance=True)) is saved as its history: "
                            "game.replay(num_players, seed, state.history) rebuilds it exactly")
    data = {
        "format": FORMAT, "game": state.game.name, "fingerprint": state.game.fingerprint,
        "options": encode(state.game.options), "num_players": state.num_players, "seed": state.seed,
        "rng_count": state.rng_count, "vars": encode(state.vars), "pvars": encode(state.pvars),
        "zones": state.zones, "marks": {str(k): encode(v) for k, v in state.marks.items()},
        "stack": [[f[0], f[1], encode(f[2])] for f in state.stack], "pending": encode(state.pending),
        "history": state.history, "player_names": state.player_names, "stacked": state.stacked,
        "shown": {str(k): v for k, v in state.shown.items()}, "private": state.private,
    }
    return dumps(data)


def _int(value, where, lo=None, hi=None):
    if type(value) is not int:
        raise SaveError(f"{where} must be a whole number, not {_short(value)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise SaveError(f"{where} is {value}: outside {lo}..{hi}")
    return value


def _short(value) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_seed(seed, what: str = "the seed") -> None:
    """Raise :class:`RulebookError` unless ``seed`` is a whole number of at most 40 digits."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise RulebookError(f"{what} must be a whole number, not {seed!r}")
    if seed.bit_length() > 128:
        raise RulebookError(f"{what} must have at most {MAX_SEED_DIGITS} digits (it fixes the shuffles; "
                            "any number of that size will do)")


def state_from_json(cls, game, text, control=None):
    """See :meth:`State.from_json`. ``control(game, state)`` (given by the engine, which knows
    the programs) checks the control stack and the pending decision, raising SaveError."""
    data = loads(text)
    if type(data) is not dict:
        raise SaveError(f"a saved State is a JSON object, not {_short(data)}")
    if data.get("game") != game.name:
        raise SaveError(f"this State is of {_short(data.get('game'))}, not {game.name}")
    if "format" not in data or "fingerprint" not in data:
        raise SaveError("this State was saved by an older Rulebook (no format or fingerprint): "
                        "replay its history instead (Game.replay)")
    if data["format"] != FORMAT:
        raise SaveError(f"unknown State format {_short(data['format'])} (this Rulebook reads {FORMAT})")
    missing = sorted(_KEYS - set(data))
    extra = sorted(set(data) - _KEYS - _OPTIONAL)
    if missing or extra:
        raise SaveError("the saved State " + (f"lacks {', '.join(missing)}" if missing else "")
                        + ("; " if missing and extra else "") + (f"has unknown keys {', '.join(extra)}" if extra else ""))
    options = decode(game, data["options"], "options")
    if options != game.options:
        raise SaveError(f"this State is of {game.name} with options {options}, not {game.options}")
    if data["fingerprint"] != game.fingerprint:
        raise SaveError(f"this State was saved with another version of the spec {game.file} "
                        "(its text has changed since): it cannot continue here; replay its history instead")
    n = _int(data["num_players"], "num_players", game.min_players, game.max_players)
    seed = data["seed"]
    try:
        check_seed(seed)
    except RulebookError as exc:
        raise SaveError(str(exc)) from None
    names = data["player_names"]
    if type(names) is not list or len(names) != n or not all(type(x) is str for x in names):
        raise SaveError(f"player_names must be a list of {n} texts")
    st = cls(game, n, seed, names)
    st.rng_count = _int(data["rng_count"], "rng_count", 0, 10 ** 15)
    if type(data["stacked"]) is not bool:
        raise SaveError("stacked must be true or false")
    st.stacked = data["stacked"]
    st.vars = _vars(game, data["vars"], game.var_defaults, "vars")
    pvars = data["pvars"]
    if type(pvars) is not list or len(pvars) != n:
        raise SaveError(f"pvars must be a list of {n} maps (one per player)")
    st.pvars = [_vars(game, pv, game.pvar_defaults, f"pvars[{i}]") for i, pv in enumerate(pvars)]
    st.nested_pvars = has_nested(st.pvars)
    st.nested_vars = nested_keys(st.vars)
    st.zones = _zones(game, data["zones"], n)
    st.marks = _marks(game, data["marks"], n)
    st.history = _history(data["history"], n)
    st.shown = _shown(game, data.get("shown", {}), n)
    st.private = _private(data.get("private", {}), n, len(st.history))
    st.stack = _stack(game, data["stack"])
    st.pending = _pending(game, data["pending"], n)
    if bool(st.stack) != (st.pending is not None):
        raise SaveError("a saved State waits for a decision (stack and pending) or is over (neither)")
    if control is not None:
        control(game, st)
    return st


def _vars(game, value, declared, where):
    if type(value) is not dict:
        raise SaveError(f"{where} must be a map of variables")
    if set(value) != set(declared):
        lost = sorted(set(map(str, declared)) - set(value))
        odd = sorted(set(value) - set(map(str, declared)))
        raise SaveError(f"{where}: " + "; ".join(
            ([f"missing {', '.join(lost)}"] if lost else []) + ([f"not declared in the spec: {', '.join(odd)}"] if odd else [])))
    return {k: decode(game, v, f"{where}.{k}") for k, v in value.items()}


def _zones(game, value, n):
    if type(value) is not dict or set(value) != set(game.zones):
        raise SaveError("zones must map exactly the spec's zones (" + ", ".join(game.zones) + ") to card lists")
    ncards = len(game.cards)
    seen = [None] * ncards
    in_play = set(game.cards_in_play(n)) if hasattr(game, "cards_in_play") else set(range(ncards))
    for cid in range(ncards):
        if cid not in in_play:
            seen[cid] = "(out of play)"
    out = {}

    def cards(ids, where):
        if type(ids) is not list:
            raise SaveError(f"{where} must be a list of card ids")
        for cid in ids:
            _int(cid, f"{where}: card id", 0, ncards - 1)
            if seen[cid] == "(out of play)":
                raise SaveError(f"{where}: card {game.cards[cid].name} (id {cid}) is not in play with {n} players")
            if seen[cid] is not None:
                raise SaveError(f"card {game.cards[cid].name} (id {cid}) is in {seen[cid]} and in {where}: "
                                "every card must be in exactly one place")
            seen[cid] = where
        return list(ids)

    def zone(z, where, sets):
        if not sets:
            return cards(z, where)
        if type(z) is not list:
            raise SaveError(f"{where} must be a list of sets (card lists)")
        return [cards(ids, f"{where} set {j}") for j, ids in enumerate(z)]

    for name, zdef in game.zones.items():
        z = value[name]
        sets = getattr(zdef, "sets", False)
        if zdef.per_player:
            if type(z) is not list or len(z) != n:
                raise SaveError(f"zones.{name} must be a list of {n} card lists (one per player)")
            out[name] = [zone(ids, f"zones.{name}[{i}]", sets) for i, ids in enumerate(z)]
        else:
            out[name] = zone(z, f"zones.{name}", sets)
    lost = [game.cards[i].name for i, w in enumerate(seen) if w is None]  # out-of-play cards are marked
    if lost:
        more = f" and {len(lost) - 5} more" if len(lost) > 5 else ""
        raise SaveError(f"{len(lost)} card(s) are in no zone ({', '.join(lost[:5])}{more}): "
                        "every card must be in exactly one place")
    return out


def _marks(game, value, n):
    if type(value) is not dict:
        raise SaveError("marks must be a map from card id to [seat, mode]")
    out = {}
    for k, v in value.items():
        if not k.isdecimal() or len(k) > 9 or int(k) >= len(game.cards):
            raise SaveError(f"marks: {_short(k)} is not a card id")
        card = game.cards[int(k)]
        if type(v) is not list or len(v) != 2:
            raise SaveError(f"marks[{k}] must be [seat, mode]")
        _int(v[0], f"marks[{k}] seat", 0, n - 1)
        if v[1] is not None and (type(v[1]) is not str or v[1] not in card.modes):
            raise SaveError(f"marks[{k}]: {card.name} has no mode {_short(v[1])}")
        out[int(k)] = list(v)
    return out


def _seats(value, where, n):
    if type(value) is not list:
        raise SaveError(f"{where} must be a list of seats")
    for p in value:
        _int(p, f"{where}: seat", 0, n - 1)
    return list(value)


def _shown(game, value, n):
    if type(value) is not dict:
        raise SaveError("shown must be a map from card id to the seats it was shown to")
    out = {}
    for k, v in value.items():
        if not k.isdecimal() or len(k) > 9 or int(k) >= len(game.cards):
            raise SaveError(f"shown: {_short(k)} is not a card id")
        out[int(k)] = _seats(v, f"shown[{k}]", n)
    return out


def _private(value, n, actions):
    if type(value) is not dict:
        raise SaveError("private must be a map from action number to [seats, text]")
    out = {}
    for k, v in value.items():
        if not k.isdecimal() or len(k) > 9 or int(k) >= max(actions, 1) + 1:
            raise SaveError(f"private: {_short(k)} is not the number of an action in the history")
        if v is None:
            out[k] = None
            continue
        if type(v) is not list or len(v) != 2 or not (v[1] is None or type(v[1]) is str):
            raise SaveError(f"private[{k}] must be [seats who read the action, the text the others read]")
        out[k] = [_seats(v[0], f"private[{k}]", n), v[1]]
    return out


def _history(value, n):
    if type(value) is not list:
        raise SaveError("history must be a list of [seat, action] entries")
    for i, h in enumerate(value):
        if type(h) is not list or len(h) != 2 or type(h[1]) is not str:
            raise SaveError(f"history[{i}] must be a [seat, action text] pair")
        _int(h[0], f"history[{i}] seat", 0, n - 1)
    return [list(h) for h in value]


def _stack(game, value):
    if type(value) is not list or len(value) > MAX_STACK:
        raise SaveError(f"stack must be a list of at most {MAX_STACK} frames [phase, position, locals]")
    out = []
    for i, f in enumerate(value):
        if type(f) is not list or len(f) != 3:
            raise SaveError(f"stack[{i}] must be [phase, position, locals]")
        phase, pc, loc = f
        if type(phase) is not str or phase not in game.programs:
            raise SaveError(f"stack[{i}]: {_short(phase)} is not a phase of {game.name}")
        _int(pc, f"stack[{i}] position", 0, len(game.programs[phase]))
        if type(loc) is not dict:
            raise SaveError(f"stack[{i}] locals must be a map")
        out.append([phase, pc, decode(game, loc, f"stack[{i}] locals")])
    return out


def _pending(game, value, n):
    if value is None:
        return None
    keys = {"players", "committed", "simultaneous"}
    if type(value) is not dict or not keys <= set(value) <= keys | {"realtime", "picked"} \
            or value.get("realtime", True) is not True:
        raise SaveError("pending must be null or {players, committed, simultaneous} (and realtime: true)")
    players = value["players"]
    if type(players) is not list or not players:
        raise SaveError("pending.players must be a non-empty list of seats")
    for p in players:
        _int(p, "pending.players: seat", 0, n - 1)
    if len(set(players)) != len(players):
        raise SaveError("pending.players names a seat twice")
    if type(value["simultaneous"]) is not bool or (not value["simultaneous"] and len(players) != 1
                                                    and "realtime" not in value):
        raise SaveError("pending.simultaneous must be true or false (false: exactly one player)")
    committed = value["committed"]
    if type(committed) is not dict:
        raise SaveError("pending.committed must be a map from seat to choice")
    out = {}
    for k, v in committed.items():
        if not k.isdecimal() or len(k) > 9 or int(k) not in players:
            raise SaveError(f"pending.committed: {_short(k)} is not a seat that is choosing")
        if type(v) is not list or len(v) != 4 or v[0] != int(k):
            raise SaveError(f"pending.committed[{k}] must be [seat, value, card id, mode]")
        if v[2] is not None:
            _int(v[2], f"pending.committed[{k}] card id", 0, len(game.cards) - 1)
        out[k] = (v[0], decode(game, v[1], f"pending.committed[{k}]"), v[2], v[3])
    if len(out) >= len(players):
        raise SaveError("pending: every player has committed, so the decision should be over")
    pending = {"players": list(players), "committed": out, "simultaneous": value["simultaneous"]}
    if "picked" in value:  # a set being built card by card: {seat: [card ids]}
        picked = value["picked"]
        if type(picked) is not dict:
            raise SaveError("pending.picked must be a map from seat to card ids")
        for k, ids in picked.items():
            if not k.isdecimal() or len(k) > 9 or int(k) not in players or type(ids) is not list:
                raise SaveError(f"pending.picked: {_short(k)} is not a seat that is choosing")
            for cid in ids:
                _int(cid, f"pending.picked[{k}]: card id", 0, len(game.cards) - 1)
        pending["picked"] = {k: list(v) for k, v in picked.items()}
    if "realtime" in value:
        if out:
            raise SaveError("pending: a real-time block has no committed choices")
        pending["realtime"] = True
    return pending


