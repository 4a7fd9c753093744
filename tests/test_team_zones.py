"""Zones per team (`per_team: true`, docs/spec-language.md, Zones): every member of a team reads and
writes the team's zone; bad declarations are located errors; the kernel plays it (fast/teamzones.py)."""
from __future__ import annotations

import textwrap

import pytest

from interpreter.errors import SpecError
from interpreter.fast.typepass import lower
from interpreter.model.state import State
from interpreter.spec.loader import load_game

SPEC = textwrap.dedent("""\
    name: Team zones
    players: {min: 4, max: 4}
    cards:
      - each: {rank: "range(1, 9)"}
        name: "c{rank}"
    teams: {of: "p % 2"}
    zones:
      deck: {visibility: hidden, initial: all}
      hand: {per_player: true, visibility: owner}
      pile: {ZONE}
    player_variables: {score: 0, seen: 0}
    flow:
      - deal: {from: deck, to: hand, count: 2}
      - for: p
        in: players
        do:
          - choose: {action: give, player: p, cards: p.hand, as: c, to: p.pile}
          - set: {p.seen: "count(p.pile)"}
    score: "count(p.pile)"
    """)


def _game(tmp_path, zone="per_team: true, visibility: public", extra=""):
    path = tmp_path / "teams.yaml"
    path.write_text(SPEC.replace("{ZONE}", "{" + zone + "}") + extra)
    return load_game(path)


def test_partners_read_and_write_one_zone(tmp_path):
    game = _game(tmp_path)
    state = game.new_state(4, seed=3)
    for seat in range(4):
        state.apply(state.legal_actions(seat)[0], seat)
    # seats 0 and 2 gave to team 0's zone, 1 and 3 to team 1's: each saw its partner's card
    assert [state.pvars[p]["seen"] for p in range(4)] == [1, 1, 2, 2]
    assert state.scores() == [2, 2, 2, 2]
    assert [len(z) for z in state.zones["pile"]] == [2, 2, 0, 0]  # kept with the team's first seat
    again = State.from_json(game, state.to_json())
    assert again.to_json() == state.to_json()


def test_per_player_zones_are_unchanged(tmp_path):
    state = _game(tmp_path, "per_player: true, visibility: public").new_state(4, seed=3)
    for seat in range(4):
        state.apply(state.legal_actions(seat)[0], seat)
    assert [state.pvars[p]["seen"] for p in range(4)] == [1, 1, 1, 1]


@pytest.mark.parametrize("zone, extra, words", [
    ("per_team: true, visibility: owner", "", "owner is not supported for a zone per team"),
    ("per_team: 'yes'", "", "is not of type"),
])
def test_bad_team_zones_are_located_errors(tmp_path, zone, extra, words):
    with pytest.raises(SpecError) as exc:
        _game(tmp_path, zone, extra)
    assert words in str(exc.value) and "teams.yaml:10:" in str(exc.value)


def test_a_team_zone_needs_teams_and_is_not_dealt_to(tmp_path):
    path = tmp_path / "teams.yaml"
    path.write_text(SPEC.replace("{ZONE}", "{per_team: true}").replace('teams: {of: "p % 2"}\n', ""))
    with pytest.raises(SpecError, match="the game has no teams"):
        load_game(path)
    path.write_text(SPEC.replace("{ZONE}", "{per_team: true}").replace("to: hand, count: 2", "to: pile, count: 2"))
    with pytest.raises(SpecError, match="is a zone per team: deal gives each seat its own cards"):
        load_game(path)


def test_the_kernel_plays_the_step_apis_games(tmp_path):
    """The kernel lowers a zone per team (fast/teamzones.py): the same scores and lengths as the
    step API (partners' piles shared: each seat's score counts its team's pile). More in
    tests/specs/team_zones.yaml (tests/test_fast_kernel.py, tests/test_fast_steps.py)."""
    from interpreter.fast.kernel import kernel_for
    from interpreter.sim.simulate import _play_one
    game = _game(tmp_path)
    lower(game)  # types
    scores, lengths, errors = kernel_for(game).run(4, 3, 5)
    for i in range(5):
        want, _, length = _play_one(game, 4, 3, i, None)
        assert errors[i] == 0 and list(scores[i]) == list(want) == [2, 2, 2, 2] and lengths[i] == length


def test_rules_text_and_diagram_say_it(tmp_path):
    from interpreter.analysis.graph import flow_graph
    from interpreter.cli import main
    _game(tmp_path)
    path = tmp_path / "moves.yaml"
    path.write_text(SPEC.replace("{ZONE}", "{per_team: true}").replace(
        "  - for: p", "  - move: {from: deck, to: 2.pile, count: 1}\n  - for: p"))
    labels = [d.get("label", "") for _, d in flow_graph(load_game(path)).nodes(data=True)]
    assert any(lab.endswith("(the team's)") for lab in labels), labels
    doc = tmp_path / "rules.md"
    assert main(["doc", str(tmp_path / "teams.yaml"), "-o", str(doc)]) == 0
    assert "each team (its players share it)" in doc.read_text()
