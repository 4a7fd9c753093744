"""The expression evaluators of the abstract walk of :mod:`.domains`: a mixin of
:class:`~interpreter.adapters.domains._Walk` with ``ev`` and one ``e_<rule>`` method per expression
node kind (each returns the :class:`~interpreter.adapters.domain_lattice.A` of every value the node
could take), the operators, comprehensions, and the refinement of a variable's domain by a
condition.

Split out of :mod:`.domains` (issue 34).
"""
from __future__ import annotations

import math

from ..expr.compiler import parse
from ..expr.syntax import Tree
from .domain_lattice import (BOOL, BOT, INF, MAX_CONSTS, NULL, TOP, A, _alt_elem, const, elem, join, maxlen, num,
                             seq, tup)


class _Exprs:
    """Expression evaluators of :class:`~interpreter.adapters.domains._Walk` (a mixin: uses the
    walk's ``game``, ``n``, ``seats``, variables, zones, ``defines`` and ``memo``)."""

    # -- expressions --------------------------------------------------------------------------
    def ev_text(self, text, env) -> A:
        if isinstance(text, bool) or text is None:
            return const(text)
        if isinstance(text, (int, float)):
            return const(text)
        if isinstance(text, list):
            return tup([self.ev_text(x, env) for x in text])
        if isinstance(text, dict):
            return A(fields=tuple(sorted((str(k), self.ev_text(x, env)) for k, x in text.items())))
        return self.ev(parse(str(text)), env)

    def ev(self, t, env) -> A:
        if not isinstance(t, Tree):
            return TOP
        return getattr(self, "e_" + t.data, self.e_unknown)(t, env)

    def e_unknown(self, t, env):
        return TOP

    def e_number(self, t, env):
        s = str(t.children[0])
        return const(float(s) if "." in s else int(s))

    def e_string(self, t, env):
        return const(str(t.children[0])[1:-1])

    def e_true(self, t, env):
        return const(True)

    def e_false(self, t, env):
        return const(False)

    def e_null(self, t, env):
        return NULL

    def e_name(self, t, env):
        name = str(t.children[0])
        if name in env:
            return env[name]
        if name in self.gvars:
            return self.gvars[name]
        if name == "players":
            return seq(self.seats, self.n)
        if name == "num_players":
            return num(self.n)
        if name == "options":
            return self.options
        if name in self.defines and not self.params[name]:
            return self.call_define(name, ())
        if name in self.zones:
            return self.zone_cards(name)
        return TOP

    def call_define(self, name, args):
        key = (name, args)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = TOP  # a recursive definition: unknown
        env = dict(zip(self.params[name], args))
        out = self.ev(self.defines[name], env)
        self.memo[key] = out
        return out

    def e_list_(self, t, env):
        return tup([self.ev(c, env) for c in t.children if c is not None])

    def e_dict_(self, t, env):
        fields, keys, vals = [], BOT, BOT
        known = True
        for pair in t.children:
            if pair is None:
                continue
            k, v = self.ev(pair.children[0], env), self.ev(pair.children[1], env)
            ks = list(k.consts) if not k.ints and not k.cards and not k.lists and len(k.consts) == 1 else None
            if ks is None and k.ints and k.ints[0] == k.ints[1] and not k.consts:
                ks = [k.ints[0]]
            if ks is None:
                known = False
            else:
                fields.append((str(ks[0]), v))
            keys, vals = join(keys, k), join(vals, v)
        if known:
            return A(fields=tuple(sorted(fields)))
        return A(maps=(keys, vals))

    def binop(self, op, a, b) -> A:
        if a.top or b.top:
            if op == "+" and (a.lists or b.lists):
                return join(A(lists=a.lists), A(lists=b.lists))
            return TOP
        out = BOT
        if a.ints and b.ints:
            (al, ah), (bl, bh) = a.ints, b.ints
            if op == "+":
                out = join(out, num(al + bl, ah + bh))
            elif op == "-":
                out = join(out, num(al - bh, ah - bl))
            elif op == "*":
                ps = [x * y for x in (al, ah) for y in (bl, bh) if not (math.isinf(x) and y == 0 or math.isinf(y) and x == 0)]
                out = join(out, num(min(ps, default=0), max(ps, default=0)))
            elif op in ("//", "/") and bh >= 1 and bl >= 0:  # (a division by zero stops the game)
                bl = max(bl, 1)
                ps = [x / y for x in (al, ah) for y in (bl, bh) if not (math.isinf(x) and math.isinf(y))]
                lo, hi = min(ps), max(ps)
                out = join(out, num(math.floor(lo) if not math.isinf(lo) else lo, math.ceil(hi) if not math.isinf(hi) else hi))
            elif op == "%" and bl > 0:
                out = join(out, num(0, bh - 1))
            else:
                out = join(out, num(-INF, INF))
        if op == "+":
            if a.consts and b.consts:
                strs = {x + y for x in a.consts for y in b.consts if isinstance(x, str) and isinstance(y, str)}
                if len(strs) > MAX_CONSTS:
                    return TOP
                out = join(out, A(consts=frozenset(strs)))
            if a.lists or b.lists:
                out = join(out, self.concat(a, b))
        return out

    def concat(self, a, b) -> A:
        alts = []
        for x in a.lists or (("tup", ()),):
            for y in b.lists or (("tup", ()),):
                if x[0] == "tup" and y[0] == "tup":
                    alts.append(("tup", x[1] + y[1]))
                else:
                    alts.append(("seq", join(_alt_elem(x), _alt_elem(y)),
                                 (len(x[1]) if x[0] == "tup" else x[2]) + (len(y[1]) if y[0] == "tup" else y[2])))
        out = BOT
        for alt in alts:
            out = join(out, A(lists=(alt,)))
        return out

    def e_binop(self, t, env):
        a, op, b = t.children
        return self.binop(str(op), self.ev(a, env), self.ev(b, env))

    def e_neg(self, t, env):
        return self.binop("-", num(0), self.ev(t.children[0], env))

    def e_compare(self, t, env):
        return BOOL

    e_in_ = e_not_in = e_not_ = e_compare

    def e_and_(self, t, env):
        return join(BOOL, join(self.ev(t.children[0], env), self.ev(t.children[1], env)))

    e_or_ = e_and_

    def e_ifelse(self, t, env):
        then, cond, other = t.children
        yes, no = dict(env), dict(env)
        self.refine(cond, yes)
        self.refine_not(cond, no)
        return join(self.ev(then, yes), self.ev(other, no))

    def refine_not(self, cond, env):
        """Narrow names in ``env`` by ``cond`` being false: ``x == null`` false (also in an
        ``or``) takes null out of ``x``."""
        if not isinstance(cond, Tree):
            return
        if cond.data == "or_":
            for c in cond.children:
                self.refine_not(c, env)
        elif cond.data == "compare" and str(cond.children[1]) == "==":
            for a, b in ((cond.children[0], cond.children[2]), (cond.children[2], cond.children[0])):
                if isinstance(a, Tree) and a.data == "name" and isinstance(b, Tree) and b.data == "null" \
                        and str(a.children[0]) in env:
                    cur = env[str(a.children[0])]
                    env[str(a.children[0])] = A(cur.ints, cur.consts - {None}, cur.cards, cur.lists, cur.maps,
                                                cur.fields, cur.top)

    def e_let_expr(self, t, env):
        name, value, body = t.children
        inner = dict(env)
        inner[str(name)] = self.ev(value, env)
        return self.ev(body, inner)

    def comp(self, body, pairs, cond, env):
        inner = dict(env)
        length = 1
        for var, src in pairs:
            s = self.ev(src, inner)
            inner[str(var)] = elem(s)
            length *= maxlen(s)
        if cond is not None:
            self.refine(cond, inner)
        return seq(self.ev(body, inner), length)

    _FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}

    def refine(self, cond, env):
        """Narrow the whole-number range of a name bound in ``env`` by a ``where`` condition made
        of comparisons with a bound (``b >= 0 and b <= limit``), joined by ``and``."""
        if not isinstance(cond, Tree):
            return
        if cond.data == "and_":
            for c in cond.children:
                self.refine(c, env)
            return
        if cond.data != "compare":
            return
        left, op, right = cond.children
        op = str(op)
        for a, b, o in ((left, right, op), (right, left, self._FLIP[op])):
            if o == "!=" and isinstance(a, Tree) and a.data == "name" and isinstance(b, Tree) and b.data == "null":
                self.refine_not(Tree("compare", [a, "==", b]), env)
                continue
            if isinstance(a, Tree) and a.data == "name" and str(a.children[0]) in env:
                name = str(a.children[0])
                cur, other = env[name], self.ev(b, env)
                if not cur.ints or not other.ints or cur.top:
                    continue
                lo, hi = cur.ints
                olo, ohi = other.ints
                if o in (">=", ">"):
                    lo = max(lo, olo + (1 if o == ">" else 0))
                elif o in ("<=", "<"):
                    hi = min(hi, ohi - (1 if o == "<" else 0))
                elif o == "==":
                    lo, hi = max(lo, olo), min(hi, ohi)
                ints = (lo, hi) if lo <= hi else None
                env[name] = A(ints, cur.consts - ({None} if o != "!=" else set()), cur.cards, cur.lists,
                              cur.maps, cur.fields)

    def e_map_(self, t, env):
        body, var, src, cond = t.children
        return self.comp(body, [(var, src)], cond, env)

    def e_nested_map_(self, t, env):
        body, *rest = t.children  # NAME, source pairs, then the where slot (None without one)
        cond = rest.pop() if len(rest) % 2 else None
        return self.comp(body, list(zip(rest[::2], rest[1::2])), cond, env)

    def e_filter_(self, t, env):
        var, src, cond = t.children
        s = self.ev(src, env)
        inner = dict(env)
        inner[str(var)] = elem(s)
        self.refine(cond, inner)
        return seq(inner[str(var)], maxlen(s))

    def e_attr(self, t, env):
        obj, name = t.children
        name = str(name)
        o = self.ev(obj, env)
        out = BOT
        if o.fields:
            out = join(out, dict(o.fields).get(name, NULL))
        if o.cards:
            if name == "name":
                out = join(out, A(consts=frozenset(self.game.cards[i].name for i in o.cards)))
            elif name == "id":
                out = join(out, num(0, len(self.game.cards) - 1))
            elif name == "owner":
                out = join(out, join(self.seats, NULL))
            else:
                out = join(out, self.attrs.get(name, NULL))
        if o.ints or o.top or (not o.fields and not o.cards):
            if name in self.pvars:
                out = join(out, self.pvars[name])
            elif name in self.zones:
                out = join(out, self.zone_cards(name))
            elif not o.fields and not o.cards:
                out = join(out, TOP)
        return out

    def e_index(self, t, env):
        obj, key = t.children
        o, k = self.ev(obj, env), self.ev(key, env)
        if o.top:
            return TOP
        out = BOT
        for alt in o.lists:
            if alt[0] == "tup" and k.ints and k.ints[0] == k.ints[1] and not math.isinf(k.ints[0]):
                i = int(k.ints[0])
                out = join(out, alt[1][i] if -len(alt[1]) <= i < len(alt[1]) else NULL)
            else:
                out = join(out, join(_alt_elem(alt), NULL))
        if o.maps:
            out = join(out, join(o.maps[1], NULL))
        if o.fields:
            fs = dict(o.fields)
            if len(k.consts) >= 1 and not k.ints:
                for c in k.consts:
                    out = join(out, fs.get(str(c), NULL))
            else:
                for v in fs.values():
                    out = join(out, v)
                out = join(out, NULL)
        if o.consts and not (o.lists or o.maps or o.fields):
            return TOP
        return out

    def e_slice(self, t, env):
        o = self.ev(t.children[0], env)
        return seq(elem(o), maxlen(o)) if o.lists else o

    def e_lambda_(self, t, env):
        return TOP

    def e_call(self, t, env):
        name = str(t.children[0])
        arg_trees = [c for c in t.children[1:] if c is not None]
        if name in self.defines:
            args = tuple(self.ev(a, env) for a in arg_trees)
            return self.call_define(name, args)
        args = [self.ev(a, env) if not (isinstance(a, Tree) and a.data == "lambda_") else TOP for a in arg_trees]
        if name == "group_by" and len(arg_trees) == 2 and isinstance(arg_trees[1], Tree) \
                and arg_trees[1].data == "lambda_":
            # {key of each item: the items with that key}: the key is the lambda on one item
            param, body = arg_trees[1].children
            keys = self.ev(body, {**env, str(param): elem(args[0])})
            return A(maps=(keys, seq(elem(args[0]), maxlen(args[0]))))
        fn = getattr(self, "b_" + name, None)
        return fn(*args) if fn is not None else TOP

