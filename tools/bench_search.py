"""Benchmarks of the search bots in the kernel (interpreter.fast.search): speed and strength.

Three measurements (CPU time, ``time.process_time``; the load average is printed):

1. **Per simulation, Oh Hell 4 players**: Rulebook's ``ismcts:N`` (``--horizon``: ``phase``, the
   default bot's, or ``game``, OpenSpiel's rollouts to the end) deciding on the kernel's step API
   (``ISMCTSAgent(iterations=N).act(state, seat)`` on ``new_state(4, seed, fast=True)``: the loop a
   user writes) against OpenSpiel's C++ ``pyspiel.ISMCTSBot`` on its native ``oh_hell`` (4 players,
   ``N`` simulations, random rollouts: ``RandomRolloutEvaluator(1, seed)``, UCT c 2.0, max-visit
   final policy), at positions reached by random play (decisions with at least two legal actions),
   in interleaved rounds; the ratio is the median of one ratio per round.
2. **Skull King, 4 players**: ``simulate --fast`` of ``--sk-games`` games with seat 0 ``ismcts:100``
   and three random seats (the whole run's CPU time, the search kernel made ready first).
3. **Strength, paired**: ``--pairs`` Oh Hell deals (4 players), each played twice with the kernel
   ISMCTS and the State API's ISMCTS (``kernel=False``) at the same iterations in seats 0 and 1, then
   swapped, seats 2 and 3 random; the difference kernel - State API of their scores, per deal pair,
   with its mean and 95% interval.

    python tools/bench_search.py [--iterations 100] [--rounds 5] [--decisions 30] [--sk-games 1000]
                                 [--pairs 100] [--skip speed,skull,strength] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402
from interpreter.agents.search import ISMCTSAgent  # noqa: E402


def _positions_rulebook(game, seeds, per_game=4):
    """(seed, actions) of positions where the player to act has >= 2 options (random play)."""
    out = []
    for seed in seeds:
        rng = random.Random(seed)
        st = game.new_state(4, seed=seed, fast=True)
        acts = []
        while not st.is_terminal():
            p = st.current_players()[0]
            legal = st.legal_actions(p)
            if len(legal) > 1 and rng.random() < 0.3 and sum(1 for s, _ in out if s == seed) < per_game:
                out.append((seed, list(acts)))
            a = rng.choice(list(legal))
            acts.append((p, a.index))
            st.apply(a, p)
    return out


def rulebook_decisions(game, positions, iterations, horizon="phase") -> float:
    """CPU seconds per simulation of ``ismcts:iterations`` at ``positions``."""
    total, sims = 0.0, 0
    for k, (seed, acts) in enumerate(positions):
        st = game.new_state(4, seed=seed, fast=True)
        for p, i in acts:
            st.apply(i, p)
        agent = ISMCTSAgent(iterations=iterations, seed=k, horizon=horizon)
        p = st.current_players()[0]
        t = time.process_time()
        agent.act(st, p)
        total += time.process_time() - t
        sims += iterations
        assert agent.kernel_decisions == 1, "the decision did not run in the kernel"
    return total / sims


def openspiel_decisions(pyspiel, os_game, n, iterations, seed) -> float:
    """CPU seconds per simulation of ``pyspiel.ISMCTSBot`` (``iterations`` simulations) at ``n``
    positions of random play with >= 2 legal actions."""
    rng = random.Random(seed)
    total, sims, done = 0.0, 0, 0
    g = 0
    while done < n:
        st = os_game.new_initial_state()
        g += 1
        while not st.is_terminal() and done < n:
            if st.is_chance_node():
                outs = st.chance_outcomes()
                st.apply_action(rng.choices([a for a, _ in outs], [p for _, p in outs])[0])
                continue
            legal = st.legal_actions()
            if len(legal) > 1 and rng.random() < 0.3:
                bot = pyspiel.ISMCTSBot(seed + done, pyspiel.RandomRolloutEvaluator(1, seed + done), 2.0, iterations,
                                        -1, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
                t = time.process_time()
                bot.step(st)
                total += time.process_time() - t
                sims += iterations
                done += 1
            st.apply_action(rng.choice(legal))
    return total / sims


def speed(args) -> dict:
    import pyspiel
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    os_game = pyspiel.load_game("oh_hell", {"players": 4})
    ISMCTSAgent(iterations=2, seed=0).act(*_first(game))  # the search kernel made ready (compiled or loaded)
    ours, theirs, ratios = [], [], []
    for r in range(args.rounds):
        pos = _positions_rulebook(game, range(1000 * r, 1000 * r + args.decisions))[:args.decisions]
        a = rulebook_decisions(game, pos, args.iterations, args.horizon)
        b = openspiel_decisions(pyspiel, os_game, len(pos), args.iterations, 7 + r)
        ours.append(a)
        theirs.append(b)
        ratios.append(b / a)
        print(f"  round {r + 1}: Rulebook {a * 1e6:.1f} µs/simulation, OpenSpiel C++ {b * 1e6:.1f} µs/simulation "
              f"(Rulebook {b / a:.2f}x), {len(pos)} decisions each", flush=True)
    out = {"iterations": args.iterations, "horizon": args.horizon, "rulebook_us_per_sim": statistics.median(ours) * 1e6,
           "openspiel_us_per_sim": statistics.median(theirs) * 1e6, "ratio": statistics.median(ratios)}
    print(f"Oh Hell 4p, ISMCTS {args.iterations} simulations per decision (Rulebook horizon {args.horizon}): "
          f"Rulebook kernel "
          f"{out['rulebook_us_per_sim']:.1f} µs per simulation, OpenSpiel C++ ISMCTSBot "
          f"{out['openspiel_us_per_sim']:.1f} µs: Rulebook {out['ratio']:.2f}x (median of {args.rounds} rounds)")
    return out


def _first(game):
    st = game.new_state(4, seed=0, fast=True)
    return st, st.current_players()[0]


def skull(args) -> dict:
    from interpreter.sim.simulate import simulate
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    t = time.process_time()
    res = simulate(game, args.sk_games, 4, seed=0, fast=True, bots={0: "ismcts:100"})
    cpu = time.process_time() - t
    ready = res.kernel_ready[0] if res.kernel_ready else 0.0
    s = res.summary()
    out = {"games": args.sk_games, "cpu_s": cpu, "ready_cpu_s": ready, "fast": res.fast,
           "mean_scores": [x["mean"] for x in s["seats"]]}
    print(f"Skull King 4p, {args.sk_games} games, seat 0 ismcts:100 vs 3 random, simulate --fast: "
          f"{cpu:.1f} s CPU ({ready:.1f} s of it making the search kernel ready); mean scores "
          f"{[round(x, 1) for x in out['mean_scores']]}", flush=True)
    return out


def paired(game, pairs, iterations, first_seed=0, mine=None):
    """``[(kernel - State API) score difference of each deal pair]`` (see the module doc);
    ``mine(seed)``: the bot in the kernel ISMCTS's place (default: that bot)."""
    from interpreter.agents.basic import RandomAgent, play_game
    diffs = []
    for k in range(pairs):
        seed = first_seed + k
        d = 0
        for kseat, pseat in ((0, 1), (1, 0)):
            agents = [RandomAgent(seed * 4 + q) for q in range(4)]
            agents[kseat] = mine(seed) if mine else ISMCTSAgent(iterations=iterations, seed=seed, kernel=True)
            agents[pseat] = ISMCTSAgent(iterations=iterations, seed=seed, kernel=False)
            st = play_game(game, 4, seed, agents)  # a State: the State API's search as it runs today
            sc = st.scores()
            d += sc[kseat] - sc[pseat]
        diffs.append(d / 2)
    return diffs


def strength(args) -> dict:
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    t = time.process_time()
    diffs = paired(game, args.pairs, args.iterations)
    mean = statistics.mean(diffs)
    half = 1.96 * statistics.stdev(diffs) / len(diffs) ** 0.5 if len(diffs) > 1 else float("nan")
    out = {"pairs": args.pairs, "iterations": args.iterations, "mean_diff": mean, "ci95": [mean - half, mean + half],
           "cpu_s": time.process_time() - t}
    print(f"Strength, Oh Hell 4p, {args.pairs} deal pairs, ISMCTS {args.iterations} iterations: kernel - State API "
          f"= {mean:+.2f} points per game (95% interval {mean - half:+.2f} to {mean + half:+.2f}); "
          f"{out['cpu_s']:.0f} s CPU", flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--iterations", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--decisions", type=int, default=30, help="decisions timed per round and side")
    ap.add_argument("--sk-games", type=int, default=1000)
    ap.add_argument("--horizon", default="phase", choices=("phase", "game"),
                    help="the Rulebook bot's rollout horizon in the speed comparison (OpenSpiel's: the game's "
                         "end; Oh Hell's flow-level phases are the deal, the bidding and the play)")
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--skip", default="", help="comma-separated: speed, skull, strength")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    out = {}
    if "speed" not in skip:
        out["speed"] = speed(args)
    if "skull" not in skip:
        out["skull"] = skull(args)
    if "strength" not in skip:
        out["strength"] = strength(args)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    # the compiled code's figures: a kernel not compiled yet compiles before it is timed (no bytecode
    # machine standing in for it meanwhile, see interpreter/fast/vm.py; set here, not at import: a
    # test importing this file must not turn the machine off for the tests after it)
    os.environ.setdefault("RULEBOOK_MACHINE", "off")
    main()
