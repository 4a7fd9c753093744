"""Texts joined with + from known sets of texts in the typed kernel (interpreter/fast/textsets.py):
a card's attributes, a board's colours, the colour pairs domino_colours lists, x if c else y of
those and joins of joins, joined at run time by a lookup table: the same games as the step API,
seed by seed; a join whose sides have no known set is still refused, with its spec line."""
from __future__ import annotations

from pathlib import Path

from interpreter import load_game
from interpreter.fast.kernel import why_not
from interpreter.fast.typepass import lower
from test_fast_boards import kernel_is_the_step_api

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "specs" / "text_joins.yaml"


def test_texts_joined_from_known_sets_play_the_step_apis_games():
    kernel_is_the_step_api(load_game(SPEC), (2, 3))


def test_the_joined_texts_join_the_table_of_texts():
    """Every text a join can make is numbered (the map keys and options the step API decodes)."""
    _, info = lower(load_game(SPEC))
    for text in ("red-dot", "blue-bar+red-dot", "green dot", "bar/blue", "green-blue"):
        assert text in info["texts"], text


def test_a_join_of_texts_of_no_known_set_is_refused_with_its_line(tmp_path):
    """A game variable's text has no known set: joined to another run-time text it does not type."""
    text = SPEC.read_text(encoding="utf-8")
    old = "- set: {last: \"first(p.hand).shape + '/' + first(p.hand).colour\"}"
    assert old in text
    path = tmp_path / "unknown.yaml"
    path.write_text(text.replace(old, "- set: {last: \"first(p.hand).shape + last\"}"), encoding="utf-8")
    line = 1 + text[:text.index(old)].count("\n")
    reason = why_not(load_game(path), 2)
    assert "+ of two texts both known only at run time" in reason and f"spec line {line}" in reason, reason
