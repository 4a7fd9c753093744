"""The built-in functions of the abstract walk of :mod:`.domains`: a mixin of
:class:`~interpreter.adapters.domains._Walk` with one ``b_<name>`` method per built-in of the
expression language, each taking and returning
:class:`~interpreter.adapters.domain_lattice.A` values (a built-in without a method gives ``TOP``).

Split out of :mod:`.domains` (issue 34).
"""
from __future__ import annotations

import math

from .domain_lattice import BOOL, BOT, INF, NULL, TOP, A, elem, join, maxlen, num, seq, tup, words


class _Builtins:
    """Built-ins of :class:`~interpreter.adapters.domains._Walk` (a mixin: uses the walk's ``game``,
    ``n`` and ``seats``)."""

    # -- built-ins ----------------------------------------------------------------------------
    def b_count(self, xs, *_):
        return num(0, maxlen(xs))

    b_len = b_count

    def b_sum(self, xs, *_):
        e = elem(xs)
        if e.ints and not math.isinf(maxlen(xs)):
            m = maxlen(xs)
            lo, hi = e.ints
            return num(min(0, lo * m), max(0, hi * m))
        return num(-INF, INF)

    def _minmax(self, *args):
        if len(args) == 1:
            return elem(args[0])
        out = BOT
        for a in args:
            out = join(out, a)
        return out

    def b_min(self, *args):
        if len(args) >= 2 and all(a.ints and not a.consts and not a.lists for a in args):
            return num(min(a.ints[0] for a in args), min(a.ints[1] for a in args))
        return self._minmax(*args)

    def b_max(self, *args):
        if len(args) >= 2 and all(a.ints and not a.consts and not a.lists for a in args):
            return num(max(a.ints[0] for a in args), max(a.ints[1] for a in args))
        return self._minmax(*args)

    def b_abs(self, x):
        if x.ints:
            lo, hi = x.ints
            return num(0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))
        return TOP

    def b_range(self, a, b=None):
        lo, hi = (num(0), a) if b is None else (a, b)
        if not lo.ints or not hi.ints:
            return seq(num(-INF, INF), INF)
        first, last = lo.ints[0], hi.ints[1] - 1
        return seq(num(first, last), max(0, hi.ints[1] - lo.ints[0]))

    def b_first(self, xs, default=NULL):
        return join(elem(xs), default)

    b_last = b_top = b_first

    def b_any(self, *_):
        return BOOL

    b_all = b_any

    def b_sort_by(self, xs, *_):
        return xs

    b_without = b_sort_by

    def b_keys(self, m):
        return seq(elem(m), maxlen(m))

    def b_values(self, m):
        out = BOT
        if m.maps:
            out = join(out, m.maps[1])
        for _, v in m.fields:
            out = join(out, v)
        return seq(out, INF)

    def b_argmax(self, xs, *_):
        return join(elem(xs), NULL)

    b_argmin = b_argmax

    def b_next_player(self, *_):
        return self.seats

    b_prev_player = b_holder = b_next_player

    def b_turn_order(self, *_):
        return seq(self.seats, self.n)

    b_teammates = b_turn_order

    def b_team_of(self, *_):
        return num(0, self.n - 1)

    # melds (interpreter/expr/melds.py): lists of the cards given
    def b_melds_in(self, xs, *_):
        return seq(seq(elem(xs), maxlen(xs)))

    def b_melds_for(self, xs, *_):
        return join(seq(seq(elem(xs), maxlen(xs))), NULL)

    def b_lay_offs(self, meld, xs):
        return seq(elem(xs), maxlen(xs))

    def b_is_meld(self, *_):
        return BOOL

    def b_meld_kind(self, *_):
        return join(A(consts=frozenset(str(k) for k in (self.game.spec.get("melds") or {}))), NULL)

    def b_index_of(self, xs, x):
        return num(-1, maxlen(xs))

    def b_product(self, *lists):
        length = 1
        for xs in lists:
            length *= maxlen(xs)
        return seq(tup([elem(xs) for xs in lists]), length)

    def b_flatten(self, xs):
        e = elem(xs)
        inner = elem(e) if e.lists else BOT
        scal = A(e.ints, e.consts, e.cards, (), e.maps, e.fields, e.top)
        return seq(join(inner, scal), maxlen(xs) * max(1, maxlen(e)))

    def b_name(self, x):
        out = BOT
        if x.cards:
            out = join(out, A(consts=frozenset(self.game.cards[i].name for i in x.cards)))
        if x.ints or x.top:
            return TOP
        return out

    def b_str(self, x):
        try:
            shapes = words(x, [c.name for c in self.game.cards])
        except ValueError:
            return TOP
        out = set()
        for s in shapes:
            if len(s) != 1:
                return TOP
            out |= s[0]
        return A(consts=frozenset(out))

    def b_if_null(self, x, default):
        return join(A(x.ints, x.consts - {None}, x.cards, x.lists, x.maps, x.fields, x.top), default)

    def _boards(self, b):
        boards = getattr(self.game, "boards", None) or {}
        names = [c for c in b.consts if c in boards] if not b.top else list(boards)
        return [boards[x] for x in names] or list(boards.values())

    def _all_cells(self, b):
        out = set()
        for g in self._boards(b):
            out.update(g.cells)
        return A(consts=frozenset(out))

    def b_cells(self, b, *_):
        return seq(self._all_cells(b), len(self._all_cells(b).consts))

    def b_neighbours(self, b, *_):
        return seq(self._all_cells(b), 4)

    b_marked = b_cells

    def b_step(self, b, *_):
        return join(self._all_cells(b), NULL)

    def b_colour_at(self, b, *_):
        out = set()
        for g in self._boards(b):
            out.update(g.colours.values())
        return A(consts=frozenset(out) | {None})

    def b_domino_colours(self, b, *_):
        # the colour pairs [first square's colour, second's] of the places next to a cell
        colours = A(consts=self.b_colour_at(b).consts - {None})
        return seq(tup([colours, colours]), 8)

    def b_adjacent(self, *_):
        return BOOL

    def b_direction(self, *_):
        return A(consts=frozenset({"up", "right", "down", "left", None}))

    def b_all_teams(self, *_):
        return seq(num(0, self.n - 1), self.n)
