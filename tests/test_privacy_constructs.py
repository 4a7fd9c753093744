"""The hidden-information constructs: ``visible_to``/``hidden_text`` on ``choose`` and ``log``,
and ``show: {cards, to}``, through every per-seat channel (observation, export, events)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from interpreter.errors import RuleError, SpecError
from interpreter.model.state import State
from interpreter.spec.loader import check_spec, load_game
from interpreter.view import event_for, history_for, line_for

SPEC = Path(__file__).parent / "specs" / "private_pass.yaml"


def _game():
    return load_game(SPEC)


def _lines(state, seat):
    out = []
    for ev in state.events:
        shown = event_for(state, ev, seat)
        if shown is not None:
            out.append(line_for(state, shown))
    return out


def _passed(state, seat):
    """The card ``seat`` passed (from the full history)."""
    return next(t for p, t in state.history if p == seat and t.startswith("pass ")).split(" ", 1)[1]


def test_a_private_choice_is_read_by_the_chooser_and_the_receiver_only():
    state = _game().new_state(3, 4, events=[])
    first = state.legal_actions(0)[0].text
    state.apply(first, 0)
    card = first.split(" ", 1)[1]
    assert state.history == [[0, first]]  # the full record keeps it
    assert state.private == {"0": [[0, 1], "P0 passes a card to P1"]}
    assert f"P0: {first}" in _lines(state, 0)
    assert f"P0: {first}" in _lines(state, 1)
    assert "P0 passed you " + card in _lines(state, 1)
    seat2 = _lines(state, 2)
    assert "P0 passes a card to P1" in seat2 and "P1 received a card" in seat2
    assert not any(card in line for line in seat2)
    assert not any(card in line for line in _lines(state, None))  # a spectator reads only what is public
    assert history_for(state, 2) == [{"player": 0, "hidden": "P0 passes a card to P1"}]
    assert history_for(state, 1) == [{"player": 0, "action": first}]


def test_the_default_hidden_text_names_the_chooser_and_the_verb(tmp_path):
    text = SPEC.read_text().replace('          hidden_text: "{name(player)} passes a card to '
                                    '{name((player + 1) % num_players)}"\n', "")
    path = tmp_path / "default.yaml"
    path.write_text(text)
    state = load_game(path).new_state(3, 4, events=[])
    state.apply(0, 0)
    assert state.private["0"][1] == "P0 made a hidden choice (pass)"
    assert "P0 made a hidden choice (pass)" in _lines(state, 2)


def test_the_per_seat_export_holds_only_what_the_seat_may_know():
    state = _game().new_state(3, 4, events=[])
    for p in range(3):
        state.apply(0, p)
    passed = {p: _passed(state, p) for p in range(3)}
    view = state.export(2)
    text = json.dumps(view)
    assert "seed" not in view and '"seed"' not in text
    assert passed[0] not in json.dumps(view["history"]) or passed[0] in json.dumps(view["observation"])
    assert view["history"][0] == {"player": 0, "hidden": "P0 passes a card to P1"}
    assert view["history"][1]["action"] == f"pass {passed[1]}"  # passed to seat 2: it knows
    assert view["history"][2]["action"] == f"pass {passed[2]}"  # its own
    assert view["observation"] == state.observation(2)
    assert "P1 passed you " + passed[1] in view["log"]
    assert not any(passed[0] in line for line in view["log"] if "P0" in line and "pass" in line)
    assert json.loads(state.to_json(seat=2)) == json.loads(json.dumps(view))
    with pytest.raises(Exception):
        state.export(3)


def test_simultaneous_choices_stay_secret_until_everyone_has_chosen():
    state = _game().new_state(3, 4, events=[])
    for p in range(3):
        state.apply(0, p)
    state.events.clear()
    mine = state.legal_actions(0)[0].text
    state.apply(mine, 0)
    assert history_for(state, 1)[-1] == {"player": 0, "hidden": "P0 has chosen"}
    assert history_for(state, 0)[-1] == {"player": 0, "action": mine}
    assert mine not in json.dumps(state.export(1)) or mine.split()[1] in json.dumps(state.observation(1))
    assert _lines(state, 1) == [] and _lines(state, 0) == []
    state.apply(0, 1)
    state.apply(0, 2)
    assert f"P0: {mine}" in _lines(state, 1)  # revealed to everyone
    assert history_for(state, 1)[3] == {"player": 0, "action": mine}


def test_show_lets_the_seat_see_the_cards_until_they_move():
    state = _game().new_state(3, 4, events=[])
    for p in range(3):
        state.apply(0, p)
    bottom = [state.game.cards[i].name for i in sorted(state.zones["deck"][:2])]  # card-table order
    for p in range(3):
        obs = state.observation(p)
        assert obs["zones"]["deck"]["count"] == len(state.zones["deck"])
        assert sorted(obs["zones"]["deck"]["seen"]) == sorted(bottom)
        assert f"shown to P{p}: {', '.join(bottom)}" in _lines(state, p)
        others = [line for q in range(3) if q != p for line in _lines(state, q)]
        assert f"shown to P{p}: {', '.join(bottom)}" not in others
    # a seen card that is no longer in the deck is not listed with the deck
    clone = state.clone()
    card = state.game.cards[clone.zones["deck"][0]]
    clone.zone_for_write("deck").remove(card.id)
    clone.zone_for_write("trick").append(card.id)
    assert clone.observation(0)["zones"]["deck"]["seen"] == [n for n in bottom if n != card.name]
    assert card.id in state.zones["deck"]  # the clone's lists were its own once written


def test_a_moved_card_is_no_longer_seen(tmp_path):
    text = SPEC.read_text().replace('  - log: {text: "you looked at the bottom of the deck", visible_to: players}\n',
                                    '  - log: {text: "you looked at the bottom of the deck", visible_to: players}\n'
                                    '  - move: {from: deck, to: trick, count: 20, at: top}\n'
                                    '  - move: {from: trick, to: deck}\n')
    path = tmp_path / "moved.yaml"
    path.write_text(text)
    state = load_game(path).new_state(3, 4)
    for p in range(3):
        state.apply(0, p)
    assert state.shown == {}
    assert "seen" not in state.observation(0)["zones"]["deck"]


def test_a_card_seen_by_one_seat_is_not_in_the_others_observation():
    state = _game().new_state(3, 4)
    for p in range(3):
        state.apply(0, p)
    cid = state.zones["deck"][-1]
    state.shown = {cid: [1]}
    assert state.observation(1)["zones"]["deck"]["seen"] == [state.game.cards[cid].name]
    assert "seen" not in state.observation(0)["zones"]["deck"]
    assert "seen" not in state.observation(2)["zones"]["deck"]


def test_private_data_survive_clone_json_and_replay():
    game = _game()
    state = game.new_state(3, 4)
    for p in range(3):
        state.apply(0, p)
    again = State.from_json(game, state.to_json())
    assert again.private == state.private and again.shown == state.shown
    assert again.observation(1) == state.observation(1)
    assert again.export(1)["history"] == state.export(1)["history"]
    clone = state.clone()
    clone.apply(0, 0)
    assert state.history != clone.history and state.shown == again.shown
    replayed = game.replay(3, 4, state.history)
    assert replayed.private == state.private and replayed.shown == state.shown
    # an old save without the new keys still loads
    data = json.loads(state.to_json())
    del data["private"], data["shown"]
    old = State.from_json(game, json.dumps(data))
    assert old.private == {} and old.shown == {}


def test_visible_to_must_name_players(tmp_path):
    text = SPEC.read_text().replace('visible_to: "(player + 1) % num_players"', 'visible_to: "player + 10"')
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    state = load_game(path).new_state(3, 4, events=[])
    before = state.to_json()
    with pytest.raises(RuleError, match="visible_to: 10 is not a player"):
        state.apply(0, 0)
    text = SPEC.read_text().replace('visible_to: "[player, (player + 1) % num_players]"', 'visible_to: "\'all\'"')
    path.write_text(text)
    state = load_game(path).new_state(3, 4)
    before = state.to_json()
    with pytest.raises(RuleError, match="is not a player or a list of players"):
        state.apply(0, 0)
    assert state.to_json() == before  # checked before anything changes


def test_hidden_text_without_visible_to_is_a_located_error(tmp_path):
    path = tmp_path / "lonely.yaml"
    path.write_text(SPEC.read_text().replace(
        '  - log: {text: "you looked at the bottom of the deck", visible_to: players}',
        '  - log: {text: "you looked at the bottom of the deck", hidden_text: "x"}'))
    with pytest.raises(SpecError) as info:
        load_game(path)
    assert "hidden_text" in str(info.value) and f"{path}:" in str(info.value)


def test_the_schema_refuses_a_show_without_to(tmp_path):
    path = tmp_path / "show.yaml"
    path.write_text(SPEC.read_text().replace('{cards: "[deck[0], deck[1]]", to: p}', '{cards: deck}'))
    diags = check_spec(path)
    assert any("to" in d.message for d in diags if d.severity == "error")


def test_the_diagram_and_the_rules_page_show_who_sees_what():
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    G = flow_graph(_game())
    labels = [d.get("label", "") for _, d in G.nodes(data=True)]
    assert any("seen only by [player, (player + 1) % num_players]" in lab for lab in labels)
    assert any(lab.startswith("show [deck[0], deck[1]] to p") for lab in labels)
    assert any("(only to (player + 1) % num_players)" in lab for lab in labels)
    page = rules_markdown(_game())
    assert "Let `p` see `[deck[0], deck[1]]`" in page
    assert "Tell only `(player + 1) % num_players`" in page


def test_a_private_choice_played_face_up_is_warned(tmp_path):
    path = tmp_path / "faceup.yaml"
    path.write_text(SPEC.read_text().replace(
        "      cards: p.hand\n      by: p\n      to: trick\n",
        "      cards: p.hand\n      by: p\n      to: trick\n      visible_to: p\n"))
    diags = check_spec(path)
    warned = [d for d in diags if "goes face up to trick" in d.message]
    assert warned and warned[0].severity == "warning" and warned[0].line > 0
    assert not any("face up" in d.message for d in check_spec(SPEC))
