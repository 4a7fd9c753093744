"""The instruction set of the kernel's bytecode machine (:mod:`interpreter.fast.vm`): one table, from
which both the machine's numba source (:func:`machine_source`) and the translator
(:mod:`interpreter.fast.bytecode`) take their opcodes, so the two cannot disagree.

An instruction is its opcode followed by its operands, in one int64 array. A value operand is
the place of its value in the frame array ``F``: the program's constants sit at its bottom, then
each function's locals at a place of their own (no function of a module calls itself, so a
function's frame can be fixed above every frame that may be live when it runs: see
:mod:`interpreter.fast.bytecode`). Other operands (:data:`IMMEDIATE`) are jump targets and counts. The
arrays of the kernel's layout (:mod:`interpreter.fast.typepass`) are the machine's own arguments:
no instruction names an array by number, each array has its own load and store.

Nothing here depends on a spec: the machine is compiled once and cached for every spec.
"""
from __future__ import annotations

from .lowtypes import ERR_MACHINE

# the layout's arrays: one dimension, two dimensions (the kernel's state, see kernel.state_arrays)
ARRAYS_1D = ("ZN", "GV", "PB", "MD", "LOC", "RI", "SB", "SK", "SEEN", "MEMO")
ARRAYS_2D = ("Z", "PV", "ATTR", "RG", "TMP", "OPT")
ARRAYS = ("Z", "ZN", "GV", "PV", "PB", "MD", "LOC", "ATTR", "RG", "RI", "TMP", "OPT", "SB", "SK", "SEEN", "MEMO")

BINARY = {"Add": "+", "Sub": "-", "Mult": "*", "FloorDiv": "//", "Mod": "%", "LShift": "<<", "RShift": ">>",
          "BitAnd": "&", "BitOr": "|", "BitXor": "^"}
COMPARE = {"Eq": "==", "NotEq": "!=", "Lt": "<", "LtE": "<=", "Gt": ">", "GtE": ">="}

# The fixed functions of runtime.py the generated modules call: (name, arguments, result).
# An argument is an array of the layout by name, ``X[]`` a row of a 2-d array (its index an
# operand), or ``s`` a value operand; the result is ``v`` (a value) or ``-`` (none).
CALLS = (
    ("truthy", ("s",), "v"),
    ("add_null", ("s", "s"), "v"),
    ("if_null", ("s", "s"), "v"),
    ("min2", ("s", "s"), "v"),
    ("max2", ("s", "s"), "v"),
    ("min", ("s", "s"), "v"),
    ("max", ("s", "s"), "v"),
    ("abs", ("s",), "v"),
    ("memo", ("MEMO", "s", "s"), "v"),
    ("attr_get", ("ATTR", "s", "s"), "v"),
    ("attr_mode", ("ATTR", "MD", "s", "s", "s", "s", "s"), "v"),
    ("card_get", ("MD", "s"), "v"),
    ("card_get", ("PB", "s"), "v"),
    ("card_get", ("ATTR[]", "s"), "v"),
    ("event_gen", ("RG", "RI", "SB", "SK"), "v"),
    ("randbelow_row", ("RG", "s", "s"), "v"),
    ("shuffle_row", ("RG", "s", "Z", "s", "s"), "-"),
    ("gather", ("Z", "ZN", "PB", "MD", "LOC", "s", "s"), "-"),
    ("move_top", ("Z", "ZN", "PB", "MD", "LOC", "s", "s", "s", "s", "s"), "v"),
    ("deal", ("Z", "ZN", "PB", "MD", "LOC", "s", "s", "s", "s", "s", "s"), "v"),
    ("play_card", ("Z", "ZN", "PB", "MD", "LOC", "s", "s", "s", "s"), "-"),
    ("move_card", ("Z", "ZN", "PB", "MD", "LOC", "s", "s", "s", "s"), "v"),
    ("listed_twice", ("TMP[]", "s"), "v"),
    ("sort_row", ("Z[]", "s", "SK"), "-"),
)


def _ops() -> list:
    """``[(name, operand count, body)]``: every instruction, in opcode order. A body is numba
    source with ``V(k)`` (the value of operand k), ``W(k)`` (the same place, written), ``S(k)`` (its
    place in F) and ``I(k)`` (operand k as a number), run with ``pc`` at the opcode; it ends by moving ``pc`` itself only when it
    jumps (``J``), else the machine steps over the operands."""
    ops = [("MOV", 2, "W(1) = V(2)")]
    for name, sym in BINARY.items():
        if sym in ("//", "%"):  # as numba's: a division by zero stops the game with the machine's error
            ops.append((name, 3, f"b = V(3)\nif b == 0:\n    RI[3] = {ERR_MACHINE}\n    return 0\nW(1) = V(2) {sym} b"))
        else:
            ops.append((name, 3, f"W(1) = V(2) {sym} V(3)"))
    for name, sym in COMPARE.items():
        ops.append((name, 3, f"W(1) = V(2) {sym} V(3)"))
        # J<comparison> a b target: a test and its jump in one instruction (see bytecode.py's branch)
        ops.append(("J" + name, 3, f"J pc = I(3) if V(1) {sym} V(2) else pc + 4"))
    ops += [
        ("Neg", 2, "W(1) = -V(2)"),
        ("Not", 2, "W(1) = V(2) == 0"),
        ("LDK", 3, "W(1) = F[U(I(2) + V(3))]"),  # LDK dst first k: entry k of a table (see bytecode.py)
        ("JMP", 1, "J pc = I(1)"),
        # LOOP cur stop step x body: FOR's test at the end of a loop's body (back to the body, else on)
        ("LOOP", 5, "J cur = V(1)\nstep = V(3)\nif (cur < V(2)) if step > 0 else (cur > V(2)):\n"
                    "    W(4) = cur\n    W(1) = cur + step\n    pc = I(5)\nelse:\n    pc += 6"),
        ("JZ", 2, "J pc = I(2) if V(1) == 0 else pc + 3"),
        ("JNZ", 2, "J pc = I(2) if V(1) != 0 else pc + 3"),
        # FOR cur stop step x end: the next number of a range into x, else to end
        ("FOR", 5, "J cur = V(1)\nstep = V(3)\nif (cur < V(2)) if step > 0 else (cur > V(2)):\n"
                   "    W(4) = cur\n    W(1) = cur + step\n    pc += 6\nelse:\n    pc = I(5)"),
        # CALL entry frame_offset dst n args...: a function of the program (its frame after the caller's)
        # CALL entry frame dst n args...: a function of the program, its arguments put in its frame
        ("CALL", 4, "J nb = I(2)\nn = I(4)\nfor k in range(n):\n    F[U(nb + k)] = V(5 + k)\n"
                    "CS[sp] = pc + 5 + n\nCS[sp + 1] = S(3)\nsp += 2\npc = I(1)"),
        ("RET", 1, "J v = V(1)\nif sp == 2:\n    return v\nsp -= 2\npc = CS[sp]\nF[U(CS[sp + 1])] = v"),
        # YIELD value: a generator's pause (where to go on, and the call stack's top, kept in CS)
        ("YIELD", 1, "J CS[0] = sp\nCS[1] = pc + 2\nreturn V(1)"),
    ]
    for a in ARRAYS_1D:
        ops.append((f"LD_{a}", 2, f"W(1) = {a}[V(2)]"))
        ops.append((f"ST_{a}", 2, f"{a}[V(1)] = V(2)"))
    for a in ARRAYS_2D:
        ops.append((f"LD_{a}", 3, f"W(1) = {a}[V(2), V(3)]"))
        ops.append((f"ST_{a}", 3, f"{a}[V(1), V(2)] = V(3)"))
        ops.append((f"LEN_{a}", 1, f"W(1) = {a}.shape[1]"))
    for name, args, result in CALLS:
        k, parts = 1 if result == "v" else 0, []
        for a in args:
            if a == "s":
                k += 1
                parts.append(f"V({k})")
            elif a.endswith("[]"):
                k += 1
                parts.append(f"{a[:-2]}[V({k})]")
            else:
                parts.append(a)
        call = f"{name}({', '.join(parts)})"
        ops.append((call_op(name, args), k, f"W(1) = {call}" if result == "v" else call))
    return ops


def call_op(name: str, args: tuple) -> str:
    """The instruction's name of a runtime call with these argument kinds."""
    return name + "/" + ",".join(args)


OPS = _ops()
# the operands (numbered from 1) that are not places in F: targets, counts, a function's entry and frame
IMMEDIATE = {"JMP": (1,), "JZ": (2,), "JNZ": (2,), "FOR": (5,), "LOOP": (5,), "LDK": (2,), "CALL": (1, 2, 4),
             **{"J" + name: (3,) for name in COMPARE}}
OPCODE = {name: i for i, (name, _, _) in enumerate(OPS)}
WIDTH = {name: n for name, n, _ in OPS}
CALL_KINDS = {(name, args): result for name, args, result in CALLS}


def machine_source() -> str:
    """The numba source of the machine's loop, ``execute(C, F, CS, pc, arrays...)``: every
    instruction of :data:`OPS` as one branch of a chain on the opcode (LLVM makes it a jump
    table). It runs from ``pc`` to the return of the function it started in (its value returned,
    ``CS[1]`` 0) or to a ``YIELD`` (its value returned, ``CS[1]`` the place to go on from).
    ``CS``: ``CS[0]`` the call stack's top (2 at a function's start, as the caller sets it), then
    the stack, from ``CS[2]``: each call's return place and result's place."""
    import re
    lines = []
    for i, (name, n, body) in enumerate(OPS):
        jumps = body.startswith("J ")
        body = body[2:] if jumps else body
        # (the machine's own indices are never negative: as unsigned numbers numba reads them without
        # the wrap-around of a negative index, a third of an instruction's cost)
        body = re.sub(r"[VW]\(([^()]+)\)", r"F[U(I(\1))]", body)
        body = re.sub(r"S\(([^()]+)\)", r"I(\1)", body)
        body = re.sub(r"I\(([^()]+)\)", r"C[U(pc + \1)]", body)
        body = body.replace("U(", "np.uint64(")
        lines.append(f"        {'if' if i == 0 else 'elif'} op == {i}:  # {name}")
        lines += ["            " + ln for ln in body.split("\n")]
        if not jumps:
            lines.append(f"            pc += {n + 1}")
    lines.append(f"        else:\n            RI[3] = {ERR_MACHINE}\n            return 0")
    args = ", ".join(ARRAYS)
    return (f"def execute(C, F, CS, pc, {args}):\n"
            f"    sp = CS[0]\n    CS[1] = 0\n    while True:\n        op = C[np.uint64(pc)]\n" + "\n".join(lines) + "\n")
