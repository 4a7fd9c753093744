"""``rulebook analyze``: design measures of a spec from simulated play (see
:mod:`interpreter.analysis.design` and docs/analysis.md), printed, as JSON, or as an HTML report."""
from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from ..errors import RulebookError
from ..options import parse_options
from . import _escape, _load, _print_table, _scheduler, check_writable, console, err_console


def _players(args, game) -> int:
    """``--players``, checked, or by default 3 players within the spec's range."""
    n = args.players if args.players is not None else min(max(3, game.min_players), game.max_players)
    if not game.min_players <= n <= game.max_players:
        raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {n}")
    return n


def _ladder(text: str) -> tuple:
    from ..agents.registry import make_agent
    rungs = tuple(k.strip().lower() for k in text.split(",") if k.strip())
    if len(rungs) < 1:
        raise RulebookError("--ladder: name at least one bot, e.g. random,greedy:8,ismcts:10,ismcts:40")
    for k in rungs:
        make_agent(k, 0)  # a bad kind or budget is said now, before any game
    return rungs


def _play(args, game, n, ladder, speeds, label):
    """Every game of one rule set, with a progress bar (rich) unless --quiet."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from ..analysis.design import play_all
    with Progress(TextColumn("[bold]{task.description}[/bold]"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err_console, transient=True,
                  disable=args.quiet or not err_console.is_terminal) as progress:
        tasks: dict = {}

        def report(stage, done, total):
            if stage not in tasks:
                tasks[stage] = progress.add_task(f"{label}{stage}", total=total)
            progress.update(tasks[stage], completed=done, total=total)  # (random play: the plan sets it)
        return play_all(game, n, args.seed, args.games, ladder, args.ladder_games, args.cpu_budget,
                        jobs=args.jobs, backend=args.backend, address=args.address, fast=not args.no_fast,
                        fast_games=args.fast_games, progress=report, schedule=args.schedule, speeds=speeds)


def cmd_analyze(args) -> int:
    """``rulebook analyze SPEC``: play the spec (random games, kernel games, the ladder), print the design
    measures (or ``--json``), write ``--html``/``--trace``; with ``--compare``/``--compare-option`` the
    same for B on the same seeds and what changed. Returns 0; raises RulebookError for a user's mistake."""
    from ..analysis.design import compare_played, measures
    if args.games is not None and args.games < 2:
        raise RulebookError("-n must be at least 2")
    if args.jobs < 1:
        raise RulebookError(f"--jobs must be at least 1, not {args.jobs}")
    if args.ladder_games is not None and args.ladder_games < 1:
        raise RulebookError("--ladder-games must be at least 1")
    if args.address is not None and args.backend != "dask":
        raise RulebookError("--address is the Dask scheduler's: add --backend dask")
    if args.html:
        check_writable(args.html, "--html", "the report")
    if args.trace:
        check_writable(args.trace, "--trace", "the trace")
    ladder = _ladder(args.ladder)
    game = _load(args)
    n = _players(args, game)
    speeds = _scheduler(args, args.seed, n).speeds
    game_b = None
    if args.compare or args.compare_option:
        from ..spec.loader import load_game
        options_b = dict(parse_options(args.option), **parse_options(args.compare_option))
        game_b = load_game(args.compare or args.spec, options_b)
        if not game_b.min_players <= n <= game_b.max_players:
            raise RulebookError(f"{game_b.name} is for {game_b.min_players} to {game_b.max_players} players, not {n}")
    played = _play(args, game, n, ladder, speeds, "A: " if game_b else "")
    report = measures(game, n, played)
    if game_b is not None:
        if args.ladder_games is None:  # B plays as many ladder games as A did, on the same seeds, with A's bots
            ladder = tuple(played["plan"].get("ladder") or ladder)
            args.ladder_games = max(len(rs) for _, _, rs in played["ladder"]) if played["ladder"] else 1
            ladder = ladder[:1 + sum(1 for _, _, rs in played["ladder"] if rs)]  # the rungs A played
        if args.games is None:  # and as many random games
            args.games = len(played["random"])
        played_b = _play(args, game_b, n, ladder, speeds, "B: ")
        report["b"] = measures(game_b, n, played_b)
        label_a = args.spec + "".join(f" {k}={v}" for k, v in parse_options(args.option).items())
        label_b = (args.compare or args.spec) + "".join(f" {k}={v}" for k, v in options_b.items())
        report["compare"] = {"a": label_a, "b": label_b}
        report["changed"] = compare_played(played, played_b)
    notes = []
    if args.html:
        from ..analysis.design_report import to_html
        try:
            Path(args.html).write_text(to_html(report), encoding="utf-8")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.html}: {exc.strerror or exc}") from None
        notes.append(f"report written to {args.html}")
    if args.trace:
        from ..analysis.design import step_counts
        records = played["ladder"][-1][2] if played["ladder"] and played["ladder"][-1][2] else played["random"]
        try:
            Path(args.trace).write_text(json.dumps(step_counts(records), indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.trace}: {exc.strerror or exc}") from None
        notes.append(f"trace of {len(records)} games written to {args.trace} "
                     f"(draw it: rulebook diagram {args.spec} --trace {args.trace})")
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print(report, played)
    for note in notes:
        (err_console if args.json else console).print(_escape(note))
    return 0


def _print(report: dict, played: dict) -> None:
    from ..analysis.design_report import fmt
    g = report["games"]
    console.print(f"[bold]{_escape(report['game'])}[/bold]: {report['players']} players; "
                  f"{g['random']} games of random play"
                  + (f", {g['kernel']} kernel games" if g["kernel"] else "")
                  + ("; ladder " + _escape(", ".join(f"{k} ({v} games)" for k, v in g["ladder"].items()))
                     if g["ladder"] else "; no ladder (one bot)")
                  + f"; {report['cpu_seconds']:.0f} s of CPU in the games")
    plan = report.get("plan") or {}
    if plan.get("random"):
        console.print(f"[dim]how many games (a budget of {plan['budget']:.0f} s of CPU for the games): random play "
                      f"{_escape(plan['random']['why'])}"
                      + (f"; {_escape(plan['decisions_note'])}" if plan.get("decisions_note") else "") + "[/dim]")
        if plan.get("scaled"):
            console.print(f"[dim]  {_escape(plan['scaled'])}[/dim]")
        for r in plan.get("rungs", []):
            console.print(f"[dim]  {_escape(r['rung'])}: {_escape(r['why'])}[/dim]")
    if report.get("kernel_note"):
        console.print(f"[dim]fairness by seat from the step API's games: {_escape(report['kernel_note'])}[/dim]")
    console.print("[dim]every value has its 95% interval; 'games' is the number of games it rests on[/dim]")
    for s in report["sections"]:
        if not s["measures"]:
            continue
        console.print(f"\n[bold]{_escape(s['title'])}[/bold] [dim]({_escape(s['about'])})[/dim]")
        table = Table(box=None, padding=(0, 2), header_style="bold")
        for col in ("measure", "value (95% interval)", "games", "reading"):
            table.add_column(col, justify="right" if col == "games" else "left")
        for m in s["measures"]:
            table.add_row(_escape(m["measure"]), fmt(m), str(m["games"]), _escape(m["reading"]))
        _print_table(table)
    for play, label in (("good", "good play"), ("random", "random play")):
        for var in (report.get("cards") or {}).get(play, []):
            console.print(f"\n[bold]Cards ({label}, {var['games']} games)[/bold]: {_escape(var['reading'])}")
        rules = (report.get("rules") or {}).get(play)
        if rules:
            never = rules["never"]
            console.print(f"\n[bold]Rule usage ({label}, {rules['games']} games)[/bold]: {len(never)} of "
                          f"{len(rules['steps'])} steps never ran"
                          + (": " + _escape("; ".join(f"line {x['line']} {x['label']}" for x in never[:12]))
                             + (" …" if len(never) > 12 else "") if never else ""))
    if report.get("changed"):
        console.print(f"\n[bold]What changed[/bold]: A = {_escape(report['compare']['a'])}, "
                      f"B = {_escape(report['compare']['b'])} (the same seeds and bots; B − A, paired bootstrap)")
        table = Table(box=None, padding=(0, 2), header_style="bold")
        for col in ("measure", "A", "B", "B − A (95% interval)", "games"):
            table.add_column(col, justify="left" if col == "measure" else "right", no_wrap=True)
        for r in report["changed"]:
            mark = "[bold red]" if r["changed"] else ""
            table.add_row(_escape(r["measure"]), f"{r['a']:.3g}", f"{r['b']:.3g}",
                          f"{mark}{r['diff']:+.3g}[/] ({r['low']:+.3g} … {r['high']:+.3g})" if mark else
                          f"{r['diff']:+.3g} ({r['low']:+.3g} … {r['high']:+.3g})", str(r["games"]))
        _print_table(table)
        sig = [r for r in report["changed"] if r["changed"]]
        console.print(f"{len(sig)} of {len(report['changed'])} measures changed (their interval excludes 0)")
