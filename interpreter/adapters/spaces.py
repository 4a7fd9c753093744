"""Fixed action ids, legal-action masks and tensors for any spec (numpy), for learning tools.

:class:`Spaces` (``Spaces(game, num_players)``) is built once per spec, options and player count,
from the spec alone: no game is played (:mod:`.domains` finds what every choice can offer).

**Action ids.** Every action text a seat could take in any game of these options and player count,
numbered once, the same in every process, seed and run (``action_table_digest`` is a hash of the
whole table). Ids are laid out in blocks:

1. *listed texts*, sorted (numbers compared as numbers): ``VERB NAME`` (``VERB NAME as MODE`` for a
   card with modes) for every card in play and every card-choosing ``choose`` step; each optional
   step's verb (``pass`` or its own); the set-choice ids below; and every value option when the
   choice has at most ``LIST_LIMIT`` texts;
2. *product blocks*, one per value choice with more texts (a board placement: pair x square x
   direction x piece): its texts are ``VERB w1 w2 ...`` with each word from a fixed, sorted set,
   numbered in mixed radix (the last word fastest), never listed one by one.

A value choice's texts come from its ``options`` expression evaluated over the domains of the
variables it reads (a bid ``range(0, num_tricks + 1)``: ``bid 0`` .. ``bid MAX`` with MAX the largest
number of tricks the spec can deal; a product of lists: every combination). The table covers every
text the rules can offer; some ids may never be legal (their mask stays 0). A choice whose options
cannot be bounded from the spec raises :class:`RulebookError` naming the choice and its line.

**Set choices** (``min``/``max``: melds, multi-card plays, exchanges) have two encodings, chosen by
``set_encoding``: ``"exact"``: one id per multiset of card names of ``min``..``max`` cards (every
legal set is one action); ``"picks"``: the set is built one card at a time, ``pick NAME`` ids then
``done`` (confirm the set picked so far) and ``undo`` (offered only when nothing else is, as
OpenSpiel's games decompose a combinatorial move); ``"auto"`` (default): exact when the choice has
at most ``max_set_actions`` sets, else picks. :meth:`Spaces.action_for` gives the engine's text
of an id in a position (``done`` is the set picked so far).

**Mask.** ``mask(state, seat)``: an ``int8`` array of shape ``(num_actions,)``, 1 for each legal id.
**Observation tensor** (``observation(state, seat)``, ``float32``, shape ``(observation_size,)``),
built only from ``state.observation(seat)`` (so it holds nothing the seat may not see), seats counted
from the observer (relative seat 0 is the observer, 1 the next seat clockwise...), in sections
(``sections`` lists ``(name, size)``):

- ``zones``: for each place (a zone, or a per-player zone of each relative seat) and each distinct
  card name, how many such cards it visibly holds (a hidden zone: only the cards a ``show`` step let
  the seat see); shape ``(places, names)``;
- ``sizes``: each place's number of cards (public for every zone); shape ``(places,)``;
- ``vars``: game and player variables (player variables by relative seat), flattened: a number or
  boolean is one value; a text or card is one-hot over the texts the variable can hold (found from
  the spec, as the action ids); a list is its length and the counts of the texts in it; a map with
  known keys is flattened by key; ``null`` is all zeros;
- ``turn``: who must act (relative seats), whether it is a chance node, terminal, and which seats
  have already committed a secret choice;
- ``phase``: the phases on the control stack (multi-hot over the spec's phases);
- ``seat``: the observer's absolute seat (one-hot);
- ``picked``: the cards the observer has picked so far in a set choice built card by card (counts
  per card name).

**Information-state tensor** (``information_state(state, seat)``): the observation tensor followed
by the action history as the seat may know it (``interpreter.view.history_for``), one section per
relative seat of ``history_size`` counts: how many times that seat took each listed id, then, for
each product block, how many times each word of each of its positions was taken (a placement
counts once for its pair, once for its square...: the block's words, not its millions of
combinations); shape ``(observation_size + num_players * history_size,)``, with ``history_size``
equal to ``num_actions`` when the spec has no product block. Order inside the history is not kept,
nor (for a product block) which words went together: documented simplifications.
"""
from __future__ import annotations

import random
import re

import numpy as np

from ..errors import RulebookError


def _natural(text: str):
    """Sort key: numbers inside a text compared as numbers, then the text itself (so texts that
    read alike, ``a01`` and ``a1``, still sort the same way in every process)."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in _DIGITS.split(text) if t], text


_DIGITS = re.compile(r"(\d+)")


def _names_in(v, out: list) -> None:
    """Card names in an observed zone (names, {"card": name, ...} entries, or sets of them)."""
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, dict) and "card" in v:
        out.append(v["card"])
    elif isinstance(v, list):
        for x in v:
            _names_in(x, out)


LIST_LIMIT = 20_000       # a value choice with more texts than this is a product block (not listed)
MAX_SET_ACTIONS = 10_000  # set_encoding="auto": exact when a set choice has at most this many sets
DONE, UNDO, PICK = "done", "undo", "pick"


class _Block:
    """Ids ``offset .. offset + size - 1``: the texts ``prefix w1 w2 ...`` with word ``k`` from
    ``words[k]`` (sorted), in mixed radix (the last word varies fastest)."""

    def __init__(self, prefix, words, offset):
        self.prefix, self.words, self.offset = prefix, [list(w) for w in words], offset
        self.index = [{w: j for j, w in enumerate(ws)} for ws in self.words]
        self.sizes = [len(w) for w in self.words]
        self.size = 1
        for n in self.sizes:
            self.size *= n

    def text(self, i):
        picks = []
        for n in reversed(self.sizes):
            i, j = divmod(i, n)
            picks.append(j)
        return " ".join([self.prefix] + [ws[j] for ws, j in zip(self.words, reversed(picks))])

    def find(self, parts):
        if len(parts) != len(self.sizes):
            return None
        i = 0
        for w, table, n in zip(parts, self.index, self.sizes):
            j = table.get(w)
            if j is None:
                return None
            i = i * n + j
        return self.offset + i


class ActionTable:
    """The action ids as a read-only sequence of texts (``len``, ``[id]``, iteration) and the
    look-up ``get(text)``/``in`` (see the module doc). Product blocks are never listed whole."""

    def __init__(self, texts, blocks):
        self.texts, self.blocks = texts, []
        self.ids = {t: i for i, t in enumerate(texts)}
        offset = len(texts)
        for prefix, words in blocks:
            b = _Block(prefix, words, offset)
            self.blocks.append(b)
            offset += b.size
        self.size = offset

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        if not 0 <= i < self.size:
            raise IndexError(i)
        if i < len(self.texts):
            return self.texts[i]
        for b in self.blocks:
            if i < b.offset + b.size:
                return b.text(i - b.offset)

    def __iter__(self):
        for i in range(self.size):
            yield self[i]

    def get(self, text, default=None):
        i = self.ids.get(text)
        if i is not None:
            return i
        parts = text.split(" ")
        for b in self.blocks:
            if parts[0] == b.prefix:
                i = b.find(parts[1:])
                if i is not None:
                    return i
        return default

    def __contains__(self, text):
        return self.get(text) is not None

    def digest(self) -> str:
        """A hash of the whole table (its texts in order), equal in every process."""
        import hashlib
        h = hashlib.sha256()
        for t in self.texts:
            h.update(t.encode() + b"\n")
        for b in self.blocks:
            h.update(repr((b.prefix, b.words)).encode())
        return h.hexdigest()


def _count_multisets(counts, lo, hi, cap):
    """How many multisets of ``lo..hi`` items there are, ``counts[k]`` copies of kind ``k``
    (stops counting past ``cap``)."""
    ways = [1] + [0] * hi  # ways[s]: multisets of size s from the kinds seen so far
    for c in counts:
        new = [0] * (hi + 1)
        for s, w in enumerate(ways):
            if w:
                for k in range(min(c, hi - s) + 1):
                    new[s + k] = min(cap + 1, new[s + k] + w)
        ways = new
    return min(cap + 1, sum(ways[lo:hi + 1]))


class Spaces:
    """Action ids, masks and tensors of ``game`` for ``num_players`` (see the module doc).

    ``set_encoding`` is ``"auto"``, ``"exact"`` or ``"picks"`` (set choices, see the module doc);
    ``max_set_actions`` the most sets ``"auto"`` lists exactly. ``discovery`` random games are
    played only if :attr:`max_length` is read (OpenSpiel's bound on a game's length; nothing else
    is sampled). Raises :class:`RulebookError` when a choice's options cannot be bounded from the
    spec, or (``"exact"``) a set choice has more than ``max_set_actions`` sets.

    Attributes: ``actions`` (:class:`ActionTable`: texts by id), ``num_actions``,
    ``set_modes`` (spec path of each set choice -> ``"exact"`` or ``"picks"``),
    ``observation_size``, ``information_state_size``, ``history_size`` (one seat's section of the
    information state's history), ``sections`` (list of ``(name, size)``),
    ``max_chance_outcomes`` (a bound from the spec) and ``max_length`` (lazy, see above)."""

    def __init__(self, game, num_players: int, set_encoding: str = "auto",
                 max_set_actions: int = MAX_SET_ACTIONS, discovery: int = 2, seed: int = 0):
        if set_encoding not in ("auto", "exact", "picks"):
            raise RulebookError(f"set_encoding is 'auto', 'exact' or 'picks', not {set_encoding!r}")
        from .domains import choice_domains
        self.game, self.num_players = game, num_players
        self.discovery, self.seed = discovery, seed
        cards = [game.cards[i] for i in game.cards_in_play(num_players)]
        self.names = sorted({c.name for c in cards}, key=_natural)
        walk = choice_domains(game, num_players)
        self.set_modes, self._set_verbs = {}, set()
        texts, blocks = set(), {}
        self._choice_texts(walk, cards, texts, blocks, set_encoding, max_set_actions)
        for prefix, shape in list(blocks):
            table = ActionTable([], [(prefix, shape)])
            texts -= {t for t in texts if t in table}  # a listed text inside a block: one id only
        self.actions = ActionTable(sorted(texts, key=_natural),
                                   sorted(blocks, key=lambda k: (k[0], [sorted(w) for w in k[1]])))
        self.ids = self.actions
        self.num_actions = len(self.actions)
        self.action_table_digest = self.actions.digest()
        self._name_order = {nm: i for i, nm in enumerate(self.names)}
        self._exact_verbs = {st_action for st_action, mode in self._set_verbs if mode == "exact"}
        self._done = self.actions.get(DONE)
        self._undo = self.actions.get(UNDO)
        self.max_chance_outcomes = walk.max_chance_outcomes
        self._paths = {}
        for name, a in walk.gvars.items():
            self._static_paths(("v", name), a)
        for name, a in walk.pvars.items():
            self._static_paths(("p", name), a)
        self._layout()

    # -- the action ids, from the spec ---------------------------------------------------------
    def _choice_texts(self, walk, cards, texts, blocks, set_encoding, max_set_actions):
        from ..engine.program import Choose
        from .domains import TOP, words
        game = self.game
        for prog in game.programs.values():
            for instr in prog:
                for step in [instr] + list(getattr(instr, "alts", None) or []):
                    if not isinstance(step, Choose):
                        continue
                    where = f"{game.file}:{game.position(step.path).line}"
                    if step.optional:
                        texts.add(step.optional[0])
                    if step.is_set:
                        self._set_texts(step, walk, cards, texts, set_encoding, max_set_actions, where)
                    elif step.cards is not None and step.onto is not None:  # a card and its set's index
                        names = tuple(sorted({c.name for c in cards}, key=_natural))
                        blocks[(step.action, (names, tuple(str(i) for i in range(len(game.cards)))))] = None
                    elif step.cards is not None:
                        for c in cards:
                            if c.modes:
                                texts.update(f"{step.action} {c.name} as {m}" for m in c.modes)
                            if c.modes and game.card_entries[c.id] in (getattr(game, "mode_when", None) or {}):
                                texts.add(f"{step.action} {c.name}")  # (mode_when: no mode holds now)
                            elif not c.modes:
                                texts.add(f"{step.action} {c.name}")
                    elif step.options is None:
                        texts.add(step.action)
                    else:
                        try:
                            shapes = words(walk.domains.get(step.path, TOP), [c.name for c in game.cards])
                        except ValueError as exc:
                            raise RulebookError(
                                f"{where}: the options of the choice {step.label!r} cannot be bounded from the "
                                f"spec ({exc}), so it has no fixed action ids; write its options from lists of "
                                f"known values (range(0, N), a list, cards, product(...))") from None
                        self._value_texts(step.action, shapes, texts, blocks)

    def _value_texts(self, action, shapes, texts, blocks):
        merged = {}  # shapes of one length merged word by word: no text gets two ids
        for shape in shapes:
            if len(shape) in merged:
                merged[len(shape)] = [a | b for a, b in zip(merged[len(shape)], shape)]
            else:
                merged[len(shape)] = list(shape)
        for shape in merged.values():
            size = 1
            for w in shape:
                size *= len(w)
            if not shape:
                texts.add(action)
            elif size <= LIST_LIMIT:
                todo = [[action]]
                for w in shape:
                    ws = sorted(w, key=_natural)
                    todo = [t + [x] for t in todo for x in ws]
                texts.update(" ".join(t) for t in todo)
            else:
                blocks[(action, tuple(tuple(sorted(w, key=_natural)) for w in shape))] = None

    def _set_texts(self, step, walk, cards, texts, set_encoding, max_set_actions, where):
        from collections import Counter
        counts = list(Counter(c.name for c in cards).values())
        lo_a, hi_a = walk.eval_bound(step, "min"), walk.eval_bound(step, "max")
        lo = 1 if lo_a is None else max(0, lo_a[0])
        hi = len(cards) if hi_a is None or hi_a[1] == float("inf") else min(len(cards), int(hi_a[1]))
        n_sets = _count_multisets(counts, lo, hi, max_set_actions) if lo <= hi else 0
        mode = set_encoding
        if mode == "auto":
            mode = "exact" if n_sets <= max_set_actions else "picks"
        elif mode == "exact" and n_sets > max_set_actions:
            raise RulebookError(f"{where}: the set choice {step.label!r} has more than {max_set_actions} sets of "
                                f"{lo}..{hi} cards; use set_encoding='picks' (or raise max_set_actions)")
        self.set_modes[step.path] = mode
        self._set_verbs.add((step.action, mode))
        if mode == "picks":
            texts.update(f"{PICK} {n}" for n in self.names)
            texts.update((DONE, UNDO))
            return
        names = self.names
        per = Counter(c.name for c in cards)

        def grow(start, chosen):
            if lo <= len(chosen) and chosen:
                texts.add(" ".join([step.action] + chosen))
            if len(chosen) == hi:
                return
            for j in range(start, len(names)):
                if chosen.count(names[j]) < per[names[j]]:
                    grow(j, chosen + [names[j]])
        grow(0, [])

    @property
    def max_length(self) -> int:
        """The most actions (chance outcomes included) in ``discovery`` seeded random games: the
        only figure found by playing (OpenSpiel asks for a bound on a game's length)."""
        if "_max_length" not in self.__dict__:
            rng = random.Random(self.seed)
            longest = 0
            for k in range(self.discovery):
                state = self.game.new_state(self.num_players, self.seed * 7919 + k, chance=True)
                length = 0
                while not state.is_terminal():
                    if state.is_chance_node():
                        state.apply(rng.choice(state.chance_outcomes())[0])
                    else:
                        p = rng.choice(state.current_players())
                        state.apply(rng.choice(state.legal_actions(p)), p)
                    length += 1
                longest = max(longest, length)
            self.__dict__["_max_length"] = longest
        return self.__dict__["_max_length"]

    def _static_paths(self, path, a):
        """The tensor layout of a variable from its domain (see the module doc)."""
        from .domains import elem
        if a.top:
            return
        if a.fields:
            self._paths[path] = {"kind": "map"}
            for k, v in a.fields:
                self._static_paths(path + (k,), v)
            return
        if a.maps:
            keys = a.maps[0]
            if keys.consts and not keys.top and not keys.lists and len(keys.consts) <= 512 \
                    and all(isinstance(k, str) for k in keys.consts):
                self._paths[path] = {"kind": "map"}
                for k in sorted(keys.consts):
                    self._static_paths(path + (k,), a.maps[1])
            return
        if a.lists:
            e = elem(a)
            vocab = {x for x in e.consts if isinstance(x, str)} | {self.game.cards[i].name for i in e.cards}
            self._paths[path] = {"kind": "list", "vocab": vocab}
            return
        strs = {x for x in a.consts if isinstance(x, str)} | {self.game.cards[i].name for i in a.cards}
        if strs:
            self._paths[path] = {"kind": "text", "vocab": strs}
        elif a.ints or a.consts - {None}:
            self._paths[path] = {"kind": "number"}

    # -- layout --------------------------------------------------------------------------------
    def _layout(self):
        game, n = self.game, self.num_players
        self.places = []
        for name, zdef in game.zones.items():
            if zdef.per_player:
                self.places.extend((name, r) for r in range(n))
            else:
                self.places.append((name, None))
        self.name_index = {nm: i for i, nm in enumerate(self.names)}
        self._offsets = {"v": {}, "p": {}}
        sizes = {"v": 0, "p": 0}
        for path in sorted(self._paths, key=lambda p: [str(x) for x in p]):
            entry = self._paths[path]
            kind = entry["kind"]
            if kind == "map":
                continue
            vocab = sorted(entry.get("vocab", ()), key=_natural)
            entry["index"] = {t: i for i, t in enumerate(vocab)}
            root = path[0]
            self._offsets[root][path] = sizes[root]
            sizes[root] += 1 if kind == "number" else len(vocab) + (1 if kind == "list" else 0)
        self._psize = sizes["p"]
        self.phases = list(game.programs)
        self.sections = [("zones", len(self.places) * len(self.names)), ("sizes", len(self.places)),
                         ("game_vars", sizes["v"]), ("player_vars", sizes["p"] * n),
                         ("turn", 3 * n + 2), ("phase", len(self.phases)), ("seat", n),
                         ("picked", len(self.names) if "picks" in self.set_modes.values() else 0)]
        self.observation_size = sum(s for _, s in self.sections)
        listed = len(self.actions.texts)
        self._word_bases = []  # per product block: the history slot of each position's first word
        size = listed
        for b in self.actions.blocks:
            bases = []
            for k in b.sizes:
                bases.append(size)
                size += k
            self._word_bases.append(bases)
        self.history_size = size
        self.information_state_size = self.observation_size + n * self.history_size

    def __deepcopy__(self, memo):  # immutable once built: copies of a game's states share it
        return self

    # -- public --------------------------------------------------------------------------------
    def action_id(self, text: str) -> int:
        """The id of an action text (a set of the exact encoding in any card order). Raises
        RulebookError for a text without one."""
        i = self.ids.get(self._canonical(text))
        if i is None:
            raise RulebookError(f"the action {text!r} has no id in this action space (the spec's choices "
                                f"cannot offer it with these options and {self.num_players} players)")
        return i

    def _canonical(self, text: str) -> str:
        verb, _, rest = text.partition(" ")
        if verb in self._exact_verbs and " " in rest:
            return " ".join([verb] + sorted(rest.split(" "), key=self._name_order.__getitem__))
        return text

    def action_text(self, action_id: int) -> str:
        """The text of an action id (``done`` for the confirmation of a set built card by card:
        :meth:`action_for` gives its text in a position). Raises RulebookError when out of range."""
        if not 0 <= action_id < self.num_actions:
            raise RulebookError(f"action id {action_id} is out of range 0..{self.num_actions - 1}")
        return self.actions[action_id]

    def action_for(self, state, seat: int, action_id: int) -> str:
        """The text to apply for ``seat`` taking ``action_id`` now: :meth:`action_text`, except
        ``done``, which is the set picked so far (``VERB NAME ...``). Raises RulebookError when
        out of range or ``done`` is not legal now."""
        text = self.action_text(int(action_id))
        # (outside a set choice, "done" is a spec's own option: its text as it is)
        instr = self._set_instr(state, seat) if action_id == self._done else None
        if instr is not None:
            for a in state.legal_actions(seat):
                if self._pick_kind(a.text, instr) == DONE:
                    return a.text
            raise RulebookError("done is not legal now: the cards picked do not form a set yet")
        return text

    def _set_instr(self, state, seat):
        """The set choice ``seat`` must make now, or None."""
        pending = state.pending
        if not self.set_modes or pending is None or seat not in pending["players"] or pending.get("realtime"):
            return None
        from ..engine.run import _pending_instr
        instr = _pending_instr(state)
        return instr if getattr(instr, "is_set", False) else None

    @staticmethod
    def _pick_kind(text, instr):
        if text.startswith(PICK + " "):
            return PICK
        if text == UNDO:
            return UNDO
        if instr.optional is not None and text == instr.optional[0]:
            return "optional"
        return DONE

    def legal_ids(self, state, seat: int) -> list:
        """The ids of ``seat``'s legal actions, in the order of ``state.legal_actions(seat)`` (a
        set choice: its encoding's ids, see the module doc)."""
        return list(self.legal_moves(state, seat))

    def legal_moves(self, state, seat: int) -> dict:
        """``{id: move}`` for ``seat``'s legal actions now, in the order of :meth:`legal_ids`:
        ``move`` is what ``state.apply(move, seat)`` takes for that id: the engine's
        :class:`~interpreter.model.state.Action` (applied by its place in the cached option list,
        no text matched), or, for a set of the exact encoding, its text (checked whole by the
        engine)."""
        instr = self._set_instr(state, seat)
        legal = state.legal_actions(seat)
        if instr is None:
            return {self.action_id(a.text): a for a in legal}
        if self.set_modes[instr.path] == "exact":
            return {i: self.action_text(i) for i in self._exact_sets(state, seat, instr, legal)}
        out, undo = {}, None
        for a in legal:
            kind = self._pick_kind(a.text, instr)
            if kind == UNDO:
                undo = a
            else:
                out[self._done if kind == DONE else self.action_id(a.text)] = a
        return out or ({self._undo: undo} if undo is not None else {})

    def _exact_sets(self, state, seat, instr, legal) -> list:
        """Every legal set of ``instr`` for ``seat`` now (by the engine's own check of a set typed
        whole), then the optional action if offered."""
        from ..engine.run import _ctx_for
        cards = state.game.cards
        ctx = _ctx_for(state, seat, instr)
        try:
            zone = instr.cards.cards(state, ctx)
            held = {}
            for cid in zone:
                held[cards[cid].name] = held.get(cards[cid].name, 0) + 1
            names = sorted(held, key=self._name_order.__getitem__)
            lo, hi = instr.bounds(ctx, len(zone))
            out = []

            def grow(start, chosen):
                if lo <= len(chosen) and chosen:
                    ctx.bound.clear()
                    ctx.bound[instr.by_name] = seat
                    if not isinstance(instr.direct_set(state, ctx, seat, chosen), str):
                        out.append(self.ids.get(" ".join([instr.action] + chosen)))
                if len(chosen) < hi:
                    for j in range(start, len(names)):
                        if chosen.count(names[j]) < held[names[j]]:
                            grow(j, chosen + [names[j]])
            grow(0, [])
        finally:
            ctx.bound.clear()
        out = [i for i in out if i is not None]
        if instr.optional is not None and any(a.text == instr.optional[0] for a in legal):
            out.append(self.action_id(instr.optional[0]))
        return out

    def mask(self, state, seat: int) -> np.ndarray:
        """``int8`` array ``(num_actions,)``: 1 where the action is legal for ``seat`` now."""
        m = np.zeros(self.num_actions, dtype=np.int8)
        m[self.legal_ids(state, seat)] = 1
        return m

    def observation(self, state, seat: int, view: dict | None = None) -> np.ndarray:
        """The observation tensor of ``seat`` (see the module doc). ``view``: ``state.observation(seat)``
        if the caller has it already (it is only read)."""
        n = self.num_players
        obs = state.observation(seat) if view is None else view
        out = np.zeros(self.observation_size, dtype=np.float32)
        names, idx = len(self.names), self.name_index
        zones = obs["zones"]
        size_base = len(self.places) * names
        for k, (zone, rel) in enumerate(self.places):
            z = zones[zone] if rel is None else zones[zone][(seat + rel) % n]
            if isinstance(z, dict) and "count" in z:
                out[size_base + k] = z["count"]
                shown = z.get("seen", [])
            else:
                shown = []
                _names_in(z, shown)
                out[size_base + k] = len(shown)
            for nm in shown:
                j = idx.get(nm)
                if j is not None:
                    out[k * names + j] += 1
        base = size_base + len(self.places)
        self._put_vars(out, base, ("v",), obs["vars"])
        pbase = base + self.sections[2][1]
        psize = self._psize
        for rel in range(n):  # the observer's own player variables first, then the others clockwise
            self._put_vars(out, pbase + rel * psize, ("p",), obs["player_vars"][(seat + rel) % n])
        tbase = pbase + psize * n
        pending = obs["pending"]
        cur = state.current_players()
        for p in cur:
            if p >= 0:
                out[tbase + (p - seat) % n] = 1
        if state.is_chance_node():
            out[tbase + n] = 1
        if obs["terminal"]:
            out[tbase + n + 1] = 1
        if pending:
            for p in pending["chosen"]:
                out[tbase + n + 2 + (p - seat) % n] = 1
        phbase = tbase + 3 * n + 2
        for ph in obs["phase"]:
            if ph in self.phases:
                out[phbase + self.phases.index(ph)] = 1
        out[phbase + len(self.phases) + seat] = 1
        if self.sections[-1][1]:  # the observer's own picks so far (a set built card by card)
            picked = ((state.pending or {}).get("picked") or {}).get(str(seat), ())
            base = self.observation_size - len(self.names)
            for cid in picked:
                out[base + idx[state.game.cards[cid].name]] += 1
        return out

    def _put_vars(self, out, base, root, value):
        offs = self._offsets[root[0]]

        def put(path, v):
            if isinstance(v, dict):
                for k, x in v.items():
                    put(path + (k,), x)
                return
            off = offs.get(path)
            if off is None:
                return
            entry = self._paths[path]
            kind = entry["kind"]
            if kind == "number":
                if isinstance(v, (int, float)) and v is not None:
                    out[base + off] = float(v)
            elif kind == "text":
                if isinstance(v, str):
                    j = entry["index"].get(v)
                    if j is not None:
                        out[base + off + j] = 1
            elif kind == "list" and isinstance(v, list):
                vocab = entry["index"]
                out[base + off + len(vocab)] = len(v)
                for x in v:
                    if isinstance(x, str):
                        j = vocab.get(x)
                        if j is not None:
                            out[base + off + j] += 1
        put(root, value)

    def information_state(self, state, seat: int, kept: dict | None = None,
                          observed: np.ndarray | None = None) -> np.ndarray:
        """The information-state tensor of ``seat`` (see the module doc). ``kept``: a dict the
        caller keeps along one line of play (positions reached from one another by actions): the
        history counts already made are read from it and stored in it, so a call counts only the
        actions since the last one (the entries of a simultaneous decision not revealed yet are
        counted at each call, never kept). ``observed``: ``self.observation(state, seat)`` if the
        caller has it already (copied, not changed)."""
        from ..view import history_for, unrevealed_entries
        out = np.zeros(self.information_state_size, dtype=np.float32)
        base = self.observation_size
        out[:base] = self.observation(state, seat) if observed is None else observed
        settled = min(unrevealed_entries(state), default=len(state.history))
        done, counts = (kept or {}).get(seat, (0, None))
        if counts is None or done > settled:
            done, counts = 0, np.zeros(self.information_state_size - base, dtype=np.float32)
        if done < settled:
            counts = counts.copy()  # a kept array is never changed: clones share it
            self._count(counts, history_for(state, seat, done, settled), seat)
            if kept is not None:
                kept[seat] = (settled, counts)
        out[base:] = counts
        self._count(out[base:], history_for(state, seat, settled), seat)
        return out

    def _count(self, counts, entries, seat) -> None:
        """Add ``entries`` (:func:`~interpreter.view.history_for`'s, as ``seat`` knows them) to
        the history section ``counts`` of ``seat``'s information state."""
        n, size = self.num_players, self.history_size
        for entry in entries:
            text = entry.get("action")
            player = entry["player"]
            if text is None or player < 0:
                continue
            i = self.ids.get(self._canonical(text))
            if i is not None:
                start = ((player - seat) % n) * size
                for slot in self._history_slots(i):
                    counts[start + slot] += 1

    def _history_slots(self, action_id: int) -> tuple:
        """The slots of one ``seat`` section of the information state's history that an action
        id counts in: its own for a listed id, one per word position for a product block's."""
        listed = len(self.actions.texts)
        if action_id < listed:
            return (action_id,)
        for b, bases in zip(self.actions.blocks, self._word_bases):
            if action_id < b.offset + b.size:
                i, picks = action_id - b.offset, []
                for k in reversed(b.sizes):
                    i, j = divmod(i, k)
                    picks.append(j)
                return tuple(base + j for base, j in zip(bases, reversed(picks)))
        return ()
