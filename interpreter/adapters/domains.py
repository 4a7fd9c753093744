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

This module holds the walk of the steps; the abstract values are in :mod:`.domain_lattice` (re-exported
here), the walk's expression evaluators and built-ins are the mixins of :mod:`.domain_exprs` and
:mod:`.domain_builtins`.
"""
from __future__ import annotations

from ..errors import RulebookError
from ..expr.compiler import parse
from ..spec.compile import _DEFINE_KEY
from .domain_builtins import _Builtins
from .domain_exprs import _Exprs
from .domain_lattice import (BOOL, BOT, INF, MAX_ALTS, MAX_CONSTS, MAX_PASSES, NULL, TOP, A,  # noqa: F401
                             _alt_elem, _join_lists, const, elem, join, maxlen, num, seq, tup, words)


def _named(mapping) -> dict:
    """``{name: (parameters, value, key)}`` of a ``define`` or ``phases`` mapping (keys ``name`` or
    ``name(a, b)``; malformed keys, which the compiler reports, are left out)."""
    out = {}
    for key, value in (mapping or {}).items():
        m = _DEFINE_KEY.match(str(key))
        if m:
            out[m.group(1)] = ([p.strip() for p in (m.group(2) or "").split(",") if p.strip()], value, key)
    return out


class _Walk(_Exprs, _Builtins):
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
