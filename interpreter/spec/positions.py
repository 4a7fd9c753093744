"""Where the values of a spec come from: :class:`Pos` (line and column) by path (a tuple of keys
and list indices from the root), as :func:`interpreter.spec.yamlpos.load_yaml` records them.
Apart from the YAML reader, so that a start-up that reads a spec's data from the cache (see
:mod:`interpreter.spec.loader`) does not import it."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pos:
    """Where a YAML value starts: 1-based ``line`` and ``column``, and the scalar ``style``
    (``None`` plain, ``'"'``/``"'"`` quoted, ``'|'``/``'>'`` block)."""

    line: int
    column: int
    style: str | None = None
    key_line: int = 0
    key_column: int = 0


Path = tuple


def position_of(positions: dict[Path, Pos], path: Path) -> Pos:
    """The position of ``path``, or of its nearest ancestor that has one."""
    path = tuple(path)
    while path not in positions and path:
        path = path[:-1]
    return positions.get(path, Pos(0, 0))
