"""Bonus definitions said in words, derived by evaluating them: "capturing X with Y: +20".

A spec that scores a trick's cards calls a definition of the trick and its winning card where the
score changes (``add: {p.bonus: "trick_bonus(trick, winning)"}``). :func:`capture_points` finds such
calls (a definition of two parameters whose first argument is a game zone), evaluates the
definition on every trick of two cards of the deck (the captured card led by seat 0, the winning
card played by seat 1, on a fresh position with the options chosen) less what the winning card
gives alone, and writes the captures that give points as sentences, cards that give the same
points grouped. A capture is said only when the winning card can win that trick (led or
following) by the spec's own winner definition: the call's second argument ``g(trick)``, or the
``set: {w: "g(trick)"}`` steps of the spec that give it. Nothing here knows a game:
the numbers are the spec's own.
"""
from __future__ import annotations

from ..errors import RulebookError
from ..expr.compiler import ExprSyntaxError, parse
from ..expr.syntax import Tree

MAX_NAMES = 120  # distinct card names tried (pairs grow as the square)


def _calls(text) -> list:
    """``(name, first argument's name, second argument's tree)`` of every call of two arguments,
    the first a name, in the expression ``text``."""
    try:
        tree = parse(str(text))
    except ExprSyntaxError:
        return []
    out = []
    for t in tree.iter_subtrees():
        ch = t.children
        if t.data == "call" and len(ch) == 3 and isinstance(ch[1], Tree) and ch[1].data == "name":
            out.append((str(ch[0]), str(ch[1].children[0]), ch[2]))
    return out


def _call_of(game, tree, zone):
    """The name of the one-parameter definition ``tree`` calls on ``zone`` (``g(zone)``), else None."""
    if isinstance(tree, Tree) and tree.data == "call" and len(tree.children) == 2:
        name, arg = str(tree.children[0]), tree.children[1]
        if isinstance(arg, Tree) and arg.data == "name" and str(arg.children[0]) == zone \
                and len(game.names.defines.get(name) or ()) == 1 and name in game.functions:
            return name
    return None


def winner_definition(game, zone: str, winner) -> str | None:
    """The definition that names the card winning the trick in ``zone``: the one ``winner`` (the
    syntax tree of a bonus call's second argument) calls on the zone, or, when ``winner`` is a
    variable, the one every ``set:`` of that variable calls (a ``null`` reset aside). None when
    it is not one such definition (then every pair is tried)."""
    found = _call_of(game, winner, zone)
    if found or not (isinstance(winner, Tree) and winner.data == "name"):
        return found
    var, names, todo = str(winner.children[0]), set(), [game.spec]
    while todo:
        x = todo.pop()
        if isinstance(x, list):
            todo.extend(x)
        elif isinstance(x, dict):
            written = x.get("set")
            if isinstance(written, dict) and var in written and written[var] is not None:
                try:
                    names.add(_call_of(game, parse(str(written[var])), zone))
                except ExprSyntaxError:
                    return None
            todo.extend(x.values())
    return names.pop() if len(names) == 1 and None not in names else None


def capture_points(game, value) -> list:
    """``[(definition name, [sentence])]`` for each call in ``value`` (an expression text) of a
    definition ``f(cards, w)`` with a game zone as first argument; sentences like ``capturing
    queen with king: +30`` (or ``capturing red-10 (with any card): +10``), in deck order."""
    zones = {z for z, d in game.zones.items() if not d.per_player}
    out = []
    for name, first, second in _calls(value):
        if first not in zones or len(game.names.defines.get(name) or ()) != 2 or name not in game.functions:
            continue
        wins = winner_definition(game, first, second)
        try:
            out.append((name, _sentences(game, game.functions[name], wins and game.functions[wins])))
        except (RulebookError, TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError):
            continue  # the definition needs more than a trick and its winner: nothing said
    return out


def _sentences(game, fn, winner_fn=None) -> list:
    """The sentences of the bonus definition ``fn`` (see :func:`capture_points`); ``winner_fn``:
    the trick's winner definition, None when not known (every pair is then said)."""
    from ..engine.context import Ctx
    from ..model.state import State
    n = max(2, game.min_players)
    in_play = [game.cards[i] for i in game.cards_in_play(n)]
    firsts, seconds = {}, {}
    for c in in_play:
        (seconds if c.name in firsts and c.name not in seconds else firsts).setdefault(c.name, c)
    if len(firsts) > MAX_NAMES:
        return []
    state = State(game, n, 0)

    def played(cards, f, *args):
        """``f(ctx, cards, *args)`` with ``cards`` played by seats 0, 1, ... in that order."""
        for seat, c in enumerate(cards):
            state.marks[c.id] = [seat, None]
        try:
            return f(Ctx(state), cards, *args)
        finally:
            for c in cards:
                state.marks.pop(c.id, None)

    def value(cards, winner):
        v = played(cards, fn, winner)
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise ValueError("not points")
        return v

    def can_win(captured, winner):
        if winner_fn is None:
            return True
        return any(getattr(played(cards, winner_fn), "id", None) == winner.id
                   for cards in ([captured, winner], [winner, captured]))

    alone = {}  # what the winning card gives by itself: not a capture
    points: dict = {}  # captured name -> {winner name: points}
    for captured in firsts.values():
        row = {}
        for winner in firsts.values():
            if winner.name == captured.name:
                winner = seconds.get(captured.name)
                if winner is None:
                    continue  # the one card of its name cannot capture itself
            if not can_win(captured, winner):
                continue  # a trick this card never wins: no capture to say
            if winner.id not in alone:
                alone[winner.id] = value([winner], winner)
            row[winner.name] = value([captured, winner], winner) - alone[winner.id]
        points[captured.name] = row
    groups: dict = {}  # (winners text, points) -> captured names
    for captured, row in points.items():
        values = set(row.values())
        if len(values) == 1 and len(row) > 1:
            v = values.pop()
            if v:
                groups.setdefault(("(with any card)", v), []).append(captured)
            continue
        by_value: dict = {}
        for winner, v in row.items():
            if v:
                by_value.setdefault(v, []).append(winner)
        for v, winners in by_value.items():
            groups.setdefault(("with " + _names(winners), v), []).append(captured)
    return [f"capturing {_names(captured)} {winners}: {'+' if v > 0 else ''}{_number(v)}"
            for (winners, v), captured in groups.items()]


def _names(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _number(v) -> str:
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)
