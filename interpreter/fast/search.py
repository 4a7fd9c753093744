"""Search inside the kernel: ISMCTS and greedy decisions whose simulations run in compiled code.

:func:`search_kernel_for` builds, once per Game, the module :func:`~interpreter.fast.typepass.lower_search`
writes (the kernel's step generator, whose shuffles, random picks and flow-level phases also yield)
with the fixed driver :data:`DRIVER` appended; :meth:`SearchKernel.decide` runs one decision.

**How a simulation starts from a mid-game position.** The kernel's control position lives in
compiled code, so a simulation replays the game from its start, in the kernel:

1. *Record pass* (once per decision): the real game is replayed by the indices of its actions, its
   draws drawn from the game's seed as the step API draws them; every shuffle's result and random
   pick is recorded, and every action's option value (card or value, and mode). It stops at the
   decision (the *root*).
2. *What the seat may know*: ``U``, the cards at the root in a zone the seat cannot see (a
   ``hidden`` zone, or another seat's ``owner`` zone), minus the cards named by a card variable, by
   any recorded action, or seen in a zone the seat sees since their last shuffle (searchdeal.mark_seen). ``K0`` is the last shuffle whose result held every card
   of ``U`` (the current deal).
3. *Determinisation* (each iteration): the cards of ``U`` are dealt again at random into the
   places (zone, position) they fill at the root, in a fixed order of places and from the sorted
   list of ``U``, so the sampled world depends only on what the seat knows, never on where the
   hidden cards really are. This gives a relabelling ``σ`` of the real cards; the simulation
   replays from the start with every shuffle result from ``K0`` on relabelled by ``σ`` (a
   permutation of cards the seat has not seen: every seen card stays where it was), the other draws
   as recorded, and the recorded actions forced **by value**, a card by its name (not by index: option
   lists differ in another world; identical cards are one option: interpreter.fast.searchnames).
4. *Consistency by rejection*: if a recorded action is not legal in the sampled world (a player
   who did not follow suit holds, in that world, a card of the suit led), the sample is rejected
   and the cards of ``U`` that were legal options there are excluded from that player's zone for
   later samples of this decision (what the step API's determiniser calls *shown lacking*). A
   rejected sample (or one where the rules fail) is not an iteration; sampling stops after
   ``10 * iterations + 100`` samples, and a decision with no accepted one is left to the State
   API's search.
5. Past the root: the tree policy, then random actions; shuffles and random picks past the
   recorded ones draw from the search's own generator (the game's seed would tell the future).

**ISMCTS** (as :class:`~interpreter.agents.search.ISMCTSAgent`): single-observer, UCB1 with
availability counts (``c``), one node added per iteration, random rollout to the horizon (the end
of the flow-level phase running at the root, else the game's end; ``horizon="game"``: the game's
end), each seat's value in 0..1 (:func:`interpreter.agents.search.values`: rank and squashed score
margin) backed up to the nodes where that seat acted; the root child visited most is played (ties:
the best mean value, then the first expanded). The tree is a set of arrays (one node per
iteration). A simultaneous choice is searched as if its seats chose one after another (the searching
seat first at the root); in a real-time block a seat drawn at random acts (:mod:`interpreter.fast.searchrt`).
**Greedy**: the root's options in turn, each followed by a random rollout.

A spec's first searches run on the bytecode machine (:class:`MachineSearch`, the same decisions)
while another process compiles the search module (:func:`search_kernel_for`).

Limits: a card a ``show`` step showed the seat without moving it to a zone the seat sees is not pinned
(the seat searches as if it had not seen it); the exclusion learnt from a rejected sample
assumes, as the step API's determiniser does, that adding a card to a hand only removes options. Needs numba.
"""
from __future__ import annotations

import ast
import math

import numpy as np
from numba import njit

from .lowtypes import SEARCH_PHASE, SEARCH_RANDOM, SEARCH_SHUFFLE, NotTyped  # noqa: F401
from .rng import randbelow_row, shuffle_row
from .runtime import NULL, event_gen
from .searchdriver import _IMPORTS, _NAMES, _WORK, driver_source, machine_driver_source  # noqa: F401
from .searchnames import card_classes, learns, same_card

# SI: the search's scalars (int64)
(MODE, CUR, NREC, EV, NEV, K0, SEAT, STAGE, NODE, PLEN, NNODES, REJECT, RNG, INPHASE, STOPPHASE, GREEDY, ITER,
 NITER, ATTEMPTS, HORIZON, NU, GCHOICE, ROOTN, MAXNODES, EVMAX, BESTV, BESTM, OK, REJECTS, SIGN, ROOTPHASE, ERRORS, EXCLNEW, _EX2, PHN, NSNAP, NSKIP) = range(37)
SI_SIZE = 40
PREFIX, TREE, ROLLOUT, ROOT = 0, 1, 2, 3
# TI rows: tree nodes' int fields
FIRST, NEXT, PLAYER, VISITS, AVAIL, AVAL, AMODE = range(7)
SIMULTANEOUS = 65535  # (beside lowtypes' SEARCH_SHUFFLE, SEARCH_RANDOM, SEARCH_PHASE)
U64 = np.uint64


@njit(cache=True)
def rand_below(SI, n):
    """Uniform in 0..n-1 from the search's generator (xorshift64*, state in ``SI[RNG]``)."""
    x = U64(SI[RNG])
    x ^= x >> U64(12)
    x ^= x << U64(25)
    x ^= x >> U64(27)
    SI[RNG] = np.int64(x)
    r = (x * U64(0x2545F4914F6CDD1D)) >> U64(33)
    return np.int64(r % U64(n))


@njit(cache=True)
def begin(SI, PATH):
    """Before a simulation: nothing consumed, nothing on the path."""
    SI[CUR] = SI[EV] = SI[NODE] = SI[PLEN] = SI[REJECT] = SI[INPHASE] = SI[STOPPHASE] = SI[PHN] = 0
    SI[STAGE] = PREFIX


@njit(cache=True)
def _snap(SNAP, k, Z, ZN, GV, PV, PB, MD, LOC, RI, SI, save):
    """Save (or, ``save`` False, restore) the position at the end of flow-level phase ``k`` (its
    arrays, actions count, record and draw cursors) in row ``k`` of SNAP; of Z, 512 wide with a list
    variable, only the columns up to its longest row (read no further: see runtime.new_game)."""
    width, tail = Z.shape[1], Z.size + ZN.size + GV.size + PV.size + 3 * LOC.shape[0]
    w = min(ZN.max(), width) if save else SNAP[k, tail + 3]
    SNAP[k, tail + 3] = w
    for r in range(Z.shape[0]):
        if save:
            SNAP[k, r * width:r * width + w] = Z[r, :w]
        else:
            Z[r, :w] = SNAP[k, r * width:r * width + w]
    at = Z.size
    for a in (ZN, GV, PV.reshape(-1), PB, MD, LOC):
        if save:
            SNAP[k, at:at + a.shape[0]] = a
        else:
            a[:] = SNAP[k, at:at + a.shape[0]]
        at += a.shape[0]
    if save:
        SNAP[k, at], SNAP[k, at + 1], SNAP[k, at + 2] = RI[2], SI[CUR], SI[EV]
    else:
        RI[2], SI[CUR], SI[EV] = SNAP[k, at], SNAP[k, at + 1], SNAP[k, at + 2]


@njit(cache=True)
def phase_mark(ask, SI, SNAP, Z, ZN, GV, PV, PB, MD, LOC, RI):
    """A flow-level phase starts or ends. The record pass saves the position at each end; a
    simulation skips the phases that end before the current deal's shuffle (``SI[NSKIP]`` of them:
    their position is the real one), restoring the saved position instead of replaying them; a
    phase's end is the horizon when the root is inside one (False: stop)."""
    if (ask >> 16) & 0xFFFFF:
        SI[INPHASE] = 1
        RI[11] = 0
        k = SI[PHN]
        SI[PHN] += 1
        if SI[MODE] == 1 and k < SI[NSKIP]:
            _snap(SNAP, k, Z, ZN, GV, PV, PB, MD, LOC, RI, SI, False)
            RI[11] = 1
        return True
    SI[INPHASE] = 0
    if SI[MODE] == 0:
        k = SI[PHN] - 1
        if 0 <= k < SNAP.shape[0]:
            _snap(SNAP, k, Z, ZN, GV, PV, PB, MD, LOC, RI, SI, True)
            SI[NSNAP] = k + 1
        return True
    if SI[STOPPHASE] and (SI[STAGE] == TREE or SI[STAGE] == ROLLOUT):
        return False
    return True


@njit(cache=True)
def _reject(SI, REC, LOC, INU, EXCL, vals, off, n, cards):
    """Reject the sample: the recorded action is not legal here. At a card choice, the options
    that are cards of U cannot be in their zone (shown lacking): excluded for later samples."""
    SI[REJECT] = 1
    if cards:
        for k in range(n):
            c = vals[off + k]
            if c != NULL and 0 <= c < INU.shape[0] and INU[c] and not EXCL[c, LOC[c]]:
                EXCL[c, LOC[c]] = 1
                SI[EXCLNEW] = 1
    return -1


@njit(cache=True)
def _forced(SI, REC, j, LOC, INU, EXCL, vals, mods, off, n, p, usemode, cards, CLS):
    """The index of record ``j``'s option among ``vals/mods[off:off + n]``: by index in the record
    pass (which writes the value down), by value (a card: by name) in a simulation (-1: reject)."""
    if REC[j, 0] != p:
        SI[REJECT] = 1
        return -1
    if SI[MODE] == 0:
        k = REC[j, 1]
        if not 0 <= k < n:
            SI[REJECT] = 1
            return -1
        REC[j, 2] = vals[off + k]
        REC[j, 3] = mods[off + k] if usemode else NULL
        REC[j, 4] = cards
        return k
    v = REC[j, 2]
    m = REC[j, 3]
    for k in range(n):
        if same_card(CLS, vals[off + k], v, cards) and (not usemode or mods[off + k] == m):
            return k
    return _reject(SI, REC, LOC, INU, EXCL, vals, off, n, learns(cards, usemode, m))


@njit(cache=True)
def forced_turn(SI, REC, OPT, SITES, ask, CLS):
    """The hot path of :func:`_forced` in a simulation: the index of the next recorded turn's
    option, or -1 (then :func:`on_ask` decides: the root, a rejection, the record pass)."""
    j = SI[CUR]
    if SI[MODE] != 1 or j >= SI[NREC] or REC[j, 0] != (ask & 0xFFFF):
        return -1
    n = (ask >> 16) & 0xFFFFF
    v, cards = REC[j, 2], SITES[ask >> 36, 1]
    if SITES[ask >> 36, 0]:
        m = REC[j, 3]
        for k in range(n):
            if OPT[1, k] == m and same_card(CLS, OPT[0, k], v, cards):
                SI[CUR] = j + 1
                return k
        return -1
    for k in range(n):
        if same_card(CLS, OPT[0, k], v, cards):
            SI[CUR] = j + 1
            return k
    return -1


@njit(cache=True)
def _tree(SI, TI, TF, PATH, CH, vals, mods, off, n, p, usemode, c):
    """One tree step at ``SI[NODE]`` for seat ``p`` among the options ``vals/mods[off:off + n]``:
    expand an untried option (then the rollout starts) or follow UCB1 with availability counts."""
    node = SI[NODE]
    if SI[GREEDY] and node == 0:  # greedy: the root's options in turn, then a rollout
        k = SI[ITER] % n
        SI[GCHOICE] = k
        SI[ROOTN] = n
        SI[STAGE] = ROLLOUT
        return k
    untried = 0
    for k in range(n):
        v = vals[off + k]
        m = mods[off + k] if usemode else NULL
        ch = TI[FIRST, node]
        while ch >= 0 and not (TI[AVAL, ch] == v and TI[AMODE, ch] == m):
            ch = TI[NEXT, ch]
        CH[k] = ch
        if ch >= 0:
            TI[AVAIL, ch] += 1
        else:
            untried += 1
    if untried > 0 and SI[NNODES] < SI[MAXNODES]:
        j = rand_below(SI, untried)
        for k in range(n):
            if CH[k] < 0:
                if j == 0:
                    new = SI[NNODES]
                    SI[NNODES] += 1
                    TI[FIRST, new] = -1
                    TI[NEXT, new] = TI[FIRST, node]
                    TI[FIRST, node] = new
                    TI[PLAYER, new] = p
                    TI[VISITS, new] = 0
                    TI[AVAIL, new] = 1
                    TI[AVAL, new] = vals[off + k]
                    TI[AMODE, new] = mods[off + k] if usemode else NULL
                    TF[new] = 0.0
                    PATH[SI[PLEN]] = new
                    SI[PLEN] += 1
                    SI[STAGE] = ROLLOUT
                    return k
                j -= 1
    if untried > 0:  # no room for a node: roll out from here
        SI[STAGE] = ROLLOUT
        return rand_below(SI, n)
    best = -1
    best_u = -1.0
    for k in range(n):
        ch = CH[k]
        vis = TI[VISITS, ch]
        u = 1e300 if vis == 0 else TF[ch] / vis + c * math.sqrt(math.log(TI[AVAIL, ch]) / vis)
        if u > best_u:
            best, best_u = k, u
    ch = CH[best]
    SI[NODE] = ch
    PATH[SI[PLEN]] = ch
    SI[PLEN] += 1
    return best


@njit(cache=True)
def _pick(SI, TI, TF, PATH, CH, vals, mods, off, n, p, usemode, c):
    """A choice past the root: the tree's, or a random one in the rollout."""
    if SI[STAGE] == TREE:
        return _tree(SI, TI, TF, PATH, CH, vals, mods, off, n, p, usemode, c)
    return rand_below(SI, n)


@njit(cache=True)
def _at_root(SI):
    """The recorded actions are all replayed: the record pass stops here, a simulation starts its
    tree (horizon: the end of the flow-level phase running now, if any). False: stop."""
    if SI[MODE] == 0:
        SI[STAGE] = ROOT
        SI[ROOTPHASE] = SI[INPHASE]
        return False
    SI[STAGE] = TREE
    SI[NODE] = 0
    SI[STOPPHASE] = 1 if SI[HORIZON] == 1 and SI[ROOTPHASE] == 1 else 0
    return True


@njit(cache=True)
def on_ask(ask, Z, ZN, LOC, RG, RI, TMP, OPT, SB, SK, SI, REC, EVK, EVO, SIG, INU, EXCL, TI, TF, PATH, CH, SITES,
           CLS, c):
    """Answer what the generator yielded (``ask``): a choice (write the index chosen) or a draw (do
    it); the driver answers the flow-level phase marks (:func:`phase_mark`) and the hot paths
    itself. False: stop this simulation (root reached, or rejected)."""
    seat = ask & 0xFFFF
    field = (ask >> 16) & 0xFFFFF
    if seat == SEARCH_SHUFFLE or seat == SEARCH_RANDOM:
        ev = SI[EV]
        SI[EV] += 1
        if SI[MODE] == 0:  # the real draw, recorded
            if ev >= SI[EVMAX]:
                SI[REJECT] = 1
                return False
            g = event_gen(RG, RI, SB, SK)
            EVK[ev, 0] = seat
            EVK[ev, 1] = field
            if seat == SEARCH_SHUFFLE:
                shuffle_row(RG, g, Z, field, ZN[field])
                EVK[ev, 2] = ZN[field]
                for i in range(ZN[field]):
                    EVO[ev, i] = Z[field, i]
            else:
                RI[11] = randbelow_row(RG, g, field)
                EVO[ev, 0] = RI[11]
            SI[NEV] = ev + 1
            return True
        if ev < SI[NEV]:  # recorded: as it fell, relabelled from the current deal on
            if EVK[ev, 0] != seat:
                SI[REJECT] = 1
                return False
            if seat == SEARCH_RANDOM:
                if EVO[ev, 0] >= field:
                    SI[REJECT] = 1
                    return False
                RI[11] = EVO[ev, 0]
                return True
            r = field
            if EVK[ev, 2] != ZN[r]:
                SI[REJECT] = 1
                return False
            for i in range(ZN[r]):
                x = EVO[ev, i]
                if ev >= SI[K0]:
                    x = SIG[x]
                    if LOC[x] != r:
                        SI[REJECT] = 1
                        return False
                Z[r, i] = x
            return True
        if seat == SEARCH_RANDOM:  # past the record: the search's own draws
            RI[11] = rand_below(SI, field)
            return True
        for i in range(ZN[field] - 1, 0, -1):
            j = rand_below(SI, i + 1)
            t = Z[field, i]
            Z[field, i] = Z[field, j]
            Z[field, j] = t
        return True
    site = ask >> 36
    usemode = SITES[site, 0]
    cards = SITES[site, 1]
    if seat != SIMULTANEOUS:  # a turn
        n = field
        if SI[STAGE] == PREFIX:
            if SI[CUR] < SI[NREC]:
                k = _forced(SI, REC, SI[CUR], LOC, INU, EXCL, OPT[0], OPT[1], 0, n, seat, usemode, cards, CLS)
                if k < 0:
                    return False
                SI[CUR] += 1
                RI[11] = k
                return True
            if not _at_root(SI):
                return False
        RI[11] = _pick(SI, TI, TF, PATH, CH, OPT[0], OPT[1], 0, n, seat, usemode, c)
        return True
    cnt = field
    srow = SITES[site, 2]
    base = SITES[site, 3]
    if SI[STAGE] == PREFIX and SI[CUR] < SI[NREC]:
        cur = SI[CUR]
        for k in range(cnt):
            p = TMP[srow, k]
            j = cur
            while j < cur + cnt and REC[j, 0] != p:
                j += 1
            if j == cur + cnt:
                SI[REJECT] = 1
                return False
            idx = _forced(SI, REC, j, LOC, INU, EXCL, TMP[base + 2], TMP[base + 3], TMP[base + 4, k],
                          TMP[base + 5, k], p, usemode, cards, CLS)
            if idx < 0:
                return False
            TMP[base + 6, k] = idx
        SI[CUR] = cur + cnt
        return True
    first = -1
    if SI[STAGE] == PREFIX:
        if not _at_root(SI):
            return False
        for k in range(cnt):  # the searching seat first
            if TMP[srow, k] == SI[SEAT]:
                first = k
        if first >= 0:
            TMP[base + 6, first] = _pick(SI, TI, TF, PATH, CH, TMP[base + 2], TMP[base + 3], TMP[base + 4, first],
                                         TMP[base + 5, first], SI[SEAT], usemode, c)
    for k in range(cnt):
        if k != first:
            TMP[base + 6, k] = _pick(SI, TI, TF, PATH, CH, TMP[base + 2], TMP[base + 3], TMP[base + 4, k],
                                     TMP[base + 5, k], TMP[srow, k], usemode, c)
    return True


@njit(cache=True)
def prepare(Z, ZN, LOC, GV, PV, SI, REC, EVK, EVO, INU, VIS, PINV, SLOTS, POOL, EXCL, TI, SF, VAL, NP, SNAP, SAW):
    """After the record pass (the arrays hold the root): ``INU`` (the cards of U), the places they
    fill (``SLOTS``: row, position, the card there), ``POOL`` (U sorted), ``K0``; the tree's root; the base scores.
    ``PINV``: the slots of the card variables (row 0: of GV, row 1: columns of PV; -1 for none).
    False when the seat cannot be searched this way (hidden cards that no recorded shuffle dealt)."""
    nc = LOC.shape[0]
    pinned = SAW.copy()  # (the cards the seat saw in the record pass: interpreter.fast.searchdeal.mark_seen)
    for k in range(PINV.shape[1]):
        if PINV[0, k] >= 0 and 0 <= GV[PINV[0, k]] < nc:
            pinned[GV[PINV[0, k]]] = True
        if PINV[1, k] >= 0:
            for q in range(NP):
                if 0 <= PV[q, PINV[1, k]] < nc:
                    pinned[PV[q, PINV[1, k]]] = True
    for j in range(SI[NREC]):
        if REC[j, 4] and 0 <= REC[j, 2] < nc:
            pinned[REC[j, 2]] = True
    nu = 0
    for r in range(VIS.shape[0]):  # (the rows of cards: see card_rows)
        for i in range(ZN[r]):
            x = Z[r, i]
            INU[x] = (not VIS[r]) and not pinned[x]
            if INU[x]:
                SLOTS[nu, 0] = r
                SLOTS[nu, 1] = i
                SLOTS[nu, 2] = x
                nu += 1
    SI[NU] = nu
    k = 0
    for x in range(nc):
        if INU[x]:
            POOL[k] = x
            k += 1
    SI[K0] = SI[NEV]
    for ev in range(SI[NEV]):
        if EVK[ev, 0] == SEARCH_SHUFFLE:
            held = 0
            for i in range(EVK[ev, 2]):
                if INU[EVO[ev, i]]:
                    held += 1
            if held == nu:
                SI[K0] = ev
    EXCL[:, :] = 0
    at = Z.size + ZN.size + GV.size + PV.size + 3 * nc  # (see _snap)
    SI[NSKIP] = 0
    while SI[NSKIP] < SI[NSNAP] and SNAP[SI[NSKIP], at + 2] <= SI[K0] and SNAP[SI[NSKIP], at + 1] <= SI[NREC]:
        SI[NSKIP] += 1
    TI[FIRST, 0] = -1
    TI[VISITS, 0] = 0
    SI[NNODES] = 1
    for q in range(NP):
        SF[2 + q] = SI[SIGN] * VAL[q]
    return nu == 0 or SI[K0] < SI[NEV]


@njit(cache=True)
def sample(SI, SIG, INU, SLOTS, POOL, EXCL, ORD, USED):
    """A determinisation: ``SIG`` (card -> card) deals U again into its places at random (rows with
    the most exclusions first; up to 50 tries to meet the exclusions, else the last try)."""
    nu = SI[NU]
    nc = SIG.shape[0]
    for x in range(nc):
        SIG[x] = x
    if nu == 0:
        return
    if SI[EXCLNEW] == 0 and SI[EXCLNEW + 1] == 0:  # no exclusion yet: the shuffled pool in place order
        for i in range(nu - 1, 0, -1):
            j = rand_below(SI, i + 1)
            t = POOL[i]
            POOL[i] = POOL[j]
            POOL[j] = t
        for m in range(nu):
            SIG[SLOTS[m, 2]] = POOL[m]
        return
    if SI[EXCLNEW]:  # slots by their row's number of exclusions (most first), then row, then position
        SI[EXCLNEW] = 0
        SI[EXCLNEW + 1] = 1
        nrows = EXCL.shape[1]
        for m in range(nu):
            ORD[m] = m
            r = SLOTS[m, 0]
            cnt = 0
            for x in range(nc):
                if EXCL[x, r]:
                    cnt += 1
            USED[m] = -cnt * nrows + r
        for m in range(1, nu):  # insertion sort by USED (stable)
            key = USED[m]
            o = ORD[m]
            i = m - 1
            while i >= 0 and USED[i] > key:
                USED[i + 1] = USED[i]
                ORD[i + 1] = ORD[i]
                i -= 1
            USED[i + 1] = key
            ORD[i + 1] = o
    for attempt in range(50):
        for i in range(nu - 1, 0, -1):
            j = rand_below(SI, i + 1)
            t = POOL[i]
            POOL[i] = POOL[j]
            POOL[j] = t
        USED[:nu] = 0
        ok = True
        for m in range(nu):
            s = ORD[m]
            r = SLOTS[s, 0]
            pick = -1
            for i in range(nu):
                if not USED[i] and not EXCL[POOL[i], r]:
                    pick = i
                    break
            if pick < 0:
                ok = False
                for i in range(nu):
                    if not USED[i]:
                        pick = i
                        break
            USED[pick] = 1
            SIG[SLOTS[s, 2]] = POOL[pick]
        if ok:
            return


@njit(cache=True)
def backup(SI, SF, TI, TF, PATH, VAL, NP, GT):
    """Each seat's value of the simulation's end (as interpreter.agents.search.values) added to
    the nodes of the path where that seat acted (greedy: to the root option tried)."""
    n = NP
    vals = SF[2 + n:]
    if n == 1:
        vals[0] = 1.0
    else:
        spread = math.sqrt(SF[1] / SF[0]) if SF[0] > 0 and SF[1] > 0 else 1.0
        total = 0.0
        for p in range(n):
            total += SI[SIGN] * VAL[p] - SF[2 + p]
        for p in range(n):
            sp = SI[SIGN] * VAL[p]
            beat = 0.0
            for q in range(n):
                if q != p:
                    sq = SI[SIGN] * VAL[q]
                    beat += 1.0 if sp > sq else 0.5 if sp == sq else 0.0
            beat /= n - 1
            gain = sp - SF[2 + p]
            rel = gain - (total - gain) / (n - 1)
            SF[0] += 1
            SF[1] += rel * rel
            vals[p] = 0.5 * beat + 0.25 * (1.0 + math.tanh(rel / spread))
    if SI[GREEDY]:
        GT[0, SI[GCHOICE]] += vals[SI[SEAT]]
        GT[1, SI[GCHOICE]] += 1
        return
    for k in range(SI[PLEN]):
        nd = PATH[k]
        TI[VISITS, nd] += 1
        TF[nd] += vals[TI[PLAYER, nd]]


@njit(cache=True)
def best(SI, TI, TF, GT):
    """The action to play (``SI[BESTV]``, ``SI[BESTM]``): the root child visited most (then the
    best mean value); greedy: the root option of best mean value (``SI[GCHOICE]``, its index)."""
    if SI[GREEDY]:
        bk = -1
        bm = -1.0
        for k in range(SI[ROOTN]):
            m = GT[0, k] / GT[1, k] if GT[1, k] > 0 else -1.0
            if m > bm:
                bk, bm = k, m
        SI[GCHOICE] = bk
        return
    ch = TI[FIRST, 0]
    bv = -1
    bm = -1.0
    pick = -1
    while ch >= 0:
        v = TI[VISITS, ch]
        m = TF[ch] / v if v > 0 else -1.0
        if v > bv or (v == bv and m > bm):
            bv, bm, pick = v, m, ch
        ch = TI[NEXT, ch]
    if pick >= 0:
        SI[BESTV] = TI[AVAL, pick]
        SI[BESTM] = TI[AMODE, pick]
        SI[OK] = 1


_SEARCH: dict = {}


class SearchKernel:
    """The compiled search of one Game: ``module`` (``search``), ``info`` (layout) and the
    per-choice-site flags the driver reads."""
    behind = None  # (a MachineSearch's compile in another process)

    def __init__(self, game, source: str, info: dict, module):
        self.game, self.source, self.info, self.module = game, source, info, module
        from .searchtables import card_rows, site_table
        self.sites, self.card_rows = site_table(info["sites"]), card_rows(game, info)
        self._work: dict = {}

    def _arrays(self, num_players: int, size: int) -> dict:
        """The arrays of a search for ``num_players``, room for ``size`` tree nodes (made once per player count)."""
        w = self._work.get(num_players)
        if w is not None and w["TI"].shape[1] >= size:
            return w
        from .kernel import state_arrays
        from .typepass import STATE_ARGS
        info, game = self.info, self.game
        st = state_arrays(game, info, num_players, 1)
        nc, rows = info["ncards"], info["rows"]
        wide = max(st["OPT"].shape[1], st["TMP"].shape[1])  # the most options one choice may list
        w = {k: st[k] for k in STATE_ARGS}
        w.update(ZINIT=st["Z"].copy(), ZNINIT=st["ZN"].copy(), GVINIT=st["GV"].copy(), PVINIT=st["PV"].copy(),
                 SI=np.zeros(SI_SIZE, dtype=np.int64), SF=np.zeros(2 + 2 * num_players),
                 REC=np.zeros((64, 5), dtype=np.int64), EVK=np.zeros((256, 3), dtype=np.int64),
                 EVO=np.zeros((256, nc), dtype=np.int64), SIG=np.arange(nc, dtype=np.int64),
                 INU=np.zeros(nc, dtype=np.bool_), EXCL=np.zeros((nc, rows), dtype=np.bool_),
                 TI=np.zeros((7, size), dtype=np.int64), TF=np.zeros(size), PATH=np.zeros(size + 8, dtype=np.int64),
                 CH=np.zeros(max(512, nc * 8, wide), dtype=np.int64), SITES=self.sites, VIS=np.zeros(rows, dtype=np.bool_),
                 PINV=self._pins(), SLOTS=np.zeros((nc, 4), dtype=np.int64),
                 POOL=np.zeros(nc, dtype=np.int64), ORD=np.zeros(nc, dtype=np.int64), USED=np.zeros(nc, dtype=np.int64),
                 VAL=np.zeros(num_players, dtype=np.int64), GT=np.zeros((2, max(512, wide))),
                 SNAP=np.zeros((64, st["Z"].size + st["ZN"].size + st["GV"].size + st["PV"].size + 3 * nc + 4),
                               dtype=np.int64), CLS=card_classes(game), SAW=np.zeros(nc, dtype=np.bool_))
        self._work[num_players] = w
        return w

    def _pins(self) -> np.ndarray:
        """The card variables' slots (see :func:`prepare`)."""
        gs, ps = self.info.get("card_vars", []), self.info.get("card_pvars", [])
        out = np.full((2, max(1, len(gs), len(ps))), -1, dtype=np.int64)
        out[0, :len(gs)] = gs
        out[1, :len(ps)] = ps
        return out

    def visible_rows(self, num_players: int, seat: int) -> np.ndarray:
        """Rows of Z that ``seat`` sees (a ``public`` zone, its own ``owner`` zone)."""
        info = self.info
        vis = np.zeros(self.card_rows, dtype=np.bool_)  # (a list variable's rows hold no cards)
        for name, zd in self.game.zones.items():
            base, span = info["zone_row"][name], info.get("zone_span", {}).get(name, 1)  # (zones of sets: rows per owner)
            if zd.per_player:
                for owner in range(num_players):
                    vis[base + owner * span:base + (owner + 1) * span] = \
                        zd.visibility == "public" or (zd.visibility == "owner" and owner == seat)
            else:
                vis[base:base + span + (span > 1)] = zd.visibility == "public"
        return vis

    def decide(self, seed: int, num_players: int, records, seat: int, iterations: int, rng_seed: int,
               c: float = 0.7, horizon: str = "phase", greedy: bool = False, scale=None):
        """One decision of ``seat`` after ``records`` (``[(player, index of its option), ...]``,
        the game's actions from its start, a simultaneous choice's in any order) of the game of
        ``seed``: ``(value, mode)`` of the option to play (greedy: ``("index", k)``), or None when
        the kernel cannot search it (the caller searches another way). ``scale``: a 2-list (count,
        sum of squares) of the value's margin spread, kept across decisions as the Python bot does
        (updated). ``iterations``: accepted simulations; ``rng_seed``: the search's generator."""
        w = self._arrays(num_players, iterations + 2 if not greedy else 4)
        n = len(records)
        if w["REC"].shape[0] < n + 1:
            w["REC"] = np.zeros((2 * n + 64, 5), dtype=np.int64)
        rec = w["REC"]
        for j, (p, k) in enumerate(records):
            rec[j, 0], rec[j, 1] = p, k
        si = w["SI"]
        si[:] = 0
        si[NREC], si[SEAT], si[NITER], si[GREEDY] = n, seat, iterations, int(greedy)
        si[HORIZON] = 1 if horizon == "phase" else 0
        si[RNG] = (rng_seed & 0x7FFFFFFFFFFFFFFF) or 0x9E3779B97F4A7C15 & 0x7FFFFFFFFFFFFFFF
        si[MAXNODES] = w["TI"].shape[1]
        si[EVMAX] = w["EVK"].shape[0]
        si[SIGN] = -1 if self.game.winner_rule == "lowest" else 1
        sf = w["SF"]
        sf[0], sf[1] = scale if scale is not None else (0, 0.0)
        w["VIS"] = self.visible_rows(num_players, seat)
        w["GT"][:] = 0
        w["RI"][0] = seed  # (new_game starts every simulation with the seed in RI[0])
        self._search(self._call(w, c))
        if scale is not None:
            scale[0], scale[1] = sf[0], sf[1]
        self.last = {"iterations": int(si[ITER]), "rejected": int(si[REJECTS]), "errors": int(si[ERRORS]),
                     "hidden": int(si[NU]), "nodes": int(si[NNODES])}
        if greedy:
            return ("index", int(si[GCHOICE])) if si[ITER] > 0 and si[GCHOICE] >= 0 else None
        if not si[OK]:
            return None
        return int(si[BESTV]), int(si[BESTM])

    def _call(self, w, c):
        from .typepass import STATE_ARGS
        return [w[k] for k in STATE_ARGS] + [w[k] for k in _WORK.replace(" ", "").split(",")[:-1]] + [float(c)]

    def _search(self, args: list) -> None:
        """One decision's search, given the driver's arguments."""
        self.module.search(*args)


class MachineSearch(SearchKernel):
    """The search of one Game on the bytecode machine (:mod:`interpreter.fast.vm`): the search module's
    generator and scores as bytecode, the driver and the search itself (:data:`DRIVER` and this module's
    functions) compiled once for every spec (:func:`machine_driver_source`). The same decisions as
    :class:`SearchKernel`, ready as soon as the spec is translated, while another process compiles the
    spec's own search module (``behind``, a :class:`~interpreter.fast.behind.CompileBehind`).
    Raises :class:`~interpreter.fast.typepass.NotTyped` when the module uses what the machine lacks."""

    def __init__(self, game, source: str, info: dict):
        from . import vm
        from .bytecode import translate
        prog = translate(source, roots=("steps", "score"))
        if prog.params.get("steps") != ["NP"] or len(prog.params.get("score", ())) != 2:
            raise NotTyped("the search module's steps and score are not the driver's")
        super().__init__(game, source, info, _machine_module())
        frames, stack = vm.frames_of(prog)
        self._lead = [prog.code, frames, stack, np.int64(prog.entries["steps"]), np.int64(prog.entries["score"]),
                      np.int64(prog.bases["steps"]), np.int64(prog.bases["score"])]

    def _search(self, args: list) -> None:
        self.module.search(*self._lead, *args)


def search_kernel_for(game, compiled: bool = False) -> SearchKernel:
    """The search kernel of ``game`` (built once per Game object and process; machine code cached
    by numba). When that code is not in the cache yet, it is first a :class:`MachineSearch` (the
    same decisions, ready at once) while another process compiles it, and the compiled one once
    that is done (``RULEBOOK_MACHINE=off``: it compiles here, at the first decision). ``compiled``:
    the compiled one only (compiled here if need be, or the compile under way waited for): for work
    shared with other processes, which would each start one, or that should not start on the machine.
    Raises :class:`~interpreter.fast.typepass.NotTyped` when the spec does not type or numba is missing."""
    from .behind import compile_over, on_the_machine
    from .kernel import built_once, in_cache, load_module
    from .typepass import check_source, lower_search

    def build(game):
        source, info = lower_search(game)
        source = driver_source(source)
        check_source(source, _NAMES, _IMPORTS, (ast.Break, ast.Continue, ast.BitAnd, ast.RShift))
        module, path = load_module(source, "rulebook_search")
        if not compiled and not in_cache(module, path, "search"):
            early = on_the_machine(game, source, lambda: MachineSearch(game, source, info), "search")
            if early is not None:
                return early
        return SearchKernel(game, source, info, module)
    sk = built_once(_SEARCH, game, build)
    if sk.__class__ is MachineSearch and compile_over(sk, "search", compiled):
        sk = SearchKernel(game, sk.source, sk.info, load_module(sk.source, "rulebook_search")[0])
        _SEARCH[id(game)] = (game, sk)
    return sk


def _machine_module():
    """The search's driver on the machine (:func:`~interpreter.fast.searchdriver.machine_driver_source`),
    a numba module of its own beside the machine's (compiled once per cache folder, when a search
    first runs on the machine)."""
    if not _MACHINE_MODULE:
        from . import vm
        from .kernel import load_module
        from .vmops import ARRAYS
        text = machine_driver_source(vm.machine_module().__name__, ", ".join(ARRAYS))
        _MACHINE_MODULE.append(load_module(text, "machine_search")[0])
    return _MACHINE_MODULE[0]


_MACHINE_MODULE: list = []
