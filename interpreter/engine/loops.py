"""Control-flow instructions: jumps, ``if``, ``for`` loops (and the loop over a choice's
choosers), ``while`` with its bound. A loop keeps its cursor in the frame's locals under a key
built from the step's spec path (see :func:`interpreter.spec.steps._frame_key`).
"""
from __future__ import annotations

from ..errors import RuleError
from ..expr.builtins import MAX_ITEMS
from ..expr.compiler import check_value
from .instr import CHOICES, Instr, _own


class Jump(Instr):
    __slots__ = ("target",)

    def __init__(self, target=None):
        self.target = target

    def run(self, state, ctx, frame):
        frame[1] = self.target


class JumpIfNot(Instr):
    __slots__ = ("cond", "target")
    kind = "if"

    def __init__(self, cond, target=None):
        self.cond, self.target = cond, target

    def run(self, state, ctx, frame):
        if self.cond(ctx):
            frame[1] += 1
        else:
            frame[1] = self.target


class ForInit(Instr):
    """Evaluates the list to loop over and stores it with a cursor in the frame."""
    __slots__ = ("key", "items")
    kind = "for"

    def __init__(self, key, items):
        self.key, self.items = key, items

    def run(self, state, ctx, frame):
        items = self.items(ctx)
        if isinstance(items, int) and not isinstance(items, bool):
            if items > MAX_ITEMS:
                raise RuleError(f"cannot loop {items} times: a loop runs at most {MAX_ITEMS} times")
            items = list(range(1, items + 1))  # `repeat: N` counts 1..N; N <= 0 runs no time
        elif isinstance(items, dict):
            items = list(items)
        elif not isinstance(items, list):
            raise RuleError(f"cannot loop over {items!r}: expected a list or a number")
        else:
            check_value(ctx, items)
            # the cursor owns its items: a list an expression returns may be a live variable
            # (changed in place later), and clones share a cursor (State.clone)
            items = _own(items)
        # the cursor is a pair replaced at each pass (never changed in place)
        frame[2][self.key] = (items, 0)
        frame[1] += 1


class ForNext(Instr):
    __slots__ = ("key", "var", "end", "own")

    def __init__(self, key, var, end=None):
        self.key, self.var, self.end = key, var, end
        # the engine's own names ($choice) are never read by the rules: bound as they are
        self.own = var is not None and not var.startswith("$")

    def run(self, state, ctx, frame):
        loc = frame[2]
        items, i = loc[self.key]
        if i < len(items):
            if self.var is not None:
                x = items[i]
                tx = type(x)
                # an item that is a list or map is bound as a copy: the cursor's items are never
                # reachable from the rules, so clones may share them (State.clone)
                loc[self.var] = _own(x) if self.own and (tx is list or tx is dict) else x
            loc[self.key] = (items, i + 1)
            frame[1] += 1
        else:
            del loc[self.key]
            frame[1] = self.end


class ForNextUntil(ForNext):
    """:class:`ForNext` of a ``for`` with ``until``: before each pass (the first too) the loop
    ends as soon as ``until`` holds ("go round from X until one accepts")."""
    __slots__ = ("until",)

    def __init__(self, key, var, until, end=None):
        super().__init__(key, var, end)
        self.until = until

    def run(self, state, ctx, frame):
        if self.until(ctx):
            frame[2].pop(self.key, None)
            frame[1] = self.end
            return
        super().run(state, ctx, frame)


class ChoicesInit(ForInit):
    """The start of a choice's ``then`` loop (over the choices made, one per chooser), with the
    first pass of that loop run at once: :class:`ForInit`, :class:`ForNext` and
    :class:`BindChoice` in one step, then, when the ``then`` is empty and one player chose,
    the loop's end too. The frame ends exactly as after those steps one by one (same cursor,
    same locals, same position), so States saved either way continue alike."""
    __slots__ = ("next", "bind", "bind_pc", "jump_pc")

    def __init__(self, key, items):
        super().__init__(key, items)
        self.next = self.bind = None  # set by the compiler once the loop is laid out
        self.bind_pc = self.jump_pc = None

    def run(self, state, ctx, frame):
        loc = frame[2]
        items = loc.pop(CHOICES)  # built by the engine for this loop: owned already
        if not items or self.bind is None:  # (a choice with no chooser jumps past the loop)
            loc[self.key] = (items, 0)
            frame[1] += 1
            return
        loc[self.key] = (items, 1)
        loc[self.next.var] = items[0]
        frame[1] = self.bind_pc
        self.bind.run(state, ctx, frame)
        if frame[1] == self.jump_pc and len(items) == 1:  # empty `then`, one chooser: the loop is over
            del loc[self.key]
            frame[1] = self.next.end


class WhileCheck(Instr):
    """``while`` with a bound: counts passes in the frame and stops with an error past ``max``."""
    __slots__ = ("key", "cond", "max", "end")
    kind = "while"

    def __init__(self, key, cond, max_, end=None):
        self.key, self.cond, self.max, self.end = key, cond, max_, end

    def run(self, state, ctx, frame):
        loc = frame[2]
        if self.cond(ctx):
            n = loc.get(self.key, 0) + 1
            if n > self.max:
                raise RuleError(f"the while loop ran more than its max of {self.max} times")
            loc[self.key] = n
            frame[1] += 1
        else:
            loc.pop(self.key, None)
            frame[1] = self.end
