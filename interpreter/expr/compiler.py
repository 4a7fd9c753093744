"""Parse expressions with the Lark grammar and compile them to Python closures.

``parse(text)`` returns a syntax tree (:mod:`interpreter.expr.syntax`) or raises
:class:`ExprSyntaxError` with the 1-based line and column inside the expression text.
``Compiler(names).compile(tree, local_names)`` returns a function ``f(ctx) -> value`` built
from closures: spec text is never handed to ``eval``, and only the attributes the language
defines are reachable (card attributes, player variables and zones, map keys).
"""
from __future__ import annotations

import difflib
import inspect
import operator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir, digest, write_json
from ..errors import RuleError
from ..model.cards import Card
from . import codegen as G
from .builtins import BOARD_ARGS, BUILTINS, LAMBDA_ARGS, MAX_ITEMS, MAX_TEXT, MELD_KIND_ARGS  # noqa: F401
from .syntax import Token, Tree, from_lark


def _make_parser():
    """The expression parser (a ``lark.Lark``), made on the first expression that is not in the
    stored trees: importing Lark is a large part of a start-up that does not need it. Its LALR
    tables are kept in the user's cache folder (see :mod:`interpreter.cache`): building them costs
    a quarter of a second."""
    from lark import Lark
    grammar = (Path(__file__).parent / "grammar.lark").read_text()
    folder = cache_dir()
    cache = str(folder / f"grammar-{digest(grammar)}.lark") if folder is not None else False
    return Lark(grammar, parser="lalr", start="start", propagate_positions=False, cache=cache)


_PARSER = None
_TREE_CACHE: dict[str, Tree] = {}


class _StoredTrees:
    """Parsed expressions kept across processes: JSON files in the user's cache folder (under the
    grammar's digest) mapping an expression's text to its tree as plain lists, written when this
    process parsed new ones. Reading a tree back costs a tenth of parsing it; a start-up parses a
    spec's hundred-odd expressions. Two kinds of file:

    - the shared file holds the newest :attr:`LIMIT` expressions of every spec and scenario (read
      on the first parse that needs it, written back at exit);
    - a spec's shelf holds the expressions of one spec text (under its digest): while a spec
      compiles (:func:`tree_shelf`) trees are looked up there first, so a spec loaded before
      never reads the shared file (reading it was a tenth of a start-up). An edited spec finds
      its unchanged expressions in the shared file, and its shelf is written when it compiled.

    Best effort: an unreadable, foreign or stale file is ignored (only this module's own shapes
    are read back, as data: nothing in it is run)."""

    LIMIT = 4_000  # expressions kept in the shared file, the newest (about 1.5 MB: read in a few ms)

    def __init__(self):
        self.raw: dict | None = None
        self.new: dict = {}
        self.path = None
        self.shelf_path = None  # the shelf of the spec compiling now (None: no spec, or no cache)
        self.shelf: dict | None = None  # its stored trees (read on its first lookup)
        self.shelf_new: dict = {}  # trees it lacked, found elsewhere or parsed: written at its end

    def _open_shelf(self) -> dict:
        """The stored trees of the spec compiling now (its shelf is read on the first lookup)."""
        if self.shelf is None:
            self.shelf = self._read(self.shelf_path)
        return self.shelf

    def get(self, text: str):
        if self.shelf_path is not None:
            tree = self._decoded(self._open_shelf().get(text))
            if tree is not None:
                return tree
        if self.raw is None:
            self._open()
        enc = self.raw.get(text)
        tree = self._decoded(enc)
        if tree is not None and self.shelf_path is not None:
            self.shelf_new[text] = enc
        return tree

    def seen(self, text: str, tree) -> None:
        """``tree`` of ``text`` came from this process's own cache: the spec compiling now (if
        any) uses it, so its shelf keeps it."""
        if self.shelf_path is not None:
            if text not in self._open_shelf() and text not in self.shelf_new:
                try:
                    self.shelf_new[text] = _encode_tree(tree)
                except RecursionError:
                    pass

    def put(self, text: str, tree) -> None:
        try:
            enc = _encode_tree(tree)
        except RecursionError:  # nested too deeply to keep (the compiler refuses it anyway)
            return
        if self.shelf_path is not None:
            self.shelf_new[text] = enc
        if self.path is not None and len(self.new) < self.LIMIT:
            if not self.new:
                import atexit
                atexit.register(self._save)
            self.new[text] = enc

    @staticmethod
    def _decoded(enc):
        if enc is None:
            return None
        try:
            return _decode_tree(enc)
        except (TypeError, ValueError, IndexError, KeyError, RecursionError):
            return None

    @staticmethod
    def _read(path) -> dict:
        try:
            import json
            data = json.loads(path.read_text())
            if isinstance(data, dict):
                return data
        except (OSError, ValueError, RecursionError):
            pass
        return {}

    def _open(self) -> None:
        self.raw = {}
        folder = cache_dir()
        if folder is None:
            return
        self.path = folder / f"expression-trees-{_grammar_digest()}.json"
        self.raw = self._read(self.path)

    def open_shelf(self, spec_text: str) -> None:
        """Look up the trees of the spec ``spec_text`` in its shelf first (see the class)."""
        folder = cache_dir()
        self.shelf, self.shelf_new = None, {}
        self.shelf_path = (folder / f"expression-trees-{_grammar_digest()}-{digest(spec_text)}.json"
                           if folder is not None else None)

    def close_shelf(self) -> None:
        """Write the shelf if the spec used trees it lacked; lookups go to the shared file again."""
        path, shelf, new = self.shelf_path, self.shelf, self.shelf_new
        self.shelf_path, self.shelf, self.shelf_new = None, None, {}
        if path is not None and new:
            self._keep(path, shelf or {}, new)

    def _save(self) -> None:
        # merged with what other processes wrote meanwhile
        self._keep(self.path, self._read(self.path), self.new)

    def _keep(self, path, old: dict, new: dict) -> None:
        """Write ``old`` updated with ``new`` to ``path``, the newest :attr:`LIMIT` entries."""
        kept = {**old, **new}
        write_json(path, dict(list(kept.items())[-self.LIMIT:]))  # the oldest go first


@lru_cache(maxsize=None)
def _grammar_digest() -> str:
    """The digest of the expression grammar (computed once per process)."""
    return digest((Path(__file__).parent / "grammar.lark").read_text())


@contextmanager
def tree_shelf(spec_text: str):
    """While a spec compiles: its expressions' trees are looked up in its own shelf of the user's
    cache first, and the shelf is written if it lacked some (see :class:`_StoredTrees`)."""
    _STORED.open_shelf(spec_text)
    try:
        yield
    finally:
        _STORED.close_shelf()


def _encode_tree(node):
    """A syntax tree as plain lists: ``["R", rule, [children]]`` and ``["T", type, value, start_pos,
    line, column, end_line, end_column, end_pos]`` for a token (None stays None)."""
    if isinstance(node, Tree):
        return ["R", str(node.data), [_encode_tree(c) for c in node.children]]
    if isinstance(node, Token):
        return ["T", node.type, str(node), node.start_pos, node.line, node.column, node.end_line,
                node.end_column, node.end_pos]
    if node is None:
        return None
    raise TypeError(f"not a tree: {type(node).__name__}")


def _decode_tree(enc):
    """The tree :func:`_encode_tree` wrote (TypeError/ValueError for anything else)."""
    if enc is None:
        return None
    if enc[0] == "R" and len(enc) == 3 and isinstance(enc[1], str) and isinstance(enc[2], list):
        return Tree(enc[1], [_decode_tree(c) for c in enc[2]])
    if enc[0] == "T" and len(enc) == 9 and isinstance(enc[1], str) and isinstance(enc[2], str) and \
            all(x is None or type(x) is int for x in enc[3:]):
        return Token(enc[1], enc[2], *enc[3:])
    raise ValueError("not a stored tree")


_STORED = _StoredTrees()

# Card attributes that every card has, whatever the spec says.
CARD_BUILTIN_ATTRS = ("name", "id", "played_by", "mode")


class ExprSyntaxError(Exception):
    """An expression does not parse. ``line``/``column`` are 1-based inside the expression text."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


class ExprNameError(Exception):
    """An expression uses a name, attribute or built-in that does not exist; ``hint`` suggests a fix."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message, self.hint = message, hint
        self.define = None  # the `define` whose body it is in, when found while inlining a call


def parse(text: str) -> Tree:
    """Parse one expression (str) to a syntax tree (:class:`~interpreter.expr.syntax.Tree`); raises
    :class:`ExprSyntaxError`."""
    if not isinstance(text, str):
        text = _literal_text(text)
    tree = _TREE_CACHE.get(text)
    if tree is not None:
        if _STORED.shelf_path is not None:
            _STORED.seen(text, tree)
        return tree
    tree = _STORED.get(text)
    if tree is not None:
        _TREE_CACHE[text] = tree
        return tree
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
    try:
        tree = _lark_parse(text)
    except UnexpectedEOF as exc:
        lines = text.split("\n")
        raise ExprSyntaxError(f"the expression ends too soon (expected {_expected(exc)})",
                              len(lines), len(lines[-1]) + 1) from None
    except UnexpectedToken as exc:
        if exc.token.type == "$END":
            lines = text.split("\n")
            raise ExprSyntaxError(f"the expression ends too soon (expected {_expected(exc)})",
                                  len(lines), len(lines[-1]) + 1) from None
        raise ExprSyntaxError(f"unexpected {str(exc.token)!r} (expected {_expected(exc)})",
                              exc.line, exc.column) from None
    except UnexpectedCharacters as exc:
        raise ExprSyntaxError(f"unexpected character {text[exc.pos_in_stream]!r}", exc.line, exc.column) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise ExprSyntaxError(str(exc), getattr(exc, "line", 1), getattr(exc, "column", 1)) from None
    tree = _filters(tree)
    _TREE_CACHE[text] = tree
    _STORED.put(text, tree)
    return tree


def _filters(tree):
    """``tree`` with each ``[EXPR where COND]`` (``filter_in_``) made a ``filter_`` node
    ``[NAME, SOURCE, COND]``: EXPR must read ``NAME in SOURCE``, where SOURCE may go on with
    ``and``/``or`` as before (``[c in a or b where ...]`` filters ``a or b``). Raises
    :class:`ExprSyntaxError` at EXPR for any other EXPR."""
    if type(tree) is not Tree:
        return tree
    todo = [tree]
    while todo:
        t = todo.pop()
        todo.extend(c for c in t.children if type(c) is Tree)
        if t.data == "filter_in_":
            split = _split_in(t.children[0])
            if split is None:
                tok = next((x for x in _tokens(t.children[0])), None)
                raise ExprSyntaxError("a filter reads [NAME in COLLECTION where CONDITION]",
                                      getattr(tok, "line", 1) or 1, getattr(tok, "column", 1) or 1)
            t.data, t.children = "filter_", [split[0], split[1], t.children[1]]
    return tree


def _split_in(node):
    """(NAME token, SOURCE tree) when ``node`` reads ``NAME in SOURCE`` with SOURCE joined on by
    ``and``/``or`` (left-associative, as the old ``or_test`` source was read); else None."""
    if type(node) is not Tree:
        return None
    if node.data == "in_":
        left = node.children[0]
        if type(left) is Tree and left.data == "name" and type(left.children[0]) is Token:
            return left.children[0], node.children[1]
        return None
    if node.data in ("or_", "and_") and len(node.children) == 2:
        inner = _split_in(node.children[0])
        if inner is not None:
            return inner[0], Tree(node.data, [inner[1], node.children[1]])
    return None


def _tokens(node):
    """The tokens of ``node`` in order (for an error's position)."""
    todo = [node]
    while todo:
        t = todo.pop()
        if type(t) is Token:
            yield t
        elif type(t) is Tree:
            todo.extend(reversed(t.children))


def _lark_parse(text: str) -> Tree:
    """``text`` parsed by the Lark parser (no cache), as a :class:`~interpreter.expr.syntax.Tree`;
    raises Lark's ``UnexpectedInput`` errors."""
    global _PARSER
    if _PARSER is None:
        _PARSER = _make_parser()
    return from_lark(_PARSER.parse(text))


_TOKEN_WORDS = {"RPAR": "')'", "RSQB": "']'", "RBRACE": "'}'", "COMMA": "','", "NAME": "a name",
                "NUMBER": "a number", "STRING": "a string", "WHERE": "'where'", "ELSE": "'else'",
                "COLON": "':'", "SEMICOLON": "';'", "LPAR": "'('", "LSQB": "'['", "IN": "'in'",
                "OR": "'or'", "AND": "'and'", "DOT": "'.'", "FOR": "'for'"}


def _expected(exc) -> str:
    names = sorted({_TOKEN_WORDS.get(t, t.lower()) for t in (exc.expected or [])})
    if len(names) > 6:
        return "a value or an operator"
    return ", ".join(names) or "more"


def _literal_text(value) -> str:
    """YAML may hand us a number or boolean where an expression is expected."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass
class Names:
    """What the names of a spec mean, for the compiler.

    ``game_vars``/``player_vars``: variable names; ``game_zones``/``player_zones``:
    zone names; ``defines``: name -> parameter list (a function is looked up in
    ``functions`` at run time, so definitions may refer to each other in any order);
    ``options``: option name -> default; ``card_attrs``: every attribute name a card can have.
    """

    game_vars: set = field(default_factory=set)
    player_vars: set = field(default_factory=set)
    game_zones: set = field(default_factory=set)
    player_zones: set = field(default_factory=set)
    set_zones: set = field(default_factory=set)  # zones of sets (either kind): read as lists of lists
    defines: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    card_attrs: set = field(default_factory=set)
    functions: dict = field(default_factory=dict)  # name -> compiled f(ctx, *args), filled later
    used_options: set = field(default_factory=set)
    read_vars: set = field(default_factory=set)
    called_defines: dict = field(default_factory=dict)  # define -> set of defines it calls
    boards: set | None = None  # board names (None: not known, e.g. a scenario's eval)
    meld_kinds: set | None = None  # meld kind names (melds:; None: not known)
    derived: set = field(default_factory=set)  # derived card attributes (derived:), read through the game
    root_defines: set = field(default_factory=set)  # defines called from outside any define


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
            ">": operator.gt, ">=": operator.ge}


def _div(a, b):
    if isinstance(a, int) and isinstance(b, int) and b != 0 and a % b == 0:
        return a // b
    return a / b


MAX_INT_BITS = 256      # numbers stay far below this; a runaway product does not
MAX_WORK = 500_000    # steps, comprehension items and definition calls between two decisions


def _checked(value):
    """Refuse values past the language's bounds (lists, texts, numbers)."""
    t = type(value)
    if t is int:
        if value.bit_length() > MAX_INT_BITS:
            raise RuleError(f"a number with {value.bit_length()} bits is beyond what the rules may compute")
    elif t is list:
        if len(value) > MAX_ITEMS:
            raise RuleError(f"a list of {len(value)} items is more than the {MAX_ITEMS} an expression may build")
    elif t is str and len(value) > MAX_TEXT:
        raise RuleError(f"a text of {len(value)} characters is more than the {MAX_TEXT} allowed")
    return value


def _add(a, b):
    return _checked(a + b)


def _mul(a, b):
    # check the size before building: [1] * 10**9 must not be made first
    if type(a) in (list, str) and type(b) is int:
        a, b = b, a
    if type(b) in (list, str) and type(a) is int:
        limit = MAX_ITEMS if type(b) is list else MAX_TEXT
        if a * len(b) > limit:
            raise RuleError(f"repeating {len(b)} items {a} times is more than the {limit} allowed")
    return _checked(a * b)


def _mod(a, b):
    # `%` is the remainder of numbers: on a text it would be printf formatting, whose widths
    # ("%999999999d") build texts of any size
    if type(a) is str or type(b) is str:
        raise RuleError("% is the remainder of two numbers; to build a text write a template such as '{x} points'")
    return a % b


MAX_DEPTH = 50             # nesting of one value (lists and maps inside each other)
MAX_VALUE_NODES = 1_000_000  # items of one value, nested ones included (shared sub-lists counted each time)


def check_value(ctx, value):
    """Refuse a value nested more than :data:`MAX_DEPTH` levels or holding more than
    :data:`MAX_VALUE_NODES` items counting nested ones (a list that holds the same sub-list
    twice counts it twice: printing, copying or saving it would write it twice). The walk is
    iterative and spends its items as work. Returns ``value``."""
    t = type(value)
    if t is not list and t is not dict and t is not tuple:
        return value
    nodes = 0
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise RuleError(f"a value nested more than {MAX_DEPTH} levels deep (lists and maps inside each other)")
        items = v.values() if type(v) is dict else v
        nodes += len(v)
        if nodes > MAX_VALUE_NODES:
            raise RuleError(f"a value of more than {MAX_VALUE_NODES} items, counting nested ones "
                            "(a list that holds one list twice counts it twice)")
        for x in items:
            tx = type(x)
            if tx is list or tx is dict or tx is tuple:
                stack.append((x, depth + 1))
    spend(ctx, nodes)
    return value


def spend(ctx, amount: int) -> None:
    """Count ``amount`` units of work against the budget that runs from one decision to the next
    (bounded evaluation: a stranger's spec cannot busy-loop between two decisions)."""
    ctx.work += amount
    if ctx.work > MAX_WORK:
        raise RuleError(_over_budget())


def _over_budget() -> str:
    return (f"the rules did more than {MAX_WORK} units of work (steps, comprehension items and definition "
            "calls) since the last decision: the rules must stay cheap to evaluate")


_ARITH = {"+": _add, "-": operator.sub, "*": _mul, "/": _div,
          "//": operator.floordiv, "%": _mod}


def get_attr(ctx, obj, name):
    """``obj.name`` for the language's values: a card's attribute (its declared mode
    first), a player's variable or zone (a player is a seat number), a map's key."""
    if type(obj) is Card:
        mark = ctx.state.marks.get(obj.id)
        if name == "name":
            return obj.name
        if name == "played_by":
            return mark[0] if mark else None
        if name == "mode":
            return mark[1] if mark else None
        if name == "id":
            return obj.id
        if mark and mark[1] is not None:
            override = obj.modes.get(mark[1])
            if override and name in override:
                return override[name]
        return obj.attrs.get(name)
    if type(obj) is int:
        state = ctx.state
        if not 0 <= obj < state.num_players:
            raise RuleError(f"there is no player {obj} (reading .{name})")
        pv = state.pvars[obj]
        if name in pv:
            return pv[name]
        zone = state.zones.get(name)
        if zone is not None:
            cards = ctx.game.cards
            if ctx.game.zones[name].sets:
                return [[cards[i] for i in s] for s in zone[obj]]
            return [cards[i] for i in zone[obj]]
        raise RuleError(f"players have no variable or zone named {name!r}")
    if type(obj) is dict:
        return obj.get(name)
    if obj is None:
        raise RuleError(f"cannot read .{name} of null")
    raise RuleError(f"cannot read .{name} of {obj!r}")


def get_derived(ctx, obj, name):
    """``obj.name`` where ``name`` is a derived card attribute (``derived:``): for a card, the
    value of its expression (``ctx.game.derived_attrs[name](ctx, card)``), else as :func:`get_attr`."""
    if type(obj) is Card:
        return ctx.game.derived_attrs[name](ctx, obj)
    return get_attr(ctx, obj, name)


class Compiler:
    """Compiles parsed expressions against the names of one spec (see :class:`Names`)."""

    def __init__(self, names: Names):
        self.names = names
        # the derived attribute whose own expression is being compiled: there `c.NAME` reads the
        # card's printed attribute (see get_derived)
        self.printed: str | None = None
        self.current_define: str | None = None
        # Calls of `define` entries are inlined: the body is compiled at each call site with its
        # parameters read from slots unique to that site (expressions are pure, recursion is
        # forbidden), which saves a scope per call in the engine's hottest loop.
        self.define_trees: dict = {}
        self._inlining: list = []
        self._subst: dict = {}
        self._slot = 0
        self._nodes = 0  # nodes compiled for the current expression, inlined bodies included
        # Hoisting (see compile(vary=...)): the names that change from one option to the next
        # in the current scope, or None when not compiling an option filter.
        self._varying = None
        # Generated code (see expr.codegen): the fragment of each closure that has one, and the
        # generated function that replaces it once built.
        self._frags: dict = {}
        self._built: dict = {}
        self.generate = G.ENABLED

    def compile(self, tree: Tree, local_names=frozenset(), bound=frozenset(), vary=None):
        """Compile ``tree`` with step-bound ``local_names`` (read from the frame) and
        expression-``bound`` names. Returns ``f(ctx)``. Raises :class:`ExprNameError`.

        ``vary`` (a set of names) marks an option filter (a choice's ``where``) evaluated once
        per option with those names rebound: every part of it that reads none of them (and no
        name bound inside it) is *hoisted*, i.e. computed once per option listing and reused
        (kept in ``ctx.hoisted`` while a Choose lists its options). So a filter such as
        "``c`` follows suit, or the player holds no card of the lead suit" counts the hand
        once per listing, not once per card: listing is linear in hand size."""
        saved, self._nodes = self._nodes, 0
        self._varying = set(vary) if vary is not None else None
        try:
            return self._fn(self._c(tree, frozenset(local_names), frozenset(bound)))
        except RecursionError:
            raise ExprNameError("the expression is too long or nested too deeply",
                                "split it into smaller definitions under define") from None
        finally:
            self._nodes = saved
            self._varying = None
            self._frags.clear()
            self._built.clear()

    # -- generated code -------------------------------------------------------------
    def _frag(self, f):
        """The fragment of closure ``f``: its own, or a call of ``f`` itself."""
        frag = self._frags.get(f)
        return frag if frag is not None else G.closure(f)

    def _emit(self, frag, f):
        """Record ``frag`` as the generated form of closure ``f``; returns ``f``."""
        if self.generate:
            self._frags[f] = frag
        return f

    def _fn(self, f):
        """``f``, or the generated function of its fragment when it fuses several nodes."""
        frag = self._frags.get(f)
        if frag is None or frag.kind is G.ast.Constant or frag.kind is G.ast.Subscript or not frag.consts \
                and frag.kind is G.ast.Call:
            return f
        built = self._built.get(f)
        if built is None:
            built = self._built[f] = G.build(frag, f)
            self._frags[built] = frag
        return built

    # -- dispatch -----------------------------------------------------------------
    def _c(self, t, locs, bound):
        if isinstance(t, Token):  # pragma: no cover - grammar always wraps tokens
            raise ExprNameError(f"unexpected token {t}")
        self._nodes += 1
        method = getattr(self, "_" + t.data.rstrip("_"), None)
        if method is None:  # pragma: no cover
            raise ExprNameError(f"unsupported expression form {t.data}")
        varying = self._varying
        if varying is not None and t.data not in _CHEAP and not _mentions(t, varying):
            self._varying = None  # the whole subtree is invariant: nothing inside to hoist
            try:
                hoisted = _hoisted(self._fn(method(t, locs, bound)))
                # generated: the cached value read inline, `hoisted` called only to compute it
                return self._emit(G.cached("hoisted", G.closure_ref(hoisted), hoisted), hoisted)
            finally:
                self._varying = varying
        return method(t, locs, bound)

    def _vary_also(self, *names):
        """Within a binding construct of an option filter, its own names change too."""
        saved = self._varying
        if saved is not None:
            self._varying = saved | set(names)
        return saved

    # -- atoms --------------------------------------------------------------------
    def _number(self, t, locs, bound):
        text = str(t.children[0])
        digits = sum(ch.isdigit() for ch in text)
        if digits > 60:  # as in the spec's YAML values: rules need small numbers
            raise ExprNameError(f"a number of {digits} digits: numbers in expressions have at most 60",
                                "write a smaller number")
        value = float(text) if "." in text else int(text)
        return self._emit(G.constant(value), lambda ctx: value)

    def _string(self, t, locs, bound):
        value = str(t.children[0])[1:-1]
        return self._emit(G.constant(value), lambda ctx: value)

    def _true(self, t, locs, bound):
        return self._emit(G.constant(True), lambda ctx: True)

    def _false(self, t, locs, bound):
        return self._emit(G.constant(False), lambda ctx: False)

    def _null(self, t, locs, bound):
        return self._emit(G.constant(None), lambda ctx: None)

    def _name(self, t, locs, bound):
        name = str(t.children[0])
        n = self.names
        if name in bound:
            return self._emit(G.bound_name(name), lambda ctx: ctx.bound[name])
        if name in self._subst:
            slot = self._subst[name]
            if type(slot) is tuple:  # a parameter fed a step-bound name: read where it is
                local = slot[1]
                return self._emit(G.local_name(local), lambda ctx: ctx.locals[local])
            return self._emit(G.bound_name(slot), lambda ctx: ctx.bound[slot])
        if name in locs:
            return self._emit(G.local_name(name), lambda ctx: ctx.locals[name])
        if name in n.game_vars:
            n.read_vars.add(name)
            return self._emit(G.game_var(name), lambda ctx: ctx.state.vars[name])
        if name in n.game_zones:
            if name in n.set_zones:
                def set_zone(ctx):
                    cards = ctx.game.cards
                    return [[cards[i] for i in s] for s in ctx.state.zones[name]]
                return set_zone

            def zone(ctx):
                cards = ctx.game.cards
                return [cards[i] for i in ctx.state.zones[name]]
            return zone
        if name in n.defines:
            if n.defines[name]:
                raise ExprNameError(f"{name} needs arguments: {name}({', '.join(n.defines[name])})")
            self._note_call(name)
            if name in self.define_trees and name not in self._inlining and len(self._inlining) < MAX_INLINE_DEPTH \
                    and self._nodes < MAX_INLINE_NODES:
                body = self._fn(self._inline(name, [], []))

                def derived(ctx):
                    memo = ctx.memo
                    if memo is None:
                        return body(ctx)
                    if name in memo:
                        return memo[name]
                    value = memo[name] = body(ctx)
                    return value
                # generated: the memo read inline, `derived` called only when the value is not there
                return self._emit(G.cached("memo", G.constant(name), derived), derived)
            fns = n.functions
            return lambda ctx: fns[name](ctx)
        if name == "players":
            return lambda ctx: list(range(ctx.state.num_players))
        if name == "num_players":
            return lambda ctx: ctx.state.num_players
        if name == "options":
            return lambda ctx: ctx.options
        if name in BUILTINS:
            raise ExprNameError(f"{name} is a built-in function: call it as {name}(...)")
        hint = ""
        if name in n.player_vars or name in n.player_zones:
            hint = f"{name} belongs to a player: write p.{name} (with p a player)"
        else:
            known = set(locs) | {b for b in bound if not b.startswith("$")} | set(self._subst) | n.game_vars \
                | n.game_zones | set(n.defines) | {"players", "num_players", "options"}
            close = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.7)
            if close:
                hint = "did you mean " + " or ".join(close) + "?"
            elif locs or bound:
                hint = "names in scope here: " + ", ".join(sorted(set(locs) | set(bound) | set(self._subst)))
        raise ExprNameError(f"unknown name {name!r}", hint or "declare it under variables, zones or define")

    def _list(self, t, locs, bound):
        items = [self._fn(self._c(c, locs, bound)) for c in t.children if c is not None]
        return lambda ctx: [f(ctx) for f in items]

    def _dict(self, t, locs, bound):
        pairs = [(self._fn(self._c(p.children[0], locs, bound)), self._fn(self._c(p.children[1], locs, bound)))
                 for p in t.children if p is not None]
        return lambda ctx: {k(ctx): v(ctx) for k, v in pairs}

    # -- operators ----------------------------------------------------------------
    def _binop(self, t, locs, bound):
        a, op, b = t.children
        fa, fb, fn = self._c(a, locs, bound), self._c(b, locs, bound), _ARITH[str(op)]
        return self._emit(G.helper_call(fn, self._frag(fa), self._frag(fb)), lambda ctx: fn(fa(ctx), fb(ctx)))

    def _neg(self, t, locs, bound):
        f = self._c(t.children[0], locs, bound)
        return self._emit(G.negate(self._frag(f)), lambda ctx: -f(ctx))

    def _compare(self, t, locs, bound):
        a, op, b = t.children
        fa, fb = self._c(a, locs, bound), self._c(b, locs, bound)
        op = str(op)
        if op in ("==", "!="):
            literal = {"number", "string", "true", "false"}
            if b.data == "null" or a.data == "null":
                other = fa if b.data == "null" else fb
                frag = G.is_null(self._frag(other), op != "==")
                if op == "==":
                    return self._emit(frag, lambda ctx: other(ctx) is None)
                return self._emit(frag, lambda ctx: other(ctx) is not None)
            if a.data in literal or b.data in literal:  # no card on one side: plain equality
                value, other = (fa(None), fb) if a.data in literal else (fb(None), fa)  # constant
                frag = G.equals_literal(self._frag(other), value, op != "==")
                if op == "==":
                    return self._emit(frag, lambda ctx: other(ctx) == value)
                return self._emit(frag, lambda ctx: other(ctx) != value)
            # cards compare by identity (Card has no __eq__), everything else by value: Python's
            # own == is the language's equality on every value the language has
            frag = G.equals(self._frag(fa), self._frag(fb), op != "==")
            if op == "==":
                return self._emit(frag, lambda ctx: fa(ctx) == fb(ctx))
            return self._emit(frag, lambda ctx: fa(ctx) != fb(ctx))
        fn = _COMPARE[op]
        ordered = _ORDERED[op]

        def cmp(ctx):
            x, y = fa(ctx), fb(ctx)
            if x is None or y is None:
                raise RuleError(f"cannot compare {x!r} {op} {y!r}")
            return fn(x, y)
        return self._emit(G.helper_call(ordered, self._frag(fa), self._frag(fb)), cmp)

    def _in(self, t, locs, bound):
        fa, fb = self._c(t.children[0], locs, bound), self._c(t.children[1], locs, bound)
        return self._emit(G.helper_call_ctx(_contains_counted, self._frag(fb), self._frag(fa)),
                          lambda ctx: _contains_counted(ctx, fb(ctx), fa(ctx)))

    def _not_in(self, t, locs, bound):
        fa, fb = self._c(t.children[0], locs, bound), self._c(t.children[1], locs, bound)
        return self._emit(G.logical_not(G.helper_call_ctx(_contains_counted, self._frag(fb), self._frag(fa))),
                          lambda ctx: not _contains_counted(ctx, fb(ctx), fa(ctx)))

    def _not(self, t, locs, bound):
        f = self._c(t.children[0], locs, bound)
        return self._emit(G.logical_not(self._frag(f)), lambda ctx: not f(ctx))

    def _and(self, t, locs, bound):
        fa, fb = self._c(t.children[0], locs, bound), self._c(t.children[1], locs, bound)
        return self._emit(G.logical("and", self._frag(fa), self._frag(fb)), lambda ctx: fa(ctx) and fb(ctx))

    def _or(self, t, locs, bound):
        fa, fb = self._c(t.children[0], locs, bound), self._c(t.children[1], locs, bound)
        return self._emit(G.logical("or", self._frag(fa), self._frag(fb)), lambda ctx: fa(ctx) or fb(ctx))

    def _ifelse(self, t, locs, bound):
        fa, fc, fb = (self._c(c, locs, bound) for c in t.children)
        return self._emit(G.if_else(self._frag(fa), self._frag(fc), self._frag(fb)),
                          lambda ctx: fa(ctx) if fc(ctx) else fb(ctx))

    # -- access -------------------------------------------------------------------
    def _attr(self, t, locs, bound):
        obj, name = t.children
        name = str(name)
        if obj.data == "name" and str(obj.children[0]) == "options" and not ({"options"} & (locs | bound)):
            if name not in self.names.options:
                known = ", ".join(sorted(self.names.options)) or "none"
                raise ExprNameError(f"unknown option {name!r}", f"options of this spec: {known}")
            self.names.used_options.add(name)
            return lambda ctx: ctx.options[name]
        n = self.names
        if name not in n.card_attrs and name not in CARD_BUILTIN_ATTRS and name not in n.player_vars \
                and name not in n.player_zones:
            attrs = sorted(n.card_attrs | set(CARD_BUILTIN_ATTRS))
            pnames = sorted(set(n.player_vars) | set(n.player_zones))
            close = difflib.get_close_matches(name, attrs + pnames, n=3, cutoff=0.7)
            raise ExprNameError(f"no card attribute, player variable or player zone is named {name!r}",
                                (f"did you mean {' or '.join(repr(c) for c in close)}? " if close else "")
                                + "card attributes: " + ", ".join(attrs)
                                + "; player variables and zones: " + (", ".join(pnames) or "none")
                                + "; read a map's key with m['key']")
        if name in n.player_vars:
            n.read_vars.add("player." + name)
        f = self._c(obj, locs, bound)
        if name in n.derived and name != self.printed:
            return self._emit(G.helper_call_ctx(get_derived, self._frag(f), G.constant(name)),
                              lambda ctx: get_derived(ctx, f(ctx), name))
        if name in CARD_BUILTIN_ATTRS:
            return self._emit(G.helper_call_ctx(get_attr, self._frag(f), G.constant(name)),
                              lambda ctx: get_attr(ctx, f(ctx), name))
        key = self._bound_key(obj, bound)
        if key is not None:  # `c.suit` with c bound in the expression: one closure, not two
            def attr_of_bound(ctx):
                value = ctx.bound[key]
                if type(value) is Card and not value.modes:
                    return value.attrs.get(name)
                return get_attr(ctx, value, name)
            return self._emit(G.card_attribute(G.bound_name(key), name, get_attr), attr_of_bound)

        def attr(ctx):
            value = f(ctx)
            if type(value) is Card and not value.modes:  # fast path: no mode can override
                return value.attrs.get(name)
            return get_attr(ctx, value, name)
        return self._emit(G.card_attribute(self._frag(f), name, get_attr), attr)

    def _local_key(self, t, bound, locs):
        """The frame key a name node reads (a step-bound name), if it is one; or the local a
        parameter it names stands for."""
        if t.data != "name":
            return None
        name = str(t.children[0])
        if name in bound:
            return None
        slot = self._subst.get(name)
        if slot is not None:
            return slot[1] if type(slot) is tuple else None
        return name if name in locs else None

    def _bound_key(self, t, bound):
        """The ``ctx.bound`` key a name node reads, if it is bound inside the expression."""
        if t.data != "name":
            return None
        name = str(t.children[0])
        if name in bound:
            return name
        slot = self._subst.get(name)
        return slot if type(slot) is str else None

    def _index(self, t, locs, bound):
        fo, fi = self._fn(self._c(t.children[0], locs, bound)), self._fn(self._c(t.children[1], locs, bound))

        def index(ctx):
            obj, key = fo(ctx), fi(ctx)
            if type(obj) is dict:
                return obj.get(key)
            if obj is None:
                raise RuleError("cannot index null")
            try:
                return obj[key]
            except (IndexError, TypeError):
                raise RuleError(f"index {key!r} is out of range for a list of {len(obj)}") from None
        return index

    def _slice(self, t, locs, bound):
        """``xs[a:b]``, ``xs[a:]``, ``xs[:b]`` of a list or a text (Python's rules: negative
        bounds count from the end, bounds past the end are clipped)."""
        fo = self._fn(self._c(t.children[0], locs, bound))
        fa, fb = (self._fn(self._c(c, locs, bound)) if c is not None else None for c in t.children[1:])

        def slice_(ctx):
            obj = fo(ctx)
            a = fa(ctx) if fa is not None else None
            b = fb(ctx) if fb is not None else None
            if type(obj) not in (list, str):
                raise RuleError(f"cannot slice {'null' if obj is None else repr(obj)}: only a list or a text")
            for x in (a, b):
                if x is not None and type(x) is not int:
                    raise RuleError(f"a slice bound must be a whole number, not {x!r}")
            return obj[a:b]
        return slice_

    def _nested_map(self, t, locs, bound):
        """``[body for x in xs for y in f(x) ... where cond]``: the clauses nest left to right
        (each collection may read the names bound before it) and ``where`` filters the innermost."""
        ch = t.children
        body, cond, clauses = ch[0], ch[-1], ch[1:-1]
        pairs = [(str(clauses[i]), clauses[i + 1]) for i in range(0, len(clauses), 2)]
        inner = bound
        colls = []
        saved_varying = self._vary_also(*(var for var, _ in pairs))  # its own names change too
        try:
            for var, coll in pairs:
                colls.append((var, self._fn(self._c(coll, locs, inner))))
                inner = inner | {var}
            fbody = self._fn(self._c(body, locs, inner))
            fcond = self._fn(self._c(cond, locs, inner)) if cond is not None else None
        finally:
            self._varying = saved_varying

        def nested(ctx):
            b = ctx.bound
            saved = {var: (var in b, b.get(var)) for var, _ in colls}
            out = []

            def level(k):
                var, fcoll = colls[k]
                items = fcoll(ctx)
                if isinstance(items, dict):
                    items = list(items)
                if items is None:
                    raise RuleError(f"cannot loop over null (for {var} in ...)")
                ctx.work += len(items)
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                for x in items:
                    b[var] = x
                    if k + 1 < len(colls):
                        level(k + 1)
                    elif fcond is None or fcond(ctx):
                        out.append(fbody(ctx))
                        if len(out) > MAX_ITEMS:
                            _checked(out)
            level(0)
            for var, (had, old) in saved.items():
                if had:
                    b[var] = old
                else:
                    b.pop(var, None)
            return out
        return nested

    def _let_expr(self, t, locs, bound):
        name, value, body = t.children
        name = str(name)
        fv = self._fn(self._c(value, locs, bound))
        saved = self._vary_also(name)
        try:
            fb = self._fn(self._c(body, locs, bound | {name}))
        finally:
            self._varying = saved

        def let(ctx):
            b = ctx.bound
            had, old = name in b, b.get(name)
            b[name] = fv(ctx)
            try:
                return fb(ctx)
            finally:
                if had:
                    b[name] = old
                else:
                    del b[name]
        return let

    def _comprehension(self, var, coll, body, cond, locs, bound, reduce="list"):
        """A filter/map over a collection. ``reduce`` fuses the built-in that consumes it
        (``count``, ``first``, ``any``, ``sum``) into the loop: no list is built, and
        ``first``/``any`` stop at the first match."""
        fcoll = self._fn(self._c(coll, locs, bound))
        inner = bound | {var}
        saved = self._vary_also(var)
        try:
            fbody = self._fn(self._c(body, locs, inner)) if body is not None else None
            fcond = self._fn(self._c(cond, locs, inner)) if cond is not None else None
        finally:
            self._varying = saved

        # A Python error inside aborts the whole step (and the bound names are reset after
        # every step), so the binding is restored on the normal path only. Each kind is one
        # closure (items, budget, loop, restore): a comprehension costs one Python call.
        if reduce == "list":
            def comprehension(ctx):
                items = fcoll(ctx)
                if isinstance(items, dict):
                    items = list(items)
                ctx.work += len(items)
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                b = ctx.bound
                had, old = var in b, b.get(var)
                out = []
                for x in items:
                    b[var] = x
                    if fcond is None or fcond(ctx):
                        out.append(fbody(ctx) if fbody is not None else x)
                if had:
                    b[var] = old
                else:
                    b.pop(var, None)
                return out
        elif reduce == "count":
            def comprehension(ctx):
                items = fcoll(ctx)
                if isinstance(items, dict):
                    items = list(items)
                ctx.work += len(items)
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                b = ctx.bound
                had, old = var in b, b.get(var)
                n = 0
                for x in items:
                    b[var] = x
                    if fcond is None or fcond(ctx):
                        n += 1
                if had:
                    b[var] = old
                else:
                    b.pop(var, None)
                return n
        elif reduce in ("first", "any"):
            first = reduce == "first"
            miss = None if first else False

            def comprehension(ctx):
                items = fcoll(ctx)
                if isinstance(items, dict):
                    items = list(items)
                ctx.work += len(items)
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                b = ctx.bound
                had, old = var in b, b.get(var)
                result = miss
                for x in items:
                    b[var] = x
                    if fcond is None or fcond(ctx):
                        if first:
                            result = fbody(ctx) if fbody is not None else x
                            break
                        if (fbody(ctx) if fbody is not None else x):
                            result = True
                            break
                if had:
                    b[var] = old
                else:
                    b.pop(var, None)
                return result
        else:  # sum
            def comprehension(ctx):
                items = fcoll(ctx)
                if isinstance(items, dict):
                    items = list(items)
                ctx.work += len(items)
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                b = ctx.bound
                had, old = var in b, b.get(var)
                total = 0
                for x in items:
                    b[var] = x
                    if fcond is None or fcond(ctx):
                        total += fbody(ctx) if fbody is not None else x
                if had:
                    b[var] = old
                else:
                    b.pop(var, None)
                return total
        return comprehension

    def _fused(self, name, arg, locs, bound):
        """``count/first/any/sum`` of a comprehension, compiled as one loop (see _comprehension)."""
        if arg.data == "map_":
            body, var, coll, cond = arg.children
        else:
            (var, coll, cond), body = arg.children, None
        return self._comprehension(str(var), coll, body, cond, locs, bound, reduce=name)

    def _map(self, t, locs, bound):
        body, var, coll, cond = t.children
        return self._comprehension(str(var), coll, body, cond, locs, bound)

    def _filter(self, t, locs, bound):
        var, coll, cond = t.children
        return self._comprehension(str(var), coll, None, cond, locs, bound)

    def _lambda(self, t, locs, bound):  # only reached when a lambda is misplaced
        raise ExprNameError("a lambda (x => ...) can only be an argument of sort_by, group_by, argmax or argmin")

    def _make_lambda(self, t, locs, bound):
        var, body = str(t.children[0]), t.children[1]
        saved = self._vary_also(var)
        try:
            fbody = self._fn(self._c(body, locs, bound | {var}))
        finally:
            self._varying = saved

        def make(ctx):
            def fn(x):
                b = ctx.bound
                had, old = var in b, b.get(var)
                b[var] = x
                try:
                    return fbody(ctx)
                finally:
                    if had:
                        b[var] = old
                    else:
                        b.pop(var, None)
            return fn
        return make

    def _inline(self, name, params, fargs, arg_trees=(), bound=frozenset(), locs=frozenset()):
        slots = []
        keep = []  # (slot, argument) pairs bound at each call; the others read the caller's own
        for i, p in enumerate(params):
            # An argument that is a name bound in the caller (a choice's card, a comprehension's
            # item) is read where it already is, not copied into a slot: unless the body binds
            # that name itself (its own comprehension over `c` while `c` is passed in).
            key = self._bound_key(arg_trees[i], bound) if i < len(arg_trees) else None
            if key is not None and not _binds(self.define_trees[name], key):
                slots.append(key)
                continue
            local = self._local_key(arg_trees[i], bound, locs) if i < len(arg_trees) else None
            if local is not None:  # a step-bound name (a loop's player): the frame's, read there
                slots.append(("local", local))
                continue
            self._slot += 1
            slots.append(f"${self._slot}:{p}")
            keep.append((slots[-1], fargs[i]))
        saved = self._subst
        saved_varying = self._varying
        if saved_varying is not None:  # the body sees its parameters only: those fed a varying value vary
            self._varying = {p for p, a in zip(params, arg_trees) if _mentions(a, saved_varying)}
        self._subst = dict(zip(params, slots))
        self._inlining.append(name)
        printed, self.printed = self.printed, None  # a definition reads derived attributes, inlined or not
        try:
            body = self._fn(self._c(self.define_trees[name], frozenset(), frozenset()))
        except ExprNameError as exc:
            exc.define = exc.define or name
            raise
        finally:
            self.printed = printed
            self._inlining.pop()
            self._subst = saved
            self._varying = saved_varying
        if not fargs:
            return body
        if not keep:  # every argument read where it is: the call only counts its work
            frag = self._frags.get(body)
            if frag is not None:
                return self._emit(G.counted(_count_call, frag), lambda ctx: _count_call(ctx) or body(ctx))

            def call0(ctx):
                ctx.work += 1
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                return body(ctx)
            return call0
        if len(keep) == 1:
            s0, f0 = keep[0]

            def call1(ctx):
                ctx.work += 1
                if ctx.work > MAX_WORK:
                    spend(ctx, 0)
                ctx.bound[s0] = f0(ctx)
                return body(ctx)
            return call1
        pairs = keep

        def call(ctx):
            ctx.work += 1
            if ctx.work > MAX_WORK:
                spend(ctx, 0)
            values = [(s, f(ctx)) for s, f in pairs]  # all arguments first, then bind
            b = ctx.bound
            for s, v in values:
                b[s] = v
            return body(ctx)
        return call

    def _note_call(self, name):
        # the caller is the innermost definition being compiled (or inlined into another)
        caller = self._inlining[-1] if self._inlining else self.current_define
        if caller is not None:
            self.names.called_defines.setdefault(caller, set()).add(name)
        else:
            self.names.root_defines.add(name)

    def _call(self, t, locs, bound):
        name = str(t.children[0])
        args = [a for a in t.children[1:] if a is not None]
        n = self.names
        if name in n.defines and name not in bound and name not in locs:
            params = n.defines[name]
            if len(params) != len(args):
                raise ExprNameError(f"{name} takes {len(params)} argument(s) ({', '.join(params)}), "
                                    f"given {len(args)}")
            fargs = [self._fn(self._c(a, locs, bound)) for a in args]
            self._note_call(name)
            if name in self.define_trees and name not in self._inlining and len(self._inlining) < MAX_INLINE_DEPTH \
                    and self._nodes < MAX_INLINE_NODES:
                return self._inline(name, params, fargs, args, bound, locs)
            fns = n.functions
            return lambda ctx: fns[name](ctx, *[f(ctx) for f in fargs])
        fn = BUILTINS.get(name)
        if fn is None:
            close = difflib.get_close_matches(name, sorted(set(BUILTINS) | set(n.defines)), n=3, cutoff=0.7)
            raise ExprNameError(f"unknown function {name!r}",
                                ("did you mean " + " or ".join(close) + "? " if close else "")
                                + "built-ins: " + ", ".join(sorted(BUILTINS)) + "; or declare it under define")
        low, high, params = _arity(fn)
        if name in _FUSABLE and len(args) == 1 and isinstance(args[0], Tree) and args[0].data in ("map_", "filter_"):
            return self._fused(_FUSABLE[name], args[0], locs, bound)
        if not low <= len(args) <= high:
            want = f"{low}" if low == high else f"{low} to {high}" if high < 99 else f"at least {low}"
            raise ExprNameError(f"{name} takes {want} argument(s) ({params}), given {len(args)}",
                                "see the built-ins in docs/spec-language.md")
        if name in BOARD_ARGS and n.boards is not None and isinstance(args[0], Tree) and args[0].data == "string":
            board = str(args[0].children[0])[1:-1]
            if board not in n.boards:
                raise ExprNameError(f"{name}: there is no board named {board!r}",
                                    "boards: " + (", ".join(sorted(n.boards)) or "none (declare them under boards:)"))
        if (name in MELD_KIND_ARGS and n.meld_kinds is not None and len(args) > MELD_KIND_ARGS[name]
                and isinstance(args[MELD_KIND_ARGS[name]], Tree) and args[MELD_KIND_ARGS[name]].data == "string"):
            kind = str(args[MELD_KIND_ARGS[name]].children[0])[1:-1]
            if kind not in n.meld_kinds:
                raise ExprNameError(f"{name}: there is no meld kind named {kind!r}",
                                    "meld kinds: " + (", ".join(sorted(n.meld_kinds))
                                                      or "none (declare them under melds:)"))
        lambda_pos = LAMBDA_ARGS.get(name, set())
        fargs = []
        for i, a in enumerate(args):
            is_lambda = isinstance(a, Tree) and a.data == "lambda_"
            if i in lambda_pos:
                if not is_lambda:
                    raise ExprNameError(f"argument {i + 1} of {name} must be a lambda such as c => c.rank")
                fargs.append(self._make_lambda(a, locs, bound))
            else:
                fargs.append(self._fn(self._c(a, locs, bound)))

        counted = _counted_builtin(fn)
        return self._emit(G.helper_call_ctx(counted, *[self._frag(f) for f in fargs]),
                          lambda ctx: counted(ctx, *[f(ctx) for f in fargs]))

    def compile_define(self, name: str, params: list, tree: Tree):
        """Compile a ``define`` entry to ``f(ctx, *args)``; its body sees only its parameters
        and game-level names."""
        self.current_define = name
        self._inlining.append(name)
        saved, self._nodes = self._nodes, 0
        try:
            body = self._fn(self._c(tree, frozenset(), frozenset(params)))
        except RecursionError:
            raise ExprNameError("the expression is too long or nested too deeply",
                                "split it into smaller definitions") from None
        finally:
            self.current_define = None
            self._inlining.pop()
            self._frags.clear()
            self._built.clear()
            self._nodes = saved
        if not params:
            def fn0(ctx):
                spend(ctx, 1)
                old = ctx.bound
                ctx.bound = {}
                try:
                    return body(ctx)
                finally:
                    ctx.bound = old
            return fn0

        # A definition sees only its parameters, so it gets a fresh scope of its own.
        def fn(ctx, *args):
            spend(ctx, 1)
            old = ctx.bound
            ctx.bound = dict(zip(params, args))
            try:
                return body(ctx)
            finally:
                ctx.bound = old
        return fn


_ARITY: dict = {}
# Inlining stops this deep (deeper calls are real calls), so compiling stays linear in the spec.
MAX_INLINE_DEPTH = 3
# ... and once an expression has this many nodes (inlined bodies included): definitions that
# call each other many times would otherwise multiply a small spec into a huge program.
MAX_INLINE_NODES = 2_000
# built-ins that consume a comprehension in one pass (len is count's other name)
_FUSABLE = {"count": "count", "len": "count", "first": "first", "any": "any", "sum": "sum"}


def _arity(fn):
    """(fewest, most, parameter text) of a built-in's arguments, its ``ctx`` left out."""
    if fn not in _ARITY:
        params = list(inspect.signature(fn).parameters.values())[1:]
        low = sum(1 for p in params if p.default is p.empty and p.kind == p.POSITIONAL_OR_KEYWORD)
        high = 99 if any(p.kind == p.VAR_POSITIONAL for p in params) else len(params)
        text = ", ".join(("..." if p.kind == p.VAR_POSITIONAL else p.name + ("?" if p.default is not p.empty else ""))
                         for p in params)
        _ARITY[fn] = (low, high, text)
    return _ARITY[fn]


_COUNTED: dict = {}


def _counted_builtin(fn):
    """``fn`` (a built-in ``fn(ctx, *values)``) that first counts its work: the built-ins work
    in proportion to their lists, one unit per item (see spend)."""
    counted = _COUNTED.get(fn)
    if counted is None:
        def counted(ctx, *values):
            for v in values:
                if type(v) is list:
                    ctx.work += len(v)
            if ctx.work > MAX_WORK:
                spend(ctx, 0)
            return fn(ctx, *values)
        _COUNTED[fn] = counted
    return counted


def _count_call(ctx):
    """One unit of work for a call of a definition (see spend); returns None."""
    ctx.work += 1
    if ctx.work > MAX_WORK:
        spend(ctx, 0)


_BINDERS = frozenset({"let_expr", "map_", "nested_map_", "filter_", "lambda_"})


def _binds(tree, name) -> bool:
    """True when ``tree`` binds ``name`` anywhere (a comprehension's item, a lambda's
    parameter, a let)."""
    for sub in tree.iter_subtrees():
        if sub.data in _BINDERS and any(isinstance(ch, Token) and str(ch) == name for ch in sub.children):
            return True
    return False


def _contains_counted(ctx, coll, x):
    if type(coll) is list:
        ctx.work += len(coll)
        if ctx.work > MAX_WORK:
            spend(ctx, 0)
    return _contains(coll, x)


def _contains(coll, x):
    if coll is None:
        return False
    if type(x) is Card:
        return any(y is x for y in coll)
    return x in coll


# Forms never worth hoisting: constants and plain names cost less than the cache lookup.
_CHEAP = frozenset({"number", "string", "true", "false", "null", "name"})


def _mentions(t, names) -> bool:
    """True when the syntax tree ``t`` reads any of ``names`` (anywhere inside, conservatively:
    an inner binding of the same name counts too)."""
    if not names:
        return False
    for sub in t.iter_subtrees():
        if sub.data == "name" and str(sub.children[0]) in names:
            return True
    return False


def _hoisted(fn):
    """``fn`` computed once per option listing (see Compiler.compile's ``vary``)."""
    def hoisted(ctx):
        cache = ctx.hoisted
        if cache is None:
            return fn(ctx)
        try:
            return cache[hoisted]
        except KeyError:
            value = cache[hoisted] = fn(ctx)
            return value
    return hoisted


def _ordered_op(op):
    fn = _COMPARE[op]

    def ordered(x, y):
        if x is None or y is None:
            raise RuleError(f"cannot compare {x!r} {op} {y!r}")
        return fn(x, y)
    return ordered


_ORDERED = {op: _ordered_op(op) for op in ("<", "<=", ">", ">=")}
