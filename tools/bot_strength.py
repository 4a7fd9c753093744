"""How strong are the bots? Plays one bot against random bots and prints its win rate (95% Wilson
interval), every seat's mean score, the time per decision and, for specs whose players have ``bid``
and ``tricks`` variables, how often its bid was within one of the tricks it took.

    python tools/bot_strength.py specs/skull_king.yaml -p 4 -n 200 --bot ismcts:100 --jobs 2

Game ``i`` uses seed ``seed + i``; the tested bot sits at seat ``i % players`` (it takes every seat in
turn). Iteration budgets give the same figures on any machine (and a busy machine does not weaken them);
the time per decision is measured both as wall-clock and as CPU time of the deciding process.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from interpreter import load_game  # noqa: E402
from interpreter.agents.basic import step  # noqa: E402
from interpreter.agents.registry import bots_for  # noqa: E402
from interpreter.sim.stats import wilson_interval  # noqa: E402


def play_one(spec, options, players, seed, bot, i):
    game = load_game(spec, options)
    seat = i % players
    agents = bots_for(seed + i, players, {seat: bot})
    state = game.new_state(players, seed + i)
    think, cpu, decisions = 0.0, 0.0, 0
    bids = []  # (bid, tricks) of the tested seat, one per round
    last = None
    while not state.is_terminal():
        pv = state.pvars[seat]
        if pv.get("bid") is not None:
            last = (pv["bid"], pv.get("tricks", 0))
        elif last is not None:
            bids.append(last)
            last = None
        for p in state.current_players():
            if p not in state.current_players():
                continue
            t0, c0 = time.perf_counter(), time.process_time()
            if p == seat:
                action = agents[p].act(state, p)
                think += time.perf_counter() - t0
                cpu += time.process_time() - c0
                decisions += 1
                for a in dict.fromkeys(agents):
                    a.notify(state, p, action)
                state.apply(action, p)
            else:
                step(state, agents, p)
            if state.is_terminal():
                break
    pv = state.pvars[seat]
    if pv.get("bid") is not None:
        bids.append((pv["bid"], pv.get("tricks", 0)))
    winners = state.winners()
    return {"game": i, "seat": seat, "win": (1 / len(winners)) if seat in winners else 0.0, "scores": state.scores(),
            "think": think, "cpu": cpu, "decisions": decisions, "bids": bids}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec")
    ap.add_argument("-p", "--players", type=int, default=4)
    ap.add_argument("-n", "--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--bot", default="ismcts:100")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--out", metavar="FILE.jsonl", help="append each game's result here as it ends, and "
                    "skip the games already there (a long run can be resumed)")
    args = ap.parse_args(argv)
    options = dict(o.split("=", 1) for o in args.option)
    from rich.progress import Progress
    results = []
    if args.out and os.path.exists(args.out):
        with open(args.out) as f:
            results = [r for r in map(json.loads, f) if r["game"] < args.games]
    todo = sorted(set(range(args.games)) - {r["game"] for r in results})
    out = open(args.out, "a") if args.out else None

    def done(r):
        results.append(r)
        if out:
            out.write(json.dumps(r) + "\n")
            out.flush()

    t0 = time.perf_counter()
    with Progress() as bar:
        task = bar.add_task(f"{args.bot} vs random", total=args.games, completed=args.games - len(todo))
        if args.jobs > 1:
            from concurrent.futures import ProcessPoolExecutor, as_completed
            with ProcessPoolExecutor(args.jobs) as pool:
                futs = [pool.submit(play_one, args.spec, options, args.players, args.seed, args.bot, i)
                        for i in todo]
                for f in as_completed(futs):
                    done(f.result())
                    bar.advance(task)
        else:
            for i in todo:
                done(play_one(args.spec, options, args.players, args.seed, args.bot, i))
                bar.advance(task)
    n = len(results)
    wins = sum(r["win"] for r in results)
    lo, hi = wilson_interval(wins, n)
    own = [r["scores"][r["seat"]] for r in results]
    others = [s for r in results for q, s in enumerate(r["scores"]) if q != r["seat"]]
    think = sum(r["think"] for r in results)
    cpu = sum(r["cpu"] for r in results)
    decisions = sum(r["decisions"] for r in results)
    print(f"{args.spec}, {args.players} players, {n} games, {args.bot} against {args.players - 1} random bots "
          f"({time.perf_counter() - t0:.0f} s)")
    print(f"win rate {wins / n:.1%}  (95% Wilson interval {lo:.1%} .. {hi:.1%}); chance level {1 / args.players:.1%}")
    print(f"mean score: {args.bot} {sum(own) / n:.1f}, random {sum(others) / len(others):.1f}")
    print(f"time per decision: {think / max(1, decisions) * 1000:.1f} ms wall clock, "
          f"{cpu / max(1, decisions) * 1000:.1f} ms CPU, over {decisions} decisions")
    bids = [b for r in results for b in r["bids"]]
    if bids:
        close = sum(1 for b, t in bids if abs(b - t) <= 1)
        exact = sum(1 for b, t in bids if b == t)
        print(f"bids within one of the tricks taken: {close / len(bids):.1%} of {len(bids)} rounds "
              f"(exact: {exact / len(bids):.1%})")


if __name__ == "__main__":
    main()
