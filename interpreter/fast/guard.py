"""The guard on every generated kernel module (:func:`check_source`): only the fixed templates' node
kinds, names and number constants may appear in it, so that no spec text reaches the code numba
compiles (see :mod:`interpreter.fast.typepass`)."""
from __future__ import annotations

import ast
import re

from .lowtypes import STATE_ARGS

_GENERATED = re.compile(r"^(v|t|i|h|ph)\d+$")
_FIXED = frozenset(STATE_ARGS) | {
    "np", "njit", "NULL", "RUNTIME", "truthy", "attr_get", "attr_mode", "card_get", "add_null", "if_null", "min2",
    "max2", "randbelow_row", "shuffle_row", "event_gen", "prepare_batch", "gather", "move_top", "deal", "play_card",
    "sort_row", "new_game", "raw", "memo", "move_card", "listed_twice", "flow", "score", "run", "range", "abs", "max", "min", "len",
    "True", "False",
    "first_seed", "n_games", "ZINIT", "ZNINIT", "GVINIT", "PVINIT", "SCORES", "LENGTHS", "ERRORS", "g", "q",
    "BATCH", "EMAX", "KEYS", "KL", "GB", "KT", "ROWOF", "GROUPS", "ORDER", "TXT", "TXL", "SH", "e", "nb", "used", "j", "steps", "scores",
    "prepare_batch_at", "PREP",
    "interpreter", "numba", "cache", "boundscheck", "_nrt"}
_NODES = (ast.Module, ast.Expr, ast.Yield, ast.Constant, ast.Import, ast.ImportFrom, ast.alias, ast.FunctionDef,
          ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign, ast.For, ast.While, ast.If, ast.Pass,
          ast.Name, ast.Load, ast.Store, ast.Subscript, ast.Tuple, ast.Call, ast.keyword, ast.BinOp,
          ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.LShift,
          ast.USub, ast.Not, ast.And, ast.Or, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
          ast.Break, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)  # (the last: bit masks, fast/bestmelds.py)


def check_source(src: str, fixed=frozenset(), imports=(), nodes=()) -> None:
    """Refuse a generated module holding anything but the templates' node kinds, fixed names and
    generated names, and constants that are numbers (plus the module's one docstring).
    ``fixed``/``imports``/``nodes``: more names, modules and node kinds of a fixed template appended
    to the module (the search driver, :mod:`interpreter.fast.search`). Raises ValueError naming the
    offending node."""
    tree = ast.parse(src)
    for k, node in enumerate(ast.walk(tree)):
        if not isinstance(node, _NODES + tuple(nodes)):
            raise ValueError(f"generated module: node {type(node).__name__} is not from the templates")
        if isinstance(node, ast.Name) and not (node.id in _FIXED or node.id in fixed or _GENERATED.match(node.id)):
            raise ValueError(f"generated module: name {node.id!r} is not from the templates")
        if isinstance(node, ast.arg) and not (node.arg in _FIXED or node.arg in fixed or _GENERATED.match(node.arg)):
            raise ValueError(f"generated module: parameter {node.arg!r} is not from the templates")
        if isinstance(node, ast.FunctionDef) and not (node.name in _FIXED or node.name in fixed or
                                                      _GENERATED.match(node.name)):
            raise ValueError(f"generated module: function {node.name!r} is not from the templates")
        if isinstance(node, ast.keyword) and node.arg not in ("cache", "boundscheck", "_nrt"):
            raise ValueError(f"generated module: keyword {node.arg!r} is not from the templates")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, bool, type(None))):
            if not (isinstance(node.value, str) and node is tree.body[0].value):
                raise ValueError(f"generated module: constant {node.value!r} is not a number")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mod = getattr(node, "module", None) or node.names[0].name
            if mod not in ("numpy", "numba", "interpreter.fast.runtime", "interpreter.fast.prebuilt") + tuple(imports):
                raise ValueError(f"generated module: import of {mod!r}")
