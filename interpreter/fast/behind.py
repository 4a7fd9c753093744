"""A spec's kernel compiled in another process while a run's first games play on the bytecode
machine (or the step API); the step API's module likewise, while its first states play on the machine.

The first ``simulate --fast`` run of a spec waits for numba to compile its kernel (from about 5 s
to over a minute of CPU, as the spec grows: see the README). Nothing obliges it to wait: the
bytecode machine (:mod:`interpreter.fast.vm`, compiled once for every spec) plays the kernel's own
games, and the kernel the step API's, seed by seed (the same-games tests), so the run can play its
first games on the machine (on the step API when the machine cannot run the spec) while a child
process compiles the kernel into numba's on-disk cache,
then load the kernel from that cache (under a second) and play the rest of the games in it. The
statistics are those of a run played by either alone. A run that ends before the compile stops the
child: a short run never waits for a compile it does not need (and leaves nothing half-written:
numba writes each cache file whole, by renaming).

The child runs :mod:`interpreter.fast.compilechild` as ``__main__`` in a fresh interpreter (no lock held by this
process's threads, such as a progress line's, is inherited, and no script is imported again, as
multiprocessing's ``spawn`` would). It reads the Game (pickled: its spec text and options) and the
kernel module's text as this process wrote it (so both import the same module file and share its cache) from its
standard input, writes one line with the outcome to its standard output, and exits when its
standard input closes: when this process ends, however it ends, the child does not outlive it.
"""
from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path

MARK = "rulebook-compile-behind "  # the outcome's line (anything else the child prints is passed over)


class CompileBehind:
    """The compile of ``kernel`` (a :class:`~interpreter.fast.kernel.Kernel` numba has not compiled
    yet; with ``form="steps"`` a :class:`~interpreter.fast.steps.StepKernel`'s module, with ``form="search"``
    a :class:`~interpreter.fast.search.SearchKernel`'s) running in a
    child process, which puts its machine code in the cache folder ``cache``
    (``None``: caching off, the kernels' temporary folder). :meth:`done` tells whether the child
    has told its outcome; :meth:`outcome` gives its ``(CPU s, wall s, True)`` (the figures of
    ``Kernel.ready``) or None, the reason then in :attr:`failure`; :meth:`stop` ends it. Use it as
    a context manager: leaving stops the child if it is still running.

    Raises OSError when the child cannot be started."""

    def __init__(self, game, kernel, cache, form: str = "run"):
        # the child imports this process's package, first on its path: not a folder or module of the
        # working directory that happens to be called `interpreter` (`-m` would put it first)
        root = str(Path(__file__).resolve().parents[2])
        # (the child compiles, it does not play: no machine there, nor a compile of its own behind)
        env = dict(os.environ, RULEBOOK_CACHE=str(cache) if cache is not None else "off", RULEBOOK_MACHINE="off")
        start = (f"import sys; sys.path.insert(0, {root!r}); "
                 "import runpy; runpy.run_module('interpreter.fast.compilechild', run_name='__main__')")
        self._proc = subprocess.Popen([sys.executable, "-c", start], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, env=env)
        self._told = None
        self.failure = ""
        self._reader = threading.Thread(target=self._read, name="rulebook compile-behind reader", daemon=True)
        self._reader.start()
        try:
            # (a Game pickles as its spec text and options: the child compiles the game this one has)
            pickle.dump((game, kernel.source, kernel.info, form), self._proc.stdin)
            self._proc.stdin.flush()
        except OSError:
            pass  # (the child is gone already: its outcome says so)

    def _read(self) -> None:
        """The reader thread: the child's outcome line, kept in ``_told``."""
        for line in self._proc.stdout:
            text = line.decode("utf-8", "replace")
            if text.startswith(MARK):
                self._told = tuple(json.loads(text[len(MARK):]))
                self._proc.wait()  # (it exits next: reaped here, not left a zombie until stop())
                return
        code = self._proc.wait()
        how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        self._told = ("failed", f"the compiling process ended without a word ({how})")

    def done(self) -> bool:
        """Whether the child has told its outcome (its cache files are written by then: it need
        not have exited) or has ended."""
        return self._told is not None

    def wait(self) -> None:
        """Wait until the child has told its outcome (or ended)."""
        self._reader.join()

    def outcome(self):
        """``(CPU s, wall s, True)`` of the child's compile once it is done, else None (still
        running, or failed: :attr:`failure` says why)."""
        if self._told is None:
            return None
        if self._told[0] != "ready":
            self.failure = str(self._told[1])
            return None
        return tuple(self._told[1])

    def stop(self) -> None:
        """End the child if it is still compiling (or tearing down), and wait for it."""
        if self._proc.poll() is None:
            self._proc.terminate()
        try:
            self._proc.stdin.close()
        except OSError:
            pass
        self._proc.wait()
        self._reader.join(timeout=5)
        self._proc.stdout.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


_COMPILING: dict = {}  # (form, module text) -> the CompileBehind compiling it (one, whatever the Games)


def on_the_machine(game, source: str, make, form: str):
    """``make()``, a kernel of the module ``source`` on the bytecode machine, with its ``behind`` set
    to that module's compile in another process (``form`` as :class:`CompileBehind`'s; one process
    per text and form, started unless one is under way); None when the machine is off
    (``RULEBOOK_MACHINE``), cannot run the module (``make`` raises NotTyped) or no process starts."""
    from . import vm
    from ..cache import cache_dir
    from .lowtypes import NotTyped
    if not vm.enabled():
        return None
    try:
        early = make()
    except NotTyped:
        return None
    behind = _COMPILING.get((form, source))
    if behind is None:
        try:
            behind = _COMPILING[(form, source)] = CompileBehind(game, early, cache_dir(), form=form)
        except OSError:
            return None
    early.behind = behind
    return early


def compile_over(early, form: str, wait: bool) -> bool:
    """Whether the compile behind ``early`` (a kernel :func:`on_the_machine` gave) is over: done, or,
    with ``wait``, waited for. Its process is then stopped and forgotten, and the caller loads the
    compiled module (from the cache; if the compile failed, the module compiles there)."""
    behind = early.behind
    if not (wait or behind.done()):
        return False
    behind.wait()
    behind.stop()
    _COMPILING.pop((form, early.source), None)
    return True

