"""Derived card attributes (issue 33): `derived: {NAME: EXPR of c}` is read as c.NAME by every rule:
legal plays, the trick winner, definitions; in its own expression c.NAME is the printed value."""
from __future__ import annotations

import pytest

from interpreter import SpecError, load_game
from interpreter.errors import RuleError
from interpreter.scenario import evaluate

SPEC = """\
name: Derived test
players: {min: 2, max: 2}
cards:
  - each: {suit: [spades, clubs, hearts, diamonds], rank: [9, 10, 11, 12]}
    name: "{rank}-{suit}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  trick: {visibility: public}
variables: {trump: spades}
define:
  partner_suit(s): "{'spades': 'clubs', 'clubs': 'spades', 'hearts': 'diamonds', 'diamonds': 'hearts'}[s]"
  # a definition reads the derived suit (the left bower's is trump): not for the derived suit itself
  left_bower(c): "c.rank == 11 and c.suit == partner_suit(trump)"
  led: "first(trick).suit"
  power(c): "(100 if c.suit == trump else 50 if c.suit == led else 0) + c.rank"
derived:
  # the jack of the other suit of trump's colour belongs to the trump suit
  suit: "trump if c.rank == 11 and c.suit == partner_suit(trump) else c.suit"
flow:
  - deal: {from: deck, to: hand, count: 8}
  - move: {cards: "[c in deck where c.name == '9-spades']", from: deck, to: trick}
  - for: p
    in: "[0]"
    do:
      - choose:
          player: p
          action: play
          cards: p.hand
          as: c
          where: "not any([d in p.hand where d.suit == led]) or c.suit == led"
          to: trick
"""


def _game(tmp_path, spec=SPEC):
    path = tmp_path / "derived.yaml"
    # seat 0 holds the jack of clubs (left bower when spades are trump) and a queen of hearts; spades led
    path.write_text(spec.replace("  - deal: {from: deck, to: hand, count: 8}\n",
                                 "  - move: {cards: \"[c in deck where c.name in ['11-clubs', '12-hearts']]\", "
                                 "from: deck, to: 0.hand}\n"))
    return load_game(path)


def test_rules_read_the_derived_attribute(tmp_path):
    game = _game(tmp_path)
    st = game.new_state(2, 0)
    jack = next(c for c in game.cards if c.name == "11-clubs")
    assert jack.attrs["suit"] == "clubs"                       # the printed suit is unchanged
    assert evaluate(st, "[c.suit for c in 0.hand]") == ["spades", "hearts"]
    assert evaluate(st, "[c.name for c in 0.hand where c.suit == 'clubs']") == []
    st.vars["trump"] = "hearts"                                 # the value follows the State
    assert evaluate(st, "[c.suit for c in 0.hand]") == ["clubs", "hearts"]


def test_follow_suit_counts_the_left_bower_as_trump(tmp_path):
    # spades were led, so the jack of clubs (trump: spades) must follow
    st = _game(tmp_path).new_state(2, 0)
    assert [a.text for a in st.legal_actions(0)] == ["play 11-clubs"]
    assert evaluate(st, "power(first(0.hand))") == 111   # trump power for the left bower
    (tmp_path / "h").mkdir()
    st = _game(tmp_path / "h", SPEC.replace("trump: spades", "trump: hearts")).new_state(2, 0)
    assert sorted(a.text for a in st.legal_actions(0)) == ["play 11-clubs", "play 12-hearts"]


def test_a_derived_attribute_runs_in_the_kernel_and_self_reference_is_caught(tmp_path):
    from interpreter.fast.typepass import NotTyped, lower
    for trump in ("spades", "hearts"):  # the left bower follows trump (interpreter/fast/derived.py)
        (tmp_path / trump).mkdir()
        game = _game(tmp_path / trump, SPEC.replace("variables: {trump: spades}\n",
                                                     f"variables: {{trump: {trump}}}\nplayer_variables: {{score: 0}}\n"))
        fast, slow = game.new_state(2, 0, fast=True), game.new_state(2, 0)
        assert list(fast.legal_actions(0)) == list(slow.legal_actions(0))
        assert len(slow.legal_actions(0)) == (1 if trump == "spades" else 2)
        fast.apply(fast.legal_actions(0)[0])
        slow.apply(slow.legal_actions(0)[0])
        assert fast.is_terminal() and fast.history == slow.history
    loop = SPEC.replace('  suit: "trump if c.rank == 11 and c.suit == partner_suit(trump) else c.suit"',
                        '  suit: "c.colour"\n  colour: "\'black\' if c.suit in [\'spades\', \'clubs\'] else \'red\'"')
    with pytest.raises(RuleError, match="the derived attribute suit of 11-clubs needs its own value"):
        _game(tmp_path, loop).new_state(2, 0)       # the first legal play reads c.suit
    with pytest.raises(NotTyped, match="derived attribute 'suit' reads itself"):
        lower(_game(tmp_path, loop))
    # a definition called by the derived expression reads the derived value: it needs itself
    itself = SPEC.replace('suit: "trump if c.rank == 11 and c.suit == partner_suit(trump) else',
                          'suit: "trump if left_bower(c) else')
    with pytest.raises(RuleError, match="the derived attribute suit of 11-clubs needs its own value"):
        _game(tmp_path, itself).new_state(2, 0)
    with pytest.raises(NotTyped, match="derived attribute 'suit' reads itself"):
        lower(_game(tmp_path, itself))
    path = tmp_path / "derived.yaml"
    path.write_text(SPEC.replace('  suit: "trump', '  name: "trump'))
    with pytest.raises(SpecError, match="name is a card's own attribute"):
        load_game(path)


def test_the_rules_document_and_diagram_show_a_derived_attribute(tmp_path):
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    game = _game(tmp_path)
    assert "**suit**: `trump if c.rank == 11 and c.suit == partner_suit(trump) else c.suit`" in rules_markdown(game)
    texts = [" ".join(d.get("text", [])) for _, d in flow_graph(game).nodes(data=True)]
    assert any("derived: c.suit = trump if c.rank == 11" in t for t in texts)
