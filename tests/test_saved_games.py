"""Saved games: a State saved by one process continues in another (every spec), and
tampered saves are refused with a clear error."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import load_game

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


def _play(game, seed, limit=400):
    """A seeded random game: the snapshots (JSON after some actions) and the actions taken."""
    rng = random.Random(seed)
    state = game.new_state(game.min_players, seed=seed)
    snaps, actions = [], []
    while not state.is_terminal() and len(actions) < limit:
        if len(actions) in (0, 1, 3, 7, 15, 40, 90):
            snaps.append((len(actions), state.to_json()))
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p))
        actions.append([p, a.text])
        state.apply(a.text, p)
    return snaps, actions, state.to_json()


_CONTINUE = r"""
import json, sys
from interpreter import State, load_game
spec, payload = sys.argv[1], json.load(sys.stdin)
game = load_game(spec)
out = []
for at, text in payload["snaps"]:
    state = State.from_json(game, text)
    for seat, action in payload["actions"][at:]:
        state.apply(action, seat)
    out.append(state.to_json())
print(json.dumps(out))
"""


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_a_saved_state_continues_in_another_process(spec):
    # Loop and choice cursors were keyed by memory addresses: a fresh process lost them
    # at the next loop step. Every snapshot must continue to the same end position.
    game = load_game(spec)
    snaps, actions, final = _play(game, seed=11)
    assert len(snaps) >= 4
    proc = subprocess.run([sys.executable, "-c", _CONTINUE, str(spec)], cwd=ROOT, text=True,
                          input=json.dumps({"snaps": snaps, "actions": actions}),
                          capture_output=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    ends = json.loads(proc.stdout)
    assert ends == [final] * len(snaps)


# -- tampered States: each refused with a RulebookError saying what is wrong ------------------
from interpreter import RulebookError, State  # noqa: E402

SK = ROOT / "specs" / "skull_king.yaml"


@pytest.fixture(scope="module")
def sk():
    return load_game(SK)


@pytest.fixture(scope="module")
def mid_game(sk):
    """A Skull King State in the middle of a trick (inside several loops), as JSON data."""
    state = sk.new_state(4, seed=3)
    rng = random.Random(3)
    for _ in range(9):
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)).text, p)
    return json.loads(state.to_json())


def _tamper(data, change):
    data = json.loads(json.dumps(data))
    change(data)
    return json.dumps(data)


def _first_hand(d):
    return d["zones"]["hand"][0]


TAMPERINGS = {
    "lost card": (lambda d: _first_hand(d).pop(), "in no zone"),
    "duplicated card": (lambda d: _first_hand(d).append(d["zones"]["hand"][1][0]), "exactly one place"),
    "unknown card id": (lambda d: _first_hand(d).__setitem__(0, 9999), "card id"),
    "card id as text": (lambda d: _first_hand(d).__setitem__(0, "3"), "whole number"),
    "seat count": (lambda d: d.__setitem__("num_players", 17), "num_players"),
    "boolean seat count": (lambda d: d.__setitem__("num_players", True), "num_players"),
    "missing key": (lambda d: d.pop("vars"), "lacks vars"),
    "unknown key": (lambda d: d.__setitem__("evil", 1), "unknown keys"),
    "undeclared variable": (lambda d: d["vars"].__setitem__("nope", 1), "not declared"),
    "phase": (lambda d: d["stack"][-1].__setitem__(0, "no-such-phase"), "not a phase"),
    "position": (lambda d: d["stack"][-1].__setitem__(1, 10 ** 6), "position"),
    "position not a decision": (lambda d: d["stack"][-1].__setitem__(1, 0), "not a decision"),
    "loop cursor lost": (lambda d: [f[2].clear() for f in d["stack"]], "cursor"),
    "pending seat": (lambda d: d["pending"].__setitem__("players", [9]), "seat"),
    "fingerprint": (lambda d: d.__setitem__("fingerprint", "sha256:0"), "another version of the spec"),
    "options": (lambda d: d.__setitem__("options", {"kraken": True}), "options"),
    "old format": (lambda d: d.pop("format"), "older Rulebook"),
    "seed digits": (lambda d: d.__setitem__("seed", 10 ** 39), "digits"),
    "history seat": (lambda d: d["history"].append(["0", "bid 1"]), "history"),
    "mark": (lambda d: d.__setitem__("marks", {"0": [7, None]}), "marks"),
    # fuzz case 9771 (seed 1): a mark's mode that is a list raised TypeError (unhashable)
    "mark mode a list": (lambda d: d.__setitem__("marks", {"0": [0, [1]]}), "marks"),
    "nested value": (lambda d: d["vars"].__setitem__("round", json.loads("[" * 150 + "]" * 150)), "nested"),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_a_tampered_state_is_refused(sk, mid_game, name):
    change, match = TAMPERINGS[name]
    with pytest.raises(RulebookError, match=match):
        State.from_json(sk, _tamper(mid_game, change))


def test_an_untampered_state_loads(sk, mid_game):
    text = json.dumps(mid_game)
    assert json.loads(State.from_json(sk, text).to_json()) == mid_game


@pytest.mark.parametrize("text, match", [
    ("{", "not valid JSON"), ("[]", "JSON object"), (b"\xff\xfe", "UTF-8"), (42, "JSON text"),
    ("[" * 100_000 + "]" * 100_000, "nested"), ('{"seed": ' + "9" * 5000 + "}", "digits"),
    ('{"seed": NaN}', "NaN"),
])
def test_junk_text_is_refused(sk, text, match):
    with pytest.raises(RulebookError, match=match):
        State.from_json(sk, text)


def test_a_committed_choice_that_was_never_legal_is_refused(sk):
    state = sk.new_state(4, seed=1)
    state.apply("bid 0", 2)
    data = json.loads(state.to_json())
    data["pending"]["committed"]["2"][1] = 7  # round 1: the bids are 0 and 1
    with pytest.raises(RulebookError, match="not one of the options"):
        State.from_json(sk, json.dumps(data))


def test_a_changed_spec_text_is_refused(sk, tmp_path):
    text = sk.new_state(4, seed=1).to_json()
    changed = tmp_path / "skull_king.yaml"
    changed.write_text(SK.read_text() + "\n# a harmless comment still makes it another version\n")
    with pytest.raises(RulebookError, match="another version"):
        State.from_json(load_game(changed), text)


def test_huge_seeds_are_refused(sk):
    with pytest.raises(RulebookError, match="digits"):
        sk.new_state(4, seed=10 ** 50)


MAPS = """
name: Maps
players: {min: 2, max: 2}
cards:
  - each: {rank: "range(1, 7)"}
    name: "K-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  table: {visibility: public}
variables:
  by_number: {1: one, 2: two}
  by_card: {}
  tags: {card: not a card, $map: not a map}
flow:
  - deal: {from: deck, to: hand, count: 2}
  - for: c
    in: "deck"
    do:
      - set: {"by_card[c]": "by_number[1]"}
  - for: p
    in: "[0, 1]"
    do:
      - choose: {player: p, cards: p.hand, action: play, to: table}
score: "len(by_card) + len(tags) + by_number[2].len()"
"""


def test_maps_keyed_by_numbers_and_cards_survive_a_round_trip(tmp_path):
    spec = tmp_path / "maps.yaml"
    spec.write_text(MAPS.replace("by_number[2].len()", "0"))
    game = load_game(spec)
    state = game.new_state(2, seed=1)
    assert set(state.vars["by_number"]) == {1, 2}
    again = State.from_json(game, state.to_json())
    assert again.vars == state.vars
    assert all(type(k) is type(game.cards[0]) for k in again.vars["by_card"])
    assert again.to_json() == state.to_json()


def test_capitalised_card_names_are_matched(tmp_path):
    spec = tmp_path / "maps.yaml"
    spec.write_text(MAPS.replace("by_number[2].len()", "0"))
    game = load_game(spec)
    state = game.new_state(2, seed=1)
    held = state.legal_actions(0)[0].text          # e.g. "play K-3"
    card = held.split()[1]
    state.apply(held.lower(), 0)                    # any case is accepted
    assert state.history[-1] == [0, held]
    from interpreter import IllegalAction
    other = next(c.name for c in game.cards if c.name not in {card} and c.id in state.zones["deck"])
    with pytest.raises(IllegalAction, match=f"has no {other} in"):
        state.apply(f"play {other}", 1)


def test_a_game_started_from_a_set_up_position_saves_and_loads():
    # Issue 33: from_json refused any State whose bottom frame was not the flow
    # ("stack[0] must be the flow"), so a game started with new_state(setup=...) could not be loaded.
    game = load_game(ROOT / "specs" / "spades.yaml")
    state = game.new_state(4, seed=1, setup={"start": "hand"})
    assert state.stack[0][0] == "hand"
    again = State.from_json(game, state.to_json())
    assert again.to_json() == state.to_json()
    rng = random.Random(3)
    for _ in range(20):                             # both continue alike
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p)).text
        state.apply(a, p)
        again.apply(a, p)
    assert again.to_json() == state.to_json()
