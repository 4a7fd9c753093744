"""Boards: grids of coloured squares declared as data in a spec (``boards:``).

A board is part of the game's components, not of its State: it never changes during play.
What lies on a board (cards covering squares, tokens standing on squares) is ordinary
State data — game variables holding maps from cell to content and lists of cells — so a
State stays plain, cloneable JSON.

Cells are named like a chess board read from the top-left: a column letter (``a`` is the
leftmost column) followed by the row number (``1`` is the top row as written in the spec),
e.g. ``c4``. Directions are ``up`` (towards row 1), ``down``, ``left`` and ``right``.
"""
from __future__ import annotations

import re

CELL = re.compile(r"^([a-z])([1-9][0-9]?)$")
DIRECTIONS = {"up": (0, -1), "right": (1, 0), "down": (0, 1), "left": (-1, 0)}
HOLE = "."  # a position of the grid without a square (boards need not be rectangles)
MAX_SIDE = 26  # one letter per column


def cell_name(col: int, row: int) -> str:
    """The name of the cell at 0-based ``col``, ``row`` (``cell_name(2, 3) == "c4"``)."""
    return f"{chr(ord('a') + col)}{row + 1}"


def parse_cell(cell) -> tuple | None:
    """``(col, row)`` (0-based) of a cell name such as ``"c4"``, or None if it is not one."""
    if type(cell) is not str:
        return None
    m = CELL.match(cell)
    if not m:
        return None
    return ord(m.group(1)) - ord("a"), int(m.group(2)) - 1


class Grid:
    """An immutable board. ``name`` (str), ``width``/``height`` (ints), ``cells`` (list of cell
    names in reading order, holes left out), ``colours`` (dict cell -> colour name),
    ``neighbours`` (dict cell -> list of orthogonal neighbour cells, in the order up, right,
    down, left), ``marks`` (dict mark name -> list of cells) and ``doc``."""

    __slots__ = ("name", "width", "height", "cells", "colours", "neighbours", "marks", "doc")

    def __init__(self, name: str, rows: list, marks: dict, doc: str = ""):
        self.name, self.doc = name, doc
        self.height = len(rows)
        self.width = max((len(r) for r in rows), default=0)
        self.colours = {}
        self.cells = []
        for y, row in enumerate(rows):
            for x, colour in enumerate(row):
                if colour != HOLE:
                    cell = cell_name(x, y)
                    self.cells.append(cell)
                    self.colours[cell] = colour
        self.neighbours = {}
        for cell in self.cells:
            x, y = parse_cell(cell)
            out = []
            for dx, dy in DIRECTIONS.values():
                if 0 <= x + dx < MAX_SIDE and y + dy >= 0:
                    other = cell_name(x + dx, y + dy)
                    if other in self.colours:
                        out.append(other)
            self.neighbours[cell] = out
        self.marks = {k: list(v) for k, v in marks.items()}

    def step(self, cell, direction):
        """The cell next to ``cell`` in ``direction``, or None off the board."""
        pos = parse_cell(cell)
        d = DIRECTIONS.get(direction)
        if pos is None or d is None:
            return None
        x, y = pos[0] + d[0], pos[1] + d[1]
        if not (0 <= x < MAX_SIDE and y >= 0):
            return None
        other = cell_name(x, y)
        return other if other in self.colours else None

    def colour_set(self) -> list:
        """The colours used, in order of first appearance."""
        return list(dict.fromkeys(self.colours.values()))

    def summary(self) -> str:
        """One line for diagrams and docs: ``12x12, 144 squares, 6 colours, marks: pawn (4)``."""
        marks = ", ".join(f"{k} ({len(v)})" for k, v in self.marks.items())
        return (f"{self.width}x{self.height}, {len(self.cells)} squares, {len(self.colour_set())} colours"
                + (f", marks: {marks}" if marks else ""))


def build_grid(name: str, data: dict):
    """Build a :class:`Grid` from its spec data (the ``boards.NAME`` entry: ``rows`` or
    ``pieces`` + ``layout``, optional ``legend``, ``marks``, ``doc``).

    Returns ``(grid or None, problems)``, where problems is a list of
    ``(path inside the entry (tuple), message, hint)``; the grid is None when there are problems.
    """
    problems = []
    legend = data.get("legend")

    def decode(text, path):
        if legend is not None:
            out = []
            for ch in str(text).replace(" ", ""):
                if ch == HOLE:
                    out.append(HOLE)
                elif ch in legend:
                    out.append(str(legend[ch]))
                else:
                    problems.append((path, f"board {name}: {ch!r} is not in the legend",
                                     "legend: " + ", ".join(f"{k} = {v}" for k, v in legend.items())))
                    return None
            return out
        if isinstance(text, list):
            return [str(x) for x in text]
        return str(text).split()

    rows = None
    if "rows" in data:
        if "pieces" in data or "layout" in data:
            problems.append(((), f"board {name}: give either rows or pieces with layout, not both", ""))
        rows = [decode(r, ("rows", i)) for i, r in enumerate(data["rows"] or [])]
    elif "pieces" in data and "layout" in data:
        pieces = {}
        for pname, prows in (data["pieces"] or {}).items():
            pieces[str(pname)] = [decode(r, ("pieces", pname, i)) for i, r in enumerate(prows or [])]
        rows = []
        for i, prow in enumerate(data["layout"] or []):
            names = prow.split() if isinstance(prow, str) else [str(x) for x in prow]
            blocks = []
            for pname in names:
                if pname not in pieces:
                    problems.append((("layout", i), f"board {name}: there is no piece {pname!r}",
                                     "pieces: " + ", ".join(pieces)))
                    return None, problems
                blocks.append(pieces[pname])
            if not blocks:
                continue
            heights = {len(b) for b in blocks}
            if len(heights) != 1:
                problems.append((("layout", i), f"board {name}: the pieces of layout row {i + 1} have "
                                 "different heights", "every piece of a layout row needs the same number of rows"))
                return None, problems
            for y in range(heights.pop()):
                line = []
                for b in blocks:
                    line.extend(b[y] or [])
                rows.append(line)
    else:
        problems.append(((), f"board {name}: give rows, or pieces with layout",
                         "e.g. rows: [RGB, BRG] with legend: {R: red, G: green, B: blue}"))
        return None, problems
    if problems or any(r is None for r in rows):
        return None, problems
    if not rows or not any(x != HOLE for r in rows for x in r):
        problems.append(((), f"board {name} has no squares", "give at least one row"))
        return None, problems
    if len(rows) > 99 or max(len(r) for r in rows) > MAX_SIDE:
        problems.append(((), f"board {name} is {max(len(r) for r in rows)} wide and {len(rows)} high",
                         f"a board has at most {MAX_SIDE} columns (a..z) and 99 rows"))
        return None, problems
    marks = {}
    for mname, cells in (data.get("marks") or {}).items():
        marks[str(mname)] = []
        for i, cell in enumerate(cells or []):
            pos = parse_cell(cell)
            if pos is None or pos[1] >= len(rows) or pos[0] >= len(rows[pos[1]]) or rows[pos[1]][pos[0]] == HOLE:
                problems.append((("marks", mname, i), f"board {name}: mark {mname}: {cell!r} is not a square "
                                 "of the board", "cells are written column letter + row number, e.g. c4 "
                                 "(a = left column, 1 = top row)"))
            else:
                marks[str(mname)].append(cell)
    if problems:
        return None, problems
    return Grid(name, rows, marks, str(data.get("doc") or "")), problems
