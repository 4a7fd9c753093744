"""``rulebook replay``: a game saved by ``play --save``, as the record or as one seat saw it."""
from __future__ import annotations

import json
from pathlib import Path

from ..errors import IllegalAction, RulebookError
from . import _escape, check_writable, console, err_console, print_header, print_result, set_max_actions
from .play import _flush


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
    from ..model.saved import SaveError, loads
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
    from ..spec.loader import load_game
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
    game = set_max_actions(load_game(spec, data.get("options") or {}), args)
    saved_options = data.get("options")
    if saved_options is not None and saved_options != game.options:
        raise RulebookError(f"{args.log}: the game was played with the options {saved_options}, which this spec "
                            f"reads as {game.options}\n    hint: the spec's options have changed since")
    saved_print = data.get("fingerprint")
    if saved_print is not None and saved_print != game.fingerprint and not args.any_spec:
        raise RulebookError(f"{args.log}: the spec {spec} has changed since this game was played (its "
                            "fingerprint differs), so the replay would be another game\n    hint: replay it "
                            "with the spec it was played with, or add --any-spec to replay it anyway")
    from ..model.saved import log_digest
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
