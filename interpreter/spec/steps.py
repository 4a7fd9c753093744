"""The steps of a spec (``flow:`` and ``phases:``) compiled into flat instruction lists of
:mod:`interpreter.engine.program`: one ``step_KIND`` method a kind of step.

Part of the spec compiler: :class:`StepsMixin` is mixed into
:class:`~interpreter.spec.compile.SpecCompiler`.
"""
from __future__ import annotations

from ..engine import program as P
from ..expr.compiler import ExprNameError, ExprSyntaxError, parse
from .spelling import _IDENT, _did_you_mean


STEP_KINDS = ("phase", "for", "repeat", "while", "if", "set", "add", "shuffle", "move", "gather",
              "deal", "choose", "log", "end", "random", "realtime", "show", "assert", "climb")


def _frame_key(kind: str, path: tuple) -> str:
    """The name under which a loop or choice keeps its cursor in a frame's locals.

    Built from the step's spec path (stable across processes and restarts, unlike a memory
    address), so a State saved by one process continues in another; ``$`` keeps it apart
    from spec names. New instructions that keep state in a frame must key it the same way."""
    return f"${kind}:" + "/".join(str(p) for p in path)


def _pop_choices(ctx):
    return ctx.locals.pop(P.CHOICES)


class StepsMixin:
    """The step compilation of :class:`~interpreter.spec.compile.SpecCompiler` (``self`` is one)."""

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
                    elif name in n.game_zones:
                        raise self._zone_target(key, name, name)
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
                    if name in n.player_zones:
                        raise self._zone_target(key, str(target), name)
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

    @staticmethod
    def _zone_target(key: str, target: str, zone: str) -> ExprNameError:
        """The error for ``set``/``add``/``random`` whose ``target`` names the zone ``zone``: a zone
        holds cards, which only the card steps change; it never takes a value."""
        why = "a number cannot be added to it" if key == "add" else "it cannot be given a value"
        declare = (f"player_variables: {{{zone}_points: 0}}, then {key}: {{p.{zone}_points: ...}}" if "." in target
                   else f"variables: {{{zone}_points: 0}}, then {key}: {{{zone}_points: ...}}")
        return ExprNameError(
            f"{key}: {target} is a zone (it holds cards), not a variable: {why}",
            f"move cards with move: {{from: ZONE, to: {target}, count: N}} (or deal:); count({target}) is how "
            f"many cards it holds; to keep a number, declare a variable ({declare})")

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
        elif ((self.data.get("zones") or {}).get(to) or {}).get("per_team"):
            self.error(path + ("deal", "to"), f"{to!r} is a zone per team: deal gives each seat its own cards",
                       "deal to a per_player zone such as hand, then move cards to the team's zone")
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
        at_name = str(c.get("at", "at")) if "onto" in c else None
        if at_name is not None:  # a card and the set it goes on: the set's index is bound too
            bound.add(at_name)
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
        vary = ({as_name, each} if is_set else {as_name}) | ({at_name} if at_name is not None else set())
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
        if at_name is not None:
            instr.onto, instr.at_name = self._onto(c, cp, locs | bound, is_set, at_name), at_name
        return instr, bound

    def _onto(self, c, cp, locs, is_set, at_name):
        """The zone of sets of a choice's ``onto`` (a card and the set it goes on), checked: with
        ``cards``, without ``to``/``options``/``min``/``max``, melds declared, ``at`` a name."""
        onto = self.zone(cp + ("onto",), c["onto"], locs)
        if onto is not None and (not onto.sets or onto.index is not None):
            self.error(cp + ("onto",), f"onto names a zone of sets (the sets the card may go on), not {c['onto']!r}",
                       "e.g. onto: table, or onto: p.melds (a zone with sets: true)")
        for key in ("to", "options", "min", "max"):
            if key in c:
                self.error(cp + (key,), f"a choice with onto has no {key}: the chosen card goes on the chosen set",
                           "leave it out", key=True)
        if "cards" not in c:
            self.error(cp + ("onto",), "onto needs cards: the zone the card is chosen from", "add cards: p.hand")
        if not self.data.get("melds"):
            self.error(cp + ("onto",), "onto offers the lay-offs of meld kinds, and this spec declares none",
                       "declare melds: {NAME: {form: set, ...}}")
        if not _IDENT.match(at_name):
            self.error(cp + ("at",), f"{at_name!r} is not a name", "e.g. at: i", key=True)
        return onto

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
        bind = self._emit(prog, P.BindChoice(instr.as_name, instr.by_name, instr.to, instr.cards,
                                             instr.onto, instr.at_name), path)
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
        are in (with ``all_speak: true``, only once each of them has had a turn: an auction
        where everyone speaks), or everyone still in passed with nothing played."""
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
        all_speak = r.get("all_speak", False)
        if not isinstance(all_speak, bool):
            self.error(rp + ("all_speak",), f"all_speak is true or false, not {all_speak!r}",
                       "all_speak: true (the climb goes on until everyone still in has had a turn)")
            all_speak = False
        key = _frame_key("climb", path)
        start = self._emit(prog, P.ClimbStart(key, players, lead, last_name, all_speak), path)
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
