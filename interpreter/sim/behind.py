"""A spec's kernel compiled in another process while a run's first games play on the step API.

The first ``simulate --fast`` run of a spec waits for numba to compile its kernel (Oh Hell about
5 s of CPU, Skull King 16 s, board Ligretto 80 s). Nothing obliges it to wait: the kernel plays the
same games as the step API, seed by seed (the kernel's same-games tests), so the run can play its
first games on the step API while a child process compiles the kernel into numba's on-disk cache,
then load the kernel from that cache (under a second) and play the rest of the games in it. The
statistics are those of a run played by either alone. A run that ends before the compile stops the
child: a short run never waits for a compile it does not need (and leaves nothing half-written:
numba writes each cache file whole, by renaming).

The child is a fresh interpreter (``spawn``: no lock held by this process's threads, such as a
progress line's, is inherited). It is sent the spec's text, its options and the kernel module's
text as this process wrote it, so both import the same module file and share its cache.
"""
from __future__ import annotations

import multiprocessing


def _compile(conn, file: str, text: str, options: dict, source: str, info: dict) -> None:
    """The child: the kernel of the spec ``text`` (module ``source``, layout ``info``) made ready,
    numba writing its machine code to the cache; sends ``("ready", (CPU s, wall s, compiled))``
    or ``("failed", reason)``."""
    try:
        from ..fast.kernel import Kernel, load_module
        from ..spec.loader import load_game_text
        game = load_game_text(text, file, options)
        module, _ = load_module(source, "rulebook_kernel")
        conn.send(("ready", Kernel(game, source, info, module).ready()))
    except BaseException as exc:  # noqa: BLE001 (told to the parent, which compiles for itself)
        conn.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


class CompileBehind:
    """The compile of ``kernel`` (a :class:`~interpreter.fast.kernel.Kernel` numba has not compiled
    yet) running in a child process. :meth:`done` tells whether the child has finished;
    :meth:`outcome` gives its ``(CPU s, wall s, True)`` (the figures of ``Kernel.ready``) or None
    when it failed (the parent then compiles as it would have); :meth:`stop` ends it. Use it as a
    context manager: leaving stops the child if it is still running.

    Raises OSError when the child cannot be started."""

    def __init__(self, game, text: str, kernel):
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_end = ctx.Pipe(duplex=False)
        self._proc = ctx.Process(target=_compile, name="rulebook kernel compile", daemon=True,
                                 args=(child_end, game.file, text, dict(game.options or {}), kernel.source,
                                       kernel.info))
        self._proc.start()
        child_end.close()
        self._told = None

    def done(self) -> bool:
        """Whether the child has told its outcome (its cache files are written by then: it need
        not have exited, tearing down a large compile takes a while) or has ended."""
        return self._told is not None or self._conn.poll() or not self._proc.is_alive()

    def outcome(self):
        """``(CPU s, wall s, True)`` of the child's compile once it is done, else None (still
        running, failed, or stopped)."""
        if self._told is None and self.done():
            try:
                self._told = self._conn.recv() if self._conn.poll() else ("failed", "the compile was stopped")
            except (EOFError, OSError):
                self._told = ("failed", "the compiling process ended without a word")
        return self._told[1] if self._told is not None and self._told[0] == "ready" else None

    def stop(self) -> None:
        """End the child if it is still compiling (or tearing down), and wait for it."""
        if self._proc.is_alive():
            self._proc.terminate()
        self._proc.join()
        self._conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()
