"""Boards of coloured squares in the typed kernel (``boards:``, :mod:`interpreter.model.board`): the
built-ins ``cells``, ``colour_at``, ``neighbours``, ``step``, ``adjacent``, ``direction``,
``marked`` and ``domino_colours`` (see :mod:`interpreter.expr.builtins`).

A cell is a text (``'c4'``), so it stays one ``int64`` of the text table, but a cell name's place in
that table is not the next free one: it is :data:`CELL_K` ``+ row * ROW + col`` (0-based column and
row, see :func:`cell_slot`), so the kernel reads a cell's column and row by arithmetic (the texts of
the table are ``TEXT_BASE + k``, so a cell is ``CELL_BASE + row * ROW + col``). The step API's
texts are decoded from the same table (``info["texts"]``), so nothing else changes for them.

The boards (they never change during play) are one module-level tuple of the colour text of every
place of every board (``NULL`` where there is no square; board ``k``'s places from ``k * span``),
and one tuple of the marked cells of every board, written once per module from the fixed templates
below (integer holes only). A board is named by a text known only at run time (``layout`` set by a
step): :func:`board_number`'s helper turns it into ``k`` and flags a name that is not a board
(``ERR_INDEX``: simulate replays that game in the step API, which raises its located error).

Generated code comes only from the fixed templates below; their holes are integers and the names
the lowering makes.
"""
from __future__ import annotations

from ..model.board import DIRECTIONS, MAX_SIDE, parse_cell
from . import textsets
from .lowtypes import BOOL, ERR_INDEX, INT, NJIT, NULL, RI_ERROR, TEXT, TEXT_BASE, ListT, NotTyped, _fold, _names

CELL_K = 2 ** 30  # a cell's place in the text table: CELL_K + row * ROW + col (other texts: 0, 1, 2...)
ROW = 32  # places per row (at least MAX_SIDE columns)
MAX_ROWS = 99  # rows a cell name can write (a letter and a number of one or two digits)
CELL_BASE = TEXT_BASE + CELL_K


def cell_slot(s: str, default: int) -> int:
    """The place of text ``s`` in the kernel's text table: a cell name's :data:`CELL_K` ``+ row *
    ROW + col``; any other text's ``default`` (the next free place)."""
    pos = parse_cell(s)
    if pos is None:
        return default
    return CELL_K + pos[1] * ROW + pos[0]


def _tables(low):
    """The names of the generated board tables and lookups (written once per module): a dict with
    ``colours`` (tuple), ``marks`` (tuple), ``board`` (board text -> k), ``colour`` (board k, cell ->
    colour text or NULL), ``next`` (board k, cell, direction 0-3 -> cell or NULL), ``span``,
    ``boards`` (name -> k), ``mark_ranges`` ({mark: [(lo, hi) per board]})."""
    known = low.helper_names.get(("boards",))
    if known is not None:
        return known
    boards = getattr(low.game, "boards", None) or {}
    if not boards:
        raise NotTyped("a board built-in in a spec without boards", low.path)
    height = max(g.height for g in boards.values())
    if height > MAX_ROWS or max(g.width for g in boards.values()) > MAX_SIDE:
        raise NotTyped("a board larger than cell names can write", low.path)
    span = height * ROW
    colours, marks, ranges, index, palette = [], [], {}, [], {}
    for k, grid in enumerate(boards.values()):
        row, nums = [NULL] * span, [0] * span
        for cell, colour in grid.colours.items():
            col, r = parse_cell(cell)
            row[r * ROW + col] = low.text(str(colour))
            nums[r * ROW + col] = palette.setdefault(str(colour), len(palette))
            low.text(cell)  # (in the table: the step API decodes the cells the kernel makes)
        colours += row
        index += nums
        for mark, cells in grid.marks.items():
            ranges.setdefault(str(mark), [(0, 0)] * len(boards))[k] = (len(marks), len(marks) + len(cells))
            marks += [low.text(str(c)) for c in cells]
    names = {str(b): k for k, b in enumerate(boards)}
    t_col, t_mark, t_num, h_board, h_colour, h_next = (low.fresh("h") for _ in range(6))
    b, x, k, i, d, c, r = "v1", "v2", "v3", "v4", "v5", "v6", "v7"
    lines = [f"{t_col} = ({', '.join(str(v) for v in colours)},)",
             f"{t_mark} = ({', '.join(str(v) for v in marks + [NULL])},)",
             f"{t_num} = ({', '.join(str(v) for v in index)},)", "",
             NJIT, f"def {h_board}(RI, {b}):"]
    for name, kk in names.items():
        lines += [f"    if {b} == {low.text(name)}:", f"        return {kk}"]
    lines += [f"    RI[{RI_ERROR}] = {ERR_INDEX}", "    return -1", "",
              NJIT, f"def {h_colour}({k}, {x}):",
              f"    {i} = {x} - {CELL_BASE}",
              f"    if {k} < 0 or {i} < 0 or {i} >= {span}:", "        return NULL",
              f"    return {t_col}[{k} * {span} + {i}]", "",
              NJIT, f"def {h_next}({k}, {x}, {d}):",
              f"    if {h_colour}({k}, {x}) == NULL:", "        return NULL",
              f"    {c} = ({x} - {CELL_BASE}) % {ROW}", f"    {r} = ({x} - {CELL_BASE}) // {ROW}"]
    for n, (dx, dy) in enumerate(DIRECTIONS.values()):
        lines += [f"    if {d} == {n}:", f"        {c} += {dx}", f"        {r} += {dy}"]
    lines += [f"    if {c} < 0 or {c} >= {MAX_SIDE} or {r} < 0 or {r} >= {height}:", "        return NULL",
              f"    {x} = {CELL_BASE} + {r} * {ROW} + {c}",
              f"    if {h_colour}({k}, {x}) == NULL:", "        return NULL",
              f"    return {x}", ""]
    low.helpers += lines
    known = low.helper_names[("boards",)] = {
        "colours": t_col, "marks": t_mark, "board": h_board, "colour": h_colour, "next": h_next,
        "span": span, "boards": names, "mark_ranges": ranges, "numbers": t_num, "palette": len(palette)}
    return known


def _board(low, tree, env):
    """``(code of k, tables)`` of a board argument (a text naming a board)."""
    tables = _tables(low)
    code, ty = low.scalar(tree, env)
    if ty not in (TEXT, "null"):
        raise NotTyped(f"a board named by a {ty}", low.path)
    return f"{tables['board']}(RI, {code})", tables


def _args(low, args, n, name):
    if len(args) != n:
        raise NotTyped(f"{name}() with {len(args)} argument(s)", low.path)


def _cell(low, tree, env):
    code, ty = low.scalar(tree, env)
    if ty not in (TEXT, "null"):
        raise NotTyped(f"a board cell given as a {ty}", low.path)
    return code


def colour_at(low, args, env):
    """``colour_at(b, x)``: the colour (a text) of square ``x``, or null off the board."""
    _args(low, args, 2, "colour_at")
    k, t = _board(low, args[0], env)
    x = _cell(low, args[1], env)
    return textsets.note(low, f"{t['colour']}({k}, {x})", _colours(low)), TEXT


def _colours(low) -> set:
    """Every colour of the spec's boards (texts)."""
    return {str(c) for g in (getattr(low.game, "boards", None) or {}).values() for c in g.colours.values()}


def _neighbour_loop(low, k, x, t):
    def loop(var, body):
        kk, xx, d = low.fresh("t"), low.fresh("t"), low.fresh("i")
        return [f"{kk} = {k}", f"{xx} = {x}", f"for {d} in range(4):",
                f"    {var} = {t['next']}({kk}, {xx}, {d})", f"    if {var} != NULL:"] + \
            ["        " + ln for ln in body]
    return loop


def neighbours(low, args, env):
    """``neighbours(b, x)``: the squares sharing an edge with ``x``, in the order up, right, down,
    left (none when ``x`` is not a square of ``b``)."""
    _args(low, args, 2, "neighbours")
    k, t = _board(low, args[0], env)
    x = _cell(low, args[1], env)
    out = ListT(TEXT, _neighbour_loop(low, k, x, t), refs=_names(k, x))
    out.distinct = True
    return out


def cells(low, args, env):
    """``cells(b)``: every square of ``b`` in reading order (rows from the top, each left to right)."""
    _args(low, args, 1, "cells")
    k, t = _board(low, args[0], env)

    def loop(var, body):
        kk, i = low.fresh("t"), low.fresh("i")
        return [f"{kk} = {k}", f"for {i} in range({t['span']}):",
                f"    {var} = {CELL_BASE} + {i}", f"    if {t['colour']}({kk}, {var}) != NULL:"] + \
            ["        " + ln for ln in body]
    out = ListT(TEXT, loop, refs=_names(k))
    out.distinct = True
    return out


def _direction_number(low, tree, env):
    code, ty = low.scalar(tree, env)
    known = _fold(code)
    words = [low.text(w) for w in DIRECTIONS]
    if known is not None:
        if known not in words:
            raise NotTyped("step() in a direction that is not up, right, down or left", low.path)
        return str(words.index(known))
    x, out = low.fresh("t"), low.fresh("t")
    lines = [f"{x} = {code}", f"{out} = -1"]
    for n, w in enumerate(words):
        lines += [f"if {x} == {w}:", f"    {out} = {n}"]
    lines += [f"if {out} < 0:", f"    RI[{RI_ERROR}] = {ERR_INDEX}"]  # (the step API raises: not a direction)
    return low.helper(env, lines, out)


def step(low, args, env):
    """``step(b, x, direction)``: the square next to ``x`` in that direction, or null off the board."""
    _args(low, args, 3, "step")
    k, t = _board(low, args[0], env)
    x = _cell(low, args[1], env)
    d = _direction_number(low, args[2], env)
    return f"{t['next']}({k}, {x}, {d})", TEXT


def _col_row(low, env, code, lines):
    """Lines setting the column and row of the cell ``code`` (-100 each when it is not a cell name)."""
    x, c, r = low.fresh("t"), low.fresh("t"), low.fresh("t")
    lines += [f"{x} = {code}", f"{c} = -100", f"{r} = -100",
              f"if {x} >= {CELL_BASE} and {x} < {CELL_BASE + MAX_ROWS * ROW} and ({x} - {CELL_BASE}) % {ROW} < {MAX_SIDE}:",
              f"    {c} = ({x} - {CELL_BASE}) % {ROW}", f"    {r} = ({x} - {CELL_BASE}) // {ROW}"]
    return c, r


def _two_cells(low, args, env, name):
    """``(lines, out, (ca, ra), (cb, rb))`` for a built-in of two cells: the lines reading each
    cell's column and row (-100 when it is not a cell) and a fresh name for the result."""
    _args(low, args, 2, name)
    lines = []
    a = _col_row(low, env, _cell(low, args[0], env), lines)
    b = _col_row(low, env, _cell(low, args[1], env), lines)
    return lines, low.fresh("t"), a, b


def adjacent(low, args, env):
    """``adjacent(a, b)``: whether two cell names share an edge (false when either is not a cell)."""
    lines, out, (ca, ra), (cb, rb) = _two_cells(low, args, env, "adjacent")
    lines += [f"{out} = {ca} >= 0 and {cb} >= 0 and abs({ca} - {cb}) + abs({ra} - {rb}) == 1"]
    return low.helper(env, lines, out), BOOL


def direction(low, args, env):
    """``direction(a, b)``: the direction (a text) from cell ``a`` to the cell next to it ``b``, or null."""
    lines, out, (ca, ra), (cb, rb) = _two_cells(low, args, env, "direction")
    lines += [f"{out} = NULL", f"if {ca} >= 0 and {cb} >= 0:"]
    for w, (dx, dy) in DIRECTIONS.items():
        lines += [f"    if {cb} - {ca} == {dx} and {rb} - {ra} == {dy}:", f"        {out} = {low.text(w)}"]
    return low.helper(env, lines, out), TEXT


def marked(low, args, env):
    """``marked(b, mark)``: the squares of ``b`` given that mark (``marks:``), in the order listed."""
    _args(low, args, 2, "marked")
    k, t = _board(low, args[0], env)
    mcode, _ = low.scalar(args[1], env)
    mark = _fold(mcode)
    names = {low.text(m): m for m in t["mark_ranges"]}
    if mark is None:
        raise NotTyped("marked() with a mark known only at run time", low.path)
    ranges = t["mark_ranges"].get(names.get(mark), [(0, 0)] * len(t["boards"]))

    def loop(var, body):
        kk, lo, hi, i = low.fresh("t"), low.fresh("t"), low.fresh("t"), low.fresh("i")
        lines = [f"{kk} = {k}", f"{lo} = 0", f"{hi} = 0"]
        for n, (a, b) in enumerate(ranges):
            lines += [f"if {kk} == {n}:", f"    {lo} = {a}", f"    {hi} = {b}"]
        return lines + [f"for {i} in range({lo}, {hi}):", f"    {var} = {t['marks']}[{i}]"] + \
            ["    " + ln for ln in body]
    return ListT(TEXT, loop, refs=_names(k))


def _taken_test(low, tree, env, x):
    """Code that is true when cell ``x`` (a generated name) is among the squares ``tree`` takes: a
    game variable's map (its keys, mapvars.py) or a list of cells."""
    from . import mapvars
    if mapvars.is_game_map(low, tree):
        row, at = low.gmaps[str(tree.children[0])], low.fresh("t")
        return low.helper(env, mapvars._find(low, row, x, at), f"({at} >= 0)")
    lst = low.lst(tree, env)
    if lst.elem not in (TEXT, "null"):
        raise NotTyped("domino_colours: taken squares that are not a list of cells or a map from cells", low.path)
    return low.reduce_in(x, lst, env)


def domino_colours(low, args, env):
    """``domino_colours(b, cell, taken...)``: the colour pairs ``[c1, c2]`` of the free places for a
    domino touching ``cell`` (x next to ``cell``, y next to x, neither ``cell`` nor taken), each
    pair once in the order first found; a list of pairs (each pair kept as its two parts). The pairs
    met are remembered in a bit mask of colour numbers: at most 8 colours over the spec's boards."""
    from .compound import TupT, parts_of
    if len(args) < 2:
        raise NotTyped("domino_colours() without a board and a cell", low.path)
    k, t = _board(low, args[0], env)
    q = _cell(low, args[1], env)
    if t["palette"] > 8:
        raise NotTyped("domino_colours() on boards of more than 8 colours", low.path)
    x, y, kk, qq = low.fresh("v"), low.fresh("v"), low.fresh("v"), low.fresh("v")
    env2 = dict(env)  # (names no spec can write: the loop's cells, read by the taken tests' helpers)
    env2[" x"], env2[" y"], env2[" q"] = (x, TEXT), (y, TEXT), (qq, TEXT)
    free_x, free_y = [f"{x} != {qq}"], [f"{y} != {qq}"]
    for tree in args[2:]:
        free_x.append(f"not {_taken_test(low, tree, env2, x)}")
        free_y.append(f"not {_taken_test(low, tree, env2, y)}")

    def loop(var, body):
        mask, bit, d1, d2 = (low.fresh(p) for p in "ttii")
        a, b = parts_of(var, 2)
        return [f"{kk} = {k}", f"{qq} = {q}", f"{mask} = 0", f"for {d1} in range(4):",
                f"    {x} = {t['next']}({kk}, {qq}, {d1})",
                f"    if {x} != NULL and {' and '.join(free_x)}:",
                f"        for {d2} in range(4):",
                f"            {y} = {t['next']}({kk}, {x}, {d2})",
                f"            if {y} != NULL and {' and '.join(free_y)}:",
                f"                {bit} = 1 << ({t['numbers']}[{kk} * {t['span']} + {x} - {CELL_BASE}] * 8 + "
                f"{t['numbers']}[{kk} * {t['span']} + {y} - {CELL_BASE}])",
                f"                if {mask} & {bit} == 0:",
                f"                    {mask} |= {bit}",
                f"                    {a} = {t['colour']}({kk}, {x})",
                f"                    {b} = {t['colour']}({kk}, {y})"] + \
            ["                    " + ln for ln in body]
    out = ListT(TupT((TEXT, TEXT)), loop, refs=_names(k, q) | low.scope_names(env) & _names(*free_x, *free_y))
    out.part_sets = (frozenset(_colours(low)),) * 2  # (each part a colour: joins of them, textsets.py)
    return out


CALLS = {"domino_colours": domino_colours, "cells": cells, "colour_at": colour_at, "neighbours": neighbours, "step": step,
         "adjacent": adjacent,
         "direction": direction, "marked": marked}


def calls_for(low, name: str):
    """The lowering of the board built-in ``name`` as a ``call_NAME`` method would be (``fn(args,
    env)``), or None when ``name`` is not one."""
    fn = CALLS.get(name)
    return None if fn is None else (lambda args, env: fn(low, args, env))
