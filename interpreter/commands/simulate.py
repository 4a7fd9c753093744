"""``rulebook simulate``: many games between bots, statistics, plots, --compare, --fast."""
from __future__ import annotations

import json
import os
from pathlib import Path

from rich.table import Table

from ..errors import RulebookError
from ..options import parse_options
from . import (_escape, _load, _players, _print_table, _scheduler, check_writable, console, err_console,
               set_max_actions)


# -- simulate -------------------------------------------------------------------------------
def _progress_bar(quiet: bool):
    """The progress bar of ``simulate`` on standard error (a context giving a rich ``Progress``), or
    with ``quiet``, or when standard error is no terminal (a bar is not drawn there, and rich wrote
    an empty line at its end), a context giving None (the bar's library is then not even imported)."""
    if quiet or not err_console.is_terminal:
        from contextlib import nullcontext
        return nullcontext()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    return Progress(TextColumn("[bold]{task.description}[/bold]"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), console=err_console, transient=True)


def _compiling_line(progress, task):
    """``simulate(compiling=...)``: while the kernel is made ready, the progress line says it
    compiles (or loads from the cache), then says simulating again."""
    from contextlib import contextmanager

    @contextmanager
    def compiling(compiles, behind=False, machine=False):
        progress.update(task, description="compiling the bytecode machine (once per installation)" if machine else
                        "simulating while the kernel compiles" if behind else
                        "compiling the kernel (once per spec)" if compiles else "loading the kernel")
        try:
            yield
        finally:
            progress.update(task, description="simulating")
    return compiling


def _kernel_words(result) -> str:
    """How the kernel was made ready, for the line of games per second (which leaves it out,
    unless games played on meanwhile: ``result.step_api_games`` or ``result.machine_games``)."""
    cpu, wall, compiled = result.kernel_ready
    if result.search_on_machine:  # (the machine's own compile, once per cache folder, when it compiled)
        return (f"; the search on the bytecode machine, compiled in {cpu:.1f} s CPU ({wall:.1f} s wall, once for "
                f"every spec), not counted" if compiled else f"; the search on the bytecode machine, loaded in "
                f"{wall:.2f} s, not counted")
    if result.step_api_games is not None or result.machine_games is not None:
        first = (f"; the first {result.step_api_games} on the step API while " if result.machine_games is None else
                 f"; the first {result.machine_games} on the bytecode machine while ")
        if result.compiled_behind:
            return first + f"the kernel compiled ({cpu:.1f} s CPU, {wall:.1f} s wall), the others in the kernel"
        return first + (f"another process tried to compile the kernel, the others in the kernel compiled here "
                        f"in {cpu:.1f} s CPU ({wall:.1f} s wall), not counted")
    return (f"; kernel compiled in {cpu:.1f} s CPU ({wall:.1f} s wall), not counted" if compiled else
            f"; kernel loaded in {wall:.2f} s, not counted")


def cmd_simulate(args) -> int:
    from ..sim.simulate import simulate
    if args.games < 1:
        raise RulebookError("-n must be at least 1")
    if args.jobs < 1:
        raise RulebookError(f"--jobs must be at least 1, not {args.jobs}")
    if args.compile_first and not args.fast:
        raise RulebookError("--compile-first is about --fast's kernel: add --fast, or drop it")
    if args.address is not None and args.backend != "dask":
        raise RulebookError("--address is the Dask scheduler's: add --backend dask")
    if args.backend == "dask" and args.trace:
        raise RulebookError("--trace counts steps in one process: drop --backend dask")
    if args.plot:
        from ..sim.plots import check_plot_path
        check_writable(args.plot, "--plot", "the plot")
        check_plot_path(args.plot)
    if args.trace:
        check_writable(args.trace, "--trace", "the trace")
    game = _load(args)
    _players(args, game)
    speeds = _scheduler(args, args.seed, args.players).speeds
    from ..agents.registry import parse_bots
    bots = parse_bots(args.bot, args.players)
    if args.compare or args.compare_option:
        return _simulate_compare(args, game, bots)
    if args.track:
        raise RulebookError("--track compares variables between two rule sets: add --compare B.yaml "
                            "or --compare-option NAME=VALUE")
    if args.backend == "dask" and not args.quiet and args.games > 1:  # a local cluster takes seconds to start
        from ..sim.dask_backend import require_dask
        require_dask()  # Dask missing is said before anything is started
        where = (f"connecting to the Dask scheduler at {args.address}" if args.address else
                 f"starting a local Dask cluster of {args.jobs if args.jobs > 1 else os.cpu_count() or 1} workers")
        err_console.print(f"[dim]{_escape(where)}…[/dim]")
    with _progress_bar(args.quiet) as progress:
        report = compiling = None
        note = lambda text: err_console.print(f"[dim]--fast: {_escape(text)}[/dim]")  # noqa: E731
        if progress is not None:
            task = progress.add_task("simulating", total=args.games)
            report = lambda i: progress.update(task, completed=i)  # noqa: E731
            compiling, note = _compiling_line(progress, task), None  # (the line says it)
        trace = {} if args.trace else None
        result = simulate(game, args.games, args.players, args.seed, progress=report, trace=trace,
                          jobs=1 if trace is not None else args.jobs, schedule=args.schedule, speeds=speeds,
                          bots=bots, backend=args.backend, address=args.address, fast=args.fast,
                          note=note, compiling=compiling, compile_behind=not args.compile_first)
    if args.fast and result.fast_note:
        err_console.print(_escape(f"--fast: played by the step API instead: {result.fast_note}"))
    if result.kernel_note and not args.quiet:  # (--quiet: told already, as a note)
        err_console.print(_escape(f"--fast: {result.kernel_note}"))
    # files first: a failure to write them must not come after (or hide) the statistics' output
    notes = []
    if args.trace:
        try:
            Path(args.trace).write_text(json.dumps(trace, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.trace}: {exc.strerror or exc}") from None
        notes.append(f"trace written to {args.trace} (draw it: rulebook diagram {args.spec} --trace {args.trace})")
    if args.plot:
        from ..sim.plots import plot_simulation
        plot_simulation(result, args.plot)
        notes.append(f"plot written to {args.plot}")
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        timing = ""
        if speeds:
            timing = "; speeds " + ", ".join(f"seat {p}: {speeds.get(p, 1.0):g}" for p in range(args.players))
        elif args.schedule != "round-robin":
            timing = f"; {args.schedule} schedule"
        games = f"{result.games} game" + "s" * (result.games != 1)
        console.print(f"[bold]{_escape(game.name)}[/bold]: {games}, {args.players} players, seed {args.seed}{timing}")
        kernel = _kernel_words(result) if result.kernel_ready is not None else ""
        if result.machine_ready is not None and result.machine_ready.compiled:
            kernel += (f"; the bytecode machine compiled first in {result.machine_ready.cpu:.1f} s CPU "
                       f"({result.machine_ready.wall:.1f} s wall, once per installation), not counted")
        console.print(f"{summary['games_per_second']:.3g} games/s ({result.seconds:.2f} s{kernel}); "
                      f"mean game length {summary['mean_length']:.1f} actions")
        table = Table(box=None, padding=(0, 2), header_style="bold")
        for col in ("seat", "bot", "mean", "stdev", "min", "max", "win rate (95% interval)"):
            table.add_column(col, justify="left" if col == "bot" else "right", no_wrap=True)
        for s in summary["seats"]:
            table.add_row(str(s["seat"]), _escape(s["bot"]), f"{s['mean']:.1f}", f"{s['stdev']:.1f}", str(s["min"]),
                          str(s["max"]), f"{100 * s['win_rate']:.1f}% ({100 * s['win_low']:.1f}–{100 * s['win_high']:.1f})")
        _print_table(table)
        if "teams" in summary:  # a team's win is one win for the team (the seat rates share it)
            teams = Table(box=None, padding=(0, 2), header_style="bold")
            for col in ("team", "seats", "win rate (95% interval)"):
                teams.add_column(col, justify="left" if col != "win rate (95% interval)" else "right", no_wrap=True)
            for t in summary["teams"]:
                teams.add_row(_escape(t["name"]), ", ".join(map(str, t["seats"])),
                              f"{100 * t['win_rate']:.1f}% ({100 * t['win_low']:.1f}–{100 * t['win_high']:.1f})")
            console.print(teams)
    for note in notes:  # with --json, stdout is the JSON only
        (err_console if args.json else console).print(_escape(note))
    return 0


def _simulate_compare(args, game_a, bots) -> int:
    """``simulate A --compare B`` / ``--compare-option K=V``: both rule sets on the same seeds,
    each measure's difference B − A with its 95% interval (see :mod:`interpreter.sim.compare`)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from ..sim.compare import compare, plot_comparison
    from ..spec.loader import load_game
    if args.trace or args.jobs != 1 or args.backend != "process" or args.fast:
        raise RulebookError("--compare runs in one process, through the step API, without --trace: drop "
                            "--jobs/--backend/--trace/--fast")
    changed = parse_options(args.compare_option)
    options_b = dict(parse_options(args.option), **changed)
    game_b = set_max_actions(load_game(args.compare or args.spec, options_b), args)
    if not game_b.min_players <= args.players <= game_b.max_players:
        raise RulebookError(f"{game_b.name} is for {game_b.min_players} to {game_b.max_players} players, "
                            f"not {args.players}")
    label_a = args.spec + "".join(f" {k}={v}" for k, v in parse_options(args.option).items())
    label_b = (args.compare or args.spec) + "".join(f" {k}={v}" for k, v in options_b.items())
    with Progress(TextColumn("[bold]simulating A and B[/bold]"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err_console, transient=True,
                  disable=args.quiet or not err_console.is_terminal) as progress:
        task = progress.add_task("games", total=args.games)
        result = compare(game_a, game_b, args.games, args.players, args.seed, bots=bots, track=args.track or (),
                         progress=lambda i: progress.update(task, completed=i))
    if args.plot:
        plot_comparison(result, args.plot, label_a, label_b)
    from ..agents.registry import describe
    seat_bots = describe(args.players, bots)
    if args.json:
        print(json.dumps({"a": label_a, "b": label_b, "games": result.games, "players": result.num_players,
                          "bots": seat_bots, "rows": result.rows}, indent=2))
    else:
        console.print(f"[bold]A[/bold] = {_escape(label_a)}\n[bold]B[/bold] = {_escape(label_b)}")
        console.print(f"{result.games} games each on the same seeds ({args.seed}..{args.seed + result.games - 1}), "
                      f"{args.players} players; difference B − A with its 95% interval")
        console.print("bots (the same under A and B): " + _escape(", ".join(
            f"seat {p} {kind}" for p, kind in enumerate(seat_bots))))
        table = Table(box=None, padding=(0, 2), header_style="bold")
        for col in ("measure", "A", "B", "B − A", "95% interval"):
            table.add_column(col, justify="left" if col == "measure" else "right", no_wrap=True)
        for r in result.rows:
            pct = "win rate" in r["measure"]
            f = (lambda x: f"{100 * x:.1f}%") if pct else (lambda x: f"{x:.2f}")
            mark = "[bold red]" if r["low"] > 0 or r["high"] < 0 else ""
            table.add_row(_escape(r["measure"]), f(r["a"]), f(r["b"]), f"{mark}{f(r['diff'])}",
                          f"{f(r['low'])} … {f(r['high'])}")
        _print_table(table)
        sig = result.significant()
        console.print(f"{len(sig)} of {len(result.rows)} measures differ (their interval excludes 0"
                      + (f": {_escape(', '.join(r['measure'] for r in sig[:6]))}" if sig else "") + ")")
    if args.plot:
        (err_console if args.json else console).print(_escape(f"plot written to {args.plot}"))
    return 0
