"""Rule scenarios: set up a position, apply actions, check what the rulebook says.

A scenario file (YAML, schema ``schemas/scenario.schema.json``) names its spec, the
rule it checks, a position (start phase, variables, zones), a list of actions —
each may instead be a refusal check or a checkpoint — and the expected outcome.
See ``docs/scenarios.md``.

A mistake in the scenario itself (a seat that does not exist, an unknown card, variable
or zone, an expression that fails) is reported as ``file:line:col`` with a hint, as a
failure of that scenario: it never stops a run of many scenarios.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .engine.run import _plainify, advance
from .errors import Diagnostic, IllegalAction, RulebookError, SpecError, did_you_mean
from .expr.compiler import ExprNameError, ExprSyntaxError, parse
from .model.state import State, has_nested, nested_keys
from .spec.loader import load_game, read_text, schema_diagnostics
from .spec.yamlpos import load_yaml, position_of

REPO = Path(__file__).resolve().parents[1]

SCENARIO_HINT = ("a scenario is a YAML mapping with rule, game (or spec), players, and optionally options, "
                 "seed, start, setup, actions and expect (see docs/scenarios.md)")
ACTION_HINT = ("an action is \"SEAT: text\" (e.g. \"0: bid 1\"), {refuse: \"SEAT: text\", reason: WORDS} "
               "or {expect: {...}}")

# errors a scenario's own expression may raise while it is evaluated (as the engine's run loop)
_PY_ERRORS = (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError, RecursionError)


@dataclass
class ScenarioResult:
    """Outcome of one scenario: ``path``, ``rule`` (text), ``failures`` (list of str; empty
    when it passed) and ``checks`` (how many expectations were compared)."""

    path: str
    rule: str
    failures: list = field(default_factory=list)
    checks: int = 0

    @property
    def passed(self) -> bool:
        return not self.failures and self.checks > 0


_GAME_CACHE: dict = {}


def _game(spec_path: Path, options: dict):
    key = (str(spec_path), tuple(sorted((k, str(v)) for k, v in options.items())))
    if key not in _GAME_CACHE:
        _GAME_CACHE[key] = load_game(spec_path, options)
    return _GAME_CACHE[key]


class _Where:
    """Locates scenario paths (``("setup", "zones", "hand", 7)``) as ``file:line:col``."""

    def __init__(self, file: str, positions: dict | None):
        self.file, self.positions = file, positions or {}

    def pos(self, path, key: bool = False):
        p = position_of(self.positions, path)
        if key and tuple(path) in self.positions and p.key_line:
            return p.key_line, p.key_column
        return p.line, p.column

    def error(self, path, message: str, hint: str = "", key: bool = False) -> SpecError:
        line, col = self.pos(path, key)
        return SpecError([Diagnostic(self.file, line, col, message, hint)])

    def text(self, path, message: str, hint: str = "", key: bool = False) -> str:
        return str(self.error(path, message, hint, key))


def _scenario_wording(d: Diagnostic) -> Diagnostic:
    """A loader/schema diagnostic reworded for a scenario file (the loader speaks of specs)."""
    message, hint = d.message, d.hint
    if message == "the file is empty":
        hint = SCENARIO_HINT
    elif message.startswith("the spec: "):
        message = "the scenario: " + message[len("the spec: "):]
        if "not a known step" in message or "valid under" in message:  # the oneOf of game/spec
            message = "the scenario: give either game: NAME or spec: PATH (exactly one of the two)"
            hint = "game: NAME runs specs/NAME.yaml of this checkout; spec: is a path relative to this file"
        elif not hint or "missing required key" in message:
            hint = hint + ("; " if hint else "") + SCENARIO_HINT
    elif message.startswith("actions.") and ("not a known step" in message or "valid under" in message
                                             or ": must be " in message):  # the oneOf of the action forms
        message = message.split(":")[0] + ": not an action"
        hint = ACTION_HINT
    elif message.startswith("actions.") and " does not match " in message:  # a refuse: without "SEAT:"
        message = message.split(":")[0] + ": not \"SEAT: text\""
        hint = ACTION_HINT
    return Diagnostic(d.file, d.line, d.column, message, hint, d.severity)


def read_scenario(path, text: str | None = None) -> tuple[dict, dict]:
    """Read and schema-check a scenario file (``text``: its text, instead of the file's, as an
    editor holds it): ``(data, positions)``; raises SpecError with file:line:col."""
    file = str(path)
    text = read_text(path) if text is None else text
    try:
        data, positions = load_yaml(text, file)
    except SpecError as exc:
        raise SpecError([_scenario_wording(d) for d in exc.diagnostics]) from None
    if not isinstance(data, dict):
        raise SpecError([Diagnostic(file, 1, 1, "a scenario is a YAML mapping, not a "
                                    f"{type(data).__name__}", SCENARIO_HINT)])
    if "rule" not in data and {"cards", "flow", "zones"} & set(data):
        raise SpecError([Diagnostic(file, 1, 1, "this looks like a game spec, not a scenario",
                                    "run rulebook validate on specs; rulebook test runs scenario files "
                                    "(see docs/scenarios.md)")])
    diags = schema_diagnostics(data, positions, file, "scenario")
    if diags:
        raise SpecError([_scenario_wording(d) for d in diags])
    return data, positions


def load_scenario(path) -> dict:
    """Read and schema-check a scenario file; raises SpecError with file:line:col."""
    return read_scenario(path)[0]


def spec_path_of(path: Path, data: dict) -> Path:
    """The spec a scenario runs: ``spec:`` relative to the file, or ``game: NAME``, the file
    specs/NAME.yaml of this checkout."""
    if "spec" in data:
        return (path.parent / data["spec"]).resolve()
    return REPO / "specs" / f"{data['game']}.yaml"


def _seat_of(key, n: int):
    """``key`` as a seat number in 0..n-1, or None."""
    if isinstance(key, bool):
        return None
    if isinstance(key, str) and key.strip().isdecimal():
        key = int(key)
    if isinstance(key, int) and 0 <= key < n:
        return key
    return None


def _no_seat(key, n: int) -> str:
    return f"there is no seat {key} ({n} players: seats 0..{n - 1})"


def _sorted(items: list) -> list:
    """``items`` sorted; mixed kinds (a mistake in the file) sorted by their text, never an error."""
    try:
        return sorted(items)
    except TypeError:
        return sorted(items, key=repr)


def _seat_items(value):
    """``{seat: x}`` or a list indexed by seat, as (key, x) pairs."""
    return value.items() if isinstance(value, dict) else enumerate(value or [])


def _unknown_cards(game, names) -> str:
    """A hint on the names in ``names`` (card names, or action texts whose words may be card names)
    that close-match a card of ``game`` but are none (a typo): ``" ('blue-l' is no card of GAME:
    did you mean 'blue-1'?)"``, else ``""``. Anything not a string is ignored."""
    words = []
    for item in names if isinstance(names, list) else [names]:
        for x in item if isinstance(item, list) else [item]:
            if isinstance(x, str):
                words += [x] if x in game.card_names else [x, *x.replace(",", " ").split()]
    seen, notes = set(), []
    for w in words:
        if w in game.card_names or w in seen:
            continue
        seen.add(w)
        if hint := did_you_mean(w, game.card_names):
            notes.append(f"{w!r} is no card of {game.name}: {hint.strip()}")
    return f" ({'; '.join(notes)})" if notes else ""


def _known(names) -> str:
    names = list(names)
    return ", ".join(names) if names else "none"


def build_state(game, data: dict, positions: dict | None = None, file: str = "<scenario>") -> State:
    """The scenario's starting position (not yet advanced). Raises SpecError (file:line:col
    when ``positions`` are given) for a setup the spec cannot have."""
    where = _Where(file, positions)
    n = data["players"]
    if not game.min_players <= n <= game.max_players:
        raise where.error(("players",), f"{game.name} is for {game.min_players}-{game.max_players} players, "
                                        f"not {n}", "change players:")
    setup = data.get("setup") or {}
    if setup.get("boards"):
        game = _with_boards(game, setup["boards"], where)
    state = State(game, n, data.get("seed", 0))
    state.zones[game.initial_zone].extend(game.cards_in_play(n))
    state.stacked = bool(setup.get("stacked", False))
    for name, value in (setup.get("vars") or {}).items():
        path = ("setup", "vars", name)
        if name not in state.vars:
            raise where.error(path, f"setup.vars: {game.name} has no variable {name!r}",
                              f"variables: {_known(state.vars)}", key=True)
        state.vars[name] = _cardify(game, value, where, path)
    pv = setup.get("player_vars") or {}
    for key, values in _seat_items(pv):
        path = ("setup", "player_vars", key)
        seat = _seat_of(key, n)
        if seat is None:
            raise where.error(path, f"setup.player_vars: {_no_seat(key, n)}",
                              "player_vars is {SEAT: {name: value}} or a list with one entry per seat", key=True)
        if not isinstance(values, dict) and values is not None:
            raise where.error(path, f"setup.player_vars.{key}: give {{name: value}}, not {values!r}")
        for name, value in (values or {}).items():
            if name not in state.pvars[seat]:
                raise where.error(path + (name,), f"setup.player_vars: players have no variable {name!r}",
                                  f"player variables: {_known(state.pvars[seat])}", key=True)
            state.pvars[seat][name] = _cardify(game, value, where, path + (name,))
    state.nested_pvars = has_nested(state.pvars)
    state.nested_vars = nested_keys(state.vars)
    zones = setup.get("zones") or {}
    # the initial zone last: it receives what the other zones did not take
    for zone in sorted(zones, key=lambda z: z == game.initial_zone):
        content = zones[zone]
        path = ("setup", "zones", zone)
        if zone not in game.zones:
            raise where.error(path, f"setup.zones: {game.name} has no zone {zone!r}",
                              f"zones: {_known(game.zones)}", key=True)
        if game.zones[zone].per_player:
            if not isinstance(content, dict):
                raise where.error(path, f"setup.zones.{zone} is per player: give {{seat: [cards]}}",
                                  f"e.g. {zone}: {{0: [card, ...], 1: [...]}}")
            for key, cards in content.items():
                seat = _seat_of(key, n)
                if seat is None:
                    raise where.error(path + (key,), f"setup.zones.{zone}: {_no_seat(key, n)}",
                                      f"{zone} is per player: {{SEAT: [cards]}} with SEAT in 0..{n - 1}", key=True)
                seat = game.zone_seat(zone, seat, n)  # a zone per team: the team's slot
                _place_zone(game, state, state.zones[zone][seat], cards, zone, where, path + (key,))
        else:
            _place_zone(game, state, state.zones[zone], content, zone, where, path)
    start = data.get("start", "flow")
    if start not in game.programs:
        raise where.error(("start",), f"start: {game.name} has no phase {start!r}",
                          f"phases: {', '.join(game.programs)}")
    params = []
    for key in (game.spec.get("phases") or {}):
        if str(key).split("(", 1)[0].strip() == start and "(" in str(key):
            params = [x.strip() for x in str(key).split("(", 1)[1].rstrip(") ").split(",") if x.strip()]
    given = data.get("args") or {}
    missing = [x for x in params if x not in given]
    if missing or set(given) - set(params):
        raise where.error(("args",) if "args" in data else ("start",),
                          f"start: phase {start} takes the argument(s) {', '.join(params) or 'none'}",
                          "give them as args: {" + ", ".join(f"{x}: VALUE" for x in params) + "}" if params
                          else "remove args:")
    state.stack = [[start, 0, dict(given)]]
    if start != "flow" and getattr(game, "turn_phase", None) is not None:  # starting in a phase starts a turn
        from .model.state import TURN_KEY
        state.stack[0][2][TURN_KEY] = state.card_places()
    return state


def _with_boards(game, boards: dict, where):
    """A copy of ``game`` whose boards named in ``boards`` (scenario setup, the spec's
    ``boards:`` form) replace the spec's; raises SpecError (file:line:col) for a bad board."""
    import copy

    import jsonschema

    from .model.board import build_grid
    from .spec.loader import schema
    grids = dict(getattr(game, "boards", None) or {})
    validator = jsonschema.Draft202012Validator(schema("game")["$defs"]["board"])
    for name, bd in boards.items():
        path = ("setup", "boards", name)
        if name not in grids:
            raise where.error(path, f"setup.boards: {game.name} has no board {name!r}",
                              f"boards: {_known(grids)}", key=True)
        err = next(iter(sorted(validator.iter_errors(bd), key=lambda e: list(map(str, e.absolute_path)))), None)
        if err is not None:
            raise where.error(path + tuple(err.absolute_path), f"setup.boards.{name}: {err.message}",
                              "a board has rows (or pieces and layout), and optionally legend, marks, doc")
        grid, problems = build_grid(str(name), bd)
        if problems:
            sub, message, hint = problems[0]
            raise where.error(path + tuple(sub), message, hint)
        grids[str(name)] = grid
    new = copy.copy(game)
    new.boards = grids
    return new


def _take(game, state, name, where, path):
    """Remove one copy of card ``name`` from the initial zone (where unplaced cards wait)."""
    pool = state.zones[game.initial_zone]
    for cid in pool:
        if game.cards[cid].name == name:
            pool.remove(cid)
            return cid
    if name not in game.card_names:
        raise where.error(path, f"there is no card named {name!r} in {game.name}",
                          did_you_mean(name, game.card_names)
                          + "cards are written by name, as in the actions' texts (play NAME)")
    raise where.error(path, f"no copy of {name!r} is left to place",
                      "each card exists only as often as the deck has it")


def _place_zone(game, state, target, cards, zone, where, path):
    """Fill one zone: a list of cards, or for a zone of sets a list of sets (lists of cards)."""
    if not game.zones[zone].sets:
        _place(game, state, target, cards, zone, where, path)
        return
    if cards is None:
        return
    if not isinstance(cards, list) or not all(isinstance(x, list) for x in cards):
        raise where.error(path, f"setup.zones.{zone} holds sets: give a list of sets, each a list of cards",
                          f"e.g. [[{next(iter(game.card_names), 'card')}, ...], [...]]")
    for k, one in enumerate(cards):
        target.append([])
        _place(game, state, target[-1], one, zone, where, path + (k,))


def _place(game, state, target, cards, zone, where, path):
    """Put the named cards (taken from the initial zone) on ``target``. Entries may be
    ``{card: NAME, by: SEAT, as: MODE}`` to mark a card as already played."""
    if cards is None:
        return
    if not isinstance(cards, list):
        raise where.error(path, f"setup.zones.{zone}: give a list of cards, not {cards!r}",
                          f"e.g. [{next(iter(game.card_names), 'card')}]")
    n = state.num_players
    ids = []
    for i, c in enumerate(cards):
        cpath = path + (i,)
        if isinstance(c, dict):
            if not isinstance(c.get("card"), str) or set(c) - {"card", "by", "as"}:
                raise where.error(cpath, f"setup.zones.{zone}: an entry is a card name or "
                                         "{card: NAME, by: SEAT, as: MODE}")
            cid = _take(game, state, c["card"], where, cpath + ("card",))
            by, mode = c.get("by"), c.get("as")
            if by is not None and _seat_of(by, n) is None:
                raise where.error(cpath + ("by",), f"setup.zones.{zone}: by: {_no_seat(by, n)}",
                                  "by: is the seat that played the card")
            modes = game.cards[cid].modes or {}
            if mode is not None and mode not in modes:
                raise where.error(cpath + ("as",), f"setup.zones.{zone}: {c['card']} has no mode {mode!r}",
                                  f"its modes: {_known(modes)}")
            if zone != game.initial_zone:
                state.marks[cid] = [_seat_of(by, n) if by is not None else None, mode]
        elif isinstance(c, str):
            cid = _take(game, state, c, where, cpath)
        else:
            raise where.error(cpath, f"setup.zones.{zone}: {c!r} is not a card name")
        ids.append(cid)
    if zone == game.initial_zone:
        # listed top first; the cards placed nowhere else stay below them
        target.extend(reversed(ids))
    else:
        target.extend(ids)


def _cardify(game, value, where, path):
    if isinstance(value, dict) and set(value) == {"card"}:
        try:
            return game.card(value["card"])
        except RulebookError as exc:
            raise where.error(path, str(exc), did_you_mean(value["card"], game.card_names)
                              + "cards are written by name") from None
    return value


def run_scenario(path, spec_path=None) -> ScenarioResult:
    """Run one scenario file. Returns a ScenarioResult; raises SpecError (file:line:col) when
    the scenario itself is malformed (bad file, unknown card, variable or seat).

    ``spec_path`` runs the scenario against that spec instead of the one it names (an edited
    copy: which rules did the edit change?)."""
    path = Path(path)
    data, positions = read_scenario(path)
    where = _Where(str(path), positions)
    result = ScenarioResult(str(path), data.get("rule", ""))
    spec = Path(spec_path).resolve() if spec_path is not None else spec_path_of(path, data)
    if spec_path is not None and not spec.is_file():
        raise SpecError([Diagnostic(str(spec_path), 0, 0, "no such spec file", "check the path given with --spec")])
    if not spec.is_file():
        if "spec" in data:
            raise where.error(("spec",), f"spec: no such file {data['spec']!r} (looked for {spec})",
                              "spec: is a path relative to this scenario file")
        known = sorted(p.stem for p in (REPO / "specs").glob("*.yaml"))
        raise where.error(("game",), f"game: there is no spec named {data['game']!r} in {REPO / 'specs'}",
                          f"games: {_known(known)}; or give spec: PATH (relative to this file)")
    try:
        game = _game(spec, data.get("options") or {})
    except SpecError as exc:
        # an unknown option or a bad value is the scenario's mistake; a broken spec is the spec's
        if not all("option" in d.message or "preset" in d.message for d in exc.diagnostics):
            raise
        hint = exc.diagnostics[0].hint.replace("--option ", "options: ")
        raise where.error(("options",), "options: " + "; ".join(d.message for d in exc.diagnostics),
                          hint) from None
    state = build_state(game, data, positions, str(path))
    try:
        advance(state)
    except RulebookError as exc:
        result.failures.append(f"the position did not run: {exc}")
        return result
    n = state.num_players
    for i, step in enumerate(data.get("actions") or []):
        at = f"actions[{i}]"
        if isinstance(step, str):
            seat, text = _split_action(step)
            if _seat_of(seat, n) is None:
                result.failures.append(where.text(("actions", i), f"{at}: {step!r}: {_no_seat(seat, n)}",
                                                  "an action is \"SEAT: text\""))
                return result
            try:
                state.apply(text, seat)
            except IllegalAction as exc:
                result.failures.append(f"{at}: {step!r} was refused: {exc.reason}")
                return result
            except RulebookError as exc:
                result.failures.append(f"{at}: {step!r} failed: {exc}")
                return result
        elif "refuse" in step:
            seat, text = _split_action(step["refuse"])
            if _seat_of(seat, n) is None:
                result.failures.append(where.text(("actions", i, "refuse"),
                                                  f"{at}.refuse: {step['refuse']!r}: {_no_seat(seat, n)}"))
                return result
            before = state.to_json()
            result.checks += 1
            try:
                state.apply(text, seat)
            except IllegalAction as exc:
                want = step.get("reason")
                if want and want.lower() not in exc.reason.lower():
                    result.failures.append(f"{at}: refused, but the reason {exc.reason!r} does not mention {want!r}")
                if state.to_json() != before:
                    result.failures.append(f"{at}: the refused action changed the State")
            except RulebookError as exc:
                result.failures.append(f"{at}: {step['refuse']!r} failed: {exc}")
                return result
            else:
                result.failures.append(f"{at}: {step['refuse']!r} was accepted; the rules refuse it")
                return result
        elif "expect" in step:
            _check(game, state, step["expect"], result, at, where, ("actions", i, "expect"))
    _check(game, state, data.get("expect") or {}, result, "expect", where, ("expect",))
    return result


def _split_action(text: str):
    seat, sep, rest = text.partition(":")
    if not sep or not seat.strip().isdecimal():
        raise RulebookError(f"an action is written 'SEAT: text', e.g. '0: bid 1', not {text!r}")
    return int(seat), rest.strip()


def _zone_views(observation) -> list:
    """The zone entries of an observation that are dicts (hidden or partly shown zones)."""
    out = []
    for view in observation["zones"].values():
        for v in view if isinstance(view, list) and view and isinstance(view[0], (dict, list)) else [view]:
            if isinstance(v, dict):
                out.append(v)
    return out


def _names(game, value):
    return _plainify(value)


def _describe_error(exc) -> str:
    try:
        from .engine.run import describe_python_error
    except ImportError:  # pragma: no cover - older engine
        return f"{type(exc).__name__}: {exc}"
    return describe_python_error(exc)


def _check(game, state, expect: dict, result: ScenarioResult, at: str, where: _Where | None = None,
           base: tuple = ("expect",)):
    where = where or _Where("<scenario>", None)
    fails = result.failures
    n = state.num_players

    def seat_or_fail(key, kind):
        seat = _seat_of(key, n)
        if seat is None:
            fails.append(where.text(base + (kind, key), f"{at}.{kind}: {_no_seat(key, n)}", key=True))
        return seat

    for kind in ("legal", "legal_includes", "legal_excludes"):
        table = expect.get(kind) or {}
        if not isinstance(table, dict):
            result.checks += 1
            fails.append(where.text(base + (kind,), f"{at}.{kind} must map a seat to a list of actions",
                                    f"e.g. {kind}: {{0: [bid 0, bid 1]}}"))
            continue
        for key, want in table.items():
            result.checks += 1
            seat = seat_or_fail(key, kind)
            if seat is None:
                continue
            if not isinstance(want, list) or not all(isinstance(w, str) for w in want):
                fails.append(where.text(base + (kind, key), f"{at}.{kind}[{key}] must be a list of action texts, "
                                        f"not {want!r:.60}", f"e.g. {kind}: {{{key}: [bid 0, bid 1]}}"))
                continue
            got = {a.text for a in state.legal_actions(seat)}
            if kind == "legal" and sorted(want) != sorted(got):
                fails.append(f"{at}.legal[{key}]: expected {sorted(want)}, got {sorted(got)}"
                             + _unknown_cards(game, [w for w in want if w not in got]))
            elif kind == "legal_includes" and (missing := [w for w in want if w not in got]):
                fails.append(f"{at}.legal_includes[{key}]: {missing} not legal; legal: {sorted(got)}"
                             + _unknown_cards(game, missing))
            elif kind == "legal_excludes" and (present := [w for w in want if w in got]):
                fails.append(f"{at}.legal_excludes[{key}]: {present} are legal; the rules forbid them")
    if "current_players" in expect:
        result.checks += 1
        if state.current_players() != expect["current_players"]:
            fails.append(f"{at}.current_players: expected {expect['current_players']}, got {state.current_players()}")
    for name, want in (expect.get("vars") or {}).items():
        result.checks += 1
        if name not in state.vars:
            fails.append(where.text(base + ("vars", name), f"{at}.vars: no variable named {name!r}",
                                    f"variables: {_known(state.vars)}", key=True))
            continue
        got = _names(game, state.vars[name])
        if got != want:
            fails.append(f"{at}.vars.{name}: expected {want!r}, got {got!r}")
    pv = expect.get("player_vars") or {}
    if not isinstance(pv, (dict, list)):
        result.checks += 1
        fails.append(where.text(base + ("player_vars",), f"{at}.player_vars must be {{SEAT: {{name: value}}}} "
                                "or a list with one map per seat", "e.g. player_vars: {0: {bid: 1}}"))
        pv = {}
    for key, values in _seat_items(pv):
        seat = seat_or_fail(key, "player_vars")
        if seat is None:
            result.checks += 1
            continue
        if values is not None and not isinstance(values, dict):
            result.checks += 1
            fails.append(where.text(base + ("player_vars", key), f"{at}.player_vars[{key}] must be a map "
                                    f"{{name: value}}, not {values!r:.60}", "e.g. player_vars: {0: {bid: 1}}"))
            continue
        for name, want in (values or {}).items():
            result.checks += 1
            if name not in state.pvars[seat]:
                fails.append(where.text(base + ("player_vars", key, name),
                                        f"{at}.player_vars[{key}]: no player variable named {name!r}",
                                        f"player variables: {_known(state.pvars[seat])}", key=True))
                continue
            got = _names(game, state.pvars[seat][name])
            if got != want:
                fails.append(f"{at}.player_vars[{key}].{name}: expected {want!r}, got {got!r}")
    for kind in ("zones", "zone_counts"):
        for zone, want in (expect.get(kind) or {}).items():
            result.checks += 1
            if zone not in game.zones:
                fails.append(where.text(base + (kind, zone), f"{at}.{kind}: no zone named {zone!r}",
                                        f"zones: {_known(game.zones)}", key=True))
                continue
            per_player = game.zones[zone].per_player
            sets = game.zones[zone].sets

            def size(z):  # cards in a zone (all its sets, for a zone of sets)
                return sum(len(x) for x in z) if sets else len(z)

            def names(z):  # a zone's cards by name, in any order; a zone of sets: each set so, in order
                if sets:
                    return [sorted(game.cards[i].name for i in x) for x in z]
                return sorted(game.cards[i].name for i in z)

            def wanted(cards):
                if sets:
                    return [_sorted(x) if isinstance(x, list) else x for x in (cards or [])] \
                        if isinstance(cards, list) else cards
                return _sorted(cards or []) if isinstance(cards, list) else cards
            if kind == "zone_counts":
                got = [size(x) for x in state.zones[zone]] if per_player else size(state.zones[zone])
                if got != want:
                    fails.append(f"{at}.zone_counts.{zone}: expected {want}, got {got}")
            elif per_player:
                if not isinstance(want, dict):
                    fails.append(where.text(base + (kind, zone), f"{at}.zones.{zone} is per player: "
                                            "give {SEAT: [cards]}", f"e.g. {zone}: {{0: [...]}}"))
                    continue
                for key, cards in want.items():
                    seat = _seat_of(key, n)
                    if seat is None:
                        fails.append(where.text(base + (kind, zone, key), f"{at}.zones.{zone}: {_no_seat(key, n)}",
                                                key=True))
                        continue
                    got = names(state.zones[zone][game.zone_seat(zone, seat, n)])
                    if got != wanted(cards):
                        fails.append(f"{at}.zones.{zone}[{key}]: expected {wanted(cards)}, got {got}"
                                     + _unknown_cards(game, cards))
            else:
                got = names(state.zones[zone])
                if not isinstance(want, list) or got != wanted(want):
                    fails.append(f"{at}.zones.{zone}: expected {wanted(want)!r}, got {got}"
                                 + _unknown_cards(game, want))
    if "terminal" in expect:
        result.checks += 1
        if state.is_terminal() != expect["terminal"]:
            fails.append(f"{at}.terminal: expected {expect['terminal']}, got {state.is_terminal()}")
    for key, want in (expect.get("seen") or {}).items():
        # what a `show` step lets the seat see now, wherever the cards are (its observation)
        result.checks += 1
        seat = seat_or_fail(key, "seen")
        if seat is None:
            continue
        got = sorted(name for z in _zone_views(state.observation(seat)) for name in z.get("seen", []))
        if got != sorted(want):
            fails.append(f"{at}.seen[{key}]: expected {sorted(want)}, got {got}" + _unknown_cards(game, want))
    for key, want in (expect.get("history") or {}).items():
        # the last actions as the seat reads them: "SEAT: action", or "SEAT: hidden text" for an
        # action it may not read (visible_to), as every per-seat output shows them
        result.checks += 1
        seat = seat_or_fail(key, "history")
        if seat is None:
            continue
        from .view import history_for
        lines = [f"{e['player']}: {e['action'] if 'action' in e else e['hidden']}"
                 for e in history_for(state, seat)]
        got = lines[len(lines) - len(want):] if want else []
        if got != list(want):
            fails.append(f"{at}.history[{key}]: expected the last actions {list(want)}, got {got}")
    for key, fn in (("scores", state.scores), ("winners", state.winners)):
        if key in expect:
            result.checks += 1
            try:
                got = fn()
            except RulebookError as exc:
                fails.append(f"{at}.{key}: {exc}")
                continue
            if got != expect[key]:
                fails.append(f"{at}.{key}: expected {expect[key]}, got {got}")
    for text, want in (expect.get("eval") or {}).items():
        result.checks += 1
        epath = base + ("eval", text)
        try:
            got = _names(game, evaluate(state, text))
        except (ExprSyntaxError, ExprNameError) as exc:
            fails.append(where.text(epath, f"{at}.eval {text!r}: {getattr(exc, 'message', exc)}", key=True))
            continue
        except RulebookError as exc:
            fails.append(where.text(epath, f"{at}.eval {text!r}: {exc}", key=True))
            continue
        except _PY_ERRORS as exc:
            fails.append(where.text(epath, f"{at}.eval {text!r}: the expression failed: {_describe_error(exc)}",
                                    "check the expression's values and types", key=True))
            continue
        if got != want:
            fails.append(f"{at}.eval {text!r}: expected {want!r}, got {got!r}")


def evaluate(state: State, text: str):
    """Evaluate an expression of the spec's language on ``state`` (game-level names only)."""
    from .engine.context import Ctx
    from .expr.compiler import Compiler
    fn = Compiler(state.game.names).compile(parse(text))
    return fn(Ctx(state))


def scenario_files(paths) -> list[Path]:
    """The scenario files under ``paths`` (files, or folders searched for ``*.yaml``).
    Raises RulebookError for a folder without any."""
    files = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(p.rglob("*.yaml"))
            if not found:
                raise RulebookError(f"no scenario files found under {p} (a scenario is a *.yaml file; "
                                    "see docs/scenarios.md)")
            files.extend(found)
        else:
            files.append(p)
    return files


def run_paths(paths, spec_path=None) -> list[ScenarioResult]:
    """Run every scenario file under ``paths`` (files or folders, ``*.yaml``). A scenario that
    cannot run is a failed result with the reason; the others still run. ``spec_path``: run
    them all against that spec (see :func:`run_scenario`)."""
    results = []
    for f in scenario_files(paths):
        try:
            results.append(run_scenario(f, spec_path))
        except (SpecError, RulebookError) as exc:
            r = ScenarioResult(str(f), "")
            r.failures.append(str(exc))
            results.append(r)
        except Exception as exc:  # a bug in Rulebook: report it and go on with the other files
            r = ScenarioResult(str(f), "")
            r.failures.append(f"{f}: this scenario could not be run ({type(exc).__name__}: {exc}); check its "
                              "shape against docs/scenarios.md, and if it is right, report it with the file")
            results.append(r)
    return results


__all__ = ["run_scenario", "run_paths", "load_scenario", "read_scenario", "build_state", "evaluate",
           "scenario_files", "ScenarioResult", "Diagnostic"]
