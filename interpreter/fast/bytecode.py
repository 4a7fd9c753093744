"""The kernel's generated module, translated to the bytecode of :mod:`interpreter.fast.vm`.

The type pass (:mod:`interpreter.fast.typepass`) writes a spec's rules as a numba module from fixed
templates. Its functions use a small part of Python: integers and booleans, the layout's arrays
indexed by one or two numbers, module-level tables (tuples of numbers), ``for ... in range``,
``while``, ``if``, ``break``, ``return``, ``yield`` (the step module's generator), calls of each
other and of the fixed functions of :mod:`interpreter.fast.runtime`. :func:`translate`
reads that module's syntax tree (never runs it) and writes the same functions as instructions of
:data:`interpreter.fast.vmops.OPS`, which one compiled machine runs for every spec. So a rule is
still defined once, in the type pass: the machine and numba run the same text.

Anything outside that part of Python raises :class:`~interpreter.fast.lowtypes.NotTyped` naming
it: the spec then runs as numba compiles it, as before.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from .lowtypes import NULL, NotTyped
from .vmops import ARRAYS, ARRAYS_2D, BINARY, CALL_KINDS, COMPARE, IMMEDIATE, OPCODE, call_op

_NEGATE = {"Eq": "NotEq", "NotEq": "Eq", "Lt": "GtE", "GtE": "Lt", "Gt": "LtE", "LtE": "Gt"}


def _simple(e) -> bool:
    """Whether ``e`` is one instruction once its operands are computed (it may write its result
    where one of them is: it reads them first)."""
    return isinstance(e, (ast.BinOp, ast.UnaryOp, ast.Subscript, ast.Call)) or (
        isinstance(e, ast.Compare) and len(e.ops) == 1)


@dataclass
class Program:
    """A translated module: ``code`` (int64 instructions), ``constants`` (the values at the bottom
    of the frame array F), ``entries`` (function -> pc of its first instruction), ``params``
    (function -> its value parameters, in order: in F from the function's frame's first place),
    ``bases`` (root -> its frame's first place: the roots' frames one above another, right above
    the constants) and ``frames`` (the places above the constants the frames take)."""
    code: np.ndarray
    constants: np.ndarray
    entries: dict
    params: dict
    bases: dict
    frames: int


class _Function:
    """One function's translation: locals (name -> slot), temporaries above them, jumps to patch."""

    def __init__(self, tr, fn: ast.FunctionDef):
        self.tr, self.name = tr, fn.name
        self.params = [a.arg for a in fn.args.args if a.arg not in ARRAYS]
        self.arrays = [a.arg for a in fn.args.args]
        self.slots = {p: k for k, p in enumerate(self.params)}
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in self.slots:
                if node.id in ARRAYS and not _raw_view(node):
                    raise NotTyped(f"{fn.name} assigns the array {node.id}")
                self.slots[node.id] = len(self.slots)
        self.top = self.size = len(self.slots)
        self.loops: list = []  # the break jumps to patch, per loop
        self.places: list = []  # where the code holds a value operand (a local odd, a constant even)
        self.callees: set = set()

    # --- operands
    def temp(self) -> int:
        slot = self.top
        self.top += 1
        self.size = max(self.size, self.top)
        return slot * 2 + 1

    def local(self, name: str) -> int:
        return self.slots[name] * 2 + 1

    def emit(self, op: str, *operands) -> int:
        """Append an instruction; returns the place after it. Value operands are given as
        :meth:`temp`/:meth:`local`/constant operands (placed in F when the program is linked)."""
        code = self.tr.code
        code.append(OPCODE[op])
        fixed = IMMEDIATE.get(op, ())
        self.places += [len(code) + k for k in range(len(operands)) if k + 1 not in fixed]
        code.extend(operands)
        return len(code)

    def label(self) -> int:
        return len(self.tr.code)

    def patch(self, at: int, target: int) -> None:
        self.tr.code[at] = target

    # --- expressions
    def expr(self, e, dst=None) -> int:
        """The operand holding ``e``'s value (``dst`` when given and the value is computed)."""
        if isinstance(e, ast.Constant) and isinstance(e.value, (bool, int)):
            return self.tr.constant(int(e.value))
        if isinstance(e, ast.Name):
            if e.id in self.slots:
                return self.local(e.id)
            if e.id in self.tr.names:
                return self.tr.constant(self.tr.names[e.id])
            raise NotTyped(f"{self.name} reads {e.id}, which the bytecode machine does not know")
        if isinstance(e, ast.BinOp) and type(e.op).__name__ in BINARY:
            a, b = self.expr(e.left), self.expr(e.right)
            d = dst if dst is not None else self.temp()
            self.emit(type(e.op).__name__, d, a, b)
            return d
        if isinstance(e, ast.UnaryOp):
            a = self.expr(e.operand)
            if isinstance(e.op, ast.UAdd):
                return a
            if not isinstance(e.op, (ast.USub, ast.Not)):
                raise NotTyped(f"{self.name}: the bytecode machine has no {type(e.op).__name__}")
            d = dst if dst is not None else self.temp()
            self.emit("Neg" if isinstance(e.op, ast.USub) else "Not", d, a)
            return d
        if isinstance(e, ast.Compare):
            if len(e.ops) == 1:
                a, b = self.expr(e.left), self.expr(e.comparators[0])
                d = dst if dst is not None else self.temp()
                self.emit(self._compare(e.ops[0]), d, a, b)
                return d
            d, ends, left = self.temp(), [], self.expr(e.left)
            for op, right in zip(e.ops, e.comparators):  # a < b < c: b is read once, as Python does
                b = self.expr(right)
                self.emit(self._compare(op), d, left, b)
                ends.append(self.emit("JZ", d, 0) - 1)
                left = b
            for at in ends:
                self.patch(at, self.label())
            return d
        if isinstance(e, ast.BoolOp):  # the value of the operand that decides, as Python's and/or
            d, ends = self.temp(), []
            for k, v in enumerate(e.values):
                self.value_to(v, d)
                if k < len(e.values) - 1:
                    ends.append(self.emit("JZ" if isinstance(e.op, ast.And) else "JNZ", d, 0) - 1)
            for at in ends:
                self.patch(at, self.label())
            return d
        if isinstance(e, ast.IfExp):
            d, other = self.temp(), []
            self.branch(e.test, False, other)
            self.value_to(e.body, d)
            end = self.emit("JMP", 0) - 1
            self.patch_all(other, self.label())
            self.value_to(e.orelse, d)
            self.patch(end, self.label())
            return d
        if isinstance(e, ast.Subscript) and isinstance(e.value, ast.Name) and e.value.id in self.tr.tables:
            d = dst if dst is not None else self.temp()  # an entry of a table of the module (a tuple)
            self.emit("LDK", d, self.tr.table(e.value.id), self.expr(e.slice))
            return d
        if isinstance(e, ast.Subscript):
            array, index = self._element(e)
            d = dst if dst is not None else self.temp()
            self.emit(f"LD_{array}", d, *index)
            return d
        if isinstance(e, ast.Call):
            return self.call(e, dst)
        raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(e)[:60]}")

    def value_to(self, e, d: int) -> None:
        """``e``'s value into the slot ``d``."""
        got = self.expr(e, d if _simple(e) else None)
        if got != d:
            self.emit("MOV", d, got)

    def branch(self, test, when: bool, jumps: list) -> None:
        """Jumps taken when ``test``'s truth is ``when`` (their places to patch added to
        ``jumps``), else on to the next instruction: a comparison is one instruction, ``and``,
        ``or`` and ``not`` only jumps, evaluated as far as Python evaluates them."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            a, b = self.expr(test.left), self.expr(test.comparators[0])
            name = self._compare(test.ops[0])
            jumps.append(self.emit("J" + (name if when else _NEGATE[name]), a, b, 0) - 1)
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self.branch(test.operand, not when, jumps)
        elif isinstance(test, ast.BoolOp):
            if when == isinstance(test.op, ast.Or):  # any operand decides: each may jump
                for v in test.values:
                    self.branch(v, when, jumps)
            else:  # every operand must: one that decides otherwise goes on past the others
                past: list = []
                for v in test.values[:-1]:
                    self.branch(v, not when, past)
                self.branch(test.values[-1], when, jumps)
                self.patch_all(past, self.label())
        else:
            jumps.append(self.emit("JNZ" if when else "JZ", self.expr(test), 0) - 1)

    def patch_all(self, places, target: int) -> None:
        for at in places:
            self.patch(at, target)

    @staticmethod
    def _compare(op) -> str:
        name = type(op).__name__
        if name not in COMPARE:
            raise NotTyped(f"the bytecode machine has no comparison {name}")
        return name

    def _array(self, e) -> str:
        if not (isinstance(e, ast.Name) and e.id in ARRAYS):
            raise NotTyped(f"{self.name}: {ast.unparse(e)[:60]} is not an array of the kernel's layout")
        return e.id

    def _element(self, e) -> tuple:
        """``(array, index operands)`` of ``A[i]`` or ``A[i, j]`` (one number of the array)."""
        array = self._array(e.value)
        parts = e.slice.elts if isinstance(e.slice, ast.Tuple) else [e.slice]
        if len(parts) != (2 if array in ARRAYS_2D else 1) or any(isinstance(p, ast.Slice) for p in parts):
            raise NotTyped(f"{self.name}: {ast.unparse(e)[:60]} is not one number of {array}")
        return array, [self.expr(p) for p in parts]

    def call(self, e: ast.Call, dst=None) -> int:
        name = e.func.id if isinstance(e.func, ast.Name) else None
        if e.keywords or name is None:
            raise NotTyped(f"{self.name}: the bytecode machine has no call {ast.unparse(e)[:60]}")
        if name == "len" and len(e.args) == 1 and isinstance(e.args[0], ast.Subscript):
            array = self._array(e.args[0].value)
            if array not in ARRAYS_2D or isinstance(e.args[0].slice, ast.Tuple):
                raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(e)[:60]}")
            d = dst if dst is not None else self.temp()
            self.emit(f"LEN_{array}", d)
            return d
        if name in self.tr.functions:
            callee = self.tr.functions[name]
            params = [a.arg for a in callee.args.args]
            if len(params) != len(e.args):
                raise NotTyped(f"{self.name} calls {name} with {len(e.args)} arguments")
            values = []
            for p, a in zip(params, e.args):
                if p in ARRAYS:
                    if not (isinstance(a, ast.Name) and a.id == p):
                        raise NotTyped(f"{self.name} passes {ast.unparse(a)[:40]} as {name}'s {p}")
                else:
                    values.append(self.expr(a))
            d = dst if dst is not None else self.temp()
            at = self.emit("CALL", 0, 0, d, len(values), *values)
            self.tr.calls.append((at - 4 - len(values), name))  # (its entry and frame: when linked)
            self.callees.add(name)
            return d
        kinds, operands = [], []
        for a in e.args:
            if isinstance(a, ast.Name) and a.id in ARRAYS:
                kinds.append(a.id)
            elif (isinstance(a, ast.Subscript) and isinstance(a.value, ast.Name) and a.value.id in ARRAYS_2D
                  and not isinstance(a.slice, (ast.Tuple, ast.Slice))):
                kinds.append(a.value.id + "[]")
                operands.append(self.expr(a.slice))
            else:
                kinds.append("s")
                operands.append(self.expr(a))
        result = CALL_KINDS.get((name, tuple(kinds)))
        if result is None:
            raise NotTyped(f"{self.name}: the bytecode machine has no {name}({', '.join(kinds)})")
        if result == "v":
            d = dst if dst is not None else self.temp()
            self.emit(call_op(name, tuple(kinds)), d, *operands)
            return d
        self.emit(call_op(name, tuple(kinds)), *operands)
        return self.tr.constant(0)

    # --- statements
    def block(self, body) -> None:
        for s in body:
            saved = self.top
            self.statement(s)
            self.top = saved

    def statement(self, s) -> None:
        if isinstance(s, ast.Assign) and _raw_view(s.targets[0]):
            return  # X = raw(X): numba's view without reference counts (the machine's arrays are its own)
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Yield):
            if self.name not in self.tr.roots:  # (a callee's frame is not kept across a pause)
                raise NotTyped(f"{self.name} yields but is called: the bytecode machine pauses roots only")
            self.emit("YIELD", self.expr(s.value.value) if s.value.value is not None else self.tr.constant(0))
            return
        if isinstance(s, ast.Assign):
            if len(s.targets) != 1:
                raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(s)[:60]}")
            self.assign(s.targets[0], s.value)
        elif isinstance(s, ast.AugAssign):
            op = type(s.op).__name__
            if op not in BINARY:
                raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(s)[:60]}")
            if isinstance(s.target, ast.Name):
                d = self.local(s.target.id)
                self.emit(op, d, d, self.expr(s.value))
            else:
                array, index = self._element(s.target)
                old = self.temp()
                self.emit(f"LD_{array}", old, *index)
                self.emit(op, old, old, self.expr(s.value))
                self.emit(f"ST_{array}", *index, old)
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
                return  # a docstring
            if not isinstance(s.value, ast.Call):
                raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(s)[:60]}")
            self.call(s.value)
        elif isinstance(s, ast.If):
            other: list = []
            self.branch(s.test, False, other)
            self.block(s.body)
            if s.orelse:
                end = self.emit("JMP", 0) - 1
                self.patch_all(other, self.label())
                self.block(s.orelse)
                self.patch(end, self.label())
            else:
                self.patch_all(other, self.label())
        elif isinstance(s, ast.For):
            self.for_range(s)
        elif isinstance(s, ast.While):
            if s.orelse:
                raise NotTyped(f"{self.name}: the bytecode machine has no while ... else")
            start, out = self.label(), []
            self.loops.append([])
            self.branch(s.test, False, out)
            self.block(s.body)
            self.emit("JMP", start)
            self._close_loop(out)
        elif isinstance(s, ast.Break):
            self.loops[-1].append(self.emit("JMP", 0) - 1)
        elif isinstance(s, ast.Return):
            self.emit("RET", self.expr(s.value) if s.value is not None else self.tr.constant(0))
        elif not isinstance(s, ast.Pass):
            raise NotTyped(f"{self.name}: the bytecode machine has no {type(s).__name__} statement")

    def _close_loop(self, out: list) -> None:
        self.patch_all(out + self.loops.pop(), self.label())

    def assign(self, target, value) -> None:
        if isinstance(target, ast.Name):
            self.value_to(value, self.local(target.id))
        elif isinstance(target, ast.Subscript):
            array, index = self._element(target)
            self.emit(f"ST_{array}", *index, self.expr(value))
        else:
            raise NotTyped(f"{self.name}: the bytecode machine has no {ast.unparse(target)[:60]} = ...")

    def for_range(self, s: ast.For) -> None:
        """``for x in range(...)``: the range's bounds read once (as Python does), then ``FOR``."""
        it = s.iter
        if (s.orelse or not isinstance(s.target, ast.Name) or not isinstance(it, ast.Call)
                or not isinstance(it.func, ast.Name) or it.func.id != "range" or not 1 <= len(it.args) <= 3):
            raise NotTyped(f"{self.name}: the bytecode machine has no for ... in {ast.unparse(it)[:60]}")
        args = it.args if len(it.args) > 1 else [ast.Constant(0), it.args[0]]
        cur, stop, step = self.temp(), self.temp(), self.temp()
        self.emit("MOV", cur, self.expr(args[0]))
        self.emit("MOV", stop, self.expr(args[1]))
        self.emit("MOV", step, self.expr(args[2]) if len(args) == 3 else self.tr.constant(1))
        x = self.local(s.target.id)
        self.loops.append([])
        out = self.emit("FOR", cur, stop, step, x, 0) - 1  # the first number (or none: past the loop)
        body = self.label()
        self.block(s.body)
        self.emit("LOOP", cur, stop, step, x, body)  # the next (back to the body), or on
        self._close_loop([out])

    def translate(self, fn: ast.FunctionDef) -> None:
        self.block(fn.body)
        self.emit("RET", self.tr.constant(0))


def _raw_view(target) -> bool:
    """Whether ``target`` is the ``X`` of a statement ``X = raw(X)`` (its parent is set by
    :func:`translate`)."""
    s = getattr(target, "parent", None)
    return (isinstance(s, ast.Assign) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
            and s.value.func.id == "raw" and len(s.value.args) == 1 and isinstance(s.value.args[0], ast.Name)
            and isinstance(target, ast.Name) and s.value.args[0].id == target.id and target.id in ARRAYS)


def _number(e) -> int | None:
    """The integer a constant of the module's text is (``-5`` is a minus and a 5), else None."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        n = _number(e.operand)
        return None if n is None else -n
    return int(e.value) if isinstance(e, ast.Constant) and isinstance(e.value, (bool, int)) else None


class _Translator:
    def __init__(self, tree: ast.Module):
        self.code: list = [0]  # (pc 0 is no function's)
        self.values: list = []  # the constants, then the tables (module-level tuples) one after another
        self.constants: dict = {}  # value -> its place in values
        self.tables: dict = {}  # name -> its numbers, then (when read) its first place in values
        self.calls: list = []  # (position of a CALL's entry operand, callee)
        self.names = {"NULL": NULL}
        self.functions = {}
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name != "run":
                self.functions[node.name] = node
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)):
                self.names[node.targets[0].id] = node.value.value
            elif (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                  and isinstance(node.value, ast.Tuple) and all(_number(v) is not None for v in node.value.elts)):
                self.tables[node.targets[0].id] = [_number(v) for v in node.value.elts]

    def constant(self, value: int) -> int:
        """The operand of a constant (even: a place at the bottom of F)."""
        if value not in self.constants:
            self.constants[value] = len(self.values)
            self.values.append(value)
        return self.constants[value] * 2

    def table(self, name: str) -> int:
        """The first place of a table in F (laid out there at its first read)."""
        if isinstance(self.tables[name], list):
            numbers = self.tables[name]
            self.tables[name] = len(self.values)
            self.values += numbers
        return self.tables[name]

    def program(self, roots) -> Program:
        self.roots = roots
        done, entries, functions = set(), {}, {}
        todo = list(roots)
        while todo:
            name = todo.pop()
            if name in done:
                continue
            if name not in self.functions:
                raise NotTyped(f"the module has no function {name}")
            done.add(name)
            fn = functions[name] = _Function(self, self.functions[name])
            entries[name] = len(self.code)
            fn.translate(self.functions[name])
            todo += sorted(fn.callees)
        # Each function's frame at a fixed place: above the frames of all its callers (callers
        # first: the calls' order from the roots), so above every frame live when it runs.
        order, state = [], {}

        def visit(name):
            if state.get(name) == 1:
                raise NotTyped(f"{name} calls itself (the bytecode machine's frames are fixed)")
            if name not in state:
                state[name] = 1
                for callee in sorted(functions[name].callees):
                    visit(callee)
                state[name] = 2
                order.append(name)
        for root in roots:
            visit(root)
        bottom = len(self.values) or 1
        base, top = {}, bottom
        for root in roots:  # the roots' frames one above another: a generator paused at a yield of its
            base[root] = top  # own body keeps its frame while another root runs (a game's score)
            top += functions[root].size
        for name in reversed(order):
            for callee in functions[name].callees:
                base[callee] = max(base.get(callee, bottom), base[name] + functions[name].size)
        for name, fn in functions.items():
            for at in fn.places:
                o = self.code[at]
                self.code[at] = base[name] + (o >> 1) if o & 1 else o >> 1
        for at, name in self.calls:
            self.code[at], self.code[at + 1] = entries[name], base[name]
        values = np.array(self.values or [0], dtype=np.int64)
        return Program(np.array(self.code, dtype=np.int64), values, entries,
                       {name: fn.params for name, fn in functions.items()}, {root: base[root] for root in roots},
                       max(base[n] + fn.size for n, fn in functions.items()) - bottom)


def translate(source: str, roots=("flow", "score")) -> Program:
    """The :class:`Program` of the functions ``roots`` of a generated module (``source``) and every
    function they call. Raises :class:`NotTyped` naming what the bytecode machine lacks."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            child.parent = node
    return _Translator(tree).program(roots)
