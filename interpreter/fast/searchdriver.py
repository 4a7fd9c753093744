"""The search driver's text (:mod:`interpreter.fast.search`): the fixed template appended to a spec's
generated search module (:func:`driver_source`), and the same driver on the bytecode machine
(:func:`machine_driver_source`). Text only: nothing here is compiled or run."""
from __future__ import annotations

import hashlib
from pathlib import Path


# The driver appended to the generated module (a fixed template: its only hole is the digest of
# the search's files, _FILES, so the module's name, hence numba's cache of it, changes with their code).
_ARGS = "Z, ZN, GV, PV, PB, MD, LOC, ATTR, NP, RG, RI, TMP, OPT, SB, SK, SEEN, MEMO"
_WORK = ("ZINIT, ZNINIT, GVINIT, PVINIT, SI, SF, REC, EVK, EVO, SIG, INU, EXCL, TI, TF, PATH, CH, SITES, VIS, PINV, "
         "SLOTS, POOL, ORD, USED, VAL, GT, SNAP, CLS, SAW, c")
DRIVER = '''
SEARCH = {digest}


@njit(cache=True, boundscheck=False)
def playout({args}, {work}):
    new_game(Z, ZN, GV, PV, PB, MD, LOC, RI, ZINIT, ZNINIT, GVINIT, PVINIT, RI[0])
    begin(SI, PATH)
    for ask in steps({args}):
        if SI[STAGE] == ROLLOUT and (ask & 65535) < 65532:  # (the hot path: a turn in the rollout)
            RI[11] = rand_below(SI, (ask >> 16) & 1048575)
            continue
        if (ask & 65535) == 65532:  # a flow-level phase starts or ends
            if not phase_mark(ask, SI, SNAP, Z, ZN, GV, PV, PB, MD, LOC, RI):
                break
            continue
        if SI[STAGE] == PREFIX and (ask & 65535) < 65532:  # a recorded turn, found by value (else on_ask)
            k = forced_turn(SI, REC, OPT, SITES, ask, CLS)
            if k >= 0:
                RI[11] = k
                continue
        if not answer(ask, Z, ZN, LOC, RG, RI, TMP, OPT, SB, SK, SI, REC, EVK, EVO, SIG, INU, EXCL, TI, TF, PATH, CH,
                      SITES, CLS, VIS, SAW, c):  # (on_ask, or a real-time block's answer: interpreter.fast.searchrt)
            break
    for q in range(NP):
        VAL[q] = score({args}, q)
        if VAL[q] == NULL:
            VAL[q] = 0


@njit(cache=True, boundscheck=False)
def search({args}, {work}):
    SI[MODE] = 0
    playout({args}, {work})
    if SI[REJECT] or SI[STAGE] != ROOT or RI[3] != 0:
        return
    if not prepare_deal(Z, ZN, LOC, GV, PV, SI, REC, EVK, EVO, INU, VIS, PINV, SLOTS, POOL, EXCL, TI, SF, VAL, NP, SNAP,
                        SAW):
        return
    SI[MODE] = 1
    SI[ITER] = 0
    SI[ATTEMPTS] = 0
    while (SI[ITER] < SI[NITER] or (SI[GREEDY] and SI[ITER] < SI[ROOTN])) and SI[ATTEMPTS] < 10 * SI[NITER] + 100:
        SI[ATTEMPTS] += 1
        sample_world(SI, SIG, INU, SLOTS, POOL, EXCL, ORD, USED)  # (sample, or by groups: interpreter.fast.searchdeal)
        playout({args}, {work})
        if SI[REJECT] or RI[3] != 0 or SI[STAGE] == PREFIX:
            SI[REJECTS] += 1
            if RI[3] != 0:
                SI[ERRORS] += 1
            continue
        backup(SI, SF, TI, TF, PATH, VAL, NP, GT)
        SI[ITER] += 1
    if SI[ITER] > 0:
        best(SI, TI, TF, GT)
'''
_FILES = ("search.py", "searchrt.py", "searchdeal.py", "searchtables.py", "searchnames.py")  # (the digest: the driver compiles their code in)
_IMPORTS = tuple(f"interpreter.fast.{f[:-3]}" for f in _FILES)  # (what the search module may import)
_NAMES = frozenset(("SEARCH", "playout", "search", "begin", "on_ask", "prepare", "sample", "backup", "best", "ask",
                    "MODE", "REJECT", "STAGE", "ROOT", "ITER", "NITER", "GREEDY", "ROOTN", "ATTEMPTS", "REJECTS",
                    "PREFIX", "ERRORS", "ROLLOUT", "rand_below", "forced_turn", "k", "phase_mark", "answer", "prepare_deal", "sample_world") + tuple(x.strip() for x in _WORK.split(",")))


def _digest() -> int:
    return int.from_bytes(hashlib.sha256(b"".join((Path(__file__).parent / f).read_bytes() for f in _FILES)).digest()[:6], "big")


def driver_source(source: str) -> str:
    """The search module's text: the generated step module ``source`` with the fixed driver
    appended (and this module's functions imported)."""
    head = ("from interpreter.fast.search import (begin, on_ask, prepare, sample, backup, best, MODE, REJECT, STAGE, "
            "ROOT, ITER, NITER, GREEDY, ROOTN, ATTEMPTS, REJECTS, PREFIX, ERRORS, ROLLOUT, rand_below, forced_turn, phase_mark)\n"
            "from interpreter.fast.searchrt import answer\nfrom interpreter.fast.searchdeal import prepare_deal, sample_world\n")
    return source + "\n" + head + DRIVER.format(digest=_digest(), args=_ARGS, work=_WORK)


def machine_driver_source(machine: str, arrays: str) -> str:
    """The search driver (:data:`DRIVER`) on the bytecode machine (:mod:`interpreter.fast.vm`): the same
    text, with the generated generator's loop replaced by the machine's (``execute`` from the machine's
    module ``machine``, run to each ``YIELD``; ``arrays``: its arrays' names) and the scores read on it.
    Its functions take the program (``C``, ``F``, ``CS``; the entries ``STEPS``/``SCORE``, their frames
    ``FB``/``FBS``) first. No spec in it: compiled once for every spec."""
    lead = "C, F, CS, STEPS, SCORE, FB, FBS, "
    loop = ("F[FB] = NP\n    CS[0] = 2\n    pc = STEPS\n    while True:\n"
            f"        ask = execute(C, F, CS, pc, {arrays})\n        pc = CS[1]\n        if pc == 0:\n            break")
    score = (f"F[FBS] = NP\n        F[FBS + 1] = q\n        CS[0] = 2\n"
             f"        VAL[q] = execute(C, F, CS, SCORE, {arrays})")
    text = (DRIVER.replace("for ask in steps({args}):", loop)
            .replace("VAL[q] = score({args}, q)", score)
            .replace("def playout({args}", "def playout(" + lead + "{args}")
            .replace("def search({args}", "def search(" + lead + "{args}")
            .replace("    playout({args}", "    playout(" + lead + "{args}"))
    head = ("import numpy as np\nfrom numba import njit\nfrom interpreter.fast.runtime import NULL, new_game\n"
            f"from {machine} import execute\n"
            "from interpreter.fast.search import (begin, on_ask, prepare, sample, backup, best, MODE, REJECT, STAGE, "
            "ROOT, ITER, NITER, GREEDY, ROOTN, ATTEMPTS, REJECTS, PREFIX, ERRORS, ROLLOUT, rand_below, forced_turn, phase_mark)\n"
            "from interpreter.fast.searchrt import answer\nfrom interpreter.fast.searchdeal import prepare_deal, sample_world\n")
    return ('"""The in-kernel search on the bytecode machine (interpreter.fast.search.machine_driver_source: '
            'fixed templates, no spec)."""\n' + head + text.format(digest=_digest(), args=_ARGS, work=_WORK))
