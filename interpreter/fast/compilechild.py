"""The child process of :class:`~interpreter.fast.behind.CompileBehind`: compiles a kernel (or a
step module) into numba's on-disk cache and tells its parent the outcome (a module of its own:
it imports the step API, which imports :mod:`interpreter.fast.behind`)."""
from __future__ import annotations

import json
import os
import pickle
import sys
import threading

from .behind import MARK


def compile_here() -> None:
    """The child: reads ``(game, source, info, form)`` from standard input, makes the
    kernel ready (numba writing its machine code to the cache; for ``form`` "steps", the step
    module's generator and scores, a game started; for "search", the search module, one search run)
    and writes the outcome line
    ``["ready", [CPU s, wall s, compiled]]`` or ``["failed", reason]``; exits as soon as its
    standard input closes (the parent ended or stopped it)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops this process
    try:  # background work: the parent, playing meanwhile, comes first when the cores are short
        os.nice(5)  # (a search bot's run has two compiles behind it: the step module's and the search's)
    except OSError:
        pass
    stdin = sys.stdin.buffer

    def watch():
        stdin.read()  # returns at end of file: the parent closed the pipe or is gone
        os._exit(0)
    try:
        game, source, info, form = pickle.load(stdin)
        threading.Thread(target=watch, daemon=True).start()
        from .kernel import Kernel, load_module
        if form == "steps":
            told = ["ready", list(_steps_ready(game, source, info))]
        elif form == "search":
            told = ["ready", list(_search_ready(game, source, info))]
        else:
            module, _ = load_module(source, "rulebook_kernel")
            told = ["ready", list(Kernel(game, source, info, module).ready())]
    except Exception as exc:  # noqa: BLE001 (told to the parent, which compiles for itself and says why)
        told = ["failed", f"{type(exc).__name__}: {exc}"]
    try:
        sys.stdout.write(MARK + json.dumps(told) + "\n")
        sys.stdout.flush()
    except OSError:
        pass  # (the parent is gone)
    os._exit(0)  # (no teardown of the compiler's memory: nothing is left to write)


def _steps_ready(game, source: str, info: dict) -> tuple:
    """A step module compiled (its generator started on a game, its scores read): ``(CPU s, wall s,
    True)``."""
    import time
    import numpy as np
    from .kernel import load_module
    from .steps import FastState, StepKernel
    cpu, wall = time.process_time(), time.perf_counter()
    kernel = StepKernel(game, source, info, load_module(source, "rulebook_steps")[0])
    state = FastState(kernel, game.min_players, 0)
    kernel.module.scores(*state.arrays, np.zeros(game.min_players, dtype=np.int64))
    return time.process_time() - cpu, time.perf_counter() - wall, True


def _search_ready(game, source: str, info: dict) -> tuple:
    """A search module compiled (one search of one iteration from the game's start): ``(CPU s,
    wall s, True)``."""
    import time
    from .kernel import load_module
    from .search import SearchKernel
    cpu, wall = time.process_time(), time.perf_counter()
    SearchKernel(game, source, info, load_module(source, "rulebook_search")[0]).decide(0, game.min_players, [], 0, 1, 1)
    return time.process_time() - cpu, time.perf_counter() - wall, True


if __name__ == "__main__":
    compile_here()
