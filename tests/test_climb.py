"""The `climb` step: take turns until all the others pass, players leaving when they are out
(tests/specs/climb.yaml; its rule scenarios are in tests/scenarios/climb/)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from interpreter.agents.basic import FirstLegalAgent, RandomAgent, play_game
from interpreter.errors import SpecError
from interpreter.model.saved import SaveError
from interpreter.model.state import State
from interpreter.spec.loader import check_spec, load_game

SPEC = Path(__file__).parent / "specs" / "climb.yaml"


def _legal(state, seat):
    return [a.text for a in state.legal_actions(seat)]


def test_turns_go_round_and_the_pile_clears_when_all_the_others_pass():
    game = load_game(SPEC)
    state = game.new_state(3, seed=5)
    assert state.current_players() == [1]           # turn_order(1): seat 1 leads
    assert "pass" not in _legal(state, 1)            # leading: the pass is not allowed
    state.apply(_legal(state, 1)[0], 1)
    assert state.current_players() == [2]
    # everyone passes in turn: after two passes (seats 2 and 0) the pile clears and seat 1 leads again
    for seat in (2, 0):
        state.apply("pass", seat)
    assert state.vars["clears"] == 1 and state.vars["leaders"] == [1]
    assert state.current_players() == [1] and state.zones["pile"] == []


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("options", [{}, {"lead_may_pass": True}])
def test_games_end_with_every_bot(players, options):
    game = load_game(SPEC, options)
    for seed in range(20):
        for agents in ([FirstLegalAgent()] * players, [RandomAgent(seed + i) for i in range(players)]):
            state = game.new_state(players, seed=seed)
            n = 0
            while not state.is_terminal():
                seat = state.current_players()[0]
                state.apply(agents[seat].act(state, seat), seat)
                n += 1
                assert n < 200
            # cards are conserved and nobody still holding cards is in the finishing order
            assert sum(len(z) for z in state.zones["hand"]) + len(state.zones["pile"]) + len(state.zones["done"]) \
                + len(state.zones["deck"]) == 10
            assert all(state.zones["hand"][p] == [] for p in state.vars["finished"])


def test_replay_clone_and_json_inside_the_climb():
    game = load_game(SPEC)
    state = game.new_state(4, seed=2)
    state.apply(_legal(state, 1)[0], 1)
    state.apply("pass", 2)
    saved = state.to_json()
    copy = State.from_json(game, saved)
    assert copy.current_players() == state.current_players() == [3]
    clone = state.clone()
    clone.apply("pass", 3)
    clone.apply("pass", 0)                           # seats 2, 3, 0 passed: the pile clears
    assert clone.vars["clears"] == 1 and state.vars["clears"] == 0
    copy.apply("pass", 3)
    copy.apply("pass", 0)
    assert copy.to_json() == clone.to_json()
    again = game.replay(4, 2, clone.history)
    assert again.to_json() == clone.to_json()


def test_a_damaged_climb_cursor_is_refused_when_loading():
    game = load_game(SPEC)
    state = game.new_state(3, seed=1)
    data = json.loads(state.to_json())
    frame = data["stack"][-1]
    key = next(k for k in frame[2] if k.startswith("$climb:"))
    frame[2][key] = {"order": [1, 2, 0], "turn": 7, "last": None, "passed": []}
    with pytest.raises(SaveError) as exc:
        State.from_json(game, json.dumps(data))
    assert "climb cursor" in str(exc.value)


BASE = """
name: Bad climb
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 7)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  pile: {visibility: public}
flow:
  - deal: {from: deck, to: hand, count: 2}
  - climb:
      BODY
      turn:
        action: play
        cards: player.hand
        to: pile
        TURN
score: "0"
"""


@pytest.mark.parametrize("body, turn, message", [
    ('in: "count(player.hand) > 0"', "as: c", "needs an optional action (the pass)"),
    ('in: "count(player.hand) > 0"', "optional: true\n        player: 0", "'player' was unexpected"),
    ('in: "count(player.hand) > 0"\n      as: q\n      last: q', "optional: true", "as and last are both 'q'"),
    ('in: "count(who.hand) > 0"', "optional: true", "who"),
])
def test_bad_climbs_are_located_errors(tmp_path, body, turn, message):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(BASE).replace("BODY", body).replace("TURN", turn))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    assert message in str(exc.value) and "bad.yaml:" in str(exc.value)


@pytest.mark.parametrize("body, optional, warns", [
    ("label: trick", 'optional: {action: pass, when: "last_player != null"}', True),   # nothing ends it
    ("label: trick", "optional: true", False),            # everyone passing at the lead ends it
    ('in: "count(player.hand) > 0"', 'optional: {action: pass, when: "last_player != null"}', False),
    ('until: "count(pile) > 3"', 'optional: {action: pass, when: "last_player != null"}', False),
])
def test_static_check_climb_that_nothing_ends(tmp_path, body, optional, warns):
    path = tmp_path / "forever.yaml"
    path.write_text(textwrap.dedent(BASE).replace("BODY", body).replace("TURN", optional))
    diags = [d for d in check_spec(path) if "climb may never end" in d.message]
    assert bool(diags) == warns
    if warns:
        assert diags[0].line == 13


def test_graph_doc_and_diagrams(tmp_path):
    from interpreter.analysis.graph import children, flow_graph, phase_graph
    from interpreter.cli import main
    G = flow_graph(load_game(SPEC))
    climb = next(n for n, d in G.nodes(data=True) if d["kind"] == "climb")
    d = G.nodes[climb]
    assert d["category"] == "climb" and d["in"] == "count(p.hand) > 0" and d["var"] == "p"
    [turn] = children(G, climb)
    assert G.nodes[turn]["kind"] == "choose" and G.nodes[turn]["climb_turn"] and G.nodes[turn]["who"] == "p"
    assert G.edges[climb, turn]["kind"] == "body"
    clear = children(G, climb, "then")
    assert [G.nodes[n]["kind"] for n in clear] == ["move", "add", "set", "log"]
    assert G.edges[climb, clear[0]]["label"] == "all the others passed"
    backs = {u for u in G.predecessors(climb) if G.edges[u, climb]["kind"] == "back"}
    assert clear[-1] in backs and G.edges[clear[-1], climb]["label"] == "new lead"
    # the steps inside the climb carry the ids the engine traces (heat maps need them)
    trace: dict = {}
    play_game(load_game(SPEC), 3, 0, [RandomAgent(i) for i in range(3)], trace=trace)
    assert turn in trace and trace[climb] > trace[turn] > 0
    assert set(trace) <= set(G.nodes)
    H = phase_graph(G)
    text = "\n".join(line for _, x in H.nodes(data=True) for line in x.get("text", []))
    assert "↗ take turns until all the others pass" in text
    for fmt in ("png", "svg", "dot", "mermaid"):
        out = tmp_path / f"climb.{'mmd' if fmt == 'mermaid' else fmt}"
        assert main(["diagram", str(SPEC), "-f", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    assert "CLIMB" in (tmp_path / "climb.mmd").read_text()
    doc = tmp_path / "rules.md"
    assert main(["doc", str(SPEC), "-o", str(doc)]) == 0
    words = doc.read_text()
    assert "Climbing turns — take turns until all the others pass" in words
    assert "When all the others still in have passed" in words


def test_heat_map_counts_the_climbs_turns(tmp_path):
    from interpreter.cli import main
    out = tmp_path / "heat.svg"
    assert main(["diagram", str(SPEC), "--heat", "10", "--players", "3", "-f", "svg", "-o", str(out)]) == 0
    assert out.stat().st_size > 0


def test_validate_is_clean():
    assert check_spec(SPEC) == []


# -- all_speak: an auction where everyone speaks (tests/specs/auction.yaml) ---------------------
AUCTION = Path(__file__).parent / "specs" / "auction.yaml"


def _auction_turns(game, passes_first):
    """Seats 1.. pass in turn order, seat 0 (the dealer) last; the seats asked until the first
    auction ends (its `log` says how many turns)."""
    state = game.new_state(3, seed=0)
    asked = []
    while state.vars["dealer"] == 0:
        seat = state.current_players()[0]
        asked.append(seat)
        state.apply("pass" if seat in passes_first else "bid 1", seat)
    return asked, state


def test_all_speak_gives_the_last_seat_its_turn():
    asked, state = _auction_turns(load_game(AUCTION), {1, 2})
    assert asked == [1, 2, 0] and state.scores() == [1, 0, 0]


def test_without_all_speak_the_climb_ends_when_one_is_left_unspoken(tmp_path):
    """The older form is unchanged: fewer than two in ends the climb even if the one left never spoke."""
    path = tmp_path / "auction.yaml"
    path.write_text(AUCTION.read_text().replace("all_speak: true", "all_speak: false"))
    asked, state = _auction_turns(load_game(path), {1, 2})
    assert asked == [1, 2] and state.scores() == [0, 0, 0]
    path.write_text(AUCTION.read_text().replace("          all_speak: true\n", ""))
    assert _auction_turns(load_game(path), {1, 2})[0] == [1, 2]


def test_all_speak_survives_json_and_replay():
    game = load_game(AUCTION)
    state = game.new_state(3, seed=4)
    state.apply("pass", 1)
    data = json.loads(state.to_json())
    key = next(k for k in data["stack"][-1][2] if k.startswith("$climb:"))
    assert data["stack"][-1][2][key]["spoken"] == [1]
    copy = State.from_json(game, state.to_json())
    for s in (state, copy):
        s.apply("pass", 2)
        assert s.current_players() == [0]  # the dealer still speaks
    assert copy.to_json() == state.to_json()
    data["stack"][-1][2][key]["spoken"] = [9]
    with pytest.raises(SaveError, match="spoken"):
        State.from_json(game, json.dumps(data))


def test_all_speak_must_be_true_or_false(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(BASE).replace("BODY", "all_speak: 'yes'").replace("TURN", "optional: true"))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    assert "all_speak" in str(exc.value) and "bad.yaml:14:18" in str(exc.value)


def test_all_speak_in_the_diagram_and_the_rules_text(tmp_path):
    from interpreter.analysis.graph import flow_graph
    from interpreter.cli import main
    G = flow_graph(load_game(AUCTION))
    d = next(d for _, d in G.nodes(data=True) if d["kind"] == "climb")
    assert d["all_speak"] is True and any("each having had a turn" in line for line in d["text"])
    doc = tmp_path / "rules.md"
    assert main(["doc", str(AUCTION), "-o", str(doc)]) == 0
    assert "each of them has had a turn (everyone speaks)" in doc.read_text()
    assert check_spec(AUCTION) == []
