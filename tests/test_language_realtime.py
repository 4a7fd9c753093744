"""The `realtime` step (any listed player may act, until a condition holds), its schedulers,
and `per_player` card entries (one set of cards per seat)."""
from __future__ import annotations

import json
import textwrap

import pytest

from interpreter.agents.basic import FirstLegalAgent, RandomAgent, play_game
from interpreter.agents.schedule import Scheduler, parse_speeds
from interpreter.errors import IllegalAction, RuleError, SpecError
from interpreter.model.state import State
from interpreter.spec.loader import check_spec, load_game

# A race: everyone holds their own cards 1..5; the next value wanted is `next`; whoever plays it
# first scores. `shout` is a second action, legal only at one moment (next == 3, no score yet).
SPEC = """
name: Race
players: {min: 2, max: 4}
cards:
  - each: {value: "range(1, 6)"}
    name: "c{value}-{owner}"
    per_player: true
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  pile: {visibility: public}
variables: {next: 1}
player_variables: {score: 0}
flow:
  - for: p
    in: players
    do:
      - move: {cards: "[c in deck where c.owner == p]", to: p.hand}
  - realtime:
      until: "next > 5"
      doc: "Everyone plays at once"
      actions:
        - choose:
            action: play
            cards: player.hand
            where: "c.value == next"
            as: c
            to: pile
            then:
              - add: {next: 1, player.score: 1}
        - choose:
            action: shout
            where: "player.score == 0 and next == 3"
            then:
              - add: {player.score: 10}
"""


def _game(tmp_path, text=SPEC, name="race.yaml", options=None):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return load_game(path, options or {})


def _legal(state, p):
    return [a.text for a in state.legal_actions(p)]


def test_per_player_cards_one_set_per_seat_in_play(tmp_path):
    game = _game(tmp_path)
    assert len(game.cards) == 20  # players.max = 4 sets in the card table
    assert {c.attrs["owner"] for c in game.cards} == {0, 1, 2, 3}
    state = game.new_state(3, seed=1)
    assert sorted(len(h) for h in state.zones["hand"]) == [5, 5, 5]
    for seat, hand in enumerate(state.zones["hand"]):
        assert {game.cards[i].attrs["owner"] for i in hand} == {seat}
    assert state.zones["deck"] == []  # seat 3's set is not in this game


def test_every_player_with_an_action_is_current_and_the_first_gets_the_spot(tmp_path):
    state = _game(tmp_path).new_state(3, seed=1)
    assert state.current_players() == [0, 1, 2]
    assert [_legal(state, p) for p in range(3)] == [["play c1-0"], ["play c1-1"], ["play c1-2"]]
    state.apply("play c1-1", 1)
    # the others' options are listed again: c1 is gone, everyone now wants a 2
    assert [_legal(state, p) for p in range(3)] == [["play c2-0"], ["play c2-1"], ["play c2-2"]]
    with pytest.raises(IllegalAction) as exc:
        state.apply("play c1-0", 0)
    assert "c.value == next" in exc.value.reason
    state.apply("play c2-0", 0)
    assert _legal(state, 2) == ["play c3-2", "shout"]  # the second action, when its where holds
    assert _legal(state, 0) == ["play c3-0"]
    state.apply("shout", 2)
    assert state.pvars[2]["score"] == 10
    obs = state.observation(0)
    assert obs["pending"]["realtime"] is True and obs["pending"]["my_options"] == ["play c3-0"]


def test_until_ends_the_block_and_replay_is_exact(tmp_path):
    game = _game(tmp_path)
    state = game.new_state(3, seed=1)
    for text, p in [("play c1-1", 1), ("play c2-0", 0), ("shout", 2), ("play c3-1", 1), ("play c4-2", 2),
                    ("play c5-0", 0)]:
        state.apply(text, p)
    assert state.is_terminal() and state.scores() == [2, 2, 11]
    assert state.history[0] == [1, "play c1-1"]
    again = game.replay(3, 1, state.history)
    assert again.to_json() == state.to_json()


def test_a_player_without_actions_is_refused_with_a_reason(tmp_path):
    state = _game(tmp_path).new_state(2, seed=0)
    state.apply("play c1-0", 0)
    state.apply("play c2-0", 0)
    before = state.to_json()
    with pytest.raises(IllegalAction) as exc:
        state.apply("shout", 0)  # seat 0 scored already
    assert "shout" in exc.value.reason
    assert state.to_json() == before


NOBODY = """
name: Until nobody can act
players: {min: 2, max: 3}
cards:
  - each: {value: "range(1, 4)"}
    name: "k{value}"
zones:
  deck: {visibility: hidden, initial: all}
  pile: {visibility: public}
variables: {ended_by: null}
player_variables: {score: 0}
flow:
  - realtime:
      players: "[0]"
      actions:
        - choose: {action: take, cards: deck, to: pile, then: [{add: {player.score: 1}}]}
  - set: {ended_by: "'nobody can act'"}
"""


def test_the_block_ends_when_nobody_listed_can_act(tmp_path):
    game = _game(tmp_path, NOBODY, "nobody.yaml")
    state = game.new_state(2, seed=0)
    assert state.current_players() == [0]  # players: only seat 0 is listed
    assert _legal(state, 1) == []
    with pytest.raises(IllegalAction) as exc:
        state.apply("take k1", 1)
    assert "no legal action" in exc.value.reason
    for _ in range(3):
        state.apply(state.legal_actions(0)[0])
    assert state.is_terminal() and state.vars["ended_by"] == "nobody can act"
    assert state.scores() == [3, 0]


def test_clone_and_json_continue_inside_the_block(tmp_path):
    game = _game(tmp_path)
    state = game.new_state(2, seed=3)
    state.apply("play c1-1", 1)
    copy = State.from_json(game, state.to_json())
    assert copy.current_players() == [0, 1] and _legal(copy, 0) == ["play c2-0"]
    copy.apply("play c2-0", 0)
    assert state.vars["next"] == 2 and copy.vars["next"] == 3
    clone = state.clone()
    clone.apply("play c2-1", 1)
    assert _legal(clone, 0) == ["play c3-0", "shout"] and _legal(state, 0) == ["play c2-0"]


def test_round_robin_is_the_deterministic_default(tmp_path):
    game = _game(tmp_path)
    a = play_game(game, 3, 5, [FirstLegalAgent() for _ in range(3)])
    b = play_game(game, 3, 5, [FirstLegalAgent() for _ in range(3)])
    assert a.history == b.history
    assert [h[0] for h in a.history[:3]] == [0, 1, 2]  # clockwise from seat 0


def test_schedulers_never_use_the_states_generator(tmp_path):
    game = _game(tmp_path)
    for sched in (Scheduler("random", 7), Scheduler("round-robin", 7, {0: 3.0})):
        state = play_game(game, 3, 11, [RandomAgent(p) for p in range(3)], scheduler=sched)
        assert game.replay(3, 11, state.history).to_json() == state.to_json()


def test_a_faster_seat_wins_more(tmp_path):
    game = _game(tmp_path)
    wins = [0, 0, 0]
    for g in range(60):
        state = play_game(game, 3, g, [FirstLegalAgent() for _ in range(3)], scheduler=Scheduler(seed=g, speeds={0: 4.0}))
        for w in state.winners():
            wins[w] += 1
    assert wins[0] > wins[1] + 10 and wins[0] > wins[2] + 10


def test_scheduler_arguments_are_checked():
    with pytest.raises(ValueError):
        Scheduler("fastest")
    with pytest.raises(ValueError):
        Scheduler(speeds={0: 0})
    assert parse_speeds(["0=2", "3=0.5"]) == {0: 2.0, 3: 0.5}
    for bad in (["0"], ["x=1"], ["0=-1"], ["0=nan"]):
        with pytest.raises(ValueError):
            parse_speeds(bad)


@pytest.mark.parametrize("bad, message", [
    ("""      actions:
        - choose: {action: play, player: 0, options: "[1]"}""", "'player' was unexpected"),
    ("""      actions:
        - choose: {action: go, options: "[1]"}
        - choose: {action: go, options: "[2]"}""", "both called 'go'"),
    ("""      actions:
        - choose: {action: go, cards: deck, options: "[2]"}""", "exactly one of cards"),
])
def test_bad_realtime_blocks_are_located_errors(tmp_path, bad, message):
    text = NOBODY.replace("""      players: "[0]"
      actions:
        - choose: {action: take, cards: deck, to: pile, then: [{add: {player.score: 1}}]}""", bad)
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent(text))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    assert message in str(exc.value) and "bad.yaml:" in str(exc.value)


def test_cli_simulate_with_speeds(tmp_path, capsys):
    from interpreter.cli import main
    path = tmp_path / "race.yaml"
    path.write_text(textwrap.dedent(SPEC))
    assert main(["simulate", str(path), "-p", "3", "-n", "30", "-q", "--speed", "0=4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seats"][0]["win_rate"] > out["seats"][1]["win_rate"]
    assert main(["simulate", str(path), "-p", "3", "-n", "5", "-q", "--speed", "7=2"]) == 1
    assert "seats are 0..2" in capsys.readouterr().err


def test_validate_knows_the_step(tmp_path):
    path = tmp_path / "race.yaml"
    path.write_text(textwrap.dedent(SPEC))
    assert not [d for d in check_spec(path) if d.severity == "error"]


def test_rule_error_inside_a_realtime_block_is_located(tmp_path):
    text = SPEC.replace('where: "c.value == next"', 'where: "c.value == [1][next]"')
    game = _game(tmp_path, text, "broken.yaml")
    with pytest.raises(RuleError) as exc:
        game.new_state(2)
    assert "broken.yaml:" in str(exc.value)


# -- analysis: diagram, rules doc, static checks ------------------------------------------------
def test_graph_draws_the_actions_as_alternatives(tmp_path):
    from interpreter.analysis.graph import children, flow_graph, phase_graph
    G = flow_graph(_game(tmp_path))
    rt = next(n for n, d in G.nodes(data=True) if d["kind"] == "realtime")
    assert G.nodes[rt]["category"] == "realtime" and G.nodes[rt]["until"] == "next > 5"
    assert "everyone plays at once until next > 5" == G.nodes[rt]["label"]
    alts = children(G, rt)
    assert [G.nodes[a]["action"] for a in alts] == ["play", "shout"]
    for a in alts:
        assert G.edges[rt, a]["kind"] == "branch"
    # each action's last step (its `add`) leads back to the block for the next action
    backs = sorted(u for u in G.predecessors(rt) if G.edges[u, rt]["kind"] == "back")
    assert backs == sorted(children(G, a, "then")[-1] for a in alts)
    assert G.edges[rt, "game-over"]["label"] == "until next > 5"
    H = phase_graph(G)
    text = "\n".join(line for _, d in H.nodes(data=True) for line in d.get("text", []))
    assert "⚡ everyone plays at once until next > 5" in text and "◆ play: whoever is first" in text


def test_diagram_files_and_rules_doc(tmp_path):
    from interpreter.cli import main
    path = tmp_path / "race.yaml"
    path.write_text(textwrap.dedent(SPEC))
    for fmt in ("png", "svg", "dot", "mermaid"):
        out = tmp_path / f"race.{'mmd' if fmt == 'mermaid' else fmt}"
        assert main(["diagram", str(path), "-f", fmt, "-o", str(out)]) == 0
        assert out.stat().st_size > 0
    mermaid = (tmp_path / "race.mmd").read_text()
    assert "REAL TIME" in mermaid and "any player, any time" in mermaid and "class" in mermaid
    doc = tmp_path / "rules.md"
    assert main(["doc", str(path), "-o", str(doc)]) == 0
    text = doc.read_text()
    assert "Real time — everyone plays at once" in text and "until `next > 5`" in text


FOREVER = """
name: Forever
players: {min: 2, max: 3}
cards:
  - name: x
zones:
  deck: {visibility: hidden, initial: all}
variables: {stop: false, n: 0}
flow:
  - realtime:
      until: "UNTIL"
      actions:
        - choose: {action: tap, WHERE then: [{add: {n: 1}}]}
  - log: "{n} {stop}"
score: "0"
"""


@pytest.mark.parametrize("until, where, warns", [
    ("stop", "", True),                    # nothing the actions do changes `stop`; tap always possible
    ("n > 5", "", False),                  # tap changes n
    ("stop", "where: 'n < 3',", False),    # tap stops being possible: nobody can act, the block ends
])
def test_static_check_realtime_block_without_end(tmp_path, until, where, warns):
    path = tmp_path / "forever.yaml"
    path.write_text(textwrap.dedent(FOREVER.replace("UNTIL", until).replace("WHERE", where)))
    diags = [d for d in check_spec(path) if "may never end" in d.message]
    assert bool(diags) == warns
    if warns:
        assert diags[0].line == 11 and "'tap' is always possible" in diags[0].message


def test_refusal_of_an_option_ruled_out_names_the_rule(tmp_path):
    state = _game(tmp_path).new_state(2, seed=0)
    with pytest.raises(IllegalAction) as exc:
        state.apply("shout", 1)  # next is 1: shout needs next == 3
    assert "the rule here is `player.score == 0 and next == 3`" in exc.value.reason


def test_an_if_on_players_state_is_no_player_count_guard(tmp_path):
    from interpreter.analysis.graph import flow_graph
    text = SPEC + """  - if: "all([q.score > 0 for q in players])"
    then:
      - log: "everyone scored"
"""
    G = flow_graph(_game(tmp_path, text, "guard.yaml"))
    logs = [d for _, d in G.nodes(data=True) if d["kind"] == "log"]
    assert logs and logs[0]["variant"] == []
