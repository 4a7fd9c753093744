"""Fixed action ids, legal-action masks and tensors for any spec (numpy), for learning tools.

:class:`Spaces` (``Spaces(game, num_players)``) is built once per spec, options and player count:

**Action ids.** Every action text a seat could take, numbered once, in a stable order (sorted, with
numbers compared as numbers). The texts come from two sources: (1) the spec's decisions that choose
cards: ``VERB NAME`` (and ``VERB NAME as MODE`` for cards with modes) for every card in play and
every card-choosing ``choose`` step, plus ``pass`` where a step is optional; (2) decisions that
choose among values (bids, placements): their option lists depend on the position, so they are
collected from ``discovery`` seeded random games (default 10; more with
``Spaces(..., discovery=N)``, or name texts with ``extra=[...]``). Limit: a value option that never
appears in those games has no id; :meth:`Spaces.action_id` then raises :class:`RulebookError`
naming it (raise ``discovery`` or pass it in ``extra``).

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
  boolean is one value; a text or card is one-hot over the texts seen in discovery; a list is its
  length and the counts of the texts in it; a map is flattened by key; ``null`` is all zeros;
- ``turn``: who must act (relative seats), whether it is a chance node, terminal, and which seats
  have already committed a secret choice;
- ``phase``: the phases on the control stack (multi-hot over the spec's phases);
- ``seat``: the observer's absolute seat (one-hot).

**Information-state tensor** (``information_state(state, seat)``): the observation tensor followed
by the action history as the seat may know it (``interpreter.view.history_for``): for each relative
seat and action id, how many times that seat took it; shape ``(observation_size + num_players *
num_actions,)``. Order inside the history is not kept (a documented simplification).
"""
from __future__ import annotations

import random
import re

import numpy as np

from ..errors import RulebookError


def _natural(text: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", text) if t]


def _names_in(v, out: list) -> None:
    """Card names in an observed zone (names, {"card": name, ...} entries, or sets of them)."""
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, dict) and "card" in v:
        out.append(v["card"])
    elif isinstance(v, list):
        for x in v:
            _names_in(x, out)


class Spaces:
    """Action ids, masks and tensors of ``game`` for ``num_players`` (see the module doc).

    Attributes: ``actions`` (list of texts, index = id), ``num_actions``, ``observation_size``,
    ``information_state_size``, ``sections`` (list of ``(name, size)``), ``max_chance_outcomes``
    and ``max_length`` (the most actions, chance outcomes included, seen in one discovery game)."""

    def __init__(self, game, num_players: int, discovery: int = 10, extra=(), seed: int = 0):
        self.game, self.num_players = game, num_players
        texts = set(extra)
        cards = [game.cards[i] for i in game.cards_in_play(num_players)]
        names = sorted({c.name for c in cards}, key=_natural)
        self.names = names
        self._card_texts(texts, cards)
        self._paths = {}  # variable path -> set of texts seen (None: a number)
        self.max_chance_outcomes = 1
        self.max_length = 0
        rng = random.Random(seed)
        for k in range(discovery):
            self._discover(seed * 7919 + k, rng, texts)
        self.actions = sorted(texts, key=_natural)
        self.ids = {t: i for i, t in enumerate(self.actions)}
        self.num_actions = len(self.actions)
        self._layout()

    # -- discovery -----------------------------------------------------------------------------
    def _card_texts(self, texts, cards):
        from ..engine.program import Choose
        for prog in self.game.programs.values():
            for instr in prog:
                for step in [instr] + list(getattr(instr, "alts", None) or []):
                    if not isinstance(step, Choose):
                        continue
                    if step.optional:
                        texts.add("pass")
                    if step.cards is None:
                        continue
                    for c in cards:
                        if c.modes:
                            texts.update(f"{step.action} {c.name} as {m}" for m in c.modes)
                        else:
                            texts.add(f"{step.action} {c.name}")

    def _discover(self, seed, rng, texts):
        state = self.game.new_state(self.num_players, seed, chance=True)
        length = 0
        while not state.is_terminal():
            self._note_vars(state)
            if state.is_chance_node():
                outs = state.chance_outcomes()
                self.max_chance_outcomes = max(self.max_chance_outcomes, len(outs))
                state.apply(rng.choice(outs)[0])
            else:
                cur = state.current_players()
                for p in cur:
                    texts.update(a.text for a in state.legal_actions(p))
                p = rng.choice(cur)
                state.apply(rng.choice(state.legal_actions(p)), p)
            length += 1
        self._note_vars(state)
        self.max_length = max(self.max_length, length)

    def _note_vars(self, state):
        obs = state.observation(0)
        self._walk(("v",), obs["vars"])
        for pv in obs["player_vars"]:
            self._walk(("p",), pv)

    def _walk(self, path, value):
        paths = self._paths
        if isinstance(value, dict):
            paths.setdefault(path, {"kind": "map"})
            for k, v in value.items():
                self._walk(path + (k,), v)
        elif isinstance(value, list):
            entry = paths.setdefault(path, {"kind": "list", "vocab": set()})
            if entry.get("kind") == "list":
                for x in value:
                    if isinstance(x, str):
                        entry["vocab"].add(x)
        elif isinstance(value, str):
            entry = paths.setdefault(path, {"kind": "text", "vocab": set()})
            if entry.get("kind") == "text":
                entry["vocab"].add(value)
        elif isinstance(value, (int, float)) and value is not None:
            paths.setdefault(path, {"kind": "number"})

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
                         ("turn", 3 * n + 2), ("phase", len(self.phases)), ("seat", n)]
        self.observation_size = sum(s for _, s in self.sections)
        self.information_state_size = self.observation_size + n * self.num_actions

    def __deepcopy__(self, memo):  # immutable once built: copies of a game's states share it
        return self

    # -- public --------------------------------------------------------------------------------
    def action_id(self, text: str) -> int:
        """The id of an action text. Raises RulebookError for a text without one."""
        i = self.ids.get(text)
        if i is None:
            raise RulebookError(f"the action {text!r} has no id in this action space: it did not occur "
                                f"in the discovery games; build the Spaces with more discovery games or "
                                f"extra=[{text!r}]")
        return i

    def action_text(self, action_id: int) -> str:
        """The text of an action id. Raises RulebookError when out of range."""
        if not 0 <= action_id < self.num_actions:
            raise RulebookError(f"action id {action_id} is out of range 0..{self.num_actions - 1}")
        return self.actions[action_id]

    def legal_ids(self, state, seat: int) -> list:
        """The ids of ``seat``'s legal actions, in the order of ``state.legal_actions(seat)``."""
        return [self.action_id(a.text) for a in state.legal_actions(seat)]

    def mask(self, state, seat: int) -> np.ndarray:
        """``int8`` array ``(num_actions,)``: 1 where the action is legal for ``seat`` now."""
        m = np.zeros(self.num_actions, dtype=np.int8)
        for i in self.legal_ids(state, seat):
            m[i] = 1
        return m

    def observation(self, state, seat: int) -> np.ndarray:
        """The observation tensor of ``seat`` (see the module doc)."""
        n = self.num_players
        obs = state.observation(seat)
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

    def information_state(self, state, seat: int) -> np.ndarray:
        """The information-state tensor of ``seat`` (see the module doc)."""
        from ..view import history_for
        n = self.num_players
        out = np.zeros(self.information_state_size, dtype=np.float32)
        out[:self.observation_size] = self.observation(state, seat)
        base = self.observation_size
        for entry in history_for(state, seat):
            text = entry.get("action")
            player = entry["player"]
            if text is None or player < 0:
                continue
            i = self.ids.get(text)
            if i is not None:
                out[base + ((player - seat) % n) * self.num_actions + i] += 1
        return out
