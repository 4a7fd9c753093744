"""Parse expressions with the Lark grammar (``grammar.lark``) into syntax trees.

``parse(text)`` returns a syntax tree (:mod:`interpreter.expr.syntax`) or raises
:class:`ExprSyntaxError` with the 1-based line and column inside the expression text. Parsed
trees are kept in memory and across processes (:class:`_StoredTrees`, :func:`tree_shelf`), and
Lark itself is imported only when an expression is not among them.
"""
from __future__ import annotations

from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir, digest, write_json
from .syntax import Token, Tree, from_lark


def _make_parser():
    """The expression parser (a ``lark.Lark``), made on the first expression that is not in the
    stored trees: importing Lark is a large part of a start-up that does not need it. Its LALR
    tables are kept in the user's cache folder (see :mod:`interpreter.cache`): building them costs
    a quarter of a second."""
    from lark import Lark
    grammar = (Path(__file__).parent / "grammar.lark").read_text()
    folder = cache_dir()
    cache = str(folder / f"grammar-{digest(grammar)}.lark") if folder is not None else False
    return Lark(grammar, parser="lalr", start="start", propagate_positions=False, cache=cache)


_PARSER = None
_TREE_CACHE: dict[str, Tree] = {}


class _StoredTrees:
    """Parsed expressions kept across processes: JSON files in the user's cache folder (under the
    grammar's digest) mapping an expression's text to its tree as plain lists, written when this
    process parsed new ones. Reading a tree back costs a tenth of parsing it; a start-up parses a
    spec's hundred-odd expressions. Two kinds of file:

    - the shared file holds the newest :attr:`LIMIT` expressions of every spec and scenario (read
      on the first parse that needs it, written back at exit);
    - a spec's shelf holds the expressions of one spec text (under its digest): while a spec
      compiles (:func:`tree_shelf`) trees are looked up there first, so a spec loaded before
      never reads the shared file (reading it was a tenth of a start-up). An edited spec finds
      its unchanged expressions in the shared file, and its shelf is written when it compiled.

    Best effort: an unreadable, foreign or stale file is ignored (only this module's own shapes
    are read back, as data: nothing in it is run)."""

    LIMIT = 4_000  # expressions kept in the shared file, the newest (about 1.5 MB: read in a few ms)

    def __init__(self):
        self.raw: dict | None = None
        self.new: dict = {}
        self.path = None
        self.shelf_path = None  # the shelf of the spec compiling now (None: no spec, or no cache)
        self.shelf: dict | None = None  # its stored trees (read on its first lookup)
        self.shelf_new: dict = {}  # trees it lacked, found elsewhere or parsed: written at its end

    def _open_shelf(self) -> dict:
        """The stored trees of the spec compiling now (its shelf is read on the first lookup)."""
        if self.shelf is None:
            self.shelf = self._read(self.shelf_path)
        return self.shelf

    def get(self, text: str):
        if self.shelf_path is not None:
            tree = self._decoded(self._open_shelf().get(text))
            if tree is not None:
                return tree
        if self.raw is None:
            self._open()
        enc = self.raw.get(text)
        tree = self._decoded(enc)
        if tree is not None and self.shelf_path is not None:
            self.shelf_new[text] = enc
        return tree

    def seen(self, text: str, tree) -> None:
        """``tree`` of ``text`` came from this process's own cache: the spec compiling now (if
        any) uses it, so its shelf keeps it."""
        if self.shelf_path is not None:
            if text not in self._open_shelf() and text not in self.shelf_new:
                try:
                    self.shelf_new[text] = _encode_tree(tree)
                except RecursionError:
                    pass

    def put(self, text: str, tree) -> None:
        try:
            enc = _encode_tree(tree)
        except RecursionError:  # nested too deeply to keep (the compiler refuses it anyway)
            return
        if self.shelf_path is not None:
            self.shelf_new[text] = enc
        if self.path is not None and len(self.new) < self.LIMIT:
            if not self.new:
                import atexit
                atexit.register(self._save)
            self.new[text] = enc

    @staticmethod
    def _decoded(enc):
        if enc is None:
            return None
        try:
            return _decode_tree(enc)
        except (TypeError, ValueError, IndexError, KeyError, RecursionError):
            return None

    @staticmethod
    def _read(path) -> dict:
        try:
            import json
            data = json.loads(path.read_text())
            if isinstance(data, dict):
                return data
        except (OSError, ValueError, RecursionError):
            pass
        return {}

    def _open(self) -> None:
        self.raw = {}
        folder = cache_dir()
        if folder is None:
            return
        self.path = folder / f"expression-trees-{_grammar_digest()}.json"
        self.raw = self._read(self.path)

    def open_shelf(self, spec_text: str) -> None:
        """Look up the trees of the spec ``spec_text`` in its shelf first (see the class)."""
        folder = cache_dir()
        self.shelf, self.shelf_new = None, {}
        self.shelf_path = (folder / f"expression-trees-{_grammar_digest()}-{digest(spec_text)}.json"
                           if folder is not None else None)

    def close_shelf(self) -> None:
        """Write the shelf if the spec used trees it lacked; lookups go to the shared file again."""
        path, shelf, new = self.shelf_path, self.shelf, self.shelf_new
        self.shelf_path, self.shelf, self.shelf_new = None, None, {}
        if path is not None and new:
            self._keep(path, shelf or {}, new)

    def _save(self) -> None:
        # merged with what other processes wrote meanwhile
        self._keep(self.path, self._read(self.path), self.new)

    def _keep(self, path, old: dict, new: dict) -> None:
        """Write ``old`` updated with ``new`` to ``path``, the newest :attr:`LIMIT` entries."""
        kept = {**old, **new}
        write_json(path, dict(list(kept.items())[-self.LIMIT:]))  # the oldest go first


@lru_cache(maxsize=None)
def _grammar_digest() -> str:
    """The digest of the expression grammar (computed once per process)."""
    return digest((Path(__file__).parent / "grammar.lark").read_text())


@contextmanager
def tree_shelf(spec_text: str):
    """While a spec compiles: its expressions' trees are looked up in its own shelf of the user's
    cache first, and the shelf is written if it lacked some (see :class:`_StoredTrees`)."""
    _STORED.open_shelf(spec_text)
    try:
        yield
    finally:
        _STORED.close_shelf()


def _encode_tree(node):
    """A syntax tree as plain lists: ``["R", rule, [children]]`` and ``["T", type, value, start_pos,
    line, column, end_line, end_column, end_pos]`` for a token (None stays None)."""
    if isinstance(node, Tree):
        return ["R", str(node.data), [_encode_tree(c) for c in node.children]]
    if isinstance(node, Token):
        return ["T", node.type, str(node), node.start_pos, node.line, node.column, node.end_line,
                node.end_column, node.end_pos]
    if node is None:
        return None
    raise TypeError(f"not a tree: {type(node).__name__}")


def _decode_tree(enc):
    """The tree :func:`_encode_tree` wrote (TypeError/ValueError for anything else)."""
    if enc is None:
        return None
    if enc[0] == "R" and len(enc) == 3 and isinstance(enc[1], str) and isinstance(enc[2], list):
        return Tree(enc[1], [_decode_tree(c) for c in enc[2]])
    if enc[0] == "T" and len(enc) == 9 and isinstance(enc[1], str) and isinstance(enc[2], str) and \
            all(x is None or type(x) is int for x in enc[3:]):
        return Token(enc[1], enc[2], *enc[3:])
    raise ValueError("not a stored tree")


_STORED = _StoredTrees()


class ExprSyntaxError(Exception):
    """An expression does not parse. ``line``/``column`` are 1-based inside the expression text."""

    def __init__(self, message: str, line: int, column: int):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def parse(text: str) -> Tree:
    """Parse one expression (str) to a syntax tree (:class:`~interpreter.expr.syntax.Tree`); raises
    :class:`ExprSyntaxError`."""
    if not isinstance(text, str):
        text = _literal_text(text)
    tree = _TREE_CACHE.get(text)
    if tree is not None:
        if _STORED.shelf_path is not None:
            _STORED.seen(text, tree)
        return tree
    tree = _STORED.get(text)
    if tree is not None:
        _TREE_CACHE[text] = tree
        return tree
    from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken
    try:
        tree = _lark_parse(text)
    except UnexpectedEOF as exc:
        lines = text.split("\n")
        raise ExprSyntaxError(f"the expression ends too soon (expected {_expected(exc)})",
                              len(lines), len(lines[-1]) + 1) from None
    except UnexpectedToken as exc:
        if exc.token.type == "$END":
            lines = text.split("\n")
            raise ExprSyntaxError(f"the expression ends too soon (expected {_expected(exc)})",
                                  len(lines), len(lines[-1]) + 1) from None
        raise ExprSyntaxError(f"unexpected {str(exc.token)!r} (expected {_expected(exc)})",
                              exc.line, exc.column) from None
    except UnexpectedCharacters as exc:
        raise ExprSyntaxError(f"unexpected character {text[exc.pos_in_stream]!r}", exc.line, exc.column) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise ExprSyntaxError(str(exc), getattr(exc, "line", 1), getattr(exc, "column", 1)) from None
    tree = _filters(tree)
    _TREE_CACHE[text] = tree
    _STORED.put(text, tree)
    return tree


def _filters(tree):
    """``tree`` with each ``[EXPR where COND]`` (``filter_in_``) made a ``filter_`` node
    ``[NAME, SOURCE, COND]``: EXPR must read ``NAME in SOURCE``, where SOURCE may go on with
    ``and``/``or`` as before (``[c in a or b where ...]`` filters ``a or b``). Raises
    :class:`ExprSyntaxError` at EXPR for any other EXPR."""
    if type(tree) is not Tree:
        return tree
    todo = [tree]
    while todo:
        t = todo.pop()
        todo.extend(c for c in t.children if type(c) is Tree)
        if t.data == "filter_in_":
            split = _split_in(t.children[0])
            if split is None:
                tok = next((x for x in _tokens(t.children[0])), None)
                raise ExprSyntaxError("a filter reads [NAME in COLLECTION where CONDITION]",
                                      getattr(tok, "line", 1) or 1, getattr(tok, "column", 1) or 1)
            t.data, t.children = "filter_", [split[0], split[1], t.children[1]]
    return tree


def _split_in(node):
    """(NAME token, SOURCE tree) when ``node`` reads ``NAME in SOURCE`` with SOURCE joined on by
    ``and``/``or`` (left-associative, as the old ``or_test`` source was read); else None."""
    if type(node) is not Tree:
        return None
    if node.data == "in_":
        left = node.children[0]
        if type(left) is Tree and left.data == "name" and type(left.children[0]) is Token:
            return left.children[0], node.children[1]
        return None
    if node.data in ("or_", "and_") and len(node.children) == 2:
        inner = _split_in(node.children[0])
        if inner is not None:
            return inner[0], Tree(node.data, [inner[1], node.children[1]])
    return None


def _tokens(node):
    """The tokens of ``node`` in order (for an error's position)."""
    todo = [node]
    while todo:
        t = todo.pop()
        if type(t) is Token:
            yield t
        elif type(t) is Tree:
            todo.extend(reversed(t.children))


def _lark_parse(text: str) -> Tree:
    """``text`` parsed by the Lark parser (no cache), as a :class:`~interpreter.expr.syntax.Tree`;
    raises Lark's ``UnexpectedInput`` errors."""
    global _PARSER
    if _PARSER is None:
        _PARSER = _make_parser()
    return from_lark(_PARSER.parse(text))


_TOKEN_WORDS = {"RPAR": "')'", "RSQB": "']'", "RBRACE": "'}'", "COMMA": "','", "NAME": "a name",
                "NUMBER": "a number", "STRING": "a string", "WHERE": "'where'", "ELSE": "'else'",
                "COLON": "':'", "SEMICOLON": "';'", "LPAR": "'('", "LSQB": "'['", "IN": "'in'",
                "OR": "'or'", "AND": "'and'", "DOT": "'.'", "FOR": "'for'"}


def _expected(exc) -> str:
    names = sorted({_TOKEN_WORDS.get(t, t.lower()) for t in (exc.expected or [])})
    if len(names) > 6:
        return "a value or an operator"
    return ", ".join(names) or "more"


def _literal_text(value) -> str:
    """YAML may hand us a number or boolean where an expression is expected."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
