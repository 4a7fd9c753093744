"""CPython's ``random`` module, bit for bit, in numba: the generators the step API draws from.

The step API draws every ``shuffle`` and ``random`` step from ``random.Random(f"{seed}/{k}")``
(``k`` counts the State's draws, see :class:`~interpreter.model.state.State`), and simulate's random
bot of seat ``p`` in the game of seed ``s`` is ``random.Random(s * 1_000_003 + p)`` picking with
``choice``. To play the very same games, the kernel re-implements what those calls do in CPython
(3.8 and later; the algorithms have not changed since 3.2):

- seeding with a text (version 2): the key is the integer ``int.from_bytes(text + sha512(text))``
  (big-endian), cut into 32-bit words from the least significant one; seeding with an int: the
  words of ``abs(seed)`` the same way (``[0]`` for 0); then ``init_by_array`` of MT19937;
- ``getrandbits(k)`` for ``k <= 32``: one 32-bit output shifted right by ``32 - k``;
- ``_randbelow(n)``: ``k = n.bit_length()``, draw ``getrandbits(k)`` until it is below ``n``;
- ``shuffle(x)``: for ``i`` from ``len(x) - 1`` down to 1, swap ``x[i]`` with ``x[_randbelow(i + 1)]``;
  ``choice(seq)`` is ``seq[_randbelow(len(seq))]``, ``randrange(n)`` is ``_randbelow(n)``.

A generator is a row of an ``int64`` array, :data:`STATE_SIZE` wide: ``[0, FIRST)`` outputs made
ready by a batch seeding (:func:`seed_many`), ``[OFF, OFF + 624)`` MT19937's state, then the
position of the next output, how many words of the current block are twisted, how many ready-made
outputs there are, and the key (its length, then up to 48 words). A game draws only a few dozen
numbers from each generator, so a block is twisted lazily, word by word, and a batch-seeded row
keeps its key rather than its state: the state is made from the key only if a game draws past the
ready-made outputs. Every function here is ``numba.njit(cache=True)``; ``tests/test_fast_kernel.py``
checks them against ``random`` and ``hashlib``. Raises nothing: the callers pass ``n >= 1``.
"""
from __future__ import annotations

import numpy as np
from numba import int64, njit, uint32, uint64
from numba.cpython.unsafe.numbers import leading_zeros

N = 624
M = 397
# A generator's row (int64[STATE_SIZE]):
FIRST = 128        # [0, FIRST): the first outputs, ready-made by a batch seeding (seed_many)
OFF = FIRST        # [OFF, OFF + N): the 624 words of MT19937's state
POS = OFF + N      # index of the next output in the current block of 624
READY = POS + 1    # words of the current block twisted so far (the block is twisted lazily)
PRE = POS + 2      # outputs ready-made in [0, FIRST): FIRST after seed_many, else 0
KLEN = POS + 3     # the key's length and, after it, its words: seed_many keeps the key, not the
KEY = POS + 4      # state, which is made from the key if a game draws past the ready-made outputs
STATE_SIZE = KEY + 48
MASK32 = 0xFFFFFFFF


def _sha512_constants():
    """SHA-512's round constants and initial hash (fractional parts of cube and square roots of
    the first primes, FIPS 180-4 §4.2.3 and §5.3.5), computed exactly with integer roots."""
    primes, n = [], 2
    while len(primes) < 80:
        if all(n % p for p in primes):
            primes.append(n)
        n += 1

    def iroot(x, k):
        lo, hi = 0, 1 << ((x.bit_length() + k - 1) // k + 1)
        while lo < hi:  # the largest r with r**k <= x
            mid = (lo + hi + 1) // 2
            if mid ** k <= x:
                lo = mid
            else:
                hi = mid - 1
        return lo
    k = [iroot(p << 192, 3) & ((1 << 64) - 1) for p in primes]
    h = [iroot(p << 128, 2) & ((1 << 64) - 1) for p in primes[:8]]
    return np.array(k, dtype=np.uint64), np.array(h, dtype=np.uint64)


SHA_K, SHA_H = _sha512_constants()


def _mt_base():
    """``init_genrand(19650218)``: the state init_by_array starts from (the same for every key)."""
    mt = [0] * N
    mt[0] = 19650218
    for i in range(1, N):
        mt[i] = (1812433253 * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i) & MASK32
    return np.array(mt, dtype=np.int64)


MT_BASE = _mt_base()


@njit(cache=True)
def _rotr(x, n):
    return (x >> uint64(n)) | (x << uint64(64 - n))


@njit(cache=True)
def sha512(msg, length, out, block, w):
    """SHA-512 of ``msg[:length]`` (a uint8 array, ``length`` <= 111: one block) into ``out``
    (a uint8 array of 64), using the caller's scratch: ``block`` (uint8, 128 or more) and ``w``
    (int64, 16 or more: the message schedule as a ring of 16 words, kept as int64 bits). Allocates
    nothing, so the kernel can run without numba's reference counting."""
    for i in range(128):
        block[i] = 0
    for i in range(length):
        block[i] = msg[i]
    block[length] = 0x80
    bits = length * 8
    for i in range(8):
        block[127 - i] = (bits >> (8 * i)) & 0xFF
    for t in range(16):
        v = uint64(0)
        for b in range(8):
            v = (v << uint64(8)) | uint64(block[8 * t + b])
        w[t] = int64(v)
    a, b, c, d = SHA_H[0], SHA_H[1], SHA_H[2], SHA_H[3]
    e, f, g, h = SHA_H[4], SHA_H[5], SHA_H[6], SHA_H[7]
    for t in range(80):
        i = uint64(t) & uint64(15)  # unsigned ring indices: no negative-index wrap in the loop
        if t >= 16:  # w[t] from w[t-16], w[t-15], w[t-7], w[t-2]: all in the ring
            x, y = uint64(w[(i + uint64(1)) & uint64(15)]), uint64(w[(i + uint64(14)) & uint64(15)])
            s0 = _rotr(x, 1) ^ _rotr(x, 8) ^ (x >> uint64(7))
            s1 = _rotr(y, 19) ^ _rotr(y, 61) ^ (y >> uint64(6))
            w[i] = int64(uint64(w[i]) + s0 + uint64(w[(i + uint64(9)) & uint64(15)]) + s1)
        wt = uint64(w[i])
        t1 = h + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + SHA_K[t] + wt
        t2 = (_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))
        h, g, f, e, d, c, b, a = g, f, e, d + t1, c, b, a, t1 + t2
    hs = (SHA_H[0] + a, SHA_H[1] + b, SHA_H[2] + c, SHA_H[3] + d,
          SHA_H[4] + e, SHA_H[5] + f, SHA_H[6] + g, SHA_H[7] + h)
    for i in range(8):
        v = hs[i]
        for j in range(8):
            out[8 * i + j] = (v >> uint64(56 - 8 * j)) & uint64(0xFF)


@njit(cache=True, boundscheck=False)
def init_by_array(gen, key, keylen):
    """Seed ``gen`` (int64[STATE_SIZE]) with the 32-bit words ``key[:keylen]`` (least significant
    first), as CPython's ``init_by_array``: the state in ``gen[OFF:OFF + N]``, no ready-made outputs."""
    mt = gen[OFF:OFF + N]
    for i in range(N):
        mt[i] = MT_BASE[i]
    i, j = 1, 0
    k = N if N > keylen else keylen
    prev = mt[0]  # mt[i - 1], kept in a register: the loop is one long chain through it
    while k > 0:
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1664525) & MASK32)) + key[j] + j) & MASK32
        mt[i] = prev
        i += 1
        j += 1
        if i >= N:
            mt[0] = prev
            i = 1
        if j >= keylen:
            j = 0
        k -= 1
    k = N - 1
    while k > 0:
        prev = ((mt[i] ^ (((prev ^ (prev >> 30)) * 1566083941) & MASK32)) - i) & MASK32
        mt[i] = prev
        i += 1
        if i >= N:
            mt[0] = prev
            i = 1
        k -= 1
    mt[0] = 0x80000000
    gen[POS] = N    # the next output is made by a new block
    gen[READY] = 0  # words of the new block made ready so far (the block is made lazily)
    gen[PRE] = 0


@njit(cache=True, boundscheck=False)
def genrand_row(G, r):
    """The next 32-bit output (``genrand_uint32``) of the generator in row ``r`` of ``G``: a
    ready-made one while there are some (one load), else :func:`genrand_state`."""
    idx = G[r, POS]
    if idx < G[r, PRE]:
        G[r, POS] = idx + 1
        return G[r, idx]
    return genrand_state(G, r)


@njit(cache=True, boundscheck=False)
def genrand_state(G, r):
    """The next output from the state words of row ``r``. The block of outputs is twisted lazily,
    word by word, in the order CPython's twist makes them (a game draws a few dozen numbers from
    each generator, not 624). A row seeded by :func:`seed_many` whose ready-made outputs are used
    up first makes its state from its key (the first block's twist is then redone up to here)."""
    if G[r, PRE] > 0:
        init_by_array(G[r], G[r, KEY:KEY + G[r, KLEN]], G[r, KLEN])
        G[r, POS] = FIRST
    idx = G[r, POS]
    if idx >= N:
        idx = 0
        G[r, READY] = 0
    ready = G[r, READY]
    while ready <= idx:
        i1 = ready + 1 if ready + 1 < N else 0
        im = ready + M if ready + M < N else ready + M - N
        y = (G[r, OFF + ready] & 0x80000000) | (G[r, OFF + i1] & 0x7FFFFFFF)
        G[r, OFF + ready] = G[r, OFF + im] ^ (y >> 1) ^ ((-(y & 1)) & 0x9908B0DF)
        ready += 1
    G[r, READY] = ready
    G[r, POS] = idx + 1
    return temper(G[r, OFF + idx])


@njit(cache=True)
def temper(y):
    """MT19937's tempering of a state word (the output it gives)."""
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & MASK32


@njit(cache=True, boundscheck=False)
def randbelow_row(G, r, n):
    """``Random._randbelow(n)`` for ``1 <= n < 2**32`` of the generator in row ``r`` of ``G``:
    uniform in ``0..n-1`` (``getrandbits(n.bit_length())`` until below ``n``)."""
    shift = 32 - (64 - leading_zeros(uint64(n)))  # 32 - n.bit_length()
    v = genrand_row(G, r) >> shift
    while v >= n:
        v = genrand_row(G, r) >> shift
    return v


@njit(cache=True, boundscheck=False)
def shuffle_row(G, r, Z, zr, length):
    """``Random.shuffle(Z[zr, :length])`` in place, with the generator in row ``r`` of ``G``."""
    for i in range(length - 1, 0, -1):
        j = randbelow_row(G, r, i + 1)
        t = Z[zr, i]
        Z[zr, i] = Z[zr, j]
        Z[zr, j] = t


@njit(cache=True)
def genrand(gen):
    """The next 32-bit output of the generator ``gen`` (int64[STATE_SIZE])."""
    return genrand_row(gen.reshape((1, gen.shape[0])), 0)


@njit(cache=True)
def randbelow(gen, n):
    """``Random._randbelow(n)`` of the generator ``gen`` (see :func:`randbelow_row`)."""
    return randbelow_row(gen.reshape((1, gen.shape[0])), 0, n)


@njit(cache=True)
def shuffle(gen, x, length):
    """``Random.shuffle(x[:length])`` in place."""
    shuffle_row(gen.reshape((1, gen.shape[0])), 0, x.reshape((1, x.shape[0])), 0, length)


@njit(cache=True)
def seed_int(gen, seed, key):
    """``random.Random(seed)`` for an int ``seed`` (``key``: an int64 scratch array of 4)."""
    init_by_array(gen, key, key_int(seed, key))


@njit(cache=True)
def key_text(text, length, scratch, digest, out):
    """The key words of ``random.Random(text)`` for an ASCII text ``text[:length]`` into ``out``
    (uint8 ``scratch`` of 128 or more, ``digest`` of 64; int64 ``out`` of 48 or more); returns
    their count. The key is the big-endian integer of ``text + sha512(text)``, cut into 32-bit
    words from its low end."""
    sha512(text, length, digest, scratch, out)  # scratch and out are free until sha512 returns
    for k in range(16):  # the digest's 64 bytes: the 16 low words
        d = 60 - 4 * k
        out[k] = (int64(digest[d]) << 24) | (int64(digest[d + 1]) << 16) | (int64(digest[d + 2]) << 8) | int64(digest[d + 3])
    kl = 16
    pos = length  # then the text's bytes, four at a time from its end
    while pos > 0:
        lo = pos - 4 if pos > 4 else 0
        word = 0
        for b in range(lo, pos):
            word = (word << 8) | int64(text[b])
        out[kl] = word
        kl += 1
        pos = lo
    while kl > 1 and out[kl - 1] == 0:  # leading zero bytes add no word
        kl -= 1
    return kl


@njit(cache=True)
def seed_text(gen, text, length, scratch, digest, key):
    """``random.Random(text)`` for an ASCII text ``text[:length]`` (arrays as :func:`key_text`)."""
    init_by_array(gen, key, key_text(text, length, scratch, digest, key))


@njit(cache=True)
def write_int(buf, pos, v):
    """Write the decimal digits of ``v`` (with a minus sign if negative) at ``buf[pos:]``; returns
    the position after them."""
    if v < 0:
        buf[pos] = 45  # '-'
        pos += 1
        v = -v
    digits = 1
    m = v
    while m >= 10:
        m //= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        buf[pos + i] = 48 + v % 10
        v //= 10
    return pos + digits


@njit(cache=True)
def seed_event(gen, seed, count, text, scratch, digest, key):
    """The generator of the State's draw number ``count`` in the game of seed ``seed``:
    ``random.Random(f"{seed}/{count}")``."""
    pos = write_int(text, 0, seed)
    text[pos] = 47  # '/'
    pos = write_int(text, pos + 1, count)
    seed_text(gen, text, pos, scratch, digest, key)


class Scratch:
    """The scratch arrays the seeding functions need (allocated once per run)."""

    def __init__(self):
        self.text = np.zeros(64, dtype=np.uint8)
        self.scratch = np.zeros(192, dtype=np.uint8)
        self.digest = np.zeros(64, dtype=np.uint8)
        self.key = np.zeros(64, dtype=np.int64)



# -- many generators at once ---------------------------------------------------------------------
# A game seeds a generator per random event and per bot: ~1,250 dependent steps each, the largest
# cost of a short game. The steps are the same for every key of the same length, so the keys are
# sorted by length and seeded side by side, one vector lane each: G[i, c] is word i of the
# generator in column c, KT[j, c] word j of its key. Only the first FIRST outputs of each are then
# twisted and tempered (side by side too) into its row: most generators never need more.

MT_BASE32 = MT_BASE.astype(np.uint32)
M1 = np.uint32(1664525)
M2 = np.uint32(1566083941)


@njit(cache=True)
def key_int(seed, out):
    """The key words of ``random.Random(seed)`` (an int) into ``out``; returns their count."""
    n = seed if seed >= 0 else -seed
    kl = 0
    while n > 0:
        out[kl] = n & MASK32
        n >>= 32
        kl += 1
    if kl == 0:
        out[0] = 0
        kl = 1
    return kl


@njit(cache=True, boundscheck=False, _nrt=False)
def key_texts(TXT, TXL, n, KEYS, KL, SH):
    """The key words of ``random.Random(text)`` (see :func:`key_text`) for ``n`` ASCII texts at once:
    text ``i`` is ``TXT[i, :TXL[0, i]]`` (at most 111 bytes: one SHA-512 block), its key goes to
    ``KEYS[TXL[1, i]]`` and its word count to ``KL[TXL[1, i]]``. The texts are hashed side by side,
    one vector lane each (SH: uint64[24, >= n] scratch: rows 0-7 the working variables, kept as a
    ring so that a round writes two of them, rows 8-23 the message schedule, a ring of 16)."""
    for cs in range(n):
        c = uint64(cs)
        length = TXL[0, cs]
        for j in range(16):  # the padded block: text, 0x80, zeros, the length in bits
            v = uint64(0)
            for b in range(8):
                q = 8 * j + b
                byte = uint64(TXT[cs, q]) if q < length else (uint64(0x80) if q == length else uint64(0))
                v = (v << uint64(8)) | byte
            SH[uint64(8 + j), c] = v
        SH[uint64(23), c] = uint64(length * 8)
        for j in range(8):
            SH[uint64(j), c] = SHA_H[j]
    for t in range(80):
        i = uint64(t & 15)
        if t >= 16:  # w[t] from w[t-16], w[t-15], w[t-7], w[t-2]: all in the ring
            w0, w1 = uint64(8) + i, uint64(8) + ((i + uint64(1)) & uint64(15))
            w9, w14 = uint64(8) + ((i + uint64(9)) & uint64(15)), uint64(8) + ((i + uint64(14)) & uint64(15))
            for cs in range(n):
                c = uint64(cs)
                x, y = SH[w1, c], SH[w14, c]
                s0 = _rotr(x, 1) ^ _rotr(x, 8) ^ (x >> uint64(7))
                s1 = _rotr(y, 19) ^ _rotr(y, 61) ^ (y >> uint64(6))
                SH[w0, c] = SH[w0, c] + s0 + SH[w9, c] + s1
        # variable j (a = 0 .. h = 7) is in row (j - t) mod 8: the new a goes where h was, the new e
        # where d was, and the others stay put
        ra, rb, rc, rd = uint64(-t & 7), uint64((1 - t) & 7), uint64((2 - t) & 7), uint64((3 - t) & 7)
        re_, rf, rg, rh = uint64((4 - t) & 7), uint64((5 - t) & 7), uint64((6 - t) & 7), uint64((7 - t) & 7)
        k = SHA_K[t]
        wi = uint64(8) + i
        for cs in range(n):
            c = uint64(cs)
            a, b, cc, d = SH[ra, c], SH[rb, c], SH[rc, c], SH[rd, c]
            e, f, g, h = SH[re_, c], SH[rf, c], SH[rg, c], SH[rh, c]
            t1 = h + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + k + SH[wi, c]
            t2 = (_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & cc) ^ (b & cc))
            SH[rh, c] = t1 + t2
            SH[rd, c] = d + t1
    for cs in range(n):  # 80 rounds: variable j is back in row j
        c = uint64(cs)
        row = TXL[1, cs]
        for k in range(16):  # the digest's 64 bytes: the key's 16 low words
            hv = SH[uint64(7 - k // 2), c] + SHA_H[7 - k // 2]
            KEYS[row, k] = int64(hv & uint64(MASK32)) if k % 2 == 0 else int64(hv >> uint64(32))
        kl = 16
        pos = TXL[0, cs]  # then the text's bytes, four at a time from its end
        while pos > 0:
            lo = pos - 4 if pos > 4 else 0
            word = 0
            for b in range(lo, pos):
                word = (word << 8) | int64(TXT[cs, b])
            KEYS[row, kl] = word
            kl += 1
            pos = lo
        while kl > 1 and KEYS[row, kl - 1] == 0:  # leading zero bytes add no word
            kl -= 1
        KL[row] = kl


@njit(cache=True, boundscheck=False, _nrt=False)
def init_groups(G, KT, GS, GL, JB, ngroups):
    """Seed the generators of columns ``0 .. GS[ngroups] - 1`` of ``G`` (uint32[624, W]) with the
    keys ``KT`` (uint32[48, W], word j of column c's key at KT[j, c]): columns ``GS[g] ..
    GS[g + 1] - 1`` have keys of ``GL[g]`` words; ``JB`` (int64[>= ngroups]) is scratch. (Indices are unsigned so that numba adds no
    negative-index wrap, which would keep LLVM from vectorising the inner loops.)"""
    W = GS[ngroups]
    for c in range(W):
        G[0, c] = MT_BASE32[0]
    for g in range(ngroups):  # the key word each group is at
        JB[g] = 0
    i = uint64(1)
    for t in range(N):
        prv = i - uint64(1)
        b = MT_BASE32[i]  # the first loop's first N - 1 steps read words not yet written: the base
        for g in range(ngroups):
            jj = uint64(JB[g])
            kj = uint32(jj)
            c0 = uint64(GS[g])
            if t < N - 1:
                for k in range(GS[g + 1] - GS[g]):
                    c = c0 + uint64(k)
                    p = G[prv, c]
                    G[i, c] = uint32(uint32(b ^ uint32(uint32(p ^ (p >> uint32(30))) * M1)) + KT[jj, c]) + kj
            else:
                for k in range(GS[g + 1] - GS[g]):
                    c = c0 + uint64(k)
                    p = G[prv, c]
                    G[i, c] = uint32(uint32(G[i, c] ^ uint32(uint32(p ^ (p >> uint32(30))) * M1)) + KT[jj, c]) + kj
            jj += uint64(1)
            JB[g] = jj if jj < uint64(GL[g]) else uint64(0)
        i += uint64(1)
        if i >= N:
            for c in range(W):
                G[0, c] = G[N - 1, c]
            i = uint64(1)
    for t in range(N - 1):
        prv = i - uint64(1)
        ii = uint32(i)
        for c in range(W):
            p = G[prv, c]
            G[i, c] = uint32(G[i, c] ^ uint32(uint32(p ^ (p >> uint32(30))) * M2)) - ii
        i += uint64(1)
        if i >= N:
            for c in range(W):
                G[0, c] = G[N - 1, c]
            i = uint64(1)
    for c in range(W):
        G[0, c] = uint32(0x80000000)


@njit(cache=True, boundscheck=False)
def first_outputs(G, W, rowof, RG):
    """Twist words ``0 .. FIRST - 1`` of the generators in columns ``0 .. W - 1`` of ``G`` (in
    place, side by side) and write their tempered outputs to ``RG[rowof[c], 0:FIRST]``."""
    for k in range(FIRST):  # FIRST + M < N: every word read is still of the old block
        k1 = uint64(k + 1)
        km = uint64(k + M)
        kk = uint64(k)
        for c in range(W):
            y = (G[kk, c] & uint32(0x80000000)) | (G[k1, c] & uint32(0x7FFFFFFF))
            G[kk, c] = G[km, c] ^ (y >> uint32(1)) ^ ((uint32(0) - (y & uint32(1))) & uint32(0x9908B0DF))
        for c in range(W):  # tempered in place (side by side: in a loop of its own, it vectorises)
            y = G[kk, c]
            y ^= y >> uint32(11)
            y ^= (y << uint32(7)) & uint32(0x9D2C5680)
            y ^= (y << uint32(15)) & uint32(0xEFC60000)
            G[kk, c] = y ^ (y >> uint32(18))
    for k0 in range(0, FIRST, 16):  # then copied across, 16 words of a column at a time
        for c in range(W):
            r = rowof[c]
            for k in range(k0, k0 + 16):
                RG[r, k] = G[k, c]


@njit(cache=True)
def seed_many(RG, keys, keylens, count, G, KT, rowof, groups, order):
    """Seed rows 0..count-1 of RG with ``keys[r, :keylens[r]]``, many at once: rows sorted by key
    length (a counting sort) into columns of ``G``, seeded side by side, their first FIRST outputs
    made; each row keeps its key for the rare game that draws more. Scratch: G uint32[624, >=
    count], KT uint32[48, >= count], rowof int64[>= count], groups int64[3, 50], order int64[49]."""
    for L in range(49):
        order[L] = 0
    for r in range(count):
        order[keylens[r]] += 1
    ng = 0
    c = 0
    for L in range(1, 49):  # groups[0, g]: first column of group g, groups[1, g]: its key length
        if order[L] > 0:
            groups[0, ng] = c
            groups[1, ng] = L
            c += order[L]
            order[L] = groups[0, ng]  # now: the next free column of that length
            ng += 1
    groups[0, ng] = c
    for r in range(count):
        kl = keylens[r]
        c = order[kl]
        order[kl] = c + 1
        rowof[c] = r
        for j in range(kl):
            KT[j, c] = np.uint32(keys[r, j])
            RG[r, KEY + j] = keys[r, j]
        RG[r, KLEN] = kl
        RG[r, POS] = 0
        RG[r, PRE] = FIRST
    init_groups(G, KT, groups[0], groups[1], groups[2], ng)
    first_outputs(G, count, rowof, RG)
