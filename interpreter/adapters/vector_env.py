"""A batch of games of one spec stepped together in the kernel, NumPy arrays in and out (for training).

    from interpreter.adapters.vector_env import VectorEnv
    venv = VectorEnv("specs/GAME.yaml", players=4, num_envs=64, seed=0)
    obs, mask, seat = venv.reset()                       # float32[N, obs], int8[N, ids], int64[N]
    while training:
        actions = policy(obs, mask)                      # int64[N]: one action id per game
        obs, mask, seat, rewards, done = venv.step(actions)   # rewards float32[N, players], done bool[N]

Game ``i`` of the batch is played by the kernel's step API (``game.new_state(players, seed, fast=True)``,
:mod:`interpreter.fast.steps`), game seeds ``seed, seed + 1, ...`` in the order games start (the first
``num_envs`` at :meth:`VectorEnv.reset`, then one each time a game ends). At every step each game has one
seat to act, ``seat[i]``: the first current player (in a simultaneous choice the seats follow one another,
none seeing the others' secret choices; in a real-time block the next seat clockwise after the last one
that acted, among those who may act): the seat :class:`~interpreter.adapters.pettingzoo_env.RulebookAECEnv`
selects, so the same seeds and action ids play the same games there (a test checks it).

- ``actions``: one id of the spec's fixed action space (:class:`~interpreter.adapters.spaces.Spaces`, the
  same ids as the PettingZoo and OpenSpiel adapters) per game, legal for ``seat[i]`` (``mask[i]`` is 1
  there); an illegal id raises :class:`~interpreter.errors.RulebookError` naming the game and the id, and
  no game moves.
- ``mask``: ``int8[N, num_actions]``, the legal ids of the seat to act.
- ``rewards``: ``float32[N, players]``, nonzero only in the step that ends game ``i`` (``done[i]``):
  ``reward="win"`` (default) ``1 / number of winners`` for each winner, ``reward="score"`` the spec's
  final scores. A game that ends is replaced at once by a new one (next seed): ``obs``, ``mask`` and
  ``seat`` are then the new game's.
- ``obs``: ``float32[N, spaces.observation_size]``, the observation of ``seat[i]``, in the layout of
  ``Spaces.observation`` (the PettingZoo/OpenSpiel tensor) and built from the kernel's arrays, no
  State made: the ``zones``, ``sizes``, ``turn`` and ``seat`` sections as ``Spaces.observation``
  fills them, and the game and player variables that hold a number, a boolean, a text or a card.
  What the kernel does not keep stays 0: the ``phase`` section (the kernel keeps no control stack),
  variables that hold lists or maps, and cards a ``show`` step let the seat see in a zone it cannot
  see (the kernel does not track who saw what). :attr:`VectorEnv.filled` is 1 on the entries filled,
  0 on those left at 0; on the filled ones the tensor equals ``Spaces.observation`` (a test checks
  it). ``observations=False`` skips the tensor (``obs`` is then None).

Specs the kernel does not run (:func:`~interpreter.fast.steps.fast_state` says why), and specs with
set choices (built card by card in the action space, which the batch does not encode), raise
RulebookError at construction, as is a spec whose games end before any choice. Needs numba. The batch
stays in NumPy: every game plays in rows of shared arrays (its options, its TMP rows, the arrays the
tensor reads), and the options are turned into action ids for the whole batch by :class:`IdTable`;
Python's per-game work is ``apply`` and reading the seat; the tensor's zones and sizes are filled by a
small numba function (:func:`_cards_into`), the rest by NumPy for the whole batch. The environment steps per second of this
loop are printed by ``tools/adapter_bench.py`` (``vec/s``; ``--vector``: only that, with and without
tensors).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import RulebookError
from ..spec.loader import load_game
from .spaces import Spaces


class VectorEnv:
    """``num_envs`` games of ``spec`` (a path or a compiled Game) for ``players`` seats, stepped
    together in the kernel (see the module doc). ``options``: the spec's options (with a path);
    ``spaces_``: a prebuilt :class:`Spaces` of the same game and players. Raises RulebookError when
    the spec cannot run this way (the reason in the message)."""

    def __init__(self, spec, players: int, num_envs: int, seed: int = 0, options: dict | None = None,
                 reward: str = "win", observations: bool = True, spaces_: Spaces | None = None):
        if reward not in ("win", "score"):
            raise RulebookError(f"reward is 'win' or 'score', not {reward!r}")
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise RulebookError(f"num_envs is a whole number of games, at least 1, not {num_envs!r}")
        self.game = load_game(spec, options or {}) if isinstance(spec, (str, Path)) else spec
        self.num_players, self.num_envs, self.reward_kind = players, num_envs, reward
        self.spaces = spaces_ or Spaces(self.game, players)
        if self.spaces.set_modes:
            raise RulebookError(f"{self.game.name}: the vectorised environment does not run set choices "
                                f"(a set is picked card by card in the action space, which the batch does not encode); use the PettingZoo environment")
        from ..fast.steps import fast_state, step_kernel_for
        from ..fast.typepass import STATE_ARGS
        if fast_state(self.game, players, seed).is_terminal():  # raises RulebookError if the kernel cannot run it
            raise RulebookError(f"{self.game.name}: the game of seed {seed} ends before anyone has a choice "
                                f"to make: there is nothing to step")
        self._fast_state = fast_state
        self._kernel = kernel = step_kernel_for(self.game)
        self._iloc, self._izn = STATE_ARGS.index("LOC"), STATE_ARGS.index("ZN")
        self._igv, self._ipv = STATE_ARGS.index("GV"), STATE_ARGS.index("PV")
        self._iopt, self._itmp = STATE_ARGS.index("OPT"), STATE_ARGS.index("TMP")
        # every game plays in rows of these: its options (OPT, and TMP where options are pairs) and
        # what the tensor reads, read for the whole batch at once
        start = kernel.start_arrays(players)
        self._batch = {k: np.zeros((num_envs,) + start[k].shape, dtype=start[k].dtype)
                       for k in (self._iopt, self._iloc, self._izn, self._igv, self._ipv)
                       + ((self._itmp,) if kernel.tuple_sites or any(site.get("simultaneous")
                                                                       for site in kernel.info["sites"]) else ())}
        self.observations = observations
        self._ids: dict = {}  # action text -> id (Spaces' look-up, kept)
        self._table = IdTable(kernel, self._id_of)
        self._layout()
        self._first_seed = seed
        self.states = []

    # -- the observation layout, from the kernel's info and the Spaces' sections ----------------
    def _layout(self):
        sp, info, n, game = self.spaces, self._kernel.info, self.num_players, self.game
        names = len(sp.names)
        self._names = names
        self.size = sp.observation_size
        starts, at = {}, 0
        for name, size in sp.sections:
            starts[name] = at
            at += size
        self._starts = starts
        # each zone row of the kernel: its place (per seat to act) and whether that seat sees it
        rows = info["rows"]
        place_of = np.full((n, rows), -1, dtype=np.int64)
        visible = np.zeros((n, rows), dtype=bool)
        place_index = {pl: k for k, pl in enumerate(sp.places)}
        for zname, zd in game.zones.items():
            base, span = info["zone_row"][zname], info["zone_span"].get(zname, 1)
            for seat in range(n):
                owners = range(n) if zd.per_player else [None]
                for owner in owners:
                    first = base + (owner or 0) * span
                    k = place_index[(zname, None if owner is None else (owner - seat) % n)]
                    place_of[seat, first:first + span] = k
                    visible[seat, first:first + span] = zd.visibility == "public" or \
                        (zd.visibility == "owner" and owner == seat)
        self._place_of, self._visible = place_of, visible
        name_of = np.zeros(max(info["ncards"], 1), dtype=np.int64)
        for c in game.cards:
            name_of[c.id] = sp.name_index.get(c.name, 0)
        self._name_of = name_of
        # the variables: (slot, offset in the section, kind, vocabulary index, holds a card)
        from ..fast.lowtypes import TEXT_BASE
        texts = {TEXT_BASE + k: t for t, k in info["texts"].items()}
        self._texts = texts
        card_g, card_p = set(info.get("card_vars", ())), set(info.get("card_pvars", ()))
        slots = {"v": {k: i for i, k in enumerate(game.var_defaults)},
                 "p": {k: i for i, k in enumerate(game.pvar_defaults)}}
        self._vars = {"v": [], "p": []}
        filled = np.zeros(self.size, dtype=np.float32)
        for root, cards in (("v", card_g), ("p", card_p)):
            for path, off in sp._offsets[root].items():
                entry = sp._paths[path]
                if len(path) != 2 or path[1] not in slots[root] or entry["kind"] not in ("number", "text"):
                    continue  # a list, or a field of a map: the kernel keeps it elsewhere (left at 0)
                slot = slots[root][path[1]]
                self._vars[root].append((slot, off, entry["kind"], entry.get("index"), slot in cards))
                width = 1 if entry["kind"] == "number" else len(entry["index"])
                if root == "v":
                    filled[starts["game_vars"] + off:starts["game_vars"] + off + width] = 1
                else:
                    psize = sp._psize
                    for rel in range(n):
                        b = starts["player_vars"] + rel * psize + off
                        filled[b:b + width] = 1
        # the variables holding plain numbers, written for every game in one assignment: (slots, columns)
        self._numbers = {}
        for root in ("v", "p"):
            plain = [(slot, off) for slot, off, kind, _, card in self._vars[root] if kind == "number" and not card]
            self._numbers[root] = tuple(np.array([x[k] for x in plain], dtype=np.int64) for k in (0, 1))
            # a text or card variable: (slot, offset, column of each text code, of each card id or None)
            self._vars[root] = [(slot, off, self._lookup(index, texts), self._lookup(index, None) if card else None)
                                for slot, off, kind, index, card in self._vars[root] if kind != "number"]
        self._simultaneous = any(site.get("simultaneous") for site in info["sites"])
        for name in ("zones", "sizes", "turn", "seat"):
            size = dict(sp.sections)[name]
            filled[starts[name]:starts[name] + size] = 1
        self.filled = filled

    # -- play ---------------------------------------------------------------------------------------
    def _new(self, i: int):
        """A new game (the next seed) in slot ``i``, playing in row ``i`` of the batch arrays."""
        seed = self._next_seed
        self._next_seed += 1
        return self._fast_state(self.game, self.num_players, seed, {k: b[i] for k, b in self._batch.items()})

    def reset(self, seed: int | None = None):
        """Start ``num_envs`` new games (seeds ``seed``, ``seed + 1``...; default: the constructor's
        ``seed``). Returns ``(obs, mask, seat)`` (see the module doc)."""
        self._next_seed = self._first_seed if seed is None else int(seed)
        self.states = [self._new(i) for i in range(self.num_envs)]
        self._sites = [self._table.sites_of(st) for st in self.states]
        self._last = [-1] * self.num_envs  # the seat that acted last (the real-time schedule)
        self.seeds = [s.seed for s in self.states]
        return self._observe()

    def _seat(self, i) -> int:
        st = self.states[i]
        current = st.current_players()
        if len(current) == 1 or st.pending is None:
            return current[0]
        last = self._last[i]
        return min(current, key=lambda p: (p - last - 1) % self.num_players)

    def _id_of(self, text: str) -> int:
        """The action id of ``text`` (kept once looked up); raises RulebookError if it has none."""
        k = self._ids.get(text)
        if k is None:
            k = self.spaces.ids.get(text)
            if k is None:
                self.spaces.action_id(text)  # raises: the text has no id
            self._ids[text] = k
        return k

    def _observe(self):
        """Seats, masks and (for :meth:`step`) each option's id: ``_optid[i, j]`` is the id of
        option ``j`` of game ``i`` (-1 past its options). The options are read for the whole batch
        from the kernel's rows (a turn's in OPT, a simultaneous choice's seat's in its TMP rows)
        and looked up in the id table (:class:`IdTable`); a game whose site the table cannot key
        (a set choice) through its legal actions' texts."""
        n_envs, table = self.num_envs, self._table
        seats = np.zeros(n_envs, dtype=np.int64)
        counts = np.zeros(n_envs, dtype=np.int64)
        sites = np.full(n_envs, -1, dtype=np.int64)
        base = np.full(n_envs, -1, dtype=np.int64)  # a simultaneous choice: its first TMP row, and
        offset = np.zeros(n_envs, dtype=np.int64)   # where the seat's options start in its rows
        slow = {}
        for i, st in enumerate(self.states):
            site = self._sites[i].get(id(st._textf))
            sim = st._sim
            if sim is None and site is not None:
                seats[i], counts[i], sites[i] = st._seat, st._n, site
                continue
            seat = seats[i] = self._seat(i)
            if site is not None:
                _, _, off, n = st._options(seat)
                counts[i], sites[i], base[i], offset[i] = n, site, sim["base"], off
                continue
            slow[i] = [(a.index, self._id_of(a.text)) for a in st.legal_actions(seat)]
            counts[i] = len(slow[i])
        width = max(int(counts.max()), 1)
        optid = np.full((n_envs, width), -1, dtype=np.int64)
        fast = np.flatnonzero(sites >= 0)
        if fast.size:
            opt = self._batch[self._iopt]
            tmp = self._batch.get(self._itmp)
            env, j = np.nonzero(np.arange(width) < counts[fast, None])
            rows = fast[env]
            values, modes = opt[rows, 0, j], opt[rows, 1, j]
            at = np.flatnonzero(base[rows] >= 0)
            if at.size:  # simultaneous choices: the seat's options in rows base + 2 and base + 3 of TMP
                r, col = rows[at], offset[rows[at]] + j[at]
                values[at], modes[at] = tmp[r, base[r] + 2, col], tmp[r, base[r] + 3, col]
            keys = table.keys_of(sites[rows], values, modes, lambda at, r, c: tmp[rows[at], r, c])
            states = self.states

            def text(k):  # option k's text, by its game's text maker (bound to its TMP for pairs)
                return states[rows[k]]._texts[int(sites[rows[k]])](int(values[k]), int(modes[k]))
            optid[rows, j] = table.ids(keys, text)
        for i, pairs in slow.items():
            for j, k in pairs:
                optid[i, j] = k
        mask = np.zeros((n_envs, self.spaces.num_actions), dtype=np.int8)
        env, j = np.nonzero(optid >= 0)
        mask[env, optid[env, j]] = 1
        self._optid, self._seats = optid, seats
        return (self._tensor(seats) if self.observations else None), mask, seats

    def step(self, actions):
        """Play ``actions[i]`` (an action id) for the seat to act in game ``i``, for every ``i``.
        Returns ``(obs, mask, seat, rewards, done)`` (see the module doc). Raises RulebookError,
        before any game moves, when an id is not legal in its game."""
        actions = np.asarray(actions).reshape(-1)
        if actions.shape[0] != self.num_envs:
            raise RulebookError(f"step takes one action id per game: {self.num_envs}, not {actions.shape[0]}")
        if actions.dtype.kind not in "iu":  # a float or a text is not an id (0.5 would compare as 0)
            raise RulebookError(f"step takes integer action ids (indices of the mask), not {actions.dtype} values "
                                f"such as {actions[0]!r}")
        if not self.states:
            raise RulebookError("call reset() before step()")
        optid = self._optid
        match = optid == actions[:, None]
        legal = match.any(axis=1)
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise RulebookError(f"game {i}: action id {int(actions[i])} is not legal for seat {int(self._seats[i])} "
                                f"now; the legal ids are the 1s of mask[{i}] ({int((optid[i] >= 0).sum())} of them)")
        width = optid.shape[1]
        picks = (width - 1 - match[:, ::-1].argmax(axis=1)).tolist()  # the last option of that id
        seats = self._seats.tolist()
        rewards = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        done = np.zeros(self.num_envs, dtype=bool)
        for i, st in enumerate(self.states):
            seat = seats[i]
            if st._sim is None:  # the Action just listed: apply's two-test check
                st.apply(st.legal_actions(seat)[picks[i]], seat)
            else:
                st.apply(picks[i], seat)
            self._last[i] = seat
            if st._over:
                done[i] = True
                if self.reward_kind == "win":
                    winners = st.winners()
                    rewards[i, winners] = 1.0 / len(winners)
                else:
                    rewards[i] = [float(s or 0) for s in st.scores()]
                self.states[i] = self._new(i)
                self._sites[i] = self._table.sites_of(self.states[i])
                self._last[i] = -1
                self.seeds[i] = self.states[i].seed
        obs, mask, seats = self._observe()
        return obs, mask, seats, rewards, done

    # -- the tensor ---------------------------------------------------------------------------------
    def _tensor(self, seats) -> np.ndarray:
        """``float32[N, size]``: the observation of ``seats[i]`` in game ``i`` (see the module doc),
        each section written for the whole batch at once from the stacked kernel arrays."""
        n_envs, size, n, names = self.num_envs, self.size, self.num_players, self._names
        states = self.states
        out = np.zeros((n_envs, size), dtype=np.float32)
        everyone = np.arange(n_envs)
        # zones and sizes, in compiled code (one pass over each game's cards and rows)
        _cards_and_sizes()(out, self._batch[self._iloc], self._batch[self._izn], seats, self._place_of,
                           self._visible, self._name_of, self._starts["zones"], self._starts["sizes"], names)
        # variables: game variables, then each relative seat's player variables
        from ..fast.lowtypes import NULL, TEXT_BASE
        gv = self._batch[self._igv]  # (N, slots)
        gb = self._starts["game_vars"]
        slots, cols = self._numbers["v"]
        if slots.size:  # plain numbers (null, or a text code, writes 0)
            values = gv[:, slots]
            out[:, gb + cols] = np.where((values != NULL) & (values < TEXT_BASE), values, 0)
        for slot, off, by_text, by_card in self._vars["v"]:
            col = self._columns(gv[:, slot], by_text, by_card)
            ok = col >= 0
            out[everyone[ok], gb + off + col[ok]] = 1
        slots, cols = self._numbers["p"]
        if self._vars["p"] or slots.size:
            psize, pb = self.spaces._psize, self._starts["player_vars"]
            # (N, seats, slots): each game's rows of player variables, the seat to act first, then clockwise
            pv = self._batch[self._ipv][everyone[:, None], (seats[:, None] + np.arange(n)) % n]
            rel_base = pb + np.arange(n) * psize  # (seats,)
            if slots.size:
                values = pv[:, :, slots]  # (N, seats, numbers)
                out[:, (rel_base[:, None] + cols).ravel()] = \
                    np.where((values != NULL) & (values < TEXT_BASE), values, 0).reshape(n_envs, -1)
            for slot, off, by_text, by_card in self._vars["p"]:
                col = self._columns(pv[:, :, slot], by_text, by_card)  # (N, seats)
                env, rel = np.nonzero(col >= 0)
                out[env, rel_base[rel] + off + col[env, rel]] = 1
        # turn: who must act (relative seats) and who has committed a secret choice; seat: one-hot
        tb = self._starts["turn"]
        out[everyone, tb] = 1  # the seat to act is a current player
        for i, st in enumerate(states if self._simultaneous else ()):
            sim = st._sim
            if sim is not None:  # several seats at once
                seat = int(seats[i])
                for p in st.current_players():
                    out[i, tb + (p - seat) % n] = 1
                if not sim["realtime"]:
                    for p in sim["chosen"]:
                        out[i, tb + n + 2 + (p - seat) % n] = 1
        out[everyone, self._starts["seat"] + seats] = 1
        return out

    def _lookup(self, index, texts):
        """The one-hot column (in ``index``, a variable's vocabulary) of each text code (``texts``:
        {code: text}) as ``(codes, columns)``, two int64 arrays, the codes sorted, those with no
        column left out (a board's cell names have codes far apart: a table indexed by code could
        take gigabytes); with ``texts`` None, an int64 array of each card id's column (its name's),
        -1 where it has none."""
        if texts is None:
            return np.array([index.get(c.name, -1) for c in self.game.cards], dtype=np.int64)
        pairs = sorted((k, index[t]) for k, t in texts.items() if t in index)
        return np.array([k for k, _ in pairs], dtype=np.int64), np.array([c for _, c in pairs], dtype=np.int64)

    @staticmethod
    def _columns(values, by_text, by_card) -> np.ndarray:
        """The one-hot column of each of ``values`` (the kernel's int64, any shape) by the tables of
        :meth:`_lookup` (``by_card`` None: not a card variable), -1 for null or no column: the
        columns ``Spaces.observation`` sets for the State's values."""
        col = np.full(values.shape, -1, dtype=np.int64)
        codes, columns = by_text
        if codes.size:
            pos = np.minimum(np.searchsorted(codes, values), codes.size - 1)
            hit = codes[pos] == values
            col[hit] = columns[pos[hit]]
        if by_card is not None:
            at = (values >= 0) & (values < by_card.size)
            col[at] = by_card[values[at]]
        return col


def _cards_into(out, loc, zn, seats, place_of, visible, name_of, zones_at, sizes_at, names):
    """Fill the ``zones`` and ``sizes`` sections of ``out`` (``float32[N, size]``, zeros there) for
    the seat ``seats[i]`` of each game ``i``: each card in play (``loc[i, card]``, its row; -1 not in
    play) counted at ``(its place, its name)`` if that seat sees its row, and each row's count
    (``zn[i, row]``) added to its place's size. ``place_of``/``visible``: ``[seat, row]``, the
    place of a row for that seat (-1: none) and whether the seat sees it. Compiled by numba."""
    for i in range(loc.shape[0]):
        seat = seats[i]
        for card in range(loc.shape[1]):
            row = loc[i, card]
            if row >= 0:
                place = place_of[seat, row]
                if place >= 0 and visible[seat, row]:
                    out[i, zones_at + place * names + name_of[card]] += 1
        for row in range(zn.shape[1]):
            place = place_of[seat, row]
            if place >= 0:
                out[i, sizes_at + place] += zn[i, row]


_COMPILED = []


def _cards_and_sizes():
    """:func:`_cards_into` compiled by numba (once per process; numba's cache keeps it on disk)."""
    if not _COMPILED:
        import numba
        _COMPILED.append(numba.njit(cache=True, nogil=True)(_cards_into))
    return _COMPILED[0]


class IdTable:
    """Action ids of the kernel's options, looked up for a whole batch in NumPy. An option's key is
    ``(site, value, mode, parts...)``: the choice site the kernel yields, the option's two numbers in
    the OPT rows, and for a site whose options are pairs (their parts in rows of TMP, ``value`` a
    column there) the parts themselves, ``value`` then only telling the optional action (null) from
    a pair (0). Its text is the step kernel's text maker of that site (the same text the legal
    actions carry), its id the Spaces' id of that text (``id_of``). Each key seen is made into text
    once, then kept in arrays sorted by a 64-bit hash of the key, each hit checked against the key
    itself. ``site_of``: {id of a site's text maker: site} (a state's own makers for pair sites:
    :meth:`sites_of`); ``parts``: {pair site: (its first TMP row, its number of parts)}; ``width``:
    the key's width (3 + the most parts)."""

    def __init__(self, kernel, id_of):
        from ..fast.lowtypes import NULL
        self.kernel, self.text_of, self.id_of, self.null = kernel, kernel.text_of, id_of, NULL
        self.site_of = {id(f): s for s, f in enumerate(kernel.text_of) if f is not None}
        sites = kernel.info["sites"]
        # (a real-time block whose options are lists, row None, is read through its legal actions' texts)
        self.parts = {s: (row, len(sites[s]["elem"])) for s, (make, row) in kernel.tuple_sites.items()
                      if make is not None and row is not None}
        self.width = 3 + max([k for _, k in self.parts.values()], default=0)
        self.hashes = np.zeros(0, dtype=np.uint64)
        self.keys = np.zeros((0, self.width), dtype=np.int64)  # in hash order
        self.id = np.zeros(0, dtype=np.int64)
        mult = np.random.default_rng(0x5EED).integers(1, 2 ** 63, self.width, dtype=np.int64)
        self.mult = (mult.astype(np.uint64) << np.uint64(1)) | np.uint64(1)  # odd multipliers

    def sites_of(self, state) -> dict:
        """{id of a text maker: site} for ``state`` (whose pair sites have makers of its own)."""
        if state._texts is self.text_of:
            return self.site_of
        return {id(f): s for s, f in enumerate(state._texts) if s not in self.kernel.tuple_sites or s in self.parts}

    def keys_of(self, site, value, mode, part) -> np.ndarray:
        """``int64[k, width]``: the keys of options ``(site[j], value[j], mode[j])`` (three
        int64[k]); for pair sites their parts are ``part(js, row, columns)``: row ``row`` of the TMP
        of the games of options ``js`` (int64 indices) at ``columns`` (their values)."""
        keys = np.zeros((site.shape[0], self.width), dtype=np.int64)
        keys[:, 0], keys[:, 1], keys[:, 2] = site, value, mode
        for s, (row, count) in self.parts.items():
            at = np.flatnonzero((site == s) & (value != self.null))
            keys[at, 1] = 0
            for k in range(count):
                keys[at, 3 + k] = part(at, row + k, value[at])
        return keys

    def _hash(self, keys):
        with np.errstate(over="ignore"):
            return np.bitwise_xor.reduce(keys.astype(np.uint64) * self.mult, axis=1)

    def ids(self, keys, text) -> np.ndarray:
        """``int64[k]``: the ids of the options of ``keys`` (see :meth:`keys_of`); ``text(j)``
        makes option ``j``'s text for a key not seen before. Raises RulebookError for a text
        that has no id."""
        h = self._hash(keys)
        out = np.full(h.shape[0], -1, dtype=np.int64)
        if self.hashes.size:
            pos = np.minimum(np.searchsorted(self.hashes, h), self.hashes.size - 1)
            hit = (self.hashes[pos] == h) & (self.keys[pos] == keys).all(axis=1)
            out[hit] = self.id[pos[hit]]
        miss = np.flatnonzero(out < 0)
        if miss.size:
            new = {}
            for j in miss.tolist():
                key = tuple(keys[j].tolist())
                k = new.get(key)
                if k is None:
                    k = new[key] = self.id_of(text(j))
                out[j] = k
            self._add(new)
        return out

    def _add(self, new: dict) -> None:
        keys = np.concatenate([self.keys, np.array(list(new), dtype=np.int64).reshape(-1, self.width)])
        ids = np.concatenate([self.id, np.array(list(new.values()), dtype=np.int64)])
        hashes = self._hash(keys)
        order = np.argsort(hashes, kind="stable")
        self.hashes, self.keys, self.id = hashes[order], keys[order], ids[order]
