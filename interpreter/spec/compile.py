"""Compile a loaded spec into a :class:`~interpreter.engine.game.Game`.

Every problem is collected as a :class:`~interpreter.errors.Diagnostic` with the
file, line and column of the offending value, and raised together as one
:class:`~interpreter.errors.SpecError` — never just the first.

:class:`SpecCompiler` holds the diagnostics, the expressions and the whole spec's assembly
(variables, zones, boards, definitions, checks); its other parts are mixed in from the modules
beside it: :mod:`.gameoptions` (options and presets), :mod:`.cardlist` (cards, derived
attributes, melds, tables), :mod:`.steps` (steps into instructions) and :mod:`.callgraph`
(recursion checks). The names other code imports from here are re-exported.
"""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from ..engine.game import Game, ZoneDef
from ..errors import Diagnostic, RuleError, SpecError
from ..expr.compiler import CARD_BUILTIN_ATTRS, Compiler, ExprNameError, ExprSyntaxError, Names, parse
from .callgraph import RecursionCheckMixin, _has_cycle
from .cardlist import MAX_CARDS, CardListMixin
from .gameoptions import OptionsMixin, coerce_option
from .literals import NUMERIC as _NUMERIC, LiteralChecker, deck_values
from .positions import position_of
from .spelling import _DEFINE_KEY, _IDENT, _TEMPLATE, _did_you_mean
from .steps import STEP_KINDS, StepsMixin
from .types import KindFacts

__all__ = ["MAX_CARDS", "STEP_KINDS", "SpecCompiler", "coerce_option", "fingerprint",
           # re-exported for the modules and tests that import them from here
           "_DEFINE_KEY", "_IDENT", "_TEMPLATE", "_did_you_mean", "_has_cycle"]


def _step_bound_names(data) -> set:
    """Every name a step binds anywhere in the spec (``for``, ``as``, ``by``, ``each`` of a set
    choice, phase arguments): used to say why a phase cannot see one of them."""
    out, todo = set(), [data.get("flow"), data.get("phases")]
    while todo:
        x = todo.pop()
        if isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, dict):
            for k, v in x.items():
                if k in ("for", "as", "by", "last") and isinstance(v, str):
                    out.add(v)
                elif k == "choose" and isinstance(v, dict):
                    out.update(str(v[n]) for n in ("as", "by", "each") if n in v)
                    out.update({"choice", "player"} - set(v))
                todo.append(v)
    return out


def _seats_out(skip):
    """``fn(ctx)``: the frozenset of seats ``p`` for which ``skip`` (compiled with ``p`` bound)
    holds: those sitting out of the turn order. RuleError when ``skip`` reads the turn order."""
    busy = []

    def seats_out(ctx):
        if busy:
            raise RuleError("turns.skip reads the turn order (turn_order, next_player, prev_player): "
                            "it must say who sits out without them")
        busy.append(True)
        old = ctx.bound
        try:
            out = set()
            for p in range(ctx.state.num_players):
                ctx.bound = {"p": p}
                if skip(ctx):
                    out.add(p)
            return frozenset(out)
        finally:
            ctx.bound = old
            busy.clear()
    return seats_out


class SpecCompiler(OptionsMixin, CardListMixin, StepsMixin, RecursionCheckMixin):
    """Turns (data, positions, text) of one spec into a Game, collecting diagnostics."""

    def __init__(self, data: dict, positions: dict, file: str, text: str):
        self.data, self.positions, self.file = data, positions, file
        self.lines = text.split("\n")
        self.card_entries: list = []  # card id -> index of the cards: entry that made it
        self.text = text
        self.diags: list[Diagnostic] = []
        self.names = Names()
        self.compiler = Compiler(self.names)
        self.step_count = 0
        self.expr_sites: list = []  # (path, text, tree, names bound around it), for literal checks

    # -- diagnostics --------------------------------------------------------------------
    def error(self, path, message, hint="", severity="error", key=False):
        pos = position_of(self.positions, path)
        line, col = (pos.key_line, pos.key_column) if key and pos.key_line else (pos.line, pos.column)
        self.diags.append(Diagnostic(self.file, line, col, message, hint, severity))

    def _expr_position(self, path, line_in, col_in):
        pos = position_of(self.positions, path)
        if pos.line == 0:
            return 0, 0
        if pos.style in (None, '"', "'"):
            if line_in <= 1:
                return pos.line, pos.column + (1 if pos.style else 0) + col_in - 1
            return pos.line + line_in - 1, col_in
        # block scalar: content starts on the next line; its indentation is the first content line's
        block, base = [], None
        for i in range(pos.line, len(self.lines)):  # pos.line is the 0-based index of the next line
            line = self.lines[i]
            if line.strip():
                indent = len(line) - len(line.lstrip())
                if base is None:
                    base = indent
                elif indent < base:
                    break
                block.append(i)
            elif base is not None:
                block.append(i)
        while block and not self.lines[block[-1]].strip():
            block.pop()
        if not block:
            return pos.line, pos.column
        # The value's lines, each a list of source segments (line index, first column, length).
        # Folded (>): adjacent lines at the block's indentation are joined with a space; a blank
        # line or a more-indented line keeps its line break. Literal (|): every line is kept.
        vlines, prev_more, blanks = [], None, 0
        for idx in block:
            text = self.lines[idx][base:]
            if not text.strip():
                blanks += 1
                continue
            more = text[:1] in (" ", "\t")
            seg = (idx, base + 1, len(text))
            folding = pos.style == ">" and prev_more is False and not more
            if folding and blanks == 0:
                vlines[-1].append(seg)
            else:
                vlines.extend([] for _ in range(blanks - 1 if folding else blanks if vlines else 0))
                vlines.append([seg])
            prev_more, blanks = more, 0
        if line_in > len(vlines) or not vlines[line_in - 1]:  # past the end ("ends too soon")
            idx, start, length = vlines[-1][-1]
            return idx + 1, start + length
        col = col_in
        for idx, start, length in vlines[line_in - 1]:
            if col <= length + 1:  # length + 1: the space that joined it to the next line
                return idx + 1, start + col - 1
            col -= length + 1
        idx, start, length = vlines[line_in - 1][-1]
        return idx + 1, start + length

    # -- expressions ----------------------------------------------------------------------
    def _parse(self, path, text):
        """The syntax tree of the expression at ``path``, or None after recording a located error."""
        try:
            return parse(text)
        except ExprSyntaxError as exc:
            line, col = self._expr_position(path, exc.line, exc.column)
            self.diags.append(Diagnostic(self.file, line, col, f"bad expression: {exc.message}",
                                         f"in {str(text).strip()!r}; see docs/spec-language.md#expressions"))
            return None

    def expr(self, path, text, locals_=(), bound=(), vary=None):
        """Compile the expression at ``path``; on error record a diagnostic and return None.
        ``vary``: the names an option filter is evaluated with, once per option (hoisting)."""
        tree = self._parse(path, text)
        if tree is None:
            return None
        self.expr_sites.append((path, text, tree, set(locals_) | set(bound)))
        try:
            return self.compiler.compile(tree, locals_, bound, vary=vary)
        except ExprNameError as exc:
            self._name_error(path, text, exc)
            return None

    def _name_error(self, path, text, exc):
        if getattr(exc, "define", None) is not None:
            return  # inside a define's body: reported once, where that define is written
        m = re.match(r"unknown name '([A-Za-z_]\w*)'", exc.message)
        phase = getattr(self, "current_phase", None)
        if m and phase is not None and m.group(1) in getattr(self, "step_bound", ()):
            x = m.group(1)
            params = self.phase_params.get(phase, [])
            exc = ExprNameError(
                f"phase {phase} cannot see {x!r}: a name bound by a step (for, as, by) is seen only inside "
                f"that step, not in the phases it calls",
                f"make it an argument: declare the phase as {phase}({', '.join(params + [x])}) under phases and "
                f"call it with phase: {phase}, args: {{{x}: {x}}}")
        col_in = 1
        m = re.search(r"'([A-Za-z_]\w*)'", exc.message)
        if m and isinstance(text, str):
            found = re.search(r"\b" + re.escape(m.group(1)) + r"\b", text)
            if found:
                before = text[:found.start()]
                line_in = before.count("\n") + 1
                col_in = found.start() - (before.rfind("\n") + 1) + 1
                line, col = self._expr_position(path, line_in, col_in)
                self.diags.append(Diagnostic(self.file, line, col, exc.message, exc.hint))
                return
        line, col = self._expr_position(path, 1, 1)
        self.diags.append(Diagnostic(self.file, line, col, exc.message, exc.hint))

    def template(self, path, text, locals_=(), bound=()):
        """Split ``text`` into literal strings and compiled ``{expr}`` parts."""
        parts, last = [], 0
        text = str(text)
        for m in _TEMPLATE.finditer(text):
            if m.start() > last:
                parts.append(text[last:m.start()])
            f = self.expr(path, m.group(1), locals_, bound)
            parts.append(f if f is not None else m.group(0))
            last = m.end()
        if last < len(text):
            parts.append(text[last:])
        return parts

    # -- the whole spec -------------------------------------------------------------------
    def build(self, options_given: dict | None) -> Game:
        d = self.data
        options = self.resolve_options(options_given or {})
        n = self.names
        n.options = dict(options)
        boards = self.build_boards()
        cards = self.cards = self.build_cards(options)  # kept: the language server lists them
        zones = self.build_zones()
        n.game_vars = set((d.get("variables") or {}).keys())
        n.player_vars = set((d.get("player_variables") or {}).keys()) | set((d.get("team_variables") or {}).keys())
        self.team_vars = set((d.get("team_variables") or {}).keys())
        for clash in sorted(self.team_vars & set((d.get("player_variables") or {}).keys())):
            self.error(("team_variables", clash), f"{clash!r} is both a player variable and a team variable",
                       "keep one of them", key=True)
        if self.team_vars and not d.get("teams"):
            self.error(("team_variables",), "team variables need teams", "add teams: {of: \"p % 2\"}", key=True)
        self.check_name_clashes()
        turns = d.get("turns") if isinstance(d.get("turns"), dict) else {}
        turn_phase = turns.get("phase") if isinstance(turns.get("phase"), str) else None
        n.turn_phase = turn_phase or False
        n.derived = {str(k) for k in (d.get("derived") or {}) if str(k) not in CARD_BUILTIN_ATTRS}
        self.build_defines()
        derived_attrs = self.build_derived()
        mode_when = {}  # a card entry's index -> its mode_when (which modes may be declared now)
        for i, entry in enumerate(d.get("cards") or []):
            if isinstance(entry, dict) and "mode_when" in entry:
                if not entry.get("modes"):
                    self.error(("cards", i, "mode_when"), "mode_when without modes", "declare the card's modes:")
                f = self.expr(("cards", i, "mode_when"), entry["mode_when"], bound={"c", "mode", "player"})
                if f is not None:
                    mode_when[i] = f
        meld_kinds = self.build_melds()
        programs = {}
        phases = d.get("phases") or {}
        # a phase key is NAME or NAME(a, b): the arguments are bound like a step's names inside it
        self.phase_params = {}
        for key in phases:
            m = _DEFINE_KEY.match(str(key))
            if not m:
                self.error(("phases", key), f"bad phase name {key!r}", "write name or name(a, b)", key=True)
                continue
            self.phase_params[m.group(1)] = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
        self.phase_names = set(self.phase_params)
        self.step_bound = _step_bound_names(d)
        self.current_phase = None
        programs["flow"] = self.compile_program(d.get("flow") or [], ("flow",))
        for key, steps in phases.items():
            m = _DEFINE_KEY.match(str(key))
            if not m:
                continue
            name = m.group(1)
            if name == "flow":
                self.error(("phases", key), "a phase may not be called 'flow'", "rename it", key=True)
                continue
            if name in programs:
                self.error(("phases", key), f"two phases are named {name!r}", "rename one", key=True)
                continue
            self.current_phase = name
            programs[name] = self.compile_program(steps or [], ("phases", key), frozenset(self.phase_params[name]))
            self.current_phase = None
        if turn_phase is not None and turn_phase not in programs:
            self.error(("turns", "phase"), f"turns: phase: there is no phase named {turn_phase!r}",
                       "phases: " + (", ".join(p for p in programs if p != "flow") or "none"))
        tables = self.build_tables(cards)
        constraints = []
        for i, c in enumerate(d.get("constraints") or []):
            f = self.expr(("constraints", i, "check"), c.get("check"))
            if f is not None:
                constraints.append((f, self.template(("constraints", i, "message"), c.get("message", "")),
                                    ("constraints", i, "check")))
        if not any(x.severity == "error" for x in self.diags):
            self.check_recursion(programs)
        skip_fn = None
        if isinstance(d.get("turns"), dict) and "skip" in d["turns"]:
            skip = self.expr(("turns", "skip"), d["turns"]["skip"], bound={"p"})
            skip_fn = _seats_out(skip) if skip is not None else None
        teams_fn = None
        if isinstance(d.get("teams"), dict):
            teams_fn = self.expr(("teams", "of"), d["teams"].get("of"), bound={"p"})
        score_src = d.get("score", "p.score" if "score" in n.player_vars else "0")
        score_fn = self.expr(("score",), score_src, bound={"p"})
        columns = self.build_columns()
        players = d.get("players") or {}
        if players.get("min", 2) > players.get("max", 8):
            self.error(("players",), f"players: min {players.get('min')} is more than max {players.get('max')}",
                       "swap them", key=True)
        if "score" not in d and "score" not in n.player_vars:
            self.error((), "nothing says how a player scores: every player will score 0 and share the win",
                       "add score: EXPRESSION (of p), or a player variable named score", severity="warning")
        initial = [z for z, zd in (d.get("zones") or {}).items() if isinstance(zd, dict) and zd.get("initial") == "all"]
        if len(initial) > 1:
            self.error(("zones", initial[1], "initial"), "only one zone can hold every card at the start",
                       f"keep initial: all on {initial[0]} only")
        game_zones = [z for z, zd in zones.items() if not zd.per_player]
        initial_zone = initial[0] if initial else (game_zones[0] if game_zones else None)
        if initial_zone is None and zones:
            self.error(("zones",), "no game zone can hold the cards at the start",
                       "declare a zone such as deck: {visibility: hidden, initial: all}")
        self.check_literals(cards)
        if isinstance(d.get("appearance"), dict):  # the look at the web table (spec/appearance.py)
            from .appearance import check as check_appearance
            for sub, message, hint in check_appearance(d["appearance"], cards, zones, self.file, n.game_vars,
                                                       set(boards)):
                self.error(("appearance",) + sub, message, hint)
        errors = [x for x in self.diags if x.severity == "error"]
        if errors:  # warnings wait until the errors are fixed
            raise SpecError(errors)
        return Game(
            name=d.get("name", Path(self.file).stem), file=self.file, options=options, cards=cards,
            _per_player_cards=any(c.seat is not None for c in cards),
            card_names={c.name for c in cards}, zones=zones, programs=programs, spec=d,
            positions=self.positions, min_players=players.get("min", 2), max_players=players.get("max", 8),
            winner_rule=d.get("winner", "highest"), display=d.get("display") or {},
            var_defaults=d.get("variables") or {},
            pvar_defaults={**(d.get("player_variables") or {}), **(d.get("team_variables") or {})},
            teams_fn=teams_fn, team_names=list((d.get("teams") or {}).get("names") or []),
            score_fn=score_fn, columns=columns, initial_zone=initial_zone, names=n, functions=n.functions,
            boards=boards, meld_kinds=meld_kinds, derived_attrs=derived_attrs, skip_fn=skip_fn,
            turn_phase=turn_phase, mode_when=mode_when,
            has_sets=any(z.sets for z in zones.values()),
            warnings=[x for x in self.diags if x.severity == "warning"], constraints=constraints, tables=tables,
            fingerprint=fingerprint(self.text, options), card_entries=self.card_entries,
            source_text=self.text,  # what a pickled Game is rebuilt from (Game.__reduce__)
        )

    def check_literals(self, cards) -> None:
        """Typos in text literals and number/text mixes (see :mod:`interpreter.spec.literals`)."""
        d = self.data
        options = {k: (v or {}).get("values") for k, v in (d.get("options") or {}).items()
                   if isinstance((v or {}).get("values"), list)}
        numeric = {k for k, v in (d.get("variables") or {}).items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)}
        attrs = deck_values(d, cards)
        numeric |= {f".{k}" for k, v in (d.get("player_variables") or {}).items()
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in attrs}
        kinds = KindFacts(d, attrs, self.positions)
        checker = LiteralChecker(self.file, attrs, options, numeric, self._expr_position, kinds)
        for path, text, tree, shadowed in self.expr_sites:
            checker.check(path, text, tree, shadowed)
        self.diags.extend(checker.out)
        for name, values in options.items():
            if values and all(isinstance(v, str) and _NUMERIC.match(v) for v in values):
                shown = ", ".join(repr(v) for v in values[:6])
                self.error(("options", name, "values"), f"option {name}'s values are texts that look like numbers "
                           f"({shown}): compared or added to numbers they fail when the rules run",
                           f"write them without quotes: values: [{', '.join(values[:6])}]", severity="warning")
        for path, (target, value) in kinds.text_adds.items():
            line, col = self._expr_position(path, 1, 1)
            self.diags.append(Diagnostic(
                self.file, line, col, f"add: {target} holds a number, and adding the text {value} to it fails when "
                "the rules run", f"write the number without quotes: add: {{{target}: {value.strip(chr(39) + chr(34))}}}"))
        for path, (target, value, zone) in kinds.list_adds.items():
            line, col = self._expr_position(path, 1, 1)
            what = f"the zone {value} (a list of cards)" if zone else f"{value}, a list,"
            self.diags.append(Diagnostic(
                self.file, line, col, f"add: {target} holds a number, and adding {what} to it fails when the "
                "rules run", f"add how many cards it holds: add: {{{target}: count({value})}}" if zone else
                f"add a number made from the list, e.g. add: {{{target}: count({value})}} or sum(...)"))

    def build_columns(self) -> list:
        """The score table's columns: ``[(title, f(ctx) with p bound)]``."""
        cols = (self.data.get("display") or {}).get("player_columns")
        reads_before = set(self.names.read_vars)
        default = cols is None
        if default:
            cols = list((self.data.get("player_variables") or {}).keys())
        out = []
        for i, col in enumerate(cols):
            path = ("display", "player_columns", i)
            if isinstance(col, dict):
                (title, text), = col.items()
                f = self.expr(path + (title,), text, bound={"p"})
            else:
                title = str(col)
                if title not in self.names.player_vars:
                    self.error(path, f"{title!r} is not a player variable",
                               "name a player variable, or give {title: expression of p}")
                    continue
                f = self.expr(path, f"p.{title}", bound={"p"})
            if f is not None:
                out.append((str(title), f))
        if default:  # the default table reads variables only if a log shows it (see static checks)
            self.names.read_vars = reads_before
        return out

    def build_boards(self) -> dict:
        """The spec's ``boards:`` as immutable grids (dict name -> Grid); problems are diagnostics."""
        from ..model.board import build_grid
        out = {}
        for name, bd in (self.data.get("boards") or {}).items():
            grid, problems = build_grid(str(name), bd or {})
            for sub, message, hint in problems:
                self.error(("boards", name) + tuple(sub), message, hint)
            if grid is not None:
                out[str(name)] = grid
        self.names.boards = set((self.data.get("boards") or {}).keys())
        return out

    def build_zones(self) -> dict:
        zones = {}
        for name, zd in (self.data.get("zones") or {}).items():
            zd = zd or {}
            team = bool(zd.get("per_team", False))
            per = bool(zd.get("per_player", False)) or team
            vis = zd.get("visibility", "public")
            if team and not self.data.get("teams"):
                self.error(("zones", name, "per_team"), f"zone {name} is per team, but the game has no teams",
                           "add teams: {of: \"p % 2\"} (or use per_player: true)", key=True)
            if team and vis == "owner":
                self.error(("zones", name, "visibility"), f"zone {name} is per team: its visibility is public or "
                           "hidden (owner is not supported for a zone per team)", "use public or hidden")
            if vis == "owner" and not per:
                self.error(("zones", name, "visibility"), f"zone {name} is not per player, so it has no owner",
                           "use public or hidden, or add per_player: true")
            sets = bool(zd.get("sets", False))
            if sets and zd.get("initial") == "all":
                self.error(("zones", name, "sets"), f"zone {name} holds sets, so it cannot hold every card at the start",
                           "put initial: all on a zone such as deck")
            zones[name] = ZoneDef(name, per, vis, sets, team)
            (self.names.player_zones if per else self.names.game_zones).add(name)
            if sets:
                self.names.set_zones.add(name)
        return zones

    def check_name_clashes(self):
        n = self.names
        seen = {}
        for kind, names in (("game variable", n.game_vars), ("game zone", n.game_zones),
                            ("player variable", n.player_vars), ("player zone", n.player_zones)):
            for name in names:
                if name in seen:
                    self.error((), f"{name!r} is both a {seen[name]} and a {kind}", "rename one of them")
                seen[name] = kind
                if name in ("players", "num_players", "options"):
                    self.error((), f"{name!r} is a reserved name", "rename it")

    def build_defines(self):
        defs = self.data.get("define") or {}
        parsed = {}
        for key, body in defs.items():
            m = _DEFINE_KEY.match(str(key))
            if not m:
                self.error(("define", key), f"bad definition name {key!r}", "write name or name(a, b)", key=True)
                continue
            params = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
            parsed[m.group(1)] = (key, params, body)
            self.names.defines[m.group(1)] = params
        trees = {}
        for name, (key, params, body) in parsed.items():
            try:
                trees[name] = parse(body)
            except ExprSyntaxError as exc:
                line, col = self._expr_position(("define", key), exc.line, exc.column)
                self.diags.append(Diagnostic(self.file, line, col, f"bad expression: {exc.message}",
                                             f"in {str(body).strip()!r}"))
        self.compiler.define_trees.update(trees)
        for name, tree in trees.items():
            key, params, body = parsed[name]
            self.expr_sites.append((("define", key), body, tree, set(params)))
        for name, tree in trees.items():
            key, params, body = parsed[name]
            try:
                self.names.functions[name] = self.compiler.compile_define(name, params, tree)
            except ExprNameError as exc:
                self._name_error(("define", key), body, exc)
        # no recursion: evaluation must stay bounded. Each cycle is reported once, at its first define.
        calls = self.names.called_defines
        if not _has_cycle({a: [b for b in callees if b in parsed] for a, callees in calls.items()}):
            return  # the usual case: networkx (slow to import) is needed only to list the cycles
        import networkx as nx
        graph = nx.DiGraph((a, b) for a, callees in calls.items() for b in callees if b in parsed)
        for cycle in sorted(nx.simple_cycles(graph), key=lambda c: (len(c), c))[:20]:
            start = min(cycle, key=lambda name: list(parsed).index(name))
            k = cycle.index(start)
            ordered = cycle[k:] + cycle[:k]
            self.error(("define", parsed[start][0]), "definitions may not call themselves: "
                       + " -> ".join(ordered + [start]), "unroll the recursion with a comprehension", key=True)


def fingerprint(text: str, options: dict) -> str:
    """The identity of a game: a hash of its spec text and its resolved options (hex str).

    Saved States and game logs carry it, so that loading them into a changed spec or other
    options is refused instead of silently playing a different game."""
    blob = json.dumps([text, options], sort_keys=True, default=repr)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:32]

