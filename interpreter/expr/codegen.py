"""Python code generated from the checked syntax tree of an expression, through fixed templates.

The closure compiler (:mod:`interpreter.expr.compiler`) turns each node of an expression into a
Python closure; a chain of small closures costs one Python call per node. For the node kinds
listed in :data:`TEMPLATES` the compiler also builds a *fragment*: a Python syntax tree (the
standard :mod:`ast` module) made by one of the fixed template functions below. A parent whose
children are fragments becomes one fragment, so ``c.kind == 'numbered' and c.suit == lead``
becomes one generated function instead of seven closures.

How spec text is kept out of the generated code: fragments are built from ``ast`` nodes, never
from source text. A name, attribute or text written in the spec only ever appears as an
``ast.Constant`` (quoted data: a key of ``ctx.bound``, ``ctx.locals`` or ``state.vars``, an
attribute key, a literal). The identifiers in generated code are only ``ctx``, the fixed helper
names of :data:`HELPERS`, the fixed attributes of :data:`ATTRIBUTES`, and names this module makes
(``kN`` for a closure or value it passes in, ``tN`` for a temporary): every template checks the
names it writes as it builds (``_load``, ``_attr``), the generated module runs with no built-ins
but ``type``, and :func:`check_module` (node kinds, names, attributes, parameters) is run by the
test suite on every generated module of every spec. The generated function computes what the closures compute (same helpers,
same errors); the work budget is counted by the same closures (comprehensions and calls stay
closures).
"""
from __future__ import annotations

import ast
import itertools
import re
import types

from ..model.cards import Card

# Helper functions generated code may call, by the fixed name it uses for them.
HELPERS: dict = {"Card": Card}
# Attributes generated code may read: the evaluation context's and a card's.
ATTRIBUTES = frozenset({"bound", "locals", "state", "vars", "attrs", "get", "modes", "memo", "hoisted"})
_GENERATED = re.compile(r"^(ctx|k\d+|t\d+)$")
_ALLOWED_NODES = (ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Expr, ast.Constant,
                  ast.Name, ast.Load, ast.Store, ast.Attribute, ast.Subscript, ast.Call, ast.Compare,
                  ast.BoolOp, ast.UnaryOp, ast.IfExp, ast.NamedExpr, ast.And, ast.Or, ast.Not, ast.USub,
                  ast.Eq, ast.NotEq, ast.Is, ast.IsNot)
_counter = itertools.count()
_L = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}  # one line: no positions needed


class Fragment:
    """A generated expression: its Python syntax tree ``node`` (an ``ast.expr`` over ``ctx``), its
    ``kind`` (the ``ast`` class of that node) and ``consts`` (dict generated name -> object it
    reads: closures, helper functions).

    The node is made when first read (``make``, a template's own function of its parts' nodes):
    a spec's loading makes hundreds of fragments, and only the functions a run calls are compiled
    (see :func:`build`), so the syntax trees of the others are never made."""

    __slots__ = ("_node", "make", "kind", "consts")

    def __init__(self, make, kind, consts):
        self._node, self.make, self.kind, self.consts = None, make, kind, consts

    @property
    def node(self):
        if self._node is None:
            self._node = self.make()
            self.make = None
        return self._node


def _load(name):
    assert _GENERATED.match(name) or name in HELPERS or name == "type", name
    return ast.Name(**_L, id=name, ctx=ast.Load())


def _attr(value, attr):
    assert attr in ATTRIBUTES, attr
    return ast.Attribute(**_L, value=value, attr=attr, ctx=ast.Load())


def _ctx_part(part):
    return _attr(_load("ctx"), part)


def _merge(*frags):
    consts = {}
    for f in frags:
        consts.update(f.consts)
    return consts


def _key_of(part: str, key):
    """``ctx.PART[KEY]`` (KEY quoted data)."""
    return ast.Subscript(**_L, value=_ctx_part(part), slice=ast.Constant(**_L, value=key), ctx=ast.Load())


def _call(name: str, args: list):
    return ast.Call(**_L, func=_load(name), args=args, keywords=[])


# -- the templates ------------------------------------------------------------------------------
def constant(value) -> Fragment:
    """A literal of the spec (number, text, true, false, null): quoted data."""
    return Fragment(lambda: ast.Constant(**_L, value=value), ast.Constant, {})


def bound_name(key: str) -> Fragment:
    """``ctx.bound[KEY]``: a name bound inside the expression (KEY is quoted data)."""
    return Fragment(lambda: _key_of("bound", key), ast.Subscript, {})


def local_name(key: str) -> Fragment:
    """``ctx.locals[KEY]``: a name bound by an enclosing step."""
    return Fragment(lambda: _key_of("locals", key), ast.Subscript, {})


def game_var(key: str) -> Fragment:
    """``ctx.state.vars[KEY]``: a game variable."""
    return Fragment(lambda: ast.Subscript(**_L, value=_attr(_ctx_part("state"), "vars"),
                                          slice=ast.Constant(**_L, value=key), ctx=ast.Load()), ast.Subscript, {})


def closure(fn) -> Fragment:
    """``kN(ctx)``: a node compiled as a closure (a form without a template), passed in."""
    name = f"k{next(_counter)}"
    return Fragment(lambda: _call(name, [_load("ctx")]), ast.Call, {name: fn})


def helper_call(fn, *args: Fragment) -> Fragment:
    """``kN(ARG, ...)``: a fixed helper of the compiler (an operator, a comparison) applied to
    fragments."""
    name = f"k{next(_counter)}"
    return Fragment(lambda: _call(name, [a.node for a in args]), ast.Call, {name: fn, **_merge(*args)})


def helper_call_ctx(fn, *args: Fragment) -> Fragment:
    """``kN(ctx, ARG, ...)``."""
    name = f"k{next(_counter)}"
    return Fragment(lambda: _call(name, [_load("ctx")] + [a.node for a in args]), ast.Call, {name: fn, **_merge(*args)})


_MISSING = object()  # what a cache lookup gives for a value not computed yet
_EMPTY: dict = {}     # read instead of a cache that is None (never written)


def closure_ref(obj) -> Fragment:
    """``kN``: an object passed in (a cache key), not called."""
    name = f"k{next(_counter)}"
    return Fragment(lambda: _load(name), ast.Name, {name: obj})


def cached(part: str, key: Fragment, fill) -> Fragment:
    """``t if (t := (ctx.PART or kE).get(KEY, kM)) is not kM else kN(ctx)``: a value kept in
    the evaluation context's cache ``PART`` (``memo``: definitions without parameters, by name;
    ``hoisted``: the option-independent parts of a filter), read inline; ``fill`` (which
    computes the value and keeps it when the cache is on) is called only when it is not there."""
    temp, empty, missing, name = (f"t{next(_counter)}", f"k{next(_counter)}", f"k{next(_counter)}",
                                  f"k{next(_counter)}")

    def make():
        store = ast.BoolOp(**_L, op=ast.Or(), values=[_ctx_part(part), _load(empty)])
        get = ast.Call(**_L, func=_attr(store, "get"), args=[key.node, _load(missing)], keywords=[])
        walrus = ast.NamedExpr(**_L, target=ast.Name(**_L, id=temp, ctx=ast.Store()), value=get)
        test = ast.Compare(**_L, left=walrus, ops=[ast.IsNot()], comparators=[_load(missing)])
        return ast.IfExp(**_L, test=test, body=_load(temp), orelse=_call(name, [_load("ctx")]))
    return Fragment(make, ast.IfExp, {empty: _EMPTY, missing: _MISSING, name: fill, **key.consts})


def counted(fn, body: Fragment) -> Fragment:
    """``kN(ctx) or BODY``: a call of a definition whose arguments are already bound; ``fn``
    counts the call's unit of work and returns None, so the value is BODY's."""
    name = f"k{next(_counter)}"
    return Fragment(lambda: ast.BoolOp(**_L, op=ast.Or(), values=[_call(name, [_load("ctx")]), body.node]),
                    ast.BoolOp, {name: fn, **body.consts})


def negate(a: Fragment) -> Fragment:
    return Fragment(lambda: ast.UnaryOp(**_L, op=ast.USub(), operand=a.node), ast.UnaryOp, a.consts)


def logical_not(a: Fragment) -> Fragment:
    return Fragment(lambda: ast.UnaryOp(**_L, op=ast.Not(), operand=a.node), ast.UnaryOp, a.consts)


def logical(op: str, a: Fragment, b: Fragment) -> Fragment:
    """``a and b`` / ``a or b`` (Python's, as the closures: the value of the deciding side)."""
    return Fragment(lambda: ast.BoolOp(**_L, op=ast.And() if op == "and" else ast.Or(), values=[a.node, b.node]),
                    ast.BoolOp, _merge(a, b))


def if_else(then: Fragment, cond: Fragment, other: Fragment) -> Fragment:
    return Fragment(lambda: ast.IfExp(**_L, test=cond.node, body=then.node, orelse=other.node), ast.IfExp,
                    _merge(then, cond, other))


def is_null(a: Fragment, negated: bool) -> Fragment:
    return Fragment(lambda: ast.Compare(**_L, left=a.node, ops=[ast.IsNot() if negated else ast.Is()],
                                        comparators=[ast.Constant(**_L, value=None)]), ast.Compare, a.consts)


def equals_literal(a: Fragment, value, negated: bool) -> Fragment:
    """``a == LITERAL`` (no card can equal a literal: plain equality, as the closures)."""
    return Fragment(lambda: ast.Compare(**_L, left=a.node, ops=[ast.NotEq() if negated else ast.Eq()],
                                        comparators=[ast.Constant(**_L, value=value)]), ast.Compare, a.consts)


def equals(a: Fragment, b: Fragment, negated: bool) -> Fragment:
    """``a == b`` (``!=``): cards compare by identity, other values by value."""
    return Fragment(lambda: ast.Compare(**_L, left=a.node, ops=[ast.NotEq() if negated else ast.Eq()],
                                        comparators=[b.node]), ast.Compare, _merge(a, b))


def card_attribute(obj: Fragment, key: str, get_attr) -> Fragment:
    """``obj.KEY`` with the closures' fast path: a card without modes reads its attribute
    table (``t.attrs.get(KEY)``); anything else goes through ``get_attr(ctx, t, KEY)``."""
    temp = f"t{next(_counter)}"
    name = f"k{next(_counter)}"

    def make():
        walrus = ast.NamedExpr(**_L, target=ast.Name(**_L, id=temp, ctx=ast.Store()), value=obj.node)
        is_card = ast.Compare(**_L, left=_call("type", [walrus]), ops=[ast.Is()], comparators=[_load("Card")])
        no_modes = ast.UnaryOp(**_L, op=ast.Not(), operand=_attr(_load(temp), "modes"))
        test = ast.BoolOp(**_L, op=ast.And(), values=[is_card, no_modes])
        key_node = ast.Constant(**_L, value=key)
        fast = ast.Call(**_L, func=_attr(_attr(_load(temp), "attrs"), "get"), args=[key_node], keywords=[])
        return ast.IfExp(**_L, test=test, body=fast, orelse=_call(name, [_load("ctx"), _load(temp), key_node]))
    return Fragment(make, ast.IfExp, {name: get_attr, **obj.consts})


# -- building a function --------------------------------------------------------------------------
def check_module(tree: ast.Module) -> None:
    """Raise AssertionError unless ``tree`` is made only of the templates' node kinds, names and
    attributes (see the module docstring). Run on every module built while ``KEEP_MODULES`` is
    set (the tests set it)."""
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise AssertionError(f"generated code holds a {type(node).__name__}")
        if isinstance(node, ast.Name) and not (_GENERATED.match(node.id) or node.id in HELPERS or node.id == "type"):
            raise AssertionError(f"generated code names {node.id!r}")
        if isinstance(node, ast.Attribute) and node.attr not in ATTRIBUTES:
            raise AssertionError(f"generated code reads the attribute {node.attr!r}")
        if isinstance(node, ast.FunctionDef) and not _GENERATED.match(node.name):
            raise AssertionError(f"generated code defines {node.name!r}")
        if isinstance(node, ast.arg) and node.arg != "ctx":
            raise AssertionError(f"generated code takes {node.arg!r}")


GENERATED: list = []  # every module built in this process while KEEP_MODULES (the tests inspect them)
KEEP_MODULES = False
ENABLED = True  # False: the closures alone (the tests compare both paths game by game)


def _module(fname: str, frag: Fragment) -> ast.Module:
    """``def FNAME(ctx): return FRAG`` as a module's syntax tree."""
    args = ast.arguments(posonlyargs=[], args=[ast.arg(**_L, arg="ctx")], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])
    extra = {"type_params": []} if hasattr(ast, "TypeAlias") else {}  # Python 3.12 and later
    fn_def = ast.FunctionDef(**_L, name=fname, args=args, body=[ast.Return(**_L, value=frag.node)],
                             decorator_list=[], returns=None, **extra)
    return ast.Module(body=[fn_def], type_ignores=[])


WARM_CALLS = 400  # calls of a generated function answered by its closures before it is compiled (a
# one-game run calls most functions fewer times: compiling them would cost more than it saves)


def build(frag: Fragment, closure=None):
    """The function ``f(ctx)`` returning ``frag``'s value: one module of one function, compiled
    from its syntax tree (no source text) with no built-ins but ``type``. With ``closure`` (the
    compiler's closure of the same expression, which computes the same value), the first
    :data:`WARM_CALLS` calls are answered by it and the module is made and compiled only then: a
    short run (one game) never pays for compiling what it calls a few times."""
    fname = f"k{next(_counter)}"
    module = None
    if KEEP_MODULES:  # the tests check every module; each template checks its own names as it builds
        module = _module(fname, frag)
        check_module(module)
        GENERATED.append(module)
    namespace = {"__builtins__": {"type": type}, **HELPERS, **frag.consts}
    # made and compiled on its first call (a run calls a fraction of a spec's expressions, and
    # compiling them all was a quarter of a spec's loading): the function starts with a stub's
    # code, which compiles the module and puts its code in place, so later calls cost nothing more
    fn = types.FunctionType(_first_call.__code__, namespace, fname)

    def compile_now():
        tree = module if module is not None else _module(fname, frag)
        exec(compile(tree, "<rulebook generated>", "exec"), namespace)  # noqa: S102 - checked template code
        fn.__code__ = namespace[fname].__code__
        return fn
    if closure is None:
        namespace["_warm"] = lambda ctx: compile_now()(ctx)
    else:
        calls = [0]

        def warm(ctx):
            calls[0] += 1
            if calls[0] < WARM_CALLS:
                return closure(ctx)
            return compile_now()(ctx)
        namespace["_warm"] = warm
    return fn


def _first_call(ctx):
    """The code a generated function starts with (see :func:`build`): ``_warm`` (in its globals)
    answers, then compiles the module and puts its code in place of this one."""
    return _warm(ctx)  # noqa: F821 - the generated function's globals hold it
