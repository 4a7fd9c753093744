"""The ``rulebook`` commands, one module per family; here what they share: the consoles, loading
the game of a command line, and the header, table and result lines several commands print.

The parser and dispatch are in :mod:`interpreter.cli`, which imports only the module of the command
run (start-up speed: a one-game ``simulate`` loads nothing of ``play`` or ``serve``).
"""
from __future__ import annotations

import gc
import os
from pathlib import Path

from rich.console import Console

from ..errors import RulebookError
from ..options import parse_options


# soft_wrap: long lines (file:line:col messages, paths) are not cut at 80 columns when piped
console = Console(highlight=False, soft_wrap=True, emoji=False)  # a ":word:" in a name stays text
err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)

MAX_SHOWN_ACTIONS = 40  # longer option lists show their first 10 and last 3
_last_table: list = [None]  # the score-table rows printed last (play shows the table when it changed)


# True when this process runs one command (set by interpreter.command): the game it loads lives as
# long as the process, so its objects are then set aside from the cycle collector (gc.freeze),
# which would otherwise go through them all again each time it runs while the game plays.
SETTLE_LOADED_GAME = False


def _load(args):
    """The game of ``args.spec`` with the options of ``args.option`` (see SETTLE_LOADED_GAME) and
    the bound of ``args.max_actions`` (see :func:`set_max_actions`)."""
    from ..spec.loader import load_game
    options = parse_options(args.option)
    if not SETTLE_LOADED_GAME:
        return set_max_actions(load_game(args.spec, options), args)
    gc.disable()
    try:
        return set_max_actions(load_game(args.spec, options), args)
    finally:
        gc.freeze()
        gc.enable()


def _players(args, game) -> int:
    """The number of players of ``args.players``, or the spec's only player count when it allows
    exactly one and ``--players`` was left out; raises RulebookError (the range allowed) for a
    number outside it or a missing one the spec leaves open."""
    lo, hi = game.min_players, game.max_players
    if args.players is None:
        if lo != hi:
            raise RulebookError(f"{game.name} is for {lo} to {hi} players: give the number with --players N")
        args.players = lo
    if not lo <= args.players <= hi:
        raise RulebookError(f"{game.name} is for {lo} to {hi} players, not {args.players}")
    return args.players


def set_max_actions(game, args):
    """``game`` with ``game.max_actions`` set from ``--max-actions N`` when given (returned).
    Raises RulebookError for N below 1."""
    n = getattr(args, "max_actions", None)
    if n is not None:
        if n < 1:
            raise RulebookError(f"--max-actions must be at least 1, not {n}")
        game.max_actions = n
    return game


def _value_text(value) -> str:
    """An option's value as a user types it: true/false, not Python's True/False."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    return str(value)


def _cell_text(value) -> str:
    """A score-table value: yes/no for booleans (as the rules' log lines write them), - for none."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ", ".join(_cell_text(v) for v in value)
    return str(value)


def check_writable(path, flag: str, what: str = "the file") -> None:
    """Raise RulebookError unless ``path`` can be written (checked before long work starts)."""
    p = Path(path)
    if p.is_dir():
        raise RulebookError(f"{flag} {path}: cannot write {what}: that is a folder\n"
                            f"    hint: give a file name, e.g. {p / 'out'}")
    parent = p.parent
    if not parent.is_dir():
        raise RulebookError(f"{flag} {path}: cannot write {what}: the folder {parent} does not exist "
                            f"(No such file or directory)\n"
                            f"    hint: create it first (mkdir -p {parent}) or write somewhere else")
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise RulebookError(f"{flag} {path}: cannot write {what}: permission denied\n    hint: write somewhere else")


def _escape(text: str) -> str:
    """Text from a spec or a user, ready for console.print: control characters and escape
    sequences made harmless (:func:`interpreter.view.sanitize`), rich markup escaped. Every
    such text printed by the CLI goes through here."""
    from rich.markup import escape

    from ..view import sanitize
    return escape(sanitize(text))


BOT_HELP = ("the bot at a seat (repeatable; other seats are random): random, first, greedy or ismcts, with a "
            "budget of iterations (ismcts:500) or seconds per decision (ismcts:0.1s)")


# -- play -----------------------------------------------------------------------------------
def seat_names(n: int, humans) -> list:
    """Display names that read well in the rules' log lines ("Player 0 (you) deals"):
    human seats are "Player N" ("Player N (you)" when there is one), bots "Bot N"."""
    humans = set(humans or [])
    you = " (you)" if len(humans) == 1 else ""
    return [f"Player {p}{you}" if p in humans else f"Bot {p}" for p in range(n)]


def _print_table(table) -> None:
    """A statistics table; piped or redirected it is not cut to 80 columns (no '…' in numbers)."""
    if console.is_terminal:
        console.print(table)
        return
    width = console.width
    console.width = max(width, 240)
    try:
        console.print(table)
    finally:
        console.width = width


def print_header(game, n: int, seed: int | None, replay_hint: bool = False,
                 hidden: str = "seed shown at the end (--show-seed: now)") -> None:
    """The game's title line, its seed (``None``: hidden, and ``hidden`` says so) and its options
    (shared by play and replay)."""
    if seed is None:
        # the seed alone gives every shuffle, hence every hand: shown when the game is over
        seen = hidden
    else:
        seen = f"seed {seed}" + (f" — replay with --seed {seed}" if replay_hint else "")
    console.rule(f"[bold]{_escape(game.name)}[/bold] — {n} players, {seen}")
    opts = ", ".join(f"{k}={_value_text(v)}" for k, v in game.options.items())
    if opts:
        console.print(f"[dim]options: {_escape(opts)}[/dim]")


def print_result(state, game) -> None:
    """The final ranking (shared by play and replay)."""
    n = state.num_players
    scores = state.scores()
    winners = state.winners()
    console.rule("[bold]Game over[/bold]")
    ranking = sorted(range(n), key=lambda p: -scores[p] if game.winner_rule != "lowest" else scores[p])
    width = max(len(state.player_name(p)) for p in range(n))
    for p in ranking:
        mark = " [bold green]wins[/bold green]" if p in winners else ""
        console.print(f"  {_escape(state.player_name(p)):<{width}} {scores[p]:>6}{mark}")
    console.print(f"[dim]scores: {scores}  winners: {winners}[/dim]")  # by seat, for scripts


def _show_seed(seed: int, when: str = "now that the game is over") -> None:
    """The seed, printed once nobody plays on: it gives every hand."""
    console.print(f"[dim]seed {seed} — replay with --seed {seed} (shown {when}: "
                  "the seed gives every hand)[/dim]")


def _card_name(c) -> str:
    return c["card"] if isinstance(c, dict) else str(c)


def _card_text(c, state=None):
    """A visible card, e.g. ``NAME as MODE (Bot 1)`` (markup-escaped)."""
    if isinstance(c, dict):
        text = _escape(c["card"])
        if c.get("mode"):
            text += f" as {_escape(c['mode'])}"
        if state is not None and c.get("played_by") is not None:
            text += f" [dim]({_escape(state.player_name(c['played_by']))})[/dim]"
        return text
    return _escape(str(c))

def _scheduler(args, seed: int, n: int):
    """The scheduler of --schedule and --speed (checked: seats in range, speeds above 0)."""
    from ..agents.schedule import Scheduler, parse_speeds
    try:
        speeds = parse_speeds(getattr(args, "speed", None))
    except ValueError as exc:
        raise RulebookError(str(exc)) from None
    for seat in speeds:
        if not 0 <= seat < n:
            raise RulebookError(f"--speed {seat}=...: seats are 0..{n - 1}")
    return Scheduler(getattr(args, "schedule", "round-robin"), seed, speeds)
