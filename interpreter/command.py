"""The ``rulebook`` command's entry point (``python -m interpreter`` too).

Start-up makes long-lived objects only: modules, then the game the command loads. Python's cycle
collector would go through each of them several times for nothing (about 15% of a one-game
``rulebook simulate``), so it is off while the command's modules import, and they are then set
aside from it (``gc.freeze``); so is the game, once loaded (``interpreter.commands.SETTLE_LOADED_GAME``).
Only this process-wide entry does so: ``interpreter.cli.main`` called from a program leaves the
collector alone.
"""
import gc


def main(argv=None) -> int:
    """Run the ``rulebook`` command with ``argv`` (default ``sys.argv[1:]``); returns its exit status."""
    gc.disable()
    try:
        from . import cli, commands
    finally:
        gc.freeze()
        gc.enable()
    commands.SETTLE_LOADED_GAME = True
    return cli.main(argv)
