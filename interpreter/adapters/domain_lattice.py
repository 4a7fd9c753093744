"""The abstract values of :mod:`.domains`: :class:`A` (a finite description of all the values an
expression could take: whole-number ranges, plain values, cards, lists, maps, fields, ``top``), its
join (union, with widening), the accessors the walk uses (``elem``, ``maxlen``) and :func:`words`,
which turns the ``A`` of a choice's option into the sets of words its texts are made of.

Split out of :mod:`.domains` (issue 34); :mod:`.domains` re-exports every name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf
MAX_CONSTS = 4096   # more distinct texts than this in one value: nothing is known of it any more
MAX_ALTS = 12       # list shapes kept apart before they are merged into one sequence
MAX_PASSES = 8


@dataclass(frozen=True)
class A:
    """An abstract value (see the module doc). Immutable and hashable."""
    ints: tuple | None = None          # (lo, hi), ends may be -inf/inf
    consts: frozenset = frozenset()    # texts, booleans, None
    cards: frozenset = frozenset()     # card ids
    lists: tuple = ()                  # ("tup", (A, ...)) | ("seq", A, maxlen or INF)
    maps: tuple | None = None          # (key A, value A)
    fields: tuple = ()                 # ((name, A), ...): a map with known keys
    top: bool = False


BOT = A()
TOP = A(top=True)
BOOL = A(consts=frozenset({True, False}))
NULL = A(consts=frozenset({None}))


def num(lo, hi=None) -> A:
    return A(ints=(lo, lo if hi is None else hi))


def const(v) -> A:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return A(consts=frozenset({v}))
    if isinstance(v, int):
        return num(v)
    if isinstance(v, float):
        return num(math.floor(v), math.ceil(v))
    if isinstance(v, list):
        return tup([const(x) for x in v])
    if isinstance(v, dict):
        return A(fields=tuple(sorted((str(k), const(x)) for k, x in v.items())))
    return TOP


def tup(items) -> A:
    return A(lists=(("tup", tuple(items)),))


def seq(elem: A, maxlen=INF) -> A:
    return A(lists=(("seq", elem, maxlen),))


def join(a: A, b: A, widen: bool = False) -> A:
    """The union of ``a`` and ``b`` (``widen``: a range that grew becomes open at that end, and
    list shapes become sequences, so that repeated walks stop growing)."""
    if a is b or b == BOT:
        return a
    if a == BOT:
        return b
    if a.top or b.top:
        return TOP
    ints = a.ints or b.ints
    if a.ints and b.ints:
        lo, hi = min(a.ints[0], b.ints[0]), max(a.ints[1], b.ints[1])
        if widen:
            lo = -INF if lo < a.ints[0] else lo
            hi = INF if hi > a.ints[1] else hi
        ints = (lo, hi)
    consts = a.consts | b.consts
    if len(consts) > MAX_CONSTS:
        return TOP
    lists = _join_lists(a.lists, b.lists, widen)
    maps = a.maps or b.maps
    if a.maps and b.maps:
        maps = (join(a.maps[0], b.maps[0], widen), join(a.maps[1], b.maps[1], widen))
    fields = a.fields
    if b.fields:
        if not fields:
            fields = b.fields
        elif fields != b.fields:
            fa, fb = dict(fields), dict(b.fields)
            fields = tuple(sorted((k, join(fa.get(k, NULL), fb.get(k, NULL), widen)) for k in set(fa) | set(fb)))
    return A(ints, consts, a.cards | b.cards, lists, maps, fields)


def _join_lists(xs, ys, widen):
    if not ys:
        return xs
    if not xs:
        return ys
    out = list(xs)
    for y in ys:
        if y not in out:
            out.append(y)
    if len(out) > MAX_ALTS or (widen and len(out) > len(xs)):
        elem, maxlen = BOT, 0
        for alt in out:
            elem = join(elem, _alt_elem(alt), widen)
            maxlen = max(maxlen, len(alt[1]) if alt[0] == "tup" else alt[2])
        return (("seq", elem, INF if widen else maxlen),)
    return tuple(out)


def _alt_elem(alt) -> A:
    if alt[0] == "seq":
        return alt[1]
    out = BOT
    for x in alt[1]:
        out = join(out, x)
    return out


def elem(a: A) -> A:
    """Any item of the lists ``a`` may be (the keys of a map; a card of a card)."""
    if a.top:
        return TOP
    out = BOT
    for alt in a.lists:
        out = join(out, _alt_elem(alt))
    if a.maps:
        out = join(out, a.maps[0])
    for k, _ in a.fields:
        out = join(out, const(k))
    return out


def maxlen(a: A):
    if a.top or a.maps or a.fields:
        return INF
    return max((len(alt[1]) if alt[0] == "tup" else alt[2] for alt in a.lists), default=0)


def words(a: A, card_names: list, budget: int = 1_000_000) -> list:
    """The texts of the values ``a`` may be, as shapes: a list of alternatives, each a list of word
    sets (one per word, in order), as ``_value_text`` writes a value (a list: its items' words).
    Raises ValueError saying what cannot be bounded."""
    if a.top:
        raise ValueError("a value the spec does not bound")
    shapes = []
    scalars = set()
    for c in a.consts:
        scalars.add("yes" if c is True else "no" if c is False else "none" if c is None else str(c))
    if a.ints:
        lo, hi = a.ints
        if lo == -INF or hi == INF:
            raise ValueError(f"a number with no {'lower' if lo == -INF else 'upper'} bound")
        if hi - lo > budget:
            raise ValueError(f"numbers {lo}..{hi}: too many")
        scalars.update(str(i) for i in range(int(lo), int(hi) + 1))
    if a.cards:
        scalars.update(card_names[i] for i in a.cards)
    if scalars:
        shapes.append([frozenset(scalars)])
    for alt in a.lists:
        if alt[0] == "seq":
            if alt[2] == 0:
                shapes.append([])
                continue
            raise ValueError("a list of no fixed length as one option")
        parts = [[]]
        for item in alt[1]:
            sub = words(item, card_names, budget)
            parts = [p + s for p in parts for s in sub]
            if len(parts) > MAX_ALTS * 4:
                raise ValueError("too many shapes of option")
        shapes.extend(parts)
    if a.maps or a.fields:
        raise ValueError("a map as one option")
    out = []
    for s in shapes:
        if s not in out:
            out.append(s)
    return out

