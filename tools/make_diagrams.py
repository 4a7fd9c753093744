#!/usr/bin/env python3
"""Regenerate the rule-flow diagrams in docs/diagrams/ for every spec in specs/.

For each ``specs/NAME.yaml`` it writes ``docs/diagrams/NAME.svg`` and ``NAME.png`` (every step)
and ``NAME.phases.svg`` and ``NAME.phases.png`` (phases, with the other steps summarised).
They are drawn by the same code as ``rulebook diagram``.

    python tools/make_diagrams.py            # every spec
    python tools/make_diagrams.py skull_king # only these specs (by name)
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter.analysis.cli import _spec_link  # noqa: E402
from interpreter.analysis.export import render  # noqa: E402
from interpreter.analysis.graph import flow_graph, phase_graph  # noqa: E402
from interpreter.errors import RulebookError  # noqa: E402
from interpreter.spec.loader import load_game  # noqa: E402


def make(spec: Path, out_dir: Path) -> list:
    game = load_game(spec)
    rel = spec.relative_to(ROOT) if spec.is_relative_to(ROOT) else spec
    G = flow_graph(game)
    written = []
    grids = (getattr(game, "boards", None) or {}).values()  # as rulebook diagram says them
    boards = (" · boards: " + ", ".join(f"{b.name} {b.width}x{b.height} ({len(b.colour_set())} colours)"
                                        for b in grids)) if grids else ""
    for suffix, graph, view in (("", G, "every step"), (".phases", phase_graph(G), "phases")):
        for fmt in ("svg", "png"):
            path = out_dir / f"{spec.stem}{suffix}.{fmt}"
            link = _spec_link(spec, path)  # each box links to its spec line (SVG)
            path.write_bytes(render(graph, fmt, title=f"{game.name} — rule flow", subtitle=f"{rel} · {view}{boards}",
                                    link=link))
            written.append(path)
    return written


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="spec names (default: every spec in specs/)")
    ap.add_argument("--out", default=str(ROOT / "docs" / "diagrams"), help="output folder")
    args = ap.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = sorted((ROOT / "specs").glob("*.yaml"))
    if args.names:
        specs = [s for s in specs if s.stem in args.names]
        missing = set(args.names) - {s.stem for s in specs}
        if missing:
            print(f"no such spec: {', '.join(sorted(missing))}", file=sys.stderr)
            return 1
    status = 0
    for spec in specs:
        try:
            for path in make(spec, out_dir):
                print(f"wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        except RulebookError as exc:  # a spec being written may not load yet: say so, go on
            print(f"{spec.name}: skipped, it does not load:\n{exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
