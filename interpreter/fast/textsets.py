"""Texts joined with ``+`` from known sets of texts, in the typed kernel (:mod:`interpreter.fast.typepass`).

A text is a number in the kernel (its place in the spec's table of texts), so ``a + b`` of two texts
both known only at run time has no code of its own. It has one when each side can take only a few
texts that the lowering knows: ``a + b`` is then a lookup in a table of ``|A| x |B|`` entries
(each side's number -> its place in its set; the pair of places -> the number of the joined text,
which joins the table of texts). The sets known (:func:`note` records them, keyed by the generated
code of the value, while the rules are lowered):

- a text written in the rules (one text);
- ``colour_at(b, x)``: the colours of the spec's boards (:mod:`interpreter.fast.boards`), and the
  two colours of each pair ``domino_colours(...)`` lists (read as ``c[0]``, ``c[1]`` of a
  comprehension over it);
- a card's attribute (``c.NAME`` read from the card table, no mode marking it): the texts the
  cards of the game hold in it;
- ``x if c else y`` of two known sets: their union;
- a join of known sets: the joined texts, so joins chain (``colour_at(b, x) + '-' +
  colour_at(b, y)``). A text of a known set joined to a constant is such a join too (a constant's
  set is itself): a lookup in the set, not in the whole table of texts (see
  :mod:`interpreter.fast.derived`).

A value outside its set at run time (null off the board, a card of another option set) flags the
game (``RI_ERROR`` :data:`~interpreter.fast.lowtypes.ERR_INDEX`): the step API replays it, and says
what its rules say. A join of texts whose sets are not known (or whose table would pass
:data:`MAX_ENTRIES`) does not type: :func:`join` returns None and the caller says so.

Every line comes from fixed templates; their holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import ERR_INDEX, NJIT, RI_ERROR, TEXT

MAX_ENTRIES = 4096  # the largest table of joined texts written (|A| x |B|)
MAX_SET = 512  # the most texts a set is kept with (a larger one is not known)


def _sets(low) -> dict:
    """The known sets of this round of the lowering: code -> frozenset of texts (reset with the
    helpers: the generated names restart at every round)."""
    found = low.helper_names.get(("textsets",))
    if found is None:
        found = low.helper_names[("textsets",)] = {}
    return found


def note(low, code: str, texts) -> str:
    """Record that the text value of generated ``code`` is one of ``texts`` (an iterable of str;
    a value that is no text, such as null, is left out: met at run time it flags the game).
    Returns ``code``."""
    texts = frozenset(t for t in texts if isinstance(t, str) and t != "")
    if texts and len(texts) <= MAX_SET:
        _sets(low)[code] = texts
    return code


def known(low, code: str):
    """The texts the value of ``code`` may be (a frozenset), or None when not known (a text
    written in the rules: itself)."""
    found = _sets(low).get(code)
    if found is None and code.lstrip("-").isdigit():
        from .compound import text_of_value
        word = text_of_value(int(code), {low.text(s): s for s in list(low.texts)})
        return frozenset([word]) if word else None
    return found


def union(low, code: str, a: str, b: str) -> str:
    """Record ``code`` (``x if c else y`` of codes ``a`` and ``b``) as the union of their sets,
    when both are known; returns ``code``."""
    sa, sb = known(low, a), known(low, b)
    if sa is not None and sb is not None:
        note(low, code, sa | sb)
    return code


def attribute(low, code: str, name: str) -> str:
    """Record ``code`` (a card's attribute ``name`` read from the card table) as one of the texts
    the game's cards hold in it; returns ``code``."""
    note(low, code, (card.attrs.get(name) for card in low.game.cards))
    return code


def parts(low, names, part_sets) -> None:
    """Record the generated ``names`` of a comprehension's item parts (a pair of a list) with
    their sets (``part_sets``: a frozenset or None for each part)."""
    for name, texts in zip(names, part_sets):
        if texts is not None:
            note(low, name, texts)


def join(low, a: str, b: str):
    """``(code, TEXT)`` of ``a + b`` for the codes of two texts known only at run time whose sets
    are known (a lookup table, written once per pair of sets); None when a set is not known or
    the table would be larger than :data:`MAX_ENTRIES`."""
    sa, sb = known(low, a), known(low, b)
    if sa is None or sb is None or len(sa) * len(sb) > MAX_ENTRIES:
        return None
    # in the texts' own order: numbering them (low.text) in a set's order would write another
    # module text in every process (sets of str iterate by hash), and numba compile it again
    xs = sorted(sa)
    ys = sorted(sb)
    key = ("textjoin", tuple(xs), tuple(ys))
    name = low.helper_names.get(key)
    if name is None:
        name = low.helper_names[key] = _write(low, xs, ys)
    return note(low, f"{name}(RI, {a}, {b})", (x + y for x in xs for y in ys)), TEXT


def _place(var: str, out: str, texts, low) -> list:
    """Lines setting ``out`` to the place of ``var``'s text among ``texts`` (-1 when absent)."""
    lines = [f"{out} = -1"]
    for k, s in enumerate(texts):
        lines += [f"{'if' if k == 0 else 'elif'} {var} == {low.text(s)}:", f"    {out} = {k}"]
    return lines


def _write(low, xs, ys) -> str:
    """Write the lookup of ``x + y`` for ``x`` in texts ``xs`` and ``y`` in ``ys``: a tuple of
    the joined texts' numbers and a helper; returns the helper's name."""
    table, name = low.fresh("h"), low.fresh("h")
    x, y, i, j = "v1", "v2", "v3", "v4"
    numbers = [low.text(p + q) for p in xs for q in ys]
    low.helpers += [f"{table} = ({', '.join(str(n) for n in numbers)},)", "",
                    NJIT, f"def {name}(RI, {x}, {y}):"] + \
        ["    " + ln for ln in _place(x, i, xs, low) + _place(y, j, ys, low)] + \
        [f"    if {i} < 0 or {j} < 0:", f"        RI[{RI_ERROR}] = {ERR_INDEX}", "        return NULL",
         f"    return {table}[{i} * {len(ys)} + {j}]", ""]
    return name
