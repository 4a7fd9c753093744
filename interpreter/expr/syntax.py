"""The syntax tree of a parsed expression: :class:`Tree` (a rule and its children) and
:class:`Token` (a piece of the text). They answer as Lark's classes of the same names
(``data``/``children``; a Token is the ``str`` it matched, with ``type`` and its position),
so that the rest of Rulebook reads trees without importing Lark: Lark, a quarter of a
second-long start-up's imports, is loaded only when an expression must really be parsed (one
not in the stored trees of :mod:`interpreter.expr.compiler`); its trees are turned into these
by :func:`from_lark`.
"""
from __future__ import annotations


class Tree:
    """A node of the expression grammar: ``data`` (the rule's name, str) and ``children`` (list
    of Tree, Token or None)."""

    __slots__ = ("data", "children")

    def __init__(self, data: str, children: list):
        self.data, self.children = data, children

    def __eq__(self, other) -> bool:
        return type(other) is Tree and self.data == other.data and self.children == other.children

    def __hash__(self) -> int:
        return hash((self.data, tuple(self.children)))

    def __repr__(self) -> str:
        return f"Tree({self.data!r}, {self.children!r})"

    def iter_subtrees(self):
        """Every Tree in this one, itself included (depth first, parents before children)."""
        todo = [self]
        while todo:
            t = todo.pop()
            yield t
            todo.extend(c for c in reversed(t.children) if type(c) is Tree)


class Token(str):
    """A token of the expression text: the ``str`` matched, its ``type`` (the grammar's terminal
    name) and its position (``start_pos``/``end_pos`` 0-based offsets, ``line``/``column`` and
    ``end_line``/``end_column`` 1-based; None when unknown)."""

    def __new__(cls, type_: str, value: str, start_pos=None, line=None, column=None, end_line=None,
                end_column=None, end_pos=None):
        self = super().__new__(cls, value)
        self.type, self.start_pos, self.line, self.column = type_, start_pos, line, column
        self.end_line, self.end_column, self.end_pos = end_line, end_column, end_pos
        return self

    @property
    def value(self) -> str:
        return str(self)

    def __eq__(self, other) -> bool:  # as Lark's: tokens of different types differ
        if isinstance(other, Token) and self.type != other.type:
            return False
        return str.__eq__(self, other)

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    __hash__ = str.__hash__

    def __repr__(self) -> str:
        return f"Token({self.type!r}, {str(self)!r})"

    def __reduce__(self):
        return Token, (self.type, str(self), self.start_pos, self.line, self.column, self.end_line,
                       self.end_column, self.end_pos)


def from_lark(node):
    """A Lark parse tree as :class:`Tree`/:class:`Token` (None stays None). Iterative: a tree
    nested deeper than Python's recursion limit is converted too (the compiler then refuses it
    with its own message)."""
    def leaf(n):
        if n is None:
            return None
        return Token(n.type, str(n), n.start_pos, n.line, n.column, n.end_line, n.end_column, n.end_pos)
    if getattr(node, "children", None) is None:
        return leaf(node)
    root = Tree(str(node.data), [])
    todo = [(node, root)]
    while todo:
        lark_tree, ours = todo.pop()
        for c in lark_tree.children:
            if getattr(c, "children", None) is None:
                ours.children.append(leaf(c))
            else:
                sub = Tree(str(c.data), [])
                ours.children.append(sub)
                todo.append((c, sub))
    return root
