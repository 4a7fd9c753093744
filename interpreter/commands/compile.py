"""``rulebook compile``: the kernels' machine code compiled ahead (:mod:`interpreter.fast.prepare`)."""
from __future__ import annotations

from contextlib import nullcontext

from ..errors import RulebookError
from . import _escape, _load, console, err_console


def _status(text: str):
    """A status line on standard error while a part compiles (nothing when it is no terminal)."""
    return err_console.status(text) if err_console.is_terminal else nullcontext()


def _made_ready(name: str, part) -> str | None:
    """Make one part ready under a status line and print a line saying what it cost; returns why it
    could not be made ready (the spec does not type for it), or None."""
    from ..fast.prepare import NotTyped, made_ready
    try:
        with _status(f"compiling {name} (or loading it from the cache)"):
            ready = made_ready(part)
    except (NotTyped, RulebookError) as exc:
        console.print(f"  {name:<44} [yellow]not compiled: {_escape(str(exc))}[/yellow]")
        return str(exc)
    if ready.compiled:
        console.print(f"  {name:<44} compiled in {ready.cpu:.1f} s CPU ({ready.wall:.1f} s wall)")
    else:
        console.print(f"  {name:<44} nothing to compile (ready in {ready.cpu:.1f} s CPU)")
    return None


def cmd_compile(args) -> int:
    """``rulebook compile [SPEC ...]``: the bytecode machine (once per installation: every spec's first
    ``--fast`` games, step API states and search decisions play on it), then each spec's own kernels.
    Exit status 1 when a spec's kernel could not be compiled (the line says why: it then plays on the
    step API), else 0. Raises RulebookError when numba is missing."""
    from ..fast.kernel import unavailable
    if (missing := unavailable()) is not None:
        raise RulebookError(f"rulebook compile needs the fast extra: {missing}")
    from ..fast.prepare import cache_folder, machine_parts, spec_parts
    from ..starter import TEMPLATES
    from ..spec.loader import load_game
    console.print(f"kernel cache: {cache_folder()} (RULEBOOK_CACHE moves it)")
    from ..fast.vm import enabled
    failed = False
    if enabled():
        console.print("the bytecode machine, once for every spec:")
        for name, part in machine_parts(load_game(TEMPLATES / "game.yaml")):
            failed |= _made_ready(name, part) is not None
    else:
        console.print("the bytecode machine is off (RULEBOOK_MACHINE=off): not compiled")
    for spec in args.specs:
        args.spec = spec
        game = _load(args)
        console.print(f"{_escape(spec)}:")
        for name, part in spec_parts(game):
            failed |= _made_ready(name, part) is not None
    if not args.specs and enabled():
        console.print("A spec's first simulate --fast games, step API states and search decisions now play on the "
                      "bytecode machine at once, while its own kernel compiles in another process "
                      "(rulebook compile SPEC compiles a spec's kernels now).")
    return 1 if failed else 0
