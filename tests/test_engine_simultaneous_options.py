"""Simultaneous choices over big option lists (e.g. ``product(...)`` of 1,250 plans).

Two engine speed-ups must not change behaviour: the text of list values (items joined by
spaces, booleans as yes/no, null as none), and a commit keeping the other choosers' options
(nothing they depend on changes until everyone has chosen).
"""
from __future__ import annotations

from interpreter.spec.loader import load_game

PLAN = """\
name: Plan
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 4)"}
    name: "card-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
player_variables: {plan: null}
flow:
  - choose:
      action: place
      players: players
      options: "product(['front', 'back'], range(1, 6), range(1, 6), [true, false, null])"
      as: plan
      then:
        - set: {player.plan: plan}
"""


def _game(tmp_path):
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN)
    return load_game(path)


def test_list_values_read_as_their_items_joined(tmp_path):
    state = _game(tmp_path).new_state(2, 0)
    texts = [a.text for a in state.legal_actions(0)]
    assert len(texts) == 2 * 5 * 5 * 3
    assert texts[:3] == ["place front 1 1 yes", "place front 1 1 no", "place front 1 1 none"]
    assert texts[-1] == "place back 5 5 none"


def test_a_commit_leaves_the_others_options_and_the_reveal_waits(tmp_path):
    state = _game(tmp_path).new_state(3, 0)
    before = [a.text for a in state.legal_actions(2)]
    state.apply("place back 2 3 yes", 0)
    assert state.legal_actions(0) == []                       # 0 has chosen
    assert [a.text for a in state.legal_actions(2)] == before   # 2 still has every plan
    assert state.pvars[0]["plan"] is None                       # nothing revealed yet
    state.apply("place front 5 5 none", 1)
    state.apply("place front 1 1 no", 2)
    assert state.is_terminal()
    assert [pv["plan"] for pv in state.pvars] == [["back", 2, 3, True], ["front", 5, 5, None],
                                                   ["front", 1, 1, False]]
