"""The fixed library of built-in functions of the expression language.

Every built-in takes the evaluation context first (``ctx``), then its
arguments. Lambda arguments arrive as Python callables of one value.
Lists are capped at :data:`MAX_ITEMS` items so that evaluation stays bounded.
"""
from __future__ import annotations

import itertools

from ..errors import RuleError
from ..model.board import DIRECTIONS, parse_cell
from ..model.cards import Card, card_attr
from . import melds as _melds

MAX_ITEMS = 100_000
MAX_TEXT = 100_000      # characters of a text value
_melds.LIMIT["items"] = MAX_ITEMS   # the melds one call of melds_in/best_melds may list


def _check_size(n: int) -> None:
    if n > MAX_ITEMS:
        raise RuleError(f"a list of {n} items is more than the {MAX_ITEMS} an expression may build")


def _plain_text(x) -> str:
    """``str(x)`` of a list or map only once its text is known to stay within :data:`MAX_TEXT`
    characters: a list holding one sub-list many times is small as a value and huge as a text.
    The count stops at the bound, so the check itself is bounded. Raises :class:`RuleError`."""
    if type(x) in (list, tuple, dict):
        size, todo = 0, [x]
        while todo:
            v = todo.pop()
            t = type(v)
            if t is list or t is tuple:
                size += 2 + 2 * len(v)
                todo.extend(v)
            elif t is dict:
                size += 2 + 4 * len(v)
                todo.extend(v.keys())
                todo.extend(v.values())
            else:
                size += len(v.name) if t is Card else len(str(v))
            if size > MAX_TEXT:
                raise RuleError(f"str() of this value would be a text of more than the {MAX_TEXT} characters "
                                "allowed (a list may hold one sub-list many times)")
    return str(x)


def _count(ctx, xs):
    return len(xs)


def _sum(ctx, xs):
    return sum(xs)


def _minmax(pick):
    def fn(ctx, xs, *more):
        if not more and isinstance(xs, (list, tuple)):
            xs = [x for x in xs if x is not None]
            return pick(xs) if xs else None
        xs = [x for x in (xs,) + more if x is not None]
        return pick(xs) if xs else None
    return fn


def _range(ctx, a, b=None):
    if b is None:
        a, b = 0, a
    _check_size(b - a)
    return list(range(a, b))


def _first(ctx, xs, default=None):
    return xs[0] if xs else default


def _last(ctx, xs, default=None):
    return xs[-1] if xs else default


def _any(ctx, xs):
    return any(xs)


def _all(ctx, xs):
    return all(xs)


def _sort_by(ctx, xs, key):
    return sorted(xs, key=key)


def _group_by(ctx, xs, key):
    groups: dict = {}
    for x in xs:
        groups.setdefault(key(x), []).append(x)
    return groups


def _keys(ctx, m):
    return list(m.keys())


def _values(ctx, m):
    return list(m.values())


def _arg_best(better):
    def fn(ctx, xs, key, ties="first"):
        if ties not in ("first", "last"):
            raise RuleError(f"ties must be 'first' or 'last', not {ties!r}")
        best = None
        best_key = None
        for x in xs:
            k = key(x)
            if k is None:
                continue
            if best is None or better(k, best_key) or (ties == "last" and k == best_key):
                best, best_key = x, k
        return best
    return fn


def _seat(ctx, p, fn):
    """``p`` if it is a seat of this game, else a RuleError naming the built-in ``fn``:
    wrapping an impossible seat round the table would hide a mistake in the rules."""
    n = ctx.state.num_players
    if type(p) is not int or not 0 <= p < n:
        raise RuleError(f"{fn}({p!r}): {p!r} is not a player (seats are 0..{n - 1})")
    return p


def _sitting_out(ctx) -> frozenset:
    """The seats that sit out of the turn order now (the spec's ``turns: {skip: EXPR of p}``;
    none without it). RuleError when every seat would sit out."""
    fn = getattr(ctx.game, "skip_fn", None)
    if fn is None:
        return frozenset()
    out = fn(ctx)
    if len(out) >= ctx.state.num_players:
        raise RuleError("turns.skip holds for every player: nobody is left to take a turn")
    return out


def _next_player(ctx, p, steps=1):
    _seat(ctx, p, "next_player")
    if type(steps) is not int:
        raise RuleError(f"next_player: steps must be a whole number, not {steps!r}")
    n = ctx.state.num_players
    out = _sitting_out(ctx)
    if not out:
        return (p + steps) % n
    order = [s for s in range(n) if s not in out]  # the seats in play, clockwise
    if p in out:  # from a seat that sits out: count from the seat before the next one in play
        p = next((p + i) % n for i in range(1, n) if (p + i) % n not in out)
        steps -= 1
    return order[(order.index(p) + steps) % len(order)]


def _prev_player(ctx, p):
    _seat(ctx, p, "prev_player")
    out = _sitting_out(ctx)
    n = ctx.state.num_players
    return next((p - i) % n for i in range(1, n + 1) if (p - i) % n not in out)


def _turn_order(ctx, p):
    n = ctx.state.num_players
    _seat(ctx, p, "turn_order")
    out = _sitting_out(ctx)
    return [(p + i) % n for i in range(n) if (p + i) % n not in out]


def _index_of(ctx, xs, x):
    for i, y in enumerate(xs):
        if y is x or y == x:
            return i
    return None


def _without(ctx, xs, ys):
    ids = {id(y) for y in ys}
    return [x for x in xs if id(x) not in ids]


def _product(ctx, *lists):
    total = 1
    for xs in lists:
        total *= len(xs)
    _check_size(total)
    return [list(t) for t in itertools.product(*lists)]


def _name(ctx, x):
    if isinstance(x, Card):
        return x.name
    if isinstance(x, bool) or x is None:
        return str(x).lower()
    if isinstance(x, int):
        return ctx.state.player_name(x)
    return _plain_text(x)


def _str(ctx, x):
    if isinstance(x, Card):
        return x.name
    if isinstance(x, bool) or x is None:
        return str(x).lower()
    return _plain_text(x)


def _if_null(ctx, x, default):
    return default if x is None else x


def _abs(ctx, x):
    return abs(x)


def _holder(ctx, card):
    """The seat whose per-player zone holds ``card`` (hand, won pile, ...), or null when the
    card is in a game zone (deck, trick) or in none."""
    if not isinstance(card, Card):
        raise RuleError(f"holder takes a card, not {'null' if card is None else repr(card)}")
    for name, seat, _, z in ctx.state.card_lists():
        if card.id in z:
            return seat
    return None


def _printed(ctx, card, name):
    """``printed(c, 'suit')``: the card's printed attribute ``name`` (its declared mode's when it was
    played in one), even when ``derived:`` works that attribute out from the State (a rule that
    needs the printed suit beside the derived one). RuleError for a non-card or a
    name that is not a text."""
    if type(card) is not Card:
        raise RuleError(f"printed takes a card, not {card!r:.60}")
    if type(name) is not str:
        raise RuleError(f"printed takes an attribute name as text, not {name!r:.60}")
    return card_attr(card, ctx.state.marks.get(card.id), name)


def _moved_this_turn(ctx, xs):
    """``moved_this_turn(cards)``: the cards of ``cards`` (a list of cards, or a zone of sets: the
    cards of its sets), in their order, that are not in the zone (and seat) they were in when the
    current turn began (``turns: {phase: NAME}``: each run of that phase is a turn; the innermost
    one running). ``[]`` outside a turn. RuleError for an item that is not a card."""
    from ..model.state import TURN_KEY
    state = ctx.state
    began = None
    for frame in reversed(state.stack):
        began = frame[2].get(TURN_KEY)
        if began is not None:
            break
    if began is None:
        return []
    items = _flatten(ctx, xs) if type(xs) is list else xs
    if type(items) is not list or any(type(c) is not Card for c in items):
        raise RuleError(f"moved_this_turn takes a list of cards or a zone of sets, not {xs!r:.60}")
    now = state.card_places()
    return [c for c in items if now[c.id] != began[c.id]]


def _team_of(ctx, p):
    """The team of seat ``p`` (``teams: {of: EXPR}``; each seat its own team without teams)."""
    if type(p) is not int or not 0 <= p < ctx.state.num_players:
        raise RuleError(f"team_of takes a player, not {p!r}")
    return ctx.game.teams(ctx.state.num_players)[p]


def _teammates(ctx, p):
    """The other seats of ``p``'s team, clockwise from ``p``."""
    n = ctx.state.num_players
    teams = _all_teams(ctx)
    t = _team_of(ctx, p)
    return [(p + i) % n for i in range(1, n) if teams[(p + i) % n] == t]


def _all_teams(ctx):
    return ctx.game.teams(ctx.state.num_players)


def _top(ctx, xs):
    return xs[-1] if xs else None


def _flatten(ctx, xs):
    out = []
    for x in xs:
        if type(x) is list:
            out.extend(x)
        else:
            out.append(x)
    _check_size(len(out))
    return out


def _grid(ctx, b):
    boards = getattr(ctx.game, "boards", None) or {}
    grid = boards.get(b) if type(b) is str else None
    if grid is None:
        raise RuleError(f"there is no board named {b!r} (boards: {', '.join(boards) or 'none'})")
    return grid


def _cells(ctx, b):
    return list(_grid(ctx, b).cells)


def _colour_at(ctx, b, cell):
    return _grid(ctx, b).colours.get(cell)


def _neighbours(ctx, b, cell):
    return list(_grid(ctx, b).neighbours.get(cell, ()))


def _step(ctx, b, cell, direction):
    if direction not in DIRECTIONS:
        raise RuleError(f"{direction!r} is not a direction (up, right, down, left)")
    return _grid(ctx, b).step(cell, direction)


def _adjacent(ctx, a, b):
    pa, pb = parse_cell(a), parse_cell(b)
    if pa is None or pb is None:
        return False
    return abs(pa[0] - pb[0]) + abs(pa[1] - pb[1]) == 1


def _direction(ctx, a, b):
    pa, pb = parse_cell(a), parse_cell(b)
    if pa is None or pb is None:
        return None
    d = (pb[0] - pa[0], pb[1] - pa[1])
    for name, v in DIRECTIONS.items():
        if v == d:
            return name
    return None


def _marked(ctx, b, mark):
    return list(_grid(ctx, b).marks.get(mark, ()))


def _domino_colours(ctx, b, cell, *taken):
    """The colours ``[c1, c2]`` of every free place for a domino (a piece covering two
    neighbouring squares) that touches square ``cell`` of board ``b``: c1 is the colour of a
    square x sharing an edge with ``cell``, c2 that of a neighbour y of x. A square is free when
    it is on the board, is not ``cell`` and is in none of ``taken`` (each a list of cells or a map
    whose keys are cells). A list of 2-item lists of colour names, each pair once, in the order
    first found (x, then y, each in the order up, right, down, left); a domino that fits either
    way round shows as ``[c1, c2]`` or ``[c2, c1]`` depending on which square touches ``cell``.
    ``[]`` when ``cell`` is not a square of the board. RuleError for an unknown board or a
    ``taken`` that is neither a list nor a map."""
    grid = _grid(ctx, b)
    for t in taken:
        if type(t) is not list and type(t) is not dict:
            raise RuleError(f"domino_colours: taken squares must be lists of cells or maps from cells, not {t!r:.60}")
    near, colours = grid.neighbours, grid.colours

    def free(x):
        return x != cell and not any(x in t for t in taken)
    out = []
    for x in near.get(cell, ()):
        if free(x):
            for y in near[x]:
                if free(y):
                    pair = [colours[x], colours[y]]
                    if pair not in out:
                        out.append(pair)
    return out


BUILTINS = {
    "count": _count,
    "len": _count,
    "sum": _sum,
    "min": _minmax(min),
    "max": _minmax(max),
    "abs": _abs,
    "range": _range,
    "first": _first,
    "last": _last,
    "top": _top,
    "holder": _holder,
    "team_of": _team_of,
    "printed": _printed,
    "moved_this_turn": _moved_this_turn,
    "teammates": _teammates,
    "any": _any,
    "all": _all,
    "sort_by": _sort_by,
    "group_by": _group_by,
    "keys": _keys,
    "values": _values,
    "argmax": _arg_best(lambda a, b: a > b),
    "argmin": _arg_best(lambda a, b: a < b),
    "next_player": _next_player,
    "prev_player": _prev_player,
    "turn_order": _turn_order,
    "index_of": _index_of,
    "without": _without,
    "product": _product,
    "flatten": _flatten,
    "name": _name,
    "if_null": _if_null,
    "str": _str,
    # boards of squares (interpreter.model.board): a board is named by its text
    "cells": _cells,
    "colour_at": _colour_at,
    "neighbours": _neighbours,
    "step": _step,
    "adjacent": _adjacent,
    "direction": _direction,
    "marked": _marked,
    "domino_colours": _domino_colours,
    # melds by pattern (interpreter.expr.melds): the spec's melds: kinds
    "is_meld": _melds.is_meld,
    "meld_kind": _melds.meld_kind,
    "melds_in": _melds.melds_in,
    "melds_for": _melds.melds_for,
    "best_melds": _melds.best_melds,
    "lay_offs": _melds.lay_offs,
}

# Built-ins whose first argument names a board (checked at load time when it is a literal).
BOARD_ARGS = {"cells", "colour_at", "neighbours", "step", "marked", "domino_colours"}

# Built-ins whose arguments at these positions must be lambdas (x => expr).
LAMBDA_ARGS = {"sort_by": {1}, "group_by": {1}, "argmax": {1}, "argmin": {1}, "best_melds": {1}}

# Built-ins whose argument at this position names a meld kind (checked at load time when a literal).
MELD_KIND_ARGS = {"is_meld": 1, "melds_in": 1, "melds_for": 1}  # melds_for: a list literal of them
