"""Classic Ligretto (specs/ligretto_classic.yaml): properties over every player count 2..12.

Games are played by random bots under a seeded random scheduler (real time: whoever the
scheduler picks acts first), mostly with the `rounds` option at 1 to keep them short.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.agents.basic import FirstLegalAgent, RandomAgent, play_game, random_bots
from interpreter.agents.schedule import Scheduler
from interpreter.spec.loader import check_spec, load_game

SPEC = Path(__file__).resolve().parents[1] / "specs" / "ligretto_classic.yaml"
PRIVATE = ("stack", "hand", "talon")       # face down (or covered): nobody sees them, only counts
PUBLIC = ("stack_top", "row", "talon_top", "centre")
_GAMES: dict = {}


def _game(**options):
    key = tuple(sorted(options.items()))
    if key not in _GAMES:
        _GAMES[key] = load_game(SPEC, options)
    return _GAMES[key]


def _all_cards(state) -> list:
    out = []
    for name, zone in state.zones.items():
        if state.game.zones[name].per_player:
            for z in zone:
                out.extend(z)
        else:
            out.extend(zone)
    return out


def _check_cards(state):
    """Every card of the seats in play is in exactly one zone; no other card is anywhere."""
    ids = _all_cards(state)
    assert len(ids) == len(set(ids)) == 40 * state.num_players
    assert {state.game.cards[i].attrs["owner"] for i in ids} == set(range(state.num_players))


def _play_checked(game, n, seed, scheduler, check_every=1):
    state = game.new_state(n, seed)
    bots = [RandomAgent(seed * 31 + p) for p in range(n)]
    steps = 0
    while not state.is_terminal():
        p = scheduler.next_player(state)
        state.apply(bots[p].act(state, p), p)
        scheduler.acted(p)
        steps += 1
        assert steps < 50_000, "the game does not end"
        if steps % check_every == 0:
            _check_cards(state)
    _check_cards(state)
    return state


@pytest.mark.parametrize("n", range(2, 13))
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_one_round_keeps_every_card_ends_and_replays(n, seed):
    game = _game(rounds=1)
    state = _play_checked(game, n, seed, Scheduler("random", seed), check_every=7)
    assert state.vars["round"] == 1
    # the round ended by a Ligretto stop (a stack is empty) or because nobody could play on
    emptied = [p for p in range(n) if not state.zones["stack"][p] and not state.zones["stack_top"][p]]
    assert state.vars["round_end"] == ("stop" if emptied else "stuck")
    assert state.vars["round_end"] == "stop" or state.vars["shifts"] == 3
    again = game.replay(n, seed, state.history)
    assert again.to_json() == state.to_json()
    assert again.scores() == state.scores()


@pytest.mark.parametrize("n", range(2, 13))
@settings(max_examples=1, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(0, 150))
def test_observation_hides_stacks_and_hands(n, seed, steps):
    game = _game(rounds=1)
    state = game.new_state(n, seed)
    sched = Scheduler("random", seed)
    bots = random_bots(seed, n)
    for _ in range(steps):
        if state.is_terminal():
            break
        p = sched.next_player(state)
        state.apply(bots[p].act(state, p), p)
        sched.acted(p)
    for seat in range(n):
        obs = state.observation(seat)
        for zone in PRIVATE:
            # nobody sees a face-down card, not even its owner: only how many there are
            assert obs["zones"][zone] == [{"count": len(z)} for z in state.zones[zone]]
        for zone in PUBLIC[:3]:
            assert [len(z) for z in obs["zones"][zone]] == [len(z) for z in state.zones[zone]]
        names = {c if isinstance(c, str) else c["card"] for z in obs["zones"]["row"] for c in z}
        hidden = {game.cards[i].name for q in range(n) for z in PRIVATE for i in state.zones[z][q]}
        assert not names & hidden
        if not state.is_terminal():
            assert obs["pending"]["realtime"] is True
            assert obs["pending"]["my_options"] == [a.text for a in state.legal_actions(seat)]


@pytest.mark.parametrize("n", [2, 5, 12])
def test_every_legal_action_applies(n):
    game = _game(rounds=1)
    state = game.new_state(n, 3)
    sched = Scheduler(seed=3)
    for _ in range(40):
        for p in state.current_players():
            for a in state.legal_actions(p):
                copy = state.clone()
                copy.apply(a)
                _check_cards(copy)
        p = sched.next_player(state)
        state.apply(state.legal_actions(p)[-1], p)
        sched.acted(p)


def test_a_whole_game_to_the_target_ends():
    game = _game()
    state = play_game(game, 2, 5, random_bots(5, 2))
    _check_cards(state)
    assert max(pv["score"] for pv in state.pvars) >= 99
    assert state.winners() == [max(range(2), key=lambda p: state.pvars[p]["score"])]


def test_a_fast_player_wins_more_often():
    game = _game(rounds=1)
    wins = [0.0, 0.0]
    for seed in range(40):
        state = play_game(game, 2, seed, [FirstLegalAgent(), FirstLegalAgent()],
                          scheduler=Scheduler(seed=seed, speeds={0: 3.0}))
        for w in state.winners():
            wins[w] += 1 / len(state.winners())
    assert wins[0] > 2 * wins[1]


def test_spec_is_clean_under_strict_validation():
    assert check_spec(SPEC) == []
