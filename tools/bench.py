"""Benchmarks of Rulebook (never timed tests: speed is measured here only).

Prints, for Skull King, Witches of Blackmore, Skull Queen and Oh Hell (4 players, random play):
CPU microseconds per decision and games per second through the step API (``legal_actions`` +
``apply``) and through ``simulate`` (one process, and ``--jobs 2``); the costs of ``clone``,
``to_json``, ``from_json`` (mid-game states), ``load_game`` and the start-up of ``rulebook
simulate -n 1``; option listing against hand size (h = 10, 30, 50); Skull Queen's placement choice
(1,250 options); the hand-written Python Skull King (tools/reference_skull_king.py); and, when
OpenSpiel is installed (``pip install -e '.[bench]'``), OpenSpiel's C++ loop and its Python loop on
Oh Hell in the same run, measured alternately with Rulebook, with ratios.

Times are CPU time of this process (``time.process_time``; children's for start-up), medians over
``--rounds`` interleaved rounds, so other programs on the machine disturb them less than wall time.
Only the public API is used (plus ``interpreter.scenario.build_state`` for the hand-size positions),
so the same file runs on older checkouts for before/after tables:

    python tools/bench.py [--rounds 3] [--seconds 0.4] [--quick]
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))

from interpreter import State, load_game  # noqa: E402
from interpreter.sim.simulate import simulate  # noqa: E402
import reference_skull_king  # noqa: E402

GAMES = [("Skull King", "skull_king.yaml"), ("Witches", "witches_of_blackmore.yaml"),
         ("Skull Queen", "skull_queen.yaml"), ("Oh Hell", "oh_hell.yaml")]
PLAYERS = 4


def cpu() -> float:
    return time.process_time()


def timed(fn, budget: float) -> float:
    """CPU seconds per call of ``fn`` (called repeatedly for about ``budget`` seconds)."""
    n, spent = 0, 0.0
    start = cpu()
    while spent < budget or n < 3:
        fn()
        n += 1
        spent = cpu() - start
    return spent / n


def step_api_games(game, seed: int, budget: float) -> tuple:
    """Random games through the step API for about ``budget`` CPU seconds:
    (seconds, games, decisions)."""
    rng = random.Random(seed)
    games = decisions = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        state = game.new_state(PLAYERS, seed=seed + games)
        while not state.is_terminal():
            for p in state.current_players():
                state.apply(rng.choice(state.legal_actions(p)))
                decisions += 1
                if state.is_terminal():
                    break
        games += 1
    return cpu() - start, games, decisions


def simulate_games(game, seed: int, budget: float, jobs: int = 1) -> tuple:
    """(seconds, games, decisions) of ``simulate`` runs for about ``budget`` seconds (CPU time
    for one process; wall time with worker processes, whose CPU this process does not see)."""
    n = 4
    while True:
        t0, w0 = cpu(), time.perf_counter()
        result = simulate(game, n, PLAYERS, seed, jobs=jobs) if jobs > 1 else simulate(game, n, PLAYERS, seed)
        spent = (time.perf_counter() - w0) if jobs > 1 else (cpu() - t0)
        if spent >= budget or n >= 100_000:
            return spent, n, sum(result.lengths)
        n = max(n * 2, int(n * budget / max(spent, 1e-6) * 1.1))


def midgame(game, seed: int = 3, fraction: float = 0.5) -> State:
    """A State about ``fraction`` of the way through a random game."""
    rng = random.Random(seed)
    full = game.new_state(PLAYERS, seed=seed)
    n = 0
    while not full.is_terminal():
        p = full.current_players()[0]
        full.apply(rng.choice(full.legal_actions(p)))
        n += 1
    rng = random.Random(seed)
    state = game.new_state(PLAYERS, seed=seed)
    for _ in range(int(n * fraction)):
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)))
    return state


def listing_position(game, h: int):
    """Skull King, 3 players: seat 1 led green-14; seat 0 holds ``h`` cards (greens among them)
    and must follow suit: its legal plays depend on its whole hand."""
    from interpreter.scenario import build_state
    numbered = [f"{s}-{r}" for r in range(1, 14) for s in ("purple", "yellow", "black", "green")]
    specials = ["escape"] * 5 + ["pirate"] * 5 + ["tigress", "skull-king", "mermaid", "mermaid"]
    hand = (numbered + specials)[:h]
    data = {"players": 3, "start": "trick",
            "setup": {"vars": {"leader": 1, "round": 10, "cards_dealt": h},
                      "zones": {"hand": {0: hand, 1: ["green-14"], 2: ["purple-14"]}}}}
    state = build_state(game, data)
    from interpreter.engine.run import advance
    advance(state)
    state.apply("play green-14", 1)
    state.apply(state.legal_actions(2)[0], 2)
    return state


def list_options(state, seat):
    state._legal_cache.clear()  # the engine caches a listing until the State changes
    return state.legal_actions(seat)


def start_up_seconds(rounds: int) -> float:
    """CPU seconds (user + system) of ``python -m interpreter simulate SPEC -n 1`` (median)."""
    cmd = [sys.executable, "-m", "interpreter", "simulate", str(ROOT / "specs" / "skull_king.yaml"),
           "-n", "1", "-p", str(PLAYERS), "--quiet"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT)  # warm: file system and caches
    out = []
    for _ in range(max(3, rounds)):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, capture_output=True, env=env, cwd=ROOT, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(out)


# -- OpenSpiel --------------------------------------------------------------------------------
def openspiel():
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def os_python_games(pyspiel, game, seed: int, budget: float) -> tuple:
    """OpenSpiel driven from Python: legal_actions, a random choice, apply_action (chance nodes
    sampled the same way); (seconds, games, decisions)."""
    rng = random.Random(seed)
    games = decisions = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        games += 1
    return cpu() - start, games, decisions


def os_cpp_games(pyspiel, game, seed: int, budget: float) -> tuple:
    """OpenSpiel's C++ loop (``evaluate_bots`` with uniform random bots): (seconds, games)."""
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(game.num_players())]
    games = 0
    start = cpu()
    while cpu() - start < budget or games < 2:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + games)
        games += 1
    return cpu() - start, games


# -- report -------------------------------------------------------------------------------------
def med(xs):
    return statistics.median(xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians are printed)")
    ap.add_argument("--seconds", type=float, default=0.4, help="CPU seconds per measurement")
    ap.add_argument("--quick", action="store_true", help="one round of 0.15 s each, no --jobs 2")
    args = ap.parse_args()
    if args.quick:
        args.rounds, args.seconds = 1, 0.15
    budget = args.seconds

    print(f"Rulebook benchmarks: {PLAYERS} players, random play, CPU time, medians of {args.rounds} "
          f"interleaved round(s) of ~{budget:.2f} s each; python {sys.version.split()[0]}")
    t = cpu()
    games = {label: load_game(ROOT / "specs" / file) for label, file in GAMES if (ROOT / "specs" / file).exists()}
    first_load = cpu() - t
    pyspiel = openspiel()
    os_game = pyspiel.load_game("oh_hell", {"players": PLAYERS}) if pyspiel else None

    step = {k: [] for k in games}
    sim = {k: [] for k in games}
    sim2 = {k: [] for k in games}
    osp, osc, ref = [], [], []
    for r in range(args.rounds):
        for label, game in games.items():
            s, g, d = step_api_games(game, 1000 * r, budget)
            step[label].append((s / d * 1e6, g / s, d / g))
            s, g, d = simulate_games(game, 1000 * r, budget)
            sim[label].append((s / d * 1e6, g / s))
            if label == "Oh Hell" and os_game is not None:  # alternate with OpenSpiel on the same game
                s, g, d = os_python_games(pyspiel, os_game, 1000 * r, budget)
                osp.append((s / d * 1e6, g / s, d / g))
                s, g = os_cpp_games(pyspiel, os_game, 1000 * r, budget)
                osc.append(g / s)
        t0, n = cpu(), 0
        while cpu() - t0 < budget or n < 2:
            reference_skull_king.play(PLAYERS, 1000 * r + n)
            n += 1
        ref.append(n / (cpu() - t0))
    if not args.quick:
        for label, game in games.items():
            s, g, d = simulate_games(game, 0, budget * 2, jobs=2)
            sim2[label].append(g / s)

    print("\n## Games (4 players)")
    print(f"{'game':12} {'actions/game':>12} {'step us/dec':>12} {'step games/s':>13} {'sim us/dec':>11} "
          f"{'sim games/s':>12} {'sim -j2 games/s (wall)':>23}")
    for label in games:
        us = med([x[0] for x in step[label]])
        gps = med([x[1] for x in step[label]])
        length = med([x[2] for x in step[label]])
        sus = med([x[0] for x in sim[label]])
        sgps = med([x[1] for x in sim[label]])
        j2 = f"{med(sim2[label]):.1f}" if sim2[label] else "-"
        print(f"{label:12} {length:12.1f} {us:12.1f} {gps:13.1f} {sus:11.1f} {sgps:12.1f} {j2:>23}")

    sk_sim = med([x[1] for x in sim["Skull King"]]) if "Skull King" in sim else None
    print("\n## Hand-written Python Skull King (tools/reference_skull_king.py)")
    print(f"reference: {med(ref):.1f} games/s; Rulebook simulate: {sk_sim:.1f} games/s; "
          f"Rulebook / reference = {sk_sim / med(ref):.3f}x")

    if os_game is not None and "Oh Hell" in games:
        ous, ogps, olen = med([x[0] for x in osp]), med([x[1] for x in osp]), med([x[2] for x in osp])
        ocpp = med(osc)
        rus = med([x[0] for x in step["Oh Hell"]])
        rsim = med([x[1] for x in sim["Oh Hell"]])
        print("\n## Oh Hell, 4 players: Rulebook and OpenSpiel (pyspiel "
              f"{getattr(pyspiel, '__version__', '?')}), alternating in the same run")
        print(f"OpenSpiel Python loop : {ous:8.2f} us/decision, {ogps:9.1f} games/s ({olen:.1f} decisions/game)")
        print(f"OpenSpiel C++ loop    : {ocpp:9.1f} games/s (evaluate_bots, uniform random bots)")
        print(f"Rulebook step API     : {rus:8.2f} us/decision -> {ous / rus:.3f}x OpenSpiel's Python loop "
              "(>= 1 is as fast or faster)")
        print(f"Rulebook simulate     : {rsim:9.1f} games/s -> {rsim / ocpp:.4f}x OpenSpiel's C++ loop")
    else:
        print("\n## OpenSpiel: not installed (pip install -e '.[bench]') — no comparison")

    print("\n## State operations (mid-game, microseconds of CPU per call)")
    print(f"{'game':12} {'clone':>8} {'to_json':>9} {'from_json':>10} {'json chars':>11}")
    for label, game in games.items():
        st = midgame(game)
        text = st.to_json()
        c = med([timed(st.clone, budget / 4) for _ in range(args.rounds)]) * 1e6
        tj = med([timed(st.to_json, budget / 4) for _ in range(args.rounds)]) * 1e6
        fj = med([timed(lambda: State.from_json(game, text), budget / 4) for _ in range(args.rounds)]) * 1e6
        print(f"{label:12} {c:8.2f} {tj:9.2f} {fj:10.2f} {len(text):11d}")

    print("\n## Loading")
    for label, file in GAMES:
        if label in games:
            s = med([timed(lambda: load_game(ROOT / "specs" / file), budget / 2) for _ in range(args.rounds)])
            print(f"load_game {label:12}: {s * 1e3:7.1f} ms (in-process, parsed expressions cached)")
    print(f"first load of all specs in this process: {first_load * 1e3:.0f} ms")
    print(f"start-up + 1 game, `python -m interpreter simulate specs/skull_king.yaml -n 1 -p {PLAYERS}`: "
          f"{start_up_seconds(args.rounds):.3f} s CPU")

    if "Skull King" in games:
        print("\n## Option listing against hand size (Skull King, follow suit, legal_actions of one seat)")
        sk = games["Skull King"]
        base = None
        for h in (10, 30, 50):
            st = listing_position(sk, h)
            n_opts = len(list_options(st, 0))
            s = med([timed(lambda: list_options(st, 0), budget / 4) for _ in range(args.rounds)])
            base = base or s / 10
            print(f"h = {h:2d}: {s * 1e6:8.1f} us ({n_opts} options), {s / h * 1e6:6.2f} us per card, "
                  f"x{s / (base * h):.2f} per card vs h = 10")

    if "Skull Queen" in games:
        sq = games["Skull Queen"]
        st = sq.new_state(PLAYERS, seed=1)
        p = st.current_players()[0]
        n_opts = len(list_options(st, p))
        s = med([timed(lambda: list_options(st, p), budget / 4) for _ in range(args.rounds)])
        print(f"\nSkull Queen placement: legal_actions of one seat ({n_opts} options) {s * 1e3:.2f} ms")


if __name__ == "__main__":
    main()
