"""The domain of every choice of a spec, found from the spec's text alone (no game is played).

:func:`choice_domains` walks the spec (flow, phases, define) with an *abstract interpreter*: every
expression is evaluated to an :class:`A`, a finite description of all the values it could take in
any game of these options and player count. An ``A`` is the union of: a range of whole numbers
(``ints``, ends may be infinite), a set of other plain values (``consts``: texts, booleans,
``null``), a set of cards (``cards``, ids), lists (``lists``: alternatives, each a tuple of known
length with one ``A`` per item, or a sequence of one ``A`` of at most ``maxlen`` items), maps
(``maps``: key and value ``A``, or fixed fields) and ``top`` (nothing known). Variables are the
union of everything assigned to them anywhere (``set``, ``add``, ``random``, their initial value),
found by walking the whole spec until nothing grows (numbers that keep growing are widened to an
open range). Seats are numbers ``0..n-1``; a player's variable or zone is read from any value (every
seat shares one domain per variable).

The walk keeps, for each ``Choose`` instruction's spec path, the ``A`` of one option (the item of
its options list); :func:`words` turns it into the sets of words its texts are made of. This is an
over-approximation: every text a game can offer is covered, some may never be offered. Where the
walk knows nothing (``top``) and the value reaches an option, :func:`words` says so and
:class:`~interpreter.adapters.spaces.Spaces` reports the choice instead of guessing.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import RulebookError
from ..expr.compiler import parse
from ..expr.syntax import Tree
from ..spec.compile import _DEFINE_KEY

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


def _named(mapping) -> dict:
    """``{name: (parameters, value, key)}`` of a ``define`` or ``phases`` mapping (keys ``name`` or
    ``name(a, b)``; malformed keys, which the compiler reports, are left out)."""
    out = {}
    for key, value in (mapping or {}).items():
        m = _DEFINE_KEY.match(str(key))
        if m:
            out[m.group(1)] = ([p.strip() for p in (m.group(2) or "").split(",") if p.strip()], value, key)
    return out


class _Walk:
    """One abstract walk of a spec for ``game`` and ``n`` seats (see :func:`choice_domains`)."""

    def __init__(self, game, n):
        self.game, self.n = game, n
        spec = game.spec
        self.cards = game.cards_in_play(n)
        self.ncards = len(self.cards)
        self.seats = num(0, n - 1)
        defines = _named(spec.get("define"))
        self.defines = {name: parse(str(body)) for name, (_, body, _) in defines.items()}
        self.params = {name: params for name, (params, _, _) in defines.items()}
        phases = _named(spec.get("phases"))
        self.phases = {name: (key, steps) for name, (_, steps, key) in phases.items()}
        self.phase_params = {name: params for name, (params, _, _) in phases.items()}
        self.gvars = {k: const(v) for k, v in (spec.get("variables") or {}).items()}
        self.pvars = {k: const(v) for k, v in ((spec.get("player_variables") or {}) | (spec.get("team_variables") or {})).items()}
        self.args = {name: {p: BOT for p in ps} for name, ps in self.phase_params.items()}
        self.initial = (dict(self.gvars), dict(self.pvars), {k: dict(v) for k, v in self.args.items()})
        self.gw, self.pw, self.aw = self.gvars, self.pvars, self.args  # where assignments go
        self.zones = game.zones
        self.attrs = {}
        everywhere = None  # the attributes every card has (others may read null)
        for cid in self.cards:
            keys = set(game.cards[cid].attrs)
            everywhere = keys if everywhere is None else everywhere & keys
            c = game.cards[cid]
            for k, v in c.attrs.items():
                self.attrs[k] = join(self.attrs.get(k, BOT), const(v))
            for mode_attrs in (c.modes or {}).values():
                for k, v in (mode_attrs or {}).items() if isinstance(mode_attrs, dict) else ():
                    self.attrs[k] = join(self.attrs.get(k, BOT), const(v))
        for k in self.attrs:
            if k not in (everywhere or ()):
                self.attrs[k] = join(self.attrs[k], NULL)
        for k in (game.spec.get("derived") or {}):  # a value of the State: nothing is known of it
            self.attrs[str(k)] = TOP
        self.options = const(dict(game.options))
        self.domains = {}   # Choose spec path -> A of one option
        self.bounds = {}    # (Choose spec path, "min" | "max") -> A of a set choice's size bound
        self.max_chance_outcomes = 1
        self.widen = False
        self.changed = False
        self.memo = {}

    # -- variables ----------------------------------------------------------------------------
    def assign(self, table, name, value):
        old = table.get(name, BOT)
        new = join(old, value, self.widen)
        if new != old:
            table[name] = new
            self.changed = True

    def zone_cards(self, name) -> A:
        z = self.zones[name]
        whole = seq(A(cards=frozenset(self.cards)), self.ncards)
        return seq(whole, self.ncards) if z.sets else whole

    # -- steps --------------------------------------------------------------------------------
    def run(self):
        spec = self.game.spec
        self.block(spec.get("flow") or [], ("flow",), {})
        for name, (key, steps) in self.phases.items():
            env = {p: self.seats if v == BOT else v for p, v in self.args[name].items()}  # never called: any seat
            self.block(steps or [], ("phases", key), env)

    def block(self, steps, path, env):
        if not isinstance(steps, list):
            return
        for i, step in enumerate(steps):
            if isinstance(step, dict):
                self.step(step, path + (i,), env)

    def step(self, s, path, env):
        if "set" in s or "add" in s or "random" in s:
            key = "set" if "set" in s else "add" if "add" in s else "random"
            for target, text in (s[key] or {}).items():
                v = self.ev_text(text, env)
                if key == "random":
                    self.max_chance_outcomes = max(self.max_chance_outcomes, maxlen(v))
                    v = elem(v)
                elif key == "add":
                    v = self.binop("+", self.ev_text(str(target), env), v)
                self.store(parse(str(target)), v, env)
        elif "phase" in s:
            name = s["phase"]
            for p, text in (s.get("args") or {}).items():
                if name in self.aw:
                    self.assign(self.aw[name], p, self.ev_text(text, env))
        elif "for" in s:
            inner = dict(env)
            inner[str(s["for"])] = elem(self.ev_text(s.get("in", "[]"), env))
            self.block(s.get("do"), path + ("do",), inner)
            self.merge_back(env, inner)
        elif "repeat" in s:
            inner = dict(env)
            if s.get("as"):
                inner[str(s["as"])] = elem(self.ev_text(s["repeat"], env))
            self.block(s.get("do"), path + ("do",), inner)
            self.merge_back(env, inner)
        elif "while" in s:
            self.block(s.get("do"), path + ("do",), env)
        elif "if" in s:
            self.block(s.get("then"), path + ("then",), env)
            self.block(s.get("else"), path + ("else",), env)
        elif "choose" in s:
            self.choose(s["choose"], path, path + ("choose", "then"), env)
        elif "climb" in s:
            c = s["climb"] or {}
            inner = dict(env)
            inner[str(c.get("as", "player"))] = self.seats
            if c.get("last"):
                inner[str(c["last"])] = join(self.seats, NULL)
            tp = path + ("climb", "turn")
            self.choose(c.get("turn") or {}, tp, tp + ("then",), inner, by=str(c.get("as", "player")))
        elif "realtime" in s:
            r = s["realtime"] or {}
            inner = dict(env)
            inner[str(r.get("as", "player"))] = self.seats
            for i, a in enumerate(r.get("actions") or []):
                if isinstance(a, dict) and "choose" in a:
                    ap = path + ("realtime", "actions", i)
                    self.choose(a["choose"], ap, ap + ("choose", "then"), inner, by=str(r.get("as", "player")))
            self.merge_back(env, inner)

    def merge_back(self, env, inner):
        for k in env:
            env[k] = join(env[k], inner[k], self.widen)

    def eval_bound(self, step, key):
        """``(lo, hi)`` of a set choice's ``min``/``max`` (None when not given; open ends when
        the spec does not bound it)."""
        if getattr(step, key) is None:
            return None
        a = self.bounds.get((step.path, key))
        return a.ints if a is not None and a.ints and not a.top else (-INF, INF)

    def choose(self, c, path, then_path, env, by=None):
        if not isinstance(c, dict):
            return
        inner = dict(env)
        inner[str(c.get("by", by or "player"))] = self.seats
        as_name = str(c.get("as", "choice"))
        if "options" in c:
            opts = self.ev_text(c["options"], inner)
            one = elem(opts)
            self.domains[path] = join(self.domains.get(path, BOT), one)
            value = one
        elif "min" in c or "max" in c:
            value = seq(A(cards=frozenset(self.cards)), self.ncards)
            for key in ("min", "max"):
                if key in c:
                    self.bounds[(path, key)] = join(self.bounds.get((path, key), BOT), self.ev_text(c[key], inner))
        else:
            value = A(cards=frozenset(self.cards))
        if c.get("optional"):
            value = join(value, NULL)
        inner[as_name] = value
        self.block(c.get("then"), then_path, inner)
        self.merge_back(env, inner)

    def store(self, tree, v, env):
        """Join ``v`` into what the target ``tree`` names: a local, a game or player variable, or
        an item of one (``covered[square]``, ``pawns[i]``: the container with ``v`` stored)."""
        if tree.data == "name":
            name = str(tree.children[0])
            if name in env:
                env[name] = join(env[name], v, self.widen)
            else:
                self.assign(self.gw, name, v)
        elif tree.data == "attr":
            self.assign(self.pw, str(tree.children[1]), v)
        elif tree.data == "index":
            container, key = tree.children
            self.store(container, self.stored(self.ev(container, env), self.ev(key, env), v), env)

    @staticmethod
    def stored(old: A, key: A, v: A) -> A:
        """The container ``old`` (lists, map, fields) after ``old[key] = v``."""
        if not (old.lists or old.maps or old.fields):
            return A(lists=(("seq", v, INF),), maps=(key, v))  # unknown so far: a list or a map
        return A(lists=tuple(("seq", join(_alt_elem(a), v), len(a[1]) if a[0] == "tup" else a[2]) for a in old.lists),
                 maps=(join(old.maps[0], key), join(old.maps[1], v)) if old.maps else None,
                 fields=tuple((k, join(x, v)) for k, x in old.fields))

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


def choice_domains(game, n: int) -> "_Walk":
    """The walk of ``game`` for ``n`` seats (see the module doc): ``domains`` (``{Choose spec path:
    A of one option}`` for every choice with ``options``), ``gvars`` and ``pvars`` (``{name: A}``),
    ``eval_bound(choose, "min" | "max")`` and ``max_chance_outcomes`` (a bound from the spec).
    Raises RulebookError when the variables' domains do not settle."""
    from ..engine.chance import DEFAULT_SAMPLES
    w = _Walk(game, n)
    for k in range(MAX_PASSES):
        w.changed = False
        w.widen = k >= 2
        w.memo = {}
        w.run()
        if not w.changed:
            break
    else:
        raise RulebookError(f"{game.file}: the domains of the spec's variables did not settle in {MAX_PASSES} walks")
    # narrowing: each variable again as the union of what is assigned to it, read from the widened
    # domains (so `min(round, count(deck) // hands)` gets its bound back after `round` was opened)
    w.widen = False
    for _ in range(2):
        g, p, a = w.initial
        w.gw, w.pw, w.aw = dict(g), dict(p), {k: dict(v) for k, v in a.items()}
        w.memo, w.domains = {}, {}
        w.run()
        w.gvars, w.pvars, w.args = w.gw, w.pw, w.aw
    w.max_chance_outcomes = max(w.max_chance_outcomes, DEFAULT_SAMPLES)
    return w
