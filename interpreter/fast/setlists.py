"""A zone of sets read as a list of lists of cards, in the typed kernel (:mod:`interpreter.fast.typepass`):

- ``flatten(xs)``, as the step API's ``_flatten``: the items of ``xs`` in order, each item that is a
  list giving its own items in its place. Lowered for a zone of sets (its sets' cards, set by set:
  ``flatten(pending)``) and for a list of cards (returned as it is);
- a ``for`` step over a zone of sets (``for: m, in: pending``): the step API loops over a copy of
  the sets as they were when the step began, so the cards are copied into one row of ``TMP`` (set
  after set) and each set's start into the next row; ``m`` reads as that set's cards (moving them
  empties the set, which drops out of the zone: the copy does not move).

Every line comes from the fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from .lowtypes import CARD, NUL, ListT, NotTyped, _indent
from . import setzones


def call_flatten(low, args, env):
    """``flatten(LIST)`` as a ListT of cards; NotTyped for other lists (naming the construct)."""
    if len(args) != 1:
        raise NotTyped("flatten with other than one list", low.path)
    src = low.lst(args[0], env)
    if src.elem in (CARD, NUL):
        return src
    if src.elem != setzones.SET:
        raise NotTyped(f"flatten of a list of {src.elem}s (lowered: a zone of sets, a list of cards)", low.path)

    def loop(var, body):
        r, i = low.fresh("t"), low.fresh("i")
        return src.loop(r, [f"for {i} in range(ZN[{r}]):", f"    {var} = Z[{r}, {i}]"] + _indent(body, 1))
    return ListT(CARD, loop, refs=src.refs)


def for_sets(low, var_name, lst, body_steps, env, path):
    """The lines of ``for: var_name, in: LIST, do: body_steps`` over a zone of sets (``lst``, items SET)."""
    row = low.depth
    low.depth += 2
    low.max_depth = max(low.max_depth, low.depth)
    n, k, r, j, i = low.fresh("t"), low.fresh("t"), low.fresh("t"), low.fresh("i"), low.fresh("i")
    lines = [f"{n} = 0", f"{k} = 0"] + lst.loop(r, [f"TMP[{row + 1}, {k}] = {n}", f"for {j} in range(ZN[{r}]):",
                                                    f"    TMP[{row}, {n}] = Z[{r}, {j}]", f"    {n} += 1", f"{k} += 1"])
    lines += [f"TMP[{row + 1}, {k}] = {n}"]

    def cards(var, body):
        a = low.fresh("i")
        return [f"for {a} in range(TMP[{row + 1}, {i}], TMP[{row + 1}, {i} + 1]):", f"    {var} = TMP[{row}, {a}]"] + \
            _indent(body)
    env2 = dict(env)
    if var_name is not None:
        env2[var_name] = ListT(CARD, cards, length=f"(TMP[{row + 1}, {i} + 1] - TMP[{row + 1}, {i}])", refs={i})
    body = low.block(body_steps, env2, path)
    low.depth -= 2
    return lines + [f"for {i} in range({k}):"] + _indent(body)
