"""Compiling the expressions that bind names or call functions: ``let``, comprehensions (fused
into the built-in that consumes them where it can), lambdas, calls of built-ins and of ``define``
entries (inlined up to :data:`MAX_INLINE_DEPTH` and :data:`MAX_INLINE_NODES`), and the
compilation of a ``define`` body itself.

Part of the expression compiler: :class:`CallsMixin` is mixed into
:class:`~interpreter.expr.compiler.Compiler`.
"""
from __future__ import annotations

import difflib
import inspect

from . import codegen as G
from .builtins import BOARD_ARGS, BUILTINS, LAMBDA_ARGS, MELD_KIND_ARGS
from .names import CARD_BUILTIN_ATTRS, ExprNameError, _mentions
from .runtime import MAX_WORK, _count_call, _counted_builtin, spend
from .syntax import Token, Tree


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


_BINDERS = frozenset({"let_expr", "map_", "nested_map_", "filter_", "lambda_"})


def _binds(tree, name) -> bool:
    """True when ``tree`` binds ``name`` anywhere (a comprehension's item, a lambda's
    parameter, a let)."""
    for sub in tree.iter_subtrees():
        if sub.data in _BINDERS and any(isinstance(ch, Token) and str(ch) == name for ch in sub.children):
            return True
    return False


class CallsMixin:
    """Binding forms and calls, for :class:`~interpreter.expr.compiler.Compiler` (``self`` is one)."""

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
        arg = args[MELD_KIND_ARGS[name]] if name in MELD_KIND_ARGS and len(args) > MELD_KIND_ARGS[name] else None
        texts = [arg] if isinstance(arg, Tree) and arg.data == "string" else \
            [a for a in arg.children if isinstance(a, Tree) and a.data == "string"] \
            if isinstance(arg, Tree) and arg.data == "list_" else []
        for text in texts if n.meld_kinds is not None else []:
            kind = str(text.children[0])[1:-1]
            if kind not in n.meld_kinds:
                raise ExprNameError(f"{name}: there is no meld kind named {kind!r}",
                                    "meld kinds: " + (", ".join(sorted(n.meld_kinds))
                                                      or "none (declare them under melds:)"))
        if name == "printed" and len(args) == 2 and isinstance(args[1], Tree) and args[1].data == "string" \
                and n.card_attrs:
            attr = str(args[1].children[0])[1:-1]
            if attr not in n.card_attrs and attr not in CARD_BUILTIN_ATTRS:
                raise ExprNameError(f"printed: no card has an attribute {attr!r}",
                                    "card attributes: " + ", ".join(sorted(map(str, n.card_attrs))))
        if name == "moved_this_turn" and n.turn_phase is False:
            raise ExprNameError("moved_this_turn: the spec does not say which phase is a turn",
                                "declare it at the top level: turns: {phase: NAME} (the phase each player's turn runs)")
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
