"""Rule scenarios: set up a position, apply actions, check what the rulebook says.

A scenario file (YAML, schema ``schemas/scenario.schema.json``) names its spec, the
rule it checks, a position (start phase, variables, zones), a list of actions —
each may instead be a refusal check or a checkpoint — and the expected outcome.
See ``docs/scenarios.md``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .engine.run import _plainify, advance
from .errors import Diagnostic, IllegalAction, RulebookError, SpecError
from .expr.compiler import ExprNameError, ExprSyntaxError, parse
from .model.state import State
from .spec.loader import load_game, read_text, schema_diagnostics
from .spec.yamlpos import load_yaml

REPO = Path(__file__).resolve().parents[1]


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


def load_scenario(path) -> dict:
    """Read and schema-check a scenario file; raises SpecError with file:line:col."""
    text = read_text(path)
    data, positions = load_yaml(text, str(path))
    diags = schema_diagnostics(data, positions, str(path), "scenario")
    if diags:
        raise SpecError(diags)
    return data


def spec_path_of(path: Path, data: dict) -> Path:
    """The spec a scenario runs: ``spec:`` relative to the file, or ``game: NAME`` in specs/."""
    if "spec" in data:
        return (path.parent / data["spec"]).resolve()
    return REPO / "specs" / f"{data['game']}.yaml"


def build_state(game, data: dict) -> State:
    """The scenario's starting position (not yet advanced)."""
    n = data["players"]
    if not game.min_players <= n <= game.max_players:
        raise RulebookError(f"{game.name} is for {game.min_players}-{game.max_players} players, not {n}")
    state = State(game, n, data.get("seed", 0))
    state.zones[game.initial_zone].extend(range(len(game.cards)))
    setup = data.get("setup") or {}
    state.stacked = bool(setup.get("stacked", False))
    for name, value in (setup.get("vars") or {}).items():
        if name not in state.vars:
            raise RulebookError(f"setup.vars: {game.name} has no variable {name!r}")
        state.vars[name] = _cardify(game, state, value)
    pv = setup.get("player_vars") or {}
    for seat, values in (pv.items() if isinstance(pv, dict) else enumerate(pv)):
        for name, value in (values or {}).items():
            if name not in state.pvars[int(seat)]:
                raise RulebookError(f"setup.player_vars: players have no variable {name!r}")
            state.pvars[int(seat)][name] = _cardify(game, state, value)
    zones = setup.get("zones") or {}
    # the initial zone last: it receives what the other zones did not take
    for zone in sorted(zones, key=lambda z: z == game.initial_zone):
        content = zones[zone]
        if zone not in game.zones:
            raise RulebookError(f"setup.zones: {game.name} has no zone {zone!r}")
        if game.zones[zone].per_player:
            if not isinstance(content, dict):
                raise RulebookError(f"setup.zones.{zone} is per player: give {{seat: [cards]}}")
            for seat, cards in content.items():
                _place(game, state, state.zones[zone][int(seat)], cards, zone)
        else:
            _place(game, state, state.zones[zone], content, zone)
    start = data.get("start", "flow")
    if start not in game.programs:
        raise RulebookError(f"start: {game.name} has no phase {start!r} (phases: {', '.join(game.programs)})")
    state.stack = [[start, 0, {}]]
    return state


def _take(game, state, name):
    """Remove one copy of card ``name`` from the initial zone (where unplaced cards wait)."""
    pool = state.zones[game.initial_zone]
    for cid in pool:
        if game.cards[cid].name == name:
            pool.remove(cid)
            return cid
    if name not in game.card_names:
        raise RulebookError(f"there is no card named {name!r} in {game.name}")
    raise RulebookError(f"no copy of {name!r} is left to place (each card exists only as often as the deck has it)")


def _place(game, state, target, cards, zone):
    """Put the named cards (taken from the initial zone) on ``target``. Entries may be
    ``{card: NAME, by: SEAT, as: MODE}`` to mark a card as already played."""
    if zone == game.initial_zone:
        # listed top first; the cards placed nowhere else stay below them
        ids = [_take(game, state, c if isinstance(c, str) else c["card"]) for c in cards or []]
        target.extend(reversed(ids))
        return
    for c in cards or []:
        if isinstance(c, dict):
            cid = _take(game, state, c["card"])
            state.marks[cid] = [c.get("by"), c.get("as")]
        else:
            cid = _take(game, state, c)
        target.append(cid)


def _cardify(game, state, value):
    if isinstance(value, dict) and set(value) == {"card"}:
        return game.card(value["card"])
    return value


def run_scenario(path) -> ScenarioResult:
    """Run one scenario file. Returns a ScenarioResult; raises SpecError/RulebookError when the
    scenario itself is malformed (bad file, unknown card, unknown variable)."""
    path = Path(path)
    data = load_scenario(path)
    result = ScenarioResult(str(path), data.get("rule", ""))
    game = _game(spec_path_of(path, data), data.get("options") or {})
    state = build_state(game, data)
    try:
        advance(state)
    except RulebookError as exc:
        result.failures.append(f"the position did not run: {exc}")
        return result
    for i, step in enumerate(data.get("actions") or []):
        where = f"actions[{i}]"
        if isinstance(step, str):
            seat, text = _split_action(step)
            try:
                state.apply(text, seat)
            except IllegalAction as exc:
                result.failures.append(f"{where}: {step!r} was refused: {exc.reason}")
                return result
            except RulebookError as exc:
                result.failures.append(f"{where}: {step!r} failed: {exc}")
                return result
        elif "refuse" in step:
            seat, text = _split_action(step["refuse"])
            before = state.to_json()
            result.checks += 1
            try:
                state.apply(text, seat)
            except IllegalAction as exc:
                want = step.get("reason")
                if want and want.lower() not in exc.reason.lower():
                    result.failures.append(f"{where}: refused, but the reason {exc.reason!r} does not mention {want!r}")
                if state.to_json() != before:
                    result.failures.append(f"{where}: the refused action changed the State")
            else:
                result.failures.append(f"{where}: {step['refuse']!r} was accepted; the rules refuse it")
                return result
        elif "expect" in step:
            _check(game, state, step["expect"], result, where)
    _check(game, state, data.get("expect") or {}, result, "expect")
    return result


def _split_action(text: str):
    seat, sep, rest = text.partition(":")
    if not sep or not seat.strip().isdigit():
        raise RulebookError(f"an action is written 'SEAT: text', e.g. '0: play black-14', not {text!r}")
    return int(seat), rest.strip()


def _names(game, value):
    return _plainify(value)


def _check(game, state, expect: dict, result: ScenarioResult, where: str):
    fails = result.failures
    for seat, want in (expect.get("legal") or {}).items():
        result.checks += 1
        got = sorted(a.text for a in state.legal_actions(int(seat)))
        if sorted(want) != got:
            fails.append(f"{where}.legal[{seat}]: expected {sorted(want)}, got {got}")
    for seat, want in (expect.get("legal_includes") or {}).items():
        result.checks += 1
        got = {a.text for a in state.legal_actions(int(seat))}
        missing = [w for w in want if w not in got]
        if missing:
            fails.append(f"{where}.legal_includes[{seat}]: {missing} not legal; legal: {sorted(got)}")
    for seat, want in (expect.get("legal_excludes") or {}).items():
        result.checks += 1
        got = {a.text for a in state.legal_actions(int(seat))}
        present = [w for w in want if w in got]
        if present:
            fails.append(f"{where}.legal_excludes[{seat}]: {present} are legal; the rules forbid them")
    if "current_players" in expect:
        result.checks += 1
        if state.current_players() != expect["current_players"]:
            fails.append(f"{where}.current_players: expected {expect['current_players']}, got {state.current_players()}")
    for name, want in (expect.get("vars") or {}).items():
        result.checks += 1
        got = _names(game, state.vars.get(name, "<missing>"))
        if got != want:
            fails.append(f"{where}.vars.{name}: expected {want!r}, got {got!r}")
    pv = expect.get("player_vars") or {}
    for seat, values in (pv.items() if isinstance(pv, dict) else enumerate(pv)):
        for name, want in (values or {}).items():
            result.checks += 1
            got = _names(game, state.pvars[int(seat)].get(name, "<missing>"))
            if got != want:
                fails.append(f"{where}.player_vars[{seat}].{name}: expected {want!r}, got {got!r}")
    for zone, want in (expect.get("zones") or {}).items():
        if zone not in game.zones:
            fails.append(f"{where}.zones: no zone {zone!r}")
            continue
        if game.zones[zone].per_player:
            for seat, cards in want.items():
                result.checks += 1
                got = [game.cards[i].name for i in state.zones[zone][int(seat)]]
                if sorted(got) != sorted(cards):
                    fails.append(f"{where}.zones.{zone}[{seat}]: expected {sorted(cards)}, got {sorted(got)}")
        else:
            result.checks += 1
            got = [game.cards[i].name for i in state.zones[zone]]
            if sorted(got) != sorted(want):
                fails.append(f"{where}.zones.{zone}: expected {sorted(want)}, got {sorted(got)}")
    for zone, want in (expect.get("zone_counts") or {}).items():
        result.checks += 1
        z = state.zones.get(zone)
        got = [len(x) for x in z] if z is not None and game.zones[zone].per_player else (len(z) if z is not None else None)
        if got != want:
            fails.append(f"{where}.zone_counts.{zone}: expected {want}, got {got}")
    if "terminal" in expect:
        result.checks += 1
        if state.is_terminal() != expect["terminal"]:
            fails.append(f"{where}.terminal: expected {expect['terminal']}, got {state.is_terminal()}")
    if "scores" in expect:
        result.checks += 1
        got = state.scores()
        if got != expect["scores"]:
            fails.append(f"{where}.scores: expected {expect['scores']}, got {got}")
    if "winners" in expect:
        result.checks += 1
        got = state.winners()
        if got != expect["winners"]:
            fails.append(f"{where}.winners: expected {expect['winners']}, got {got}")
    for text, want in (expect.get("eval") or {}).items():
        result.checks += 1
        try:
            got = _names(game, evaluate(state, text))
        except (ExprSyntaxError, ExprNameError) as exc:
            fails.append(f"{where}.eval {text!r}: {getattr(exc, 'message', exc)}")
            continue
        except RulebookError as exc:
            fails.append(f"{where}.eval {text!r}: {exc}")
            continue
        if got != want:
            fails.append(f"{where}.eval {text!r}: expected {want!r}, got {got!r}")


def evaluate(state: State, text: str):
    """Evaluate an expression of the spec's language on ``state`` (game-level names only)."""
    from .engine.context import Ctx
    from .expr.compiler import Compiler
    fn = Compiler(state.game.names).compile(parse(text))
    return fn(Ctx(state))


def run_paths(paths) -> list[ScenarioResult]:
    """Run every scenario file under ``paths`` (files or folders, ``*.yaml``)."""
    files = []
    for p in paths:
        p = Path(p)
        files.extend(sorted(p.rglob("*.yaml")) if p.is_dir() else [p])
    results = []
    for f in files:
        try:
            results.append(run_scenario(f))
        except (SpecError, RulebookError) as exc:
            r = ScenarioResult(str(f), "")
            r.failures.append(str(exc))
            results.append(r)
    return results


__all__ = ["run_scenario", "run_paths", "load_scenario", "build_state", "evaluate", "ScenarioResult", "Diagnostic"]
