"""How rounds of Ligretto - Das Brettspiel (specs/ligretto.yaml) end under random play, and
whether a round that ends with "nobody can lay a card" really had no play left.

Plays ``-n`` random one-round games per player count (random player among those who may act,
random legal action). When a round ends without "Ligretto stop" (stuck), the position it ended in
is judged here in Python, independently of the spec's expressions, by the digest's rules
(shared/rules/ligretto.md §1): a card still in play (a player's stack, shown card or discard)

- fits next to a pawn its player may use (a pawn on another player's joker is theirs alone;
  a player standing on their own joker may use only that pawn),
- or, for the player who blocked a pawn (§1 Dead end), fits on any free pair of the board,
- or fits behind a joker on a free square next to a usable pawn, or behind two jokers in a row
  (with both jokers left).

Counted per player count: rounds, stopped, stuck; stuck rounds with such a play left ("a play
left", which must be 0) or with a pawn no card in play can continue that is not marked blocked
("unmarked dead end", which must be 0 too); and, as the issue counted them, stuck rounds where
some card in play fits somewhere on the board (legal or not) and where the player who laid the
last card holds one.

    python tools/ligretto_stuck_rounds.py -n 100 --players 2 4 [--seed 1] [--spec FILE]
"""
from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402

MAX_ACTIONS = 20_000


def _free(grid, taken, x):
    return x is not None and x in grid.colours and x not in taken


def _fits_next(grid, taken, q, a, b):
    """A card of colours a, b fits on two free neighbouring squares, one of them next to q."""
    for x in grid.neighbours.get(q, ()):
        if not _free(grid, taken, x):
            continue
        for y in grid.neighbours[x]:
            if y != q and _free(grid, taken, y) and {grid.colours[x], grid.colours[y]} == {a, b} \
                    and grid.colours[x] != grid.colours[y]:
                return True
    return False


def _fits_anywhere(grid, taken, a, b):
    """A card of colours a, b fits on two free neighbouring squares of the board."""
    return any(_free(grid, taken, x) and grid.colours[x] == a
               and any(_free(grid, taken, y) and grid.colours[y] == b for y in grid.neighbours[x])
               for x in grid.colours)


def plays_left(state, covered):
    """(a legal play is left, some card in play fits somewhere, per seat: holds such a card,
    pawns at a dead end that are not marked blocked)."""
    g, v = state.game, state.vars
    grid = g.boards[v["layout"]]
    pawns, locked, blocked = v["pawns"], v["locked"], v["blocked"]
    taken = set(covered) | set(pawns)
    legal, anywhere, holds = False, False, [False] * state.num_players
    in_play = [(g.cards[c].attrs["a"], g.cards[c].attrs["b"]) for z in ("stack", "shown", "discard")
               for seat in state.zones[z] for c in seat]
    unmarked = sum(1 for i, q in enumerate(pawns) if blocked[i] is None and locked[i] is None
                   and not any(_fits_next(grid, taken, q, a, b) for a, b in in_play))
    for p in range(state.num_players):
        held = [i for i, l in enumerate(locked) if l == p]
        usable = held[:1] if held else [i for i, l in enumerate(locked) if l is None]
        jokers = state.pvars[p]["jokers"]
        cards = [g.cards[c] for z in ("stack", "shown", "discard") for c in state.zones[z][p]]
        for k in cards:
            a, b = k.attrs["a"], k.attrs["b"]
            if _fits_anywhere(grid, taken, a, b):
                anywhere = holds[p] = True
                if p in blocked and not held:
                    legal = True
            for i in usable:
                if _fits_next(grid, taken, pawns[i], a, b):
                    legal = True
                for j in grid.neighbours.get(pawns[i], ()):
                    if jokers < 1 or not _free(grid, taken, j):
                        continue
                    if _fits_next(grid, taken | {j}, j, a, b):
                        legal = True
                    if jokers >= 2 and any(_free(grid, taken | {j}, j2) and _fits_next(grid, taken | {j, j2}, j2, a, b)
                                           for j2 in grid.neighbours[j]):
                        legal = True
    return legal, anywhere, holds, unmarked


def covered_after(state, covered_before, action):
    """The squares covered when the round ended: scoring clears them, so they are rebuilt from
    the squares covered before the last action and what that action laid."""
    covered = dict(covered_before)
    if action.startswith("place "):
        covered[state.vars["half_a"]] = covered[state.vars["half_b"]] = "card"
    elif action.startswith("joker "):
        covered[action.split()[2]] = "joker"
    return covered


def one_round(game, n, seed):
    """How one random round ends: a dict of the counts above (each 0 or 1)."""
    rng = random.Random(seed)
    state = game.new_state(n, seed=seed)
    last_layer = None
    for _ in range(MAX_ACTIONS):
        p = rng.choice(state.current_players())
        action = rng.choice(state.legal_actions(p)).text
        before = dict(state.vars["covered"])
        state.apply(action, p)
        if action.startswith(("place ", "joker ")):
            last_layer = p
        if not (state.pending or {}).get("realtime"):
            break
    else:
        raise RuntimeError(f"the round of seed {seed} did not end")
    if state.vars["stopper"] is not None:
        return {"stopped": 1}
    legal, anywhere, holds, unmarked = plays_left(state, covered_after(state, before, action))
    return {"stuck": 1, "a play left": int(legal), "unmarked dead end": int(unmarked > 0),
            "a card fits somewhere": int(anywhere),
            "last layer holds one": int(last_layer is not None and holds[last_layer])}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=100, help="rounds per player count")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spec", default=str(ROOT / "specs" / "ligretto.yaml"))
    args = ap.parse_args(argv)
    game = load_game(args.spec, {"rounds": 1})
    keys = ["stopped", "stuck", "a play left", "unmarked dead end", "a card fits somewhere", "last layer holds one"]
    print(f"{'players':>8} {'rounds':>7} " + " ".join(f"{k:>21}" for k in keys))
    for n in args.players:
        total = dict.fromkeys(keys, 0)
        for i in range(args.n):
            for k, v in one_round(game, n, args.seed + i).items():
                total[k] += v
        print(f"{n:>8} {args.n:>7} " + " ".join(f"{total[k]:>21}" for k in keys))


if __name__ == "__main__":
    main()
