"""End to end on a spec with the research interfaces (docs/research.md):

1. train a linear softmax policy with REINFORCE on the PettingZoo environment of a spec, seat 0
   against random seats, from the observation tensor and the action mask;
2. evaluate it (win rate with a 95% Wilson interval) against random seats, next to an untrained
   policy;
3. evaluate OpenSpiel's MCTS bot on the same spec through the OpenSpiel adapter.

    python tools/research_example.py specs/witches_of_blackmore.yaml -p 2 --train 300 --eval 100
    python tools/research_example.py specs/skull_king.yaml -p 2 --train 4000 --every 500 --eval 200 \
        --mcts 0 --curve docs/research-learning-curve.png

``--every K`` evaluates the policy every ``K`` training games (each time on the same ``--eval``
seeds, with the same generator for the random seats and the policy's sampling, so the points differ
only by the training), printing a progress line per point; ``--curve FILE.png`` plots the win rate
with its 95% Wilson interval against the training games (the chance level 1 / players drawn) and
writes the points to ``FILE.json`` beside it.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from interpreter.adapters.pettingzoo_env import env as make_env  # noqa: E402
from interpreter.sim.stats import wilson_interval  # noqa: E402


class LinearPolicy:
    """Softmax over the legal actions of ``W @ observation`` (one row per action id)."""

    def __init__(self, obs_size, num_actions, rng):
        self.W = np.zeros((num_actions, obs_size), dtype=np.float64)
        self.rng = rng

    def probs(self, obs, mask):
        x = obs / (1.0 + np.abs(obs))  # squash counts and scores into -1..1
        logits = self.W @ x
        logits = np.where(mask == 1, logits, -np.inf)
        p = np.exp(logits - logits[mask == 1].max())
        return x, p / p.sum()

    def act(self, obs, mask):
        x, p = self.probs(obs, mask)
        a = int(self.rng.choice(len(p), p=p))
        return a, x, p


def play(e, policy, rng, seed, learn=False, lr=0.05):
    """One game: seat 0 by ``policy``, the others random; returns seat 0's reward."""
    e.reset(seed=seed)
    trace = []
    reward0 = 0.0
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if agent == "player_0":
            reward0 += reward
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        if agent == "player_0" and policy is not None:
            a, x, p = policy.act(obs["observation"], mask)
            trace.append((a, x, p))
        else:
            a = int(rng.choice(np.flatnonzero(mask)))
        e.step(a)
    if learn and trace:
        baseline = 1.0 / len(e.possible_agents)
        for a, x, p in trace:  # REINFORCE: grad log pi(a|x) = (onehot(a) - p) x^T
            g = -p
            g[a] += 1.0
            policy.W += lr * (reward0 - baseline) * np.outer(g, x)
    return reward0


def plot_curve(points, args, name) -> None:
    """The learning curve (win rate and its 95% interval against training games) as ``args.curve``
    (PNG), its points as JSON beside it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [p["trained"] for p in points]
    fig, ax = plt.subplots(figsize=(6.4, 3.6), dpi=110)
    ax.fill_between(x, [p["low"] for p in points], [p["high"] for p in points], alpha=0.25,
                    label="95% Wilson interval")
    ax.plot(x, [p["win_rate"] for p in points], marker="o", label="linear policy (REINFORCE), seat 0")
    ax.axhline(1 / args.players, color="grey", linestyle="--", label=f"chance level (1/{args.players})")
    ax.set_xlabel("training games")
    ax.set_ylabel(f"win rate vs random ({args.eval} games)")
    ax.set_title(f"{name}, {args.players} players")
    ax.set_ylim(0, 1)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.curve)
    with open(os.path.splitext(args.curve)[0] + ".json", "w") as f:
        json.dump({"spec": args.spec, "players": args.players, "eval_games": args.eval, "lr": args.lr,
                   "points": points}, f, indent=1)
    print(f"learning curve: {args.curve}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec")
    ap.add_argument("-p", "--players", type=int, default=2)
    ap.add_argument("--train", type=int, default=300)
    ap.add_argument("--eval", type=int, default=100)
    ap.add_argument("--mcts", type=int, default=20, help="games for the OpenSpiel MCTS evaluation (0: skip)")
    ap.add_argument("--every", type=int, default=0, help="evaluate every K training games (0: before and after only)")
    ap.add_argument("--lr", type=float, default=0.05, help="REINFORCE step size")
    ap.add_argument("--curve", metavar="FILE.png", help="plot the learning curve here (and its points in FILE.json)")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    e = make_env(args.spec, players=args.players)
    sp = e.spaces
    print(f"{e.game.name}, {args.players} players: {sp.num_actions} action ids, observation {sp.observation_size} "
          f"floats, information state {sp.information_state_size}")
    policy = LinearPolicy(sp.observation_size, sp.num_actions, rng)

    points = []
    cpu0 = time.process_time()

    def evaluate(pol, label, trained):
        erng = np.random.default_rng(12345)  # the same random seats and sampling at every point
        saved, pol.rng = pol.rng, erng
        wins = sum(play(e, pol, erng, 1_000_000 + i) for i in range(args.eval))
        pol.rng = saved
        lo, hi = wilson_interval(wins, args.eval)
        points.append({"trained": trained, "win_rate": wins / args.eval, "low": lo, "high": hi,
                       "cpu_s": time.process_time() - cpu0})
        print(f"{label}: win rate {wins / args.eval:.1%} (95% interval {lo:.1%}..{hi:.1%}) over {args.eval} games "
              f"[{time.process_time() - cpu0:.0f} s CPU]", flush=True)

    evaluate(policy, "untrained linear policy vs random", 0)
    for i in range(args.train):
        play(e, policy, rng, i, learn=True, lr=args.lr)
        if args.every and (i + 1) % args.every == 0 and i + 1 < args.train:
            evaluate(policy, f"after {i + 1} REINFORCE games", i + 1)
    evaluate(policy, f"after {args.train} REINFORCE games", args.train)
    if args.curve:
        plot_curve(points, args, e.game.name)
    if args.mcts:
        import pyspiel
        from open_spiel.python.algorithms import mcts
        from interpreter.adapters.openspiel_game import register
        game = pyspiel.load_game(register(args.spec, players=args.players))
        bot = mcts.MCTSBot(game, 2, 50, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                           random_state=np.random.RandomState(1))
        wins = 0.0
        for g in range(args.mcts):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outs = state.chance_outcomes()
                    state.apply_action(outs[rng.integers(len(outs))][0])
                elif state.current_player() == 0:
                    state.apply_action(bot.step(state))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
            wins += state.returns()[0]
        lo, hi = wilson_interval(wins, args.mcts)
        print(f"OpenSpiel MCTS (50 simulations) vs random: win rate {wins / args.mcts:.1%} "
              f"(95% interval {lo:.1%}..{hi:.1%}) over {args.mcts} games")


if __name__ == "__main__":
    main()
