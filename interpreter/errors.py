"""Errors a user can cause, each carrying what they need to fix it.

A user never sees a Python traceback for their own mistake: the CLI catches
:class:`RulebookError` and prints its ``str()``.
"""
from __future__ import annotations

from dataclasses import dataclass


class RulebookError(Exception):
    """Base class of every error caused by a spec, an option, a scenario or an action."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a spec: where it is, what rule it breaks, how to fix it.

    ``line`` and ``column`` are 1-based; 0 means unknown. ``severity`` is
    ``"error"`` or ``"warning"``.
    """

    file: str
    line: int
    column: int
    message: str
    hint: str = ""
    severity: str = "error"

    def __str__(self) -> str:
        text = f"{self.file}:{self.line}:{self.column}: {self.severity}: {self.message}"
        if self.hint:
            text += f"\n    hint: {self.hint}"
        return text


class SpecError(RulebookError):
    """A spec (or scenario file) is malformed; ``diagnostics`` lists every problem found."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = list(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class IllegalAction(RulebookError):
    """An action was refused; the State is unchanged. ``reason`` says why."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


class RuleError(RulebookError):
    """The rules, as written in the spec, failed while running (e.g. a division by zero,
    a decision with no legal option, a loop with no end). Names the spec location when known."""


def did_you_mean(name, known) -> str:
    """``"did you mean 'x'? "`` for the names of ``known`` (an iterable of names) close to ``name``
    (a typo; up to three, by :func:`difflib.get_close_matches`, cutoff 0.7), else ``""``. The one
    helper of every did-you-mean hint: spec validation, scenarios, refused actions."""
    import difflib  # only when a name is wrong
    # (str: a YAML key may be a number, and a number is nobody's typo to compare)
    close = difflib.get_close_matches(str(name), sorted(map(str, known)), n=3, cutoff=0.7)
    return f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
