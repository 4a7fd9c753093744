"""turns: {phase: NAME} and moved_this_turn(cards) (docs/spec-language.md, Turns: what moved this
turn): the interpreter's record, its mistakes, saved games, the diagram and rules text. The kernel
plays tests/specs/turn_record.yaml's games as the step API in tests/test_fast_kernel.py (SMALL) and
tests/test_fast_steps.py; Canasta's first melds use it (its scenarios). Below: a card entry's
mode_when (docs/spec-language.md, Cards), tests/specs/mode_when.yaml."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.errors import RuleError, SpecError
from interpreter.model.state import State
from interpreter.scenario import evaluate

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "tests" / "specs" / "turn_record.yaml"


def _in_turn(game, seed=3):
    """A 2-player game at its first decision (inside seat 0's first turn)."""
    st = game.new_state(2, seed=seed)
    assert any(f[0] == "turn" for f in st.stack)
    return st


def _act(st, text):
    """Apply the legal action whose text is ``text``."""
    seat = st.current_players()[0]
    (action,) = [a for a in st.legal_actions(seat) if a.text == text]
    st.apply(action)


def test_cards_laid_this_turn_are_moved_and_taken_back_ones_are_not():
    game = load_game(SPEC)
    st = _in_turn(game)
    hand = [c.name for c in evaluate(st, "players[0].hand")]
    assert evaluate(st, "laid(0)") == []
    _act(st, "act table")
    _act(st, f"lay {hand[0]}")
    _act(st, "act pile")
    _act(st, f"pile {hand[1]}")
    assert [c.name for c in evaluate(st, "moved_this_turn(table)")] == [hand[0]]     # a zone of sets: its cards
    assert [c.name for c in evaluate(st, "laid(0)")] == [hand[0], hand[1]]
    assert [c.name for c in evaluate(st, "moved_this_turn(table[0])")] == [hand[0]]
    assert evaluate(st, "count(moved_this_turn(players[0].hand))") == 1               # the card drawn this turn
    _act(st, "act back")
    _act(st, f"back {hand[1]}")
    assert [c.name for c in evaluate(st, "laid(0)")] == [hand[0]]                   # out and back: not moved


def test_outside_a_turn_nothing_moved_this_turn():
    game = load_game(SPEC)
    st = game.new_state(2, seed=3)
    frames = st.stack
    st.stack = [f for f in frames if f[0] != "turn"]
    assert evaluate(st, "moved_this_turn(players[0].hand + deck)") == []
    st.stack = frames


def test_a_saved_game_keeps_the_turns_record():
    game = load_game(SPEC)
    st = _in_turn(game)
    card = evaluate(st, "players[0].hand")[0].name
    _act(st, "act table")
    _act(st, f"lay {card}")
    back = State.from_json(game, st.to_json())
    assert [c.name for c in evaluate(back, "laid(0)")] == [card]
    assert [c.name for c in evaluate(st.clone(), "laid(0)")] == [card]
    seat = st.current_players()[0]
    assert [a.text for a in back.legal_actions(seat)] == [a.text for a in st.legal_actions(seat)]


def test_not_a_card_is_named():
    st = _in_turn(load_game(SPEC))
    with pytest.raises(RuleError, match="moved_this_turn takes a list of cards"):
        evaluate(st, "moved_this_turn([1, 2])")


@pytest.mark.parametrize("old,new,message", [
    ("turns: {phase: turn}\n", "", "moved_this_turn: the spec does not say which phase is a turn"),
    ("turns: {phase: turn}", "turns: {phase: tunr}", "turns: phase: there is no phase named 'tunr'"),
    ("turns: {phase: turn}", "turns: {phase: 3}", "turns"),
])
def test_mistakes_are_located(tmp_path, old, new, message):
    text = SPEC.read_text()
    assert old in text
    path = tmp_path / "t.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(SpecError, match=message) as info:
        load_game(path)
    assert f"{path}:" in str(info.value)


def test_the_diagram_and_the_rules_text_say_which_phase_is_a_turn():
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    game = load_game(SPEC)
    g = flow_graph(game)
    assert g.nodes["phases/turn"]["turn"] is True
    assert "moved_this_turn" in " ".join(g.nodes["phases/turn"]["text"])
    assert "**A turn** is one run of the phase `turn`" in rules_markdown(game)


# -- mode_when: which modes may be declared now (W7) ------------------------------------------------
MODES = ROOT / "tests" / "specs" / "mode_when.yaml"


def test_mode_when_reads_the_state():
    """Led without trumps the joker is declared a suit; with trumps, or after the lead, it is itself."""
    game = load_game(MODES)
    st = game.new_state(2, seed=5)
    seat = st.current_players()[0]
    joker = evaluate(st, "first([c in deck + flatten([p.hand for p in players]) where c.name == 'joker'])")
    hand = [c.name for c in evaluate(st, f"players[{seat}].hand")]
    for trump, led, want in ((None, False, {"play joker as spades", "play joker as hearts"}),
                             ("S", False, {"play joker"}), (None, True, {"play joker"})):
        s2 = st.clone()
        s2.vars["trump"] = trump
        s2.zones["deck"] = [c for c in s2.zones["deck"] if c != joker.id]
        for q in range(2):
            s2.zones["hand"][q] = [c for c in s2.zones["hand"][q] if c != joker.id]
        s2.zones["hand"][seat].insert(0, joker.id)  # the joker in the chooser's hand, once
        if led:
            other = next(c.id for c in game.cards if c.name not in hand and c.name != "joker")
            s2.zones["deck"] = [c for c in s2.zones["deck"] if c != other]
            s2.zones["trick"] = [other]
            for q in range(2):
                s2.zones["hand"][q] = [c for c in s2.zones["hand"][q] if c != other]
        s2._legal_cache = {}
        texts = {a.text for a in s2.legal_actions(seat) if "joker" in a.text}
        assert texts == want, (trump, led)


def test_mode_when_mistakes_are_located(tmp_path):
    text = MODES.read_text()
    bad = tmp_path / "m.yaml"
    bad.write_text(text.replace('mode_when: "count(trick) == 0 and trump == null"', 'mode_when: "count(trik) == 0"'))
    with pytest.raises(SpecError, match="trik") as info:
        load_game(bad)
    assert f"{bad}:" in str(info.value)
    bad.write_text(text.replace("    modes:\n      spades: {suit: S}\n      hearts: {suit: H}\n", ""))
    with pytest.raises(SpecError, match="mode_when without modes"):
        load_game(bad)


def test_mode_when_gives_the_card_itself_an_action_id():
    """The adapters' action space holds the card as itself beside its modes (no mode may hold)."""
    from interpreter.adapters.spaces import Spaces
    texts = set(Spaces(load_game(MODES), 2).actions.texts)
    assert {"play joker", "play joker as spades", "play joker as hearts"} <= texts
