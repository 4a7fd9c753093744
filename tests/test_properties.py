"""Invariants of every spec, checked on random games (hypothesis).

For every spec in specs/, every player count it allows and every combination of its
boolean and choice options: games terminate; cards are never created or lost; every
legal action applies; observations hide other players' private zones; a game replays
exactly from (spec, options, seed, actions); a State survives JSON and cloning.
"""
from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interpreter import State, load_game
from interpreter.model.state import has_nested, nested_keys
from interpreter.spec.loader import load_spec

SPECS = sorted((Path(__file__).resolve().parents[1] / "specs").glob("*.yaml"))
MAX_ACTIONS = 20_000
MAX_FULL_PRODUCT = 16  # more option combinations than this: a pairwise cover instead (bounded time)


def option_combinations(spec_path):
    """Every combination of the spec's bool and choice options (ints stay at their default)."""
    data, _, _ = load_spec(spec_path)
    choices = {}
    for name, decl in (data.get("options") or {}).items():
        if decl.get("values") is not None:
            choices[name] = list(decl["values"])
        elif isinstance(decl.get("default"), bool):
            choices[name] = [False, True]
    names = sorted(choices)
    lists = [choices[n] for n in names]
    total = 1
    for values in lists:
        total *= len(values)
    if total <= MAX_FULL_PRODUCT:
        combos = [dict(zip(names, values)) for values in itertools.product(*lists)]
    else:  # many options: every pair of values of every two options still meets in some game
        combos = [dict(zip(names, values)) for values in pairwise_cover(lists)]
    for preset in data.get("presets") or {}:
        combos.append({"preset": preset})
    return combos


def pairwise_cover(lists) -> list:
    """A small list of rows (one value from each list) in which every pair of values of every
    two lists occurs at least once. The first row takes the first value of each list (the
    defaults, when they come first) and the last row the last of each; the rest is greedy and
    deterministic."""
    pairs = {(i, a, j, b) for i, j in itertools.combinations(range(len(lists)), 2)
             for a in range(len(lists[i])) for b in range(len(lists[j]))}
    rows = []

    def take(row):
        rows.append(row)
        for i, j in itertools.combinations(range(len(lists)), 2):
            pairs.discard((i, row[i], j, row[j]))

    take(tuple(0 for _ in lists))
    take(tuple(len(v) - 1 for v in lists))
    while pairs:
        best, gain = None, -1
        for row in itertools.product(*(range(len(v)) for v in lists)):
            g = sum((i, row[i], j, row[j]) in pairs for i, j in itertools.combinations(range(len(lists)), 2))
            if g > gain:
                best, gain = row, g
        take(best)
    return [tuple(lists[i][k] for i, k in enumerate(row)) for row in rows]


CASES = [(spec, options) for spec in SPECS for options in option_combinations(spec)]
_GAMES = {}
# Long games played shorter here (their full length is simulated elsewhere): spec stem -> options.
BOUNDED = {"ligretto": {"rounds": 2}, "ligretto_classic": {"rounds": 1}, "president": {"rounds": 2},
           "contract_rummy": {"deals": 1}, "canasta": {"max_hands": 1}}


def game_for(spec, options):
    options = {**BOUNDED.get(spec.stem, {}), **options}
    key = (spec, tuple(sorted((k, str(v)) for k, v in options.items())))
    if key not in _GAMES:
        _GAMES[key] = load_game(spec, options)
    return _GAMES[key]


def all_card_ids(state):
    ids = []
    for _, _, _, cards in state.card_lists():  # every zone, every seat, every set of a zone of sets
        ids.extend(cards)
    return ids


def play_random(state, rng, check=None):
    """Play to the end with uniformly random legal actions; ``check(state)`` after each."""
    steps = 0
    while not state.is_terminal():
        players = state.current_players()
        assert players, "a non-terminal State must have a player to act"
        p = rng.choice(players)
        actions = state.legal_actions(p)
        assert actions, f"player {p} must act but has no legal action"
        state.apply(rng.choice(actions))
        steps += 1
        assert steps < MAX_ACTIONS, "the game did not terminate"
        if check is not None:
            check(state)
    return state


def case_id(case):
    spec, options = case
    return spec.stem + ("-" + ",".join(f"{k}={v}" for k, v in sorted(options.items())) if options else "")


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_games_keep_invariants(case, data):
    spec, options = case
    game = game_for(spec, options)
    n = data.draw(st.integers(game.min_players, game.max_players), label="players")
    seed = data.draw(st.integers(0, 10_000), label="seed")
    rng = random.Random(seed)
    total = len(game.cards_in_play(n))  # per_player card sets of absent seats are not in play

    def check(state):
        ids = all_card_ids(state)
        assert len(ids) == total, "a card was created or lost"
        assert len(set(ids)) == total, "a card is in two places"

    state = game.new_state(n, seed)
    check(state)
    final = play_random(state, rng, check)
    scores = final.scores()
    assert len(scores) == n
    assert final.winners(), "a finished game has at least one winner"
    # replay: the same (spec, options, seed, actions) gives the same final State
    again = game.replay(n, seed, final.history)
    assert again.to_json() == final.to_json()


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000), cut=st.floats(0.0, 1.0))
def test_json_and_clone_round_trip(spec, seed, cut):
    game = game_for(spec, {})
    n = game.min_players
    rng = random.Random(seed)
    full = play_random(game.new_state(n, seed), random.Random(seed))
    # stop part-way along the same game, save, restore, and finish both ways
    k = int(cut * len(full.history))
    state = game.replay(n, seed, full.history[:k])
    text = state.to_json()
    restored = State.from_json(game, text)
    assert restored.to_json() == text
    clone = state.clone()
    for seat, action in full.history[k:]:
        restored.apply(action, seat)
        clone.apply(action, seat)
    assert restored.to_json() == full.to_json()
    assert clone.to_json() == full.to_json()
    # the original was not touched by playing on its clone
    assert state.to_json() == text
    del rng


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 10_000), cuts=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3))
def test_clones_of_clones_never_touch_each_other(spec, seed, cuts):
    """A chain of clones taken at different depths of the control stack (clone frames are shared
    until one State returns to them) plays on as if each were replayed from its history, and
    playing a clone never changes the State it came from nor its other clones."""
    game = game_for(spec, {})
    n = game.max_players
    full = play_random(game.new_state(n, seed), random.Random(seed))
    length = len(full.history)
    ks = sorted(int(c * length) for c in cuts)
    state = game.replay(n, seed, full.history[:ks[0]])
    saved = []  # (State, its JSON when taken)
    for k in ks:
        for seat, action in full.history[len(state.history):k]:
            state.apply(action, seat)
        saved.append((state, state.to_json()))
        state = state.clone()
    for i, (s, text) in enumerate(saved):
        # the last clone plays on with other choices than the original game's
        rng = random.Random(seed + i)
        if i == len(saved) - 1:
            play_random(state, rng, check=lambda x: (x.nested_pvars or not has_nested(x.pvars))
                        and set(nested_keys(x.vars)) <= set(x.nested_vars))
            assert state.to_json() == game.replay(n, seed, state.history).to_json()
        assert s.to_json() == text, f"the State taken at cut {i} changed when a clone played"
    for s, _ in saved:  # and each finishes its own game as the original did
        for seat, action in full.history[len(s.history):]:
            s.apply(action, seat)
        assert s.to_json() == full.to_json()


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_observation_hides_private_zones(spec, seed):
    game = game_for(spec, {})
    n = game.max_players
    rng = random.Random(seed)
    private = [z for z, d in game.zones.items() if d.visibility != "public"]

    def check(state):
        for viewer in range(n):
            obs = state.observation(viewer)
            for z in private:
                zdef = game.zones[z]
                shown = obs["zones"][z]
                if zdef.per_player:
                    for seat, content in enumerate(shown):
                        if zdef.visibility == "owner" and seat == viewer:
                            assert isinstance(content, list)
                            assert len(content) == len(state.zones[z][seat])
                        elif zdef.sets:
                            assert content == {"sets": [len(s) for s in state.zones[z][seat]]}
                        else:
                            assert content == {"count": len(state.zones[z][seat])}, \
                                f"{viewer} sees {z} of {seat}"
                else:
                    assert shown == {"count": len(state.zones[z])}
            # a simultaneous choice stays secret until everyone has chosen
            if obs["pending"] is not None:
                # my_picked: the cards a player has picked so far in a set choice (their own only)
                assert set(obs["pending"]) - {"my_picked", "realtime"} == {"players", "chosen", "my_options", "my_choice"}
                if "my_picked" in obs["pending"]:
                    picked = (state.pending.get("picked") or {}).get(str(viewer), [])
                    assert obs["pending"]["my_picked"] == [game.cards[i].name for i in picked]

    play_random(game.new_state(n, seed), rng, check)


def test_every_legal_action_applies_from_one_position():
    """From a position, each legal action applies to a clone without error."""
    for spec in SPECS:
        game = game_for(spec, {})
        state = game.new_state(game.min_players, 3)
        rng = random.Random(3)
        for _ in range(30):
            if state.is_terminal():
                break
            p = state.current_players()[0]
            for action in state.legal_actions(p):
                state.clone().apply(action)
            state.apply(rng.choice(state.legal_actions(p)))


@pytest.mark.parametrize("chance", [False, True], ids=["", "chance"])
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_a_clone_taken_before_any_action_leaves_its_original_alone(case, chance):
    """Zones are copied on write: a clone shares every zone list with its original until one of
    the two changes it. Clone before every action of a game, play the action on the clone: the
    original must not change. With chance nodes, a clone also meets the shuffle and what follows
    it (deal, move) before any other step has written the zones."""
    spec, options = case
    game = game_for(spec, options)
    rng = random.Random(7)
    state = game.new_state(game.max_players, seed=7, chance=chance)
    steps = 0
    while not state.is_terminal():
        p = rng.choice(state.current_players())
        action = rng.choice(state.legal_actions(p))
        before = _plain(state)
        twin = state.clone()
        twin.apply(action, p)
        assert _plain(state) == before, f"playing {action} on a clone changed its original"
        state.apply(action, p)
        assert _plain(state) == _plain(twin)
        steps += 1
        assert steps < MAX_ACTIONS


def _plain(state) -> str:
    """Everything a State holds, as text (a State with chance nodes has no JSON form)."""
    return repr([state.zones, state.vars, state.pvars, state.marks, state.stack, state.pending,
                 state.history, state.shown, state.private, state.chance, state.rng_count])
