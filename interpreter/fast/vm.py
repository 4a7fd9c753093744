"""The kernel's bytecode machine: one numba interpreter, compiled once for every spec.

Numba compiles each spec's generated module (:mod:`interpreter.fast.typepass`) to machine code, and
for a large spec that takes a quarter of a minute of CPU (a trick-taking spec of 35 functions: about 18 s;
``tools/kernel_compile.py``). The machine plays the same module without compiling it: the module's
functions become bytecode (:mod:`interpreter.fast.bytecode`, in well under a second) and one fixed
loop (:func:`~interpreter.fast.vmops.machine_source`), compiled once and cached in the kernel cache
folder (about 8 s of CPU, the first time), runs them. It plays the same games as the compiled
kernel, 1.8–11.8 times more slowly by spec (the README's figures): ``simulate --fast`` plays on
it while the spec's own machine code is compiled in another process (the first run of a spec), and so do the step API's first states
(:class:`MachineSteps`), so a spec not seen before plays at once.

``machine_for(game)`` returns a :class:`Machine` (the same ``run`` as :class:`~interpreter.fast.kernel.Kernel`)
or raises :class:`~interpreter.fast.lowtypes.NotTyped` with the reason; ``machine_steps(source)``
the step module's.
"""
from __future__ import annotations

import numpy as np

from .bytecode import translate
from .lowtypes import STATE_ARGS, NotTyped
from .vmops import ARRAYS, ARRAYS_2D, machine_source

_MACHINES: dict = {}
_MODULE: list = []


def machine_module():
    """The machine's numba module (written to the kernel cache folder once, its machine code cached
    by numba beside it: every spec shares it)."""
    if not _MODULE:
        from .kernel import load_module
        from .typepass import _DRIVER, _DRIVER_ARRAYS, HEADER, _runtime_digest
        args = ", ".join(STATE_ARGS)
        arrays = ", ".join(ARRAYS)
        driver = (_DRIVER.replace("def run(first_seed", "def run(C, F, CS, FLOW, SCORE, FB, FBS, first_seed")
                  .replace(f"flow({{args}})", f"F[FB] = NP\n            CS[0] = 2\n            execute(C, F, CS, FLOW, {arrays})")
                  .replace(f"score({{args}}, q)", f"machine_score(C, F, CS, SCORE, FBS, {args}, q)"))
        raws = [a for a in STATE_ARGS if a != "NP"] + list(_DRIVER_ARRAYS) + ["C", "F", "CS"]
        source = (HEADER.replace("typepass from a spec's checked syntax tree", "vmops (no spec: one for all)")
                  + f"RUNTIME = {_runtime_digest()}\n"  # (a change to the code compiled in renames the module)
                  + "\n\n@njit(cache=True, boundscheck=False, _nrt=False)\n" + machine_source()
                  + f"\n\n@njit(boundscheck=False, _nrt=False)\ndef machine_score(C, F, CS, SCORE, FB, {args}, q):\n"
                  + f"    F[FB] = NP\n    F[FB + 1] = q\n    CS[0] = 2\n    return execute(C, F, CS, SCORE, {arrays})\n\n\n"
                  + driver.format(args=args, raws="\n".join(f"    {a} = raw({a})" for a in raws)))
        module, _ = load_module(source, "machine")
        _MODULE.append(module)
    return _MODULE[0]


def machine_compiled() -> bool:
    """Whether the machine's own machine code is ready without a compile: compiled in this process
    already, or in numba's cache (the first run of an installation compiles it: 7-22 s of CPU)."""
    from pathlib import Path
    from .kernel import in_cache
    module = machine_module()
    return in_cache(module, Path(module.__file__), "run")


class Machine:
    """A spec's bytecode on the machine: ``run`` as :meth:`interpreter.fast.kernel.Kernel.run`
    (the same games, scores, lengths and error codes)."""

    def __init__(self, game, source: str, info: dict, program):
        self.game, self.source, self.info, self.program = game, source, info, program
        self.draws = 1
        if program.params.get("flow") != ["NP"] or len(program.params.get("score", ())) != 2:
            raise NotTyped("the module's flow and score are not the driver's")

    def run(self, num_players: int, first_seed: int, n_games: int):
        """``(scores int64[n, players], lengths int64[n], errors int64[n])``: see ``Kernel.run``."""
        from .kernel import play_driver
        prog = self.program
        lead = (prog.code, *frames_of(prog), np.int64(prog.entries["flow"]), np.int64(prog.entries["score"]),
                np.int64(prog.bases["flow"]), np.int64(prog.bases["score"]))
        return play_driver(self, machine_module().run, lead, num_players, first_seed, n_games)


def frames_of(prog) -> tuple:
    """``(F, CS)`` for a program: the frame array (its constants at the bottom) and the call stack."""
    frames = np.zeros(len(prog.constants) + prog.frames + 8, dtype=np.int64)
    frames[:len(prog.constants)] = prog.constants
    stack = np.zeros(2 * (len(prog.entries) + 2), dtype=np.int64)
    stack[0] = 2
    return frames, stack


def call(prog, name: str, args, arrays: dict) -> int:
    """The value function ``name`` (a root of ``prog``, see :func:`~interpreter.fast.bytecode.translate`)
    returns on the machine, given its value arguments ``args`` (ints) and the layout's arrays
    (name -> numpy array; those missing are empty), for tests."""
    frames, stack = frames_of(prog)
    frames[prog.bases[name]:prog.bases[name] + len(args)] = args
    empty = {a: np.zeros((1, 1) if a in ARRAYS_2D else 1, dtype=np.uint8 if a == "SB" else np.int64) for a in ARRAYS}
    return int(machine_module().execute(prog.code, frames, stack, np.int64(prog.entries[name]),
                                 *[arrays.get(a, empty[a]) for a in ARRAYS]))


def machine_for(game) -> Machine:
    """The :class:`Machine` of ``game`` (its module lowered and translated once per Game object and
    process; the machine itself compiled once per cache folder). Raises :class:`NotTyped` when the
    spec does not type or its module uses what the machine lacks."""
    from .kernel import built_once
    from .typepass import lower

    def build(game):
        source, info = lower(game)
        return Machine(game, source, info, translate(source))
    return built_once(_MACHINES, game, build)


def enabled() -> bool:
    """Whether the machine may stand in for a kernel not compiled yet (``RULEBOOK_MACHINE=off``:
    never, every kernel compiles before it plays, as benchmarks of the compiled code want)."""
    import os
    return os.environ.get("RULEBOOK_MACHINE", "").strip().lower() not in ("off", "0", "no", "false")


def machine_steps(source: str) -> "MachineSteps":
    """The :class:`MachineSteps` of a step module's text (one per text and process, as a compiled
    module is). Raises :class:`NotTyped` as it does (each time)."""
    hit = _STEP_MODULES.get(source)
    if hit is None:
        hit = _STEP_MODULES[source] = MachineSteps(source)
    return hit


_STEP_MODULES: dict = {}


class MachineSteps:
    """A step module (:func:`~interpreter.fast.typepass.lower_steps`) on the machine, with the
    compiled module's two functions: ``steps(*arrays)`` (the layout's arrays in ``STATE_ARGS``
    order) gives an iterator that yields what the compiled generator yields, and
    ``scores(*arrays, out)`` writes each seat's score into ``out``. Raises :class:`NotTyped` when the
    module uses what the machine lacks."""

    def __init__(self, source: str):
        self.program = prog = translate(source, roots=("steps", "score"))
        if prog.params.get("steps") != ["NP"] or len(prog.params.get("score", ())) != 2:
            raise NotTyped("the step module's steps and score are not the step API's")
        self.frames, self.stack = frames_of(prog)
        self._np = STATE_ARGS.index("NP")

    def _execute(self):
        """The machine's loop, without numba's dispatch once it is compiled (see
        :func:`~interpreter.fast.kernel.without_dispatch`)."""
        from .kernel import without_dispatch
        return without_dispatch(machine_module().execute)

    def steps(self, *arrays) -> "_Paused":
        """A game from its start, paused before its first choice (``arrays``: the state's, in
        ``STATE_ARGS`` order, played in place)."""
        return _Paused(self, arrays)

    def scores(self, *arrays_out) -> None:
        """Each seat's score by the spec's ``score`` into ``out`` (int64[players]), the last argument
        after the state's arrays."""
        *arrays, out = arrays_out
        prog, execute = self.program, self._execute()
        frames, stack = self.frames.copy(), self.stack.copy()
        base, entry = prog.bases["score"], np.int64(prog.entries["score"])
        others = [a for k, a in enumerate(arrays) if k != self._np]
        for q in range(len(out)):
            frames[base], frames[base + 1] = arrays[self._np], q
            stack[0] = 2
            out[q] = execute(prog.code, frames, stack, entry, *others)


class _Paused:
    """A game of a :class:`MachineSteps` module paused at a choice: an iterator, as the compiled
    generator is (each ``next`` runs the rules to the next choice and gives what it yields)."""

    __slots__ = ("_execute", "_args", "_stack", "_pc")

    def __init__(self, module: MachineSteps, arrays):
        prog = module.program
        frames, self._stack = module.frames.copy(), module.stack.copy()
        frames[prog.bases["steps"]] = arrays[module._np]
        self._execute = module._execute()
        self._args = [prog.code, frames, self._stack, 0] + [a for k, a in enumerate(arrays) if k != module._np]
        self._pc = prog.entries["steps"]

    def __iter__(self):
        return self

    def __next__(self) -> int:
        if not self._pc:
            raise StopIteration
        args = self._args
        args[3] = self._pc
        value = self._execute(*args)
        self._pc = int(self._stack[1])
        if not self._pc:
            raise StopIteration
        return value
