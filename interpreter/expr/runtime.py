"""What compiled expressions call while they run: arithmetic and comparisons bounded in size
(:data:`MAX_INT_BITS`, :data:`MAX_DEPTH`, :data:`MAX_VALUE_NODES`), the work bound between two
decisions (:func:`spend`, :data:`MAX_WORK`), and reading a value's attributes (:func:`get_attr`,
:func:`get_derived`). Every failure is a :class:`~interpreter.errors.RuleError`.
"""
from __future__ import annotations

import operator

from ..errors import RuleError
from ..model.cards import Card, card_attr
from .builtins import MAX_ITEMS, MAX_TEXT


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
        return card_attr(obj, ctx.state.marks.get(obj.id), name)
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
            zd = ctx.game.zones[name]
            if zd.team:  # a zone per team: every member reads the team's (docs: Zones)
                obj = ctx.game.zone_seat(name, obj, state.num_players)
            if zd.sets:
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
