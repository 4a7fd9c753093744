"""The step API run by the typed kernel: ``game.new_state(n, seed=s, fast=True)``.

A :class:`FastState` answers what a :class:`~interpreter.model.state.State` answers for play
(:meth:`~FastState.current_players`, :meth:`~FastState.legal_actions`, :meth:`~FastState.apply`,
:meth:`~FastState.is_terminal`, :meth:`~FastState.scores`, :meth:`~FastState.winners`,
:attr:`~FastState.history`), with the same actions in the same order (``Action`` objects, texts
and indices as the State's), the same deals for the same seed and the same scores. The rules run
in the module :func:`interpreter.fast.typepass.lower_steps` writes for the spec: a numba
generator that plays from the start of the game and stops at each choice, so a decision costs a
few microseconds instead of the step API's tens (``tools/bench.py``). Until that module is in
numba's cache, a spec's states run it on the bytecode machine (:mod:`interpreter.fast.vm`, the
same games, 2.0–6.8 times the compiled module's time a decision) while another process compiles it
(:func:`step_kernel_for`).

What it does not do, and what to use instead: it keeps no observations, exports or JSON of its
own (:meth:`FastState.to_state` gives the full State of the same position, by replaying the
actions, and :meth:`~FastState.observation`, :meth:`~FastState.export`, :meth:`~FastState.to_json`
answer through it); chance nodes; seeds past 64 bits; specs the kernel does not type (:func:`fast_state` raises
:class:`~interpreter.errors.RulebookError` saying why). A simultaneous choice waits for every
listed seat, in any order, as the State's does. Its
:meth:`~FastState.clone` replays the actions too (a generator cannot be copied): cheap for a
playout, not for a search that clones at every node (use the State there). A state is for one thread
at a time: two threads applying to one state can record a history that does not replay.

Needs numba (``pip install -e '.[fast]'``).
"""
from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..errors import IllegalAction, RulebookError
from ..model.state import Action
from . import multichoice
from .stepseeds import RI_AHEAD, RI_DRAWS, RI_FIRST_DRAW, SeedsAhead
from .compound import option_text_maker, text_of_value
from .kernel import built_once, in_cache, load_module, state_arrays, without_dispatch
from .typepass import NULL, RI_CHOSEN, RI_ERROR, STATE_ARGS, TEXT_BASE, NotTyped, lower_steps

_STEPS: dict = {}
_new_tuple = tuple.__new__
_copy = np.ndarray.copy
_RI, _OPT, _TMP, _RG = (STATE_ARGS.index(k) for k in ("RI", "OPT", "TMP", "RG"))
_NOTHING = object()  # no Action offered since the last move (None is not: apply(None) must be checked)


class StepKernel:
    """The compiled step module of one Game (with its options): ``module`` (``steps`` and
    ``scores``), ``info`` (layout, see :func:`~interpreter.fast.typepass.lower_steps`), and each
    choice site's option text makers."""

    def __init__(self, game, source: str, info: dict, module):
        self.game, self.source, self.info, self.module = game, source, info, module
        texts = {TEXT_BASE + k: t for t, k in info["texts"].items()}
        names = self.names = [c.name for c in game.cards]
        # each site: option (value, mode) -> its text, as the step API writes it (engine.program.Choose);
        # texts are made once and kept (a card's, or a value's)
        self.text_of = []
        self.tuple_sites = {}  # site -> (its text maker, the first TMP row of its options' parts)
        for site in info["sites"]:
            verb = site["verb"]
            if site.get("set"):  # a set choice: its texts read the cards picked (see texts_for)
                self.tuple_sites[len(self.text_of)] = (None, site["set"]["row"])
                text = None
            elif site.get("realtime"):  # a real-time block: each option's mode is its action's index
                alts = site["realtime"]
                if any(a.get("tuple_row") is not None for a in alts):  # options that are lists: read in TMP
                    self.tuple_sites[len(self.text_of)] = (_realtime_text(alts, texts, names), None)
                    text = None
                else:
                    text = _realtime_text(alts, texts, names)(None)
            elif isinstance(site["elem"], list):  # options that are pairs: their parts are in rows of TMP
                self.tuple_sites[len(self.text_of)] = (option_text_maker(verb, site["elem"], texts, names, NULL),
                                                       site["tuple_row"])
                text = None  # bound to a state's TMP by FastState (see texts_for)
            elif site.get("onto"):  # a card and the set it goes on (onto.py): the mode is the set's place
                def text(v, m, verb=verb):
                    return f"{verb} {names[v]} {m}"
            elif site["cards"] and not site["modes"]:  # a C call, no Python frame: dict.get(card, mode)
                text = {v: f"{verb} {name}" for v, name in enumerate(names)}.get
            elif site["cards"]:
                plain = [f"{verb} {name}" for name in names]
                moded: dict = {}

                def text(v, m, plain=plain, moded=moded, verb=verb):
                    if m == NULL:
                        return plain[v]
                    t = moded.get((v, m))
                    if t is None:
                        t = moded[(v, m)] = f"{verb} {names[v]} as {text_of_value(m, texts)}"
                    return t
            else:
                elem = site["elem"]
                made: dict = {}

                def text(v, m, made=made, verb=verb, elem=elem):
                    t = made.get(v)
                    if t is None:
                        word = text_of_value(v, texts) if elem == "text" else ("yes" if v else "no") if elem == "bool" else v
                        word = names[v] if elem == "card" else word  # (options that are cards: fast/cardoptions.py)
                        t = made[v] = f"{verb} {word}"
                    return t
            if site.get("optional") is not None:  # the optional action chooses null: its verb alone
                def text(v, m, inner=text, verb=site["optional"]):
                    return verb if v == NULL else inner(v, m)
            self.text_of.append(text)
        self._start: dict = {}
        self._plans: dict = {}  # (players, without rg) -> start_arrays' (arrays to copy, [(index, array kept)])
        self.steps = self._entry()
        self.ahead = SeedsAhead()  # draws seeded ahead, many games at once (seeds in sequence)

    def _entry(self):
        """The compiled generator of the module without numba's dispatch (see
        :func:`~interpreter.fast.kernel.without_dispatch`)."""
        return without_dispatch(self.module.steps)

    def texts_for(self, tmp) -> list:
        """Each site's option text maker ``text(value, mode)`` for a state whose TMP array is
        ``tmp`` (a site whose options are pairs reads their parts there)."""
        if not self.tuple_sites:
            return self.text_of
        out = list(self.text_of)
        for site, (make, row) in self.tuple_sites.items():
            def text(v, m, make=make, row=row, tmp=tmp):
                return make(tmp, row, v)
            if make is None:  # a set choice (interpreter.fast.multichoice)
                text = multichoice.text_maker(self.info["sites"][site]["verb"], self.names, row, tmp)
            elif row is None:  # a real-time block with options that are lists (_realtime_text)
                text = make(tmp)
            optional = self.info["sites"][site].get("optional")
            if optional is not None:
                def text(v, m, inner=text, verb=optional):
                    return verb if v == NULL else inner(v, m)
            out[site] = text
        return out

    def start_arrays(self, num_players: int, into: dict | None = None, rg=None) -> list:
        """Fresh arrays of a game's start (in STATE_ARGS order), copied from a template per player
        count; the card attribute table is shared (nothing writes it). ``into``: {index in
        STATE_ARGS: an array of the template's shape and dtype, C-contiguous (a row of a batch's
        array)} to copy the start into and use instead of a new array (the vectorised environment
        reads every game's options and zones from one array). ``rg``: the game's RG array (its
        draws seeded ahead, :mod:`interpreter.fast.stepseeds`), used as it is."""
        tpl = self._start.get(num_players)
        if tpl is None:
            arrays = state_arrays(self.game, self.info, num_players, 1)
            tpl = self._start[num_players] = [(arrays[k], k not in ("ATTR", "NP")) for k in STATE_ARGS]
        if not into:  # (the hot path: the copies in one C loop, the others put in their places)
            plan = self._plans.get((num_players, rg is None))
            if plan is None:
                plan = self._plans[(num_players, rg is None)] = (
                    [a for k, (a, copy) in enumerate(tpl) if copy and (rg is None or k != _RG)],
                    [(k, None if copy else a) for k, (a, copy) in enumerate(tpl) if not copy or (rg is not None and k == _RG)])
            copies, kept = plan
            out = list(map(_copy, copies))
            for k, a in kept:
                out.insert(k, rg if a is None else a)
            return out
        out = [a if not copy or k in into else a.copy() for k, (a, copy) in enumerate(tpl)]
        for k, target in into.items():
            if target.shape != out[k].shape or target.dtype != out[k].dtype or not target.flags.c_contiguous:
                raise ValueError(f"start_arrays: {STATE_ARGS[k]} must be C-contiguous {out[k].dtype}{out[k].shape}")
            target[...] = out[k]
            out[k] = target
        if rg is not None:
            out[_RG] = rg
        return out


def _realtime_text(alts, texts, names):
    """The option texts of a real-time block's site (``alts``: each action's verb, option type and,
    for options that are lists, the first TMP row of their parts): ``bind(tmp)`` gives
    ``text(value, mode)``, the mode being the action's index (``tmp``: a state's TMP array, None
    when no option is a list)."""
    makers = [option_text_maker(a["verb"], a["elem"], texts, names, NULL) if a.get("tuple_row") is not None else None
              for a in alts]

    def bind(tmp):
        def text(v, m):
            a = alts[m]
            if makers[m] is not None:
                return makers[m](tmp, a["tuple_row"], v)
            if a["elem"] == "null":
                return a["verb"]
            if a["elem"] == "card":
                return f"{a['verb']} {names[v]}"
            word = text_of_value(v, texts) if a["elem"] == "text" else ("yes" if v else "no") \
                if a["elem"] == "bool" else v
            return f"{a['verb']} {word}"
        return text
    return bind


class MachineStepKernel(StepKernel):
    """A :class:`StepKernel` whose module is the bytecode machine's (:class:`~interpreter.fast.vm.MachineSteps`:
    the same games, ready at once) while ``behind`` (a :class:`~interpreter.fast.behind.CompileBehind`)
    compiles the step module in another process: :func:`step_kernel_for` gives the compiled one
    once it is done (a state keeps the module it started with)."""
    behind = None


def step_kernel_for(game, compiled: bool = False) -> StepKernel:
    """The step kernel of ``game`` (built once per Game and process; numba caches the machine
    code on disk). When that code is not in the cache yet, the kernel is first a
    :class:`MachineStepKernel` while another process compiles it (``RULEBOOK_MACHINE=off``: it
    compiles here, at the first state). ``compiled``: the compiled one only (compiled here if
    need be, or the compile under way waited for): for work shared with other processes, which would
    each start one, or that should not start on the machine. Raises :class:`NotTyped` with the reason when the
    spec does not type for it."""
    from .behind import compile_over, on_the_machine

    def build(game):
        source, info = lower_steps(game)
        module, path = load_module(source, "rulebook_steps")
        if not compiled and not in_cache(module, path, "steps"):
            from . import vm
            early = on_the_machine(game, source, lambda: MachineStepKernel(game, source, info, vm.machine_steps(source)),
                                   "steps")
            if early is not None:
                return early
        return StepKernel(game, source, info, module)
    kernel = built_once(_STEPS, game, build)
    if kernel.__class__ is MachineStepKernel and compile_over(kernel, "steps", compiled):
        kernel = StepKernel(game, kernel.source, kernel.info, load_module(kernel.source, "rulebook_steps")[0])
        _STEPS[id(game)] = (game, kernel)
    return kernel


def fast_state(game, num_players: int, seed: int = 0, into: dict | None = None) -> "FastState":
    """A new :class:`FastState` at the first decision (``into``: arrays to play in, see
    :meth:`StepKernel.start_arrays`). Raises :class:`RulebookError` saying why when the spec (with
    its options) does not run in the kernel, or for a player count outside the spec's range."""
    hit = _STEPS.get(id(game))  # the usual case, a game already built, checked in a few tests
    if hit is not None and hit[0] is game and num_players.__class__ is int and seed.__class__ is int \
            and game.min_players <= num_players <= game.max_players and -(2 ** 63) < seed < 2 ** 63 \
            and hit[1].__class__ is StepKernel:
        state = FastState(hit[1], num_players, seed, into)
        if state._over and state.RI[RI_ERROR] != 0:
            _stopped_at_start(game, state, num_players, seed)
        return state
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise RulebookError(f"the number of players must be a whole number, not {num_players!r}")
    if not game.min_players <= num_players <= game.max_players:
        raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {num_players}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not -(2 ** 63) < seed < 2 ** 63:
        raise RulebookError(f"fast=True takes a seed that fits in 64 bits (|seed| < 2**63), not {seed!r:.50}: "
                            f"use new_state(..., fast=False) for larger seeds")
    try:
        kernel = step_kernel_for(game)
    except NotTyped as exc:
        raise RulebookError(f"the fast step API cannot run this game: {exc}. Use new_state(..., fast=False).") from None
    state = FastState(kernel, num_players, seed, into)
    if state.is_terminal() and state.RI[RI_ERROR] != 0:  # the rules stop before the first choice
        _stopped_at_start(game, state, num_players, seed)
    return state


def _stopped_at_start(game, state, num_players: int, seed: int) -> None:
    """The rules stopped the kernel's game before its first choice: raise the step API's error
    (with where and why), or say the kernel stopped where the step API plays on."""
    game.new_state(num_players, seed=seed)  # raises the step API's error, with where and why
    raise RulebookError(f"the kernel stopped the game at its start (code {int(state.RI[RI_ERROR])}) where the "
                        f"step API plays on: use new_state(..., fast=False)")


_STALE = "these legal actions are of an earlier position: ask legal_actions() again"


class _PyTurn:
    """The hot path of :class:`FastActions` in Python (used when the C extension
    ``interpreter/fast/_stepcore.c``, which has the same, is not built): ``len`` and a whole-number
    index in range; anything else goes to :meth:`FastActions._item`."""

    __slots__ = ("state", "n")

    def __len__(self):
        n = self.n
        if n < 0:
            raise RulebookError(_STALE)
        return n

    def __getitem__(self, i):
        if i.__class__ is not int or not 0 <= i < self.n:  # (one test: stale lists fail it too)
            return self._item(i)
        st = self.state
        st._offer = action = _new_tuple(Action, (st._seat, st._textf(st._vals[i], st._mods[i]), i))
        return action


class _PyCore:
    """The hot path of :class:`FastState` in Python (used when the C extension, which has the same
    methods and fields, is not built): a turn and the action the legal actions just built; anything
    else goes to FastState's methods (``_players_sim``, ``_legal_sim``, ``_apply_checked``,
    ``_ended``, ``_simultaneous``, ``_too_long``)."""

    __slots__ = ("gen", "records", "_la", "_offer", "_textf", "_texts", "_sim", "_seat", "_n", "_limit", "_move",
                 "_over")

    def _bind(self, ri, opt) -> None:
        """(The C core reads RI and OPT through pointers; this one through FastState's memoryviews.)"""

    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self._over

    def current_players(self) -> list:
        """Seats that must choose now: ``[seat]`` in a turn, every seat yet to choose in a
        simultaneous choice (in the choice's order), ``[]`` when the game is over."""
        if self._sim is not None:
            return self._players_sim()
        return [] if self._over else [self._seat]

    def legal_actions(self, player: int | None = None):
        """The legal actions (a sequence of :class:`Action`, as the State's: same texts, same
        order) of ``player`` (default: the first player to choose, as the State's); empty for
        anyone else."""
        if self._sim is not None:
            return self._legal_sim(player)
        if self._over or (player is not None and player != self._seat):
            return []
        actions = self._la  # one list per position (a move marks it stale)
        if actions.n < 0:
            actions = self._la = FastActions.__new__(FastActions)
            actions.state = self
            actions.n = self._n
        return actions

    def apply(self, action, player: int | None = None) -> None:
        """Apply ``action`` (an :class:`Action`, its text, or its index in ``legal_actions``) for
        ``player`` (default: the action's player, or the only player to choose) and run the rules
        to the next choice (at a simultaneous choice, once every seat has chosen). Raises
        :class:`IllegalAction` with the reason, leaving the state unchanged, when the game is over,
        the player is not to act, or the action is not legal; a rule that fails, or a game past
        ``game.max_actions`` actions, is reported as the step API reports it (the position is
        replayed in a State to say what failed)."""
        # the Action the legal actions just built is legal for its seat (a turn's: a simultaneous
        # choice's lists do not offer theirs): only the player given (a whole number, that seat) is
        # left to check, in two tests; and its index, which the rules read unchecked (a list's n or the
        # state's fields may have been set by hand)
        if action is not self._offer or player is not None and (player.__class__ is not int or player != self._seat) \
                or not 0 <= action[2] < self._n:
            return self._apply_checked(action, player)
        records = self.records
        if len(records) >= self._limit:
            self._too_long(action)
        self._offer = _NOTHING
        records.append(action)
        self._ri[RI_CHOSEN] = action[2]
        self._la.n = -1  # the position moves: its list is stale
        try:
            ask = next(self.gen)
        except StopIteration:
            return self._ended()
        self._seat = seat = ask & 0xFFFF
        self._n = (ask >> 16) & 0xFFFFF
        self._textf = self._texts[ask >> 36]
        if seat == 0xFFFF:
            self._move += 1
            self._simultaneous(ask >> 36)


if os.environ.get("RULEBOOK_STEP_CORE") == "python":  # (the tests compare both)
    _stepcore = None
else:
    try:
        from . import _stepcore
    except ImportError:  # not built (no C compiler at install): the same hot path in Python
        _stepcore = None
CORE = "python" if _stepcore is None else "C"  # which hot path the step API runs


class FastActions(_PyTurn if _stepcore is None else _stepcore.Turn, Sequence):
    """The legal actions of the seat to choose at one position: a read-only sequence of
    :class:`Action` built one at a time when read (``random.choice`` builds one). Valid until the
    state moves on; reading it afterwards (even its length) raises RulebookError, where the
    State's list would still read as it was. (A turn's list is one object per position, which
    the move marks stale by setting its ``n`` to -1: the hot path's test of the index is the
    test of staleness too.) Its length and whole-number index run in C when the extension is
    built (:data:`CORE`)."""

    __slots__ = ()

    def _stale(self) -> bool:
        return self.n < 0

    def _index(self, i) -> int:
        if self._stale():
            raise RulebookError(_STALE)
        if i.__class__ is not int:
            if isinstance(i, bool) or not hasattr(i, "__index__"):
                raise TypeError(f"legal actions are read by a whole-number index, not {i!r:.40}")
            i = i.__index__()
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError("legal action index out of range")
        return i

    def _item(self, i):
        """``self[i]`` past the hot path: a slice, a negative or other index, a stale list."""
        if i.__class__ is slice:
            return [self[k] for k in range(*i.indices(len(self)))]
        i = self._index(i)
        st = self.state
        st._offer = action = _new_tuple(Action, (st._seat, st._textf(st._vals[i], st._mods[i]), i))
        return action

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __reduce_ex__(self, protocol):
        # (the C core's cannot be copied: a copy would not be marked stale when the state moves,
        # in the Python core either; list(actions) copies the Actions)
        raise TypeError(f"cannot copy or pickle {type(self).__name__!r} object: list(actions) copies its Actions")

    def __eq__(self, other):
        return list(self) == list(other)

    def __repr__(self):
        return repr(list(self))


_DEAD = FastActions.__new__(FastActions)  # a state's turn list before any is asked for (stale: legal_actions makes one)
_DEAD.n = -1
if _stepcore is not None:
    _stepcore.configure(RulebookError, _STALE, Action, FastActions, _NOTHING, RI_CHOSEN)


class SeatActions(FastActions):
    """The legal actions of one seat at a simultaneous choice (its options sit at ``off`` in the
    views ``vals``/``mods`` of the rows the choice lists them in), valid while the state's move
    count is ``move``."""

    __slots__ = ("seat", "vals", "mods", "off", "move")

    def __init__(self, state, seat, vals, mods, off, n):
        self.state, self.n, self.move = state, n, state._move
        self.seat, self.vals, self.mods, self.off = seat, vals, mods, off

    def _stale(self) -> bool:
        return self.state._move != self.move

    def __len__(self):
        if self.state._move != self.move:
            raise RulebookError(_STALE)
        return self.n

    def __getitem__(self, i):
        if i.__class__ is slice:
            return [self[k] for k in range(*i.indices(self.n))]
        k = self.off + self._index(i)
        return Action(self.seat, self.state._textf(self.vals[k], self.mods[k]), k - self.off)


_Core = _PyCore if _stepcore is None else _stepcore.Core
# the fields of the hot path's base class (C or Python), which _fail copies with FastState's own
_CORE_FIELDS = _PyCore.__slots__


class FastState(_Core):
    """One game run by the step kernel (see the module's docstring). Create it with
    ``game.new_state(num_players, seed=..., fast=True)`` or :func:`fast_state`. ``records`` holds
    the :class:`Action` of every move, in order (a simultaneous choice's in the order they came).
    ``into``: arrays to play in (see :meth:`StepKernel.start_arrays`). Its hot path
    (:meth:`is_terminal`, :meth:`current_players`, :meth:`legal_actions`, :meth:`apply` at a turn)
    runs in C when the extension is built (:data:`CORE`), else in Python (``_PyCore``), the
    same rules either way."""

    __slots__ = ("kernel", "game", "num_players", "seed", "arrays", "RI", "_ri", "_vals", "_mods")

    def __init__(self, kernel: StepKernel, num_players: int, seed: int = 0, into: dict | None = None):
        self.kernel, self.game, self.num_players, self.seed = kernel, kernel.game, num_players, seed
        ahead = kernel.ahead.rows(seed)  # its first draws' generators, seeded with other games' (stepseeds.py)
        self.arrays = arrays = kernel.start_arrays(num_players, into, None if ahead is None else ahead[0])
        self.RI = arrays[_RI]
        # memoryviews: reading and writing single numbers through them is cheaper than numpy's
        self._ri = memoryview(self.RI)
        self._ri[0] = seed
        if ahead is not None:
            self._ri[RI_FIRST_DRAW], self._ri[RI_AHEAD] = 0, ahead[1]
        opt = arrays[_OPT]
        self._vals, self._mods = memoryview(opt[0]), memoryview(opt[1])
        self._bind(self.RI, opt)
        self.records = []
        self._limit = self.game.max_actions
        self._move = 0  # positions moved through, as SeatActions read it (turns need not count: see _la)
        self._la = _DEAD  # the turn's list of legal actions made at this position (stale: none yet)
        self._offer = _NOTHING  # the last Action the legal actions built (applied without a check)
        self._over = False
        self._sim = None  # at a simultaneous choice: see _simultaneous
        self._texts = kernel.texts_for(arrays[_TMP])
        # a flow with no choice compiles to a plain function: it has played the whole game
        self.gen = kernel.steps(*self.arrays) or iter(())
        self._advance()

    def _advance(self) -> None:
        """Run the rules to the next choice (or the end): the generator yields the seat (0xFFFF:
        several seats at once), the number of options (or of seats) and the choice's site, packed
        in one number."""
        self._la.n = -1  # the position moves: its list is stale
        try:
            ask = next(self.gen)
        except StopIteration:
            self._over = True
            self._seat = self._n = -1
            self._la = _DEAD  # (as _ended)
            self.kernel.ahead.learn(self._ri[RI_DRAWS])
        else:
            self._seat, self._n, self._textf = ask & 0xFFFF, (ask >> 16) & 0xFFFFF, self._texts[ask >> 36]
            if self._seat == 0xFFFF:
                self._simultaneous(ask >> 36)
        self._move += 1

    def _simultaneous(self, site: int) -> None:
        """A simultaneous choice: ``_sim`` = {"order": seats in list order, "at": seat -> (its
        place in the list, the views and offset of its options, their count), "chosen": seat ->
        index, "rows": the TMP rows}, read from the rows of TMP the site names."""
        where = self.kernel.info["sites"][site]["simultaneous"]
        tmp = self.arrays[STATE_ARGS.index("TMP")]
        base = where["rows"]
        seats = [int(x) for x in tmp[where["seats"], :self._n]]
        vals, mods = memoryview(tmp[base + 2]), memoryview(tmp[base + 3])
        at = {seat: (k, vals, mods, int(tmp[base + 4, k]), int(tmp[base + 5, k])) for k, seat in enumerate(seats)}
        self._sim = {"order": seats, "at": at, "chosen": {}, "tmp": tmp, "base": base,
                     "realtime": bool(self.kernel.info["sites"][site].get("realtime"))}

    @property
    def pending(self):
        """``{"realtime": True}`` in a real-time block (for a Scheduler: several seats may act,
        the first to act gets the spot), else None."""
        sim = self._sim
        return {"realtime": True} if sim is not None and sim["realtime"] else None

    def _options(self, seat: int):
        """``(views, offset, count)`` of ``seat``'s options now, or None if the seat is not to choose."""
        sim = self._sim
        if sim is None:
            return (self._vals, self._mods, 0, self._n) if seat == self._seat and not self._over else None
        hit = sim["at"].get(seat)
        if hit is None or seat in sim["chosen"]:
            return None
        return hit[1:]

    def _action(self, seat: int, i: int) -> Action:
        vals, mods, off, _ = self._options(seat)
        return Action(seat, self._textf(vals[off + i], mods[off + i]), i)

    # -- the State's play API ---------------------------------------------------------------
    def is_chance_node(self) -> bool:
        return False

    def _players_sim(self) -> list:
        """:meth:`current_players` at a simultaneous choice: every seat yet to choose, in the
        choice's order."""
        chosen = self._sim["chosen"]
        return [p for p in self._sim["order"] if p not in chosen]

    def _legal_sim(self, player):
        """:meth:`legal_actions` at a simultaneous choice."""
        if player is None:  # as the State: the first seat still to choose
            waiting = self.current_players()
            if not waiting:
                return []
            player = waiting[0]
        found = self._options(player)
        if found is None:
            return []
        return SeatActions(self, player, *found)

    def _apply_checked(self, action, player) -> None:
        """:meth:`apply` of an action to check (any but the one just offered, or another
        player's), at a turn or at a simultaneous choice."""
        sim = self._sim
        action = self._check(action, player)
        if len(self.records) >= self._limit:
            self._too_long(action)
        self._offer = _NOTHING
        self.records.append(action)
        if sim is None:  # a turn
            self._ri[RI_CHOSEN] = action[2]
        elif sim["realtime"]:  # first come, first served: this seat acts now
            sim["tmp"][sim["base"] + 6, 0] = action[0]
            self._ri[RI_CHOSEN] = action[2]
            self._sim = None
        else:
            sim["chosen"][action[0]] = action[2]
            if len(sim["chosen"]) < len(sim["order"]):
                return  # the others' lists stay valid (the position has not moved), as the State's
            row = sim["tmp"][sim["base"] + 6]
            for seat, (k, *_) in sim["at"].items():
                row[k] = sim["chosen"][seat]
            self._sim = None
        self._advance()
        if self._over and self._ri[RI_ERROR] != 0:
            self._fail()

    def _ended(self) -> None:
        """The rules ran to the end after a move: the game is over (or, if a rule failed, the
        step API's error is raised, see :meth:`_fail`)."""
        self._over = True
        self._seat = self._n = -1
        self._move += 1
        # the last list (stale) refers to this state: let go of it, so that a finished game's
        # state and arrays are freed when the caller drops it, not at the next garbage collection
        self._la = _DEAD
        self.kernel.ahead.learn(self._ri[RI_DRAWS])
        if self._ri[RI_ERROR] != 0:
            self._fail()

    def _check(self, action, player) -> Action:
        """The legal Action that ``action`` (an Action, text or index) names for ``player``, or
        IllegalAction."""
        if self._over:
            raise IllegalAction("the game is over")
        waiting = self.current_players()
        if player is not None and (type(player) is not int or not 0 <= player < self.num_players):
            raise IllegalAction(f"there is no seat {player!r:.40} (seats are whole numbers 0..{self.num_players - 1})")
        if player is None:
            if isinstance(action, Action):
                player = action.player
                if type(player) is not int:  # (as the State: an Action's seat is a whole number)
                    raise IllegalAction(f"{action!r:.80} is not an action of this game")
            elif len(waiting) == 1:
                player = waiting[0]
            else:
                raise IllegalAction(f"say which player acts: several players are choosing at once ({waiting})")
        if player not in waiting:
            raise IllegalAction(f"P{player} has nothing to choose now (to choose: {waiting})")
        _, _, _, n = self._options(player)
        if isinstance(action, Action):
            i = action.index
            if type(i) is not int or type(action.text) is not str:
                raise IllegalAction(f"{action!r:.80} is not an action of this game")
            if action.player != player or not (0 <= i < n) or self._action(player, i).text != action.text:
                raise IllegalAction(f"{action.text!r} is not a legal action of P{player} here")
            return self._action(player, i)
        if isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < n:
                raise IllegalAction(f"there is no action {action} here: the legal actions are 0..{n - 1}")
            return self._action(player, action)
        if isinstance(action, str):  # read as the State reads it: spaces as one, case only if it decides
            text = " ".join(action.split())
            options = [self._action(player, k) for k in range(n)]
            fits = [a for a in options if a.text == text] or [a for a in options if a.text.lower() == text.lower()]
            if len(fits) == 1:
                return fits[0]
            legal = ", ".join(a.text for a in options[:12]) + (", ..." if n > 12 else "")
            raise IllegalAction(f"{action!r} is not a legal action here (legal: {legal})")
        raise IllegalAction(f"an action is an Action, its text or its index, not {action!r}")

    def _fail(self) -> None:
        """The rules stopped the game: restore the position before the last action and raise the
        step API's error for that action."""
        state = self.game.new_state(self.num_players, seed=self.seed)
        for a in self.records[:-1]:
            state.apply(a.index, a.player)
        fresh = self._replayed(self.records[:-1])
        last = self.records[-1]
        for k in self.__slots__ + _CORE_FIELDS:
            setattr(self, k, getattr(fresh, k))
        self._bind(self.RI, self.arrays[_OPT])
        self._la, self._offer = _DEAD, _NOTHING  # (fresh's list and Action are of fresh)
        state.apply(last.index, last.player)  # raises the rule's error (RuleError, with where and why)
        raise RulebookError(f"the kernel stopped the game (code {int(self.RI[RI_ERROR])}) where the step API plays on: "
                            f"use new_state(..., fast=False) and please report this game (seed {self.seed})")

    def _too_long(self, action) -> None:
        """The game has taken ``game.max_actions`` actions: raise the step API's error for
        ``action`` (the bound, at the spec line of the choice), the position unchanged."""
        self.to_state().apply(action.index, action.player)  # raises RuleError naming the bound
        raise RulebookError(f"the game has taken {len(self.records)} actions, the bound (game.max_actions), "
                            f"where the step API plays on: please report this game (seed {self.seed})")

    def _replayed(self, actions) -> "FastState":
        new = FastState(self.kernel, self.num_players, self.seed)
        for a in actions:
            new.apply(a.index, a.player)
        return new

    def scores(self) -> list:
        """Each player's score by the spec's ``score`` (None for a null score)."""
        out = np.zeros(self.num_players, dtype=np.int64)
        self.kernel.module.scores(*self.arrays, out)
        return [None if v == NULL else int(v) for v in out]

    def winners(self) -> list:
        """Seats with the best score (ties share the win); ``[]`` unless terminal."""
        if not self._over:
            return []
        scores = [s if s is not None else 0 for s in self.scores()]
        best = (min if self.game.winner_rule == "lowest" else max)(scores)
        return [p for p, s in enumerate(scores) if s == best]

    @property
    def history(self) -> list:
        """``[seat, action text]`` of every action, as the State's history."""
        return [[a.player, a.text] for a in self.records]

    def clone(self) -> "FastState":
        """An independent copy, made by replaying the actions (a generator cannot be copied)."""
        return self._replayed(self.records)

    def to_state(self):
        """The :class:`~interpreter.model.state.State` of the same position (the actions replayed
        through the step API): for observations, exports, JSON, search."""
        state = self.game.new_state(self.num_players, seed=self.seed)
        for a in self.records:
            state.apply(a.index, a.player)
        return state

    def observation(self, player: int) -> dict:
        """The State's :meth:`~interpreter.model.state.State.observation`, of :meth:`to_state` (a
        replay of the actions: slow, for occasional use)."""
        return self.to_state().observation(player)

    def export(self, player: int) -> dict:
        """The State's :meth:`~interpreter.model.state.State.export`, of :meth:`to_state` (a replay)."""
        return self.to_state().export(player)

    def __copy__(self) -> "FastState":
        return self.clone()

    def __deepcopy__(self, memo) -> "FastState":
        return self.clone()

    def to_json(self, seat: int | None = None) -> str:
        """:meth:`to_state`'s JSON."""
        return self.to_state().to_json(seat) if seat is not None else self.to_state().to_json()

    def __repr__(self) -> str:
        where = "over" if self._over else f"{self.current_players()} to choose"
        return f"<FastState {self.game.name} {self.num_players}p seed={self.seed}: {len(self.records)} actions, {where}>"
