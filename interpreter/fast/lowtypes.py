"""The pieces every module of the kernel's type pass shares (:mod:`interpreter.fast.typepass` and
the construct families it draws on: :mod:`interpreter.fast.teams`, :mod:`interpreter.fast.maps`):
the reason a spec does not type, the value types, the list of a lowering, the slots of ``RI``,
and small helpers on generated code."""
from __future__ import annotations

import ast
import re


class NotTyped(Exception):
    """The spec (with these options) does not type: ``reason`` says what, ``path`` where (a spec
    path such as ``phases.trick[0].choose``)."""

    def __init__(self, reason: str, path: str = "", line: int = 0):
        where = ", ".join(x for x in (path and f"at {path}", line and f"spec line {line}") if x)
        super().__init__(f"{reason}" + (f" ({where})" if where else ""))
        self.reason, self.path, self.line = reason, path, line


INT, BOOL, TEXT, CARD, NUL = "int", "bool", "text", "card", "null"
EMPTY = "empty list"  # a variable only ever set to [] (its comprehensions are empty, never compiled)


_FOLD_NODES = (ast.Expression, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.Compare, ast.BinOp, ast.IfExp, ast.And,
               ast.Or, ast.Not, ast.USub, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Add, ast.Sub,
               ast.Mult)


def _fold(code: str):
    """The value of generated code made of constants and operators only (an `if` on options),
    or None when it reads anything of the game."""
    tree = ast.parse(code, mode="eval")
    if not all(isinstance(n, _FOLD_NODES) for n in ast.walk(tree)):
        return None

    def ev(n):
        if isinstance(n, ast.Expression):
            return ev(n.body)
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.BoolOp):
            vals = [ev(v) for v in n.values]
            out = vals[0]
            for v in vals[1:]:
                out = (out and v) if isinstance(n.op, ast.And) else (out or v)
            return out
        if isinstance(n, ast.UnaryOp):
            v = ev(n.operand)
            return (not v) if isinstance(n.op, ast.Not) else -v
        if isinstance(n, ast.IfExp):
            return ev(n.body) if ev(n.test) else ev(n.orelse)
        if isinstance(n, ast.BinOp):
            a, b = ev(n.left), ev(n.right)
            return a + b if isinstance(n.op, ast.Add) else a - b if isinstance(n.op, ast.Sub) else a * b
        a = ev(n.left)
        for op, right in zip(n.ops, n.comparators):
            b = ev(right)
            ok = {ast.Eq: a == b, ast.NotEq: a != b, ast.Lt: a < b, ast.LtE: a <= b, ast.Gt: a > b,
                  ast.GtE: a >= b}[type(op)]
            if not ok:
                return False
            a = b
        return True
    return ev(tree)


class ListT:
    """A list where it is consumed: ``elem`` (element type) and ``loop(c, var, body)``, which
    writes the lines that bind each element to the generated name ``var`` and run ``body``
    (a list of lines) for it."""

    def __init__(self, elem, loop, length=None, zone=None, refs=()):
        self.elem, self.loop, self.length, self.zone = elem, loop, length, zone
        self.refs = set(refs)  # the generated local names its loop reads


def _names(*codes):
    out = set()
    for c in codes:
        if c:
            out.update(re.findall(r"\bv[0-9]+\b", c))
    return out


def _empty_list():
    return ListT(NUL, lambda var, body: [], length="0")


def _join(a, b):
    if a == b or b == NUL:
        return a
    if a == NUL:
        return b
    if {a, b} <= {INT, BOOL}:
        return INT
    return None


def _known(ty):
    """A variable's type as read: one only ever null (or not yet seen set) reads as a number."""
    return INT if ty in (None, NUL) else ty


def _indent(lines, n=1):
    return ["    " * n + ln for ln in lines]


RI_SEED, RI_COUNT, RI_ACTIONS, RI_ERROR = 0, 1, 2, 3  # then 4: bots' first row, 5: draws' first row,
# 6: draws seeded ahead, 7: how many draws to seed ahead (the most a game of the run has used)
# the step API's (interpreter.fast.steps): the index of the option the caller chose
RI_CHOSEN = 11
RI_LISTING = 12  # the number of the last listing of cards that gives one option per name
RI_MAX_ACTIONS = 13  # the playout kernel's: Game.max_actions (a longer game is flagged, ERR_MAX_ACTIONS)
RI_END = 14  # the playout kernel's: an `end` step ended the game (turnorder.py)
RI_SIZE = 15
# The codes a kernel writes into RI[RI_ERROR] (any of them makes simulate replay that game in the step
# API, which raises its located error): 1-4 typepass (a loop or choice over MAX_LIST, no option, a move
# that fails, a deal short of cards), 6 a list past TMP's room, then:
ERR_INDEX = 7  # an index out of range, a bad holder() or a key a map lacks (teams.py, maps.py)
ERR_LIST_ENTRY = 8  # an entry of a list variable out of range (listvars.py)
ERR_REALTIME_ACTIONS = 9  # a real-time block past its bound of actions (realtime.py)
ERR_MAX_ACTIONS = 10  # a game past Game.max_actions (the bound on one game's length)
ERR_CLIMB = 11  # a climb's players that are not distinct seats, or its lead not one of them (climb.py)
ERR_MACHINE = 12  # the bytecode machine (vm.py): a division by zero (numba's would raise) or a bad opcode
# what the search module's generator yields besides choices (the seat field; see interpreter.fast.search):
# a shuffle of the row in the options field, a random pick among that many, a flow-level phase's
# start (options field 1) or end (0)
SEARCH_SHUFFLE, SEARCH_RANDOM, SEARCH_PHASE = 65534, 65533, 65532

# the kernel's values and layout (every module of the type pass, the kernel and its drivers read them)
NULL = -(2 ** 62)
NO_OVERRIDE = NULL + 1  # in the mode tables: this mode leaves the attribute as it is
UNSET = NULL + 2  # a memo slot holding no value yet (see _memo)
TEXT_BASE = 2 ** 40
MAX_LIST = 512  # the longest list a `for` step or a choice may hold in the kernel
STATE_ARGS = ("Z", "ZN", "GV", "PV", "PB", "MD", "LOC", "ATTR", "NP", "RG", "RI", "TMP", "OPT", "SB", "SK", "SEEN",
              "MEMO")
# the generated rules: no reference counting (``_nrt=False``: nothing they run allocates, and the
# driver hands them views that own nothing), which numba otherwise does at every call and slice
NJIT = "@njit(boundscheck=False, _nrt=False)"
