"""Benchmark: Skull King random playouts per second through Rulebook, for 4 players.

Prints games/second of the interpreter, of a hand-written Python reference doing the
same work (tools/reference_skull_king.py), and their ratio. Run:

    python tools/bench.py [--games N] [--players P] [--spec specs/skull_king.yaml]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from interpreter import load_game  # noqa: E402
from interpreter.sim.simulate import simulate  # noqa: E402
import reference_skull_king  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--spec", default=str(Path(__file__).resolve().parents[1] / "specs" / "skull_king.yaml"))
    args = ap.parse_args()
    game = load_game(args.spec)
    simulate(game, 5, args.players, 12345)  # warm-up
    result = simulate(game, args.games, args.players, 1)
    rb = result.games_per_second
    t = time.perf_counter()
    for i in range(args.games):
        reference_skull_king.play(args.players, i)
    ref = args.games / (time.perf_counter() - t)
    print(f"rulebook : {rb:8.1f} games/s  ({args.games} games, {args.players} players, "
          f"{sum(result.lengths) / len(result.lengths):.0f} actions/game)")
    print(f"reference: {ref:8.1f} games/s  (hand-written Python, same rules and random play)")
    print(f"ratio    : {ref / rb:8.1f}x slower than the reference")


if __name__ == "__main__":
    main()
