"""``rulebook play``: a game in the terminal, humans and bots, hot seat, real-time blocks, --save."""
from __future__ import annotations

import json
from pathlib import Path

from rich.table import Table

from ..errors import IllegalAction, RulebookError
from . import (
    MAX_SHOWN_ACTIONS, _card_name, _card_text, _cell_text, _escape, _last_table, _load, _players, _print_table,
    _scheduler, _show_seed, check_writable, console, err_console, print_header, print_result, seat_names)


def cmd_play(args) -> int:
    import secrets

    from ..agents.basic import step
    from ..agents.registry import bots_for, parse_bots
    from ..agents.search import ready_kernel_search
    if args.save:
        check_writable(args.save, "--save", "the game log")
    game = _load(args)
    n = _players(args, game)  # said before the game starts, as simulate does
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
        from ..view import event_for
        for ev in events:
            shown = event_for(None, ev, None) if ev.get("kind") == "log" else None
            if shown is not None:
                console.print(_escape(shown["text"]))
        _show_seed(seed)  # the game ends here: the seed shows it again
        raise
    agents = bots_for(seed, n, kinds)
    for agent in dict.fromkeys(agents):
        agent.reset()
    ready = ready_kernel_search(agents, game, n, compiling=lambda _: console.status(
        "making the bots' search ready (a spec's first searches run on the bytecode machine while another process "
        "compiles its search, cached after)"))
    if ready and ready[2]:
        console.print(f"[dim]the bots' search compiled in {ready[0]:.1f} s CPU ({ready[1]:.1f} s wall)[/dim]")
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
        from ..view import event_for
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
    from ..view import sanitize
    return sanitize(text)


_WAIT = object()  # a human let their moment in a real-time block pass


def save_game(path, spec, game, state) -> None:
    """Write what replays the game exactly: spec, options, players, seed and actions (JSON).
    A game not yet over is saved too: it replays to the position reached."""
    from ..model.saved import log_digest
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
    from ..view import event_for
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
    from ..engine.context import Ctx
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
        from ..engine.run import _pending_instr
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
