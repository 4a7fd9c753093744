"""The card list of a spec: ``cards:`` entries expanded into cards (``each:`` lists, ``count:``,
``{...}`` name templates computed at load time), ``derived:`` attributes, ``melds:`` kinds and
``tables:`` of cards.

Part of the spec compiler: :class:`CardListMixin` is mixed into
:class:`~interpreter.spec.compile.SpecCompiler`.
"""
from __future__ import annotations

import difflib
import json

from ..errors import RuleError
from ..expr.compiler import CARD_BUILTIN_ATTRS, Compiler, ExprNameError, ExprSyntaxError, Names, parse
from ..model.cards import Card
from .literals import deck_values
from .positions import position_of
from .spelling import _DEFINE_KEY, _IDENT, _TEMPLATE


MAX_CARDS = 10_000


def _str_value(value) -> str:
    """A computed part of a card's name as text (null, true, false as the language writes them)."""
    if value is None or isinstance(value, bool):
        return str(value).lower() if value is not None else "null"
    return str(value)


def _guarded(name: str, fn):
    """``fn(ctx, card)`` of the derived attribute ``name``, refusing to be asked for a card's value
    while that value is being worked out (attributes that need each other): RuleError."""
    busy: set = set()

    def derived(ctx, card):
        if card.id in busy:
            busy.clear()
            raise RuleError(f"the derived attribute {name} of {card.name} needs its own value "
                            f"(derived attributes that read each other)")
        busy.add(card.id)
        try:
            return fn(ctx, card)
        finally:
            busy.discard(card.id)
    return derived


class _LazyDefines(dict):
    """``define`` name -> compiled function, each compiled when first looked up (the card
    list's compiler: it calls few definitions that it does not inline). A definition that
    does not compile here (it reads the game's state) is missing: KeyError."""

    def __init__(self, compiler, params: dict):
        super().__init__()
        self.compiler, self.params = compiler, params

    def __missing__(self, name):
        tree = self.compiler.define_trees.get(name)
        if tree is None:
            raise KeyError(name)
        try:
            fn = self[name] = self.compiler.compile_define(name, self.params[name], tree)
        except ExprNameError:
            raise KeyError(name) from None
        return fn


class _OptionsCtx:
    """The context of expressions evaluated at load time (card lists): options only."""

    def __init__(self, options):
        self.options = options
        self.bound = {}
        self.locals = {}
        self.state = None
        self.game = None
        self.memo = None
        self.hoisted = None
        self.work = 0


class CardListMixin:
    """The card list's part of :class:`~interpreter.spec.compile.SpecCompiler` (``self`` is one)."""

    def build_tables(self, cards) -> list:
        """The ``tables:`` entries compiled (see :mod:`interpreter.analysis.tables`)."""
        from ..analysis.tables import TableDef
        out = []
        by_name = {}
        for c in cards:
            by_name.setdefault(c.name, c)
        all_names = deck_values(self.data, cards).get("name")
        for i, t in enumerate(self.data.get("tables") or []):
            path = ("tables", i)
            axes = []
            for key in ("rows", "columns"):
                spec = t[key]
                name = spec["name"]
                if "cards" in spec:
                    entries = []
                    for j, text in enumerate(spec["cards"]):
                        card_name, _, mode = str(text).partition(" as ")
                        card = by_name.get(card_name.strip())
                        if card is None:
                            if all_names is not None and card_name.strip() not in all_names:
                                close = difflib.get_close_matches(card_name.strip(), sorted(all_names), n=1)
                                self.error(path + (key, "cards", j), f"there is no card named {card_name.strip()!r}",
                                           f"did you mean {close[0]!r}?" if close else "write a card's name")
                            continue  # a card these options leave out of the deck
                        mode = mode.strip() or None
                        if mode is not None and mode not in card.modes:
                            self.error(path + (key, "cards", j), f"{card.name} has no mode {mode!r}",
                                       "modes: " + (", ".join(card.modes) or "none"))
                        entries.append((card, mode))
                    axes.append((name, ("cards", entries)))
                else:
                    f = self.expr(path + (key, "values"), spec["values"])
                    axes.append((name, ("values", f)))
            (row_name, rows), (col_name, cols) = axes
            bound = {row_name, col_name, "p"}
            assigns = []
            for target, value in (t.get("set") or {}).items():
                f = self.expr(path + ("set", target), value, bound=bound)
                target = str(target)
                if target.startswith("p.") and target[2:] in self.names.player_vars:
                    assigns.append(("player", target[2:], f))
                elif target in self.names.game_vars:
                    assigns.append(("var", target, f))
                else:
                    self.error(path + ("set",), f"set: {target!r} is not a variable",
                               "write a game variable NAME or a player variable p.NAME", key=True)
            cell = self.expr(path + ("cell",), t["cell"], bound=bound)
            if None in (cell, *(f for _, _, f in assigns)) or (rows[0] == "values" and rows[1] is None) \
                    or (cols[0] == "values" and cols[1] is None):
                continue
            out.append(TableDef(str(t["title"]), " ".join(str(t.get("doc", "")).split()), row_name, col_name, rows, cols, cell,
                                assigns, path))
        return out

    def build_cards(self, options) -> list:
        out: list[Card] = []
        octx = _OptionsCtx(options)
        attrs_all = set()
        for i, entry in enumerate(self.data.get("cards") or []):
            path = ("cards", i)
            if not isinstance(entry, dict):
                continue
            if "when" in entry:
                before = len(self.diags)
                f = self.expr(path + ("when",), entry["when"])
                for i in range(before, len(self.diags)):  # say why a declared name is unknown here
                    d = self.diags[i]
                    self.diags[i] = type(d)(d.file, d.line, d.column, d.message,
                                            "a card's when: can read only options (options.NAME)", d.severity)
                try:
                    if f is not None and not f(octx):
                        attrs_all.update((entry.get("attributes") or {}).keys())
                        attrs_all.update((entry.get("each") or {}).keys())
                        continue
                except Exception as exc:  # noqa: BLE001 - report any evaluation failure
                    self.error(path + ("when",), f"cannot evaluate: {exc}")
                    continue
            combos = [{}]
            for key, values in (entry.get("each") or {}).items():
                if isinstance(values, str):
                    f = self.card_expr(path + ("each", key), values, options)
                    try:
                        values = f(octx) if f is not None else []
                    except Exception as exc:  # noqa: BLE001
                        self.error(path + ("each", key), f"cannot evaluate: {exc}")
                        values = []
                if not isinstance(values, list):
                    self.error(path + ("each", key), f"each.{key} must be a list", "e.g. [red, blue] or 'range(1, 10)'")
                    values = []
                if len(combos) * len(values) > MAX_CARDS:
                    self.error(path + ("each", key), f"more than {MAX_CARDS} cards", "a deck this large cannot be played")
                    combos = []
                    break
                combos = [dict(c, **{key: v}) for c in combos for v in values]
            if entry.get("per_player"):
                # one set per seat (the card table holds players.max sets; a game of n players
                # plays with the sets of seats 0..n-1, the others stay out of the game)
                if "owner" in (entry.get("each") or {}) or "owner" in (entry.get("attributes") or {}):
                    self.error(path, "a per_player card entry sets the attribute owner itself",
                               "remove owner from each: and attributes:", key=True)
                seats = range(int((self.data.get("players") or {}).get("max", 8)))
                combos = [dict(c, owner=s) for s in seats for c in combos]
            count = entry.get("count", 1)
            if type(count) is not int or count < 1:  # JSON Schema counts 5.0 as an integer
                self.error(path + ("count",), f"count must be a whole number of copies (1 or more), not {count!r}",
                           "e.g. count: 5")
                count = 1
            if len(combos) * (count if isinstance(count, int) else 1) + len(out) > MAX_CARDS:
                self.error(path, f"more than {MAX_CARDS} cards", "a deck this large cannot be played")
                break
            modes = entry.get("modes") or {}
            for m in modes.values():
                attrs_all.update((m or {}).keys())
            for combo in combos:
                attrs = dict(entry.get("attributes") or {})
                attrs.update(combo)
                attrs_all.update(attrs.keys())
                template = str(entry.get("name", ""))
                missing = [m.group(1) for m in _TEMPLATE.finditer(template) if m.group(1).strip() not in attrs
                           and _IDENT.match(m.group(1).strip()) and m.group(1).strip() not in self._card_defines()]
                if missing:
                    self.error(path + ("name",), f"the card name uses {{{missing[0]}}}, which is not an attribute "
                               "of these cards", "name attributes from each: or attributes:, e.g. {suit}-{rank}")
                    break
                name = self.card_name(path + ("name",), template, attrs, options)
                if name is None:
                    break
                if not name:
                    self.error(path, "a card needs a name", "add name: \"{suit}-{rank}\" or a fixed name")
                    continue
                seat = attrs["owner"] if entry.get("per_player") else None
                for _ in range(count if isinstance(count, int) else 1):
                    out.append(Card(len(out), name, attrs, {k: dict(v or {}) for k, v in modes.items()}, seat))
                    self.card_entries.append(path[1])  # (i is reused below for diagnostics)
        names_seen: dict[str, tuple] = {}
        for c in out:
            entry = ("cards", self.card_entries[c.id])
            if " as " in c.name:
                self.error(entry + ("name",), f"the card name {c.name!r} contains ' as ', which action texts use "
                           "for modes", "use another word or a hyphen")
                break
            key = tuple(sorted((str(k), repr(v)) for k, v in c.attrs.items()))  # (keys of any YAML type)
            if c.name in names_seen and names_seen[c.name][0] != key:
                first = position_of(self.positions, ("cards", names_seen[c.name][1], "name")).line
                self.error(entry + ("name",), f"two different cards are both named {c.name!r} (the other is "
                           f"made at line {first})", "give each kind of card its own name (identical copies share one)")
                names_seen[c.name] = (key, entry[1])  # each clash reported once, at the later entry
            names_seen.setdefault(c.name, (key, entry[1]))
        self.check_repeated_entries()
        self.names.card_attrs = attrs_all | {str(k) for k in (self.data.get("derived") or {})}
        return out

    def check_repeated_entries(self) -> None:
        """A card entry written twice (pasted again) puts its cards in the deck twice: a warning at
        the second, since ``count:`` is the way to say copies."""
        seen: dict = {}
        for i, entry in enumerate(self.data.get("cards") or []):
            if not isinstance(entry, dict):
                continue
            key = json.dumps(entry, sort_keys=True, default=str)
            if key in seen:
                first = position_of(self.positions, ("cards", seen[key])).line
                count = entry.get("count", 1)
                self.error(("cards", i), f"this card entry repeats the one at line {first}: its cards are in the "
                           "deck twice", f"remove it, or write count: {2 * count if isinstance(count, int) else 2} "
                           "in one entry for that many copies", severity="warning", key=True)
            else:
                seen[key] = i

    # -- load-time expressions of the card list ------------------------------------------
    def _card_defines(self) -> dict:
        """``define`` name -> parameters, read from the spec text (the card list is built
        before the definitions are compiled)."""
        out = {}
        for key in (self.data.get("define") or {}):
            m = _DEFINE_KEY.match(str(key))
            if m:
                out[m.group(1)] = [p.strip() for p in (m.group(2) or "").split(",") if p.strip()]
        return out

    def _card_compiler(self, options) -> Compiler:
        """A compiler for the card list's ``each:`` lists and ``name:`` templates: it knows the
        options and the ``define`` entries (inlined where called), nothing of the game's state."""
        comp = getattr(self, "_card_comp", None)
        if comp is not None:
            return comp
        attrs = set()
        for entry in self.data.get("cards") or []:
            if isinstance(entry, dict):
                attrs.update((entry.get("attributes") or {}).keys(), (entry.get("each") or {}).keys())
        names = Names(options=dict(options), card_attrs=attrs)
        names.used_options = self.names.used_options  # an option read by the card list is used
        comp = Compiler(names)
        defines = self._card_defines()
        names.defines.update(defines)
        for key, body in (self.data.get("define") or {}).items():
            m = _DEFINE_KEY.match(str(key))
            if not m:
                continue
            try:
                comp.define_trees[m.group(1)] = parse(body)
            except ExprSyntaxError:
                continue  # reported where the definitions are compiled
        # compiled when first called, not inlined (most calls are inlined, so most never are):
        # a definition that reads the game's state is reported where the card list uses it
        names.functions = _LazyDefines(comp, defines)
        self._card_comp = comp
        return comp

    def card_expr(self, path, text, options, bound=()):
        """Compile an expression of the card list (``each:`` lists, ``{EXPR}`` in a card's
        name): it may read options, definitions of options and (in a name) the card's
        attributes. Records a diagnostic and returns None when it cannot."""
        tree = self._parse(path, text)
        if tree is None:
            return None
        try:
            return self._card_compiler(options).compile(tree, (), bound)
        except ExprNameError as exc:
            where = f" (in define {exc.define})" if exc.define else ""
            self.error(path, exc.message + where, "the card list is built before the game starts: it can read "
                       "options, the card's own attributes and definitions that read only these")
            return None

    def card_name(self, path, template, attrs, options):
        """A card's name from its ``name:`` template: ``{suit}`` is an attribute, any other
        ``{EXPR}`` is computed (``{faces[rank]}`` with ``faces`` a map under define)."""
        out, last = [], 0
        for m in _TEMPLATE.finditer(template):
            out.append(template[last:m.start()])
            last = m.end()
            inner = m.group(1).strip()
            if inner in attrs:
                out.append(str(attrs[inner]))
                continue
            f = self.card_expr(path, inner, options, bound=tuple(attrs))
            if f is None:
                return None
            ctx = _OptionsCtx(options)
            ctx.bound = dict(attrs)
            try:
                value = f(ctx)
            except Exception as exc:  # noqa: BLE001 - report any evaluation failure
                self.error(path, f"cannot compute {{{inner}}} of the card {attrs}: {exc}")
                return None
            out.append(_str_value(value))
        out.append(template[last:])
        return "".join(out)

    def build_derived(self) -> dict:
        """The ``derived:`` card attributes compiled: name -> ``fn(ctx, card)``. In its own
        expression ``c.NAME`` is the card's printed attribute; an attribute whose value needs
        itself (through another derived attribute) is a RuleError when met."""
        from ..expr.melds import card_fn
        out = {}
        for name, text in (self.data.get("derived") or {}).items():
            name = str(name)
            path = ("derived", name)
            if name in CARD_BUILTIN_ATTRS:
                self.error(path, f"{name} is a card's own attribute and cannot be derived",
                           "give the derived attribute another name", key=True)
                continue
            self.compiler.printed = name
            try:
                fn = self.expr(path, text, bound={"c"})
            finally:
                self.compiler.printed = None
            if fn is not None:
                out[name] = _guarded(name, card_fn(fn))
        return out

    def build_melds(self) -> dict:
        """The ``melds:`` kinds compiled (name -> :class:`~interpreter.expr.melds.MeldKind`),
        each card expression an ``fn(ctx, card)`` of ``c``; problems are recorded as diagnostics."""
        from ..expr.melds import MeldKind, card_fn
        decl = self.data.get("melds") or {}
        self.names.meld_kinds = set(decl)
        out = {}
        for name, d in decl.items():
            if not isinstance(d, dict):
                continue  # the schema has said so
            path = ("melds", name)
            form = d.get("form")
            fields = {"set": ("key", "wild"), "run": ("suit", "rank", "wild")}.get(form, ())
            for other in ("key",) if form == "run" else ("suit", "rank", "ace", "ace_rank") if form == "set" else ():
                if other in d:
                    self.error(path + (other,), f"meld kind {name}: {other} is for a "
                               f"{'set' if form == 'run' else 'run'}, not a {form}",
                               f"remove {other}, or make it form: {'set' if form == 'run' else 'run'}", key=True)
            fns = {}
            for f in fields:
                text = d.get(f, {"key": "c.rank", "suit": "c.suit", "rank": "c.rank"}.get(f))
                if text is None:
                    continue
                fn = self.expr(path + (f,) if f in d else path, text, bound={"c"})
                fns[f] = card_fn(fn) if fn is not None else None
            lo, hi = d.get("min", 3), d.get("max")
            if hi is not None and hi < lo:
                self.error(path + ("max",), f"meld kind {name}: max {hi} is less than min {lo}", "swap them")
            if ("max_wild" in d or "min_natural" in d) and "wild" not in d:
                self.error(path, f"meld kind {name}: max_wild/min_natural need wild: (which cards are wild)",
                           "add wild: \"c.joker\" (an expression of the card c)", key=True)
            if any(v is None for v in fns.values()):
                continue
            out[name] = MeldKind(name=name, form=form, size=(lo, hi), key=fns.get("key"), suit=fns.get("suit"),
                                 rank=fns.get("rank"), ace=d.get("ace", "low"), ace_rank=d.get("ace_rank", 1),
                                 wild=fns.get("wild"), max_wild=d.get("max_wild"),
                                 min_natural=d.get("min_natural", 1))
        return out
