"""The ``appearance:`` section (docs/spec-language.md, Appearance): its defaults when a spec says
nothing, what a spec may say, and the mistakes ``validate`` reports with their place and a fix."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.errors import SpecError
from interpreter.spec.appearance import PALETTE
from interpreter.spec.appearance import of as appearance_of
from interpreter.spec.loader import load_game, load_game_text
from interpreter.web.render import table_view

WALK = Path("tests/specs/colour_walk.yaml").read_text(encoding="utf-8")


def walk_with(appearance: str):
    """The colour-walk test game with an ``appearance:`` section (YAML text) added."""
    return load_game_text(WALK + "\nappearance:\n" + appearance, "walk.yaml")


def test_a_spec_that_says_nothing_gets_colours_marks_and_places():
    game = load_game("specs/hearts.yaml")  # no appearance: section
    assert "appearance" not in game.spec
    look = appearance_of(game)
    card = next(c for c in game.cards if c.attrs.get("suit") == "hearts")
    face = look.face(card.name)
    assert face["tints"] == [PALETTE["hearts"]] and face["symbol"] == "♥"  # a suit-like attribute: a colour
    assert face["mark"] == str(card.attrs["rank"])  # the rank is the big mark
    assert look.place("hand", per_player=True) == "seat" and look.place("trick", per_player=False) == "centre"
    state = game.new_state(4, 1)
    view = table_view(state, 0, [], 0)
    me = [s for s in view["seats"] if s["me"]]
    assert len(me) == 1 and view["seats"][-1]["me"]  # the viewer's own seat is drawn last (at the bottom)
    assert [s["seat"] for s in view["seats"]] == [1, 2, 3, 0]  # the others clockwise from the viewer's left
    assert any(z["zone"] == "hand" and z["cards"] for z in me[0]["zones"])
    others = [z for s in view["seats"] if not s["me"] for z in s["zones"] if z["zone"] == "hand"]
    assert others and all("cards" not in z and z["count"] > 0 for z in others)  # backs with a count


def test_what_a_spec_may_say_shows_at_the_table():
    game = walk_with('  colour: colour\n  mark: null\n  symbols: {red: "R!"}\n  colours: {blue: "#123456"}\n'
                     '  zones: {used: {place: centre, show: pile, title: played}, deck: none}\n'
                     '  board: {grid: board, tokens: tokens}\n  back: "★"\n')
    look = appearance_of(game)
    assert look.face("red")["symbol"] == "R!" and look.face("red")["mark"] is None
    assert look.face("blue")["tints"][0][1] == "#091c2f"  # the spec's colour, darkened for the ink
    assert look.place("deck", False) == "none" and look.show("used") == "pile" and look.title("used") == "played"
    state = game.new_state(2, 1)
    view = table_view(state, 0, [], 0)
    assert view["back"] == "★"
    board = view["board"]
    assert board["name"] == "small" and len(board["rows"]) == 3 and board["width"] == 4
    start = board["rows"][0][0]
    assert start["cell"] == "a1" and start["token"] == 1 and start["colour"] == "red"
    assert board["rows"][1][3]["colour"] is None  # the hole at d2
    mine = set(view["actions"])  # a square names the legal actions that name it
    assert all(set(q["acts"]) <= mine for row in board["rows"] for q in row)
    assert any(q["acts"] for row in board["rows"] for q in row)


@pytest.mark.parametrize("text, message", [
    ("  colour: shade\n", "no card has an attribute 'shade'"),
    ("  zones: {pile: centre}\n", "there is no zone 'pile'"),
    ("  colours: {red: crimson}\n", "is not #rrggbb"),
    ("  board: {grid: nowhere}\n", "neither a board nor a game variable"),
    ("  piles: {list: heaps}\n", "there is no game variable 'heaps'"),
    ("  images: 'img/{name}.png'\n", "no image"),
])
def test_validate_names_the_mistake_its_line_and_a_fix(text, message):
    with pytest.raises(SpecError) as caught:
        walk_with(text)
    d = caught.value.diagnostics[0]
    assert message in d.message and d.hint
    assert d.line > WALK.count("\n")  # the line of the appearance section, not of the top


def test_the_schema_refuses_an_unknown_place():
    with pytest.raises(SpecError) as caught:
        walk_with("  zones: {used: middle}\n")
    assert "appearance" in str(caught.value.diagnostics[0])
