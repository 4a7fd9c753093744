"""The ``rulebook`` command: validate | play | simulate | test | replay | diagram | doc.

Every user mistake (a bad spec, an unknown option, a bad action, a file that cannot be
written or read) is printed as a clear message with exit status 1 or 2, never as a Python
traceback.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from .errors import IllegalAction, RulebookError, SpecError
from .options import parse_options  # noqa: F401  (also interpreter.cli.parse_options)

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
    """The game of ``args.spec`` with the options of ``args.option`` (see SETTLE_LOADED_GAME)."""
    from .spec.loader import load_game
    options = parse_options(args.option)
    if not SETTLE_LOADED_GAME:
        return load_game(args.spec, options)
    gc.disable()
    try:
        return load_game(args.spec, options)
    finally:
        gc.freeze()
        gc.enable()


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


# -- validate -------------------------------------------------------------------------------
def cmd_schema(args) -> int:
    """``rulebook schema``: the JSON Schema of specs (``--scenario``: of scenario files)."""
    from .spec.loader import SCHEMA_DIR
    path = SCHEMA_DIR / ("scenario.schema.json" if args.scenario else "game.schema.json")
    sys.stdout.write(f"{path.resolve()}\n" if args.path else path.read_text(encoding="utf-8"))
    return 0


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
            console.print(f"[red]{_escape(spec)}: {len(errors)} error(s)[/red]")
        else:
            warn = [d for d in diags if d.severity == "warning"]
            console.print(f"[green]{_escape(spec)}: valid[/green]" + (f" ({len(warn)} warning(s))" if warn else ""))
    return status


def _escape(text: str) -> str:
    """Text from a spec or a user, ready for console.print: control characters and escape
    sequences made harmless (:func:`interpreter.view.sanitize`), rich markup escaped. Every
    such text printed by the CLI goes through here."""
    from rich.markup import escape

    from .view import sanitize
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


def cmd_play(args) -> int:
    import secrets

    from .agents.basic import step
    from .agents.registry import bots_for, parse_bots
    if args.save:
        check_writable(args.save, "--save", "the game log")
    game = _load(args)
    n = args.players
    if not game.min_players <= n <= game.max_players:  # said before the game starts, as simulate does
        raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {n}")
    humans = set(args.human or [])
    for h in humans:
        if not 0 <= h < n:
            raise RulebookError(f"--human {h}: seats are 0..{n - 1}")
    kinds = parse_bots(args.bot, n)
    both = sorted(humans & set(kinds))
    if both:
        raise RulebookError(f"seat {both[0]} is given both --human and --bot")
    seed = args.seed if args.seed is not None else secrets.randbelow(100_000)
    scheduler = _scheduler(args, seed, n)
    screen = Screen(humans)
    _last_table[0] = None
    print_header(game, n, seed if args.show_seed else None, replay_hint=True)
    events: list = []
    try:
        state = game.new_state(n, seed, player_names=seat_names(n, humans), events=events)
    except RulebookError:
        # the rules failed before the first decision: show the game up to there (the public log
        # lines; nobody has acted yet), as the error's hint promises
        from .view import event_for
        for ev in events:
            shown = event_for(None, ev, None) if ev.get("kind") == "log" else None
            if shown is not None:
                console.print(_escape(shown["text"]))
        _show_seed(seed)  # the game ends here: the seed shows it again
        raise
    agents = bots_for(seed, n, kinds)
    for agent in dict.fromkeys(agents):
        agent.reset()
    if kinds:
        console.print("[dim]bots: " + ", ".join(f"{_escape(state.player_name(p))} {_escape(k)}" for p, k in sorted(kinds.items()))
                      + (", the others random" if len(kinds) + len(humans) < n else "") + "[/dim]")
    screen.flush(state, game)
    try:
        while not state.is_terminal():
            # in a real-time block several players may act: the scheduler says whose moment it is
            # (turn by tick: a human asked there may act or let the moment pass with Enter)
            p = scheduler.next_player(state)
            if p in humans:
                action = screen.ask(state, p) if screen.take_device(state, game, p) else None
                if action is None:
                    screen.end(state, game)
                    console.print(f"[yellow]Game left after {len(state.history)} action(s).[/yellow]")
                    _show_seed(seed, "now that the game is left")
                    if args.save:
                        save_game(args.save, args.spec, game, state)
                        console.print(f"saved to {_escape(args.save)} (rulebook replay {_escape(args.save)} "
                                      "replays it to this position)")
                    return 0
                if action is _WAIT:
                    scheduler.acted(p)
                    continue
            else:
                action = agents[p].act(state, p)
            for agent in dict.fromkeys(agents):  # what every bot may learn from it (shown lacking)
                agent.notify(state, p, action)
            state.apply(action, p)
            scheduler.acted(p)
            screen.flush(state, game)
    except KeyboardInterrupt:
        if args.save:
            save_game(args.save, args.spec, game, state)
            err_console.print(f"[yellow]saved the game so far to {_escape(args.save)}[/yellow]")
        raise
    except RulebookError:
        screen.end(state, game)
        _show_seed(seed, "now that the rules have stopped the game")
        if args.save:  # the log with the failing action last: the one game worth replaying
            save_game(args.save, args.spec, game, state)
            err_console.print(f"[yellow]saved the game (its last action is the one the rules failed on: replay shows the failure) to {_escape(args.save)}[/yellow]")
        raise
    if args.save:
        save_game(args.save, args.spec, game, state)
    screen.end(state, game)
    print_result(state, game)
    _show_seed(seed)
    if args.save:
        console.print(f"[dim]saved to {_escape(args.save)}: rulebook replay {_escape(args.save)}[/dim]")
    return 0


def _show_seed(seed: int, when: str = "now that the game is over") -> None:
    """The seed, printed once nobody plays on: it gives every hand."""
    console.print(f"[dim]seed {seed} — replay with --seed {seed} (shown {when}: "
                  "the seed gives every hand)[/dim]")


class Screen:
    """Where ``rulebook play`` prints, and for whom: every event goes through the per-seat
    filter (:func:`interpreter.view.event_for`).

    - No human: a spectator's view (only what is public).
    - One human: that seat's view.
    - Several humans on one terminal (hot seat): each line waits for the humans who may read
      it; before a human's decision the screen is cleared, the device is passed ("press
      Enter"), and that human reads what happened since their last turn, then their hand.
      What only another human may read (their hand, their secret choice) never reaches the
      screen while someone else holds the device.
    """

    def __init__(self, humans):
        self.humans = sorted(humans)
        self.hot_seat = len(self.humans) > 1
        self.viewer = self.humans[0] if len(self.humans) == 1 else None
        self.queue = {h: [] for h in self.humans}  # hot seat: lines waiting for each human
        self.public = []  # hot seat: public lines since the last clear (shown at the end)
        self.holder = None  # hot seat: the human who holds the device

    def flush(self, state, game) -> None:
        """Print (or queue, in hot seat) the events the engine emitted since the last call."""
        from .view import event_for
        for ev in state.events:
            if not self.hot_seat:
                shown = event_for(state, ev, self.viewer)
                if shown is not None:
                    _print_event(state, game, shown)
                continue
            for h in self.humans:
                shown = event_for(state, ev, h)
                if shown is None:
                    continue
                if h == self.holder:
                    _print_event(state, game, shown)
                else:
                    self.queue[h].append(shown)
            shown = event_for(state, ev, None)
            if shown is not None:
                self.public.append(shown)
        state.events.clear()

    def take_device(self, state, game, p) -> bool:
        """Hot seat: before ``p``'s decision, clear the screen and ask to pass the device to
        ``p`` (unless ``p`` holds it), then show ``p`` what happened since their last turn.
        False when the player quits at the prompt (end of input, or q)."""
        if not self.hot_seat:
            return True
        if self.holder != p:
            self.holder = None
            clear_screen()
            self.public = []
            name = _escape(state.player_name(p))
            console.print(f"[bold]Pass the device to {name}.[/bold] Nobody else should look at the screen now.")
            while True:
                try:
                    answer = input(f"{sanitize_prompt(state.player_name(p))}: press Enter when ready (q quits) ")
                except EOFError:
                    console.print()
                    return False
                if answer.strip() in ("q", "quit", "exit"):
                    return False
                if not answer.strip():
                    break
                # typed before the screen was ready: say so rather than drop it silently
                console.print("[yellow]That was not used: press Enter first, then choose.[/yellow]")
            self.holder = p
            _last_table[0] = None  # the screen was cleared: show the status table again
            if self.queue[p]:
                console.rule(f"since {name}'s last turn", style="dim")
        for shown in self.queue[p]:
            _print_event(state, game, shown)
        self.queue[p] = []
        return True

    def ask(self, state, p):
        """The action ``p`` types (see :func:`_ask_human`)."""
        return _ask_human(state, p)

    def end(self, state, game) -> None:
        """Hot seat: at the end, clear what the last holder saw and show the public lines since."""
        if not self.hot_seat or self.holder is None and not self.public:
            return
        clear_screen()
        for shown in self.public:
            _print_event(state, game, shown)
        self.public = []
        self.holder = None


def clear_screen() -> None:
    """Hot seat: clear the terminal and its scrollback (a piped output gets a marked line)."""
    if console.is_terminal:
        console.file.write("\x1b[H\x1b[2J\x1b[3J")
        console.file.flush()
    else:
        console.rule("[dim]the screen is cleared here[/dim]", style="dim")


def sanitize_prompt(text) -> str:
    """A name for input()'s prompt: no control characters or escape sequences."""
    from .view import sanitize
    return sanitize(text)


_WAIT = object()  # a human let their moment in a real-time block pass


def _scheduler(args, seed: int, n: int):
    """The scheduler of --schedule and --speed (checked: seats in range, speeds above 0)."""
    from .agents.schedule import Scheduler, parse_speeds
    try:
        speeds = parse_speeds(getattr(args, "speed", None))
    except ValueError as exc:
        raise RulebookError(str(exc)) from None
    for seat in speeds:
        if not 0 <= seat < n:
            raise RulebookError(f"--speed {seat}=...: seats are 0..{n - 1}")
    return Scheduler(getattr(args, "schedule", "round-robin"), seed, speeds)


def save_game(path, spec, game, state) -> None:
    """Write what replays the game exactly: spec, options, players, seed and actions (JSON).
    A game not yet over is saved too: it replays to the position reached."""
    from .model.saved import log_digest
    data = {"spec": str(spec), "fingerprint": game.fingerprint, "options": game.options, "num_players": state.num_players,
            "seed": state.seed, "player_names": state.player_names, "history": state.history,
            "scores": state.scores() if state.is_terminal() else None}
    # through JSON first: the digest is of what the file says (a tuple reads back as a list)
    data["digest"] = log_digest(json.loads(json.dumps(data)))
    try:
        Path(path).write_text(json.dumps(data, indent=1))
    except OSError as exc:
        raise RulebookError(f"cannot write {path}: {exc.strerror or exc}") from None


def _flush(state, game, seat=None, full=False):
    """Print the events the engine emitted since the last call, as ``seat`` sees them (None:
    a spectator, who sees what is public), or everything (``full``: the full record, private
    lines marked with who may read them)."""
    from .view import event_for
    for ev in state.events:
        if full:
            _print_full_event(state, game, ev)
            continue
        shown = event_for(state, ev, seat)
        if shown is not None:
            _print_event(state, game, shown)
    state.events.clear()


def _print_event(state, game, shown) -> None:
    """One display event from :func:`interpreter.view.event_for`."""
    kind = shown["kind"]
    if kind == "log":
        console.print(_escape(shown["text"]))
        if shown.get("table"):
            _score_table(state, game, shown["table"])
    elif kind == "action":
        console.print(f"  [cyan]{_escape(state.player_name(shown['player']))}[/cyan]: {_escape(shown['text'])}")
    else:
        console.print(f"  [dim]{_escape(shown['text'])}[/dim]")


def _print_full_event(state, game, ev) -> None:
    """An engine event as the full record shows it (replay without --seat)."""
    to = ev.get("to")
    only = ""
    if to is not None:
        only = " [dim](only " + _escape(", ".join(state.player_name(p) for p in to)) + ")[/dim]"
    kind = ev["kind"]
    if kind == "log":
        console.print(_escape(ev["text"]) + only)
        if ev.get("table"):
            _score_table(state, game, ev["table"])
    elif kind == "reveal" or kind == "action" and not ev.get("hidden"):
        console.print(f"  [cyan]{_escape(state.player_name(ev['player']))}[/cyan]: {_escape(ev['text'])}{only}")


def _score_table(state, game, rows, style: str | None = None):
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2) if style is None else (0, 1),
                  style=style)
    table.add_column("player")
    titles = [title for title, _ in game.columns]
    for title in titles:
        table.add_column(title, justify="right")
    for p, row in enumerate(rows):
        table.add_row(_escape(state.player_name(p)), *(_escape(_cell_text(row[t])) for t in titles))
    _print_table(table)
    _last_table[0] = rows


def _card_order(game) -> dict:
    """Card name -> its place in the card table (the order of the numbered options)."""
    order = {}
    for c in game.cards:
        order.setdefault(c.name, c.id)
    return order


def _decision_doc(state):
    """The ``doc:`` of the spec step of the pending decision, or None."""
    try:
        frame = state.stack[-1]
        instr = state.game.programs[frame[0]][frame[1]]
        node = state.game.spec
        for key in instr.path:
            node = node[key]
    except (IndexError, KeyError, TypeError, AttributeError):
        return None
    doc = node.get("doc") if isinstance(node, dict) else None
    return " ".join(doc.split()) if isinstance(doc, str) and doc.strip() else None


def _friendly_reason(state, p, reason: str) -> str:
    """A refusal worded for the player: the zone by its name ("in their hand"), not by the
    spec's expression ("in p.hand")."""
    try:
        frame = state.stack[-1]
        instr = state.game.programs[frame[0]][frame[1]]
        ref = instr.cards
    except (IndexError, KeyError, AttributeError):
        return reason
    if ref is None or ref.owner is None or f" in {ref.text}" not in reason:
        return reason
    from .engine.context import Ctx
    try:
        ctx = Ctx(state, frame[2])
        ctx.bound[instr.by_name] = p
        owner = ref.owner(ctx)
    except Exception:  # noqa: BLE001 - wording only: keep the engine's reason
        return reason
    whose = "their" if owner == p else f"{state.player_name(owner)}'s"
    return reason.replace(f" in {ref.text}", f" in {whose} {ref.name}", 1)


def _ask_human(state, p):
    obs = state.observation(p)
    game = state.game
    console.print()
    if game.columns:  # a compact reminder of where everybody stands, when it changed
        rows = game.table_rows(state)
        if rows != _last_table[0]:
            _score_table(state, game, rows, style="dim")
    order = _card_order(game)
    for name, zdef in game.zones.items():
        z = obs["zones"][name]
        if zdef.sets:  # sets on the table, numbered from 1 as lay-off options count them
            _show_sets(state, p, name, zdef, z)
        elif zdef.per_player:
            mine = z[p]
            if isinstance(mine, list) and zdef.visibility == "owner":
                cards = sorted((_card_name(c) for c in mine), key=lambda c: order.get(c, len(order)))
                console.print(f"[bold]Your {_escape(name)}:[/bold] " + _escape(", ".join(cards)))
        elif isinstance(z, list) and z and name in (game.display.get("show_zones") or [name]):
            console.print(f"[bold]{_escape(name)}:[/bold] " + ", ".join(_card_text(c, state) for c in z))
        # cards a `show` step let this player see in a zone they cannot see
        for seat, part in (enumerate(z) if zdef.per_player else [(None, z)]):
            if isinstance(part, dict) and part.get("seen"):
                where = name if seat is None else f"{state.player_name(seat)}'s {name}"
                console.print(f"[bold]Seen in {_escape(where)}:[/bold] " + _escape(", ".join(part["seen"])))
    actions = state.legal_actions(p)
    picked = (obs.get("pending") or {}).get("my_picked")
    if picked is not None and (picked or any(a.text.startswith("pick ") for a in actions)):
        # a set choice with cards to pick: say how to build the set
        from .engine.run import _pending_instr
        verb = _pending_instr(state).action
        if picked:
            console.print("[bold]Set so far:[/bold] " + _escape(", ".join(picked)))
        console.print(f"[dim]Build the set with pick NAME (undo takes the last back), or type it whole: "
                      f"{_escape(verb)} {_escape(' '.join(picked) or 'NAME NAME ...')}[/dim]")
    doc = _decision_doc(state)
    if doc:
        console.print(f"[italic]{_escape(doc)}[/italic]")
    if len(actions) <= MAX_SHOWN_ACTIONS:
        head, tail = actions, []
    else:
        head, tail = actions[:10], actions[-3:]
    for a in head:
        console.print(f"  [bold]{a.index:>2}[/bold] {_escape(a.text)}")
    if tail:
        hidden = len(actions) - len(head) - len(tail)
        console.print(f"  [dim]... {hidden} more ({len(actions)} actions in all): type a number or an "
                      f"action's text, e.g. {_escape(repr(actions[len(actions) // 2].text))}[/dim]")
        for a in tail:
            console.print(f"  [bold]{a.index:>2}[/bold] {_escape(a.text)}")
    realtime = bool((state.pending or {}).get("realtime"))
    if realtime:
        console.print("[dim]real time: everyone plays at once; this is your moment — type an action, "
                      "or press Enter to let the others act first[/dim]")
    while True:
        try:
            raw = input(f"{sanitize_prompt(state.player_name(p))} > ").strip()
        except EOFError:
            console.print()
            return None
        if raw in ("q", "quit", "exit"):
            return None
        if realtime and raw == "":
            return _WAIT
        if raw.isdecimal() and len(raw) < 10 and int(raw) < len(actions):  # not "²": int() refuses it
            return actions[int(raw)]
        try:
            st = state.clone()
            st.apply(raw, p)
            return raw
        except IllegalAction as exc:
            console.print(f"[red]{_escape(_friendly_reason(state, p, exc.reason))}[/red]  "
                          "(type a number, an action's text, or q)")


def _show_sets(state, p, name, zdef, z):
    """Print a zone of sets: every seat's sets (or their sizes when hidden), numbered from 1."""
    owners = list(enumerate(z)) if zdef.per_player else [(None, z)]
    for seat, sets in owners:
        who = "" if seat is None else ("Your " if seat == p else f"{state.player_name(seat)}'s ")
        if isinstance(sets, dict):
            shown = ", ".join(f"[{k}] {n} card(s)" for k, n in enumerate(sets.get("sets", []), 1))
        else:
            shown = "  ".join(f"[{k}] " + ", ".join(_card_text(c, None) for c in s) for k, s in enumerate(sets, 1))
        if shown:
            console.print(f"[bold]{_escape(who + name)}:[/bold] {shown}")


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


# -- simulate -------------------------------------------------------------------------------
def _progress_bar(quiet: bool):
    """The progress bar of ``simulate`` on standard error (a context giving a rich ``Progress``), or
    with ``quiet`` a context giving None (the bar's library is then not even imported)."""
    if quiet:
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
    def compiling(compiles):
        progress.update(task, description="compiling the kernel (once per spec)" if compiles
                        else "loading the kernel")
        try:
            yield
        finally:
            progress.update(task, description="simulating")
    return compiling


def _kernel_words(ready) -> str:
    """How the kernel was made ready, for the line of games per second (which leaves it out)."""
    cpu, wall, compiled = ready
    return (f"; kernel compiled in {cpu:.1f} s CPU ({wall:.1f} s wall), not counted" if compiled else
            f"; kernel loaded in {wall:.2f} s, not counted")


def cmd_simulate(args) -> int:
    from .sim.simulate import simulate
    if args.games < 1:
        raise RulebookError("-n must be at least 1")
    if args.jobs < 1:
        raise RulebookError(f"--jobs must be at least 1, not {args.jobs}")
    if args.address is not None and args.backend != "dask":
        raise RulebookError("--address is the Dask scheduler's: add --backend dask")
    if args.backend == "dask" and args.trace:
        raise RulebookError("--trace counts steps in one process: drop --backend dask")
    if args.plot:
        from .sim.plots import check_plot_path
        check_writable(args.plot, "--plot", "the plot")
        check_plot_path(args.plot)
    if args.trace:
        check_writable(args.trace, "--trace", "the trace")
    game = _load(args)
    if not game.min_players <= args.players <= game.max_players:
        raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {args.players}")
    speeds = _scheduler(args, args.seed, args.players).speeds
    from .agents.registry import parse_bots
    bots = parse_bots(args.bot, args.players)
    if args.compare or args.compare_option:
        return _simulate_compare(args, game, bots)
    if args.track:
        raise RulebookError("--track compares variables between two rule sets: add --compare B.yaml "
                            "or --compare-option NAME=VALUE")
    if args.backend == "dask" and not args.quiet and args.games > 1:  # a local cluster takes seconds to start
        from .sim.dask_backend import require_dask
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
                          note=note, compiling=compiling)
    if args.fast and result.fast_note:
        err_console.print(_escape(f"--fast: played by the step API instead: {result.fast_note}"))
    # files first: a failure to write them must not come after (or hide) the statistics' output
    notes = []
    if args.trace:
        try:
            Path(args.trace).write_text(json.dumps(trace, indent=1, sort_keys=True) + "\n")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.trace}: {exc.strerror or exc}") from None
        notes.append(f"trace written to {args.trace} (draw it: rulebook diagram {args.spec} --trace {args.trace})")
    if args.plot:
        from .sim.plots import plot_simulation
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
        console.print(f"[bold]{_escape(game.name)}[/bold]: {result.games} games, {args.players} players, "
                      f"seed {args.seed}{timing}")
        kernel = _kernel_words(result.kernel_ready) if result.kernel_ready is not None else ""
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
    from .sim.compare import compare, plot_comparison
    from .spec.loader import load_game
    if args.trace or args.jobs != 1 or args.backend != "process" or args.fast:
        raise RulebookError("--compare runs in one process, through the step API, without --trace: drop "
                            "--jobs/--backend/--trace/--fast")
    changed = parse_options(args.compare_option)
    options_b = dict(parse_options(args.option), **changed)
    game_b = load_game(args.compare or args.spec, options_b)
    if not game_b.min_players <= args.players <= game_b.max_players:
        raise RulebookError(f"{game_b.name} is for {game_b.min_players} to {game_b.max_players} players, "
                            f"not {args.players}")
    label_a = args.spec + "".join(f" {k}={v}" for k, v in parse_options(args.option).items())
    label_b = (args.compare or args.spec) + "".join(f" {k}={v}" for k, v in options_b.items())
    with Progress(TextColumn("[bold]simulating A and B[/bold]"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=err_console, transient=True, disable=args.quiet) as progress:
        task = progress.add_task("games", total=args.games)
        result = compare(game_a, game_b, args.games, args.players, args.seed, bots=bots, track=args.track or (),
                         progress=lambda i: progress.update(task, completed=i))
    if args.plot:
        plot_comparison(result, args.plot, label_a, label_b)
    from .agents.registry import describe
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


# -- test -----------------------------------------------------------------------------------
def cmd_test(args) -> int:
    from .scenario import run_paths
    if args.spec:
        # an edited spec that does not load is one located error, not every scenario "changed"
        if not Path(args.spec).is_file():
            raise RulebookError(f"--spec {args.spec}: no such spec file")
        from .spec.loader import load_game
        load_game(args.spec)
    results = run_paths(args.paths, args.spec)
    failed = [r for r in results if not r.passed]
    if args.spec:
        return _report_variant(args, results, failed)
    for r in results:
        if r.passed:
            if args.verbose:
                console.print(f"[green]PASS[/green] {_escape(r.path)}  [dim]{_escape(r.rule)}[/dim]")
        else:
            console.print(f"[red]FAIL[/red] {_escape(r.path)}  [dim]{_escape(r.rule)}[/dim]")
            for f in r.failures or ["no expectation was checked: add expect"]:
                for line in str(f).splitlines():
                    console.print(f"     {_escape(line)}", soft_wrap=True)
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed")
    return 1 if failed or not results else 0


def _report_variant(args, results, failed) -> int:
    """``test --spec``: which rules an edited spec changes, told apart from scenarios that fail
    with the spec they name too."""
    from .scenario import run_paths
    before = {r.path: r.passed for r in run_paths([r.path for r in failed])} if failed else {}
    changed = [r for r in failed if before.get(r.path)]
    already = [r for r in failed if not before.get(r.path)]
    console.print(f"Scenarios of {_escape(' '.join(args.paths))} against {_escape(args.spec)}:")
    if changed:
        console.print(f"[red]{len(changed)} rule(s) the edit changes[/red] (they pass with the spec they name):")
        for r in changed:
            console.print(f"  [red]CHANGED[/red] {_escape(r.rule or r.path)}  [dim]{_escape(r.path)}[/dim]")
            # which expectation the edit changes: its first lines always, all of it with -v
            for f in r.failures:
                lines = str(f).splitlines()
                for line in lines if args.verbose else lines[:3]:
                    console.print(f"     {_escape(line)}", soft_wrap=True)
                if len(lines) > 3 and not args.verbose:
                    console.print("     [dim]… (-v shows all)[/dim]")
    for r in already:
        console.print(f"  [yellow]FAILS ALSO WITHOUT THE EDIT[/yellow] {_escape(r.rule or r.path)}  [dim]{_escape(r.path)}[/dim]")
    console.print(f"{len(results) - len(failed)} passed, {len(failed)} failed"
                  f" ({len(changed)} changed by the edit)")
    return 1 if failed or not results else 0


# -- replay ---------------------------------------------------------------------------------
def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def read_game_log(path) -> dict:
    """Read and check a game log written by ``play --save``; raises RulebookError naming the
    file and what is missing or malformed."""
    hint = "\n    hint: a game log is the JSON file written by rulebook play --save"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise RulebookError(f"{path}: cannot read the game log: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise RulebookError(f"{path}: not a game log (not text){hint}") from None
    from .model.saved import SaveError, loads
    try:
        data = loads(text, "the game log")
    except SaveError as exc:
        raise RulebookError(f"{path}: not a game log: {exc}{hint}") from None
    if not isinstance(data, dict):
        raise RulebookError(f"{path}: not a game log: the JSON is a {type(data).__name__}, not an object{hint}")
    missing = [k for k in ("spec", "num_players", "seed", "history") if k not in data]
    if missing:
        raise RulebookError(f"{path}: not a game log: missing " + ", ".join(repr(k) for k in missing) + hint)
    if not isinstance(data["spec"], str) or not data["spec"]:
        raise RulebookError(f"{path}: \"spec\" must be the path of the spec, not {data['spec']!r}")
    for key in ("num_players", "seed"):
        if not _is_int(data[key]):
            raise RulebookError(f"{path}: {key!r} must be a whole number, not {data[key]!r}")
    if data.get("fingerprint") is not None and not isinstance(data["fingerprint"], str):
        raise RulebookError(f"{path}: \"fingerprint\" must be a text, not {data['fingerprint']!r}")
    if data.get("options") is not None and not isinstance(data["options"], dict):
        raise RulebookError(f"{path}: \"options\" must be an object {{name: value}}, not {data['options']!r}")
    names = data.get("player_names")
    if names is not None and not (isinstance(names, list) and len(names) == data["num_players"]
                                  and all(isinstance(x, str) for x in names)):
        raise RulebookError(f"{path}: \"player_names\" must be a list of {data['num_players']} names, not {names!r}")
    history = data["history"]
    if not isinstance(history, list):
        raise RulebookError(f"{path}: \"history\" must be a list of [seat, action] entries, not {history!r}")
    for i, entry in enumerate(history):
        if not (isinstance(entry, list) and len(entry) == 2 and _is_int(entry[0]) and isinstance(entry[1], str)):
            raise RulebookError(f"{path}: history entry {i} ({json.dumps(entry)}): not a [seat, action text] pair, "
                                "e.g. [0, \"bid 1\"]")
    return data


def cmd_replay(args) -> int:
    """Replay a saved game (JSON from ``--save``) and print it as play did."""
    from .spec.loader import load_game
    data = read_game_log(args.log)
    spec = args.spec or data["spec"]
    try:
        found = Path(spec).is_file()
    except (OSError, ValueError):  # a path too long or with a NUL byte names no file
        found = False
    if not found:
        where = "given by --spec" if args.spec else f"named in {args.log}"
        raise RulebookError(f"the spec {spec} ({where}) does not exist from here\n"
                            "    hint: run replay from the folder the game was played in, or give --spec PATH")
    game = load_game(spec, data.get("options") or {})
    saved_options = data.get("options")
    if saved_options is not None and saved_options != game.options:
        raise RulebookError(f"{args.log}: the game was played with the options {saved_options}, which this spec "
                            f"reads as {game.options}\n    hint: the spec's options have changed since")
    saved_print = data.get("fingerprint")
    if saved_print is not None and saved_print != game.fingerprint and not args.any_spec:
        raise RulebookError(f"{args.log}: the spec {spec} has changed since this game was played (its "
                            "fingerprint differs), so the replay would be another game\n    hint: replay it "
                            "with the spec it was played with, or add --any-spec to replay it anyway")
    from .model.saved import log_digest
    edited = data.get("digest") is not None and data["digest"] != log_digest(data)  # old logs have none
    if edited:
        err_console.print(f"[yellow]warning: {_escape(args.log)} was changed after it was written (its digest "
                          "does not match its spec, options, seed, players, actions or scores): the replay "
                          "below follows the file as it is now, not necessarily the game that was played"
                          "[/yellow]", soft_wrap=True)
    n, seed = data["num_players"], data["seed"]
    seat = args.seat
    if seat is not None and not 0 <= seat < n:
        raise RulebookError(f"--seat {seat}: seats are 0..{n - 1}")
    if args.export and seat is None:
        raise RulebookError("--export writes what one seat may know: give --seat N too")
    if args.export:
        check_writable(args.export, "--export", "the seat's view")
    state = game.new_state(n, seed, player_names=data.get("player_names"), events=[])
    # the full record shows the seed and every private line; a seat's view shows neither
    print_header(game, n, seed if seat is None else None, hidden="seed not shown: it gives every hand")
    if seat is not None:
        console.print(f"[dim]as {_escape(state.player_name(seat))} saw it[/dim]")
    _flush(state, game, seat, full=seat is None)
    for i, (actor, text) in enumerate(data["history"]):
        try:
            state.apply(text, actor)
        except IllegalAction as exc:
            raise RulebookError(f"{args.log}: history entry {i} ({json.dumps([actor, text])}): {exc.reason}\n"
                                "    hint: the log does not match the spec, its options or the seed "
                                "(was it edited, or the spec changed since?)") from None
        _flush(state, game, seat, full=seat is None)
    if state.is_terminal():
        print_result(state, game)
        saved = data.get("scores")
        if saved is not None and saved != state.scores():
            err_console.print(f"[yellow]warning: {_escape(args.log)} saved the scores {_escape(str(saved))}, the replay gives "
                              f"{state.scores()}{'' if edited else ' (has the spec changed?)'}[/yellow]")
    else:
        who = ", ".join(state.player_name(p) for p in state.current_players())
        console.rule("[bold]Unfinished[/bold]")
        console.print(f"the game is unfinished: the log stops after {len(data['history'])} action(s); "
                      f"next to decide: {_escape(who)}")
    if args.export:
        try:
            Path(args.export).write_text(json.dumps(state.export(seat), indent=1) + "\n")
        except OSError as exc:
            raise RulebookError(f"cannot write {args.export}: {exc.strerror or exc}") from None
        console.print(f"[dim]what {_escape(state.player_name(seat))} may know written to {_escape(args.export)} "
                      "(no seed, no hidden card, no private choice of another player)[/dim]")
    return 0


def cmd_serve(args) -> int:
    """``rulebook serve``: the web table (:mod:`interpreter.web`) with uvicorn."""
    try:
        import uvicorn

        from .web.app import create_app
    except ImportError as exc:
        raise RulebookError(f"rulebook serve needs the web extra ({exc.name} is missing)\n"
                            "    hint: pip install -e '.[web]'") from None
    if args.bot_delay < 0 or args.realtime_delay < 0:
        raise RulebookError("--bot-delay and --realtime-delay are seconds, 0 or more")
    if not args.backup_every > 0 or args.backup_keep < 1:
        raise RulebookError("--backup-every is minutes, more than 0; --backup-keep is 1 or more")
    app = create_app(args.specs, args.db, args.bot_delay, args.realtime_delay, seed=args.seed,
                     backup_dir=args.backup, backup_every=args.backup_every * 60, backup_keep=args.backup_keep)
    where = f"http://{'localhost' if args.host in ('127.0.0.1', '::1') else args.host}:{args.port}/"
    console.print(f"Rulebook web table: open {where} (games kept in {_escape(args.db)})")
    if args.host in ("127.0.0.1", "localhost", "::1"):
        console.print("[dim]Listening on this computer only. To let others join: --host 0.0.0.0 on a trusted "
                      "network, or a reverse proxy (HTTPS, WebSockets passed on) in front of it; see docs/web.md.[/dim]")
    else:
        console.print("[yellow]Listening on every network interface: anyone who can reach this port can create "
                      "games; seat links are the only protection of a seat.[/yellow]")
    if args.backup:
        console.print(f"[dim]backups every {args.backup_every:g} min in {_escape(args.backup)} (the newest "
                      f"{args.backup_keep} kept)[/dim]")
    uvicorn.run(app, host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_games(args) -> int:
    """``rulebook games export|import``: a server's games as JSON (spec, options, seed, seats and
    their links, actions), to rebuild a damaged database from its last backup plus an export."""
    try:
        from .web.store import Store, sqlite_file
    except ImportError as exc:
        raise RulebookError(f"rulebook games needs the web extra ({exc.name} is missing)\n"
                            "    hint: pip install -e '.[web]'") from None
    if args.action == "export":
        if args.file != "-":
            check_writable(args.file, "export", "the games")
        db_file = sqlite_file(args.db)
        if db_file is not None and not db_file.is_file():
            raise RulebookError(f"{db_file}: there is no game database here to export\n    hint: give the --db "
                                "that rulebook serve was given")
        store = Store(args.db, check=False)  # a damaged database is read as far as it goes
        try:
            games, problems = store.export_games()
        finally:
            store.close()
        text = json.dumps({"rulebook_games": 1, "games": games}, indent=1) + "\n"
        if args.file == "-":
            sys.stdout.write(text)
        else:
            Path(args.file).write_text(text, encoding="utf-8")
            console.print(f"{len(games)} game(s) written to {_escape(args.file)} (it holds seeds and seat links: "
                          "keep it private)")
        for problem in problems:
            err_console.print(f"[red]{_escape(problem)}[/red]", soft_wrap=True)
        return 1 if problems else 0
    try:
        data = json.loads(Path(args.file).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulebookError(f"cannot read {args.file}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise RulebookError(f"{args.file}: not JSON ({exc})\n    hint: give a file written by "
                            "`rulebook games export`") from None
    if not (isinstance(data, dict) and isinstance(data.get("games"), list)):
        raise RulebookError(f"{args.file}: not a `rulebook games export` file (no \"games\" list)")
    store = Store(args.db)
    try:
        out = store.import_games(data["games"], args.file)
    finally:
        store.close()
    console.print(f"{out['added']} game(s) added, {out['extended']} given the moves made since, "
                  f"{out['unchanged']} already there")
    for conflict in out["conflicts"]:
        err_console.print(f"[yellow]{_escape(conflict)}[/yellow]", soft_wrap=True)
    return 1 if out["conflicts"] else 0


def cmd_lsp(args) -> int:
    """``rulebook lsp``: the language server over stdio (:mod:`interpreter.lsp.server`)."""
    try:
        from .lsp.server import main as serve_lsp
    except ImportError as exc:
        raise RulebookError(f"rulebook lsp needs pygls and lsprotocol ({exc})\n"
                            "    hint: pip install -e '.[lsp]'") from None
    return serve_lsp()


def cmd_new(args) -> int:
    """``rulebook new NAME``: a starter spec and its scenario folder (:mod:`interpreter.starter`)."""
    from .starter import write_starter
    spec, scenario = write_starter(args.name)
    console.print(f"wrote {_escape(str(spec))} and {_escape(str(scenario))}\n"
                  f"next: rulebook validate {_escape(str(spec))}; rulebook test {_escape(str(scenario.parent))}; "
                  f"rulebook play {_escape(str(spec))} -p 3 --human 0")
    return 0


def _add_schedule_args(p) -> None:
    from .agents.schedule import SCHEDULES
    p.add_argument("--schedule", choices=SCHEDULES, default="round-robin",
                   help="who acts first in real-time play: the next seat clockwise (default) or a random one")
    p.add_argument("--speed", action="append", metavar="SEAT=SPEED",
                   help="reaction speed of a seat in real-time play (default 1.0; 2.0 acts twice as often); "
                        "repeatable, e.g. --speed 0=2.0 --speed 1=0.5")


# every command's name (a test checks it against the parser): when argv names one, the others are
# left out of the parser altogether
CORE_COMMANDS = ("validate", "play", "simulate", "test", "replay", "schema", "serve", "games", "lsp", "new")  # declared here
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


def build_parser(argv=None) -> argparse.ArgumentParser:
    """The ``rulebook`` argument parser. With ``argv`` (the arguments to parse), only the command
    they name gets its arguments declared; without, every command does."""
    p = argparse.ArgumentParser(prog="rulebook", description="Run card games from their rules (YAML specs).")
    subparsers = p.add_subparsers(dest="command", required=True)
    # the command: the first argument not an option (no top-level option takes a value); when it
    # names no command, argparse says so and lists them
    sub = _Commands(subparsers, next((a for a in argv or () if not a.startswith("-")), None))

    v = sub.add_parser("validate", help="check specs; every problem as file:line:col")
    v.add_argument("specs", nargs="+")
    v.add_argument("--strict", action="store_true", help="treat warnings as errors")
    v.add_argument("--option", action="append", metavar="KEY=VALUE")
    v.set_defaults(func=cmd_validate)

    pl = sub.add_parser("play", help="play a game in the terminal (humans and bots: random, greedy, ismcts)")
    pl.add_argument("spec")
    pl.add_argument("--players", "-p", type=int, required=True)
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
    pl.add_argument("--bot", action="append", metavar="SEAT=KIND[:BUDGET]", help=BOT_HELP)
    pl.set_defaults(func=cmd_play)

    s = sub.add_parser("simulate", help="many games between bots (random unless --bot), with statistics")
    s.add_argument("spec")
    s.add_argument("-n", "--games", type=int, default=100)
    s.add_argument("--players", "-p", type=int, required=True)
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
                   "'.[fast]'): the same games, much faster; random bots only; a spec that does not type "
                   "runs as usual and you are told why")
    _add_schedule_args(s)
    s.set_defaults(func=cmd_simulate)

    t = sub.add_parser("test", help="run rule scenario files")
    t.add_argument("paths", nargs="+")
    t.add_argument("-v", "--verbose", action="store_true")
    t.add_argument("--spec", metavar="SPEC.yaml", help="run the scenarios against this spec (an edited copy) "
                   "and say which rules the edit changes")
    t.set_defaults(func=cmd_test)

    r = sub.add_parser("replay", help="replay a game saved by `play --save` and print it")
    r.add_argument("log")
    r.add_argument("--spec", help="the spec, if not the one named in the log")
    r.add_argument("--any-spec", action="store_true",
                   help="replay even if the spec's text has changed since the game was played")
    r.add_argument("--seat", type=int, metavar="N", help="show the game as seat N saw it (no seed, no other "
                   "player's hand or private choice); default: the full record")
    r.add_argument("--export", metavar="FILE.json", help="with --seat: write what that seat may know "
                   "(State.export) as JSON")
    r.set_defaults(func=cmd_replay)

    sc = sub.add_parser("schema", help="print the JSON Schema of a spec (or of a scenario file)",
                        description="Print the JSON Schema that validate checks specs against, for "
                                    "editors: save it and point your YAML extension at it, or use the "
                                    "modeline '# yaml-language-server: $schema=...' at the top of a spec.")
    sc.add_argument("--scenario", action="store_true", help="the schema of rule scenario files instead")
    sc.add_argument("--path", action="store_true", help="print where the schema file is instead of its text")
    sc.set_defaults(func=cmd_schema)

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
    sv.set_defaults(func=cmd_serve)

    gm = sub.add_parser("games", help="export a web table's games as JSON, or import them (to rebuild a database)",
                        description="rulebook games export FILE.json: every game of --db (spec, options, seed, "
                                    "seats and their links, actions; read as far as it goes from a damaged "
                                    "database). rulebook games import FILE.json: add them to --db (a restored "
                                    "backup gets the games and moves made since).")
    gm.add_argument("action", choices=["export", "import"])
    gm.add_argument("file", metavar="FILE.json", help="the export file ('-' exports to standard output)")
    gm.add_argument("--db", default="sqlite:///rulebook-games.db", metavar="URL",
                    help="the database, as given to rulebook serve (default sqlite:///rulebook-games.db)")
    gm.set_defaults(func=cmd_games)

    ls = sub.add_parser("lsp", help="a language server for editors (stdio): spec and scenario files checked "
                        "as you type, completion, hover, rename (pip install -e '.[lsp]'; docs/editors.md)")
    ls.set_defaults(func=cmd_lsp)

    nw = sub.add_parser("new", help="write a starter spec NAME.yaml and scenarios/NAME/ with one rule scenario")
    nw.add_argument("name", metavar="NAME", help="the game's file name without .yaml (may include folders)")
    nw.set_defaults(func=cmd_new)

    if sub.wanted not in CORE_COMMANDS:
        try:
            from .analysis.cli import add_analysis_commands
        except ImportError:
            pass
        else:
            add_analysis_commands(sub)
    return p


def main(argv=None) -> int:
    """Entry point of the ``rulebook`` command; returns the exit status."""
    if argv is None:
        argv = sys.argv[1:]
    args = build_parser(argv).parse_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
