"""The fixed numba functions every generated kernel module calls (zones, marks, generators).

Layout (see :mod:`interpreter.fast.typepass`): ``Z[row, k]`` card ids of a zone row, bottom first,
``ZN[row]`` its length; ``LOC[card]`` the row holding a card; ``PB[card]``/``MD[card]`` its marks
(who played it, its mode; :data:`NULL` when unmarked); ``RG[0]`` the generator of the current
random event, ``RG[1 + seat]`` the random bot of each seat; ``RI`` = [seed, draws so far, actions,
error]. Each function does what the step API's instruction of the same name does
(:mod:`interpreter.engine.program`), in the same order, so the games are the same.
"""
from __future__ import annotations

import numpy as np
from numba import carray, int64, njit, uint64
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.core import types
from numba.extending import intrinsic

from .rng import (key_int, key_texts, randbelow, randbelow_row, seed_event, seed_int, seed_many,  # noqa: F401
                  shuffle, shuffle_row, write_int)

NULL = -(2 ** 62)
EVENT = 0


def _drop_stale_caches(folder=None) -> None:
    """Delete numba's cached machine code of this module and of :mod:`.rng` when either file has
    changed since it was cached. Why: numba checks only the file a cached function is written in,
    and the functions here compile rng's into them, so after a change to rng.py alone (a ``git
    pull`` in an editable install) they would run the old generators. A digest of both files is
    kept beside the caches; on a mismatch both modules' caches go and are rebuilt on first use.
    ``folder``: where the caches are (default: where numba keeps this module's)."""
    import hashlib
    from pathlib import Path
    here = Path(__file__).parent
    digest = hashlib.sha256(b"".join((here / f).read_bytes() for f in ("rng.py", "runtime.py"))).hexdigest()
    if folder is None:
        try:  # where numba keeps this module's cache (beside it, or a per-user folder if that is read-only)
            folder = key_int._cache._cache_path
        except AttributeError:
            return
    folder = Path(folder)
    stamp = folder / "rulebook-fast-sources.sha256"
    try:
        if stamp.exists() and stamp.read_text() == digest:
            return
        for module in ("rng", "runtime", "prebuilt"):  # (prebuilt compiles both in)
            for old in list(folder.glob(f"{module}.*.nbi")) + list(folder.glob(f"{module}.*.nbc")):
                old.unlink(missing_ok=True)
        folder.mkdir(parents=True, exist_ok=True)
        stamp.write_text(digest)
    except OSError:  # a read-only cache: numba will not write there either
        pass


_drop_stale_caches()


@intrinsic
def _data_pointer(typingctx, arr):
    """The data pointer of an array, typed (``CPointer(dtype)``)."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, signature, args):
        return context.make_array(signature.args[0])(context, builder, args[0]).data
    return types.CPointer(arr.dtype)(arr), codegen


@njit(cache=True)
def raw(a):
    """``a`` seen through a view that owns nothing (``numba.carray`` of its data pointer).

    Why: numba counts references to every array it passes or slices, with an atomic instruction
    each time, and in the kernel those counts took about three quarters of the time (perf, on a
    trick-taking spec). A view made from a bare pointer has no owner to count. The driver makes one of each
    array it is given, and the caller keeps the arrays alive until the driver returns."""
    return carray(_data_pointer(a), a.shape)


@njit(cache=True)
def memo(M, k, v):
    """``M[k] = v``, returned as stored (a generated line's shared helper value, see
    :func:`interpreter.fast.typepass._memo`)."""
    M[k] = v
    return M[k]


@njit(cache=True)
def truthy(x):
    """The truth of a number as the language reads it (0 and null are false)."""
    return x != 0 and x != NULL


@njit(cache=True)
def attr_get(ATTR, a, c):
    """Attribute ``a`` of card ``c`` (null for no card)."""
    return ATTR[a, c] if c >= 0 else NULL


@njit(cache=True)
def attr_mode(ATTR, MD, a, c, nmr, maxm, na):
    """Attribute ``a`` of card ``c`` as the language reads it: its declared mode's value first (a
    card played as one of its modes, e.g. a card declared another kind), else its own."""
    if c < 0:
        return NULL
    m = MD[c]
    if m != NULL:
        for k in range(ATTR[nmr, c]):
            if ATTR[nmr + 1 + k, c] == m:
                v = ATTR[nmr + 1 + maxm + k * na + a, c]
                if v != NULL + 1:
                    return v
    return ATTR[a, c]


@njit(cache=True)
def card_get(arr, c):
    return arr[c] if c >= 0 else NULL


@njit(cache=True)
def add_null(old, v):
    """``add``: a null variable counts as 0."""
    return (0 if old == NULL else old) + v


@njit(cache=True)
def if_null(a, b):
    return b if a == NULL else a


@njit(cache=True)
def min2(a, b):
    """``min(a, b)`` of the language: nulls are left out."""
    if a == NULL:
        return b
    if b == NULL:
        return a
    return a if a <= b else b


@njit(cache=True)
def max2(a, b):
    if a == NULL:
        return b
    if b == NULL:
        return a
    return a if a >= b else b


@njit(cache=True)
def event_gen(RG, RI, SB, SK):
    """The row of RG holding the generator of the State's next draw (``random.Random(
    f"{seed}/{count}")``): seeded with the batch when it was foreseen, else seeded now in the
    last row."""
    k = RI[1]
    RI[1] += 1
    if k < RI[6]:
        return RI[5] + k
    spare = RG.shape[0] - 1
    seed_event(RG[spare], RI[0], k, SB[0:64], SB[64:256], SB[256:320], SK)
    return spare


@njit(cache=True)
def prepare_batch(RG, first_seed, nb, NP, E, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH):
    """Seed, side by side, the generators of games ``first_seed .. first_seed + nb - 1``: game j's
    random bots (``random.Random(seed * 1_000_003 + p)``) in rows ``j * (NP + E) + p`` and its first
    ``E`` draws (``random.Random(f"{seed}/{k}")``, their texts hashed side by side too) in the ``E``
    rows after them. Scratch: as :func:`~interpreter.fast.rng.seed_many` and
    :func:`~interpreter.fast.rng.key_texts`."""
    r = 0
    ne = 0
    for j in range(nb):
        seed = first_seed + j
        for p in range(NP):
            KL[r] = key_int(seed * 1000003 + p, KEYS[r])
            r += 1
        for k in range(E):
            pos = write_int(TXT[ne], 0, seed)
            TXT[ne, pos] = 47  # '/'
            TXL[0, ne] = write_int(TXT[ne], pos + 1, k)
            TXL[1, ne] = r
            ne += 1
            r += 1
    key_texts(TXT, TXL, ne, KEYS, KL, SH)
    seed_many(RG, KEYS, KL, r, G, KT, ROWOF, GROUPS, ORDER)


@njit(cache=True)
def new_game(Z, ZN, GV, PV, PB, MD, LOC, RI, ZINIT, ZNINIT, GVINIT, PVINIT, seed):
    """The position before the flow runs: every card in the initial zone, variables at their
    defaults, no marks. ``ZINIT`` may be narrower than ``Z`` (the driver's holds only the columns
    the initial zones fill, see ``Kernel.run``): the columns past it keep what the last game left,
    which nothing reads (a row is read up to its length ``ZN[r]``, a list variable's rows up to
    its first row's), and copying ``Z``'s whole width (512 columns when the spec has a list
    variable) was a large part of a short game's time."""
    Z[:, :ZINIT.shape[1]] = ZINIT
    ZN[:] = ZNINIT
    GV[:] = GVINIT
    PV[:, :] = PVINIT
    PB[:] = NULL
    MD[:] = NULL
    for r in range(ZN.shape[0]):
        for k in range(ZN[r]):
            LOC[Z[r, k]] = r
    RI[0] = seed
    RI[1] = 0
    RI[2] = 0
    RI[3] = 0


@njit(cache=True)
def gather(Z, ZN, PB, MD, LOC, row, NP):
    """``gather``: every card in play to ``row`` in card-table order; marks cleared. A card
    whose ``LOC`` is negative is not in this game (a seat's card of per_player entries, the seat
    not playing) and stays out."""
    ZN[:] = 0
    n = LOC.shape[0]
    k = 0
    for c in range(n):
        if LOC[c] < 0:
            continue
        Z[row, k] = c
        k += 1
        LOC[c] = row
        PB[c] = NULL
        MD[c] = NULL
    ZN[row] = k


@njit(cache=True)
def move_top(Z, ZN, PB, MD, LOC, src, dst, count, has_count, bottom):
    """``move``: ``count`` cards from the top of ``src`` (taken one at a time, so their order
    turns over), or all of them in order (``has_count`` 0), to the top (or ``bottom``) of ``dst``.
    False for a negative count (the step API refuses it)."""
    m = ZN[src]
    if has_count:
        if count < 0:
            return False
        n = count if count < m else m
    else:
        n = m
    if n == 0:
        return True
    for k in range(n):  # the cards that move: their marks go
        c = Z[src, m - 1 - k] if has_count else Z[src, k]
        PB[c] = NULL
        MD[c] = NULL
        LOC[c] = dst
    # in place, with no buffer (an allocation here cost more than the rest of the move)
    if src == dst:  # the zone ends as (the cards left) + (the moved, in order of taking), or the reverse
        if has_count:
            if bottom:
                _reverse(Z, src, 0, m)
                _reverse(Z, src, n, m)
            else:
                _reverse(Z, src, m - n, m)
        return True
    d = ZN[dst]
    if bottom:
        for k in range(d - 1, -1, -1):
            Z[dst, k + n] = Z[dst, k]
        at = 0
    else:
        at = d
    for k in range(n):
        Z[dst, at + k] = Z[src, m - 1 - k] if has_count else Z[src, k]
    ZN[src] = m - n
    ZN[dst] = d + n
    return True


@njit(cache=True)
def _reverse(Z, row, lo, hi):
    """Turn ``Z[row, lo:hi]`` over."""
    hi -= 1
    while lo < hi:
        Z[row, lo], Z[row, hi] = Z[row, hi], Z[row, lo]
        lo += 1
        hi -= 1


@njit(cache=True)
def deal(Z, ZN, PB, MD, LOC, src, base, count, mode, start, NP):
    """``deal``: one card at a time from the top of ``src`` to the rows ``base + seat``, seats
    clockwise from ``start``; ``mode`` 0: ``count`` each, 1: as many as deal evenly, 2: every card.
    False when the source holds too few cards (the step API refuses it)."""
    if mode == 2:
        k = 0
        while ZN[src] > 0:
            ZN[src] -= 1
            c = Z[src, ZN[src]]
            PB[c] = NULL
            MD[c] = NULL
            r = base + (start + k % NP) % NP
            Z[r, ZN[r]] = c
            ZN[r] += 1
            LOC[c] = r
            k += 1
        return True
    n = count if mode == 0 else ZN[src] // NP
    if mode == 0 and n * NP > ZN[src]:
        return False
    for _ in range(n):
        for i in range(NP):
            ZN[src] -= 1
            c = Z[src, ZN[src]]
            PB[c] = NULL
            MD[c] = NULL
            r = base + (start + i) % NP
            Z[r, ZN[r]] = c
            ZN[r] += 1
            LOC[c] = r
    return True


@njit(cache=True)
def _take_out(Z, ZN, LOC, c):
    """Card ``c`` out of the row that holds it (the cards above it move down one place)."""
    r = LOC[c]
    n = ZN[r]
    k = 0
    while Z[r, k] != c:
        k += 1
    for j in range(k, n - 1):
        Z[r, j] = Z[r, j + 1]
    ZN[r] = n - 1


@njit(cache=True)
def play_card(Z, ZN, PB, MD, LOC, c, dst, seat, mode):
    """A chosen card played to ``dst``: out of its zone, on top of ``dst``, marked as ``seat``'s
    (and with its ``mode``, or NULL)."""
    _take_out(Z, ZN, LOC, c)
    Z[dst, ZN[dst]] = c
    ZN[dst] += 1
    LOC[c] = dst
    PB[c] = seat
    MD[c] = mode


@njit(cache=True)
def move_card(Z, ZN, PB, MD, LOC, c, src, dst, at):
    """``move: {cards: ...}`` for one card ``c``: out of row ``src`` (-1: wherever it is), to the
    top of ``dst`` (``at`` -1) or to place ``at`` from its bottom; its marks cleared. False when
    ``c`` is not a card or not in ``src`` (the step API refuses it)."""
    if c < 0 or c >= LOC.shape[0] or (src >= 0 and LOC[c] != src):
        return False
    _take_out(Z, ZN, LOC, c)
    d = ZN[dst]
    if at < 0 or at > d:
        at = d
    for j in range(d, at, -1):
        Z[dst, j] = Z[dst, j - 1]
    Z[dst, at] = c
    ZN[dst] = d + 1
    LOC[c] = dst
    PB[c] = NULL
    MD[c] = NULL
    return True


@njit(cache=True)
def listed_twice(row, n):
    """True when a card appears twice in ``row[:n]`` (a ``move: {cards: ...}`` list: the step API
    refuses it, a card being in one place at a time)."""
    for i in range(1, n):
        c = row[i]
        for j in range(i):
            if row[j] == c:
                return True
    return False


@njit(cache=True)
def sort_row(row, n, out):
    """``out[:n]`` = ``row[:n]`` sorted (card-table order); every id must be below ``len(out)`` (the
    kernel's SK has room for every card). A zone's cards are distinct small ids:
    they are set as bits of 64-bit words (kept in ``out`` after the first ``n`` places) and read
    back in order, with no branch that depends on the data (an insertion sort's unpredictable
    exits cost a ten-card hand more than the rest of its listing). An insertion sort when
    ``out`` has no room for the words."""
    words = (out.shape[0] + 63) >> 6  # card ids are below out's length (it has room for every card)
    if n + words > out.shape[0]:
        for k in range(n):
            x = row[k]
            j = k
            while j > 0 and out[j - 1] > x:
                out[j] = out[j - 1]
                j -= 1
            out[j] = x
        return
    for w in range(words):
        out[n + w] = 0
    for k in range(n):
        x = row[k]
        out[n + (x >> 6)] = int64(uint64(out[n + (x >> 6)]) | (uint64(1) << uint64(x & 63)))
    j = 0
    for w in range(words):
        bits = uint64(out[n + w])
        while bits:
            out[j] = w * 64 + trailing_zeros(bits)
            bits &= bits - uint64(1)
            j += 1
