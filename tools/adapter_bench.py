"""PettingZoo's own checks and speed on every shipped spec, at its minimum and maximum player counts.

    python tools/adapter_bench.py                      # every spec: api_test, seed_test, max_cycles_test, speed
    python tools/adapter_bench.py --specs oh_hell president --seconds 2 --cycles 200

For each spec and player count it prints the CPU time to build the action spaces (``build``, s),
the number of action ids, the result of ``pettingzoo.test.api_test`` (``--cycles`` cycles), ``seed_test``,
``max_cycles_test`` (through :func:`interpreter.adapters.pettingzoo_env.module_for`, with
``schedule="cycles"``, every seat one step per cycle, and ``illegal="random"``: that test samples
actions without the mask) and ``performance_benchmark``
(PettingZoo's own: it runs 5 s of wall-clock time and prints turns per second; ``--seconds S``
times our own loop of the same kind for S seconds of CPU time instead, which is what the table's
``pz/s`` column shows then). Then the environment steps per second of the other two ways to play
the spec, each a loop of masked random moves run for ``--seconds`` (default 2) of CPU time
(``time.process_time``, so a busy machine does not lower them): ``os/s`` OpenSpiel's adapter
(:func:`interpreter.adapters.openspiel_game.register`, ``pyspiel.load_game``; legal actions,
``apply_action``; chance outcomes sampled and not counted), ``kernel/s`` the kernel's step API
(``game.new_state(n, seed, fast=True)``; ``-`` where the spec does not run in the kernel; the
first compile of a spec's kernel, up to a minute of CPU, is done before the clock starts), ``vec/s``
the vectorised environment (:class:`interpreter.adapters.vector_env.VectorEnv`, ``--envs`` games,
default 64, stepped together; a random legal id per game drawn from the masks by NumPy;
observation tensors and masks built at every step; environment steps, i.e. games x batch steps,
per CPU second; ``-`` where the kernel does not run the spec).
``--no-checks`` skips PettingZoo's checks and only measures; ``--vector`` measures only ``vec/s``, with and
without observation tensors.
Exit status 1 if any check failed.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import re
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402
from interpreter.adapters.pettingzoo_env import RulebookAECEnv, module_for  # noqa: E402
from interpreter.adapters.spaces import Spaces  # noqa: E402


def steps_per_second(env, seconds: float) -> float:
    """Masked random turns per CPU second (observe, mask, step), as performance_benchmark plays them."""
    rng = random.Random(0)
    env.reset(seed=0)
    turns, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        for agent in env.agent_iter(env.num_agents):
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            turns += 1
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset()
    return turns / (time.process_time() - start)


def openspiel_steps_per_second(spec, players: int, seconds: float) -> float:
    """Random moves per CPU second through OpenSpiel's adapter (new games as they end; chance
    nodes sampled from ``chance_outcomes`` and not counted)."""
    import pyspiel

    from interpreter.adapters.openspiel_game import register
    os_game = pyspiel.load_game(register(spec, players))
    rng = random.Random(0)
    state = os_game.new_initial_state()
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        if state.is_terminal():
            state = os_game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(rng.choices(outcomes, probs)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.process_time() - start)


def kernel_steps_per_second(game, players: int, seconds: float) -> float | None:
    """Random moves per CPU second in the kernel's step API (``legal_actions``, ``apply``; new
    games as they end), or None when the spec does not run in the kernel."""
    try:
        state = game.new_state(players, seed=0, fast=True)  # compiles (or loads) the kernel: not timed
    except Exception:  # NotTyped, or numba missing: the spec has no kernel
        return None
    from interpreter.agents.schedule import Scheduler
    rng = random.Random(0)
    schedule = Scheduler(seed=0)  # who acts when several may (a real-time block): round robin, as play_game
    seed, steps, start = 0, 0, time.process_time()
    while time.process_time() - start < seconds:
        if state.is_terminal():
            seed += 1
            state = game.new_state(players, seed=seed, fast=True)
            schedule = Scheduler(seed=seed)
        p = schedule.next_player(state)
        legal = state.legal_actions(p)
        state.apply(legal[rng.randrange(len(legal))], p)
        schedule.acted(p)
        steps += 1
    return steps / (time.process_time() - start)


def vector_steps_per_second(game, players: int, seconds: float, num_envs: int = 64,
                            observations: bool = True) -> float | None:
    """Environment steps (one move in one game) per CPU second of a :class:`VectorEnv` of
    ``num_envs`` games, each batch step a random legal id per game drawn from the masks (NumPy),
    or None when the kernel does not run the spec (or it has set choices)."""
    from interpreter.adapters.vector_env import VectorEnv
    from interpreter.errors import RulebookError
    try:
        venv = VectorEnv(game, players, num_envs, seed=0, observations=observations)  # compiles: not timed
    except RulebookError:
        return None
    rng = np.random.default_rng(0)
    _, mask, _ = venv.reset()
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        _, mask, _, _, _ = venv.step(actions)
        steps += num_envs
    return steps / (time.process_time() - start)


def vector_only(args) -> int:
    """``--vector``: each spec's vec/s (observation tensors built) and vec/s without them
    (``observations=False``), ``--envs`` games, ``--seconds`` (default 2) of CPU each."""
    files = sorted((ROOT / "specs").glob("*.yaml"))
    if args.specs:
        files = [f for f in files if f.stem in args.specs]
    seconds = args.seconds if args.seconds is not None else 2.0
    print(f"{'spec':24} {'n':>2} {'vec/s':>9} {'no obs/s':>9}   (load {os.getloadavg()[0]:.1f})")
    for f in files:
        game = load_game(f)
        for n in sorted({game.min_players, game.max_players}):
            speeds = [vector_steps_per_second(game, n, seconds, args.envs, observations=obs) for obs in (True, False)]
            print(f"{f.stem:24} {n:>2} " + " ".join(f"{'-' if v is None else f'{v:.0f}':>9}" for v in speeds),
                  flush=True)
    print(f"(load {os.getloadavg()[0]:.1f} at the end)")
    return 0


def check(fn):
    """``'ok'`` or the error's first line; PettingZoo's prints are swallowed."""
    try:
        with contextlib.redirect_stdout(io.StringIO()) as out:
            fn()
        return "ok", out.getvalue()
    except Exception as exc:  # a failed check is a row of the table, not the end of the run
        if os.environ.get("ADAPTER_BENCH_TRACE"):
            traceback.print_exc()
        return f"FAIL {type(exc).__name__}: {str(exc).splitlines()[0][:80] if str(exc) else ''}", ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--specs", nargs="*", help="spec names (default: every spec in specs/)")
    ap.add_argument("--cycles", type=int, default=100, help="api_test and seed_test cycles")
    ap.add_argument("--seconds", type=float, default=None,
                    help="time our own loops for S seconds of CPU (default: performance_benchmark's 5 s for "
                         "PettingZoo, 2 s for the others)")
    ap.add_argument("--envs", type=int, default=64, help="games in the vectorised environment (vec/s)")
    ap.add_argument("--no-checks", action="store_true", help="skip api_test, seed_test and max_cycles_test")
    ap.add_argument("--vector", action="store_true",
                    help="only the vectorised environment: vec/s with and without observation tensors")
    args = ap.parse_args(argv)
    if args.vector:
        return vector_only(args)
    from pettingzoo.test import api_test, max_cycles_test, performance_benchmark, seed_test
    files = sorted((ROOT / "specs").glob("*.yaml"))
    if args.specs:
        files = [f for f in files if f.stem in args.specs]
    failed = False
    print(f"{'spec':24} {'n':>2} {'build':>6} {'ids':>8} {'api':>4} {'seed':>4} {'cycles':>6} {'pz/s':>8} "
          f"{'os/s':>8} {'kernel/s':>9} {'vec/s':>8}")
    for f in files:
        game = load_game(f)
        for n in sorted({game.min_players, game.max_players}):
            t = time.process_time()
            sp = Spaces(game, n)
            build = time.process_time() - t
            results = {"api": "skipped", "seed": "skipped", "cycles": "skipped"}
            if not args.no_checks:
                results["api"], _ = check(lambda: api_test(RulebookAECEnv(game, n, spaces_=sp),
                                                           num_cycles=args.cycles))
                results["seed"], _ = check(lambda: seed_test(lambda: RulebookAECEnv(game, n, spaces_=sp),
                                                             num_cycles=args.cycles))
                results["cycles"], _ = check(lambda: max_cycles_test(
                    module_for(f, n, spaces_=sp, illegal="random", schedule="cycles")))
            if args.seconds is not None:
                speed = steps_per_second(RulebookAECEnv(game, n, spaces_=sp), args.seconds)
            else:
                status, out = check(lambda: performance_benchmark(RulebookAECEnv(game, n, spaces_=sp)))
                m = re.search(r"([\d.]+) turns per second", out)
                speed = float(m.group(1)) if m else float("nan")
                results["bench"] = status
            seconds = args.seconds if args.seconds is not None else 2.0
            got = []
            results["openspiel"], _ = check(lambda: got.append(openspiel_steps_per_second(f, n, seconds)))
            os_speed = got[0] if got else float("nan")
            got = []
            results["kernel"], _ = check(lambda: got.append(kernel_steps_per_second(game, n, seconds)))
            kernel = got[0] if got else float("nan")
            got = []
            results["vector"], _ = check(lambda: got.append(vector_steps_per_second(game, n, seconds, args.envs)))
            vec = got[0] if got else float("nan")
            marks = {k: ("ok" if v == "ok" else "-" if v == "skipped" else "FAIL") for k, v in results.items()}
            print(f"{f.stem:24} {n:>2} {build:6.2f} {sp.num_actions:>8} {marks['api']:>4} {marks['seed']:>4} "
                  f"{marks['cycles']:>6} {speed:8.0f} {os_speed:8.0f} "
                  f"{'-' if kernel is None else f'{kernel:.0f}':>9} {'-' if vec is None else f'{vec:.0f}':>8}",
                  flush=True)
            for k, v in results.items():
                if v not in ("ok", "skipped"):
                    failed = True
                    print(f"    {k}: {v}")
    return 1 if failed else 0


if __name__ == "__main__":
    # the compiled code's figures: a kernel not compiled yet compiles before it is timed (no bytecode
    # machine standing in for it meanwhile, see interpreter/fast/vm.py; set here, not at import: a
    # test importing this file must not turn the machine off for the tests after it)
    os.environ.setdefault("RULEBOOK_MACHINE", "off")
    sys.exit(main())
