"""The type pass: a spec's checked syntax tree lowered to a typed numba kernel, or the reason why not.

:func:`lower` walks the spec (``game.spec``: flow, phases, define, score) and the syntax trees of its
expressions (:func:`interpreter.expr.compiler.parse`), gives every value a machine type and writes
one Python module for numba. The typing:

- every value is one ``int64``: numbers and booleans as themselves, texts as ``TEXT_BASE + k``
  (``k`` their place in a table of the texts of the spec, so a text never equals a number), a card
  as its id, a seat as its number, ``null`` as :data:`NULL` (one value that no number, text or
  card takes);
- card attributes are ``int64`` arrays indexed by card id (``ATTR[a, card]``);
- a zone is a row of ``Z`` (card ids, bottom first) with its length in ``ZN``; a player's zone
  has one row per seat; ``LOC[card]`` is the row holding the card, ``PB``/``MD`` its marks (who
  played it, its mode);
- game variables are ``GV[k]``, player variables ``PV[seat, k]``.

A list exists only where it is consumed (a ``for`` step, a choice's options, a ``random`` pick, or
``count``, ``sum``, ``first``, ``top``, ``argmax``, ``argmin``, ``any``, ``all``, ``in``, ``min`` and
``max`` of a list): a loop is written there, so no list is ever built in the kernel except the
snapshot a ``for`` step takes (as the step API does) and the options of a choice.

The bots are inside the kernel: the random bot of seat ``p`` is ``random.Random(seed * 1_000_003 +
p)`` picking ``choice(legal options)`` exactly as :class:`~interpreter.agents.basic.RandomAgent`,
and every ``shuffle``/``random`` step draws from ``random.Random(f"{seed}/{k}")`` as the State does
(see :mod:`interpreter.fast.rng`), so the kernel plays the step API's games.

:func:`lower_steps` writes the same rules for the kernel's step API (:mod:`interpreter.fast.steps`):
one numba generator, every phase written where it runs, that yields at each choice instead of
asking a bot (the caller writes the index chosen into ``RI``).

:class:`Lowering` is made of one mixin per construct family: the card table, values and their types
in :mod:`interpreter.fast.values`, expressions in :mod:`interpreter.fast.expressions`, built-in calls
and generated helpers in :mod:`interpreter.fast.calls`, steps in :mod:`interpreter.fast.lowsteps`; this
module composes them and writes the module (its header, the bodies of the flow, phases and score, the
driver). Teams, indexing ``x[k]``, ``xs + ys``, ``holder()``, ``argmax``'s ties and a game variable's list
that no step changes are lowered by :mod:`interpreter.fast.teams`; a player variable holding a map
with fixed keys by :mod:`interpreter.fast.maps`. Pairs, map literals and comprehensions over several
lists and ``product()`` are lowered in :mod:`interpreter.fast.compound`, lists of maps, of pairs and
of single values in game variables in :mod:`interpreter.fast.listvars`, real-time steps (with the
round-robin scheduler) in :mod:`interpreter.fast.realtime`, ``climb`` steps in
:mod:`interpreter.fast.climb`, zones of sets (a row of ``Z`` per set) in
:mod:`interpreter.fast.setzones`, ``without()``, ``sort_by`` and slicing in
:mod:`interpreter.fast.listops`, melds of sets in :mod:`interpreter.fast.melds`, seats sitting out
(``turns: skip``), ``for … until`` and ``end`` in :mod:`interpreter.fast.turnorder`, derived card
attributes and texts joined with ``+`` in :mod:`interpreter.fast.derived` (two run-time texts of
known sets of texts in :mod:`interpreter.fast.textsets`). The rows of ``TMP``/``OPT``
are as wide as the longest list of constant length a step keeps (``info["width"]``, at least
MAX_LIST); a list whose length is known only at run time is checked as it is kept (error 6).

What does not type raises :class:`NotTyped` with the reason and the spec path (a set choice, a
list in a player variable, a board, ...): ``simulate`` then runs the
step API and says why.

How spec text is kept out of the generated module: it is written from the fixed templates of these
modules, whose holes are only integers (indices of zones, variables, attributes, texts; literal
numbers) and names this module makes (``vN``, ``tN``, ``hN``, ``phN``); a spec's names, texts and
expressions never appear in it (texts become numbers). :func:`check_source`
(:mod:`interpreter.fast.guard`) parses the module and
refuses any name, attribute or constant outside that set; the kernel runs it before every import,
and ``tests/test_fast_kernel.py`` runs it on every spec's module.
"""
from __future__ import annotations

import functools
import re

from ..expr.compiler import parse
from .calls import Calls, _memo
from .expressions import Expressions
from .guard import check_source
from .lowsteps import StepLowering
from .lowtypes import BOOL, CARD, INT, MAX_LIST, NJIT, RI_CHOSEN, SEARCH_PHASE, STATE_ARGS, NotTyped, _indent
from .maps import PlayerMaps
from .teams import TeamsAndIndexing
from .values import Values
from . import derived, liststarts, realtime, setzones, turnorder, turnrecord

# re-exported: what the kernel, its drivers and the tests import from here (the type pass's one
# front: the pieces moved to their own modules keep the names they had)
from .calls import _bound_in, _hoist  # noqa: F401,E402
from .lowsteps import REFUSED, STEP_KINDS  # noqa: F401,E402
from .lowtypes import (ERR_MAX_ACTIONS, EMPTY, NO_OVERRIDE, NUL, NULL, RI_ACTIONS, RI_COUNT, RI_ERROR,  # noqa: F401,E402
                       RI_LISTING, RI_MAX_ACTIONS, RI_SEED, RI_SIZE, SEARCH_RANDOM, SEARCH_SHUFFLE, TEXT, TEXT_BASE,
                       UNSET, ListT, _empty_list, _fold, _join, _known, _names)
from .values import _declared_attributes  # noqa: F401,E402


_DEFINE_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*\))?\s*$")


def spec_line(game, path: str) -> int:
    """The spec line of a lowering path such as ``phases.trick[4].then[0].set`` (its nearest
    part the YAML reader placed: a path into an expression stops at its step), or 0."""
    keys = tuple(int(k) if k.isdigit() else k for k in re.findall(r"[^.\[\]]+", path))
    try:
        return int(game.position(keys).line)
    except (AttributeError, TypeError):
        return 0


class Lowering(Values, Expressions, Calls, StepLowering, TeamsAndIndexing, PlayerMaps):
    """One spec with one choice of options, lowered to the source of a numba module.

    ``fold``: the options whose values are written into the module as constants (a condition on
    them decided there, the branch not taken left out); every other option is read at run time
    from its slot of ``GV`` after the game variables (:attr:`option_slot`), so that the module,
    hence its compiled machine code, serves every value of those options."""

    def __init__(self, game, steps: bool = False, fold=frozenset(), search: bool = False):
        self.game = game
        # search (implies steps): the module of the in-kernel search (interpreter.fast.search): its
        # draws and flow-level phases also yield, so the search's driver decides the draws
        self.search = search
        steps = steps or search
        self.fold = frozenset(fold)
        self.spec = game.spec
        # steps: the module of the kernel's step API (interpreter.fast.steps): a choice waits for
        # the caller (a generator yields) instead of asking a random bot, and phases are inlined
        self.steps = steps
        self.sites: list = []  # steps: each choice's verb and option kind, by its site number
        self.phase_calls: dict = {}  # steps: the line calling a phase -> (phase name, argument codes)
        self.texts: dict = {}
        self.counter = 0
        self.helpers: list = []  # lines of generated helper functions
        self.path = ""
        # zones: rows of Z
        self.maxp = int(game.max_players)
        self.zone_row: dict = {}
        self.per_player: dict = {}
        self.set_zones: dict = {}  # a zone of sets -> its rows per owner (setzones.py)
        self.ncards = len(game.cards)
        row = 0
        for name, zd in game.zones.items():
            self.zone_row[name] = row
            self.per_player[name] = zd.per_player
            if zd.sets:
                if name == game.initial_zone:
                    raise NotTyped(f"zone {name!r}: a zone of sets holding every card at the start", f"zones.{name}")
                row += setzones.layout(self, name, zd)
            else:
                row += self.maxp if zd.per_player else 1
        row += turnrecord.layout(self, row)  # (turns: {phase}: one row, see turnrecord.py)
        self.rows = max(row, 1)
        # cards of each player (per_player card entries): the table holds every seat's; a game starts
        # with those of its seats in the initial zone (kernel.state_arrays, as Game.cards_in_play)
        if self.ncards == 0:
            raise NotTyped("the game has no cards")
        self.derived = derived.parse_derived(self)  # (derived.py)
        self.printed, self.deriving, self.text_joins = None, [], []
        self.card_table()  # types the cards (the table is made again once the rules are lowered)
        self.texts = {}
        # variables
        self.const_lists: dict = {}  # game variables holding a list no step sets (teams.py)
        self.pmaps, self.pmap_types, self.pmap_defaults, self.map_targets = {}, {}, [], {}  # (maps.py)
        self.gmaps, self.gmap_types = {}, {}  # a game variable's map -> its first row of Z; its key and value types (mapvars.py)
        self.gvars = {k: i for i, k in enumerate(game.var_defaults)}
        self.pvars = {k: i for i, k in enumerate(game.pvar_defaults)}
        self.gtypes = {k: self.typed_default(v, f"variable {k}", f"variables.{k}") for k, v in game.var_defaults.items()}
        self.ptypes = {k: self.typed_default(v, f"player variable {k}", f"player_variables.{k}")
                       for k, v in game.pvar_defaults.items()}
        self.option_slot = {k: len(self.gvars) + i for i, k in enumerate(k for k in game.options if k not in self.fold)}
        self.team_targets: dict = {}  # the store code of a team variable -> (seat code, slot): see teams.py
        # the seat that acted last, for a real-time step's scheduler (see realtime), after the options
        self.last_slot = len(self.gvars) + len(self.option_slot) if realtime.uses_realtime(self.spec) else None
        self.list_rows: dict = {}  # a game variable holding a list of maps -> (its first row of Z, item type)
        liststarts.register(self)  # (lists a step sets that start with items: liststarts.py)
        # definitions
        self.defines = {}
        for key, body in (self.spec.get("define") or {}).items():
            m = _DEFINE_KEY.match(str(key))
            if not m:
                raise NotTyped(f"definition {key!r} not understood", "define")
            params = [p.strip() for p in m.group(2).split(",")] if m.group(2) else []
            self.defines[m.group(1)] = (params, parse(body if isinstance(body, str) else str(body)))
        self.phases = {}
        self.phase_key = {}  # a phase's name -> its key in the spec (with its parameters)
        for key, body in (self.spec.get("phases") or {}).items():
            m = _DEFINE_KEY.match(str(key))
            params = [p.strip() for p in m.group(2).split(",")] if m and m.group(2) else []
            self.phases[m.group(1) if m else str(key)] = (params, body or [])
            self.phase_key[m.group(1) if m else str(key)] = str(key)
        self.phase_fn = {name: f"ph{i}" for i, name in enumerate(self.phases)}
        self.depth = 0  # nesting of `for` snapshots (rows of TMP)
        self.max_depth = 1
        self.room = 0  # the longest list of constant length a row of TMP or OPT keeps (see room_for)

# -- the module ------------------------------------------------------------------------------------
HEADER = '''"""Generated by interpreter.fast.typepass from a spec's checked syntax tree (fixed templates)."""
import numpy as np
from numba import njit
from interpreter.fast.runtime import (NULL, truthy, attr_get, attr_mode, card_get, add_null, if_null, min2, max2,
                                      randbelow_row, shuffle_row, event_gen, prepare_batch, gather, move_top, deal,
                                      play_card, sort_row, new_game, raw, memo, move_card, listed_twice)
from interpreter.fast.prebuilt import prepare_batch_at
'''


def lower(game) -> tuple:
    """``(source, info)``: the numba module of ``game`` (a Game with its options) and what the
    driver needs (``info``: zone rows, card attribute table, variable defaults...). Raises
    :class:`NotTyped` with the reason when the spec does not type.

    The options are run-time data of the module where the rules type that way (the same source,
    hence one compile, for every value of them); see :func:`_lower_folding`."""
    return _lower_folding(game, False, _bodies)


def lower_steps(game) -> tuple:
    """``(source, info)`` of the kernel's step API (:mod:`interpreter.fast.steps`): the module
    holds ``steps``, a numba generator that plays the game from its start and yields at each
    choice (one number packing the seat, the number of options in ``OPT`` and the site; the caller
    writes the index chosen in ``RI``),
    and ``scores``. ``info`` is :func:`lower`'s plus ``sites``: each choice's verb, whether it
    chooses cards, its options' type, its optional action, and for a simultaneous choice the rows
    of TMP that hold its options. Raises :class:`NotTyped` as :func:`lower` does, and for a phase
    that runs itself."""
    return _lower_folding(game, True, _step_bodies)


def lower_search(game) -> tuple:
    """``(source, info)`` of the in-kernel search (:mod:`interpreter.fast.search`):
    :func:`lower_steps`'s generator, whose shuffles and random picks also yield (the driver
    draws them) and whose flow-level phases yield at their start and end (the search's horizon).
    Raises :class:`NotTyped` as :func:`lower_steps` does."""
    return _lower_folding(game, True, _step_bodies, search=True)


def _lower_folding(game, steps: bool, bodies_of, search: bool = False) -> tuple:
    """:func:`_lower` with as few options folded into the module as the rules allow: none (every
    option read at run time), else one yes/no option (a variant whose rules the kernel cannot
    type is left out when it is off: the other options stay run-time data), else every yes/no option,
    else every option (the module is then made for this option set alone). Raises the last
    attempt's NotTyped."""
    flags = [k for k, v in game.options.items() if isinstance(v, bool)]
    attempts = [frozenset()] + [frozenset([k]) for k in flags] + [frozenset(flags), frozenset(game.options)]
    for fold in dict.fromkeys(attempts):
        try:
            return _lower(Lowering(game, steps=steps, fold=fold, search=search), bodies_of)
        except NotTyped as exc:
            last = exc
    raise NotTyped(last.reason, last.path, spec_line(game, last.path) if last.path else 0)


def _lower(low, bodies_of) -> tuple:
    game = low.game
    for _ in range(8):  # variable types grow as assignments are seen: until stable
        low.changed = False
        low.helpers = []
        low.helper_names = {}
        low.counter = 0
        low.needed_phases = set()
        low.max_depth = 0
        low.room = 0
        low.memo_slots = 0
        low.sites = []
        low.phase_calls = {}
        low.text_joins = []
        try:
            bodies = bodies_of(low)
        except NotTyped:
            if low.changed:  # read before its type was known: try again with what was learnt
                continue
            raise
        if not low.changed:
            break
    else:
        raise NotTyped("the types of the variables do not settle")
    derived.finish(low, NJIT)  # the lookups of texts joined at run time, once every text is numbered
    src = HEADER + f"RUNTIME = {_runtime_digest()}\n\n" + "\n".join(low.helpers) + "\n" + bodies
    check_source(src)
    info = {
        "rows": low.rows, "ncards": low.ncards, "zone_row": low.zone_row, "per_player": low.per_player,
        "zone_span": {k: setzones.span(low, k) for k in low.zone_row},  # rows per owner (a zone of sets: many)
        "attrs": low.card_table(),  # (after the rules: their texts are numbered first, the deck's after)
        "gvars": [low.value(v, f"variable {k}") for k, v in game.var_defaults.items()] +
                 [low.value(game.options[k], f"option {k}") for k in low.option_slot] +
                 ([-1] if low.last_slot is not None else []),
        "realtime": low.last_slot is not None, "lists": bool(low.list_rows or low.gmaps),
        "pvars": [low.value(v, f"variable {k}") for k, v in game.pvar_defaults.items()] + low.map_defaults(),
        "depth": low.max_depth + 2,
        # the rows' room: MAX_LIST for lists known only at run time (checked as they are kept), more
        # for a longer list of constant length (a choice among a product of options)
        "width": max(MAX_LIST, low.room),
        "memo": low.memo_slots, "sites": list(low.sites),
        # (search hook) the variables holding a card: a search pins the cards they name
        "card_vars": [low.gvars[k] for k, t in low.gtypes.items() if t == CARD],
        "card_pvars": [low.pvars[k] for k, t in low.ptypes.items() if t == CARD],
        "texts": dict(low.texts), "initial": low.zone_row.get(game.initial_zone) if game.initial_zone else None,
    }
    return src, info


@functools.lru_cache(maxsize=None)
def _runtime_digest() -> int:
    """A number that changes with the fixed code the kernel compiles in (runtime.py, rng.py and
    this file, whose header and driver templates are the fixed part of every module; the modules
    its mixins live in write only text, which is the module's own): numba's cache of a generated module knows only that module's file, so the module's
    text (hence its name) must change when the code compiled into it does. Read once per process
    (the code it runs is the code imported; forked workers then make the parent's module)."""
    import hashlib
    from pathlib import Path
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in ("runtime.py", "rng.py", "typepass.py"):
        h.update((here / name).read_bytes())
    return int.from_bytes(h.digest()[:6], "big")


def _bodies(low) -> str:
    out, driver = [], _DRIVER
    phases = _phase_bodies(low)
    low.depth = low.max_depth
    flow = turnorder.flow_start(low) + turnrecord.flow_start(low) + liststarts.start_lines(low) + _memo(low.block(low.spec.get("flow") or [], {}, "flow"), low.memo_slot)
    _check_called(low)
    try:  # every phase written where it runs (one function for numba to compile: a function per phase
        # made LLVM optimise and emit each phase again in every caller; see tools/kernel_compile.py)
        flow = _inline_phases(low, phases, flow, frozenset())
    except NotTyped:  # a phase that runs itself: a function per phase, and the driver not cached (numba's
        # cached machine code of mutually recursive functions crashed the next process that loaded it)
        driver = _DRIVER.replace("@njit(cache=True,", "@njit(cache=False,", 1)
        for name, (args, body) in phases.items():
            out += [NJIT,
                    f"def {low.phase_fn[name]}({', '.join(STATE_ARGS + tuple(args))}):"] + _indent(body) + [""]
    out += [NJIT, f"def flow({', '.join(STATE_ARGS)}):"] + _indent(flow) + [""]
    out += _score_lines(low)
    arrays = [a for a in STATE_ARGS if a != "NP"] + list(_DRIVER_ARRAYS)
    out += [driver.format(args=", ".join(STATE_ARGS), raws="\n".join(f"    {a} = raw({a})" for a in arrays))]
    return "\n".join(out)


def _memo_body(low, lines):
    """:func:`_memo` of a flow or phase body, but in a step generator (``low.steps``), whose
    memo reads (``x if c else y``) numba 0.68 may fail to type there ("state variable types
    cannot be found"): there each call is made where it stands."""
    return lines if low.steps else _memo(lines, low.memo_slot)


def _phase_bodies(low) -> dict:
    """Each phase's name -> (parameter names, body lines). A phase that does not type is left out
    (its NotTyped kept in ``low.failed_phases``): :func:`_check_called` raises it when a rule calls it
    (a phase only an option's branch not taken calls is not needed)."""
    out, low.failed_phases = {}, {}
    for name, (params, steps) in low.phases.items():
        env = {}
        args = []
        for p in params:
            v = low.fresh("v")
            env[p] = (v, INT)
            args.append(v)
        low.depth = low.max_depth  # each phase its own rows of TMP: a phase runs inside another's loops
        try:
            out[name] = (args, _memo_body(low, low.block(steps, env, f"phases.{low.phase_key[name]}")))
        except NotTyped as exc:
            low.failed_phases[name] = exc
    return out


def _check_called(low) -> None:
    """The NotTyped of the first phase that does not type and that a lowered rule calls."""
    for name, exc in low.failed_phases.items():
        if name in low.needed_phases:
            raise exc


def _score_lines(low) -> list:
    score_src = low.spec.get("score", "p.score")
    p = low.fresh("v")
    low.path = "score"
    code, ty = low.expr(score_src, {"p": (p, INT)}, "score")
    if ty not in (INT, BOOL):
        raise NotTyped(f"a score that is a {ty}", "score")
    return [NJIT, f"def score({', '.join(STATE_ARGS + (p,))}):"] + \
        _indent(_memo([f"return {code}"], low.memo_slot)) + [""]


def _inline_phases(low, phases, lines, running) -> list:
    """``lines`` with each phase call (a line of :meth:`~StepLowering.s_phase`) replaced by the
    phase's body (``phases``: :func:`_phase_bodies`), its parameters assigned first. Every
    ``return`` in a body comes with an error or an ``end`` flagged, on which each caller returns
    at once too, so returning from the whole function is the same. Raises NotTyped for a phase
    that runs itself (``running``: the phases being written)."""
    out = []
    for ln in lines:
        body = ln.lstrip()
        call = low.phase_calls.get(body)
        if call is None:
            out.append(ln)
            continue
        name, codes = call
        if name in running:
            raise NotTyped(f"phase {name!r} runs itself (the step API writes each phase where it is run)",
                           f"phases.{name}")
        pad = ln[:len(ln) - len(body)]
        params, lines_of = phases[name]
        out += [f"{pad}{v} = {c}" for v, c in zip(params, codes)]
        body = [pad + x for x in _inline_phases(low, phases, lines_of, running | {name})]
        if low.search and not running:  # (search hook) a flow-level phase's start and end; at its
            # start the driver may skip it (RI_CHOSEN 1: it restores the position after it)
            body = [f"{pad}yield {SEARCH_PHASE} + (1 << 16)", f"{pad}if RI[{RI_CHOSEN}] == 0:",
                    f"{pad}    pass"] + ["    " + x for x in body] + [f"{pad}yield {SEARCH_PHASE}"]
        out += body
    return out


def _step_bodies(low) -> str:
    """The step API's module body: the generator ``steps`` (the flow, every phase written where it
    is run) and ``scores``."""
    phases = _phase_bodies(low)
    low.depth = low.max_depth
    flow = turnrecord.flow_start(low) + liststarts.start_lines(low) + _memo_body(low, low.block(low.spec.get("flow") or [], {}, "flow"))
    _check_called(low)
    arrays = [a for a in STATE_ARGS if a != "NP"]
    body = [f"{a} = raw({a})" for a in arrays] + _inline_phases(low, phases, flow, frozenset())
    # (the search module's generator is compiled into its driver only, never cached alone: numba cannot
    # compile a caller of a generator it loaded from its cache, KeyError in get_generator_impl, and a
    # compile stopped between the two, a run that ended first, would leave it cached without the driver)
    cached = "False" if low.search else "True"
    out = [f"@njit(cache={cached}, boundscheck=False)", f"def steps({', '.join(STATE_ARGS)}):"] + _indent(body) + [""]
    out += _score_lines(low)
    out += ["@njit(cache=True, boundscheck=False)", f"def scores({', '.join(STATE_ARGS)}, SCORES):",
            "    for q in range(NP):", f"        SCORES[q] = score({', '.join(STATE_ARGS)}, q)", ""]
    return "\n".join(out)


_DRIVER_ARRAYS = ("ZINIT", "ZNINIT", "GVINIT", "PVINIT", "SCORES", "LENGTHS", "ERRORS", "KEYS", "KL", "GB", "KT",
                  "ROWOF", "GROUPS", "ORDER", "TXT", "TXL", "SH")
_DRIVER = '''@njit(cache=True, boundscheck=False)
def run(first_seed, n_games, {args}, ZINIT, ZNINIT, GVINIT, PVINIT, SCORES, LENGTHS, ERRORS, BATCH, EMAX,
        KEYS, KL, GB, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH, PREP):
{raws}
    g = 0
    e = RI[7]
    while g < n_games:
        nb = BATCH // (NP + e)
        if nb > n_games - g:
            nb = n_games - g
        prepare_batch_at(PREP, RG, first_seed + g, nb, NP, e, KEYS, KL, GB, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH)
        used = 0
        for j in range(nb):
            new_game(Z, ZN, GV, PV, PB, MD, LOC, RI, ZINIT, ZNINIT, GVINIT, PVINIT, first_seed + g + j)
            RI[4] = j * (NP + e)
            RI[5] = RI[4] + NP
            RI[6] = e
            flow({args})
            for q in range(NP):
                SCORES[g + j, q] = score({args}, q)
            LENGTHS[g + j] = RI[2]
            ERRORS[g + j] = RI[3]
            if RI[1] > used:
                used = RI[1]
        g += nb
        if used > e:
            e = used if used < EMAX else EMAX
    RI[7] = e
'''
