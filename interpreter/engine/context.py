"""The evaluation context handed to compiled expressions."""
from __future__ import annotations


class Ctx:
    """What an expression sees: ``state`` (State), ``game`` (Game), ``options`` (dict),
    ``locals`` (the current frame's step-bound names, a dict) and ``bound``
    (names bound inside expressions: comprehension, lambda, let, function parameters) and
    ``memo`` (None, or a dict caching parameterless definitions while the State is fixed)."""

    __slots__ = ("state", "game", "options", "locals", "bound", "memo", "work", "hoisted")

    def __init__(self, state, locals_=None):
        self.state = state
        self.game = state.game
        self.options = state.game.options
        self.locals = locals_ if locals_ is not None else {}
        self.bound = {}
        # Values of parameterless `define`s, kept while the State cannot change (listing the
        # legal options of a decision evaluates the same derived values once per option).
        self.memo = None
        # Values of the invariant parts of an option filter, while one Choose lists the options
        # of one player (see expr.compiler.Compiler.compile), else None.
        self.hoisted = None
        self.work = 0  # units of evaluation work spent in the current step (see expr.compiler.spend)
