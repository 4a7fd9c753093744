"""Skull King's optional modules (digest §8-§11): off by default they change no game; on, games
keep the invariants and the hidden information stays hidden.

The rules themselves are checked by the scenarios in tests/scenarios/skull_king/ (loot_*, rascal_*,
ability_*, ghost_*); this file checks whole games.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import load_game
from interpreter.view import export, history_for

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from skull_king_golden import OUT as GOLDEN, SPEC, digest, play  # noqa: E402

ALL_ON = {"loot": True, "scoring": "rascal_cannonball", "pirate_abilities": True, "kraken": True,
          "white_whale": True}
NAMED = ["rosie-d-laney", "bendt-the-bandit", "rascal-of-roatan", "juanita-jade", "harry-the-giant"]
_GAMES: dict = {}


def game(options):
    key = json.dumps(options, sort_keys=True)
    if key not in _GAMES:
        _GAMES[key] = load_game(SPEC, options)
    return _GAMES[key]


RECORDED = json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("case", RECORDED, ids=[f"{c['players']}p-{json.dumps(c['options'], sort_keys=True)}"
                                                for c in RECORDED])
def test_modules_off_games_unchanged(case):
    """The games recorded before the modules existed replay to the same history and scores."""
    history, scores = play(game(case["options"]), case["players"], case["seed"])
    assert len(history) == case["actions"]
    assert digest(history) == case["history_sha256"]
    assert scores == case["scores"]


def test_defaults_are_all_off():
    g = game({})
    assert g.options["loot"] is False and g.options["pirate_abilities"] is False
    assert g.options["scoring"] == "classic"
    names = [c.name for c in g.cards]
    assert len(names) == 70 and names.count("pirate") == 5 and "loot" not in names
    assert not set(NAMED) & set(names)


def test_deck_with_every_module_on():
    """§1: 74 cards with Loot and both creatures; the named Pirates take the plain Pirates' places."""
    off, on = game({"kraken": True, "white_whale": True}), game(ALL_ON)
    assert len(on.cards) == 74
    for a, b in zip(off.cards, on.cards):  # same card table up to the Pirates; Loot comes last
        assert a.name == b.name or (a.name == "pirate" and b.name in NAMED)
    assert [c.name for c in on.cards[72:]] == ["loot", "loot"]
    assert sorted(c.name for c in on.cards if c.attrs.get("kind") == "pirate") == sorted(NAMED)


def _all_ids(state):
    out = []
    for name, zone in state.zones.items():
        out.extend(i for z in zone for i in z) if state.game.zones[name].per_player else out.extend(zone)
    return out


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 8), seed=st.integers(0, 10_000),
       loot=st.booleans(), abilities=st.booleans(), scoring=st.sampled_from(["classic", "rascal", "rascal_cannonball"]),
       creatures=st.booleans())
def test_games_with_modules_keep_invariants(players, seed, loot, abilities, scoring, creatures):
    """Any mix of modules, 2-8 players: cards are never created or lost, every game ends, and it
    replays exactly from (spec, options, seed, actions)."""
    options = {"loot": loot, "pirate_abilities": abilities, "scoring": scoring, "kraken": creatures,
               "white_whale": creatures}
    g = game(options)
    rng = random.Random(seed)
    state = g.new_state(players, seed)
    total = len(g.cards)
    steps = 0
    while not state.is_terminal():
        p = rng.choice(state.current_players())
        state.apply(rng.choice(state.legal_actions(p)))
        ids = _all_ids(state)
        assert len(ids) == total and len(set(ids)) == total
        steps += 1
        assert steps < 5000
    assert len(state.scores()) == players and state.winners()
    assert g.replay(players, seed, state.history).to_json() == state.to_json()
    if players == 2:  # §11: only the humans act; Graybeard's pile is played out every round
        assert {seat for seat, _ in state.history} <= {0, 1}
        assert state.zones["ghost"] == []


def _play_until(state, rng, stop, limit=5000):
    """Random play until ``stop(state)`` holds (True) or the game ends (False)."""
    for _ in range(limit):
        if stop(state):
            return True
        if state.is_terminal():
            return False
        p = rng.choice(state.current_players())
        state.apply(rng.choice(state.legal_actions(p)))
    return False


def _pending_action(state):
    return state.legal_actions(state.current_players()[0])[0].text.split()[0] if state.current_players() else None


@pytest.mark.parametrize("seed", range(4))
def test_bendt_draw_and_discards_stay_private(seed):
    """§10 Bendt: the drawn cards are in his hand (others see its size only) and the discarded
    cards are face down: nobody's observation names them."""
    g = game({"pirate_abilities": True})
    found = False
    for s in range(seed * 50, seed * 50 + 50):
        state = g.new_state(4, s)
        if _play_until(state, random.Random(s), lambda st: _pending_action(st) == "discard"):
            found = True
            break
    assert found, "no game in 50 seeds let Bendt win a trick before the last"
    bendt = state.current_players()[0]
    state.apply(state.legal_actions(bendt)[0])
    state.apply(state.legal_actions(bendt)[0])
    aside = [g.cards[i].name for i in state.zones["set_aside"]]
    assert len(aside) == 2
    discards = [f"discard {name}" for name in aside]
    for viewer in range(4):
        obs = state.observation(viewer)
        assert obs["zones"]["set_aside"] == {"count": 2}
        for seat, hand in enumerate(obs["zones"]["hand"]):
            if seat != viewer:
                assert hand == {"count": len(state.zones["hand"][seat])}
        last = history_for(state, viewer)[-2:]
        if viewer == bendt:
            assert [e["action"] for e in last] == discards
        else:
            assert all("action" not in e and "discards a card face down" in e["hidden"] for e in last)
            view = json.dumps(export(state, viewer))
            assert not any(f'"{d}"' in view for d in discards)


@pytest.mark.parametrize("seed", range(3))
def test_juanita_look_is_private(seed):
    """§10 Juanita: the winner sees the undealt cards in their observation and log; nobody else
    does, and the look ends when the cards move (the next round gathers them)."""
    g = game({"pirate_abilities": True})
    for s in range(seed * 60, seed * 60 + 60):
        state = g.new_state(3, s)
        if _play_until(state, random.Random(s), lambda st: bool(st.shown)):
            break
    else:
        pytest.fail("no game in 60 seeds let Juanita win a trick before the last")
    juanita = next(iter(state.shown.values()))[0]
    deck = sorted(g.cards[i].name for i in state.zones["deck"])
    for viewer in range(3):
        seen = state.observation(viewer)["zones"]["deck"].get("seen")
        assert (sorted(seen) if seen else None) == (deck if viewer == juanita else None)
        log = export(state, viewer)["log"]
        look = [line for line in log if "(Juanita Jade) looks at" in line][-1]
        assert ("undealt cards:" in look) == (viewer == juanita), look
    round_now = state.vars["round"]
    if _play_until(state, random.Random(seed), lambda st: st.vars["round"] > round_now and st.current_players()):
        assert all("seen" not in state.observation(v)["zones"]["deck"] for v in range(3))


def test_rules_doc_and_diagram_show_each_module_only_with_its_option():
    """`rulebook doc` describes a module's steps only when its option is on; the diagram draws
    them in every case, marked as a variant of that option."""
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    marks = {"pirate_abilities": ["### Phase pirate_ability", "**Decision — next_leader:**", "**Decision — rebid:**"],
             "scoring": ["**Decision — load:**"],
             "loot": ["Set `alliances` to `alliances + [[ally, leader]]`"]}
    on = {"pirate_abilities": True, "scoring": "rascal_cannonball", "loot": True}
    off_md = rules_markdown(game({}))
    for option, texts in marks.items():
        one_on = rules_markdown(game({option: on[option]}))
        for text in texts:
            assert text not in off_md, (option, text)
            assert text in one_on, (option, text)
    G = flow_graph(game({}))
    guarded = {o for n, d in G.nodes(data=True) for o in d["variant"]}
    assert {"pirate_abilities", "scoring", "loot", "ghost_game"} <= guarded
    assert G.nodes["phases/pirate_ability"]["inactive"] and G.nodes["phases/pirate_ability"]["variant"] == ["pirate_abilities"]
