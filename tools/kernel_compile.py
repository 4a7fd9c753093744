"""Where a spec's kernel compile goes: CPU seconds per compiled form, cold and warm cache.

For each spec and each compiled form of its kernel (``run``: the playout driver ``simulate --fast``
calls; ``steps``: the step API's generator, ``game.new_state(..., fast=True)``; ``search``: the
in-kernel search of the bots; ``machine``: the ``run`` module on the bytecode machine,
interpreter/fast/vm.py, which plays a spec's first ``simulate --fast`` games while ``run`` compiles;
``machine_steps``: the ``steps`` module on the machine, a spec's first step API states while
``steps`` compiles: its first state made and one game played; ``machine_search``: the ``search`` module
on the machine, a spec's first searched decisions while ``search`` compiles: one decision made), a fresh process (the form alone, nothing compiled before it in that
process) measures, in CPU seconds (``time.process_time``):

- ``load``: the spec loaded (``load_game``);
- ``lower``: the Python type pass writing the module's source (``lower``/``lower_steps``/``lower_search``);
- ``ready``: the first call that makes the machine code ready (numba compiles, or loads its cache),
  split (cold cache) into numba's type inference, numba's lowering to LLVM IR, LLVM's
  optimisation (function and module passes), LLVM's machine code generation, and the rest (other
  numba passes, the cache written, Python); ``functions``: the functions numba compiled.

Each form runs twice: ``cold`` with an empty ``RULEBOOK_CACHE`` (a folder made for it, removed
afterwards; numba's cache sits in it) and ``warm`` in a new process reading that cache. The machine
is compiled once for every spec: for ``machine``, its own first compile is measured once (row
``(machine)``, ``once``; for ``machine_search``, with the search's driver on it) and each spec's ``cold`` cache holds the machine alone (a spec not seen
before, on an installation that has run one). Usage::

    nice -n 10 python tools/kernel_compile.py specs/oh_hell.yaml specs/euchre.yaml [--forms run,steps]

The figures are CPU time of one process; on a loaded machine they still grow a little (caches
shared with other processes).
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--child" in sys.argv:  # the checkout to measure (--root), else this one
    sys.path.insert(0, os.environ.get("KCOMP_ROOT", str(ROOT)))

FORMS = ("run", "steps", "search", "machine", "machine_steps", "machine_search")


def _profile_hooks(acc: dict) -> None:
    """Record exclusive CPU time per part of numba's compile into ``acc`` (part -> seconds)."""
    from numba.core import codegen, event

    stack = []  # [part, start, time of children]

    def enter(part):
        stack.append([part, time.process_time(), 0.0])

    def leave():
        part, start, inner = stack.pop()
        spent = time.process_time() - start
        acc[part] = acc.get(part, 0.0) + spent - inner
        if stack:
            stack[-1][2] += spent

    def wrap(cls, name, part):
        fn = getattr(cls, name)

        def timed(self, *a, **k):
            enter(part)
            try:
                return fn(self, *a, **k)
            finally:
                leave()
        setattr(cls, name, timed)

    wrap(codegen.CPUCodeLibrary, "_optimize_functions", "llvm_opt")
    wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "llvm_opt")
    wrap(codegen.CPUCodeLibrary, "_finalize_final_module", "llvm_codegen")
    wrap(codegen.CPUCodeLibrary, "add_ir_module", "llvm_parse")

    class Passes(event.Listener):
        def on_start(self, ev):
            name = ev.data["name"].split(" [")[0]
            part = ("typeinfer" if "type_inference" in name else "lowering" if name in ("native_lowering",
                    "nopython_backend") else "other_passes")
            if name == "nopython_type_inference":
                acc["functions"] = acc.get("functions", 0) + 1
            enter(part)

        def on_end(self, ev):
            leave()
    event.register("numba:run_pass", Passes())


def child(spec: str, form: str, players: int | None) -> dict:
    """One form of one spec in this process: the figures (see the module's doc)."""
    out = {}
    t = time.process_time()
    from interpreter.spec.loader import load_game
    game = load_game(spec)
    out["load"] = time.process_time() - t
    n = players or game.min_players
    acc: dict = {}
    _profile_hooks(acc)
    from interpreter.fast import typepass
    lowered = {"run": typepass.lower, "steps": typepass.lower_steps, "search": typepass.lower_search,
               "machine": typepass.lower, "machine_steps": typepass.lower_steps,
               "machine_search": typepass.lower_search}[form]
    calls = []

    def counted(g, _f=lowered):
        t = time.process_time()
        r = _f(g)
        calls.append(time.process_time() - t)
        return r
    setattr(typepass, lowered.__name__, counted)
    t = time.process_time()
    if form == "run":
        from interpreter.fast import kernel as kmod
        kmod.lower = counted
        kernel_for = kmod.kernel_for
        kernel_for(game).ready()
    elif form == "machine":  # (its first game played: the module translated, the machine loaded)
        from interpreter.fast import vm
        vm.machine_for(game).run(n, 0, 1)
    elif form in ("steps", "machine_steps"):
        from interpreter.fast import steps
        steps.lower_steps = counted
        if form == "machine_steps":  # (the state on the machine, as a spec's first states are)
            from interpreter.fast import vm

            def on_the_machine(game):
                source, info = counted(game)
                return steps.StepKernel(game, source, info, vm.machine_steps(source))
            steps.step_kernel_for = on_the_machine
        import random
        state = steps.fast_state(game, n, 0)
        rng = random.Random(0)
        while not state.is_terminal():
            seat = state.current_players()[0]
            state.apply(rng.choice(state.legal_actions(seat)), seat)
        state.scores()
    elif form == "machine_search":  # (the search on the machine, as a spec's first searched decisions are)
        from interpreter.fast.search import MachineSearch, driver_source
        source, info = counted(game)
        sk = MachineSearch(game, driver_source(source), info)
        state = game.new_state(n, seed=0)
        sk.decide(0, n, [], state.current_players()[0], 1, 1)
    else:
        from interpreter.fast.search import search_kernel_for
        sk = search_kernel_for(game)
        state = game.new_state(n, seed=0)
        sk.decide(0, n, [], state.current_players()[0], 1, 1)
    done = time.process_time()
    out["lower"] = sum(calls)
    out["ready"] = done - t - sum(calls)  # (the step API's first state starts its generator: compiles)
    out.update(acc)
    return out


def run_form(spec: str, form: str, cache: str, players, root: str) -> dict:
    """:func:`child`'s figures, measured in a new process with ``cache`` as its RULEBOOK_CACHE and
    the interpreter of the checkout ``root``. Exits with the child's error when it fails."""
    env = dict(os.environ, RULEBOOK_CACHE=cache, KCOMP_ROOT=root, RULEBOOK_MACHINE="off")  # (the compile itself)
    env.pop("PYTHONPATH", None)
    env.pop("NUMBA_CACHE_DIR", None)
    cmd = [sys.executable, __file__, "--child", spec, form] + (["--players", str(players)] if players else [])
    res = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if res.returncode:
        sys.exit(f"{spec} {form}: {res.stderr[-2000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main() -> None:
    """The command line (see the module's doc); prints one row per spec, form, checkout and cache."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--forms", default=",".join(FORMS))
    ap.add_argument("--players", type=int)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", metavar="FILE")
    ap.add_argument("--root", action="append", help="the checkout whose interpreter is measured (repeatable: "
                    "each form is measured in each, one after the other; default: this one)")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.specs[0], args.specs[1], args.players)))
        return
    rows = {}
    print(f"load average {os.getloadavg()[0]:.1f}")
    roots = [str(Path(r).resolve()) for r in args.root or [ROOT]]
    head = ("spec", "form", "root", "cache", "load", "lower", "ready", "typeinfer", "lowering", "llvm_opt",
            "llvm_codegen", "rest", "functions")
    print("  ".join(f"{h:>12}" for h in head))
    machines = {}  # (root, search?) -> a cache folder holding the machine alone (and its search driver)
    for spec, form, root in itertools.product(args.specs, args.forms.split(","), roots):
        cache = tempfile.mkdtemp(prefix="kcomp_")
        if form.startswith("machine"):
            key = (root, form == "machine_search")
            if key not in machines:
                machines[key] = tempfile.mkdtemp(prefix="kcomp_machine_")
                f = run_form(spec, form, machines[key], args.players, root)
                rows[f"(machine) {form} {root} once"] = f
                print("  ".join(f"{c:>12}" for c in ["(machine)", form, os.path.basename(root), "once"] + [
                    f"{f.get(k, 0.0):.2f}" for k in head[4:7]]), flush=True)
            shutil.rmtree(cache)
            shutil.copytree(machines[key], cache)
        try:
            for label in ("cold", "warm"):
                f = run_form(spec, form, cache, args.players, root)
                parts = sum(f.get(k, 0.0) for k in ("typeinfer", "lowering", "llvm_opt", "llvm_codegen",
                                                    "llvm_parse", "other_passes"))
                f["rest"] = f["ready"] - parts + f.get("other_passes", 0.0) + f.get("llvm_parse", 0.0)
                rows[f"{spec} {form} {root} {label}"] = f
                cells = [os.path.basename(spec), form, os.path.basename(root), label] + [
                    f"{f.get(k, 0.0):.2f}" for k in head[4:-1]] + [str(f.get("functions", 0))]
                print("  ".join(f"{c:>12}" for c in cells), flush=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
    for folder in machines.values():
        shutil.rmtree(folder, ignore_errors=True)
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
