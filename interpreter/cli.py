"""The ``rulebook`` command: validate | play | simulate | analyze | test | replay | diagram | doc.

Every user mistake (a bad spec, an unknown option, a bad action, a file that cannot be
written or read) is printed as a clear message with exit status 1 or 2, never as a Python
traceback.

This module is the parser and the dispatch; each command family lives in its module of
:mod:`interpreter.commands` (``play``, ``simulate``, ``analyze``, ``replay``, ``scenarios``, ``serve``,
``authoring``), imported only when its command runs. The names those modules define remain
readable here (``interpreter.cli.cmd_play``, ``read_game_log``, ...), loaded on first use.
"""
from __future__ import annotations

import argparse
import sys
from importlib import import_module

from . import commands
from .commands import BOT_HELP, _escape, console, err_console  # noqa: F401  (interpreter.cli.console, ...)
from .errors import IllegalAction, RulebookError, SpecError
from .options import parse_options  # noqa: F401  (also interpreter.cli.parse_options)

_FAMILIES = ("authoring", "play", "simulate", "analyze", "scenarios", "replay", "serve")


def __getattr__(name: str):
    """A name of :mod:`interpreter.commands` or one of its families (PEP 562), e.g. ``_load``,
    ``SETTLE_LOADED_GAME``, ``cmd_play``; AttributeError when none defines it."""
    if hasattr(commands, name):
        return getattr(commands, name)
    for family in () if name.startswith("__") else _FAMILIES:  # tools probing __wrapped__ etc. load nothing
        module = import_module(f"{commands.__name__}.{family}")
        if hasattr(module, name):
            return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Run:
    """A command's function, ``cmd_NAME`` of ``interpreter.commands.FAMILY``, imported when called
    with the parsed arguments (returns the exit status)."""

    def __init__(self, family: str, name: str):
        self.family, self.name = family, name

    def __call__(self, args) -> int:
        return getattr(import_module(f"{commands.__name__}.{self.family}"), self.name)(args)

    def __eq__(self, other) -> bool:  # the same command, however often the parser is built
        return isinstance(other, _Run) and (self.family, self.name) == (other.family, other.name)

    def __hash__(self) -> int:
        return hash((self.family, self.name))


def _add_schedule_args(p) -> None:
    from .agents.schedule import SCHEDULES
    p.add_argument("--schedule", choices=SCHEDULES, default="round-robin",
                   help="who acts first in real-time play: the next seat clockwise (default) or a random one")
    p.add_argument("--speed", action="append", metavar="SEAT=SPEED",
                   help="reaction speed of a seat in real-time play (default 1.0; 2.0 acts twice as often); "
                        "repeatable, e.g. --speed 0=2.0 --speed 1=0.5")


def _add_length_arg(p) -> None:
    p.add_argument("--max-actions", type=int, metavar="N", help="the actions one game may take before it is "
                   "stopped with an error (default 1,000,000: turns that loop with no end stop there)")


# every command's name (a test checks it against the parser): when argv names one, the others are
# left out of the parser altogether
CORE_COMMANDS = ("validate", "play", "simulate", "analyze", "test", "replay", "schema", "serve", "games", "lsp",
                 "compile", "new")  # declared here


COMMANDS = (*CORE_COMMANDS, "diagram", "doc", "diff")  # and interpreter.analysis.cli's


class _Undeclared:
    """A command that is not the one run: listed (for help), its arguments not declared."""

    def add_argument(self, *args, **kwargs) -> None:
        pass

    def set_defaults(self, **kwargs) -> None:
        pass


class _Commands:
    """The parser's subparsers, declaring the arguments of the ``wanted`` command only (all of them
    when ``wanted`` is None): declaring every command's arguments cost a one-game run a few
    milliseconds, each argument asking the terminal its size."""

    def __init__(self, subparsers, wanted):
        self.subparsers, self.wanted = subparsers, wanted

    def add_parser(self, name, **kwargs):
        if self.wanted is None or self.wanted == name:
            return self.subparsers.add_parser(name, **kwargs)
        if self.wanted not in COMMANDS:  # listed, as argparse names every command in its error
            self.subparsers.add_parser(name, **kwargs)
        return _Undeclared()


class _Version(argparse.Action):
    """``rulebook --version``: prints ``rulebook VERSION`` (the installed package's version, from
    :mod:`importlib.metadata`, read only when asked) and exits with status 0."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import PackageNotFoundError, version
        try:
            number = version("rulebook")
        except PackageNotFoundError:  # run from a source tree that was never installed
            number = "unknown (not installed: pip install -e .)"
        sys.stdout.write(f"rulebook {number}\n")  # on standard output, as argparse's own version action
        parser.exit()


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``rulebook`` argument parser. With ``argv`` (the arguments to parse), only the command
    they name gets its arguments declared; without, every command does."""
    p = argparse.ArgumentParser(prog="rulebook", description="Run card games from their rules (YAML specs).")
    p.add_argument("--version", action=_Version, help="print Rulebook's version and exit")
    subparsers = p.add_subparsers(dest="command", required=True)
    # the command: the first argument not an option (no top-level option takes a value); when it
    # names no command, argparse says so and lists them
    sub = _Commands(subparsers, next((a for a in argv or () if not a.startswith("-")), None))

    v = sub.add_parser("validate", help="check specs; every problem as file:line:col")
    v.add_argument("specs", nargs="+")
    v.add_argument("--strict", action="store_true", help="treat warnings as errors")
    v.add_argument("--option", action="append", metavar="KEY=VALUE")
    v.set_defaults(func=_Run("authoring", "cmd_validate"))

    pl = sub.add_parser("play", help="play a game in the terminal (humans and bots: random, greedy, ismcts)")
    pl.add_argument("spec")
    pl.add_argument("--players", "-p", type=int, default=None,
                    help="the number of players (may be left out when the spec allows only one)")
    pl.add_argument("--seed", type=int, default=None, help="fixes the shuffles and the bots (default: random; "
                    "shown when the game is over)")
    pl.add_argument("--human", type=int, action="append", metavar="SEAT", help="a seat you play (0-based); "
                    "several: hot seat, the screen is cleared and the device passed before each human's turn")
    pl.add_argument("--option", action="append", metavar="KEY=VALUE")
    pl.add_argument("--save", metavar="FILE.json", help="save the game for `rulebook replay` (also when you quit); "
                    "the full record: seed, every hand and every choice")
    pl.add_argument("--show-seed", action="store_true", help="show the seed in the header (by default it is "
                    "shown when the game is over: the seed gives every hand)")
    _add_schedule_args(pl)
    _add_length_arg(pl)
    pl.add_argument("--bot", action="append", metavar="SEAT=KIND[:BUDGET]", help=BOT_HELP)
    pl.set_defaults(func=_Run("play", "cmd_play"))

    s = sub.add_parser("simulate", help="many games between bots (random unless --bot), with statistics")
    s.add_argument("spec")
    s.add_argument("-n", "--games", type=int, default=100)
    s.add_argument("--players", "-p", type=int, default=None,
                   help="the number of players (may be left out when the spec allows only one)")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--option", action="append", metavar="KEY=VALUE")
    s.add_argument("--json", action="store_true", help="print the statistics as JSON")
    s.add_argument("--plot", metavar="FILE.png", help="also draw score distributions and win rates")
    s.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    s.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (same results, faster); "
                   "with --backend dask and no --address, the local cluster's workers (default: one per core)")
    s.add_argument("--backend", choices=["process", "dask"], default="process",
                   help="where games run: this machine's processes (default; -j N), or a Dask cluster "
                   "(pip install -e '.[dask]'): the same results for the same seed")
    s.add_argument("--address", metavar="tcp://HOST:PORT", help="with --backend dask: the scheduler of an "
                   "existing cluster (its workers need Rulebook installed); default: a local cluster")
    s.add_argument("--bot", action="append", metavar="SEAT=KIND[:BUDGET]", help=BOT_HELP)
    s.add_argument("--compare", metavar="B.yaml", help="also play the same seeds with this spec (a variant) "
                   "and report each measure's difference with a 95%% interval")
    s.add_argument("--compare-option", action="append", metavar="KEY=VALUE",
                   help="compare with these options changed (with or without --compare)")
    s.add_argument("--track", action="append", metavar="VAR", help="with --compare: also compare this "
                   "variable's value at the end (NAME, or p.NAME averaged over the seats)")
    s.add_argument("--trace", metavar="FILE.json", help="also write how often each spec step ran "
                   "(for rulebook diagram --trace)")
    s.add_argument("--fast", action="store_true", help="play in the typed numba kernel (pip install -e "
                   "'.[fast]'): the same games, much faster; random bots, and ismcts/greedy bots searching in the kernel; a spec that does not type "
                   "runs as usual and you are told why")
    s.add_argument("--compile-first", action="store_true", help="with --fast, on a spec's first run: wait for "
                   "its kernel to compile before the first game (by default the first games play on the bytecode "
                   "machine, or the step API, while another process compiles it: the same games, no wait)")
    _add_schedule_args(s)
    _add_length_arg(s)
    s.set_defaults(func=_Run("simulate", "cmd_simulate"))

    an = sub.add_parser("analyze", help="design measures from simulated play: fairness, skill, drama, branching, "
                        "duration, rule usage (each with a 95%% interval)")
    an.add_argument("spec")
    an.add_argument("--players", "-p", type=int, default=None, help="default: 3 (or the spec's nearest count)")
    an.add_argument("--option", action="append", metavar="KEY=VALUE")
    an.add_argument("--seed", type=int, default=0)
    an.add_argument("-n", "--games", type=int, default=None, help="games of random play (default: up to 200, "
                    "as many as fit in a quarter of --cpu-budget)")
    an.add_argument("--ladder", default="random,greedy:8,ismcts:10,ismcts:40", metavar="KIND,KIND,...",
                    help="the bots, weakest first: each is played against the one below it "
                    "(default random,greedy:8,ismcts:10,ismcts:40)")
    an.add_argument("--ladder-games", type=int, default=None, metavar="N", help="games per rung of the ladder "
                    "(default: as many as fit in --cpu-budget, at most 200)")
    an.add_argument("--cpu-budget", type=float, default=360.0, metavar="SECONDS",
                    help="CPU seconds for all the games of one rule set (default 360): analyze measures what "
                    "the first games cost and chooses how many random games (without -n) and ladder games "
                    "(without --ladder-games) fit; a rung that cannot get 20 games is left out, and the "
                    "report says why")
    an.add_argument("--fast-games", type=int, default=4000, metavar="N",
                    help="kernel games for fairness by seat, when the kernel runs the spec (default 4000)")
    an.add_argument("--no-fast", action="store_true", help="do not use the numba kernel")
    an.add_argument("--compare", metavar="B.yaml", help="also analyse this spec (a variant) on the same seeds "
                    "and report what changed, with paired 95%% intervals")
    an.add_argument("--compare-option", action="append", metavar="KEY=VALUE",
                    help="compare with these options changed (with or without --compare)")
    an.add_argument("--html", metavar="FILE.html", help="also write the report as one HTML file with its plots")
    an.add_argument("--json", action="store_true", help="print the report as JSON")
    an.add_argument("--trace", metavar="FILE.json", help="also write how often each spec step ran in the games "
                    "of good play (the ladder's top rung), for rulebook diagram --trace")
    an.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    an.add_argument("--jobs", "-j", type=int, default=1, help="worker processes (the same results)")
    an.add_argument("--backend", choices=["process", "dask"], default="process",
                    help="where games run: this machine's processes (default; -j N), or a Dask cluster")
    an.add_argument("--address", metavar="tcp://HOST:PORT", help="with --backend dask: an existing scheduler")
    _add_schedule_args(an)
    an.set_defaults(func=_Run("analyze", "cmd_analyze"))

    t = sub.add_parser("test", help="run rule scenario files")
    t.add_argument("paths", nargs="+")
    t.add_argument("-v", "--verbose", action="store_true")
    t.add_argument("--spec", metavar="SPEC.yaml", help="run the scenarios against this spec (an edited copy) "
                   "and say which rules the edit changes")
    t.set_defaults(func=_Run("scenarios", "cmd_test"))

    r = sub.add_parser("replay", help="replay a game saved by `play --save` and print it")
    r.add_argument("log")
    r.add_argument("--spec", help="the spec, if not the one named in the log")
    r.add_argument("--any-spec", action="store_true",
                   help="replay even if the spec's text has changed since the game was played")
    r.add_argument("--seat", type=int, metavar="N", help="show the game as seat N saw it (no seed, no other "
                   "player's hand or private choice); default: the full record")
    r.add_argument("--export", metavar="FILE.json", help="with --seat: write what that seat may know "
                   "(State.export) as JSON")
    _add_length_arg(r)
    r.set_defaults(func=_Run("replay", "cmd_replay"))

    sc = sub.add_parser("schema", help="print the JSON Schema of a spec (or of a scenario file)",
                        description="Print the JSON Schema that validate checks specs against, for "
                                    "editors: save it and point your YAML extension at it, or use the "
                                    "modeline '# yaml-language-server: $schema=...' at the top of a spec.")
    sc.add_argument("--scenario", action="store_true", help="the schema of rule scenario files instead")
    sc.add_argument("--path", action="store_true", help="print where the schema file is instead of its text")
    sc.set_defaults(func=_Run("authoring", "cmd_schema"))

    sv = sub.add_parser("serve", help="a web table: lobby, one private link per seat, spectators, replays",
                        description="Serve SPECs as a web table (see docs/web.md). It listens on 127.0.0.1 "
                                    "(this computer only); to let others join, use --host 0.0.0.0 on a trusted "
                                    "network, or put it behind a reverse proxy (HTTPS, WebSockets passed on).")
    sv.add_argument("specs", nargs="+", metavar="SPEC")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer "
                    "only; 0.0.0.0: every network interface)")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--db", default="sqlite:///rulebook-games.db", metavar="URL",
                    help="where games are kept: an SQLAlchemy URL (default sqlite:///rulebook-games.db; e.g. "
                         "postgresql://user@host/rulebook)")
    sv.add_argument("--bot-delay", type=float, default=0.5, metavar="SECONDS",
                    help="how long a bot waits before it moves, so people can follow (default 0.5)")
    sv.add_argument("--realtime-delay", type=float, default=2.0, metavar="SECONDS",
                    help="how long a bot waits between its moves in a real-time phase (default 2.0)")
    sv.add_argument("--seed", type=int, default=None, help="the games created get the seeds N, N+1, ... "
                    "(reproducible tests; default: a random seed per game, never shown to players)")
    sv.add_argument("--backup", metavar="DIR", help="back the SQLite database up into DIR (SQLite's online "
                    "backup): at start, every --backup-every minutes and at shutdown, a damaged database never "
                    "copied; a missing database is then refused while DIR holds backups")
    sv.add_argument("--backup-every", type=float, default=10.0, metavar="MINUTES", help="default 10")
    sv.add_argument("--backup-keep", type=int, default=10, metavar="N", help="backups kept in DIR (default 10)")
    sv.set_defaults(func=_Run("serve", "cmd_serve"))

    gm = sub.add_parser("games", help="export a web table's games as JSON, or import them (to rebuild a database)",
                        description="rulebook games export FILE.json: every game of --db (spec, options, seed, "
                                    "seats and their links, actions; read as far as it goes from a damaged "
                                    "database). rulebook games import FILE.json: add them to --db (a restored "
                                    "backup gets the games and moves made since).")
    gm.add_argument("action", choices=["export", "import"])
    gm.add_argument("file", metavar="FILE.json", help="the export file ('-' exports to standard output)")
    gm.add_argument("--db", default="sqlite:///rulebook-games.db", metavar="URL",
                    help="the database, as given to rulebook serve (default sqlite:///rulebook-games.db)")
    gm.set_defaults(func=_Run("serve", "cmd_games"))

    ls = sub.add_parser("lsp", help="a language server for editors (stdio): spec and scenario files checked "
                        "as you type, completion, hover, rename (pip install -e '.[lsp]'; docs/editors.md)")
    ls.set_defaults(func=_Run("serve", "cmd_lsp"))

    cp = sub.add_parser("compile", help="compile the kernels' machine code ahead (pip install -e '.[fast]'): the "
                        "bytecode machine, once per installation, and the kernels of the specs given",
                        description="Compile numba's machine code ahead, into the kernel cache folder (RULEBOOK_CACHE, "
                        "by default ~/.cache/rulebook/kernels): the bytecode machine, once for every spec (a spec "
                        "not seen before then plays its first --fast games, step API states and search decisions "
                        "on it at once), and with SPECs their own kernels (simulate --fast's, the step API's, the "
                        "search bots'). Each part is timed and said compiled or in the cache already. Exit status "
                        "1 when a part could not be compiled (its line says why).")
    cp.add_argument("specs", nargs="*", metavar="SPEC", help="specs whose own kernels to compile too (their "
                    "playout kernel, step kernel and search); one module serves every option value")
    cp.add_argument("--option", action="append", metavar="KEY=VALUE", help="options of the specs (each spec "
                    "must have them; a variant the kernel types only with certain options)")
    cp.add_argument("--players", "-p", type=int, default=None, help="the player count of the game and the "
                    "decision played to make the kernels ready (default: the smallest the spec allows)")
    cp.set_defaults(func=_Run("compile", "cmd_compile"))

    nw = sub.add_parser("new", help="write a starter spec NAME.yaml and scenarios/NAME/ with one rule scenario")
    nw.add_argument("name", metavar="NAME", help="the game's file name without .yaml (may include folders)")
    nw.set_defaults(func=_Run("authoring", "cmd_new"))

    if sub.wanted not in CORE_COMMANDS:
        try:
            from .analysis.cli import add_analysis_commands
        except ImportError:
            pass
        else:
            add_analysis_commands(sub)
    return p


_INTERRUPTED: list = []  # Ctrl-C seen while a command ran (see _on_interrupt)


def _on_interrupt(signum, frame):
    """SIGINT: raise KeyboardInterrupt, as Python's own handler does, and remember it. Code that
    catches the KeyboardInterrupt may fail after it with another error (numba, when Ctrl-C comes
    while it writes machine code, raises RuntimeError "no compiled object yet"): that error is then
    the interrupt's, told as "interrupted", not a traceback."""
    _INTERRUPTED.append(signum)
    raise KeyboardInterrupt


def _watch_interrupts() -> None:
    """Install :func:`_on_interrupt` in place of Python's SIGINT handler (only over that one, and
    only in the main thread: an embedding program's own handler is kept)."""
    import signal
    import threading
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_interrupt)


def main(argv=None) -> int:
    """Entry point of the ``rulebook`` command; returns the exit status."""
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
    _watch_interrupts()
    del _INTERRUPTED[:]
    try:
        return args.func(args)
    except SpecError as exc:
        for d in exc.diagnostics:
            err_console.print(f"[red]{_escape(str(d))}[/red]", soft_wrap=True)
        return 1
    except IllegalAction as exc:
        err_console.print(f"[red]illegal action: {_escape(exc.reason)}[/red]", soft_wrap=True)
        return 1
    except RulebookError as exc:  # soft wrap: a path in the message is never cut in two
        err_console.print(f"[red]{_escape(str(exc))}[/red]", soft_wrap=True)
        return 1
    except KeyboardInterrupt:
        err_console.print("[yellow]interrupted[/yellow]")
        return 130
    except BrokenPipeError:
        return 0
    except Exception:
        if not _INTERRUPTED:
            raise
        err_console.print("[yellow]interrupted[/yellow]")
        return 130


if __name__ == "__main__":
    sys.exit(main())
