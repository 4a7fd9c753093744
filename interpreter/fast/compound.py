"""Compound values in the typed kernel: short fixed lists (pairs, triples...), map literals, and
comprehensions over several lists (see :mod:`interpreter.fast.typepass` for the typing).

A *tuple* is a list literal of single values used as one value: the item of a comprehension
(``[[q, face(r)] for q in players for r in ranks]``), the value of a ``let`` or a definition's
argument. It is never an ``int64``: it is held as its parts (one generated local per part), so a
list of tuples is written as a loop that binds every part (:class:`TupT` is its item type) and
``x[k]`` with a constant ``k`` reads one part. A choice over a list of tuples keeps the options'
parts in rows of ``TMP`` (``OPT[0]`` holds the option's place there); the step API reads them
there to write the options' texts as the State does (``ask 1 A``).

A map literal with constant keys (``{1: 'A', 11: 'J'}``) is written where it is indexed:
``m[k]`` is a chain of comparisons (null for a key it does not hold, as the step API's map).

``str(x)``: a text that is a whole number written plainly (``"7"``, ``"-3"``) is not in the
spec's text table: it is :data:`NUMERAL_BASE` ``+ n`` (see ``Lowering.text``), so ``str(n)`` of
a number made at run time is one addition and equals the literal ``'7'``. The numbers written
this way are those of absolute value below :data:`NUMERAL_SPAN`; larger ones do not type.

Generated code comes only from the fixed templates below; their holes are integers and the
names the lowering makes.
"""
from __future__ import annotations

import re

from ..expr.syntax import Tree
from .setzones import SET

NUMERAL_BASE = 2 ** 42
NUMERAL_SPAN = 2 ** 39
_NUMERAL = re.compile(r"-?(0|[1-9][0-9]*)")


def numeral(s: str):
    """The number a text writes plainly (``str(n) == s``, ``|n| < NUMERAL_SPAN``), or None."""
    if _NUMERAL.fullmatch(s) and s != "-0":
        n = int(s)
        if -NUMERAL_SPAN < n < NUMERAL_SPAN:
            return n
    return None


def text_of_value(v: int, texts: dict) -> str:
    """The text an ``int64`` text value stands for: ``texts`` maps table values
    (``TEXT_BASE + k``) to texts; numerals are decoded."""
    t = texts.get(v)
    if t is None and NUMERAL_BASE - NUMERAL_SPAN < v < NUMERAL_BASE + NUMERAL_SPAN:
        return str(v - NUMERAL_BASE)
    return t


class TupT(tuple):
    """The item type of a list of tuples: the parts' types, in order."""


def _not_one_value(path):
    from .lowtypes import NotTyped
    return NotTyped("a list of several values (a pair, a map) where one value is expected", path)


class TupleV:
    """A tuple value: ``parts``, a list of ``(code, type)``; ``refs`` the generated names it reads."""

    def __init__(self, parts, path="", null=None):
        from .lowtypes import _names
        self.parts, self.path = list(parts), path
        self.null = null  # a chosen option: the code true when the optional action (null) was chosen
        self.refs = _names(*(c for c, _ in self.parts), null)

    def __iter__(self):  # read as one (code, type): it is not one value
        raise _not_one_value(self.path)

    @property
    def types(self):
        return TupT(t for _, t in self.parts)


class MapV:
    """A map literal: ``entries``, a list of ``(key code, key type, (code, type))``."""

    def __init__(self, entries, path=""):
        from .lowtypes import _names
        self.entries, self.path = entries, path
        self.refs = _names(*(c for _, _, (c, _) in entries))

    def __iter__(self):
        raise _not_one_value(self.path)


def parts_of(var: str, n: int) -> list:
    """The generated names holding the ``n`` parts of the tuple bound to ``var`` (``v12`` ->
    ``v120000000``, ``v120000001``...): made from the name alone, so every loop over a list of
    tuples and its consumer agree without shared state (the lowering's counter never gets near)."""
    return [f"{var}{k:07d}" for k in range(n)]


def bind(var: str, elem, chosen=False):
    """What a name bound to an item ``var`` of type ``elem`` reads as in the environment
    (``chosen``: a choice's option, null when its optional action was chosen)."""
    if isinstance(elem, RecT):
        return bind_record(var, elem)
    if isinstance(elem, TupT):
        return TupleV(zip(parts_of(var, len(elem)), elem), null=f"({var} == NULL)" if chosen else None)
    return var, elem


def compare_null(low, t, env):
    """``x == null`` / ``x != null`` of a pair (null only as a choice's optional action), as
    ``(code, type)``; None for any other comparison."""
    from .lowtypes import BOOL, NotTyped
    a, op, b = t.children
    if str(op) not in ("==", "!="):
        return None
    sides = [x for x in (a, b) if getattr(x, "data", None) == "null"]
    if len(sides) != 1:
        return None
    other = low.e(b if sides[0] is a else a, env)
    if getattr(other, "null", None) is not None and not isinstance(other, TupleV):  # a set chosen (multichoice.py)
        return (other.null if str(op) == "==" else f"(not {other.null})"), BOOL
    if not isinstance(other, TupleV):
        return None
    if other.null is None:
        return ("0" if str(op) == "==" else "1"), BOOL  # a pair is never null
    return (other.null if str(op) == "==" else f"(not {other.null})"), BOOL


def as_tuple(low, r):
    """A list literal of single values (``ListT`` with ``items``) as a TupleV; anything else as it is."""
    if getattr(r, "alts", None) is not None:  # x if c else y of list literals (ragged.py)
        from . import ragged
        return ragged.if_tuple(low, r, TupleV, as_tuple)
    if getattr(r, "joined", None) is not None:  # xs + ys of list literals (ragged.py)
        from . import ragged
        return ragged.joined_tuple(low, r, TupleV, as_tuple)
    items = getattr(r, "items", None)
    if items is None:
        return r
    from .lowtypes import NotTyped
    if any(not isinstance(it, tuple) for it in items):
        raise NotTyped("a list of lists inside a list", low.path)
    return TupleV(items, low.path)


def item_type(low, rb):
    """The type of an item whose value is ``rb`` (a single value, a TupleV or a map literal)."""
    if isinstance(rb, TupleV):
        return rb.types
    if isinstance(rb, MapV):
        return record_type(rb)
    return rb[1]


def item_refs(rb):
    """The generated names the item's value reads."""
    from .lowtypes import _names
    return rb.refs if isinstance(rb, (TupleV, MapV)) else _names(rb[0])


def join_elem(low, a, b):
    """The item type of a list holding items of types ``a`` and ``b``, or None."""
    from .lowtypes import _join
    if isinstance(a, RecT) and isinstance(b, RecT):
        return join(a, b, low)
    return _join(a, b)


def item_loop(body_value, var, lines):
    """The lines binding ``var`` (its parts for a tuple) to ``body_value`` and running ``lines``."""
    if isinstance(body_value, MapV):
        return record_lines(body_value, var) + lines
    if isinstance(body_value, TupleV):
        return [f"{p} = {c}" for p, (c, _) in zip(parts_of(var, len(body_value.parts)), body_value.parts)] + lines
    return [f"{var} = {body_value[0]}"] + lines


def require_scalar_items(low, lst, what):
    """NotTyped when the list's items are tuples or the sets of a zone of sets (``what`` cannot take them)."""
    from .setzones import refuse_item
    refuse_item(low, lst.elem, what)
    if isinstance(lst.elem, TupT):
        from .lowtypes import NotTyped
        raise NotTyped(f"{what} of a list of lists (pairs are kept as their parts: they can be counted, "
                       f"chosen and looped over in a comprehension)", low.path)


# -- records (map literals as items of a list) ------------------------------------------
class RecT(TupT):
    """The item type of a list of records: ``(key code, key type, value type)`` in key order."""


def _sorted_entries(m: MapV):
    return sorted(m.entries, key=lambda e: int(e[0]))


def record_type(m: MapV):
    """The RecT of a map literal (its keys are constants: see compound.map_literal)."""
    return RecT((kc, kt, vt) for kc, kt, (_, vt) in _sorted_entries(m))


def record_lines(m: MapV, var):
    """Lines binding the parts of ``var`` (a record) to the values of the map literal ``m``."""
    return [f"{p} = {c}" for p, (_, _, (c, _)) in zip(parts_of(var, len(m.entries)), _sorted_entries(m))]


def join(a, b, low):
    """The record type holding both ``a`` and ``b`` (None: no type yet); NotTyped when the keys differ."""
    from .lowtypes import NotTyped, _join
    if a is None:
        return b
    if b is None:
        return a
    if [(k, t) for k, t, _ in a] != [(k, t) for k, t, _ in b]:
        raise NotTyped("a list of maps with different keys", low.path)
    out = []
    for (k, kt, va), (_, _, vb) in zip(a, b):
        v = _join(va, vb)
        if v is None:
            raise NotTyped(f"a list of maps whose values under one key are a {va} and a {vb}", low.path)
        out.append((k, kt, v))
    return RecT(out)


def bind_record(var, elem):
    """A name bound to an item of a list of records: a MapV of the parts of ``var``."""
    return MapV([(kc, kt, (p, vt)) for p, (kc, kt, vt) in zip(parts_of(var, len(elem)), elem)])


# -- comprehensions over several lists ----------------------------------------------------------
def nested_map(low, t, env):
    """``[body for a in A for b in B(a) ... where cond]`` as a ListT: the loops nest left to right
    (each list may read the names bound before it), ``where`` filters the innermost."""
    from .lowtypes import ListT, _empty_list, _indent, _names
    ch = t.children
    body, cond, clauses = ch[0], ch[-1], ch[1:-1]
    pairs = [(str(clauses[i]), clauses[i + 1]) for i in range(0, len(clauses), 2)]
    env2 = dict(env)
    srcs, names = [], []
    for var, coll in pairs:
        src = low.lst(coll, env2)
        if src.length == "0":
            return _empty_list()
        v = low.fresh("v")
        env2[var] = low.zone_list(v) if src.elem == SET else bind(v, src.elem)
        srcs.append(src)
        names.append(v)
    cond_code = low.truth(cond, env2) if cond is not None else None
    rb = as_tuple(low, low.e(body, env2))
    if isinstance(rb, ListT):
        from .lowtypes import NotTyped
        raise NotTyped("a list of lists (an item that is a list made by a comprehension)", low.path)
    elem = item_type(low, rb)
    reads = item_refs(rb)
    refs = set()
    for src in srcs:
        refs |= src.refs
    refs = (refs | reads | _names(cond_code)) - set(names)
    for v, src in zip(names, srcs):
        refs -= set(parts_of(v, len(src.elem))) if isinstance(src.elem, TupT) else set()

    def loop(var, lines):
        core = item_loop(rb, var, lines)
        if cond_code is not None:
            core = [f"if {cond_code}:"] + _indent(core)
        for v, src in reversed(list(zip(names, srcs))):
            core = src.loop(v, core)
        return core
    out = ListT(elem, loop, refs=refs)
    out.nested = getattr(rb, "nested", False)  # items holding lists made here (nestedlists.py)
    return out


# -- lists of tuples written out, and `in` of a tuple ----------------------------------------------
def tuple_list(low, items):
    """A list literal whose items are all list literals of single values (``[[a, b, 2], [c, d, 1]]``)
    as a ListT of tuples (each item's parts bound in turn), or None when some item is not one.
    NotTyped when they differ in length or, at one place, in kind. A place null in every item reads
    as a number."""
    from .lowtypes import INT, NUL, ListT, NotTyped, _join
    tuples = []
    for it in items:
        t = as_tuple(low, it) if isinstance(it, ListT) and getattr(it, "items", None) is not None else it
        if not isinstance(t, TupleV) or not t.parts:
            return None
        tuples.append(t)
    if not tuples:
        return None
    types = list(tuples[0].types)
    for tv in tuples[1:]:
        if len(tv.parts) != len(types):
            from . import raggedrows  # (a list of padded tuples: raggedrows.py)
            return raggedrows.padded_list(low, tuples, TupT, TupleV, item_loop)
        for k, ty in enumerate(tv.types):
            types[k] = _join(types[k], ty)
            if types[k] is None:
                raise NotTyped("a list of lists whose items at one place are of different kinds", low.path)
    elem = TupT(INT if ty == NUL else ty for ty in types)
    refs = set()
    for tv in tuples:
        refs |= tv.refs

    def loop(var, lines):
        out = []
        for tv in tuples:
            out += item_loop(tv, var, lines)
        return out
    return ListT(elem, loop, length=str(len(tuples)), refs=refs)


def in_tuple(low, cx, tx, tv):
    """``x in t`` of a tuple ``t`` (a pair read from a list): whether some part equals x, as code."""
    from .lowtypes import NUL, _join
    tests = [f"({cx} == {c})" for c, ty in tv.parts if _join(tx, ty) is not None or NUL in (tx, ty)]
    return "(" + " or ".join(tests) + ")" if tests else "False"


def snapshot_parts(low, lst):
    """Lines copying a list of tuples into rows of TMP (one per part: a ``for`` step loops over the
    list as it was when the step began); returns ``(lines, first row, length name)``."""
    from . import nestedlists
    nestedlists.refuse(low, "a copy (a for step's)", lst.elem)
    k = len(lst.elem)
    row = low.depth
    low.depth += k
    low.max_depth = max(low.max_depth, low.depth)
    n, v = low.fresh("t"), low.fresh("v")
    store = [f"TMP[{row + j}, {n}] = {p}" for j, p in enumerate(parts_of(v, k))]
    return [f"{n} = 0"] + lst.loop(v, low.room_for(lst)(n) + store + [f"{n} += 1"]), row, n


# -- product() ---------------------------------------------------------------------------------------
def product(low, args, env):
    """``product(A, B, ...)``: the list of tuples ``[a, b, ...]`` in the order the step API's
    ``product`` lists them (the last list varying fastest), written as nested loops binding the
    parts. Its length is the product of the lists' lengths (a constant when theirs are: a choice
    over it then sizes the kernel's rows at compile time, see ``Lowering.room_for``)."""
    from ..expr.builtins import MAX_ITEMS
    from .lowtypes import ERR_INDEX, RI_ERROR, ListT, NotTyped, _empty_list, _fold, _indent
    if not args:
        raise NotTyped("product() of no lists", low.path)
    srcs = []
    for a in args:
        src = low.lst(a, env)
        require_scalar_items(low, src, "product()")
        if src.length == "0":
            return _empty_list()
        srcs.append(src)
    elem = TupT(src.elem for src in srcs)
    refs = set()
    for src in srcs:
        refs |= src.refs
    lengths = [src.length for src in srcs]
    length = None
    if all(x is not None for x in lengths):
        length = " * ".join(f"({x})" for x in lengths)
        known = _fold(length)
        length = str(known) if type(known) is int else length

    out = ListT(elem, None, length=length, refs=refs)
    out.distinct = all(_distinct(low, src) for src in srcs)  # (then every option reads differently)

    def loop(var, lines):
        core = lines
        for part, src in reversed(list(zip(parts_of(var, len(srcs)), srcs))):
            core = src.loop(part, core)
        known = _fold(length) if length is not None else None
        if type(known) is int and known <= MAX_ITEMS:
            return core
        # the step API refuses a product of more than MAX_ITEMS items: the game is flagged (error 7)
        total, n, w = low.fresh("t"), low.fresh("t"), low.fresh("v")
        size = [f"{total} = 1"]
        for src in srcs:
            size += [f"{n} = 0"] + src.loop(w, [f"{n} += 1"]) + [f"{total} *= {n}"]
        return size + [f"if {total} > {MAX_ITEMS}:", f"    RI[{RI_ERROR}] = {ERR_INDEX}",
                       f"if {total} <= {MAX_ITEMS}:"] + _indent(core)
    out.loop = loop
    return out


def _distinct(low, src) -> bool:
    """Whether the items of ``src`` read differently, as the step API writes them (ignoring
    case), by construction: a range, or a list literal of distinct constant numbers or texts."""
    from .lowtypes import TEXT, _fold
    if getattr(src, "distinct", False):
        return True
    items = getattr(src, "items", None)
    if items is None:
        return False
    values = [_fold(c) for c, _ in items]
    if any(type(v) is not int for v in values):
        return False
    if src.elem == TEXT:
        texts = {low.text(t): t for t in low.texts}
        words = [text_of_value(v, texts) for v in values]
        return None not in words and len({w.lower() for w in words}) == len(words)
    return len(set(values)) == len(values)


# -- lists joined ---------------------------------------------------------------------------------
def concat(low, a, b):
    """``xs + ys`` of two lists where they are consumed: one loop after the other."""
    from .lowtypes import ListT, NUL, NotTyped, _join
    if a.length == "0":
        return b
    if b.length == "0":
        return a
    from . import nestedlists
    nestedlists.refuse(low, "+", a.elem, b.elem)
    elem = join_elem(low, a.elem, b.elem)
    if elem is None or isinstance(elem, TupT) != isinstance(a.elem, TupT):
        from . import ragged  # lists of different shapes (ragged.py)
        found = ragged.concat(low, a, b, TupT, parts_of)
        if found is not None:
            return found
        raise NotTyped(f"+ of a list of {a.elem}s and a list of {b.elem}s", low.path)

    def loop(var, lines):
        return a.loop(var, lines) + b.loop(var, lines)
    length = f"({a.length} + {b.length})" if a.length is not None and b.length is not None else None
    return ListT(elem if elem != NUL else a.elem, loop, length=length, refs=a.refs | b.refs)


# -- indexing ----------------------------------------------------------------------------------
def _const_int(code):
    from .lowtypes import _fold
    k = _fold(code)
    return k if type(k) is int else None


def index(low, t, env):
    """``x[k]``: a part of a tuple (``k`` a constant whole number, negative from the end), or the
    value a map literal holds at ``k`` (null when it holds none). Returns ``(code, type)``, or
    None when ``x`` is neither (the caller says why it does not type)."""
    from .lowtypes import INT, BOOL, NUL, NotTyped, _join, _fold
    raw = low.e(t.children[0], env)
    obj = as_tuple(low, raw)
    if isinstance(obj, TupleV):
        kc, kt = low.scalar(t.children[1], env)
        k = _const_int(kc)
        if obj is not raw and (k is None or kt not in (INT, BOOL)):
            return None  # a list literal (of one kind) indexed at run time: not a pair (the caller says why)
        if k is None or kt not in (INT, BOOL):
            raise NotTyped("a part of a pair or list literal picked by a number known only at run time", low.path)
        n = len(obj.parts)
        if not -n <= k < n:
            raise NotTyped(f"index {k} of a list of {n}", low.path)
        from . import partread, nestedlists
        if isinstance(obj.parts[k][1], nestedlists.SubT):  # a list kept in an item (nestedlists.py)
            return nestedlists.part_list(low, obj.parts[k][0], obj.parts[k][1], parts_of)
        return partread.part(low, obj, k, env)  # (a part some items lack: checked, partread.py)
    if isinstance(obj, MapV) and hasattr(obj, "types"):  # a map of list literals (tablemaps.TableV)
        return obj.index(low, t.children[1], env)
    if isinstance(obj, MapV):
        kc, kt = low.scalar(t.children[1], env)
        known = _fold(kc)
        if known is not None:  # a constant key: the entry itself
            for ek, et, v in obj.entries:
                if _fold(ek) == known and type(_fold(ek)) is type(known) and (_join(et, kt) is not None or
                                                                               NUL in (et, kt)):
                    return v[0], (v[1] if v[1] != NUL else INT)
            return "NULL", INT
        out_t = NUL
        for _, _, (_, vt) in obj.entries:
            out_t = _join(out_t, vt)
            if out_t is None:
                raise NotTyped("a map holding values of several kinds", low.path)
        key = low.fresh("t")
        chain = "NULL"
        for ek, et, (vc, _) in reversed(obj.entries):
            if _join(et, kt) is None and NUL not in (et, kt):
                continue  # a key of another kind never matches
            chain = f"(({vc}) if {key} == {ek} else {chain})"
        if chain == "NULL":
            return "NULL", out_t
        return low.helper(env, [f"{key} = {kc}"], chain), (out_t if out_t != NUL else INT)
    return None


def map_literal(low, t, env, table_of=None):
    """``{k: v, ...}`` with constant keys (numbers or texts) and single values, as a MapV; a map
    whose values are lists is made by ``table_of(low, found)`` (tablemaps.table, passed in by the
    caller: tablemaps builds on this module)."""
    from .lowtypes import NotTyped, ListT, _fold
    found = {}  # key code -> (key type, value): the step API's map keeps the last value given for a key
    table = False  # a map of list literals (tablemaps.py)
    for pair in (c for c in t.children if c is not None):  # ({} parses with one empty child)
        if not isinstance(pair, Tree) or pair.data != "pair":
            raise NotTyped("a map literal of another form", low.path)
        kc, kt = low.scalar(pair.children[0], env)
        if _fold(kc) is None:
            raise NotTyped("a map literal whose keys are known only at run time", low.path)
        v = low.e(pair.children[1], env)
        if isinstance(v, (ListT, TupleV, MapV)):
            table = True
        found[kc] = (kt, v)
    if table:
        if table_of is None:
            raise NotTyped("a map literal holding lists or maps", low.path)
        return table_of(low, found)
    entries = [(kc, kt, v) for kc, (kt, v) in found.items()]
    return MapV(entries, low.path)


# -- str() -------------------------------------------------------------------------------------
def call_str(low, args, env):
    """``str(x)`` of a number, yes/no value, text, card or null (the step API's texts: ``7``,
    ``true``, the card's name, ``none``)."""
    from .lowtypes import INT, BOOL, TEXT, CARD, NUL, NotTyped
    if len(args) != 1:
        raise NotTyped("str with other than one argument", low.path)
    c, ty = low.scalar(args[0], env)
    none = low.text("none")
    if ty == TEXT:
        return c, TEXT
    if ty == NUL:
        return str(none), TEXT
    if ty == CARD:
        return f"(attr_get(ATTR, {low.attr_index['name']}, {c}) if {c} != NULL else {none})", TEXT
    if ty == BOOL:
        x = low.fresh("t")
        return low.helper(env, [f"{x} = {c}"],
                          f"({low.text('true')} if {x} == 1 else {low.text('false')} if {x} == 0 else {none})"), TEXT
    if ty == INT:
        x = low.fresh("t")
        return low.helper(env, [f"{x} = {c}"], f"({none} if {x} == NULL else {NUMERAL_BASE} + {x})"), TEXT
    raise NotTyped(f"str of a {ty}", low.path)


# -- choices over a list of tuples -------------------------------------------------------------
def tuple_options(low, lst, value, where_of, env_opt, as_name, offset=None, seats=1):
    """The listing of a choice whose options are a list of tuples: each option's parts into rows
    ``row..row+n-1`` of TMP (one per part), its place there into ``OPT[0]`` (``OPT[1]`` null),
    options reading the same (equal parts; cards by name) once (a list whose items differ by
    construction, ``lst.distinct``, is not searched for repeats), those passing ``where`` only.
    ``offset`` (a generated name): the places start there, so the options of the seats of a
    simultaneous choice (``seats`` of them at most) sit side by side in the rows. Returns
    ``(lines, count name, row)``; ``where_of(env)`` lowers the choice's ``where`` with the option
    bound. The rows are taken from ``low.depth`` (the caller gives them back after the pick)."""
    from .lowtypes import CARD, _indent
    from . import nestedlists
    nestedlists.refuse(low, "a choice", lst.elem)
    n_parts = len(lst.elem)
    row = low.depth
    low.depth += n_parts
    low.max_depth = max(low.max_depth, low.depth)
    n, j, dup, x = (low.fresh("t") for _ in range(4))
    env_opt[as_name] = bind(value, lst.elem)
    where = where_of(env_opt)
    xs = parts_of(x, n_parts)
    vs = parts_of(value, n_parts)
    at = n if offset is None else f"{offset} + {n}"

    def same(k):
        a, b = f"TMP[{row + k}, {j if offset is None else f'{offset} + {j}'}]", xs[k]
        if lst.elem[k] == CARD:
            return f"card_get(ATTR[{low.name_id_row}], {a}) == card_get(ATTR[{low.name_id_row}], {b})"
        return f"{a} == {b}"
    body = [f"{vs[k]} = {xs[k]}" for k in range(n_parts)]
    keep = where
    if not getattr(lst, "distinct", False):
        test = " and ".join(same(k) for k in range(n_parts))
        body = [f"{dup} = False", f"for {j} in range({n}):", f"    if {test}:", f"        {dup} = True"] + body
        keep = f"not {dup} and {where}"
    store = [f"TMP[{row + k}, {at}] = {xs[k]}" for k in range(n_parts)]
    body += [f"if {keep}:"] + _indent(low.room_for(lst, seats)(at) + store +
                                      [f"OPT[0, {n}] = {at}", f"OPT[1, {n}] = NULL", f"{n} += 1"])
    return [f"{n} = 0"] + lst.loop(x, body), n, row


def bind_chosen(value, elem, row):
    """The lines reading the parts of the chosen option (its place in ``value``) out of TMP (all
    null when the optional action was chosen)."""
    return [f"{p} = TMP[{row + k}, {value}] if {value} != NULL else NULL"
            for k, p in enumerate(parts_of(value, len(elem)))]


def option_text_maker(verb, elem, texts, names, null, none_text="none"):
    """The step API's text of a tuple option (``ask 1 A``), from the rows of TMP holding its
    parts: ``make(tmp, row, v)`` (``null``: the kernel's null)."""
    from .lowtypes import BOOL, CARD, TEXT, TEXT_BASE
    from . import ragged
    NULL = null

    def word(x, ty):
        if x == NULL:
            return none_text
        if x == ragged.ABSENT:  # a place this item lacks (ragged.py)
            return None
        ty = ragged.base(ty)
        if ty == ragged.MIX:
            ty = TEXT if x >= TEXT_BASE else None
        if ty == TEXT:
            return text_of_value(x, texts)
        if ty == CARD:
            return names[x]
        if ty == BOOL:
            return "yes" if x else "no"
        return str(x)

    def make(tmp, row, v):
        words = [word(int(tmp[row + k, v]), ty) for k, ty in enumerate(elem)]
        return " ".join([verb] + [w for w in words if w is not None])
    return make
