"""Compile a loaded spec into a :class:`~interpreter.engine.game.Game`.

Every problem is collected as a :class:`~interpreter.errors.Diagnostic` with the
file, line and column of the offending value, and raised together as one
:class:`~interpreter.errors.SpecError` — never just the first.
"""
from __future__ import annotations

import hashlib
import json
import difflib
import re
from pathlib import Path

from ..engine import program as P
from ..engine.game import Game, ZoneDef
from ..errors import Diagnostic, RuleError, SpecError
from ..expr.compiler import CARD_BUILTIN_ATTRS, Compiler, ExprNameError, ExprSyntaxError, Names, parse
from ..model.cards import Card
from .literals import NUMERIC as _NUMERIC, LiteralChecker, deck_values
from .types import KindFacts
from .positions import position_of

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_DEFINE_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*\))?\s*$")
_TEMPLATE = re.compile(r"\{([^{}]*)\}")
MAX_CARDS = 10_000
STEP_KINDS = ("phase", "for", "repeat", "while", "if", "set", "add", "shuffle", "move", "gather",
              "deal", "choose", "log", "end", "random", "realtime", "show", "assert", "climb")


def _has_cycle(edges: dict) -> bool:
    """True when the directed graph ``edges`` (node -> list of nodes) has a cycle (iterative DFS)."""
    state = {}  # node -> 1 on the current path, 2 done
    for root in edges:
        if root in state:
            continue
        state[root] = 1
        path = [(root, iter(edges.get(root, ())))]
        while path:
            node, it = path[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                path.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                path.append((nxt, iter(edges.get(nxt, ()))))
    return False


def _did_you_mean(name: str, known) -> str:
    """``"did you mean 'x'? "`` for the names of ``known`` close to ``name`` (a typo), else ``""``."""
    close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.7)
    return f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""


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


def _str_value(value) -> str:
    """A computed part of a card's name as text (null, true, false as the language writes them)."""
    if value is None or isinstance(value, bool):
        return str(value).lower() if value is not None else "null"
    return str(value)


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


def _guarded(name: str, fn):
    """``fn(ctx, card)`` of the derived attribute ``name``, refusing to be asked for a card's value
    while that value is being worked out (attributes that need each other): RuleError."""
    busy: set = set()

    def derived(ctx, card):
        if card.id in busy:
            busy.clear()
            raise RuleError(f"the derived attribute {name} of {card.name} needs its own value "
                            f"(derived attributes that read each other)")
        busy.add(card.id)
        try:
            return fn(ctx, card)
        finally:
            busy.discard(card.id)
    return derived


class _LazyDefines(dict):
    """``define`` name -> compiled function, each compiled when first looked up (the card
    list's compiler: it calls few definitions that it does not inline). A definition that
    does not compile here (it reads the game's state) is missing: KeyError."""

    def __init__(self, compiler, params: dict):
        super().__init__()
        self.compiler, self.params = compiler, params

    def __missing__(self, name):
        tree = self.compiler.define_trees.get(name)
        if tree is None:
            raise KeyError(name)
        try:
            fn = self[name] = self.compiler.compile_define(name, self.params[name], tree)
        except ExprNameError:
            raise KeyError(name) from None
        return fn


class _OptionsCtx:
    """The context of expressions evaluated at load time (card lists): options only."""

    def __init__(self, options):
        self.options = options
        self.bound = {}
        self.locals = {}
        self.state = None
        self.game = None
        self.memo = None
        self.hoisted = None
        self.work = 0


class SpecCompiler:
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
        n.derived = {str(k) for k in (d.get("derived") or {}) if str(k) not in CARD_BUILTIN_ATTRS}
        self.build_defines()
        derived_attrs = self.build_derived()
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
            has_sets=any(z.sets for z in zones.values()),
            warnings=[x for x in self.diags if x.severity == "warning"], constraints=constraints, tables=tables,
            fingerprint=fingerprint(self.text, options), card_entries=self.card_entries,
            source_text=self.text,  # what a pickled Game is rebuilt from (Game.__reduce__)
        )

    def build_tables(self, cards) -> list:
        """The ``tables:`` entries compiled (see :mod:`interpreter.analysis.tables`)."""
        from ..analysis.tables import TableDef
        out = []
        by_name = {}
        for c in cards:
            by_name.setdefault(c.name, c)
        all_names = deck_values(self.data, cards).get("name")
        for i, t in enumerate(self.data.get("tables") or []):
            path = ("tables", i)
            axes = []
            for key in ("rows", "columns"):
                spec = t[key]
                name = spec["name"]
                if "cards" in spec:
                    entries = []
                    for j, text in enumerate(spec["cards"]):
                        card_name, _, mode = str(text).partition(" as ")
                        card = by_name.get(card_name.strip())
                        if card is None:
                            if all_names is not None and card_name.strip() not in all_names:
                                close = difflib.get_close_matches(card_name.strip(), sorted(all_names), n=1)
                                self.error(path + (key, "cards", j), f"there is no card named {card_name.strip()!r}",
                                           f"did you mean {close[0]!r}?" if close else "write a card's name")
                            continue  # a card these options leave out of the deck
                        mode = mode.strip() or None
                        if mode is not None and mode not in card.modes:
                            self.error(path + (key, "cards", j), f"{card.name} has no mode {mode!r}",
                                       "modes: " + (", ".join(card.modes) or "none"))
                        entries.append((card, mode))
                    axes.append((name, ("cards", entries)))
                else:
                    f = self.expr(path + (key, "values"), spec["values"])
                    axes.append((name, ("values", f)))
            (row_name, rows), (col_name, cols) = axes
            bound = {row_name, col_name, "p"}
            assigns = []
            for target, value in (t.get("set") or {}).items():
                f = self.expr(path + ("set", target), value, bound=bound)
                target = str(target)
                if target.startswith("p.") and target[2:] in self.names.player_vars:
                    assigns.append(("player", target[2:], f))
                elif target in self.names.game_vars:
                    assigns.append(("var", target, f))
                else:
                    self.error(path + ("set",), f"set: {target!r} is not a variable",
                               "write a game variable NAME or a player variable p.NAME", key=True)
            cell = self.expr(path + ("cell",), t["cell"], bound=bound)
            if None in (cell, *(f for _, _, f in assigns)) or (rows[0] == "values" and rows[1] is None) \
                    or (cols[0] == "values" and cols[1] is None):
                continue
            out.append(TableDef(str(t["title"]), " ".join(str(t.get("doc", "")).split()), row_name, col_name, rows, cols, cell,
                                assigns, path))
        return out

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

    def check_recursion(self, programs: dict) -> None:
        """Refuse a phase that calls itself (directly or through other phases) on a path with no
        decision in between: the game would pile up frames and never ask anyone anything. A
        static check, so such a spec is refused by validate instead of running a million steps."""
        skip = {name: False for name in programs}  # can the phase run to its end with no decision?
        changed = True
        while changed:
            changed = False
            for name, prog in programs.items():
                if not skip[name] and _exit_reachable(prog, skip):
                    skip[name] = changed = True
        edges, sites = {}, {}
        for name, prog in programs.items():
            for pc, callee in _calls_before_a_decision(prog, skip):
                edges.setdefault(name, []).append(callee)
                sites.setdefault((name, callee), prog[pc].path)
        for ring in _cycles(edges)[:5]:
            path = sites[(ring[0], ring[1])]
            self.error(path, "phase " + " -> ".join(ring) + " can call itself again with no decision in "
                       "between: recursion without a decision is refused (it could pile up frames for ever)",
                       "put a choose step before the call, or use repeat or while (with max) to do it again")

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

    def resolve_options(self, given: dict) -> dict:
        declared = self.data.get("options") or {}
        values = {k: (v or {}).get("default") for k, v in declared.items()}
        for k, decl in declared.items():
            decl = decl or {}
            if decl.get("type") == "choice" and decl.get("values") is None:
                self.error(("options", k), f"option {k} is a choice but lists no values", "add values: [...]", key=True)
            if not _fits(decl, decl.get("default")):
                self.error(("options", k, "default"), f"the default of option {k} ({decl.get('default')!r}) "
                           f"is not a {_option_type(decl)}", "fix the default or the type")
        for name, preset in (self.data.get("presets") or {}).items():
            for k, v in (preset or {}).items():
                if k not in declared:
                    self.error(("presets", name, k), f"preset {name} sets {k!r}, which is not an option",
                               "options: " + (", ".join(declared) or "none"), key=True)
                elif not _fits(declared[k] or {}, v):
                    self.error(("presets", name, k), f"preset {name} sets {k} to {v!r}, not a {_option_type(declared[k] or {})}",
                               key=True)
        given = dict(given)
        preset = given.pop("preset", None)
        if preset is not None:
            presets = self.data.get("presets") or {}
            if preset not in presets:
                self.error(("presets",), f"unknown preset {preset!r}",
                           "presets: " + (", ".join(presets) or "none"), key=True)
            else:
                for k, v in presets[preset].items():
                    values[k] = v
        for k, v in given.items():
            if k not in declared:
                self.error(("options",), f"unknown option {k!r}",
                           "options: " + (", ".join(declared) or "none"), key=True)
                continue
            values[k] = coerce_option(declared[k] or {}, v, k, self)
            decl = declared[k] or {}
            if not isinstance(v, str) and decl.get("values") is None and not _fits(decl, values[k]):
                self.error(("options", k), f"option {k} must be a {_option_type(decl)}, not {v!r}", key=True)
        for k, v in values.items():
            decl = declared.get(k) or {}
            low, high = decl.get("min"), decl.get("max")
            if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                    (low is not None and v < low) or (high is not None and v > high)):
                limits = " and ".join(x for x in (f"at least {low}" if low is not None else "",
                                                   f"at most {high}" if high is not None else "") if x)
                where = ("options", k, "default") if v == decl.get("default") and k not in given else ("options", k)
                self.error(where, f"option {k} must be {limits}, not {v!r}",
                           decl.get("doc") or f"e.g. --option {k}={low if low is not None else high}",
                           key=where == ("options", k))
            if decl.get("values") is not None and v not in decl["values"]:
                self.error(("options", k), f"option {k} cannot be {v!r}",
                           "choose one of: " + ", ".join(map(str, decl["values"])), key=True)
        return values

    def build_cards(self, options) -> list:
        out: list[Card] = []
        octx = _OptionsCtx(options)
        attrs_all = set()
        for i, entry in enumerate(self.data.get("cards") or []):
            path = ("cards", i)
            if not isinstance(entry, dict):
                continue
            if "when" in entry:
                before = len(self.diags)
                f = self.expr(path + ("when",), entry["when"])
                for i in range(before, len(self.diags)):  # say why a declared name is unknown here
                    d = self.diags[i]
                    self.diags[i] = type(d)(d.file, d.line, d.column, d.message,
                                            "a card's when: can read only options (options.NAME)", d.severity)
                try:
                    if f is not None and not f(octx):
                        attrs_all.update((entry.get("attributes") or {}).keys())
                        attrs_all.update((entry.get("each") or {}).keys())
                        continue
                except Exception as exc:  # noqa: BLE001 - report any evaluation failure
                    self.error(path + ("when",), f"cannot evaluate: {exc}")
                    continue
            combos = [{}]
            for key, values in (entry.get("each") or {}).items():
                if isinstance(values, str):
                    f = self.card_expr(path + ("each", key), values, options)
                    try:
                        values = f(octx) if f is not None else []
                    except Exception as exc:  # noqa: BLE001
                        self.error(path + ("each", key), f"cannot evaluate: {exc}")
                        values = []
                if not isinstance(values, list):
                    self.error(path + ("each", key), f"each.{key} must be a list", "e.g. [red, blue] or 'range(1, 10)'")
                    values = []
                if len(combos) * len(values) > MAX_CARDS:
                    self.error(path + ("each", key), f"more than {MAX_CARDS} cards", "a deck this large cannot be played")
                    combos = []
                    break
                combos = [dict(c, **{key: v}) for c in combos for v in values]
            if entry.get("per_player"):
                # one set per seat (the card table holds players.max sets; a game of n players
                # plays with the sets of seats 0..n-1, the others stay out of the game)
                if "owner" in (entry.get("each") or {}) or "owner" in (entry.get("attributes") or {}):
                    self.error(path, "a per_player card entry sets the attribute owner itself",
                               "remove owner from each: and attributes:", key=True)
                seats = range(int((self.data.get("players") or {}).get("max", 8)))
                combos = [dict(c, owner=s) for s in seats for c in combos]
            count = entry.get("count", 1)
            if type(count) is not int or count < 1:  # JSON Schema counts 5.0 as an integer
                self.error(path + ("count",), f"count must be a whole number of copies (1 or more), not {count!r}",
                           "e.g. count: 5")
                count = 1
            if len(combos) * (count if isinstance(count, int) else 1) + len(out) > MAX_CARDS:
                self.error(path, f"more than {MAX_CARDS} cards", "a deck this large cannot be played")
                break
            modes = entry.get("modes") or {}
            for m in modes.values():
                attrs_all.update((m or {}).keys())
            for combo in combos:
                attrs = dict(entry.get("attributes") or {})
                attrs.update(combo)
                attrs_all.update(attrs.keys())
                template = str(entry.get("name", ""))
                missing = [m.group(1) for m in _TEMPLATE.finditer(template) if m.group(1).strip() not in attrs
                           and _IDENT.match(m.group(1).strip()) and m.group(1).strip() not in self._card_defines()]
                if missing:
                    self.error(path + ("name",), f"the card name uses {{{missing[0]}}}, which is not an attribute "
                               "of these cards", "name attributes from each: or attributes:, e.g. {suit}-{rank}")
                    break
                name = self.card_name(path + ("name",), template, attrs, options)
                if name is None:
                    break
                if not name:
                    self.error(path, "a card needs a name", "add name: \"{suit}-{rank}\" or a fixed name")
                    continue
                seat = attrs["owner"] if entry.get("per_player") else None
                for _ in range(count if isinstance(count, int) else 1):
                    out.append(Card(len(out), name, attrs, {k: dict(v or {}) for k, v in modes.items()}, seat))
                    self.card_entries.append(path[1])  # (i is reused below for diagnostics)
        names_seen: dict[str, tuple] = {}
        for c in out:
            entry = ("cards", self.card_entries[c.id])
            if " as " in c.name:
                self.error(entry + ("name",), f"the card name {c.name!r} contains ' as ', which action texts use "
                           "for modes", "use another word or a hyphen")
                break
            key = tuple(sorted((str(k), repr(v)) for k, v in c.attrs.items()))  # (keys of any YAML type)
            if c.name in names_seen and names_seen[c.name][0] != key:
                first = position_of(self.positions, ("cards", names_seen[c.name][1], "name")).line
                self.error(entry + ("name",), f"two different cards are both named {c.name!r} (the other is "
                           f"made at line {first})", "give each kind of card its own name (identical copies share one)")
                names_seen[c.name] = (key, entry[1])  # each clash reported once, at the later entry
            names_seen.setdefault(c.name, (key, entry[1]))
        self.check_repeated_entries()
        self.names.card_attrs = attrs_all | {str(k) for k in (self.data.get("derived") or {})}
        return out

    def check_repeated_entries(self) -> None:
        """A card entry written twice (pasted again) puts its cards in the deck twice: a warning at
        the second, since ``count:`` is the way to say copies."""
        seen: dict = {}
        for i, entry in enumerate(self.data.get("cards") or []):
            if not isinstance(entry, dict):
                continue
            key = json.dumps(entry, sort_keys=True, default=str)
            if key in seen:
                first = position_of(self.positions, ("cards", seen[key])).line
                count = entry.get("count", 1)
                self.error(("cards", i), f"this card entry repeats the one at line {first}: its cards are in the "
                           "deck twice", f"remove it, or write count: {2 * count if isinstance(count, int) else 2} "
                           "in one entry for that many copies", severity="warning", key=True)
            else:
                seen[key] = i

    # -- load-time expressions of the card list ------------------------------------------
    def _card_defines(self) -> dict:
        """``define`` name -> parameters, read from the spec text (the card list is built
        before the definitions are compiled)."""
        out = {}
        for key in (self.data.get("define") or {}):
            m = _DEFINE_KEY.match(str(key))
            if m:
                out[m.group(1)] = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
        return out

    def _card_compiler(self, options) -> Compiler:
        """A compiler for the card list's ``each:`` lists and ``name:`` templates: it knows the
        options and the ``define`` entries (inlined where called), nothing of the game's state."""
        comp = getattr(self, "_card_comp", None)
        if comp is not None:
            return comp
        attrs = set()
        for entry in self.data.get("cards") or []:
            if isinstance(entry, dict):
                attrs.update((entry.get("attributes") or {}).keys(), (entry.get("each") or {}).keys())
        names = Names(options=dict(options), card_attrs=attrs)
        names.used_options = self.names.used_options  # an option read by the card list is used
        comp = Compiler(names)
        defines = self._card_defines()
        names.defines.update(defines)
        for key, body in (self.data.get("define") or {}).items():
            m = _DEFINE_KEY.match(str(key))
            if not m:
                continue
            try:
                comp.define_trees[m.group(1)] = parse(body)
            except ExprSyntaxError:
                continue  # reported where the definitions are compiled
        # compiled when first called, not inlined (most calls are inlined, so most never are):
        # a definition that reads the game's state is reported where the card list uses it
        names.functions = _LazyDefines(comp, defines)
        self._card_comp = comp
        return comp

    def card_expr(self, path, text, options, bound=()):
        """Compile an expression of the card list (``each:`` lists, ``{EXPR}`` in a card's
        name): it may read options, definitions of options and (in a name) the card's
        attributes. Records a diagnostic and returns None when it cannot."""
        tree = self._parse(path, text)
        if tree is None:
            return None
        try:
            return self._card_compiler(options).compile(tree, (), bound)
        except ExprNameError as exc:
            where = f" (in define {exc.define})" if exc.define else ""
            self.error(path, exc.message + where, "the card list is built before the game starts: it can read "
                       "options, the card's own attributes and definitions that read only these")
            return None

    def card_name(self, path, template, attrs, options):
        """A card's name from its ``name:`` template: ``{suit}`` is an attribute, any other
        ``{EXPR}`` is computed (``{faces[rank]}`` with ``faces`` a map under define)."""
        out, last = [], 0
        for m in _TEMPLATE.finditer(template):
            out.append(template[last:m.start()])
            last = m.end()
            inner = m.group(1).strip()
            if inner in attrs:
                out.append(str(attrs[inner]))
                continue
            f = self.card_expr(path, inner, options, bound=tuple(attrs))
            if f is None:
                return None
            ctx = _OptionsCtx(options)
            ctx.bound = dict(attrs)
            try:
                value = f(ctx)
            except Exception as exc:  # noqa: BLE001 - report any evaluation failure
                self.error(path, f"cannot compute {{{inner}}} of the card {attrs}: {exc}")
                return None
            out.append(_str_value(value))
        out.append(template[last:])
        return "".join(out)

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
            per = bool(zd.get("per_player", False))
            vis = zd.get("visibility", "public")
            if vis == "owner" and not per:
                self.error(("zones", name, "visibility"), f"zone {name} is not per player, so it has no owner",
                           "use public or hidden, or add per_player: true")
            sets = bool(zd.get("sets", False))
            if sets and zd.get("initial") == "all":
                self.error(("zones", name, "sets"), f"zone {name} holds sets, so it cannot hold every card at the start",
                           "put initial: all on a zone such as deck")
            zones[name] = ZoneDef(name, per, vis, sets)
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

    def build_derived(self) -> dict:
        """The ``derived:`` card attributes compiled: name -> ``fn(ctx, card)``. In its own
        expression ``c.NAME`` is the card's printed attribute; an attribute whose value needs
        itself (through another derived attribute) is a RuleError when met."""
        from ..expr.melds import card_fn
        out = {}
        for name, text in (self.data.get("derived") or {}).items():
            name = str(name)
            path = ("derived", name)
            if name in CARD_BUILTIN_ATTRS:
                self.error(path, f"{name} is a card's own attribute and cannot be derived",
                           "give the derived attribute another name", key=True)
                continue
            self.compiler.printed = name
            try:
                fn = self.expr(path, text, bound={"c"})
            finally:
                self.compiler.printed = None
            if fn is not None:
                out[name] = _guarded(name, card_fn(fn))
        return out

    def build_melds(self) -> dict:
        """The ``melds:`` kinds compiled (name -> :class:`~interpreter.expr.melds.MeldKind`),
        each card expression an ``fn(ctx, card)`` of ``c``; problems are recorded as diagnostics."""
        from ..expr.melds import MeldKind, card_fn
        decl = self.data.get("melds") or {}
        self.names.meld_kinds = set(decl)
        out = {}
        for name, d in decl.items():
            if not isinstance(d, dict):
                continue  # the schema has said so
            path = ("melds", name)
            form = d.get("form")
            fields = {"set": ("key", "wild"), "run": ("suit", "rank", "wild")}.get(form, ())
            for other in ("key",) if form == "run" else ("suit", "rank", "ace", "ace_rank") if form == "set" else ():
                if other in d:
                    self.error(path + (other,), f"meld kind {name}: {other} is for a "
                               f"{'set' if form == 'run' else 'run'}, not a {form}",
                               f"remove {other}, or make it form: {'set' if form == 'run' else 'run'}", key=True)
            fns = {}
            for f in fields:
                text = d.get(f, {"key": "c.rank", "suit": "c.suit", "rank": "c.rank"}.get(f))
                if text is None:
                    continue
                fn = self.expr(path + (f,) if f in d else path, text, bound={"c"})
                fns[f] = card_fn(fn) if fn is not None else None
            lo, hi = d.get("min", 3), d.get("max")
            if hi is not None and hi < lo:
                self.error(path + ("max",), f"meld kind {name}: max {hi} is less than min {lo}", "swap them")
            if ("max_wild" in d or "min_natural" in d) and "wild" not in d:
                self.error(path, f"meld kind {name}: max_wild/min_natural need wild: (which cards are wild)",
                           "add wild: \"c.joker\" (an expression of the card c)", key=True)
            if any(v is None for v in fns.values()):
                continue
            out[name] = MeldKind(name=name, form=form, size=(lo, hi), key=fns.get("key"), suit=fns.get("suit"),
                                 rank=fns.get("rank"), ace=d.get("ace", "low"), ace_rank=d.get("ace_rank", 1),
                                 wild=fns.get("wild"), max_wild=d.get("max_wild"),
                                 min_natural=d.get("min_natural", 1))
        return out

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

    # -- steps ------------------------------------------------------------------------------
    def compile_program(self, steps, path, locs=frozenset()) -> list:
        prog: list = []
        self.block(steps, path, locs, prog)
        return prog

    def block(self, steps, path, locs, prog):
        if not isinstance(steps, list):
            self.error(path, "expected a list of steps", "write each step as '- kind: ...'")
            return
        for i, step in enumerate(steps):
            self.step(step, path + (i,), locs, prog)

    def _emit(self, prog, instr, path):
        instr.path = path
        instr.step_id = "/".join(str(p) for p in path)
        prog.append(instr)
        return instr

    def step(self, step, path, locs, prog):
        if not isinstance(step, dict):
            self.error(path, f"a step must be a mapping, not {step!r}", "e.g. - shuffle: deck")
            return
        kinds = [k for k in step if k in STEP_KINDS]
        if len(kinds) != 1:
            self.error(path, "a step needs exactly one of: " + ", ".join(STEP_KINDS),
                       f"found keys: {', '.join(map(str, step))}")
            return
        kind = kinds[0]
        getattr(self, "step_" + kind)(step, path, locs, prog)

    def step_phase(self, step, path, locs, prog):
        name = step["phase"]
        if name not in self.phase_names:
            self.error(path + ("phase",), f"unknown phase {name!r}",
                       "phases: " + (", ".join(sorted(self.phase_names)) or "none declared under phases"))
        params = self.phase_params.get(name, [])
        given = step.get("args") or {}
        if not isinstance(given, dict):
            given = {}
        missing = [p for p in params if p not in given]
        extra = [a for a in given if a not in params]
        if missing and name in self.phase_names:
            self.error(path + ("phase",), f"phase {name} takes the argument(s) {', '.join(params)}; "
                       f"this call does not give {', '.join(missing)}",
                       "add args: {" + ", ".join(f"{p}: EXPR" for p in params) + "}")
        if extra and name in self.phase_names:
            self.error(path + ("args", extra[0]), f"phase {name} has no argument {extra[0]!r}",
                       f"its arguments: {', '.join(params) or 'none'} (declare them as {name}(a, b) under phases)",
                       key=True)
        args = []
        for p in params:
            if p in given:
                f = self.expr(path + ("args", p), given[p], locs)
                if f is not None:
                    args.append((p, f))
        self._emit(prog, P.Call(name, args), path)

    def _loop(self, prog, path, key, var, items, body, locs, until=None):
        self._emit(prog, P.ForInit(key, items), path)
        nxt = self._emit(prog, P.ForNext(key, var) if until is None else P.ForNextUntil(key, var, until),
                         path + ("do",))
        nxt.step_id = None
        top = len(prog) - 1
        self.block(body, path + ("do",), locs | ({var} if var else set()), prog)
        j = self._emit(prog, P.Jump(top), path)
        j.step_id = None
        nxt.end = len(prog)

    def step_for(self, step, path, locs, prog):
        var = step["for"]
        items = self.expr(path + ("in",), step.get("in", "[]"), locs)
        # until: checked before each pass, the loop variable of the last pass still bound
        until = self.expr(path + ("until",), step["until"], locs | {str(var)}) if "until" in step else None
        self._loop(prog, path, _frame_key("for", path), str(var), items, step.get("do", []), locs,
                   until if "until" not in step or until is not None else (lambda ctx: False))

    def step_repeat(self, step, path, locs, prog):
        items = self.expr(path + ("repeat",), step["repeat"], locs)
        var = step.get("as")
        self._loop(prog, path, _frame_key("rep", path), var, items, step.get("do", []), locs)

    def step_while(self, step, path, locs, prog):
        cond = self.expr(path + ("while",), step["while"], locs)
        if "max" not in step:
            self.error(path, "a while loop needs a max", "add max: N, the most times it may run", key=True)
        check = self._emit(prog, P.WhileCheck(_frame_key("while", path), cond, step.get("max", 1000)), path)
        top = len(prog) - 1
        self.block(step.get("do", []), path + ("do",), locs, prog)
        j = self._emit(prog, P.Jump(top), path)
        j.step_id = None
        check.end = len(prog)

    def step_if(self, step, path, locs, prog):
        cond = self.expr(path + ("if",), step["if"], locs)
        jmp = self._emit(prog, P.JumpIfNot(cond), path)
        self.block(step.get("then", []), path + ("then",), locs, prog)
        if "else" in step:
            j = self._emit(prog, P.Jump(), path + ("else",))
            j.step_id = None
            jmp.target = len(prog)
            self.block(step["else"], path + ("else",), locs, prog)
            j.target = len(prog)
        else:
            jmp.target = len(prog)

    def _targets(self, step, key, path, locs):
        out = []
        mapping = step[key]
        if not isinstance(mapping, dict):
            self.error(path + (key,), f"{key} takes a mapping of target: expression")
            return out
        n = self.names
        for target, value in mapping.items():
            tpath = path + (key, target)
            fval = self.expr(tpath, value, locs)
            try:
                tree = parse(str(target))
            except ExprSyntaxError as exc:
                self.error(tpath, f"bad target {target!r}: {exc.message}", "a target is a variable, p.var or m[key]",
                           key=True)
                continue
            try:
                if tree.data == "name":
                    name = str(tree.children[0])
                    if name in locs:
                        out.append(("local", name, None, fval))
                    elif name in n.game_vars:
                        out.append(("var", name, None, fval))
                    elif name in n.player_vars:
                        raise ExprNameError(f"cannot set {name!r}: it belongs to a player",
                                            f"write p.{name} (with p a player)")
                    else:
                        raise ExprNameError(f"cannot set {name!r}: not a variable", _did_you_mean(
                            name, set(locs) | n.game_vars) + "declare it under variables (or player_variables, "
                            "written p." + name + ")")
                elif tree.data == "attr":
                    obj, name = tree.children
                    name = str(name)
                    if name not in n.player_vars:
                        raise ExprNameError(f"{name!r} is not a player variable",
                                            _did_you_mean(name, n.player_vars) + "declare it under player_variables")
                    kind = "team" if name in getattr(self, "team_vars", ()) else "player"
                    out.append((kind, name, self.compiler.compile(obj, locs), fval))
                elif tree.data == "index":
                    container = self.compiler.compile(tree.children[0], locs)
                    keyf = self.compiler.compile(tree.children[1], locs)
                    out.append(("index", None, (container, keyf), fval))
                else:
                    raise ExprNameError(f"cannot assign to {target!r}", "a target is a variable, p.var or m[key]")
            except ExprNameError as exc:
                self.error(tpath, exc.message, exc.hint, key=True)
        return out

    def step_set(self, step, path, locs, prog, add=False):
        targets = self._targets(step, "add" if add else "set", path, locs)
        self._emit(prog, P.Assign(targets, add), path)

    def step_add(self, step, path, locs, prog):
        self.step_set(step, path, locs, prog, add=True)

    def step_random(self, step, path, locs, prog):
        targets = self._targets(step, "random", path, locs)
        self._emit(prog, P.RandomSet(targets), path)

    def zone(self, path, text, locs, bound=(), per_player_name_ok=False):
        """Compile a zone reference: ``deck``, ``EXPR.hand``, or one set of a zone of sets:
        ``melds[EXPR]`` / ``EXPR.melds[EXPR]`` (0-based)."""
        n = self.names
        text = str(text)
        sets = n.set_zones
        if text in n.game_zones:
            return P.ZoneRef(text, None, text, sets=text in sets)
        if per_player_name_ok and text in n.player_zones:
            return P.ZoneRef(text, None, text, sets=text in sets)
        try:
            tree = parse(text)
        except ExprSyntaxError as exc:
            self.error(path, f"bad zone {text!r}: {exc.message}")
            return None
        index = None
        if tree.data == "index":
            whole, key = tree.children
            is_set_zone = ((whole.data == "name" and str(whole.children[0]) in n.game_zones & sets)
                           or (whole.data == "attr" and str(whole.children[1]) in n.player_zones & sets))
            if is_set_zone:
                try:
                    index = self.compiler.compile(key, locs, bound)
                except ExprNameError as exc:
                    self._name_error(path, text, exc)
                    return None
                tree = whole
                if tree.data == "name":
                    name = str(tree.children[0])
                    return P.ZoneRef(name, None, text, index=index, sets=True)
        if tree.data == "attr" and str(tree.children[1]) in n.player_zones:
            try:
                owner = self.compiler.compile(tree.children[0], locs, bound)
            except ExprNameError as exc:
                self._name_error(path, text, exc)
                return None
            name = str(tree.children[1])
            return P.ZoneRef(name, owner, text, index=index, sets=name in sets)
        zones = sorted(n.game_zones) + [f"p.{z}" for z in sorted(n.player_zones)]
        self.error(path, f"{text!r} is not a zone", "zones: " + ", ".join(zones)
                   + (" (a zone of sets also as ZONE[i])" if sets else ""))
        return None

    def one_list(self, path, z, what):
        """Report a zone of sets named without a set where one list of cards is needed."""
        if z is not None and z.sets and z.index is None:
            self.error(path, f"{z.text} is a zone of sets: {what} needs one set",
                       f"name a set, e.g. {z.text}[0] (0-based), or use a zone that is not sets: true")

    def step_shuffle(self, step, path, locs, prog):
        z = self.zone(path + ("shuffle",), step["shuffle"], locs)
        self.one_list(path + ("shuffle",), z, "shuffle")
        self._emit(prog, P.Shuffle(z), path)

    def step_gather(self, step, path, locs, prog):
        spec = step["gather"]
        target = spec.get("to") if isinstance(spec, dict) else spec
        z = self.zone(path + ("gather",), target, locs)
        if z is not None and z.owner is not None:
            self.error(path + ("gather",), "gather collects into a game zone", "e.g. gather: deck")
        elif z is not None and z.sets:
            self.error(path + ("gather",), "gather collects into a zone that is not a zone of sets", "e.g. gather: deck")
        self._emit(prog, P.Gather(z), path)

    def step_move(self, step, path, locs, prog):
        m = step["move"]
        if not isinstance(m, dict):
            self.error(path + ("move",), "move takes a mapping", "e.g. move: {from: trick, to: leader.won}")
            return
        src = self.zone(path + ("move", "from"), m["from"], locs) if "from" in m else None
        self.one_list(path + ("move", "from"), src, "move from")
        dst = self.zone(path + ("move", "to"), m.get("to"), locs)
        count = self.expr(path + ("move", "count"), m["count"], locs) if "count" in m else None
        cards = self.expr(path + ("move", "cards"), m["cards"], locs) if "cards" in m else None
        if src is None and cards is None and "from" not in m:
            self.error(path + ("move",), "move needs from (and count) or cards", "e.g. move: {from: deck, to: p.hand, count: 1}")
        if dst is not None:
            self._emit(prog, P.Move(src, dst, count, cards, m.get("at", "top"), bool(self.names.set_zones)), path)

    def step_deal(self, step, path, locs, prog):
        m = step["deal"]
        src = self.zone(path + ("deal", "from"), m.get("from"), locs)
        to = str(m.get("to"))
        if to not in self.names.player_zones:
            self.error(path + ("deal", "to"), f"{to!r} is not a player zone", "deal to a per_player zone such as hand")
        elif to in self.names.set_zones:
            self.error(path + ("deal", "to"), f"{to!r} is a zone of sets", "deal to a zone such as hand, then move cards into sets")
        self.one_list(path + ("deal", "from"), src, "deal from")
        if m.get("count") == "all":
            count = "all"  # the whole source, round the table; the first seats may get one more
        else:
            count = self.expr(path + ("deal", "count"), m["count"], locs) if "count" in m else None
        start = self.expr(path + ("deal", "start"), m["start"], locs) if "start" in m else None
        players = self.expr(path + ("deal", "players"), m["players"], locs) if "players" in m else None
        self._emit(prog, P.Deal(src, to, count, start, players), path)

    def step_log(self, step, path, locs, prog):
        spec = step["log"]
        text = spec.get("text", "") if isinstance(spec, dict) else spec
        table = bool(spec.get("table", False)) if isinstance(spec, dict) else False
        key = ("log", "text") if isinstance(spec, dict) else ("log",)
        visible, hidden = self._privacy(spec, path + ("log",), locs)
        self._emit(prog, P.Log(self.template(path + key, text, locs), table, visible, hidden), path)

    def _privacy(self, spec, path, locs, bound=()):
        """``visible_to`` (compiled) and ``hidden_text`` (a template) of a log or choose step."""
        if not isinstance(spec, dict):
            return None, None
        visible = self.expr(path + ("visible_to",), spec["visible_to"], locs, bound) if "visible_to" in spec else None
        hidden = None
        if "hidden_text" in spec:
            if "visible_to" not in spec:
                self.error(path + ("hidden_text",), "hidden_text is what the others read in place of a "
                           "private text, but nothing is private here", "add visible_to: SEATS, or drop hidden_text",
                           key=True)
            hidden = self.template(path + ("hidden_text",), spec["hidden_text"], locs, bound)
        return visible, hidden

    def step_show(self, step, path, locs, prog):
        m = step["show"]
        cards = self.expr(path + ("show", "cards"), m["cards"], locs)
        to = self.expr(path + ("show", "to"), m["to"], locs)
        self._emit(prog, P.Show(cards, to), path)

    def step_end(self, step, path, locs, prog):
        text = step["end"]
        self._emit(prog, P.End(self.template(path + ("end",), text, locs) if text else []), path)

    def step_assert(self, step, path, locs, prog):
        cond = self.expr(path + ("assert",), step["assert"], locs)
        message = self.template(path + ("message",), step.get("message", ""), locs)
        self._emit(prog, P.Assert(cond, message, str(step["assert"])), path)

    def _choose_instr(self, c, cp, locs, path, prog, realtime=False):
        """Compile the choice ``c`` (a choose mapping at spec path ``cp``) into a Choose
        instruction emitted at ``path``; ``realtime``: an action of a real-time block (no
        player/players: whoever acts is bound; neither cards nor options: the verb alone)."""
        as_name = c.get("as", "choice")
        by_name = c.get("by", "player")
        bound = {as_name, by_name}
        player = self.expr(cp + ("player",), c["player"], locs) if "player" in c else None
        players = self.expr(cp + ("players",), c["players"], locs) if "players" in c else None
        if realtime:
            for key in ("player", "players", "optional"):
                if key in c:
                    self.error(cp + (key,), f"a real-time action has no {key}: any listed player may take it "
                               "at any moment", "name the players on the realtime step (players: EXPR), "
                               "or leave it out", key=True)
        elif ("player" in c) == ("players" in c):
            self.error(cp, "choose needs exactly one of player (in turn) or players (all at once)")
        cards = self.zone(cp + ("cards",), c["cards"], locs, bound) if "cards" in c else None
        self.one_list(cp + ("cards",), cards, "choose")
        options = self.expr(cp + ("options",), c["options"], locs, bound) if "options" in c else None
        if "cards" in c and "options" in c or not realtime and ("cards" in c) == ("options" in c):
            self.error(cp, "choose needs exactly one of cards (a zone) or options (a list)")
        is_set = "min" in c or "max" in c
        each = str(c.get("each", "card"))
        where_bound = bound | {each} if is_set else bound
        # `where` runs once per option (and, in a set choice, per card and set so far): the parts
        # that read neither are computed once per listing (hoisted)
        vary = {as_name, each} if is_set else {as_name}
        where = self.expr(cp + ("where",), c["where"], locs, where_bound, vary=vary) if "where" in c else None
        product = self._product_factors(c["options"], locs, bound) if options is not None and where is None else None
        to = self.zone(cp + ("to",), c["to"], locs | bound) if "to" in c else None
        if to is not None and "cards" not in c:  # (not when cards: failed to compile: said already)
            self.error(cp + ("to",), "to is for card choices", "use cards: ZONE, or drop to")
        action = str(c.get("action", "choose"))
        if " " in action or not action:
            self.error(cp + ("action",), "an action verb is one word", "e.g. action: play")
        min_ = self.expr(cp + ("min",), c["min"], locs, bound) if "min" in c else None
        max_ = self.expr(cp + ("max",), c["max"], locs, bound) if "max" in c else None
        valid = self.expr(cp + ("valid",), c["valid"], locs, bound) if "valid" in c else None
        for key in ("valid", "each"):
            if key in c and not is_set:
                self.error(cp + (key,), f"{key} is for set choices", "add min: N (and max: M) to choose a set of cards",
                           key=True)
        if is_set:
            if realtime:
                self.error(cp, "a real-time action cannot choose a set of cards (min/max)",
                           "choose the set in a turn-based or simultaneous choose step")
            if cards is None:
                self.error(cp, "a set choice (min/max) chooses cards", "add cards: ZONE")
            if action in ("pick", "undo"):
                self.error(cp + ("action",), f"{action!r} is used to build a set", "choose another verb, e.g. meld")
            for key in ("min", "max"):
                if isinstance(c.get(key), int) and not isinstance(c.get(key), bool) and c[key] < 0:
                    self.error(cp + (key,), f"{key} cannot be negative")
            if isinstance(c.get("min"), int) and isinstance(c.get("max"), int) and c["min"] > c["max"]:
                self.error(cp + ("min",), f"min {c['min']} is more than max {c['max']}", "swap them")
        optional = c.get("optional", False)
        if isinstance(optional, dict):
            verb = str(optional.get("action", "pass"))
            if " " in verb or not verb:
                self.error(cp + ("optional", "action"), "an action verb is one word", "e.g. action: draw")
            if verb == action:
                self.error(cp + ("optional", "action"), f"the optional action reads like the choice's own verb {action!r}",
                           "give it another verb")
            when = self.expr(cp + ("optional", "when"), optional["when"], locs, bound) if "when" in optional else None
            optional = (verb, when)
        else:
            optional = ("pass", None) if optional else None
        instr = self._emit(prog, P.Choose(action, player, players, cards, where, options, to,
                                          optional, as_name, by_name,
                                          *self._privacy(c, cp, locs, bound), min_, max_, valid, each), path)
        instr.label = c.get("label") or action
        instr.product = product
        return instr, bound

    def _product_factors(self, text, locs, bound):
        """The compiled lists of ``product(A, B, ...)`` when a choice's options are written so
        (directly, or as a definition without parameters whose body is that call), else None:
        such options are listed lazily, by index (ProductOptions)."""
        try:
            tree = parse(text)
        except ExprSyntaxError:
            return None
        defines, trees = self.names.defines, self.compiler.define_trees
        scope_locs, scope_bound = locs, bound
        for _ in range(4):  # follow a few parameterless definitions
            if tree.data == "name" and str(tree.children[0]) in trees and not defines.get(str(tree.children[0])) \
                    and str(tree.children[0]) not in set(locs) | set(bound):
                tree = trees[str(tree.children[0])]
                scope_locs, scope_bound = (), ()  # a definition's body sees game-level names only
            else:
                break
        if tree.data != "call" or str(tree.children[0]) != "product" or "product" in defines:
            return None
        args = [a for a in tree.children[1:] if a is not None]
        if not args or any(getattr(a, "data", None) in ("lambda_",) for a in args):
            return None
        try:
            return [self.compiler.compile(a, scope_locs, scope_bound) for a in args]
        except ExprNameError:
            return None

    def step_choose(self, step, path, locs, prog):
        c = step["choose"]
        cp = path + ("choose",)
        instr, bound = self._choose_instr(c, cp, locs, path, prog)
        self._choice_then(instr, path, c.get("then", []), cp + ("then",), locs | bound, prog)

    def _choice_then(self, instr, path, then, then_path, locs, prog):
        """After the choice ``instr`` (emitted at ``path``): its ``then`` steps, run once per
        choice made (one per chooser), each with the choice bound; ``instr`` skips them all
        when nobody chose."""
        key = _frame_key("ch", path)
        init = self._emit(prog, P.ChoicesInit(key, _pop_choices), path)
        init.step_id = None
        nxt = self._emit(prog, P.ForNext(key, "$choice"), path)
        nxt.step_id = None
        top = len(prog) - 1
        bind = self._emit(prog, P.BindChoice(instr.as_name, instr.by_name, instr.to, instr.cards), path)
        bind.step_id = None
        bind_pc = len(prog) - 1
        self.block(then, then_path, locs, prog)
        j = self._emit(prog, P.Jump(top), path)
        j.step_id = None
        nxt.end = len(prog)
        instr.skip_to = len(prog)
        init.next, init.bind, init.bind_pc, init.jump_pc = nxt, bind, bind_pc, len(prog) - 1

    def step_realtime(self, step, path, locs, prog):
        """``realtime``: from here on any listed player may act, until ``until`` holds (checked
        before the first action and after each action's ``then``) or nobody can act. Compiled
        as one waiting instruction (it lists every player's options: the union of the
        ``actions``) followed by each action's body, which jumps back to it."""
        r = step["realtime"]
        rp = path + ("realtime",)
        if not isinstance(r, dict):
            self.error(rp, "realtime takes a mapping", "e.g. realtime: {until: EXPR, actions: [- choose: ...]}")
            return
        players = self.expr(rp + ("players",), r["players"], locs) if "players" in r else None
        until = self.expr(rp + ("until",), r["until"], locs) if "until" in r else None
        actions = r.get("actions")
        if not isinstance(actions, list) or not actions:
            self.error(rp + ("actions",), "a realtime step needs a list of actions",
                       "actions: [- choose: {action: play, cards: player.hand, to: pile}]")
            actions = []
        top = len(prog)
        wait = self._emit(prog, P.RealtimeWait(players, until), path)
        alts, verbs = [], {}
        # the alternatives are compiled into a scratch list: the engine asks them for options,
        # it never runs them as steps
        scratch: list = []
        for i, a in enumerate(actions):
            ap = rp + ("actions", i)
            if not isinstance(a, dict) or set(a) - {"choose", "doc"} or not isinstance(a.get("choose"), dict):
                self.error(ap, "each real-time action is a choose step", "- choose: {action: VERB, ...}")
                continue
            c = a["choose"]
            alt, bound = self._choose_instr(c, ap + ("choose",), locs, ap, scratch, realtime=True)
            if alt.action in verbs:
                self.error(ap + ("choose", "action"), f"two real-time actions are both called {alt.action!r}",
                           f"give each its own verb (the first is at action {verbs[alt.action]})")
            verbs.setdefault(alt.action, i)
            alts.append(alt)
            wait.entries.append(len(prog))
            bind = self._emit(prog, P.RealtimeBind(alt.as_name, alt.by_name, alt.to, alt.cards), ap)
            bind.step_id = None
            self.block(c.get("then", []), ap + ("choose", "then"), locs | bound, prog)
            j = self._emit(prog, P.Jump(top), path)  # back to waiting for the next action
            j.step_id = None
        wait.alts = alts
        wait.end = len(prog)

    def step_climb(self, step, path, locs, prog):
        """``climb``: players take turns in order (``players``, from ``lead``), each turn one
        choice (``turn``, a choose without player whose optional action is the pass); a player
        for whom ``in`` no longer holds is skipped (out); when every other player still in has
        passed since the last play, the ``clear`` steps run and the last to play (or the next
        player still in after them) leads. Ends when ``until`` holds, fewer than two players
        are in, or everyone still in passed with nothing played."""
        r = step["climb"]
        rp = path + ("climb",)
        if not isinstance(r, dict):
            self.error(rp, "climb takes a mapping", "e.g. climb: {in: \"count(player.hand) > 0\", turn: {...}}")
            return
        as_name = str(r.get("as", "player"))
        last_name = str(r.get("last", "last_player"))
        for key, name in (("as", as_name), ("last", last_name)):
            if not _IDENT.match(name):
                self.error(rp + (key,), f"{name!r} is not a name", "e.g. as: p", key=True)
        if as_name == last_name:
            self.error(rp + ("last",), f"as and last are both {as_name!r}", "give them two names", key=True)
        players = self.expr(rp + ("players",), r["players"], locs) if "players" in r else None
        lead = self.expr(rp + ("lead",), r["lead"], locs) if "lead" in r else None
        inner = locs | {as_name, last_name}
        is_in = self.expr(rp + ("in",), r["in"], inner) if "in" in r else None
        until = self.expr(rp + ("until",), r["until"], inner) if "until" in r else None
        turn = r.get("turn")
        if not isinstance(turn, dict):
            self.error(rp + ("turn",), "a climb needs turn: the choice of the player whose turn it is",
                       "turn: {action: play, cards: player.hand, to: pile, optional: true}")
            return
        tp = rp + ("turn",)
        for key in ("player", "players"):
            if key in turn:
                self.error(tp + (key,), f"a climb's turn has no {key}: the player whose turn it is chooses "
                           f"(named {as_name!r}, see as:)", "leave it out", key=True)
        if not turn.get("optional"):
            self.error(tp, "a climb's turn needs an optional action (the pass): the pile clears when all the "
                       "others have passed", "add optional: true (or optional: {action: pass, when: EXPR})")
        key = _frame_key("climb", path)
        start = self._emit(prog, P.ClimbStart(key, players, lead, last_name), path)
        start.step_id = None
        top = len(prog)
        nxt = self._emit(prog, P.ClimbNext(key, as_name, last_name, is_in, until, str(turn.get("as", "choice"))), path)
        c = {k: v for k, v in turn.items() if k not in ("player", "players")}
        c["player"] = as_name
        c.setdefault("by", as_name)
        instr, bound = self._choose_instr(c, tp, inner, tp, prog)
        self._choice_then(instr, tp, turn.get("then", []), tp + ("then",), inner | bound, prog)
        after = self._emit(prog, P.ClimbAfter(key, as_name, instr.as_name, top), path)
        after.step_id = None
        nxt.target = len(prog)
        self.block(r.get("clear", []), rp + ("clear",), inner, prog)
        j = self._emit(prog, P.Jump(top), path)
        j.step_id = None
        nxt.end = len(prog)

def fingerprint(text: str, options: dict) -> str:
    """The identity of a game: a hash of its spec text and its resolved options (hex str).

    Saved States and game logs carry it, so that loading them into a changed spec or other
    options is refused instead of silently playing a different game."""
    blob = json.dumps([text, options], sort_keys=True, default=repr)
    return "sha256:" + hashlib.sha256(blob.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _cycles(edges: dict) -> list:
    """One cycle ``[a, b, ..., a]`` through each phase that can reach itself (each ring once)."""
    out, seen_rings = [], set()
    for start in sorted(edges):
        # breadth-first from start's callees back to start: the shortest ring through it
        parent, todo = {}, []
        for c in edges.get(start, []):
            if c not in parent:
                parent[c] = start
                todo.append(c)
        i = 0
        while i < len(todo) and start not in parent:
            node = todo[i]
            i += 1
            for nxt in edges.get(node, []):
                if nxt not in parent:
                    parent[nxt] = node
                    todo.append(nxt)
        if start not in parent:
            continue
        ring, node = [start], parent[start]
        while node != start:
            ring.append(node)
            node = parent[node]
        ring.append(start)
        ring.reverse()
        key = frozenset(ring)
        if key not in seen_rings:
            seen_rings.add(key)
            out.append(ring)
    return out


def _successors(prog, pc, skip):
    """Where control may go from ``pc`` without a decision; a decision (an instruction that
    lists options) has none, nor has an end of the game."""
    instr = prog[pc]
    if hasattr(instr, "legal") or isinstance(instr, P.End):
        return []
    if isinstance(instr, P.Call):
        return [pc + 1] if skip.get(instr.phase, True) else []
    if isinstance(instr, P.Jump):
        return [instr.target]
    out = [pc + 1]
    for attr in ("target", "end", "skip_to"):
        t = getattr(instr, attr, None)
        if isinstance(t, int):
            out.append(t)
    return out


def _walk_free(prog, skip):
    """Positions reachable from the start of ``prog`` with no decision on the way."""
    seen, todo = set(), [0]
    while todo:
        pc = todo.pop()
        if pc in seen or pc is None:
            continue
        seen.add(pc)
        if pc < len(prog):
            todo.extend(_successors(prog, pc, skip))
    return seen


def _exit_reachable(prog, skip) -> bool:
    return len(prog) in _walk_free(prog, skip)


def _calls_before_a_decision(prog, skip):
    return [(pc, prog[pc].phase) for pc in sorted(_walk_free(prog, skip))
            if pc < len(prog) and isinstance(prog[pc], P.Call)]


def _frame_key(kind: str, path: tuple) -> str:
    """The name under which a loop or choice keeps its cursor in a frame's locals.

    Built from the step's spec path (stable across processes and restarts, unlike a memory
    address), so a State saved by one process continues in another; ``$`` keeps it apart
    from spec names. New instructions that keep state in a frame must key it the same way."""
    return f"${kind}:" + "/".join(str(p) for p in path)


def _pop_choices(ctx):
    return ctx.locals.pop(P.CHOICES)


def _option_type(decl: dict) -> str:
    typ = decl.get("type") or ("choice" if decl.get("values") is not None else None)
    if typ is None:
        d = decl.get("default")
        typ = "bool" if isinstance(d, bool) else "int" if isinstance(d, int) else "choice"
    return {"bool": "boolean (true/false)", "int": "whole number"}.get(typ, "choice" if decl.get("values") else "value")


def _fits(decl: dict, value) -> bool:
    """Whether ``value`` is of the option's declared type (and among its values)."""
    typ = decl.get("type")
    if typ == "bool" and not isinstance(value, bool):
        return False
    if typ == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return False
    values = decl.get("values")
    return values is None or value in values


def coerce_option(decl: dict, value, name: str, sc: SpecCompiler | None = None):
    """Convert a CLI option value (often a string) to the declared type."""
    typ = decl.get("type") or ("choice" if decl.get("values") is not None else None)
    if typ is None:
        d = decl.get("default")
        typ = "bool" if isinstance(d, bool) else "int" if isinstance(d, int) else "choice"
    if not isinstance(value, str):
        return value
    if typ == "bool":
        low = value.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
    elif typ == "int":
        try:
            return int(value)
        except ValueError:
            pass
    else:
        return value
    if sc is not None:
        sc.error(("options", name), f"option {name} must be {typ}, not {value!r}",
                 f"e.g. --option {name}=" + ("true" if typ == "bool" else "3"), key=True)
    return value
