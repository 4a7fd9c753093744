"""``rulebook serve``, ``games`` and ``lsp``: the web table, its games' export/import, the language server."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import RulebookError
from . import _escape, check_writable, console, err_console


def cmd_serve(args) -> int:
    """``rulebook serve``: the web table (:mod:`interpreter.web`) with uvicorn."""
    try:
        import uvicorn

        from ..web.app import create_app
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
        from ..web.store import Store, sqlite_file
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
        from ..lsp.server import main as serve_lsp
    except ImportError as exc:
        raise RulebookError(f"rulebook lsp needs pygls and lsprotocol ({exc})\n"
                            "    hint: pip install -e '.[lsp]'") from None
    return serve_lsp()
