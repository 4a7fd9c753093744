"""The small pieces of text the rules document (:mod:`interpreter.analysis.rulesdoc`) is written
with: the comments next to a value in the spec's source (:class:`_Source`), expressions in words
or as code, Markdown-safe text, value ranges, lists and anchors.
"""
from __future__ import annotations

import re
from pathlib import Path

from .steptext import clean, comment_above


class _Source:
    """The spec's source lines, to pick up the comments next to a value."""

    def __init__(self, game):
        self.game = game
        try:
            self.lines = Path(game.file).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError, TypeError):
            self.lines = []

    def above(self, line: int) -> str:
        """The comment block right above 1-based ``line`` (no blank line between)."""
        return comment_above(self.lines, line)

    def trailing(self, line: int) -> str:
        """The ``# comment`` at the end of 1-based ``line``."""
        if not 0 < line <= len(self.lines):
            return ""
        text = self.lines[line - 1]
        quote = None
        for i, ch in enumerate(text):
            if quote:
                if ch == quote:
                    quote = None
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and i > 0 and text[i - 1] in " \t":
                return text[i + 1:].strip()
        return ""

    def value_text(self, path) -> str | None:
        """The source text of a block scalar (``>`` or ``|``) as written, line breaks kept."""
        pos = self.game.position(path)
        if pos.style not in (">", "|") or not pos.key_line or not self.lines:
            return None
        key_indent = len(self.lines[pos.key_line - 1]) - len(self.lines[pos.key_line - 1].lstrip())
        out = []
        for text in self.lines[pos.key_line:]:
            if text.strip() and len(text) - len(text.lstrip()) <= key_indent:
                break
            out.append(text)
        while out and not out[-1].strip():
            out.pop()
        if not out:
            return None
        indent = min(len(t) - len(t.lstrip()) for t in out if t.strip())
        return "\n".join(t[indent:] for t in out)

    def note(self, path, key=False) -> str:
        pos = self.game.position(path)
        line = pos.key_line if key and pos.key_line else pos.line
        if not line:
            return ""
        parts = [self.above(line), self.trailing(line)]
        return " ".join(p for p in parts if p)


_NAME = r"([A-Za-z_][\w.]*)"
# Whole expressions a reader knows by their words (code stays the fallback for everything else).
_PLAIN = [
    (re.compile(rf"^next_player\({_NAME}\)$"), "the player left of `{0}`"),
    (re.compile(rf"^prev_player\({_NAME}\)$"), "the player right of `{0}`"),
    (re.compile(rf"^turn_order\({_NAME}\)$"), "every player in turn, clockwise from `{0}`"),
    (re.compile(r"^num_players$"), "the number of players"),
    (re.compile(rf"^count\({_NAME}\)$"), "the number of cards in `{0}`"),
    (re.compile(rf"^top\({_NAME}\)$"), "the top card of `{0}`"),
    (re.compile(r"^null$"), "nothing"),
]


def _code(text) -> str:
    """An expression for a reader: in words when it is one of the forms in ``_PLAIN``, else as code."""
    t = clean(text)
    for pattern, words in _PLAIN:
        m = pattern.match(t)
        if m:
            return words.format(*m.groups())
    tick = "``" if "`" in t else "`"
    return f"{tick}{t}{tick}"


def _md(text) -> str:
    """Plain text safe for a Markdown line."""
    return clean(text).replace("|", "\\|")


# -- helpers ---------------------------------------------------------------------------------------
def _name_pattern(template: str):
    parts = re.split(r"\{[^{}]*\}", template)
    return re.compile(".+?".join(re.escape(p) for p in parts), re.S)


def _range_text(values) -> str:
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values) and len(values) > 2 and \
            sorted(values) == list(range(min(values), max(values) + 1)):
        return f"{min(values)}–{max(values)}"
    return ", ".join(map(str, values))


def _value(v) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"`{v}`" if v else "empty"
    return f"`{v}`" if isinstance(v, (list, dict)) else str(v)


def _join(items) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _anchor(name) -> str:
    return re.sub(r"[^a-z0-9_-]", "", str(name).lower().replace(" ", "-"))
