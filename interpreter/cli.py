"""The ``rulebook`` command: validate | play | simulate | test | replay | diagram | doc.

Every user mistake (a bad spec, an unknown option, a bad action) is printed as a
clear message with exit status 1 or 2, never as a Python traceback.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .errors import IllegalAction, RulebookError, SpecError

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def parse_options(pairs) -> dict:
    """``["k=v", ...]`` -> ``{"k": "v"}``; raises RulebookError on a pair without '='."""
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise RulebookError(f"--option takes KEY=VALUE, e.g. --option {pair or 'name'}=true (got {pair!r})")
        out[key.strip()] = value.strip()
    return out


def _load(args):
    from .spec.loader import load_game
    return load_game(args.spec, parse_options(args.option))


# -- validate -------------------------------------------------------------------------------
def cmd_validate(args) -> int:
    from .spec.loader import check_spec
    status = 0
    for spec in args.specs:
        diags = check_spec(spec, parse_options(args.option))
        errors = [d for d in diags if d.severity == "error" or args.strict]
        for d in diags:
            style = "red" if d.severity == "error" or args.strict else "yellow"
            console.print(f"[{style}]{_escape(str(d))}[/{style}]")
        if errors:
            status = 1
            console.print(f"[red]{spec}: {len(errors)} error(s)[/red]")
        else:
            warn = [d for d in diags if d.severity == "warning"]
            console.print(f"[green]{spec}: valid[/green]" + (f" ({len(warn)} warning(s))" if warn else ""))
    return status


def _escape(text: str) -> str:
    from rich.markup import escape
    return escape(text)


# -- play -----------------------------------------------------------------------------------
def cmd_play(args) -> int:
    from .agents.basic import RandomAgent
    game = _load(args)
    n = args.players
    humans = set(args.human or [])
    names = [("You" if len(humans) == 1 else f"You {p}") if p in humans else f"Bot {p}" for p in range(n)]
    for h in humans:
        if not 0 <= h < n:
            raise RulebookError(f"--human {h}: seats are 0..{n - 1}")
    state = game.new_state(n, args.seed, player_names=names, events=[])
    agents = [RandomAgent(args.seed * 7919 + p) for p in range(n)]
    opts = ", ".join(f"{k}={v}" for k, v in game.options.items())
    console.rule(f"[bold]{game.name}[/bold] — {n} players, seed {args.seed}")
    if opts:
        console.print(f"[dim]options: {opts}[/dim]")
    _flush(state, game)
    while not state.is_terminal():
        for p in list(state.current_players()):
            if p in humans:
                action = _ask_human(state, p)
                if action is None:
                    console.print("[yellow]Game left.[/yellow]")
                    return 0
            else:
                action = agents[p].act(state, p)
            state.apply(action, p)
            _flush(state, game)
            if state.is_terminal():
                break
    scores = state.scores()
    winners = state.winners()
    if args.save:
        save_game(args.save, args.spec, game, state)
    console.rule("[bold]Game over[/bold]")
    ranking = sorted(range(n), key=lambda p: -scores[p] if game.winner_rule != "lowest" else scores[p])
    for p in ranking:
        mark = " [bold green]wins[/bold green]" if p in winners else ""
        console.print(f"  {state.player_name(p):<8} {scores[p]:>6}{mark}")
    return 0


def save_game(path, spec, game, state) -> None:
    """Write what replays the game exactly: spec, options, players, seed and actions (JSON)."""
    Path(path).write_text(json.dumps({
        "spec": str(spec), "options": game.options, "num_players": state.num_players, "seed": state.seed,
        "player_names": state.player_names, "history": state.history,
        "scores": state.scores() if state.is_terminal() else None}, indent=1))


def _flush(state, game):
    """Print the events the engine emitted since the last call."""
    for ev in state.events:
        kind = ev["kind"]
        if kind == "log":
            console.print(_escape(ev["text"]))
            if ev.get("table"):
                _score_table(state, game, ev["table"])
        elif kind == "action" and not ev.get("hidden"):
            console.print(f"  [cyan]{state.player_name(ev['player'])}[/cyan]: {_escape(ev['text'])}")
        elif kind == "reveal":
            console.print(f"  [cyan]{state.player_name(ev['player'])}[/cyan]: {_escape(ev['text'])}")
    state.events.clear()


def _score_table(state, game, rows):
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
    table.add_column("player")
    titles = [title for title, _ in game.columns]
    for title in titles:
        table.add_column(title, justify="right")
    for p, row in enumerate(rows):
        table.add_row(state.player_name(p), *("-" if row[t] is None else _escape(str(row[t])) for t in titles))
    console.print(table)


def _ask_human(state, p):
    obs = state.observation(p)
    game = state.game
    console.print()
    if game.columns:  # a one-line reminder of where everybody stands
        parts = []
        for seat, row in enumerate(game.table_rows(state)):
            values = " ".join(f"{t} {'-' if v is None else v}" for t, v in row.items())
            parts.append(f"{state.player_name(seat)}: {values}")
        console.print("[dim]" + _escape(" | ".join(parts)) + "[/dim]")
    for name, zdef in game.zones.items():
        z = obs["zones"][name]
        if zdef.per_player:
            mine = z[p]
            if isinstance(mine, list) and zdef.visibility == "owner":
                console.print(f"[bold]Your {name}:[/bold] " + " ".join(_card_text(c) for c in mine))
        elif isinstance(z, list) and z and name in (game.display.get("show_zones") or [name]):
            console.print(f"[bold]{name}:[/bold] " + " ".join(_card_text(c, state) for c in z))
    actions = state.legal_actions(p)
    shown = actions if len(actions) <= 40 else actions[:10] + actions[-3:]
    for a in shown:
        console.print(f"  [bold]{a.index:>2}[/bold] {_escape(a.text)}")
    if len(shown) < len(actions):
        console.print(f"  [dim]... {len(actions)} actions in all: type a number or an action's text, "
                      f"e.g. {actions[len(actions) // 2].text!r}[/dim]")
    while True:
        try:
            raw = input(f"{state.player_name(p)} > ").strip()
        except EOFError:
            return None
        if raw in ("q", "quit", "exit"):
            return None
        if raw.isdigit() and int(raw) < len(actions):
            return actions[int(raw)]
        try:
            st = state.clone()
            st.apply(raw, p)
            return raw
        except IllegalAction as exc:
            console.print(f"[red]{_escape(exc.reason)}[/red]  (type a number, an action's text, or q)")


def _card_text(c, state=None):
    if isinstance(c, dict):
        text = c["card"]
        if c.get("mode"):
            text += f" (as {c['mode']})"
        if state is not None and c.get("played_by") is not None:
            text += f" [dim]by {state.player_name(c['played_by'])}[/dim]"
        return text
    return str(c)


# -- simulate -------------------------------------------------------------------------------
def cmd_simulate(args) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    from .sim.simulate import simulate
    game = _load(args)
    if not game.min_players <= args.players <= game.max_players:
        raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {args.players}")
    if args.games < 1:
        raise RulebookError("-n must be at least 1")
    with Progress(TextColumn("[bold]simulating[/bold]"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  console=err_console, transient=True, disable=args.quiet) as progress:
        task = progress.add_task("games", total=args.games)
        trace = {} if args.trace else None
        result = simulate(game, args.games, args.players, args.seed,
                          progress=lambda i: progress.update(task, completed=i), trace=trace,
                          jobs=1 if trace is not None else args.jobs)
    summary = result.summary()
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        console.print(f"[bold]{game.name}[/bold]: {result.games} games, {args.players} players, seed {args.seed}")
        console.print(f"{summary['games_per_second']:.1f} games/s ({result.seconds:.2f} s); "
                      f"mean game length {summary['mean_length']:.1f} actions")
        table = Table(box=None, padding=(0, 2), header_style="bold")
        for col in ("seat", "mean score", "stdev", "min", "max", "win rate"):
            table.add_column(col, justify="right")
        for s in summary["seats"]:
            table.add_row(str(s["seat"]), f"{s['mean']:.1f}", f"{s['stdev']:.1f}", str(s["min"]), str(s["max"]),
                          f"{100 * s['win_rate']:.1f}%")
        console.print(table)
    if args.plot:
        from .sim.plots import plot_simulation
        plot_simulation(result, args.plot)
        console.print(f"plot written to {args.plot}")
    if args.trace:
        try:
            Path(args.trace).write_text(json.dumps(trace, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.trace}: {exc.strerror or exc}") from None
        console.print(f"trace written to {args.trace} (draw it: rulebook diagram {args.spec} --trace {args.trace})")
    return 0


# -- test -----------------------------------------------------------------------------------
def cmd_test(args) -> int:
    from .scenario import run_paths
    results = run_paths(args.paths)
    failed = [r for r in results if not r.passed]
    for r in results:
        if r.passed:
            if args.verbose:
                console.print(f"[green]PASS[/green] {r.path}  [dim]{_escape(r.rule)}[/dim]")
        else:
            console.print(f"[red]FAIL[/red] {r.path}  [dim]{_escape(r.rule)}[/dim]")
            for f in r.failures or ["no expectation was checked: add expect"]:
                console.print(f"     {_escape(f)}")
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


# -- replay ---------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    """Replay a saved game (JSON from ``--save`` or a State's to_json) and print its events."""
    try:
        data = json.loads(Path(args.log).read_text())
        spec, n, seed, history = args.spec or data["spec"], data["num_players"], data["seed"], data["history"]
    except OSError as exc:
        raise RulebookError(f"{args.log}: cannot read the game log: {exc.strerror or exc}") from None
    except (ValueError, KeyError, TypeError) as exc:  # not JSON, or not a game log
        raise RulebookError(f"{args.log}: not a game log (the JSON written by play --save): "
                            f"{type(exc).__name__}: {exc}") from None
    from .spec.loader import load_game
    game = load_game(spec, data.get("options") or {})
    state = game.new_state(n, seed, player_names=data.get("player_names"), events=[])
    _flush(state, game)
    for seat, text in history:
        state.apply(text, seat)
        _flush(state, game)
    console.print(f"scores: {state.scores()}  winners: {state.winners()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rulebook", description="Run card games from their rules (YAML specs).")
    sub = p.add_subparsers(dest="command", required=True)

    v = sub.add_parser("validate", help="check specs; every problem as file:line:col")
    v.add_argument("specs", nargs="+")
    v.add_argument("--strict", action="store_true", help="treat warnings as errors")
    v.add_argument("--option", action="append", metavar="KEY=VALUE")
    v.set_defaults(func=cmd_validate)

    pl = sub.add_parser("play", help="play a game in the terminal (humans and random bots)")
    pl.add_argument("spec")
    pl.add_argument("--players", "-p", type=int, required=True)
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--human", type=int, action="append", metavar="SEAT", help="a seat you play (0-based)")
    pl.add_argument("--option", action="append", metavar="KEY=VALUE")
    pl.add_argument("--save", metavar="FILE.json", help="save the game for `rulebook replay`")
    pl.set_defaults(func=cmd_play)

    s = sub.add_parser("simulate", help="many games between random bots, with statistics")
    s.add_argument("spec")
    s.add_argument("-n", "--games", type=int, default=100)
    s.add_argument("--players", "-p", type=int, required=True)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--option", action="append", metavar="KEY=VALUE")
    s.add_argument("--json", action="store_true", help="print the statistics as JSON")
    s.add_argument("--plot", metavar="FILE.png", help="also draw score distributions and win rates")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    s.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (same results, faster)")
    s.add_argument("--trace", metavar="FILE.json", help="also write how often each spec step ran "
                   "(for rulebook diagram --trace)")
    s.set_defaults(func=cmd_simulate)

    t = sub.add_parser("test", help="run rule scenario files")
    t.add_argument("paths", nargs="+")
    t.add_argument("-v", "--verbose", action="store_true")
    t.set_defaults(func=cmd_test)

    r = sub.add_parser("replay", help="replay a game saved by `play --save` and print it")
    r.add_argument("log")
    r.add_argument("--spec", help="the spec, if not the one named in the log")
    r.set_defaults(func=cmd_replay)

    try:
        from .analysis.cli import add_analysis_commands
    except ImportError:
        pass
    else:
        add_analysis_commands(sub)
    return p


def main(argv=None) -> int:
    """Entry point of the ``rulebook`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SpecError as exc:
        for d in exc.diagnostics:
            err_console.print(f"[red]{_escape(str(d))}[/red]")
        return 1
    except IllegalAction as exc:
        err_console.print(f"[red]illegal action: {_escape(exc.reason)}[/red]")
        return 1
    except RulebookError as exc:
        err_console.print(f"[red]{_escape(str(exc))}[/red]")
        return 1
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/yellow]")
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
