"""Parse expressions with the Lark grammar and compile them to Python closures.

``parse(text)`` returns a syntax tree (:mod:`interpreter.expr.syntax`) or raises
:class:`ExprSyntaxError` with the 1-based line and column inside the expression text.
``Compiler(names).compile(tree, local_names)`` returns a function ``f(ctx) -> value`` built
from closures: spec text is never handed to ``eval``, and only the attributes the language
defines are reachable (card attributes, player variables and zones, map keys).

This module holds :class:`Compiler` and the forms it compiles itself (names, literals, operators,
attributes, indexing); the rest sits beside it: :mod:`.parsing` (the parser and the stored
trees), :mod:`.names` (:class:`Names`, :class:`ExprNameError`), :mod:`.runtime` (what compiled
closures call: bounded arithmetic, the work bound, attribute reads) and :mod:`.calls` (``let``,
comprehensions, lambdas, calls and ``define`` bodies, mixed into :class:`Compiler`). The names
other code imports from here are re-exported.
"""
from __future__ import annotations

import difflib

from ..errors import RuleError
from ..model.cards import Card
from . import codegen as G
from .builtins import BOARD_ARGS, BUILTINS, LAMBDA_ARGS, MAX_ITEMS, MAX_TEXT, MELD_KIND_ARGS  # noqa: F401
from .calls import MAX_INLINE_DEPTH, MAX_INLINE_NODES, CallsMixin
from .names import CARD_BUILTIN_ATTRS, ExprNameError, Names, _mentions
from .parsing import _STORED, _TREE_CACHE, ExprSyntaxError, _StoredTrees, _decode_tree, _encode_tree, _lark_parse, \
    parse, tree_shelf
from .runtime import (MAX_DEPTH, MAX_INT_BITS, MAX_VALUE_NODES, MAX_WORK, _ARITH, _COMPARE, _ORDERED, _add, _checked,
                      _contains_counted, _hoisted, check_value, get_attr, get_derived, spend)
from .syntax import Token, Tree

# re-exported: other modules and tests import these from here
__all__ = ["CARD_BUILTIN_ATTRS", "BUILTINS", "MAX_DEPTH", "MAX_INT_BITS", "MAX_ITEMS", "MAX_TEXT", "MAX_VALUE_NODES",
           "MAX_WORK", "Compiler", "ExprNameError", "ExprSyntaxError", "Names", "check_value", "get_attr",
           "get_derived", "parse", "spend", "tree_shelf", "_STORED", "_TREE_CACHE", "_StoredTrees", "_add",
           "_decode_tree", "_encode_tree", "_lark_parse"]


def __getattr__(name):
    """``_PARSER`` (made on the first parse) is read from :mod:`.parsing`, where it is set."""
    if name == "_PARSER":
        from . import parsing
        return parsing._PARSER
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Compiler(CallsMixin):
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
            attrs = sorted(map(str, n.card_attrs | set(CARD_BUILTIN_ATTRS)))
            pnames = sorted(map(str, set(n.player_vars) | set(n.player_zones)))  # (a YAML key may be a number)
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


# Forms never worth hoisting: constants and plain names cost less than the cache lookup.
_CHEAP = frozenset({"number", "string", "true", "false", "null", "name"})

