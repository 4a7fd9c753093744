"""What a kernel's first compile is made of (issue 26: a spec not seen before ready in seconds):
phases written where they run, the batch seeding reached through its address (compiled once for
every spec), LLVM at a lower level for generated code, and the progress line that says so.
Compile times are measured by tools/kernel_compile.py, never here."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import njit

from interpreter import load_game
from interpreter.fast import rng as R
from interpreter.fast.kernel import COMPILE_OPT, kernel_for, load_module
from interpreter.fast.prebuilt import prepare_batch_address, prepare_batch_at
from interpreter.fast.runtime import prepare_batch
from interpreter.fast.typepass import lower

from test_hardening import _game, _with_flow

ROOT = Path(__file__).resolve().parents[1]


def test_the_playout_module_writes_each_phase_where_it_runs():
    """One function for the rules (a function per phase made LLVM optimise and emit each phase
    again in every caller), the batch seeding called through its address, not compiled in."""
    src, _ = lower(load_game(ROOT / "specs" / "oh_hell.yaml"))
    names = re.findall(r"^def (\w+)\(", src, re.M)
    assert not [n for n in names if re.fullmatch(r"ph\d+", n)]
    assert names[-3:] == ["flow", "score", "run"]
    assert "prepare_batch_at(PREP, RG, first_seed + g," in src and "prepare_batch(" not in src


RECURSIVE = _with_flow("  - phase: a\n") + (
    "phases:\n  a:\n    - deal: {from: deck, to: hand, count: 1}\n"
    "    - choose: {player: 0, cards: 0.hand, action: play, to: pile}\n    - phase: b\n"
    "  b:\n    - choose: {player: 1, options: \"[1, 2]\", action: pick}\n    - phase: a\n")


def test_a_phase_that_runs_itself_keeps_its_function_and_plays_in_every_process(tmp_path):
    """Phases that run each other keep a function each; the driver is not cached: numba's cached
    machine code of mutually recursive functions killed the next process that loaded it (rc -11)."""
    game = _game(tmp_path, RECURSIVE)
    src, _ = lower(game)
    assert "def ph0(" in src and "def ph1(" in src and "@njit(cache=False, boundscheck=False)\ndef run(" in src
    scores, lengths, errors = kernel_for(game).run(2, 0, 3)
    # three rounds of a -> b (two actions each) deal the six cards; the fourth deal has too few
    # (error 4: simulate replays such a game in the step API, which says where and why)
    assert list(errors) == [4, 4, 4] and list(lengths) == [6, 6, 6]
    child = ("import sys; from interpreter import load_game; from interpreter.fast.kernel import kernel_for; "
             "print(kernel_for(load_game(sys.argv[1])).run(2, 0, 3)[1].tolist())")
    env = dict(os.environ, RULEBOOK_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    for _ in range(2):  # the second process finds the first one's cache
        res = subprocess.run([sys.executable, "-c", child, str(tmp_path / "spec.yaml")], env=env,
                             capture_output=True, text=True, timeout=600)
        assert res.returncode == 0 and res.stdout.strip() == "[6, 6, 6]", res.stderr[-500:]


def test_the_batch_seeding_through_its_address_is_prepare_batch():
    """The C function at prepare_batch_address() seeds the same generators as prepare_batch."""
    b = 16

    def scratch():
        return (np.zeros((b + 1, R.STATE_SIZE), dtype=np.int64), np.zeros((b, 48), dtype=np.int64),
                np.zeros(b, dtype=np.int64), np.zeros((624, b), dtype=np.uint32), np.zeros((48, b), dtype=np.uint32),
                np.zeros(b, dtype=np.int64), np.zeros((3, 50), dtype=np.int64), np.zeros(49, dtype=np.int64),
                np.zeros((b, 64), dtype=np.uint8), np.zeros((2, b), dtype=np.int64), np.zeros((24, b), dtype=np.uint64))

    @njit
    def through(addr, RG, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH):
        prepare_batch_at(addr, RG, 123456789, 3, 3, 2, KEYS, KL, G, KT, ROWOF, GROUPS, ORDER, TXT, TXL, SH)

    direct, called = scratch(), scratch()
    prepare_batch(direct[0], 123456789, 3, 3, 2, *direct[1:])
    through(prepare_batch_address(), *called)
    assert direct[0].any() and np.array_equal(direct[0], called[0])
    row = direct[0][0].copy()  # game 123456789's seat 0: its random.Random
    import random
    assert R.genrand(row) == random.Random(123456789 * 1000003).getrandbits(32)


def test_generated_functions_compile_at_the_lower_opt_level(tmp_path, monkeypatch):
    from numba.core import config, event
    seen = []

    class Spy(event.Listener):
        def on_start(self, ev):
            seen.append((ev.data["dispatcher"].py_func.__name__, int(config.OPT)))

        def on_end(self, ev):
            pass
    spy = Spy()
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path))
    module, _ = load_module("from numba import njit\n\n\n@njit\ndef f(x):\n    return x + 1\n", "rulebook_optcheck")
    event.register("numba:compile", spy)
    try:
        assert module.f(1) == 2

        @njit
        def g(x):
            return x + 2
        assert g(1) == 3
    finally:
        event.unregister("numba:compile", spy)
    assert ("f", COMPILE_OPT) in seen and ("g", int(config.OPT)) in seen and int(config.OPT) == 3


def test_the_progress_line_says_the_kernel_compiles_then_simulating():
    from interpreter.commands.simulate import _compiling_line

    class Progress:
        said = []

        def update(self, task, description):
            self.said.append(description)
    p = Progress()
    with _compiling_line(p, 0)(True):
        assert p.said == ["compiling the kernel (once per spec)"]
    with _compiling_line(p, 0)(False):
        pass
    assert p.said == ["compiling the kernel (once per spec)", "simulating", "loading the kernel", "simulating"]
