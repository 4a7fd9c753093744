"""Auction steps (issue 33): a for with until ("go round from X until one accepts, or all pass")
and seats sitting out of the turn order (turns: skip, e.g. a lone player's partner)."""
from __future__ import annotations

import pytest

from interpreter import load_game
from interpreter.errors import RuleError
from interpreter.scenario import evaluate

SPEC = """\
name: Auction test
players: {min: 4, max: 4}
cards:
  - each: {rank: "range(1, 9)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
variables: {dealer: 0, maker: null, alone: false, asked: []}
turns:
  skip: "alone and maker != null and p == (maker + 2) % 4"
flow:
  - for: p
    in: "turn_order(next_player(dealer))"
    until: "maker != null"
    do:
      - set: {asked: "asked + [p]"}
      - choose:
          player: p
          action: order-up
          options: "['alone', 'with-partner']"
          as: how
          optional: {action: pass}
          then:
            - if: "how != null"
              then:
                - set: {maker: p, alone: "how == 'alone'"}
  - choose: {player: 0, action: done, options: "[1]"}
"""


@pytest.fixture()
def game(tmp_path):
    path = tmp_path / "auction.yaml"
    path.write_text(SPEC)
    return load_game(path)


def test_the_round_stops_at_the_first_acceptance(game):
    st = game.new_state(4, 0)
    st.apply("pass", 1)
    st.apply("order-up alone", 2)
    assert st.vars["maker"] == 2 and st.vars["asked"] == [1, 2]     # seats 3 and 0 are never asked
    assert st.current_players() == [0] and [a.text for a in st.legal_actions(0)] == ["done 1"]


def test_the_round_ends_when_all_pass(game):
    st = game.new_state(4, 0)
    for seat in (1, 2, 3, 0):
        st.apply("pass", seat)
    assert st.vars["maker"] is None and st.vars["asked"] == [1, 2, 3, 0]


def test_a_lone_players_partner_sits_out_of_the_turn_order(game):
    st = game.new_state(4, 0)
    assert evaluate(st, "turn_order(1)") == [1, 2, 3, 0]
    st.apply("order-up alone", 1)                                   # seat 3 sits out
    assert evaluate(st, "turn_order(1)") == [1, 2, 0]
    assert evaluate(st, "turn_order(3)") == [0, 1, 2]              # from a seat out: the next one in
    assert evaluate(st, "next_player(2)") == 0 and evaluate(st, "prev_player(0)") == 2
    assert evaluate(st, "next_player(2, 2)") == 1 and evaluate(st, "next_player(3)") == 0


def test_with_partner_nobody_sits_out(game):
    st = game.new_state(4, 0)
    st.apply("order-up with-partner", 1)
    assert evaluate(st, "turn_order(1)") == [1, 2, 3, 0]


def test_skip_may_not_read_the_turn_order(tmp_path):
    path = tmp_path / "auction.yaml"
    path.write_text(SPEC.replace('skip: "alone and maker', 'skip: "next_player(p) == 0 and maker'))
    with pytest.raises(RuleError, match="turns.skip reads the turn order"):
        load_game(path).new_state(4, 0)


def test_the_documents_say_it(game):
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    doc = rules_markdown(game)
    assert "stopping as soon as `maker != null`" in doc and "**Turn order:** a player `p` sits out" in doc
    labels = [d.get("label", "") for _, d in flow_graph(game).nodes(data=True)]
    assert any("until maker != null" in x for x in labels)


def test_the_kernel_plays_the_auction_as_the_step_api(tmp_path):
    """The typed kernel's step API (turns: skip and for ... until lowered: interpreter/fast/turnorder.py)
    asks the same seats the same things as the State, game by game."""
    import random
    path = tmp_path / "auction.yaml"
    path.write_text(SPEC.replace(", asked: []}", "}\nplayer_variables: {score: 0}").replace('      - set: {asked: "asked + [p]"}\n', "")
                    .replace("options: \"[1]\"", "options: \"turn_order(1) + [next_player(2), prev_player(0)]\""))
    game = load_game(path)
    finals = set()
    for seed in range(12):
        fast, slow, rng = game.new_state(4, seed, fast=True), game.new_state(4, seed), random.Random(seed)
        while not slow.is_terminal():
            p = slow.current_players()[0]
            assert fast.current_players() == [p] and list(fast.legal_actions(p)) == list(slow.legal_actions(p))
            if slow.legal_actions(p)[0].text.startswith("done"):
                finals.add(tuple(a.text for a in slow.legal_actions(p)))
            k = rng.randrange(len(slow.legal_actions(p)))
            fast.apply(fast.legal_actions(p)[k])
            slow.apply(slow.legal_actions(p)[k])
        assert fast.history == slow.history
    assert len(finals) > 1  # a seat sitting out changed the last choice's options in some games
