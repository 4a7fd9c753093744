"""The ``rulebook diagram``, ``doc`` and ``diff`` commands (registered by ``interpreter.cli``)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import RulebookError
from ..view import sanitize
from .formats import FORMATS

SUFFIXES = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot", ".mmd": "mermaid", ".mermaid": "mermaid",
            ".html": "html", ".htm": "html"}
EXT = {"svg": "svg", "png": "png", "dot": "dot", "mermaid": "mmd", "html": "html"}


def add_analysis_commands(subparsers) -> None:
    """Register ``diagram``, ``doc`` and ``diff`` on the CLI's subparsers."""
    d = subparsers.add_parser("diagram", help="draw the rule flow of a spec (svg, png, dot, mermaid, html)",
                              description="Draw the rule flow of a spec: phases, loops, branches, decisions, "
                                          "chance steps and variant-only parts. SVG, PNG and HTML are drawn "
                                          "with matplotlib; DOT and Mermaid are text.")
    d.add_argument("spec")
    d.add_argument("-o", "--output", metavar="FILE", help="where to write (format from the suffix); "
                   "without it, dot and mermaid go to stdout and images to SPEC-NAME.FORMAT here")
    d.add_argument("--format", "-f", choices=FORMATS, help="svg (default), png, dot, mermaid or html")
    d.add_argument("--detail", choices=("steps", "phases"), default="steps",
                   help="steps: every step (default); phases: phases, loops and branches around them, "
                        "other steps summarised")
    d.add_argument("--option", action="append", metavar="KEY=VALUE")
    d.add_argument("--heat", type=int, metavar="N", help="simulate N random games and colour each step "
                   "by how often it ran")
    d.add_argument("--players", "-p", type=int, help="players for --heat (default: the spec's minimum)")
    d.add_argument("--seed", type=int, default=0, help="first seed for --heat")
    d.add_argument("--bot", action="append", metavar="SEAT=KIND[:BUDGET]",
                   help="for --heat: the bot at a seat (repeatable; others random), e.g. 0=ismcts:100")
    d.add_argument("--trace", metavar="LOG.json", help="colour by a trace written by rulebook simulate --trace")
    d.set_defaults(func=cmd_diagram)

    r = subparsers.add_parser("doc", help="write a readable rules summary (Markdown) generated from a spec")
    r.add_argument("spec")
    r.add_argument("-o", "--output", metavar="FILE.md", help="default: print to stdout")
    r.add_argument("--option", action="append", metavar="KEY=VALUE")
    r.set_defaults(func=cmd_doc)

    f = subparsers.add_parser("diff", help="say in words which rules two specs differ in",
                              description="Compare two specs (e.g. a game and your house rules): options, "
                                          "cards, zones, variables, definitions, the steps of every phase, "
                                          "scoring. Exit status 1 when they differ.")
    f.add_argument("spec")
    f.add_argument("other")
    f.add_argument("--option", action="append", metavar="KEY=VALUE", help="options for both specs")
    f.set_defaults(func=cmd_diff)


def _game(args):
    from ..options import parse_options
    from ..spec.loader import load_game
    return load_game(args.spec, parse_options(args.option))


def _format(args) -> str:
    if args.format:
        implied = SUFFIXES.get(Path(args.output).suffix.lower()) if args.output else None
        if implied is not None and implied != args.format:
            raise RulebookError(f"-o {args.output} is a {implied} file name but --format is {args.format}\n"
                                f"    hint: name it {Path(args.output).with_suffix('.' + EXT[args.format])} "
                                f"or drop --format (the suffix decides)")
        return args.format
    if args.output:
        fmt = SUFFIXES.get(Path(args.output).suffix.lower())
        if fmt is None:
            raise RulebookError(f"cannot tell the format of {args.output!r} from its suffix: add --format "
                                + "|".join(FORMATS))
        return fmt
    return "svg"


def _spec_link(spec, output):
    """``link(line)`` for SVG boxes: the spec's path relative to the drawing's folder, ``#L<line>``
    (how GitHub and most source viewers open a line)."""
    import os
    try:
        rel = os.path.relpath(Path(spec).resolve(), Path(output).resolve().parent)
    except ValueError:  # another drive (Windows)
        rel = str(Path(spec).resolve())
    rel = rel.replace(os.sep, "/")
    return lambda line: f"{rel}#L{line}"


def read_trace(path) -> dict:
    """A trace file: ``{step_id: count}`` (as written by ``rulebook simulate --trace``)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RulebookError(f"{path}: no such trace file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise RulebookError(f"{path}: not a JSON trace ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("counts"), dict):
        data = data["counts"]
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, (int, float))
                                             and not isinstance(v, bool) for k, v in data.items()):
        raise RulebookError(f"{path}: a trace is a JSON object {{step_id: count}}, "
                            "e.g. written by rulebook simulate --trace FILE")
    return data


def cmd_diagram(args) -> int:
    from .export import render
    from .graph import flow_graph, phase_graph
    from .layout import Heat
    fmt = _format(args)
    game = _game(args)
    heat = None
    note = ""
    if args.heat is not None and args.trace:
        raise RulebookError("use --heat N or --trace FILE, not both")
    if args.heat is not None:
        if args.heat < 1:
            raise RulebookError("--heat N: N must be at least 1")
        players = args.players if args.players is not None else game.min_players
        if not game.min_players <= players <= game.max_players:
            raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {players}")
        from ..agents.registry import parse_bots
        from ..sim.simulate import simulate
        bots = parse_bots(args.bot, players)
        counts: dict = {}
        simulate(game, args.heat, players, args.seed, trace=counts, bots=bots)
        heat = Heat(counts, args.heat)
        who = "random" if not bots else ", ".join(f"seat {p} {k}" for p, k in sorted(bots.items())) + \
            (", others random" if len(bots) < players else "")
        note = f" · heat: {args.heat} game(s) ({who}), {players} players, seed {args.seed}"
    elif args.bot:
        raise RulebookError("--bot is for --heat N (the bots of the simulated games)")
    elif args.trace:
        counts = read_trace(args.trace)
        G0 = flow_graph(game)
        if counts and not set(counts) & set(G0.nodes):
            raise RulebookError(f"{args.trace}: none of its steps are in {args.spec}: a trace of another spec?")
        heat = Heat(counts)
        note = f" · trace: {args.trace}"
    G = flow_graph(game)
    if args.detail == "phases":
        G = phase_graph(G)
    changed = {k: v for k, v in game.options.items()
               if v != ((game.spec.get("options") or {}).get(k) or {}).get("default")}
    opts = " · options: " + ", ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}"
                                      for k, v in changed.items()) if changed else ""
    title = f"{game.name} — rule flow"
    boards = getattr(game, "boards", None) or {}
    board_note = (" · boards: " + ", ".join(f"{b.name} {b.width}x{b.height} ({len(b.colour_set())} colours)"
                                            for b in boards.values())) if boards else ""
    subtitle = f"{args.spec} · {'every step' if args.detail == 'steps' else 'phases'}{opts}{board_note}{note}"
    out = args.output
    # without -o, images are written in the current folder
    data = render(G, fmt, heat, title, subtitle, game=game, link=_spec_link(args.spec, out or "./drawing"))
    if out is None and fmt in ("dot", "mermaid"):
        sys.stdout.write(sanitize(data.decode("utf-8")))  # spec text on a terminal: no escape sequences
        return 0
    if out is None:
        stem = Path(args.spec).stem + (".phases" if args.detail == "phases" else "")
        out = f"{stem}.{EXT[fmt]}"
    try:
        Path(out).write_bytes(data)
    except OSError as exc:
        raise RulebookError(f"cannot write {out}: {exc.strerror or exc}") from None
    print(sanitize(f"{fmt} diagram written to {out}"))
    return 0


def cmd_doc(args) -> int:
    from .rulesdoc import rules_markdown
    game = _game(args)
    text = rules_markdown(game)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.output}: {exc.strerror or exc}") from None
        print(sanitize(f"rules written to {args.output}"))
    else:
        sys.stdout.write(sanitize(text))  # spec text on a terminal: no escape sequences
    return 0


def cmd_diff(args) -> int:
    """``rulebook diff A B``: print the differences in rules; 0 when there are none, else 1."""
    from ..options import parse_options
    from ..spec.loader import load_game
    from .diff import spec_diff
    options = parse_options(args.option)
    a, b = load_game(args.spec, options), load_game(args.other, options)
    text = spec_diff(a, b)
    sys.stdout.write(text)
    return 0 if text.rstrip().endswith("The two specs have the same rules.") else 1
