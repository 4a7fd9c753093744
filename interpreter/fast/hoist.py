"""Loop-invariant reads out of a generated loop (used by :func:`interpreter.fast.calls._hoist`).

A comprehension's filter or a choice's ``where`` often reads a value that does not depend on the
item, e.g. the suit to follow in ``[c in hand where c.suit == lead_suit]``, lowered to an
``if ... else`` of attribute reads of another card: computed once per item it cost more than the
item's own test. :func:`hoist_pure` computes such a part once, before the loop, when it is made
only of reads that cannot fail and cannot change: the pure runtime calls (``attr_mode`` and the
like, safe on any card or null), helpers (pure), names not set in the loop, number constants,
comparisons, ``and``/``or``/``not``, ``if ... else`` and ``+ - *`` (no division: a guarded
``// 0`` must stay guarded), and state arrays read at constant places (``GV[9]``) when the loop's
lines write no such array. Computing a part that a short-circuit would have skipped gives the same
result (every such read is safe on any input), so only where the work is done changes.

The lines come from the fixed templates (no spec text); the rewritten lines stay in the template
grammar (:mod:`interpreter.fast.guard` checks every module).
"""
from __future__ import annotations

import ast
import re

# calls that only read the state and are defined for any argument (null cards and seats included)
PURE = frozenset({"attr_get", "attr_mode", "card_get", "add_null", "if_null", "min2", "max2", "truthy",
                  "abs", "min", "max"})
_SCRATCH = frozenset({"RI", "MEMO", "TMP", "OPT", "SEEN", "SK", "SB", "RG"})  # rewritten as the loop runs
_OPS = (ast.Add, ast.Sub, ast.Mult, ast.BitAnd, ast.BitOr, ast.BitXor)
_LOOP = re.compile(r"^\s*(for|while) ")
_HELPER = re.compile(r"h[0-9]+")


def _written(lines) -> set:
    """The arrays a line of ``lines`` assigns into (``X[...] = ...``) or hands to a call."""
    text = "\n".join(lines)
    out = set(re.findall(r"^\s*([A-Z]+)\[[^\n]*?\]\s*[-+|&]?=(?!=)", text, re.M))
    for m in re.finditer(r"\b([a-z_][a-z_0-9]*)\(([^()]*)\)", text):  # (a call given an array may write it)
        if m.group(1) not in PURE and m.group(1) not in ("range", "len") and not _HELPER.fullmatch(m.group(1)):
            out |= set(re.findall(r"\b([A-Z]+)\b", m.group(2)))
    return out


def _const_index(node) -> bool:
    parts = node.elts if isinstance(node, ast.Tuple) else [node]
    return all(isinstance(p, ast.Constant) and isinstance(p.value, int) for p in parts)


class _Scan:
    def __init__(self, bound, written):
        self.bound, self.written = bound, written

    def ok(self, node) -> bool:
        """Whether ``node`` is invariant and safe to compute whatever the guards around it."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, bool)) and not isinstance(node.value, str)
        if isinstance(node, ast.Name):
            return node.id not in self.bound and node.id not in _SCRATCH and node.id not in self.written
        if isinstance(node, ast.Call):
            f = node.func
            return (isinstance(f, ast.Name) and (f.id in PURE or _HELPER.fullmatch(f.id)) and not node.keywords
                    and all(self.ok(a) for a in node.args))
        if isinstance(node, ast.Subscript):
            return (isinstance(node.value, ast.Name) and node.value.id not in _SCRATCH
                    and node.value.id not in self.written and _const_index(node.slice))
        if isinstance(node, ast.Compare):
            return self.ok(node.left) and all(self.ok(c) for c in node.comparators)
        if isinstance(node, ast.BoolOp):
            return all(self.ok(v) for v in node.values)
        if isinstance(node, ast.UnaryOp):
            return isinstance(node.op, (ast.Not, ast.USub)) and self.ok(node.operand)
        if isinstance(node, ast.IfExp):
            return self.ok(node.test) and self.ok(node.body) and self.ok(node.orelse)
        if isinstance(node, ast.BinOp):
            return isinstance(node.op, _OPS) and self.ok(node.left) and self.ok(node.right)
        return False

    def spans(self, node, out):
        """The outermost parts of ``node`` worth hoisting (invariant, safe, with a call in them)."""
        if not isinstance(node, (ast.Name, ast.Constant)) and self.ok(node) and \
                any(isinstance(n, ast.Call) for n in ast.walk(node)):
            out.append(node)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.spans(child, out)


def _expr_span(body: str):
    """(start, end) of the expression a line computes (``if E:``, ``elif E:``, ``x = E``,
    ``x += E``, or a bare expression), or None."""
    m = re.match(r"(if|elif) (.*):$", body)
    if m:
        return m.start(2), m.end(2)
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return None
    st = tree.body[0] if len(tree.body) == 1 else None
    if isinstance(st, ast.Expr):
        return 0, len(body)
    if isinstance(st, (ast.Assign, ast.AugAssign)):
        return st.value.col_offset, st.value.end_col_offset
    return None


def hoist_pure(lines, bound, fresh, pre, done):
    """``lines`` with their loop-invariant safe reads (see the module) replaced by names computed
    in ``pre`` (appended to; ``done``: the text of each part already hoisted -> its name). Only
    lines inside a loop of ``lines`` are rewritten (all of them when ``lines`` hold no loop: the
    caller loops over them, as a choice's ``where``)."""
    written = _written(lines)
    text = "\n".join(lines)  # (every name the lines set, generated or a template's own)
    bound = set(bound) | set(re.findall(r"^\s*([A-Za-z_]\w*)\s*[-+|&]?=(?!=)", text, re.M)) | \
        set(re.findall(r"\bfor ([A-Za-z_]\w*) in\b", text))
    scan = _Scan(bound, written)
    caller_loops = not any(_LOOP.match(ln) for ln in lines)  # (then only bare expressions: a `where`)
    in_loop = False
    out = []
    for ln in lines:
        if _LOOP.match(ln):
            in_loop = True
            out.append(ln)
            continue
        body = ln.lstrip()
        span = _expr_span(body) if in_loop or caller_loops else None
        if caller_loops and span is not None and (span != (0, len(body)) or body.startswith(("if ", "elif "))):
            span = None  # (a statement: not the caller's loop body)
        if span is None:
            out.append(ln)
            continue
        a, b = span
        text = body[a:b]
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError:
            out.append(ln)
            continue
        found = []
        scan.spans(tree.body, found)
        if not found:
            out.append(ln)
            continue
        parts = [text[n.col_offset:n.end_col_offset] for n in found]
        for part in sorted(dict.fromkeys(parts), key=len):  # (the shorter first: a longer one reuses their names; ties in order, so that the text is the same in every process)
            if part not in done:
                code = part
                for k in sorted((k for k in done if len(k) < len(part)), key=len, reverse=True):
                    code = re.sub(r"(?<![\w.])" + re.escape(k), done[k], code)
                done[part] = fresh("t")
                pre.append(f"{done[part]} = {code}")
        for node, part in sorted(zip(found, parts), key=lambda np_: np_[0].col_offset, reverse=True):
            text = text[:node.col_offset] + done[part] + text[node.end_col_offset:]
        out.append(ln[:len(ln) - len(body)] + body[:a] + text + body[b:])
    return out
