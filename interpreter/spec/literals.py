"""Checks that catch typos which would otherwise change the rules silently.

A spec compares card attributes and options with text literals (``c.kind == 'wizard'``,
``options.lead_suit == 'official'``). A misspelt literal is valid syntax that is simply never
true, so the game runs with a rule missing. :func:`literal_diagnostics` compares every such
literal with the values the deck (or the option) can actually have and reports the ones no card
can match, with a did-you-mean. It also finds arithmetic and ordering between a number and a
text (``cards_dealt + '1'``), which can only fail at run time.

The checks read the parsed expression trees the compiler recorded (``(path, tree, params)``),
never run anything, and report :class:`~interpreter.errors.Diagnostic` values:

- an error when a literal is not a value the attribute/option can have and a close match exists
  (almost certainly a typo);
- a warning when no close match exists (the comparison can never hold: dead rule text);
- an error for ``+ - / //`` (and ``number % text``) or ``< <= > >=`` between a number and a text literal or a
  variable whose declared initial value is a number;
- an error for ``== != in`` between a number literal and a value that only holds texts, or a text
  literal and one that only holds numbers (``c.rank == '14'``, ``c.suit == 3``): never equal.
"""
from __future__ import annotations

import difflib
import re

from ..expr.syntax import Token, Tree

from ..errors import Diagnostic
from .types import NUMBER, TEXT, element, operand_span, surely

_ORDER_OPS = {"<", "<=", ">", ">="}
NUMERIC = re.compile(r"^\s*-?\d+(\.\d+)?\s*$")  # a text that reads as a number


def _values_text(values) -> str:
    shown = sorted(map(str, values))
    text = ", ".join(shown[:12])
    return text + (", ..." if len(shown) > 12 else "")


class LiteralChecker:
    """Collects diagnostics for one spec.

    ``attr_values``: card attribute name -> set of values any card of the spec can have (every
    card template, whatever its ``when:``, and every declared mode). ``option_values``: choice
    option name -> its list of values. ``numeric_names``: names (game variables, player
    variables) whose initial value is a number. ``locate(path, line_in, col_in)`` turns a
    position inside the expression at ``path`` into a file position.
    """

    def __init__(self, file, attr_values: dict, option_values: dict, numeric_names: set, locate, kinds=None):
        self.file = file
        self.kinds = kinds  # a KindFacts (interpreter.spec.types): what variables and names can hold
        self.attr_values = attr_values
        self.option_values = option_values
        self.numeric_names = numeric_names
        self.locate = locate
        self.out: list[Diagnostic] = []
        self._seen: set = set()

    def check(self, path, text, tree, shadowed=frozenset()) -> None:
        """Check one expression (``tree`` parsed from ``text``); ``shadowed`` are names bound
        around it (parameters, loop variables) that hide game variables of the same name."""
        self._text, self._path = text, path
        env = self.kinds.env_at(path) if self.kinds is not None else {}
        env = {k: v for k, v in env.items() if k in shadowed}
        todo = [(tree, frozenset(shadowed), env)]  # iterative: trees may nest deeper than Python recursion
        while todo:
            t, self._shadowed, self._env = todo.pop()
            if not isinstance(t, Tree):
                continue
            self._node(t)
            inner, inner_env = self._shadowed, self._env
            if t.data in ("let_expr", "lambda_", "map_", "filter_", "nested_map_"):
                names = {str(c) for c in t.children if isinstance(c, Token)}
                inner = inner | names
                inner_env = {k: v for k, v in inner_env.items() if k not in names}
            todo.extend((c, inner, inner_env) for c in t.children if isinstance(c, Tree))

    def _node(self, t) -> None:
        d = t.data
        if d == "compare":
            a, op, b = t.children
            op = str(op)
            if op in ("==", "!="):
                self._literal_against(a, b)
                self._literal_against(b, a)
                self._never_equal(a, b, op)
                self._never_equal(b, a, op)
            elif op in _ORDER_OPS:
                self._mixed(a, b, f"'{op}'", t.children[1])
        elif d in ("in_", "not_in"):
            a, b = t.children
            if isinstance(b, Tree) and b.data == "list_":
                for item in b.children:
                    if item is not None:
                        self._literal_against(a, item)
                        self._never_equal(a, item, "in")
        elif d == "binop":
            a, op, b = t.children
            op = str(op)
            # text * n repeats and text % x formats; the other mixes always fail
            if op in ("+", "-", "/", "//") or (op == "%" and self._kind(a) == "number"):
                self._mixed(a, b, f"'{op}'", t.children[1])

    # -- literals compared with attributes and options ------------------------------------------
    def _literal_against(self, subject, lit) -> None:
        if not (isinstance(lit, Tree) and lit.data == "string"):
            return
        if not (isinstance(subject, Tree) and subject.data == "attr"):
            return
        obj, attr = subject.children
        attr = str(attr)
        value = str(lit.children[0])[1:-1]
        if isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options":
            values = self.option_values.get(attr)
            what = f"option {attr}"
        else:
            values = self.attr_values.get(attr)
            what = f"card attribute {attr}" if attr != "name" else "card name"
        if values is None:
            return
        texts = {str(v) for v in values if isinstance(v, str)}
        if value in texts or not texts:
            return
        key = (self._path, attr, value)
        if key in self._seen:
            return
        self._seen.add(key)
        close = difflib.get_close_matches(value, sorted(texts), n=1, cutoff=0.6)
        line, col = self._where(lit.children[0])
        if close:
            self.out.append(Diagnostic(
                self.file, line, col, f"no card or option can make this true: {what} is never {value!r}",
                f"did you mean {close[0]!r}? ({what} takes: {_values_text(texts)})"))
        else:
            self.out.append(Diagnostic(
                self.file, line, col, f"{what} is never {value!r}, so this comparison never holds",
                f"{what} takes: {_values_text(texts)}", "warning"))

    def _never_equal(self, subject, lit, op) -> None:
        """A number literal compared by ``==``/``!=``/``in`` with a value that only holds texts (or
        a text literal with one that only holds numbers): never equal, so the rule silently
        changes (``c.rank == '14'``, ``c.suit == 3``). Reported at the literal."""
        if self.kinds is None or not isinstance(lit, Tree) or lit.data not in ("string", "number"):
            return
        held = self._kinds(subject)
        token = lit.children[0]
        shown = " ".join(_source(self._text, subject).split()) or "this value"
        if lit.data == "string" and surely(held, NUMBER):
            value = str(token)[1:-1]
            fix = f"write {value.strip()}, not {token}" if NUMERIC.match(value) else "compare it with a number"
            kind = "numbers"
        elif lit.data == "number" and surely(held, TEXT):
            values = self._values_of(subject)
            fix = (f"write '{token!s}', not {token!s}" if not values or str(token) in values
                   else f"{shown} takes: {_values_text(values)}")
            kind = "texts"
        else:
            return
        line, col = self._where(token)
        never = "always true" if op == "!=" else "never true"
        self.out.append(Diagnostic(
            self.file, line, col, f"'{op}' between a number and a text is {never}: {shown} holds only {kind}, "
            f"and {token!s} is a {'text' if kind == 'numbers' else 'number'}", fix))

    def _values_of(self, subject):
        """The texts a card attribute or an option ``subject`` can take (empty when not one)."""
        if not (isinstance(subject, Tree) and subject.data == "attr"):
            return set()
        obj, attr = subject.children
        is_option = isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options"
        values = (self.option_values if is_option else self.attr_values).get(str(attr)) or ()
        return {v for v in values if isinstance(v, str)}

    # -- number and text mixed ------------------------------------------------------------------
    def _kind(self, t) -> str | None:
        if isinstance(t, Tree):
            if t.data == "string":
                return "text"
            if t.data == "number":
                return "number"
            if t.data == "name":
                name = str(t.children[0])
                if name not in self._shadowed and name in self.numeric_names:
                    return "number"
            if t.data == "attr":
                obj, attr = t.children
                if not (isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options") \
                        and f".{attr}" in self.numeric_names:
                    return "number"
        return None

    def _kinds(self, t):
        """What ``t`` can hold (see :class:`~interpreter.spec.types.KindFacts`), or None."""
        if self.kinds is None:
            return None
        return self.kinds.kind(t, self._env, self._shadowed - set(self._env))

    def _mixed(self, a, b, op, op_token=None) -> None:
        ka, kb = self._kind(a), self._kind(b)
        if {ka, kb} == {"number", "text"}:
            lit = a if ka == "text" else b
            token = lit.children[0]
            line, col = self._where(token)
            self.out.append(Diagnostic(
                self.file, line, col, f"{op} between a number and a text ({str(token)}) fails when the rules run",
                "write the number without quotes, or use str(x) to build a text"))
            return
        if self.kinds is None or op_token is None:
            return
        if self._list_and_number(a, b, op, op_token):
            return
        # a name that holds a text (a bid chosen from "['0', '1']") against a number
        for x, y, kx in ((a, b, ka), (b, a, kb)):
            why = self.kinds.describe(x, self._env, self._shadowed)
            kx_all, ky_all = self._kinds(x), self._kinds(y)
            text = kx != "number" and ky_all is not None and kx_all is not None and TEXT in kx_all and (
                why or surely(kx_all, TEXT))
            if text and (surely(ky_all, NUMBER) or self._kind(y) == "number"):
                line, col = self._where(op_token)
                shown = " ".join(_source(self._text, x).split()) or "a value"
                self.out.append(Diagnostic(
                    self.file, line, col, f"{op} between a number and a text fails when the rules run: "
                    f"{shown} can be a text", (why + "; " if why else "") +
                    "write numbers without quotes (options: \"[0, 1, 2]\", not \"['0', '1', '2']\")"))
                return

    def _list_and_number(self, a, b, op, op_token) -> bool:
        """Report ``op`` between a value that is surely a list (a zone: ``p.hand + 1``) and one that
        is surely a number, at the operator; whether it was reported."""
        for x, y in ((a, b), (b, a)):
            if element(self._kinds(x)) is None:
                continue
            if not (surely(self._kinds(y), NUMBER) or self._kind(y) == "number"):
                continue
            shown = " ".join(_source(self._text, x).split()) or "a value"
            zone = self.kinds.is_zone(shown, {**self._env, **{k: None for k in self._shadowed}})
            line, col = self._where(op_token)
            self.out.append(Diagnostic(
                self.file, line, col, f"{op} between a number and a list fails when the rules run: {shown} is "
                + ("a zone (a list of cards)" if zone else "a list"),
                f"count({shown}) is how many cards it holds" if zone else
                f"make a number of the list first: count({shown}), sum({shown}), or one item: first({shown})"))
            return True
        return False

    def _where(self, token) -> tuple[int, int]:
        tline = getattr(token, "line", None)
        tcol = getattr(token, "column", None)
        if tline is None or not isinstance(self._text, str):
            return self.locate(self._path, 1, 1)
        return self.locate(self._path, tline, tcol)


def _source(text, t) -> str:
    """The text of the sub-expression ``t`` of the expression ``text`` (empty when unknown)."""
    span = operand_span(t)
    if not span or not isinstance(text, str):
        return ""
    start, end = span
    # the tree keeps no token for a closing bracket: take those the sub-expression opened
    closing = {"(": ")", "[": "]", "{": "}"}
    pending = []
    for ch in text[start:end]:
        if ch in closing:
            pending.append(closing[ch])
        elif pending and ch == pending[-1]:
            pending.pop()
    while pending and end < len(text):
        if text[end] == pending[-1]:
            pending.pop()
        elif not text[end].isspace():
            break
        end += 1
    return text[start:end]


def deck_values(data: dict, cards: list) -> dict:
    """``{attribute: set of values}`` over every card the spec can make (``cards`` is the deck built
    for the chosen options; templates left out by their ``when:`` are read from the spec), with
    ``name`` the card names and ``mode`` the declared mode names."""
    out: dict = {"name": set(), "mode": set()}
    names_known = True
    unknown: set = set()
    for c in cards:
        out["name"].add(c.name)
        for k, v in c.attrs.items():
            out.setdefault(k, set()).add(_hashable(v))
    for entry in data.get("cards") or []:
        if not isinstance(entry, dict):
            continue
        for k, v in (entry.get("attributes") or {}).items():
            out.setdefault(k, set()).add(_hashable(v))
        for k, vs in (entry.get("each") or {}).items():
            if isinstance(vs, list):
                out.setdefault(k, set()).update(_hashable(v) for v in vs)
            elif "when" in entry:
                unknown.add(k)  # computed values of cards left out by `when:` are not known
        for mode, attrs in (entry.get("modes") or {}).items():
            out["mode"].add(str(mode))
            for k, v in (attrs or {}).items():
                out.setdefault(k, set()).add(_hashable(v))
        name = entry.get("name")
        if isinstance(name, str) and "{" not in name:
            out["name"].add(name)
        elif isinstance(name, str) and "when" in entry:
            names_known = False  # a templated name left out by `when:`: its names are not listed
    if not names_known:
        unknown.add("name")
    unknown.update(str(k) for k in (data.get("derived") or {}))  # derived: values of the State
    for k in unknown:
        out.pop(k, None)
    return out


def _hashable(v):
    return v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)
