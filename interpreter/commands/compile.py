"""``rulebook compile``: the kernels' machine code compiled ahead (:mod:`interpreter.fast.prepare`)."""
from __future__ import annotations

import os
from contextlib import nullcontext

from ..errors import RulebookError
from . import _escape, _load, console, err_console


def _status(text: str):
    """A status line on standard error while a part compiles (nothing when it is no terminal)."""
    return err_console.status(text) if err_console.is_terminal else nullcontext()


def _made_ready(name: str, part, otherwise: str = "") -> bool:
    """Make one part ready under a status line and print a line saying what it cost; returns whether
    it is ready (else the line says why: the spec, or its module on the machine, does not type, or
    the folder cannot be written; ``otherwise`` is said after the reason). Raises RulebookError for a
    position the spec cannot start (told before any compile by :func:`cmd_compile`)."""
    from ..fast.prepare import NotTyped, made_ready
    try:
        with _status(f"compiling {name} (or loading it from the cache)"):
            ready = made_ready(part)
    except NotTyped as exc:
        console.print(f"  {name:<40} [yellow]not compiled: {_escape(str(exc))}{otherwise}[/yellow]")
        return False
    if ready.compiled:
        console.print(f"  {name:<40} compiled in {ready.cpu:.1f} s CPU ({ready.wall:.1f} s wall)")
    else:
        console.print(f"  {name:<40} in the cache already (loaded in {ready.cpu:.1f} s CPU)")
    return True


def _cache_words(folder) -> str:
    """Where the machine code goes, and why there when it is not the cache folder asked for."""
    from ..cache import cache_dir
    asked = os.environ.get("RULEBOOK_CACHE", "")
    base = cache_dir()
    if base is not None and folder.parent == base:
        return f"kernel cache: {folder}" + ("" if asked else " (RULEBOOK_CACHE=FOLDER puts it elsewhere)")
    if asked.lower() in ("off", "0", "no", "false"):
        why = "the cache is off (RULEBOOK_CACHE=off), but numba needs a folder for the kernels' modules"
    elif base is None:
        why = (f"RULEBOOK_CACHE={asked} is not a folder this user can write" if asked else
               "the user's cache folder (~/.cache/rulebook) cannot be written")
    else:
        why = f"{base / 'kernels'} cannot be written"
    return (f"kernel cache: {folder} ({why}: a temporary folder, which a restart may clear; set RULEBOOK_CACHE "
            f"to a folder you can write to keep the machine code)")


def cmd_compile(args) -> int:
    """``rulebook compile [SPEC ...]``: the bytecode machine (once per cache folder: every spec's first
    ``--fast`` games, step API states and search decisions play on it), then each spec's own kernels.
    Every spec is loaded first (a mistake in one is told before any compile). Exit status 1 when a part
    could not be compiled (its line says why), else 0. Raises RulebookError when numba is missing, or
    for ``--option``/``--players`` without a spec."""
    from ..fast.kernel import unavailable
    if (missing := unavailable()) is not None:
        raise RulebookError(f"rulebook compile needs the fast extra: {missing}")
    if not args.specs and (args.option or args.players is not None):
        raise RulebookError("--option and --players apply to the specs given: name them, e.g. rulebook compile "
                            "my_game.yaml --option KEY=VALUE")
    games = []
    for spec in args.specs:  # (every mistake before any compile: the spec, its options at that player count)
        args.spec = spec
        game = _load(args)
        n = args.players if args.players is not None else game.min_players
        if not game.min_players <= n <= game.max_players:
            raise RulebookError(f"{game.name} is for {game.min_players} to {game.max_players} players, not {n}")
        game.new_state(n, seed=0)
        games.append((spec, game, n))
    from ..fast.prepare import cache_folder, machine_parts, spec_parts
    from ..fast.vm import enabled
    console.print(_cache_words(cache_folder()))
    ready = True
    if enabled():
        from ..spec.loader import load_game
        from ..starter import TEMPLATES
        console.print("the bytecode machine, once for every spec:")
        for name, part in machine_parts(load_game(TEMPLATES / "game.yaml")):
            ready &= _made_ready(name, part)
    else:
        console.print("the bytecode machine is off (RULEBOOK_MACHINE=off): not compiled")
    for spec, game, n in games:
        console.print(f"{_escape(spec)} (its kernels serve every player count and option value):")
        for name, part in spec_parts(game, n):
            ready &= _made_ready(name, part, "; the spec plays on the step API instead")
    if ready and not games and enabled():
        console.print("A spec's first simulate --fast games, step API states and search decisions now play on the "
                      "bytecode machine at once, while its own kernel compiles in another process "
                      "(rulebook compile SPEC compiles a spec's kernels now).")
    return 0 if ready else 1
