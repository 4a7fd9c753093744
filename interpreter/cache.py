"""A private per-user cache of work that depends only on file contents (start-up speed).

Each thing is kept under a name derived from the SHA-256 of everything it depends on, so a
changed grammar, schema or spec simply misses the cache:

- the expression parser's tables (Lark's own cache file, rebuilt by Lark if unreadable);
- the parsed expressions, as JSON data: a shared file of the newest and a shelf per spec text
  (``expression-trees-*.json``, see :class:`interpreter.expr.compiler._StoredTrees`; ignored when
  unreadable);
- each spec text's data and positions as read from its YAML, as JSON (``spec-data-*.json``, see
  :func:`interpreter.spec.loader._read_yaml`; only plain JSON data is kept, ignored when unreadable);
- a stamp per spec text that passed the JSON Schema check (an empty file: the check is skipped
  for that exact text under that exact schema, so the schema library is not even imported);
- the typed kernels' generated modules and numba's machine code (``kernels/``, see
  :mod:`interpreter.fast.kernel`).

The folder is ``$RULEBOOK_CACHE`` or ``$XDG_CACHE_HOME/rulebook`` or ``~/.cache/rulebook``,
created readable by its owner only. ``RULEBOOK_CACHE=off`` (or a folder that cannot be
created) turns the cache off; everything then works as before, only slower to start.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

_DIR: list = []


def cache_dir() -> Path | None:
    """The cache folder (created on first use, mode 0700), or None when caching is off."""
    if _DIR:
        return _DIR[0]
    where = os.environ.get("RULEBOOK_CACHE")
    if where and where.lower() in ("off", "0", "no", "false"):
        path = None
    else:
        base = Path(where) if where else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rulebook"
        try:
            base.mkdir(mode=0o700, parents=True, exist_ok=True)
            path = base if os.access(base, os.W_OK) and base.stat().st_uid == os.getuid() else None
        except OSError:
            path = None
    _DIR.append(path)
    return path


def turn_off() -> None:
    """Cache nothing more in this process (as ``RULEBOOK_CACHE=off``): the language server checks
    a new text at every pause in typing, and each would leave its files behind."""
    _DIR[:] = [None]


def digest(*parts: str) -> str:
    """SHA-256 (hex) of ``parts`` with the package version: a cache key."""
    from . import __version__
    h = hashlib.sha256(__version__.encode())
    for p in parts:
        h.update(b"\0" + p.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def has_stamp(kind: str, key: str) -> bool:
    """True when ``stamp(kind, key)`` was called before (in any process)."""
    d = cache_dir()
    return d is not None and (d / f"{kind}-{key}").exists()


def stamp(kind: str, key: str) -> None:
    """Remember ``key`` (best effort: a read-only cache is not an error)."""
    d = cache_dir()
    if d is not None:
        try:
            (d / f"{kind}-{key}").touch()
        except OSError:
            pass


def write_json(path: Path, data) -> None:
    """Write ``data`` as compact JSON to ``path`` in the cache, atomically (a temporary file of
    this process, then a rename, so readers never see half a file). Best effort: a value JSON
    cannot hold, or a file that cannot be written, leaves the cache as it was."""
    import json
    try:
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, allow_nan=False, separators=(",", ":")))
        tmp.replace(path)
    except (OSError, ValueError, RecursionError):
        pass
