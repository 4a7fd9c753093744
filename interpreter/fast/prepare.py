"""Machine code compiled ahead of a run (``rulebook compile``): the bytecode machine, and specs' kernels.

Numba compiles a function at its first call and caches the machine code in the kernel cache folder
(``RULEBOOK_CACHE``, by default ``~/.cache/rulebook/kernels``). Two kinds of code are compiled there:

- **the bytecode machine** (:mod:`interpreter.fast.vm`), once for every spec: a spec not seen before
  plays its first ``simulate --fast`` games, step API states and search decisions on it at once while
  its own kernel compiles in another process. Its first compile (7–22 s of CPU, about 40 s with the
  search's driver on a new installation, whose own numba functions compile too) is otherwise paid by
  the first run that needs it;
- **a spec's kernels**: the playout kernel of ``simulate --fast``, the step kernel of
  ``new_state(..., fast=True)`` and the search of the ``ismcts``/``greedy`` bots, once per spec
  (tens of seconds each for a large spec), whatever its option values.

Each part here makes one of them ready the way a run does (a game played, a decision searched), so
the same overloads are compiled and nothing is compiled again by the run; each gives
:class:`Ready` (CPU and wall seconds, and whether numba compiled or loaded it).
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from .lowtypes import NotTyped


@dataclass
class Ready:
    """One part made ready: ``cpu`` and ``wall`` seconds, and whether numba ``compiled`` something
    (else its machine code came from the cache, or was ready in this process)."""
    cpu: float
    wall: float
    compiled: bool


_COMPILES: list = [0]  # numba compiles seen in this process (the listener below counts them)


def _count_compiles() -> None:
    """Count numba's compiles (its ``numba:compile`` event fires when a function is compiled, not
    when its machine code is loaded from the cache)."""
    if _COMPILES[1:]:
        return
    from numba.core import event

    class Counter(event.Listener):
        def on_start(self, ev):
            _COMPILES[0] += 1

        def on_end(self, ev):
            pass
    event.register("numba:compile", Counter())
    _COMPILES.append(True)


def made_ready(part) -> Ready:
    """Call ``part()`` and say what it cost. Raises what ``part`` raises (NotTyped when the spec, or
    its module on the machine, does not type)."""
    _count_compiles()
    before = _COMPILES[0]
    cpu, wall = time.process_time(), time.perf_counter()
    part()
    return Ready(time.process_time() - cpu, time.perf_counter() - wall, _COMPILES[0] > before)


def cache_folder():
    """The folder (a Path) where the generated modules and numba's machine code are kept."""
    from .kernel import _folder
    return _folder()


def _random_game(state) -> None:
    """Play ``state`` (a step API state) to its end with random actions (seeded: the same game each
    time), and score it."""
    rng = random.Random(0)
    while not state.is_terminal():
        seat = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    state.scores()


def _decide(sk, game, num_players: int) -> None:
    """One decision of the search kernel ``sk`` at the start of a game of ``game`` (one iteration)."""
    sk.decide(0, num_players, [], game.new_state(num_players, seed=0).current_players()[0], 1, 1)


def machine_parts(game) -> list:
    """``[(name, part)]``: the bytecode machine's uses made ready with ``game`` (any spec the machine
    runs: its code is the same for every spec): a ``simulate --fast`` game and a step API game (one
    loop: compiled with the first), and a search decision, each on the machine (no compile of
    ``game``'s own kernels starts)."""
    from . import vm
    from .search import MachineSearch, driver_source
    from .steps import FastState, StepKernel
    from .typepass import lower_search, lower_steps

    def games():
        vm.machine_for(game).run(game.min_players, 0, 1)
        source, info = lower_steps(game)
        _random_game(FastState(StepKernel(game, source, info, vm.machine_steps(source)), game.min_players, 0))

    def search():
        source, info = lower_search(game)
        _decide(MachineSearch(game, driver_source(source), info), game, game.min_players)
    return [("the machine's games (--fast, step API)", games), ("the search bots on the machine", search)]


def spec_parts(game, num_players: int) -> list:
    """``[(name, part)]``: ``game``'s own kernels made ready (compiled here, or loaded from the cache):
    the playout kernel, the step kernel and the search kernel (a game, and a decision, of
    ``num_players``: the code serves every player count)."""
    from .kernel import kernel_for
    from .search import search_kernel_for
    from .steps import fast_state, step_kernel_for

    def steps():
        step_kernel_for(game, compiled=True)
        _random_game(fast_state(game, num_players, 0))
    return [("kernel (simulate --fast)", lambda: kernel_for(game).ready()),
            ("step kernel (new_state(..., fast=True))", steps),
            ("search (ismcts and greedy bots)",
             lambda: _decide(search_kernel_for(game, compiled=True), game, num_players))]


__all__ = ["NotTyped", "Ready", "cache_folder", "machine_parts", "made_ready", "spec_parts"]
