"""Search bots: :class:`ISMCTSAgent` (information-set Monte Carlo tree search) and
:class:`GreedyAgent` (one-ply lookahead with rollouts). Both work for any spec: they know only the
State API, the spec's own ``score`` and ``winner`` rule, and what their seat may see (through
:class:`~interpreter.agents.determinize.Determiniser`).

**Budget.** ``iterations`` (an int: tree iterations for ISMCTS, rollouts per decision for greedy) or
``seconds`` (a float, per decision) of CPU time of the deciding process: a busy machine does not
weaken the bot, though the wall-clock time per decision may then be longer. With iterations and a
seed a bot is deterministic.

**Where the simulations run.** With an iteration budget, on a spec the typed kernel runs, a decision
is searched by :mod:`interpreter.fast.search` (the same algorithm, every simulation in compiled code;
the determinisation replays the deal relabelled and rejects worlds where a recorded action is
illegal): on a :class:`~interpreter.fast.steps.FastState` directly, on a State through a kernel
copy of its actions (a State made by ``new_state(n, seed)`` and played by actions). Otherwise
(``seconds`` budgets, ``kernel=False``, no numba, a spec or State the kernel cannot replay, or a
decision the kernel gives up on) the search below runs on the State API.

**Horizon and value.** A rollout plays random legal actions until the game ends or, with
``horizon="phase"`` (the default), until the phase the flow is running at the root ends (in a game of
rounds, the end of the round, after its scoring). The position reached is then valued for each seat
in 0..1 as ``0.5 * rank + 0.5 * margin``: ``rank`` is the share of the other seats it beats on the
spec's score (ties count half; for ``winner: lowest`` a lower score beats), ``margin`` squashes the
seat's score gain over the horizon minus the others' mean gain by the spread of gains seen so far.
"""
from __future__ import annotations

import math
import random
import time

from ..engine.program import ProductOptions
from ..errors import RuleError
from ..engine.run import ActionList
from ..model.state import Action
from .basic import Agent
from .determinize import Determiniser


class _Scale:
    """Running spread of score gains (for the margin part of the value)."""

    __slots__ = ("n", "sq")

    def __init__(self):
        self.n, self.sq = 0, 0.0

    def add(self, x):
        self.n += 1
        self.sq += x * x

    def value(self):
        return math.sqrt(self.sq / self.n) if self.n and self.sq > 0 else 1.0


def _horizon_mark(state, horizon):
    """The control-stack depth the rollout must not fall below (None: to the end). For the
    ``phase`` horizon it is 2: the rollout ends when the phase running under ``flow`` returns
    (:attr:`State.low_water` records the shallowest depth since this call)."""
    if horizon == "phase" and len(state.stack) >= 2:
        state.low_water = len(state.stack)
        return 2
    return None


def _within(state, mark) -> bool:
    if state.pending is None and not state.stack:
        return False
    if mark is None:
        return True
    return state.low_water >= mark


def _sign(game) -> int:
    return -1 if game.winner_rule == "lowest" else 1


def values(state, base, scale: _Scale) -> list:
    """Each seat's value in 0..1 of ``state`` (see the module doc); ``base`` are the scores at
    the root."""
    sign = _sign(state.game)
    scores = [sign * s for s in state.scores()]
    n = len(scores)
    if n == 1:
        return [1.0]
    gains = [scores[p] - base[p] for p in range(n)]
    total = sum(gains)
    out = []
    spread = scale.value()
    for p in range(n):
        beat = sum(1.0 if scores[p] > scores[q] else 0.5 if scores[p] == scores[q] else 0.0
                   for q in range(n) if q != p) / (n - 1)
        rel = gains[p] - (total - gains[p]) / (n - 1)
        scale.add(rel)
        out.append(0.5 * beat + 0.25 * (1.0 + math.tanh(rel / spread)))
    return out


def _actor(state, rng):
    """Who acts next in a search: the first current player (a simultaneous step is searched as if
    its players chose in seat order, each without seeing the others' secret choices in the State),
    or one drawn at random when several may act in real time."""
    cur = state.current_players()
    if len(cur) > 1 and state.pending.get("realtime"):
        return rng.choice(cur)
    return cur[0]


def chance_step(state, rng) -> None:
    """At a chance node (chance mode), apply an outcome drawn by its probability."""
    outs = state.chance_outcomes()
    r = rng.random()
    for action, prob in outs:
        r -= prob
        if r < 0:
            break
    state.apply(action, action.player)


def rollout(state, rng, mark) -> None:
    """Random legal actions until the horizon (in place)."""
    from ..engine.run import legal_options
    while _within(state, mark):
        if "chance" in state.pending:
            chance_step(state, rng)
            continue
        p = _actor(state, rng)
        opts = legal_options(state, p)
        state.apply(rng.randrange(len(opts)), p)


class _Budget:
    def __init__(self, iterations, seconds):
        self.iterations, self.seconds = iterations, seconds

    def start(self):
        self.t0 = time.process_time()
        self.done = 0

    def more(self) -> bool:
        if self.iterations is not None:
            return self.done < self.iterations
        return self.done == 0 or time.process_time() - self.t0 < self.seconds


class SearchAgent(Agent):
    """Shared parts of the search bots: budget, seeded generator, determiniser per seat."""

    def __init__(self, iterations: int | None = None, seconds: float | None = None, seed: int | None = 0,
                 horizon: str = "phase", kernel: bool = True):
        if iterations is None and seconds is None:
            iterations = 200
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise ValueError(f"iterations must be a whole number >= 1, not {iterations!r}")
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be > 0, not {seconds!r}")
        if horizon not in ("phase", "game"):
            raise ValueError(f"horizon is 'phase' or 'game', not {horizon!r}")
        self.budget = _Budget(iterations, seconds)
        self.rng = random.Random(seed)
        self.horizon = horizon
        self.dets = {}
        self.scale = _Scale()
        self.kernel = kernel  # search in the kernel where it can (see the module doc)
        self._mirror = None  # (game, seed, players, FastState) copying a State's actions, for the kernel
        self.kernel_decisions = self.python_decisions = 0

    def determiniser(self, state, seat) -> Determiniser:
        det = self.dets.get(seat)
        if det is None or det.game is not state.game:
            det = self.dets[seat] = Determiniser(state.game, seat)
        return det

    def act(self, state, player):
        """The action this bot takes for ``player`` in ``state`` (searched by the subclass's
        ``_search``). Raises RuleError, saying it arose in the search, when the rules fail on a
        position the bot guessed (see the module doc)."""
        legal = state.legal_actions(player)  # a failure of the real position is reported as it is
        if self.kernel and self.budget.iterations is not None and len(legal) > 1:
            action = self._kernel_act(state, player, legal)
            if action is not None:
                self.kernel_decisions += 1
                return action
        if len(legal) == 1:  # nothing to search (a FastState is not replayed as a State for it)
            return legal[0]
        self.python_decisions += 1
        if type(state).__name__ == "FastState":  # the State API's search needs the State (a replay)
            state = state.to_state()
        try:
            return self._search(state, player)
        except RuleError as exc:
            raise RuleError(f"{exc}\n    note: this arose while the {self.name} bot searched positions it "
                            "guessed from what its seat sees, not in the game itself: the rules fail on "
                            "a position that may be impossible in play (make them cope with it, or play "
                            "this seat with another bot)") from None

    def _kernel_state(self, state):
        """The FastState of ``state`` (itself, or a kernel copy of a State's actions), or None."""
        from ..fast.steps import FastState
        if type(state) is FastState:
            return state
        if getattr(state, "pending", None) is not None and "chance" in state.pending:
            return None
        hist = state.history
        m = self._mirror
        if m is None or m[0] is not state.game or m[1] != state.seed or m[2] != state.num_players or \
                len(m[3].records) > len(hist) or m[3].history != hist[:len(m[3].records)]:
            try:
                fs = state.game.new_state(state.num_players, seed=state.seed, fast=True)
            except Exception:  # (a spec, seed or State the kernel does not replay: the State API searches)
                return None
            m = self._mirror = (state.game, state.seed, state.num_players, fs)
        fs = m[3]
        try:
            for seat, text in hist[len(fs.records):]:
                fs.apply(text, seat)
        except Exception:
            self._mirror = None
            return None
        return fs if _same_zones(fs, state) else None

    def _kernel_act(self, state, player, legal):
        """The action the kernel's search picks (see :mod:`interpreter.fast.search`), or None
        when it cannot search this position."""
        from ..fast.typepass import NotTyped, NULL
        try:
            from ..fast.search import search_kernel_for  # (needs numba: the `fast` extra)
            sk = search_kernel_for(state.game)
        except (NotTyped, ImportError):
            return None
        fs = self._kernel_state(state)
        if fs is None or player not in fs.current_players():
            return None
        recs = fs.records
        if fs._sim is not None:  # the seats that chose already in this simultaneous choice chose in secret
            recs = recs[:len(recs) - len(fs._sim["chosen"])]
        scale = [self.scale.n, self.scale.sq]
        got = sk.decide(fs.seed, fs.num_players, [(a.player, a.index) for a in recs], player,
                        self.budget.iterations, self.rng.getrandbits(63), c=getattr(self, "c", 0.7),
                        horizon=self.horizon, greedy=self.name == "greedy", scale=scale)
        if got is None:
            return None
        self.scale.n, self.scale.sq = scale
        vals, mods, off, n = fs._options(player)
        if got[0] == "index":
            k = got[1]
        else:
            v, m = got
            k = next((i for i in range(n) if vals[off + i] == v and (m == NULL or mods[off + i] == m)), None)
            if k is None:
                return None
        return legal[k]

    def _search_start(self, state, player):
        """What a search from ``state`` for ``player`` starts with: ``(legal, determiniser, base
        scores)``; ``determiniser`` is None when there is only one legal action (nothing to search).
        Starts the budget."""
        legal = state.legal_actions(player)
        if len(legal) == 1:
            return legal, None, None
        base = [_sign(state.game) * s for s in state.scores()]
        det_of = self.determiniser(state, player)
        self.budget.start()
        return legal, det_of, base

    seat = None  # the seat this bot plays, when known (bots_for sets it): it learns from the start

    def notify(self, state, player, action) -> None:
        if type(state).__name__ == "FastState":
            return  # the kernel's search learns from the recorded actions (see interpreter.fast.search);
            # the State API's search of a FastState (kernel=False) does without what plays show lacking
        if self.seat is not None and self.seat not in self.dets:
            self.determiniser(state, self.seat)
        for seat, det in self.dets.items():
            det.observe(state, player, str(action), random.Random(len(state.history) * 7919 + seat))

    def reset(self) -> None:
        """Forget what was learnt about the hands (call between games)."""
        self.dets = {}


def ready_kernel_search(agents, game, num_players: int, compiling=None):
    """Make the kernel's search of ``game`` ready before the first decision of any bot in
    ``agents`` (a list of Agents) that searches there: a spec's first search compiles it (tens of
    seconds of CPU, then cached). ``compiling(True)``, when given, is a context manager held
    meanwhile (a status line). Returns ``(CPU s, wall s, compiled)`` as
    :meth:`~interpreter.fast.kernel.Kernel.ready`, or None when no bot will search in the kernel
    (no search bot with an iteration budget, no numba, or a spec the kernel does not run)."""
    if not any(isinstance(a, SearchAgent) and a.kernel and a.budget.iterations is not None for a in agents):
        return None
    from ..fast.typepass import NotTyped
    try:
        from ..fast.kernel import search_ready
        from ..fast.search import search_kernel_for  # (needs numba: the `fast` extra)
        sk = search_kernel_for(game)
    except (NotTyped, ImportError):
        return None
    return search_ready(sk, game, num_players, compiling=compiling)


def _same_zones(fs, state) -> bool:
    """Whether the kernel copy ``fs`` holds the same cards in every zone as ``state`` (a State
    that did not start from the deal, e.g. from a ``setup``, is searched on the State API)."""
    if getattr(state, "chance", None) is not None:
        return False
    from ..fast.typepass import STATE_ARGS
    info = fs.kernel.info
    z, zn = fs.arrays[STATE_ARGS.index("Z")], fs.arrays[STATE_ARGS.index("ZN")]
    for name, row in info["zone_row"].items():
        held = state.zones[name]
        lists = held if info["per_player"][name] else [held]
        span = info.get("zone_span", {}).get(name, 1)  # a zone of sets: a block of rows per owner, a set a row
        for k, cards in enumerate(lists):
            base = row + k * span
            if span > 1:
                if [sorted(c) for c in cards] != [sorted(z[base + i, :zn[base + i]].tolist())
                                                  for i in range(span) if zn[base + i] > 0]:
                    return False
            elif sorted(cards) != sorted(z[base, :zn[base]].tolist()):
                return False
    return True


class Node:
    """A node of the ISMCTS tree: reached by ``action`` (text) of ``player``."""

    __slots__ = ("children", "visits", "value", "avail", "player")

    def __init__(self, player=None):
        self.children = {}
        self.visits = 0
        self.value = 0.0
        self.avail = 0
        self.player = player


class ISMCTSAgent(SearchAgent):
    """Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012) over ``clone()``.

    Each iteration draws a determinisation of the root from what the seat may see, walks the tree
    choosing among the actions legal in that determinisation by UCB1 with availability counts
    (``c`` = exploration), adds one node, rolls out at random to the horizon, and backs up each
    seat's value to the nodes where that seat acted. The action visited most at the root is played.
    """

    name = "ismcts"

    def __init__(self, iterations=None, seconds=None, seed=0, horizon="phase", c: float = 0.7, kernel: bool = True):
        super().__init__(iterations, seconds, seed, horizon, kernel)
        self.c = c

    def _search(self, state, player):
        from ..engine.run import legal_options
        legal, det_of, base = self._search_start(state, player)
        if det_of is None:
            return legal[0]
        rng = self.rng
        root = Node()
        budget = self.budget
        c = self.c
        while budget.more():
            budget.done += 1
            s = det_of.sample(state, rng)
            mark = _horizon_mark(s, self.horizon)
            node = root
            path = []
            p = player
            while _within(s, mark):
                if "chance" in s.pending:  # chance nodes are sampled, not stored in the tree
                    chance_step(s, rng)
                    continue
                if node is not root:
                    p = _actor(s, rng)
                opts = legal_options(s, p)
                if type(opts) is ProductOptions:  # by index: no listing of its texts
                    node, new = _product_step(s, p, opts, node, rng, c)
                    path.append(node)
                    if new:  # one node is added per iteration, then a rollout
                        break
                    continue
                texts = [o[0] for o in opts]
                children = node.children
                untried = [t for t in texts if t not in children]
                if untried:
                    text = untried[rng.randrange(len(untried))]
                    child = children[text] = Node(p)
                    for t in texts:
                        ch = children.get(t)
                        if ch is not None:
                            ch.avail += 1
                    s.apply(text, p)
                    path.append(child)
                    break
                best, best_u = None, -1.0
                for t in texts:
                    ch = children[t]
                    ch.avail += 1
                    u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
                    if u > best_u:
                        best, best_u = t, u
                s.apply(best, p)
                node = children[best]
                path.append(node)
            rollout(s, rng, mark)
            vals = values(s, base, self.scale)
            for nd in path:
                nd.visits += 1
                nd.value += vals[nd.player]
        if type(legal) is ActionList:  # the root's children are checked by their words
            found = {t: legal.index_of(t) for t in root.children}
            texts = {t: Action(player, t, i) for t, i in found.items() if i is not None}
        else:
            texts = {a.text: a for a in legal}
        best = max((ch.visits, ch.value / max(1, ch.visits), t) for t, ch in root.children.items() if t in texts)
        return texts[best[2]]


def _product_step(s, p, opts, node, rng, c):
    """One tree step of ISMCTS at a product choice (see :class:`ProductOptions`) without listing
    its texts: the children legal here are found from their words; while some option has no
    child, one of those is drawn uniformly by index (only its text is built, for the history);
    else UCB1 picks among the children (the same choices as over the listed texts). Applies the
    action to ``s``; returns ``(child node, whether it is new)``."""
    children = node.children
    legal = {}  # index -> text of the children legal in this determinisation
    for t in children:
        i = opts.index_of(t, exact=True)
        if i is not None:
            legal[i] = t
    for t in legal.values():
        children[t].avail += 1
    untried = len(opts) - len(legal)
    if untried:
        k = rng.randrange(untried)
        for i in sorted(legal):  # the k-th index that has no child
            if i <= k:
                k += 1
            else:
                break
        text = opts.text(k)
        child = children[text] = Node(p)
        child.avail = 1
        s.apply(Action(p, text, k), p)
        return child, True
    best, best_u = None, -1.0
    for i in sorted(legal):
        ch = children[legal[i]]
        u = ch.value / ch.visits + c * math.sqrt(math.log(ch.avail) / ch.visits)
        if u > best_u:
            best, best_u = i, u
    s.apply(Action(p, legal[best], best), p)
    return children[legal[best]], False


class GreedyAgent(SearchAgent):
    """One-ply lookahead: every legal action is tried on determinisations and followed by a random
    rollout to the horizon; the action with the best mean value (the spec's score, see the module
    doc) is played. The budget is shared out evenly (``iterations`` rollouts in all, at least one
    per action)."""

    name = "greedy"

    def _search(self, state, player):
        legal, det_of, base = self._search_start(state, player)
        if det_of is None:
            return legal[0]
        rng = self.rng
        totals = [0.0] * len(legal)
        counts = [0] * len(legal)
        budget = self.budget
        k = 0
        while budget.more() or k < len(legal):
            i = k % len(legal)
            k += 1
            budget.done += 1
            s = det_of.sample(state, rng)
            mark = _horizon_mark(s, self.horizon)
            s.apply(legal[i].text, player)
            rollout(s, rng, mark)
            totals[i] += values(s, base, self.scale)[player]
            counts[i] += 1
        best = max(range(len(legal)), key=lambda i: (totals[i] / counts[i] if counts[i] else -1.0, -i))
        return legal[best]
