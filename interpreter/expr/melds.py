"""Melds by pattern: the meld kinds a spec declares under ``melds:`` and the bounded searches
over them behind the built-ins ``is_meld``, ``meld_kind``, ``melds_in``, ``melds_for``,
``best_melds`` and ``lay_offs`` (docs/spec-language.md, "Melds").

A meld kind is a *set* (cards whose ``key`` is equal: n of a kind; a key such as
``'court' if c.rank > 10 else c.rank`` makes several ranks match each other) or a *run* (cards of one
``suit`` whose ``rank`` values are consecutive whole numbers; an ace may count low, high or
either). Either may take wild cards (``wild``), at most ``max_wild`` of them, and needs at least
``min_natural`` cards that are not wild. The card expressions (``key``, ``suit``, ``rank``,
``wild``) are compiled functions ``fn(ctx, card)``; they may read the State.

Every search is exact and bounded: the candidate melds of a list of cards stop at
:data:`~interpreter.expr.builtins.MAX_ITEMS` (RuleError past it) and the partition search counts
one unit of evaluation work per node (``ctx.work``: the budget between decisions) and stops past :data:`MAX_SEARCH` nodes.
Wild cards are interchangeable: a meld takes the first unused wild cards of the list given.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

from ..errors import RuleError
from ..model.cards import Card


@dataclass
class MeldKind:
    """One kind of meld, compiled from ``melds: {NAME: {...}}``.

    ``form``: ``"set"`` or ``"run"``; ``size``: (fewest, most or None) cards; ``key``: for a set,
    ``fn(ctx, card)`` whose equal values match; ``suit``/``rank``: for a run, the card's suit (any
    value) and rank (a whole number); ``ace``: ``"low"``, ``"high"`` or ``"both"`` and ``ace_rank``
    the rank that is an ace (a high ace ranks one above the deck's highest rank); ``wild``:
    ``fn(ctx, card)`` true for a wild card, or None; ``max_wild`` (None: any number) and
    ``min_natural`` (at least 1)."""

    name: str
    form: str
    size: tuple
    key: object = None
    suit: object = None
    rank: object = None
    ace: str = "low"
    ace_rank: int = 1
    wild: object = None
    max_wild: int | None = None
    min_natural: int = 1


def card_fn(fn):
    """``fn`` (a compiled expression reading the card as the bound name ``c``) as
    ``f(ctx, card)``, the form a :class:`MeldKind` holds."""
    def f(ctx, card):
        old = ctx.bound
        ctx.bound = {"c": card}
        try:
            return fn(ctx)
        finally:
            ctx.bound = old
    return f


# The most melds one call lists (the built-ins pass MAX_ITEMS: see interpreter.expr.builtins) and
# the most nodes one partition search visits (each also counts one unit of the work budget).
LIMIT = {"items": 100_000}
MAX_SEARCH = 2_000_000


def _limit() -> int:
    return LIMIT["items"]


def _spend(ctx) -> None:
    """One node of a search: a unit of the State's work budget (``ctx.work``, checked by the
    next step or call), and at most :data:`MAX_SEARCH` nodes in one search."""
    ctx.work += 1


def _kinds(ctx, kind=None) -> list:
    """The meld kinds asked for: all of the spec's, or the one named ``kind``; RuleError when
    the spec has none or no such kind."""
    kinds = getattr(ctx.game, "meld_kinds", None) or {}
    if not kinds:
        raise RuleError("this spec declares no meld kinds: add melds: {NAME: {form: set, ...}}")
    if kind is None:
        return list(kinds.values())
    if kind not in kinds:
        raise RuleError(f"there is no meld kind {kind!r} (melds: {', '.join(kinds)})")
    return [kinds[kind]]


def _cards(xs, what: str) -> list:
    if type(xs) not in (list, tuple) or any(type(c) is not Card for c in xs):
        raise RuleError(f"{what} takes a list of cards, not {xs!r}")
    return list(xs)


def _split(ctx, mk: MeldKind, cards: list) -> tuple[list, list]:
    """(natural cards, wild cards) of ``cards`` for ``mk``, in their order."""
    if mk.wild is None:
        return cards, []
    nat, wild = [], []
    for c in cards:
        (wild if mk.wild(ctx, c) else nat).append(c)
    return nat, wild


def _rank_of(ctx, mk: MeldKind, card) -> int:
    r = mk.rank(ctx, card)
    if type(r) is not int:
        raise RuleError(f"meld kind {mk.name}: the rank of {card.name} is {r!r}, not a whole number")
    return r


def _rank_span(ctx, mk: MeldKind) -> tuple[int, int]:
    """(lowest, highest) position a card of ``mk`` can take in a run, over the whole deck
    (a high ace: one above the highest rank). Cached per game: ranks must not change in play."""
    cache = ctx.game.__dict__.setdefault("_meld_spans", {})
    if mk.name not in cache:
        ranks = []
        for c in ctx.game.cards:
            if mk.wild is not None and mk.wild(ctx, c):
                continue
            r = mk.rank(ctx, c)
            if type(r) is int:
                ranks.append(r)
        if not ranks:
            raise RuleError(f"meld kind {mk.name}: no card of the deck has a whole-number rank")
        lo, hi = min(ranks), max(ranks)
        if mk.ace in ("high", "both") and mk.ace_rank in ranks:
            hi += 1
            if mk.ace == "high" and mk.ace_rank == lo:
                lo = min((r for r in ranks if r != mk.ace_rank), default=lo)
        cache[mk.name] = (lo, hi)
    return cache[mk.name]


def _positions(ctx, mk: MeldKind, card, hi: int) -> list[int]:
    """The run positions ``card`` may take (two for an ace that counts low or high)."""
    r = _rank_of(ctx, mk, card)
    if r != mk.ace_rank or mk.ace == "low":
        return [r]
    return [hi] if mk.ace == "high" else [r, hi]


def _size_ok(mk: MeldKind, n: int) -> bool:
    lo, hi = mk.size
    return n >= lo and (hi is None or n <= hi)


def _valid(ctx, mk: MeldKind, cards: list) -> bool:
    """Whether ``cards`` (any order) is one meld of kind ``mk``."""
    if not _size_ok(mk, len(cards)) or len({c.id for c in cards}) != len(cards):
        return False
    nat, wild = _split(ctx, mk, cards)
    if len(nat) < mk.min_natural or (mk.max_wild is not None and len(wild) > mk.max_wild):
        return False
    if mk.form == "set":
        k = mk.key(ctx, nat[0])
        return all(mk.key(ctx, c) == k for c in nat[1:])
    s = mk.suit(ctx, nat[0])
    if any(mk.suit(ctx, c) != s for c in nat[1:]):
        return False
    lo, hi = _rank_span(ctx, mk)
    if len(cards) > hi - lo + 1:
        return False
    for pos in itertools.product(*[_positions(ctx, mk, c, hi) for c in nat]):
        if len(set(pos)) != len(pos):
            continue
        gaps = max(pos) - min(pos) + 1 - len(pos)
        if gaps <= len(wild):
            return True
    return False


def _templates(ctx, mk: MeldKind, nat: list, n_wild: int, out: list, size=None) -> None:
    """Append to ``out`` every meld of kind ``mk`` (of ``size`` cards only, when given) made of
    natural cards of ``nat`` (by index) and wild cards: items ``(kind, natural indexes (sorted tuple), fewest wilds, most wilds,
    order)`` where ``order`` lays the meld out (natural indexes and None for a wild, for a run in
    rank order). Raises RuleError past MAX_ITEMS melds."""
    limit = _limit()
    most_wild = n_wild if mk.max_wild is None else min(n_wild, mk.max_wild)
    lo_size, hi_size = mk.size
    if size is not None:
        lo_size, hi_size = max(lo_size, size), size if hi_size is None else min(hi_size, size)
        if lo_size > hi_size:
            return
    if mk.form == "set":
        groups: dict = {}
        for i, c in enumerate(nat):
            groups.setdefault(mk.key(ctx, c), []).append(i)
        for idx in groups.values():
            for k in range(max(mk.min_natural, 1), len(idx) + 1):
                need = max(0, lo_size - k)
                top = most_wild if hi_size is None else min(most_wild, hi_size - k)
                if need > top:
                    continue
                for combo in itertools.combinations(idx, k):
                    out.append((mk, combo, need, top, list(combo)))
                    if len(out) > limit:
                        raise RuleError(f"these cards hold more than {limit} melds: too many to search")
        return
    lo, hi = _rank_span(ctx, mk)
    suits: dict = {}
    for i, c in enumerate(nat):
        at = suits.setdefault(mk.suit(ctx, c), {})
        for p in _positions(ctx, mk, c, hi):
            at.setdefault(p, []).append(i)
    longest = hi - lo + 1 if hi_size is None else min(hi_size, hi - lo + 1)
    if most_wild == 0:  # naturals only: every stretch of consecutive positions held, long enough
        least = max(lo_size, mk.min_natural, 1)
        for at in suits.values():
            for start in sorted(at):
                seq: list = []
                p = start
                while p in at and len(seq) < longest:
                    seq.append(at[p])
                    p += 1
                    if len(seq) >= least:
                        for pick in itertools.product(*seq):
                            if len(set(pick)) == len(pick):
                                out.append((mk, tuple(sorted(pick)), 0, 0, list(pick)))
                    if len(out) > limit:
                        raise RuleError(f"these cards hold more than {limit} melds: too many to search")
        return
    for at in suits.values():
        for start in sorted(at):
            # the naturals span start..start+length-1 (a natural at both ends); wilds fill its
            # gaps and may lengthen it at its ends up to the kind's size
            for length in range(1, longest + 1):
                if start + length - 1 > hi:
                    break
                gap = [None] if most_wild else []   # a wild may fill a position
                cells = [at.get(p, []) + gap for p in range(start, start + length)]
                if not cells[-1] or cells[-1] == [None]:
                    if most_wild == 0:
                        break   # a gap and no wild: no longer run from this start either
                    continue
                for pick in itertools.product(*cells):
                    if pick[0] is None:
                        continue
                    wilds = sum(1 for x in pick if x is None)
                    naturals = [x for x in pick if x is not None]
                    if wilds > most_wild or len(naturals) < max(mk.min_natural, 1):
                        continue
                    if len(set(naturals)) != len(naturals):
                        continue
                    room = (hi - lo + 1) - length
                    if hi_size is not None:
                        room = min(room, hi_size - length)
                    few = wilds + max(0, lo_size - length)
                    top = wilds + min(most_wild - wilds, room)
                    if few > top:
                        continue
                    out.append((mk, tuple(sorted(naturals)), few, top, list(pick)))
                    if len(out) > limit:
                        raise RuleError(f"these cards hold more than {limit} melds: too many to search")


def _all_templates(ctx, kinds: list, cards: list, size=None) -> tuple[list, list, dict]:
    """(cards, templates, wild cards per kind) for ``cards`` over ``kinds``: each template's
    naturals index ``cards``; a template's wild cards come from its kind's wild list."""
    out: list = []
    wilds = {}
    for mk in kinds:
        nat_idx = []
        wild = []
        for i, c in enumerate(cards):
            if mk.wild is not None and mk.wild(ctx, c):
                wild.append(i)
            else:
                nat_idx.append(i)
        wilds[mk.name] = wild
        part: list = []
        _templates(ctx, mk, [cards[i] for i in nat_idx], len(wild), part, size)
        for m, naturals, few, most, order in part:
            out.append((m, tuple(nat_idx[j] for j in naturals), few, most,
                        [None if j is None else nat_idx[j] for j in order]))
    return out, wilds


def _lay_out(order: list, wild_ids: list, k: int, cards: list) -> list:
    """A template's cards: its naturals in ``order`` with the wild cards ``wild_ids`` (indexes
    into ``cards``) in its wild slots, the rest of the ``k`` wilds after them."""
    w = iter(wild_ids[:k])
    out = [cards[next(w)] if x is None else cards[x] for x in order]
    out.extend(cards[j] for j in w)
    return out


def is_meld(ctx, cards, kind=None) -> bool:
    """Whether ``cards`` (a list of cards, any order) is one meld of the kind named ``kind``, or
    of any of the spec's meld kinds."""
    cards = _cards(cards, "is_meld")
    return any(_valid(ctx, mk, cards) for mk in _kinds(ctx, kind))


def meld_kind(ctx, cards):
    """The name of the first meld kind (in the spec's order) ``cards`` is a meld of, or null."""
    cards = _cards(cards, "meld_kind")
    return next((mk.name for mk in _kinds(ctx) if _valid(ctx, mk, cards)), None)


def melds_in(ctx, cards, kind=None, size=None) -> list:
    """Every meld (a list of cards; a run in rank order) that can be made of ``cards``, of the
    kind ``kind`` or any kind (null), of ``size`` cards only when given (the smallest melds tell
    whether there is any, without listing the larger ones). A meld with wild cards takes the first
    wild cards of the list, as few as it needs and then each larger number allowed. RuleError
    past MAX_ITEMS melds."""
    cards = _cards(cards, "melds_in")
    if size is not None and (type(size) is not int or size < 1):
        raise RuleError(f"melds_in: the size is a whole number from 1, not {size!r}")
    temps, wilds = _all_templates(ctx, _kinds(ctx, kind), cards, size)
    out, limit, seen = [], _limit(), set()
    for mk, _naturals, few, most, order in temps:
        for k in range(few, min(most, len(wilds[mk.name])) + 1):
            meld = _lay_out(order, wilds[mk.name], k, cards)
            ids = tuple(sorted(c.id for c in meld))
            if ids in seen or not _valid(ctx, mk, meld):
                continue
            seen.add(ids)
            out.append(meld)
            if len(out) > limit:
                raise RuleError(f"these cards hold more than {limit} melds: too many to list")
    return out


def melds_for(ctx, cards, kinds):
    """Melds of exactly these kinds (a rummy contract): a list with one meld per name of
    ``kinds`` (a list of meld kind names, in that order; a name may repeat), sharing no card,
    each of its kind's smallest size (``min``), made of ``cards``; the first found (each meld
    taken in :func:`melds_in`'s order, the earlier kinds first), or null when there is none.
    ``melds_for(cards, [])`` is ``[]``. One unit of work per meld tried; a failed sub-search of
    the same cards and kinds is not repeated. RuleError for an unknown kind or a bad argument."""
    cards = _cards(cards, "melds_for")
    if type(kinds) not in (list, tuple) or any(type(k) is not str for k in kinds):
        raise RuleError(f"melds_for takes a list of meld kind names, not {kinds!r:.80}")
    wanted = [_kinds(ctx, k)[0] for k in kinds]
    failed = set()

    def search(rest: list, i: int):
        if i == len(wanted):
            return []
        key = (i, tuple(sorted(c.id for c in rest)))
        if key in failed:
            return None
        mk = wanted[i]
        for meld in melds_in(ctx, rest, mk.name, mk.size[0]):
            _spend(ctx)
            used = {c.id for c in meld}
            found = search([c for c in rest if c.id not in used], i + 1)
            if found is not None:
                return [meld] + found
        failed.add(key)
        return None
    return search(cards, 0)


def best_melds(ctx, cards, value, goal="min") -> dict:
    """The best way to lay ``cards`` out as melds that share no card: the partition whose
    unmelded cards (``rest``) give the lowest (``goal`` 'min') or highest ('max') ``value(rest)``
    (a lambda of the list of unmelded cards, e.g. ``rest => sum([c.value for c in rest])``).
    Returns ``{'melds': [list of cards, ...], 'rest': [cards], 'value': value(rest)}``; among
    equal values the first found (fewer melds tried first for the earliest cards). Exact:
    every partition is tried, one unit of work each (RuleError past the work budget)."""
    cards = _cards(cards, "best_melds")
    if goal not in ("min", "max"):
        raise RuleError(f"best_melds: the goal is 'min' or 'max', not {goal!r}")
    temps, wilds = _all_templates(ctx, _kinds(ctx), cards)
    by_first: dict = {}
    for t in temps:
        by_first.setdefault(t[1][0], []).append(t)
    wild_of = {i for w in wilds.values() for i in w}
    best = [None, None]         # value, (melds, rest)
    _walk_partitions(ctx, len(cards), by_first, wild_of, wilds, cards, value, goal, best)
    melds, rest = best[1]
    return {"melds": melds, "rest": rest, "value": best[0]}


def _walk_partitions(ctx, n, by_first, wild_of, wilds, cards, value, goal, best) -> None:
    """The exact search of :func:`best_melds`: each natural card, in order, is left out or
    starts one of the melds whose first natural it is; wild cards fill the melds chosen in
    order (first unused first). Fills ``best`` = [value, (melds, rest)]."""
    in_meld = [False] * n
    nodes = [0]
    chosen: list = []
    max_wild = len(wild_of)

    def finish():
        taken: set = set()
        melds = []
        for mk, k, order in chosen:
            pool = [j for j in wilds[mk.name] if j not in taken]
            if len(pool) < k:
                return
            taken.update(pool[:k])
            melds.append(_lay_out(order, pool, k, cards))
        rest = [cards[i] for i in range(n) if not in_meld[i] and i not in taken]
        v = value(rest)
        if type(v) not in (int, float) or type(v) is bool:
            raise RuleError(f"best_melds: the value of the unmelded cards must be a number, not {v!r}")
        if best[0] is None or (v < best[0] if goal == "min" else v > best[0]):
            best[0], best[1] = v, (melds, rest)

    def walk(i: int, wild_left: int):
        _spend(ctx)
        nodes[0] += 1
        if nodes[0] > MAX_SEARCH:
            raise RuleError(f"best_melds: more than {MAX_SEARCH} ways to lay these {n} cards out as melds: "
                            "too many to search (fewer cards, or melds that share fewer cards)")
        while i < n and (in_meld[i] or i in wild_of):
            i += 1
        if i == n:
            finish()
            return
        walk(i + 1, wild_left)  # card i stays out of every meld
        for mk, naturals, few, most, order in by_first.get(i, ()):
            if any(in_meld[j] for j in naturals):
                continue
            for j in naturals:
                in_meld[j] = True
            for k in range(few, min(most, wild_left) + 1):
                chosen.append((mk, k, order))
                walk(i + 1, wild_left - k)
                chosen.pop()
            for j in naturals:
                in_meld[j] = False

    walk(0, max_wild)


def lay_offs(ctx, meld, cards) -> list:
    """The cards of ``cards`` (in their order) that, added to ``meld``, leave a meld of a kind
    ``meld`` already is (no card when ``meld`` is no meld)."""
    meld = _cards(meld, "lay_offs")
    cards = _cards(cards, "lay_offs")
    kinds = [mk for mk in _kinds(ctx) if _valid(ctx, mk, meld)]
    ids = {c.id for c in meld}
    return [c for c in cards if c.id not in ids and any(_valid(ctx, mk, meld + [c]) for mk in kinds)]
