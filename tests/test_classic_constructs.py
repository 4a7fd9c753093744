"""Constructs for classic card games: slicing, nested comprehensions, holder(card), card lists
reading definitions, computed card names, and `deal: {count: all}`."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import SpecError, load_game
from interpreter.errors import RuleError
from interpreter.scenario import evaluate

SPEC = Path(__file__).parent / "specs" / "classic_constructs.yaml"


@pytest.fixture(scope="module")
def state():
    return load_game(SPEC).new_state(3, 7)


@pytest.mark.parametrize("text,value", [
    ("[1, 2, 3, 4][0:2]", [1, 2]), ("[1, 2, 3, 4][1:]", [2, 3, 4]), ("[1, 2, 3, 4][:-1]", [1, 2, 3]),
    ("[1, 2, 3][5:]", []), ("'hearts'[0:1]", "h"), ("[1, 2, 3][:]", [1, 2, 3]),
    ("[x for xs in [[1, 2], [3]] for x in xs]", [1, 2, 3]),
    ("[x * y for x in [1, 2] for y in range(x, 3) where x != y]", [2]),
    ("[[a, b] for a in [1, 2] for b in ['x', 'y']]", [[1, "x"], [1, "y"], [2, "x"], [2, "y"]]),
    ("count([c for p in players for c in p.hand])", 52),
    ("[x for xs in [[1], [2]] for ys in [[xs]] for x in ys[0]]", [1, 2]),
])
def test_values(state, text, value):
    assert evaluate(state, text) == value


def test_slice_errors(state):
    with pytest.raises(RuleError, match="cannot slice null"):
        evaluate(state, "null[1:]")
    with pytest.raises(RuleError, match="whole number"):
        evaluate(state, "[1, 2][0:'a']")


def test_deal_all_deals_every_card_round_the_table(state):
    # 52 cards to 3 players: 18, 17, 17 (the first seats from start get the one more)
    assert [len(h) for h in state.zones["hand"]] == [18, 17, 17]
    assert state.zones["deck"] == []


def test_holder(state):
    assert evaluate(state, "[holder(first(p.hand)) for p in players]") == [0, 1, 2]
    # a card in no per-player zone has no holder
    game = load_game(SPEC)
    fresh = game.new_state(2, 0)
    assert evaluate(fresh, "all([holder(c) != null for p in players for c in p.hand])") is True
    with pytest.raises(RuleError, match="holder takes a card"):
        evaluate(fresh, "holder(3)")


def test_card_list_reads_definitions_and_computes_names(state):
    names = {c.name for c in state.game.cards}
    # each: {suit: suits} reads the define; the names index the faces map for J Q K A
    assert {"Ah", "Qs", "10d", "2c", "Jh"} <= names
    assert len(names) == 52


def test_card_list_cannot_read_the_game_state(tmp_path):
    text = SPEC.read_text().replace('suits: "[', 'suits: "[hand_size] + [').replace(
        "player_variables:", "variables: {hand_size: 3}\nplayer_variables:")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    with pytest.raises(SpecError) as err:
        load_game(bad)
    msg = str(err.value)
    assert "hand_size" in msg and "in define suits" in msg and "before the game starts" in msg
    assert "bad.yaml:" in msg


def test_name_expression_error_is_located(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SPEC.read_text().replace("{face(rank)}", "{face(rnk)}"))
    with pytest.raises(SpecError) as err:
        load_game(bad)
    assert "rnk" in str(err.value)


def test_option_read_by_the_card_list_through_a_define_is_used(tmp_path):
    # regression: the card list's own compiler must record the options it reads (oh_hell's num_suits)
    text = SPEC.read_text().replace("define:\n", "options:\n  n_suits: {type: int, default: 4}\ndefine:\n", 1) \
        .replace('suits: "[\'clubs\', \'diamonds\', \'spades\', \'hearts\']"',
                 'suits: "[\'clubs\', \'diamonds\', \'spades\', \'hearts\'][:options.n_suits]"')
    path = tmp_path / "opt.yaml"
    path.write_text(text)
    game = load_game(path)
    assert not [w for w in game.warnings if "never used" in w.message]
    assert len(game.cards) == 52
    assert len(load_game(path, {"n_suits": 2}).cards) == 26


# -- phases with arguments -------------------------------------------------------------------
PHASES = Path(__file__).parent / "specs" / "phase_args.yaml"


def test_phase_arguments_are_bound_per_call():
    game = load_game(PHASES)
    state = game.new_state(2, 1)
    # first call: who = next_player(dealer) = 1, bonus 10; second: who = dealer = 0, bonus 1
    assert state.current_players() == [1]
    state.apply(state.legal_actions(1)[0])
    assert state.current_players() == [0]
    state.apply(state.legal_actions(0)[0])
    assert state.is_terminal()
    played = [game.cards[i] for i in state.zones["pile"]]
    assert state.pvars[1]["score"] == played[0].attrs["rank"] + 10
    assert state.pvars[0]["score"] == played[1].attrs["rank"] + 1
    # the arguments live in the phase's frame: plain data, saved and replayed exactly
    again = game.replay(2, 1, state.history)
    assert again.to_json() == state.to_json()


def _spec_with(tmp_path, old, new):
    path = tmp_path / "p.yaml"
    text = PHASES.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


def test_phase_argument_missing_or_unknown(tmp_path):
    with pytest.raises(SpecError, match="does not give bonus"):
        load_game(_spec_with(tmp_path, 'args: {who: "dealer", bonus: 1}', 'args: {who: "dealer"}'))
    with pytest.raises(SpecError, match="has no argument 'extra'"):
        load_game(_spec_with(tmp_path, 'args: {who: "dealer", bonus: 1}', 'args: {who: dealer, bonus: 1, extra: 2}'))


def test_a_phase_cannot_see_a_name_bound_by_its_caller_and_says_why(tmp_path):
    text = PHASES.read_text().replace("turn(who, bonus):", "turn(who):").replace(
        '    args: {who: "next_player(dealer)", bonus: 10}\n', '    args: {who: "next_player(dealer)"}\n').replace(
        '  - phase: turn\n    args: {who: "dealer", bonus: 1}\n',
        '  - for: bonus\n    in: "[1]"\n    do:\n      - phase: turn\n        args: {who: "dealer"}\n')
    path = tmp_path / "p.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as err:
        load_game(path)
    msg = str(err.value)
    assert "phase turn cannot see 'bonus'" in msg and "turn(who, bonus)" in msg and "args: {bonus: bonus}" in msg
    assert "declare it under variables" not in msg


def test_scenario_starts_a_phase_with_arguments(tmp_path):
    from interpreter.scenario import run_paths
    scen = tmp_path / "s.yaml"
    scen.write_text(f"""rule: a phase started with its arguments
spec: {PHASES}
players: 2
start: turn
args: {{who: 1, bonus: 100}}
setup:
  zones: {{hand: {{1: [c3]}}}}
actions: ["1: play c3"]
expect: {{player_vars: {{1: {{score: 103}}}}}}
""")
    [result] = run_paths([scen])
    assert result.passed, result.failures
    scen.write_text(scen.read_text().replace("args: {who: 1, bonus: 100}\n", ""))
    [result] = run_paths([scen])
    assert not result.passed and "takes the argument(s) who, bonus" in result.failures[0]


def test_diagram_labels_phase_calls_with_their_arguments():
    from interpreter.analysis.graph import flow_graph
    G = flow_graph(load_game(PHASES))
    labels = [d["label"] for _, d in G.nodes(data=True)]
    assert "phase turn(who = next_player(dealer), bonus = 10)" in labels
    assert G.nodes["phases/turn"]["text"] == ["turn(who, bonus)"]


# -- teams -------------------------------------------------------------------------------------
TEAMS = Path(__file__).parent / "specs" / "teams.yaml"


def test_team_variables_are_shared_by_the_team():
    game = load_game(TEAMS)
    state = game.new_state(4, 2)
    assert game.teams(4) == [0, 1, 0, 1] and game.teams(3) == [0, 1, 0]
    while not state.is_terminal():
        state.apply(state.legal_actions(state.current_players()[0])[0])
    played = [state.pvars[p]["played"] for p in range(4)]
    points = [state.pvars[p]["points"] for p in range(4)]
    assert points == [played[0] + played[2], played[1] + played[3]] * 2
    assert evaluate(state, "[team_of(p) for p in players]") == [0, 1, 0, 1]
    assert evaluate(state, "teammates(1)") == [3]
    assert evaluate(state, "teammates(0)") == [2]
    best = max(points)
    assert state.winners() == [p for p in range(4) if points[p] == best]


def test_simulate_counts_a_team_win_once():
    from interpreter.sim.simulate import simulate
    result = simulate(load_game(TEAMS), 60, 4, seed=5)
    summary = result.summary()
    rows = summary["teams"]
    assert [r["name"] for r in rows] == ["North-South", "East-West"]
    assert [r["seats"] for r in rows] == [[0, 2], [1, 3]]
    # every game is won by one team (or shared by both on a tie): the team rates sum to 1,
    # where the seat rates of a team sum to the team's rate split over its seats
    assert sum(r["win_rate"] for r in rows) == pytest.approx(1.0)
    seats = summary["seats"]
    assert rows[0]["win_rate"] == pytest.approx(seats[0]["win_rate"] + seats[2]["win_rate"])
    assert "teams" not in simulate(load_game(SPEC), 2, 3).summary()


def test_team_variables_need_teams_and_teams_must_be_numbers(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text(TEAMS.read_text().replace('teams: {of: "p % 2", names: [North-South, East-West]}\n', ""))
    with pytest.raises(SpecError, match="team variables need teams"):
        load_game(path)
    path.write_text(TEAMS.read_text().replace('of: "p % 2"', "of: \"'a'\""))
    game = load_game(path)
    with pytest.raises(RuleError, match="not a whole number"):
        game.new_state(4, 0)


def test_rules_doc_names_teams_team_variables_and_phase_arguments():
    from interpreter.analysis.rulesdoc import rules_markdown
    text = rules_markdown(load_game(TEAMS))
    assert "**Teams:** the team of player `p` is `p % 2` (North-South, East-West)" in text
    assert "For each team (partners share it):" in text and "- `points`, at first 0" in text
    text = rules_markdown(load_game(PHASES))
    assert "Play the phase **turn** with `who` =" in text and "`bonus` = `10`" in text
    assert "Arguments: `turn(who, bonus)`, given by each call." in text
