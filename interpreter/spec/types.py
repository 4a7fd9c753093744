"""What kinds of value a spec's variables and expressions can hold, found without running them.

:class:`KindFacts` reads a spec (its declared variables, the values its ``set``/``add``/``random``
steps write, the names its ``for`` and ``choose`` steps bind, its options and the deck) and answers
:meth:`KindFacts.kind` for a syntax tree: the set of kinds the value can have, or ``None`` when
that is not known. The literal checks (:mod:`interpreter.spec.literals`) use it to find a text
where a number is needed, e.g. bids chosen from ``"['0', '1', '2']"`` and compared with ``>``
inside a definition, reported at that ``>``.

A kind is one of :data:`NUMBER`, :data:`TEXT`, :data:`BOOL`, :data:`NULL`, :data:`CARD`,
:data:`MAP` or ``("list", element kinds)``; a seat is a number. Everything is conservative:
whatever is not known is ``None`` and is never reported.
"""
from __future__ import annotations

from ..expr.compiler import ExprSyntaxError, parse
from ..expr.syntax import Token, Tree

NUMBER, TEXT, BOOL, NULL, CARD, MAP = "number", "text", "bool", "null", "card", "map"
_NUMBER, _TEXT = frozenset({NUMBER}), frozenset({TEXT})
_COUNTING = {"count", "len", "sum", "abs", "index_of"}
_TEXTS = {"str", "name"}
_SEATS = {"next_player", "prev_player", "holder", "team_of"}
_SAME_LIST = {"sort_by", "without"}
_ITEM = {"first", "last", "top"}
_STEP_LISTS = ("then", "else", "do", "actions")
_MAX_DEPTH = 100  # nesting of an expression worked out (deeper ones: not known)
_MAX_ROUNDS = 4  # passes over the steps: a write may depend on a variable another write gives


def join(a, b):
    """The kinds of a value that is either ``a`` or ``b`` (``None``: not known)."""
    return None if a is None or b is None else a | b


def list_of(elem) -> frozenset:
    """The kind of a list whose items have the kinds ``elem`` (None: not known)."""
    return frozenset({("list", elem)})


def element(kinds):
    """The kinds of an item of a value of ``kinds`` when it is surely a list, else None."""
    if not kinds or any(not isinstance(k, tuple) for k in kinds):
        return None
    out = frozenset()
    for _, elem in kinds:
        if elem is None:
            return None
        out |= elem
    return out


def surely(kinds, kind) -> bool:
    """Whether a value of ``kinds`` is ``kind`` whenever it is not null."""
    return kinds is not None and kinds - {NULL} == {kind}


def of_value(v):
    """The kinds of a YAML value (a declared initial value or a choice option's value)."""
    if v is None:
        return frozenset({NULL})
    if isinstance(v, bool):
        return frozenset({BOOL})
    if isinstance(v, (int, float)):
        return _NUMBER
    if isinstance(v, str):
        return _TEXT
    if isinstance(v, list):
        elem = frozenset()
        for x in v:
            elem = join(elem, of_value(x))
        return list_of(elem)
    if isinstance(v, dict):
        return frozenset({MAP})
    return None


class KindFacts:
    """The kinds of a spec's variables, options, card attributes and step-bound names.

    ``data``: the spec (dict); ``attr_values``: card attribute -> every value a card can have
    (:func:`interpreter.spec.literals.deck_values`); ``positions``: spec path -> position, for the
    lines named in hints. After construction, ``var_kinds`` maps ``"x"`` (a game variable) and
    ``".x"`` (a player or team variable) to kinds, ``text_from`` names the spec path of a write that
    gives a variable a text, and :meth:`env_at` gives the names bound around a step."""

    def __init__(self, data: dict, attr_values: dict, positions=None):
        # no bool(positions): stored positions are decoded only when one is read
        self.data, self.positions = data, positions if positions is not None else {}
        self.attr_kinds = {}
        for attr, values in attr_values.items():
            k = frozenset()
            for v in values:
                k = join(k, of_value(v) if not (isinstance(v, str) and v.startswith(("[", "{"))) else None)
            self.attr_kinds[attr] = k
        self.attr_kinds["name"], self.attr_kinds["id"] = _TEXT, _NUMBER
        self.option_kinds = {}
        for name, decl in (data.get("options") or {}).items():
            decl = decl if isinstance(decl, dict) else {}
            t = decl.get("type")
            k = {"int": _NUMBER, "number": _NUMBER, "bool": frozenset({BOOL})}.get(t)
            if k is None and isinstance(decl.get("values"), list):
                k = element(of_value(decl["values"]))
            self.option_kinds[name] = k
        zones = data.get("zones") or {}
        self.game_zones = {z for z, d in zones.items() if not (isinstance(d, dict) and d.get("per_player"))}
        self.player_zones = set(zones) - self.game_zones
        self.defines = {}
        for key, body in (data.get("define") or {}).items():
            name, _, params = str(key).partition("(")
            try:
                self.defines[name.strip()] = ([p.strip() for p in params.rstrip(") ").split(",") if p.strip()],
                                              parse(str(body)))
            except ExprSyntaxError:
                continue
        self.var_kinds, self.text_from = {}, {}
        for section, prefix in (("variables", ""), ("player_variables", "."), ("team_variables", ".")):
            for name, v in (data.get(section) or {}).items():
                self.var_kinds[prefix + str(name)] = of_value(v)
        self.declared = dict(self.var_kinds)
        self.text_adds: dict = {}  # spec path of an add's value -> (target, value): a text added
        self.list_adds: dict = {}  # spec path of an add's value -> (target, value, zone?): a list added
        #                            to a variable declared a number (a zone's cards, say)
        self._envs: dict = {}
        self._depth = 0
        for _ in range(_MAX_ROUNDS):
            before = dict(self.var_kinds)
            self._define_kinds: dict = {}
            self._walk_all()
            if self.var_kinds == before:
                break

    # -- the steps ------------------------------------------------------------------------------
    def _walk_all(self):
        self._block(self.data.get("flow") or [], ("flow",), {})
        for key, steps in (self.data.get("phases") or {}).items():
            params = str(key).partition("(")[2].rstrip(") ").split(",")
            self._block(steps or [], ("phases", key), {p.strip(): None for p in params if p.strip()})

    def env_at(self, path) -> dict:
        """``{name: kinds}`` bound around the expression at spec ``path`` (its nearest step's)."""
        path = tuple(path)
        while path:
            if path in self._envs:
                return self._envs[path]
            path = path[:-1]
        return {}

    def _block(self, steps, path, env):
        if not isinstance(steps, list):
            return
        for i, step in enumerate(steps):
            if isinstance(step, dict):
                self._step(step, path + (i,), env)

    def _step(self, step, path, env):
        self._envs[path] = env
        if "for" in step:
            items = self.kind_text(step.get("in", "[]"), env)
            self._block(step.get("do"), path + ("do",), {**env, str(step["for"]): element(items)})
            return
        if "repeat" in step and step.get("as"):
            self._block(step.get("do"), path + ("do",), {**env, str(step["as"]): _NUMBER})
            return
        for key in ("set", "add", "random"):
            if isinstance(step.get(key), dict):
                for target, value in step[key].items():
                    self._write(key, str(target), value, env, path + (key, target))
        for key, value in step.items():
            if key == "choose" and isinstance(value, dict):
                self._choose(value, path + ("choose",), env)
            elif key in _STEP_LISTS:
                self._block(value, path + (key,), env)
            elif isinstance(value, dict):  # realtime, climb: their actions and turns
                names = {str(value[k]): None for k in ("as", "last") if isinstance(value.get(k), str)}
                for sub, inner in value.items():
                    if sub in _STEP_LISTS:
                        self._block(inner, path + (key, sub), {**env, **names})
                    elif sub == "turn" and isinstance(inner, dict):
                        self._choose(inner, path + (key, sub), {**env, **names})

    def _choose(self, c, path, env):
        inner = dict(env)
        name = str(c.get("as", "choice"))
        if any(k in c for k in ("min", "max", "each")):
            inner[name] = None  # a set of cards or options: not one item
        elif "cards" in c:
            inner[name] = frozenset({CARD})
        elif "options" in c:
            inner[name] = element(self.kind_text(c["options"], env))
        else:
            inner[name] = None
        inner[str(c.get("by", "player"))] = _NUMBER  # the seat choosing
        self._block(c.get("then"), path + ("then",), inner)

    def _write(self, kind, target, value, env, path):
        try:
            t = parse(target)
        except ExprSyntaxError:
            return
        if t.data == "name" and str(t.children[0]) not in env:
            key = str(t.children[0])
        elif t.data == "attr":
            key = "." + str(t.children[1])
        else:
            return
        if key not in self.var_kinds:
            return
        new = self.kind_text(value, env)
        if kind == "random":
            new = element(new)
        elif kind == "add" and new is not None:
            if surely(new, TEXT) and TEXT not in (self.declared[key] or {TEXT}):
                self.text_adds[path] = (target, str(value).strip())
            elif element(new) is not None and surely(self.declared[key], NUMBER):
                self.list_adds[path] = (target, str(value).strip(), self.is_zone(value, env))
            new = new - {NULL}  # null + x is x
        old = self.var_kinds[key]
        self.var_kinds[key] = join(old, new)
        if new is not None and TEXT in new and key not in self.text_from:
            # the spec path, not its line: positions are looked up only when a hint needs one (a
            # clean load from the cache never decodes them)
            self.text_from[key] = (path, str(value).strip())

    def is_zone(self, text, env) -> bool:
        """Whether the expression ``text`` is a zone named as such: ``pile``, ``p.hand``."""
        try:
            t = parse(str(text))
        except ExprSyntaxError:
            return False
        if t.data == "name":
            return str(t.children[0]) in self.game_zones and str(t.children[0]) not in env
        return t.data == "attr" and str(t.children[1]) in self.player_zones

    # -- expressions ----------------------------------------------------------------------------
    def kind_text(self, text, env):
        """:meth:`kind` of an expression given as its text (a YAML number or boolean as itself)."""
        if not isinstance(text, str):
            return of_value(text)
        try:
            return self.kind(parse(text), env)
        except ExprSyntaxError:
            return None

    def kind(self, t, env, shadowed=frozenset()):
        """The kinds ``t`` (a syntax tree) can have, or None. ``env``: kinds of bound names;
        ``shadowed``: bound names whose kinds are not known (they hide game-level names). A tree
        nested deeper than :data:`_MAX_DEPTH` is not known (the parser accepts deeper ones)."""
        if not isinstance(t, Tree) or self._depth > _MAX_DEPTH:
            return None
        self._depth += 1
        try:
            return self._kind(t, env, shadowed)
        finally:
            self._depth -= 1

    def _kind(self, t, env, shadowed):
        d, ch = t.data, t.children
        if d == "number":
            return _NUMBER
        if d == "string":
            return _TEXT
        if d in ("true", "false", "compare", "in_", "not_in", "not_"):
            return frozenset({BOOL})
        if d == "null":
            return frozenset({NULL})
        if d == "name":
            return self._name(str(ch[0]), env, shadowed)
        if d == "attr":
            return self._attr(ch[0], str(ch[1]), env, shadowed)
        if d == "neg":
            return _NUMBER
        if d == "binop":
            a, op, b = self.kind(ch[0], env, shadowed), str(ch[1]), self.kind(ch[2], env, shadowed)
            if op != "+":
                return _NUMBER if op != "*" or (surely(a, NUMBER) and surely(b, NUMBER)) else None
            for k in (NUMBER, TEXT):
                if surely(a, k) or surely(b, k):
                    return frozenset({k})
            return None
        if d in ("and_", "or_"):
            return join(self.kind(ch[0], env, shadowed), self.kind(ch[1], env, shadowed))
        if d == "ifelse":
            return join(self.kind(ch[0], env, shadowed), self.kind(ch[2], env, shadowed))
        if d == "list_":
            elem = frozenset()
            for item in ch:
                if item is not None:
                    elem = join(elem, self.kind(item, env, shadowed))
            return list_of(elem)
        if d == "dict_":
            return frozenset({MAP})
        if d == "index":
            return element(self.kind(ch[0], env, shadowed))
        if d == "slice":
            return self.kind(ch[0], env, shadowed)
        if d == "let_expr":
            inner = {**env, str(ch[0]): self.kind(ch[1], env, shadowed)}
            return self.kind(ch[2], inner, shadowed - {str(ch[0])})
        if d == "map_":
            body, var, coll = ch[0], str(ch[1]), ch[2]
            return list_of(self.kind(body, {**env, var: element(self.kind(coll, env, shadowed))},
                                     shadowed - {var}))
        if d == "filter_":
            return list_of(element(self.kind(ch[1], env, shadowed)))
        if d == "call":
            return self._call(str(ch[0]), [c for c in ch[1:] if c is not None], env, shadowed)
        return None

    def _name(self, name, env, shadowed):
        if name in env:
            return env[name]
        if name in shadowed:
            return None
        if name in self.var_kinds and not name.startswith("."):
            return self.var_kinds[name]
        if name in ("num_players",):
            return _NUMBER
        if name == "players":
            return list_of(_NUMBER)
        if name in self.game_zones:
            return list_of(frozenset({CARD}))
        if name in self.defines and not self.defines[name][0]:
            return self._define(name)
        return None

    def _attr(self, obj, attr, env, shadowed):
        if isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options" \
                and "options" not in env and "options" not in shadowed:
            return self.option_kinds.get(attr)
        pvar = "." + attr in self.var_kinds
        card = attr in self.attr_kinds
        if pvar and not card:
            return self.var_kinds["." + attr]
        if card and not pvar and attr not in self.player_zones:
            return self.attr_kinds[attr]
        if attr in self.player_zones and not (pvar or card):
            return list_of(frozenset({CARD}))
        return None

    def _call(self, name, args, env, shadowed):
        if name in self.defines and name not in env and name not in shadowed:
            return self._define(name)
        kinds = [self.kind(a, env, shadowed) if a.data != "lambda_" else None for a in args]
        if name in _COUNTING:
            return _NUMBER
        if name in _TEXTS:
            return _TEXT
        if name in _SEATS:
            return frozenset({NUMBER, NULL})
        if name == "range":
            return list_of(_NUMBER)
        if name in ("any", "all"):
            return frozenset({BOOL})
        if name in _SAME_LIST and kinds:
            return kinds[0]
        if name in _ITEM and kinds:
            item = element(kinds[0])
            return None if item is None else item | {NULL}
        if name in ("min", "max") and kinds:
            if len(kinds) == 1:
                return element(kinds[0])
            out = frozenset()
            for k in kinds:
                out = join(out, k)
            return out
        if name == "if_null" and len(kinds) == 2:
            return join(None if kinds[0] is None else kinds[0] - {NULL}, kinds[1])
        return None

    def _define(self, name):
        """The kinds a definition gives back (its parameters not known); a definition being
        worked out (one that calls itself, which the compiler refuses) is not known."""
        if name in self._define_kinds:
            return self._define_kinds[name]
        self._define_kinds[name] = None
        params, tree = self.defines[name]
        self._define_kinds[name] = out = self.kind(tree, {}, frozenset(params))
        return out

    def describe(self, t, env, shadowed=frozenset()) -> str:
        """Why ``t`` may be a text, for a hint: the write that gave its variable a text."""
        if isinstance(t, Tree) and t.data in ("name", "attr"):
            key = str(t.children[0]) if t.data == "name" else "." + str(t.children[1])
            if key in self.text_from and not (t.data == "name" and key in set(env) | set(shadowed)):
                path, value = self.text_from[key]
                line = getattr(self.positions.get(path), "line", 0)
                shown = str(t.children[0]) if t.data == "name" else "p." + str(t.children[1])
                return f"{shown} is set to a text at line {line} ({value})"
        return ""


def operand_span(t):
    """``(start, end)``: the 0-based offsets of a syntax tree's text in its expression, or None."""
    starts, ends, todo = [], [], [t]
    while todo:
        x = todo.pop()
        if isinstance(x, Token) and x.start_pos is not None:
            starts.append(x.start_pos)
            ends.append(x.end_pos)
        elif isinstance(x, Tree):
            todo.extend(c for c in x.children if c is not None)
    return (min(starts), max(ends)) if starts else None
