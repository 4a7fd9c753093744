"""Replays N of OpenSpiel's own random games in Rulebook and counts the mismatches (legal actions at
every decision, returns at the end): `python tools/openspiel_replay.py euchre -n 1000`,
`python tools/openspiel_replay.py gin_rummy -n 1000 [--policy knock]`.

The replay itself is the test's (tests/test_euchre_openspiel.py); this runs it over many seeds and
prints the games replayed, the mismatches (the first few with their message) and the CPU time."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

GAMES = {"euchre": ("test_euchre_openspiel", "specs/euchre.yaml", {"preset": "openspiel"}),
         "gin_rummy": ("test_gin_rummy_openspiel", "specs/gin_rummy.yaml", {"preset": "openspiel"})}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("game", choices=sorted(GAMES))
    ap.add_argument("-n", "--games", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0, help="the first OpenSpiel seed")
    ap.add_argument("--policy", choices=["random", "knock"], default="random",
                    help="gin_rummy: how OpenSpiel's players choose (knock: knock whenever allowed, else at random)")
    args = ap.parse_args(argv)
    module, spec, options = GAMES[args.game]
    mod = __import__(module)
    from interpreter import load_game
    game = load_game(ROOT / spec, options)
    cpu = time.process_time()
    bad = []
    for seed in range(args.seed, args.seed + args.games):
        try:
            if args.policy == "random":
                mod.replay(game, seed)
            else:
                mod.replay(game, seed, args.policy)
        except AssertionError as exc:
            bad.append((seed, str(exc)[:300]))
    cpu = time.process_time() - cpu
    print(f"{args.game}: {args.games} OpenSpiel games ({args.policy} players) replayed (seeds {args.seed}..{args.seed + args.games - 1}), "
          f"{len(bad)} mismatches, {cpu:.1f} s CPU")
    for seed, msg in bad[:5]:
        print(f"  seed {seed}: {msg}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
