#!/usr/bin/env python3
"""Generate the board of specs/ligretto.yaml once, check it, and write it into the spec.

Decision L2 of the rules digest: the real layout is unknown, so the spec uses 6 colours and
9 pieces of 4x4 squares: all 9 (3 x 3 pieces, 12 x 12 squares) for 3-4 players, the first 6
(2 rows of 3 pieces, 8 rows x 12 columns) for 2 players. This script draws the pieces with a
seeded generator and keeps the first draw that passes every check:

- every one of the 15 colour pairs lies on at least MIN_PAIR pairs of edge-adjacent squares
  of each board (so every card can be placed somewhere);
- no more than MAX_SAME pairs of neighbouring squares share a colour (a card never fits there);
- each colour covers roughly a sixth of each board;
- the 4 marked pawn squares of each board are not dead ends (a card of two different colours
  can be laid next to each).

Usage: python tools/make_ligretto_board.py [--seed N] [--check] [--spec specs/ligretto.yaml]
--check only verifies the board already in the spec (exit status 1 if it fails).
"""
from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
from pathlib import Path

import yaml

COLOURS = ["red", "yellow", "green", "blue", "purple", "orange"]
LEGEND = {"R": "red", "Y": "yellow", "G": "green", "B": "blue", "P": "purple", "O": "orange"}
CODES = list(LEGEND)
PIECE = 4
LARGE_LAYOUT = ["1 2 3", "4 5 6", "7 8 9"]
SMALL_LAYOUT = ["1 2 3", "4 5 6"]
LARGE_PAWNS = ["c3", "j3", "c10", "j10"]
SMALL_PAWNS = ["c3", "j3", "c6", "j6"]
MIN_PAIR = {"large": 4, "small": 2}
MAX_SAME = {"large": 14, "small": 9}
BEGIN = "# BEGIN generated board: tools/make_ligretto_board.py"
END = "# END generated board"


def assemble(pieces: dict, layout: list) -> list:
    """Rows of colour codes of a board made of ``pieces`` (name -> 4 strings) by ``layout``."""
    rows = []
    for line in layout:
        names = line.split()
        for y in range(PIECE):
            rows.append("".join(pieces[n][y] for n in names))
    return rows


def cell(x: int, y: int) -> str:
    return f"{chr(ord('a') + x)}{y + 1}"


def neighbour_pairs(rows: list):
    """Every pair of edge-adjacent squares ((x, y), (x2, y2)), each once."""
    for y, row in enumerate(rows):
        for x in range(len(row)):
            if x + 1 < len(row):
                yield (x, y), (x + 1, y)
            if y + 1 < len(rows):
                yield (x, y), (x, y + 1)


def check(rows: list, pawns: list, kind: str) -> list:
    """The problems of a board (empty when it passes)."""
    problems = []
    counts = {frozenset(p): 0 for p in itertools.combinations(CODES, 2)}
    same = 0
    for (x, y), (x2, y2) in neighbour_pairs(rows):
        a, b = rows[y][x], rows[y2][x2]
        if a == b:
            same += 1
        else:
            counts[frozenset((a, b))] += 1
    for pair, n in counts.items():
        if n < MIN_PAIR[kind]:
            problems.append(f"{kind}: the pair {'-'.join(LEGEND[c] for c in sorted(pair))} lies on only {n} "
                            f"pairs of neighbouring squares (at least {MIN_PAIR[kind]} wanted)")
    if same > MAX_SAME[kind]:
        problems.append(f"{kind}: {same} neighbouring squares share a colour (at most {MAX_SAME[kind]})")
    squares = "".join(rows)
    share = len(squares) / len(CODES)
    for c in CODES:
        if abs(squares.count(c) - share) > share * 0.25:
            problems.append(f"{kind}: {LEGEND[c]} covers {squares.count(c)} of {len(squares)} squares")
    for p in pawns:
        x, y = ord(p[0]) - ord("a"), int(p[1:]) - 1
        if not (0 <= y < len(rows) and 0 <= x < len(rows[y])):
            problems.append(f"{kind}: the pawn square {p} is off the board")
            continue
        occupied = {(ord(q[0]) - ord("a"), int(q[1:]) - 1) for q in pawns}
        ok = False
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            nx, ny = x + dx, y + dy
            if not (0 <= ny < len(rows) and 0 <= nx < len(rows[ny])) or (nx, ny) in occupied:
                continue
            for ex, ey in ((0, -1), (1, 0), (0, 1), (-1, 0)):
                mx, my = nx + ex, ny + ey
                if (0 <= my < len(rows) and 0 <= mx < len(rows[my]) and (mx, my) not in occupied
                        and rows[my][mx] != rows[ny][nx]):
                    ok = True
        if not ok:
            problems.append(f"{kind}: the pawn square {p} is a dead end")
    return problems


def draw(rng: random.Random) -> dict:
    """9 pieces of 4x4 colour codes; each piece holds every colour at least twice and no
    square repeats the colour of its left or upper neighbour inside the piece too often."""
    pieces = {}
    for name in "123456789":
        while True:
            squares = CODES * 2 + [rng.choice(CODES) for _ in range(PIECE * PIECE - 2 * len(CODES))]
            rng.shuffle(squares)
            rows = ["".join(squares[i * PIECE:(i + 1) * PIECE]) for i in range(PIECE)]
            same = sum(1 for (x, y), (x2, y2) in neighbour_pairs(rows) if rows[y][x] == rows[y2][x2])
            if same <= 1:
                pieces[name] = rows
                break
    return pieces


def generate(seed: int):
    rng = random.Random(seed)
    for attempt in range(1, 10_001):
        pieces = draw(rng)
        large, small = assemble(pieces, LARGE_LAYOUT), assemble(pieces, SMALL_LAYOUT)
        if not check(large, LARGE_PAWNS, "large") and not check(small, SMALL_PAWNS, "small"):
            return pieces, attempt
    raise SystemExit(f"no board passed the checks in 10000 draws with seed {seed}")


def board_yaml(pieces: dict, seed: int) -> str:
    def block(name, layout, pawns, doc, used):
        out = [f"  {name}:", f"    doc: \"{doc}\"",
               "    legend: {" + ", ".join(f"{k}: {v}" for k, v in LEGEND.items()) + "}",
               "    pieces:"]
        for p in used:
            out.append(f"      '{p}': [{', '.join(pieces[p])}]")
        out.append("    layout: [" + ", ".join(f"'{line}'" for line in layout) + "]")
        out.append("    marks: {pawn: [" + ", ".join(pawns) + "]}")
        return out
    lines = [BEGIN + f" --seed {seed}", "# (do not edit by hand: run the script again; it checks every colour pair)",
             "boards:"]
    lines += block("large", LARGE_LAYOUT, LARGE_PAWNS, "3-4 players: 9 pieces of 4x4, 12 x 12 squares", "123456789")
    lines += block("small", SMALL_LAYOUT, SMALL_PAWNS, "2 players: the first 6 pieces, 8 rows x 12 columns", "123456")
    lines.append(END)
    return "\n".join(lines) + "\n"


def read_boards(spec: Path) -> dict:
    data = yaml.safe_load(spec.read_text())
    out = {}
    for name, bd in (data.get("boards") or {}).items():
        pieces = {str(k): v for k, v in bd["pieces"].items()}
        out[name] = (assemble(pieces, bd["layout"]), bd["marks"]["pawn"])
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=8)
    ap.add_argument("--spec", default=str(Path(__file__).resolve().parents[1] / "specs" / "ligretto.yaml"))
    ap.add_argument("--check", action="store_true", help="only check the board in the spec")
    args = ap.parse_args(argv)
    spec = Path(args.spec)
    if args.check:
        problems = []
        for name, (rows, pawns) in read_boards(spec).items():
            problems += check(rows, pawns, name)
            print(f"{name}: {len(rows[0])} x {len(rows)} squares, pawns on {', '.join(pawns)}")
        for p in problems:
            print("problem:", p)
        print("ok" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    pieces, attempt = generate(args.seed)
    text = spec.read_text()
    new = board_yaml(pieces, args.seed)
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda m: new, text)
    else:
        raise SystemExit(f"{spec} has no '{BEGIN}' ... '{END}' section to replace")
    spec.write_text(text)
    print(f"seed {args.seed}: draw {attempt} passed; board written to {spec}")
    for name, layout, pawns in (("large", LARGE_LAYOUT, LARGE_PAWNS), ("small", SMALL_LAYOUT, SMALL_PAWNS)):
        rows = assemble(pieces, layout)
        print(f"{name} ({len(rows[0])} x {len(rows)}), pawns on {', '.join(pawns)}:")
        for r in rows:
            print("   ", " ".join(r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
