"""Expressions in the typed kernel (:mod:`interpreter.fast.typepass`): names, literals, operators,
conditions, attributes, indexing, comprehensions and the dispatch of calls (the built-ins are in
:mod:`interpreter.fast.calls`), each lowered to a ``(code, type)`` or a :class:`~interpreter.fast.lowtypes.ListT`
written from fixed templates.

A mixin of :class:`~interpreter.fast.typepass.Lowering`."""
from __future__ import annotations

import re

from ..expr.syntax import Token
from ..expr.compiler import parse
from . import cardmeld, partread
from .lowtypes import (BOOL, CARD, EMPTY, INT, ListT, NUL, NULL, NotTyped, RI_ERROR, TEXT, _empty_list, _fold, _indent,
                       _join, _known, _names)
from . import bestmelds, compound, derived, listops, listvars, mapvars, meldlists, meldvalue, ragged, setzones, tablemaps, textsets
from .boards import calls_for as boards_calls
from .flatlists import tuple_as_list
from . import groupmaps, nestedlists, raggedrows


def _locals(code: str) -> set:
    """The generated local names (``v12``, ``t3``, ``i4``) ``code`` reads."""
    return set(re.findall(r"\b[vti][0-9]+\b", code))


class Expressions:
    """Expressions lowered (methods of :class:`~interpreter.fast.typepass.Lowering`)."""

    # -- expressions ----------------------------------------------------------------------------
    def expr(self, src, env, path=None):
        """Compile the expression text ``src`` in ``env`` (name -> (code, type) or ListT):
        ``(code, type)`` for a value, or a ListT."""
        if path is not None:
            self.path = path
        if isinstance(src, bool) or isinstance(src, int) or src is None:
            return str(self.value(src)), self.type_of_value(src)
        if isinstance(src, list):
            return self.list_literal([self.expr(x, env) for x in src])
        if not isinstance(src, str):
            raise NotTyped(f"a {type(src).__name__} where an expression is expected", self.path)
        return self.e(parse(src), env)

    def scalar(self, tree, env, r=None):
        r = self.e(tree, env) if r is None else r  # (r: the tree lowered already)
        if isinstance(r, ListT):
            raise NotTyped("a list where one value is expected (the kernel makes lists only where they "
                           "are counted, summed or looped over)", self.path)
        setzones.refuse_item(self, r[1], "a value")
        if meldlists.is_listed_meld(r[1]):
            raise NotTyped("a meld listed by melds_in() as one value (it is read as a list of cards)", self.path)
        return cardmeld.one_card(self, r, env)  # (a variable holding a card or a meld: cardmeld.py)

    def lst(self, tree, env):
        r = cardmeld.listed(self, self.e(tree, env))  # (a variable holding a card or a meld: cardmeld.py)
        if isinstance(r, tuple) and r[1] == meldvalue.MELDL:  # one meld of melds_in (meldlist.py)
            return meldvalue.as_list(self, r[0])
        r = meldlists.as_list(self, r)  # (a meld melds_in listed with wild cards: meldlists.py)
        r = tuple_as_list(self, r)  # (a pair read as a list: flatlists.py)
        if not isinstance(r, ListT):
            raise NotTyped(f"a value ({r[1]}) where a list is expected", self.path)
        return r

    def truth(self, tree, env):
        code, t = self.scalar(tree, env)
        if t == BOOL:
            return code
        if t in (CARD, TEXT):  # a card is always true; texts here are never empty (see value())
            return f"({code} != NULL)"
        return f"truthy({code})"

    def e(self, t, env):
        if isinstance(t, Token):
            raise NotTyped(f"unexpected token {t.type}", self.path)
        kind = t.data
        fn = getattr(self, "e_" + kind, None)
        if fn is None:
            raise NotTyped(f"the expression form {kind!r}", self.path)
        return fn(t, env)

    def e_number(self, t, env):
        text = str(t.children[0])
        if "." in text:
            raise NotTyped("a decimal number (the kernel computes with whole numbers)", self.path)
        return str(self.value(int(text))), INT

    def e_string(self, t, env):
        return str(self.value(str(t.children[0])[1:-1], "a text")), TEXT

    def e_true(self, t, env):
        return "1", BOOL

    def e_false(self, t, env):
        return "0", BOOL

    def e_null(self, t, env):
        return "NULL", NUL

    def e_name(self, t, env):
        name = str(t.children[0])
        if name in env:
            return env[name]
        if name == "num_players":
            return "NP", INT
        if name == "players":
            return self.range_list("0", "NP")
        if name in self.list_rows:
            return listvars.read(self, name)
        if name in self.gmaps:
            return mapvars.read_whole(self, name)
        if name in self.gvars:
            if self.gtypes.get(name) == EMPTY:
                return _empty_list()
            if name in self.const_lists:
                return self.const_list(name)
            return f"GV[{self.gvars[name]}]", _known(self.gtypes.get(name))
        if name in self.set_zones and not self.per_player[name]:
            return setzones.read(self, t, env)
        if name in self.zone_row and not self.per_player[name]:
            return self.zone_list(str(self.zone_row[name]))
        if name in self.defines:
            params, body = self.defines[name]
            if params:
                raise NotTyped(f"definition {name!r} used without its arguments", self.path)
            saved, self.printed = self.printed, None  # a definition reads derived attributes (derived.py)
            try:
                return self.e(body, {k: v for k, v in env.items() if k.startswith("$")})
            finally:
                self.printed = saved
        raise NotTyped(f"the name {name!r}", self.path)

    def zone_list(self, row_code):
        def loop(var, body):
            i = self.fresh("i")
            r = self.fresh("t")
            return [f"{r} = {row_code}", f"for {i} in range(ZN[{r}]):", f"    {var} = Z[{r}, {i}]"] + _indent(body)
        return ListT(CARD, loop, length=f"ZN[{row_code}]", zone=row_code, refs=_names(row_code))

    def range_list(self, lo, hi, elem=INT):
        def loop(var, body):
            return [f"for {var} in range({lo}, {hi}):"] + _indent(body)
        a, b = _fold(str(lo)), _fold(str(hi))
        length = str(max(0, b - a)) if type(a) is int and type(b) is int else f"max(0, ({hi}) - ({lo}))"
        out = ListT(elem, loop, length=length, refs=_names(lo, hi))
        out.distinct = elem == INT  # (whole numbers, each read once)
        return out

    def room_for(self, lst, times=1):
        """Room in the rows of TMP and OPT for ``times`` copies of ``lst`` (a list a step keeps:
        a ``for`` snapshot, a choice's options; ``times`` the seats of a simultaneous choice): a
        list whose length is a constant widens the rows to it at compile time (info["width"]);
        a zone's list fits (the rows hold every card). Returns the guard lines to put before
        each item's store, given the count so far (``guard(n)``): none when it fits by
        construction, else a check flagging error 6 (the step API then replays the game) where a
        list known only at run time would overrun the rows."""
        known = _fold(lst.length) if lst.length is not None else None
        if lst.length in ("NP", "max(0, (NP) - (0))"):  # the seats: at most the spec's most players
            known = self.maxp
        if type(known) is int:
            self.room = max(self.room, known * times + 1)  # (+1: a choice's optional action)
            return lambda n: []
        if lst.zone is not None and times == 1:
            return lambda n: []
        return lambda n: [f"if {n} >= len(TMP[0]):", f"    RI[{RI_ERROR}] = 6", "    return"]

    def list_literal(self, items):
        if any(isinstance(it, compound.MapV) for it in items):
            return listvars.record_list(self, items)
        pairs = compound.tuple_list(self, items)  # [[a, b], ...]: a list of pairs
        if pairs is not None:
            return pairs
        types = set()
        for it in items:
            if isinstance(it, ListT) or not isinstance(it, tuple):
                pairs = compound.tuple_list(self, items)  # a list of list literals: a list of tuples
                if pairs is None:
                    pairs = nestedlists.literal(self, items, compound.TupleV)  # single values and lists made at run time
                if pairs is None:
                    raise NotTyped("a list of lists (of several lengths, or made at run time)", self.path)
                return pairs
            types.add(it[1])
        elem = NUL
        for ty in types:
            elem = _join(elem, ty)
            if elem is None:  # only a pair (a tuple of parts) mixes kinds: see compound
                return compound.TupleV(items, self.path)

        def loop(var, body):
            out = []
            for code, _ in items:
                out += [f"{var} = {code}"] + body
            return out
        out = ListT(elem if elem != NUL else INT, loop, length=str(len(items)), refs=_names(*(c for c, _ in items)))
        out.items = items  # a literal: it may be read as one tuple value (see compound)
        return out

    def e_list_(self, t, env):
        return self.list_literal([cardmeld.one_card(self, self.e(c, env), env) for c in t.children if c is not None])

    def e_dict_(self, t, env):
        return compound.map_literal(self, t, env, tablemaps.table)

    def e_binop(self, t, env):
        a, op, b = t.children
        op = str(op)
        ra, rb = cardmeld.listed(self, self.e(a, env)), cardmeld.listed(self, self.e(b, env))
        ra, rb = (meldvalue.as_list(self, r[0]) if isinstance(r, tuple) and r[1] == meldvalue.MELDL else r for r in (ra, rb))
        if op == "+":
            found = ragged.tuple_plus(self, ra, rb, compound.TupleV, compound.concat)  # an option's parts (ragged.py)
            if found is not None:
                return found
        if op == "+" and isinstance(ra, ListT) and isinstance(rb, ListT):
            return compound.concat(self, ra, rb)
        if isinstance(ra, ListT) or isinstance(rb, ListT):
            raise NotTyped(f"{op} of lists (a list built up in a variable: the kernel keeps no lists)", self.path)
        if op == "+":
            found = derived.text_plus(self, ra, rb)  # texts joined (derived.py)
            if found is not None:
                return found
        ra, rb = ragged.numeric(self, ra, env), ragged.numeric(self, rb, env)  # (ragged.py)
        (ca, ta), (cb, tb) = ra, rb
        if ta not in (INT, BOOL) or tb not in (INT, BOOL):
            raise NotTyped(f"arithmetic ({op}) on a {ta if ta not in (INT, BOOL) else tb}", self.path)
        if op == "/":
            raise NotTyped("division with / (its result may be a fraction)", self.path)
        if op in ("//", "%"):
            return f"({ca} {op} {cb})", INT
        return f"({ca} {op} {cb})", INT

    def e_neg(self, t, env):
        c, ty = self.scalar(t.children[0], env)
        if ty not in (INT, BOOL):
            raise NotTyped(f"minus of a {ty}", self.path)
        return f"(-{c})", INT

    def e_compare(self, t, env):
        found = compound.compare_null(self, t, env)  # a pair (a chosen option) against null
        if found is not None:
            return found
        a, op, b = t.children
        op = str(op)
        ra, rb = self.e(a, env), self.e(b, env)
        found = cardmeld.compare(self, op, ra, rb, env)  # a variable holding a card or a meld
        if found is not None:
            return found
        found = ragged.compare_tuples(self, op, ra, rb, compound.TupleV, compound.as_tuple)  # lists as tuples
        if found is not None:
            return found
        (ca, ta), (cb, tb) = (self.scalar(x, env, r) for x, r in ((a, ra), (b, rb)))
        if op in ("==", "!="):
            if ragged.equal_types(ta, tb):  # a number or a text (ragged.py): their codes never meet
                return f"({ca} {op} {cb})", BOOL
            if _join(ta, tb) is None and NUL not in (ta, tb):
                return ("0" if op == "==" else "1"), BOOL  # values of different kinds are never equal
            return f"({ca} {op} {cb})", BOOL
        if ta not in (INT, BOOL) or tb not in (INT, BOOL):
            if ta == TEXT and tb == TEXT:
                raise NotTyped("texts compared by order", self.path)
            raise NotTyped(f"order ({op}) of a {ta} and a {tb}", self.path)
        return f"({ca} {op} {cb})", BOOL

    def e_in_(self, t, env):
        found = mapvars.contains(self, t, env)  # k in a game variable's map
        if found is not None:
            return found
        x, coll = t.children
        r = self.e(coll, env)
        if isinstance(r, ListT) and isinstance(r.elem, tuple):  # a pair in a list of pairs (nestedlists.py)
            rx = compound.as_tuple(self, self.e(x, env))
            found = nestedlists.tuple_in(self, rx, r, env, compound.parts_of) \
                if isinstance(rx, compound.TupleV) else None
            if found is not None:
                return found
        cx, tx = self.scalar(x, env)
        if isinstance(r, groupmaps.GroupV):  # x in group_by(...) held in a let name (groupmaps.py)
            return groupmaps.key_in(self, cx, tx, r, env)
        if isinstance(r, compound.TupleV):  # x in a pair
            return compound.in_tuple(self, cx, tx, r), BOOL
        lst = bestmelds.meld_list(self, coll, env)  # (or one meld's cards)
        return self.reduce_in(cx, lst, env), BOOL

    def e_not_in(self, t, env):
        code, _ = self.e_in_(t, env)
        return f"(not {code})", BOOL

    def e_not_(self, t, env):
        return f"(not {self.truth(t.children[0], env)})", BOOL

    def e_and_(self, t, env):
        a, b = t.children
        ca, ta = self.scalar(a, env)
        known = _fold(self.truth(a, env))
        if known is not None:  # `options.x and ...`: decided by the options
            return self.scalar(b, env) if known else (ca, ta)
        cb, tb = self.scalar(b, env)
        if ta == BOOL and tb == BOOL:
            return f"({ca} and {cb})", BOOL
        if _join(ta, tb) is None:
            raise NotTyped("and of values of different kinds", self.path)
        # Python's `a and b`: a if a is false, else b
        return f"(({cb}) if truthy({ca}) else ({ca}))", _join(ta, tb)

    def e_or_(self, t, env):
        a, b = t.children
        ca, ta = self.scalar(a, env)
        known = _fold(self.truth(a, env))
        if known is not None:
            return (ca, ta) if known else self.scalar(b, env)
        cb, tb = self.scalar(b, env)
        if ta == BOOL and tb == BOOL:
            return f"({ca} or {cb})", BOOL
        if _join(ta, tb) is None:
            raise NotTyped("or of values of different kinds", self.path)
        return f"(({ca}) if truthy({ca}) else ({cb}))", _join(ta, tb)

    def _item_only(self, why: str, cc: str, ra, rb, **refs) -> ListT:
        """``ra if cc else rb`` of two lists of different shapes: usable only as an item of a list
        (``alts``, read by ragged.if_tuple); read as a list, it is refused (NotTyped ``why``)."""
        def unlisted(var, body):
            raise NotTyped(why, self.path)
        out = ListT(None, unlisted, **refs)
        out.alts = (cc, ra, rb)
        return out

    def e_ifelse(self, t, env):
        a, cond, b = t.children
        cc = self.truth(cond, env)
        known = _fold(cc)
        if known is not None:  # a condition on options (or constants) only: the other side never runs
            return self.e(a if known else b, env)
        ra, rb = self.e(a, env), self.e(b, env)
        if isinstance(ra, compound.TupleV) != isinstance(rb, compound.TupleV) and \
                all(ragged.tuple_like(x) for x in (ra, rb)):  # a list of values of several kinds beside a list literal
            return self._item_only("x if c else y of lists of values of several kinds, read as a list", cc, ra, rb,
                                   refs=set(ra.refs) | set(rb.refs) | _names(cc))
        if isinstance(ra, ListT) and isinstance(rb, ListT):
            # an empty literal ([]) takes the other side's kind
            elem = rb.elem if ra.length == "0" else ra.elem if rb.length == "0" else _join(ra.elem, rb.elem)
            if elem is None and all(hasattr(x, "items") or hasattr(x, "alts") for x in (ra, rb)):
                return self._item_only("x if c else y with lists of different kinds", cc, ra, rb)
            if elem is None:
                raise NotTyped("x if c else y with lists of different kinds", self.path)
            if ra.length != "0" and rb.length != "0":
                nestedlists.refuse(self, "x if c else y", ra.elem, rb.elem)

            def loop(var, body):
                return [f"if {cc}:"] + _indent(ra.loop(var, body) or ["pass"]) + ["else:"] + \
                    _indent(rb.loop(var, body) or ["pass"])
            out = ListT(elem if elem != NUL else INT, loop, refs=ra.refs | rb.refs | _names(cc))
            if all(hasattr(x, "items") or hasattr(x, "alts") for x in (ra, rb)):
                out.alts = (cc, ra, rb)  # (as an item of a list: ragged.if_tuple)
            return out
        if isinstance(ra, ListT) or isinstance(rb, ListT):
            raise NotTyped("x if c else y with a list on one side only", self.path)
        ty = _join(ra[1], rb[1])
        if ty is None:  # a variable not typed yet beside a text or card (derived.py)
            ty = derived.joined_type(self, ra, rb)
        if ty is None:
            raise NotTyped(f"x if c else y with a {ra[1]} and a {rb[1]}", self.path)
        if self.steps and _locals(cc + ra[0] + rb[0]) <= self.scope_names(env):
            # x if c else y in a step generator: numba 0.68 may lose the type of its join (a spec's
            # "Cannot type generator: state variable types cannot be found"): in a helper, lazily
            out = self.fresh("t")
            code = self.helper(env, [f"if {cc}:", f"    {out} = {ra[0]}", "else:", f"    {out} = {rb[0]}"], out)
        else:
            code = f"(({ra[0]}) if {cc} else ({rb[0]}))"
        if ty == TEXT:  # one of the texts of either side (joins: textsets.py)
            textsets.union(self, code, ra[0], rb[0])
        return code, ty

    def e_attr(self, t, env):
        obj, name = t.children
        name = str(name)
        if obj.data == "name" and str(obj.children[0]) == "options" and "options" not in env:
            if name not in self.game.options:
                raise NotTyped(f"unknown option {name!r}", self.path)
            v = self.game.options[name]
            ty = self.type_of_value(v, f"option {name}")
            if name in self.option_slot:  # run-time data: its value is put in GV with the variables' (see _lower)
                return f"GV[{self.option_slot[name]}]", _known(ty)
            return str(self.value(v, f"option {name}")), ty
        code, ty = partread.seat(self, *self.scalar(obj, env), env)  # (a number or a text: partread.py)
        if ty == CARD:
            found = derived.read(self, name, code, env)
            if found is not None:
                return found
            if name == "played_by":
                return f"card_get(PB, {code})", INT
            if name == "mode":
                return f"card_get(MD, {code})", TEXT
            if name not in self.attr_index:
                return "NULL", NUL  # no card of this game (with these options) has it: null, as in the step API
            a = self.attr_index[name]
            if self.max_modes and a < self.n_attrs:  # a declared mode may set it (marks, as get_attr)
                return (f"attr_mode(ATTR, MD, {a}, {code}, {self.nmodes_row}, {self.max_modes}, {self.n_attrs})",
                        self.attr_types[name])
            code = f"attr_get(ATTR, {a}, {code})"
            if self.attr_types[name] == TEXT:  # one of the texts the cards hold (joins: textsets.py)
                textsets.attribute(self, code, name)
            return code, self.attr_types[name]
        if ty in (INT, BOOL):  # a seat
            if name in self.pmaps:
                self.map_read_whole(name)
            if name in self.pvars:
                if self.ptypes.get(name) == EMPTY:
                    return _empty_list()
                return f"PV[{code}, {self.pvars[name]}]", _known(self.ptypes.get(name))
            if name in self.set_zones:
                return setzones.read(self, t, env)
            if name in self.zone_row and self.per_player[name]:  # (a zone per team: the team's slot, teamzones.py)
                from . import teamzones
                return self.zone_list(f"{self.zone_row[name]} + {teamzones.seat(self, name, code, env)}")
            raise NotTyped(f"players have no variable or zone {name!r}", self.path)
        raise NotTyped(f".{name} of a {ty}", self.path)

    def e_index(self, t, env):
        if self.is_player_map(t.children[0]):
            return self.map_entry(t, env)  # (maps.py)
        if mapvars.is_game_map(self, t.children[0]):
            return mapvars.entry(self, t, env)
        found = bestmelds.index(self, t, env)  # best_melds(...)[KEY]
        if found is not None:
            return found
        found = setzones.index(self, t, env) if self.set_zones else None
        if found is None:
            found = compound.index(self, t, env)
        if found is not None:
            return found
        found = raggedrows.row(self, t, env, compound.TupT, compound.parts_of)  # a row of a list of lists
        if found is not None:
            return found
        return self.list_index(t, env)  # (teams.py)

    def e_slice(self, t, env):
        return listops.slice_list(self, t, env)

    def e_let_expr(self, t, env):
        name, value, body = t.children
        r = self.e(value, env)
        env2 = dict(env)
        env2[str(name)] = r
        return self.e(body, env2)

    def e_filter_(self, t, env):
        var, coll, cond = t.children
        src = self.lst(coll, env)
        return self.comprehension(str(var), src, None, cond, env)

    def e_map_(self, t, env):
        body, var, coll, cond = t.children
        src = self.lst(coll, env)
        return self.comprehension(str(var), src, body, cond, env)

    def e_nested_map_(self, t, env):
        return compound.nested_map(self, t, env)

    def comprehension(self, var, src, body, cond, env):
        """``[var in src where cond]`` or ``[body for var in src where cond]`` as a ListT."""
        if src.length == "0":
            return _empty_list()
        inner = self.fresh("v")
        env2 = dict(env)
        env2[var] = self.zone_list(inner) if src.elem == setzones.SET else \
            meldlists.bind(self, inner, src.elem) or compound.bind(inner, src.elem)
        if getattr(src, "part_sets", None) and isinstance(src.elem, compound.TupT):  # (texts of known sets: textsets.py)
            textsets.parts(self, compound.parts_of(inner, len(src.elem)), src.part_sets)
        cond_code = self.truth(cond, env2) if cond is not None else None
        if cond_code is not None and self.steps and _locals(cond_code) <= self.scope_names(env2):
            # in a step generator the filter is a helper's: numba 0.68 fails to type a generator whose
            # filter of a literal list it folds ("state variable types cannot be found")
            ok = self.fresh("t")
            cond_code = self.helper(env2, [f"{ok} = {cond_code}"], ok)
        if body is not None:
            rb = compound.as_tuple(self, self.e(body, env2))
            if isinstance(rb, ListT):
                raise NotTyped("a list of lists", self.path)
        else:
            rb = env2[var]
        elem = compound.item_type(self, rb)
        reads = compound.item_refs(rb)

        def loop(v, lines):
            core = compound.item_loop(rb, v, lines)
            if cond_code is not None:
                core = [f"if {cond_code}:"] + _indent(core)
            return src.loop(inner, core)
        bound = {inner} | (set(compound.parts_of(inner, len(src.elem))) if isinstance(src.elem, compound.TupT) else set())
        out = ListT(elem, loop, refs=(src.refs | reads | _names(cond_code)) - bound)
        out.nested = getattr(rb, "nested", False)  # items holding lists made here (nestedlists.py)
        return out

    def e_lambda_(self, t, env):
        raise NotTyped("a lambda outside argmax/argmin", self.path)

    # -- calls ----------------------------------------------------------------------------------
    def e_call(self, t, env):
        name = str(t.children[0])
        args = [a for a in t.children[1:] if a is not None]
        if name in self.defines:
            params, body = self.defines[name]
            if len(params) != len(args):
                raise NotTyped(f"{name} called with {len(args)} argument(s)", self.path)
            inner = {k: v for k, v in env.items() if k.startswith("$")}
            for p, a in zip(params, args):
                inner[p] = self.e(a, env)
            saved, self.printed = self.printed, None  # a definition reads derived attributes (derived.py)
            try:
                return self.e(body, inner)
            finally:
                self.printed = saved
        fn = getattr(self, "call_" + name, None) or boards_calls(self, name)  # (boards: boards.py)
        if fn is None:
            raise NotTyped(f"the built-in {name}()", self.path)
        return fn(args, env)
