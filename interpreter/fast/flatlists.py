"""``flatten([BODY for x in XS where COND])`` in the typed kernel when ``BODY`` is itself a list (a
comprehension, a list literal): as the step API's ``_flatten``, the items of each item's list in
order, one level deep. A comprehension whose items are lists does not type on its own (the kernel
keeps no list of lists); flattened, it is one loop inside the other: for each ``x`` of ``XS`` that
``COND`` keeps, ``BODY``'s items (single values or tuples: ``flatten([[[x, y] for y in
near(x)] for x in cells])`` lists pairs). A ``BODY`` that is a single value gives itself, as the step
API appends an item that is not a list.

A tuple read where a list is expected (``[t for t in s]``, ``s`` bound to a pair) is the list of its
parts (:func:`tuple_as_list`).

Generated code comes only from the loops of the lists lowered and the fixed template of
:func:`tuple_as_list` (generated names only).
"""
from __future__ import annotations

from .lowtypes import ListT, NotTyped, _indent, _join, _names
from . import compound


def flatten_comprehension(low, args, env):
    """The ListT of ``flatten([BODY for x in XS where COND])`` when BODY lowers to a list; None for
    any other argument (the caller's lowerings then apply)."""
    if len(args) != 1 or getattr(args[0], "data", None) != "map_":
        return None
    body, var, coll, cond = args[0].children
    src = low.lst(coll, env)
    inner = low.fresh("v")
    env2 = dict(env)
    env2[str(var)] = compound.bind(inner, src.elem)
    rb = low.e(body, env2)
    if not isinstance(rb, ListT):
        return None  # (a list of single values or tuples: the comprehension's own lowering)
    cond_code = low.truth(cond, env2) if cond is not None else None
    if isinstance(rb.elem, str) and rb.elem not in ("int", "bool", "text", "card", "null") and \
            not isinstance(rb.elem, compound.TupT):
        raise NotTyped(f"flatten of lists of {rb.elem}s", low.path)
    if _join(rb.elem, rb.elem) is None and not isinstance(rb.elem, compound.TupT):
        raise NotTyped("flatten of lists of several kinds", low.path)
    bound = {inner} | (set(compound.parts_of(inner, len(src.elem))) if isinstance(src.elem, compound.TupT) else set())

    def loop(v, lines):
        core = rb.loop(v, lines)
        if cond_code is not None:
            core = [f"if {cond_code}:"] + _indent(core)
        return src.loop(inner, core)
    return ListT(rb.elem, loop, refs=(src.refs | rb.refs | _names(cond_code)) - bound)


def tuple_as_list(low, r):
    """A tuple (a list literal of single values kept as its parts: ``s`` bound to ``[x, y]``) read
    where a list is expected (``[t for t in s]``): a ListT of its parts, in order; ``r`` itself for
    anything else. NotTyped for a chosen option that may be null or parts of several kinds."""
    if not isinstance(r, compound.TupleV):
        return r
    if r.null is not None:
        raise NotTyped("a chosen option that may be null (optional) read as a list", low.path)
    elem = "null"
    for _, ty in r.parts:
        elem = _join(elem, ty)
        if elem is None:
            raise NotTyped("a list of values of several kinds read as a list", low.path)
    codes = [c for c, _ in r.parts]

    def loop(var, body):
        out = []
        for c in codes:
            out += [f"{var} = {c}"] + body
        return out
    return ListT("int" if elem == "null" else elem, loop, length=str(len(codes)), refs=set(r.refs))
