"""What an expression of the spec refers to: names, attributes, options, calls.

Expressions are parsed with the engine's own Lark parser (``interpreter.expr.compiler.parse``,
which caches trees), so the analysis sees exactly what the engine compiles.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..expr.syntax import Token, Tree

from ..expr.compiler import ExprSyntaxError, parse

TEMPLATE = re.compile(r"\{([^{}]*)\}")


@dataclass
class Refs:
    """``names``: free names read; ``attrs``: attribute names read (``x.NAME``); ``options``:
    ``options.NAME`` read; ``calls``: functions called; ``strings``: string literals;
    ``ok``: False when it did not parse."""

    names: set = field(default_factory=set)
    attrs: set = field(default_factory=set)
    options: set = field(default_factory=set)
    calls: set = field(default_factory=set)
    strings: set = field(default_factory=set)
    ok: bool = True

    def update(self, other: "Refs") -> "Refs":
        self.names |= other.names
        self.attrs |= other.attrs
        self.options |= other.options
        self.calls |= other.calls
        self.strings |= other.strings
        self.ok = self.ok and other.ok
        return self


_CACHE: dict = {}


def refs(text) -> Refs:
    """The references of one expression (a fresh copy; never raises)."""
    key = text if isinstance(text, str) else repr(text)
    cached = _CACHE.get(key)
    if cached is None:
        cached = Refs()
        if isinstance(text, str) or text is None or isinstance(text, (int, float, bool)):
            try:
                tree = parse(text)
            except ExprSyntaxError:
                cached.ok = False
            else:
                bound: set = set()
                _walk(tree, cached, bound)
                cached.names -= bound
        _CACHE[key] = cached
    return Refs(set(cached.names), set(cached.attrs), set(cached.options), set(cached.calls),
                set(cached.strings), cached.ok)


def tree_refs(tree) -> Refs:
    """The references of a parsed expression tree (or of a part of one)."""
    out, bound = Refs(), set()
    _walk(tree, out, bound)
    out.names -= bound
    return out


def template_refs(text) -> Refs:
    """The references of every ``{expr}`` in a log/end text."""
    out = Refs()
    for m in TEMPLATE.finditer(str(text or "")):
        out.update(refs(m.group(1)))
    return out


def _walk(t, out: Refs, bound: set) -> None:
    if not isinstance(t, Tree):
        return
    d = t.data
    ch = t.children
    if d == "name":
        out.names.add(str(ch[0]))
        return
    if d == "string":
        out.strings.add(str(ch[0])[1:-1])
        return
    if d == "attr":
        obj, name = ch
        if isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options":
            out.options.add(str(name))
            return
        out.attrs.add(str(name))
        _walk(obj, out, bound)
        return
    if d == "call":
        out.calls.add(str(ch[0]))
        for a in ch[1:]:
            _walk(a, out, bound)
        return
    if d == "lambda_":
        bound.add(str(ch[0]))
        _walk(ch[1], out, bound)
        return
    if d == "let_expr":
        bound.add(str(ch[0]))
        _walk(ch[1], out, bound)
        _walk(ch[2], out, bound)
        return
    if d == "map_":
        bound.add(str(ch[1]))
        for a in (ch[0], ch[2], ch[3] if len(ch) > 3 else None):
            _walk(a, out, bound)
        return
    if d == "nested_map_":
        bound.update(str(c) for c in ch if isinstance(c, Token))
        for a in ch:
            if not isinstance(a, Token):
                _walk(a, out, bound)
        return
    if d == "filter_":
        bound.add(str(ch[0]))
        _walk(ch[1], out, bound)
        _walk(ch[2], out, bound)
        return
    for c in ch:
        if not isinstance(c, Token):
            _walk(c, out, bound)


def define_name(key) -> str:
    """``"may_play(c, p)"`` -> ``"may_play"``."""
    return str(key).split("(", 1)[0].strip()


def define_params(key) -> list:
    s = str(key)
    if "(" not in s:
        return []
    return [p.strip() for p in s.split("(", 1)[1].rstrip(") ").split(",") if p.strip()]


def define_refs(spec: dict) -> dict:
    """``{define name: Refs}`` with the references of every define it calls folded in."""
    direct = {}
    for key, body in (spec.get("define") or {}).items():
        r = refs(body)
        r.names -= set(define_params(key))
        direct[define_name(key)] = r
    out = {}
    for name in direct:
        seen, todo, total = {name}, [name], Refs()
        while todo:
            cur = todo.pop()
            r = direct[cur]
            total.update(r)
            for callee in (r.calls | r.names) & direct.keys():
                if callee not in seen:
                    seen.add(callee)
                    todo.append(callee)
        total.calls |= seen - {name}
        out[name] = total
    return out


def closure(r: Refs, defines: dict) -> Refs:
    """``r`` plus the references of the defines it uses (called, or read as a derived value)."""
    total = Refs().update(r)
    for name in (r.calls | r.names) & defines.keys():
        total.update(defines[name])
        total.calls.add(name)
    return total
