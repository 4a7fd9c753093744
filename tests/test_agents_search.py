"""Search bots and the determiniser: they never read hidden information, they are deterministic with
an iteration budget and a seed, and they play legal games to the end on every spec."""
from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.agents.basic import RandomAgent, play_game, step
from interpreter.agents.determinize import Determiniser
from interpreter.agents.registry import bots_for, make_agent, parse_bots, parse_budget
from interpreter.agents.search import GreedyAgent, ISMCTSAgent
from interpreter.engine.run import legal_options
from interpreter.errors import RulebookError
from interpreter.sim.stats import wilson_interval

SPECS = Path(__file__).resolve().parents[1] / "specs"


@pytest.fixture(scope="module")
def sk():
    return load_game(SPECS / "skull_king.yaml")


def _names(game, ids):
    return Counter(game.cards[i].name for i in ids)


def _advance_randomly(state, rng, actions, agents=()):
    for _ in range(actions):
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p))
        for ag in agents:
            ag.notify(state, p, a)
        state.apply(a, p)


@pytest.mark.parametrize("spec,players", [("skull_king", 4), ("witches_of_blackmore", 3), ("skull_queen", 2)])
def test_determinisation_keeps_what_the_seat_sees(spec, players):
    game = load_game(SPECS / f"{spec}.yaml")
    state = game.new_state(players, seed=3)
    _advance_randomly(state, random.Random(1), 7)
    seat = state.current_players()[0]
    det = Determiniser(game, seat)
    before = state.to_json()
    for k in range(5):
        d = det.sample(state, random.Random(k))
        assert d.observation(seat)["zones"] == state.observation(seat)["zones"]
        assert d.observation(seat)["vars"] == state.observation(seat)["vars"]
        all_ids = [i for name, z in d.zones.items() for i in
                   ([c for zz in z for c in zz] if game.zones[name].per_player else z)]
        assert sorted(all_ids) == list(range(len(game.cards)))  # no card created or lost
        assert d.seed != state.seed  # future chance is drawn again
        assert [a.text for a in d.legal_actions(seat)] == [a.text for a in state.legal_actions(seat)]
    assert state.to_json() == before  # the true State is untouched


def test_determinisations_vary_the_hidden_cards(sk):
    state = sk.new_state(4, seed=11)
    det = Determiniser(sk, 0)
    hands = {tuple(sorted(det.sample(state, random.Random(k)).zones["hand"][1])) for k in range(20)}
    assert len(hands) > 10


def _failure_to_follow(game, seed):
    """A Skull King position (from random play) just after a player failed to follow the suit led
    with a numbered card, and that player's seat and the suit led."""
    rng = random.Random(seed)
    state = game.new_state(4, seed=seed)
    det = Determiniser(game, 0)
    while not state.is_terminal():
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p))
        trick = [game.cards[i] for i in state.zones["trick"]]
        led = next((c.attrs["suit"] for c in trick if c.attrs["kind"] == "numbered"), None)
        cid = next(o for o in legal_options(state, p) if o[0] == a.text)[2]
        card = game.cards[cid] if cid is not None else None
        round_no = state.vars["round"]
        det.observe(state, p, a.text)
        state.apply(a, p)
        if (p != 0 and led is not None and card is not None and card.attrs["kind"] == "numbered" and card.attrs["suit"] != led
                and state.vars["round"] == round_no and len(state.zones["hand"][p]) >= 2):
            return state, det, p, led
    return None


def test_shown_lacking_a_suit_is_respected(sk):
    found = None
    for seed in range(40):
        found = _failure_to_follow(sk, seed)
        if found:
            break
    assert found, "random play always shows a failure to follow suit in 40 games"
    state, det, seat, led = found
    for k in range(30):
        d = det.sample(state, random.Random(k))
        held = [sk.cards[i] for i in d.zones["hand"][seat]]
        assert not [c for c in held if c.attrs["kind"] == "numbered" and c.attrs["suit"] == led], (seat, led, held)
    # and without the inference such hands do occur (the test can fail)
    blind = Determiniser(sk, 0)
    suits = [any(sk.cards[i].attrs["kind"] == "numbered" and sk.cards[i].attrs["suit"] == led
                 for i in blind.sample(state, random.Random(k)).zones["hand"][seat]) for k in range(30)]
    assert any(suits)


class CheatingDeterminiser(Determiniser):
    """Hands the search the true State: what a bot that reads hidden cards would do."""

    def sample(self, state, rng, keep_commits=False):
        det = state.clone()
        det._legal_cache = {}
        return det


def _permuted(game, state, seat, rng):
    """The same position for ``seat`` with the cards it cannot see dealt again at random (each hidden
    zone keeps its count), other seats' secret commits withdrawn and redrawn, and a new seed."""
    det = Determiniser(game, seat)
    new = det.sample(state, rng, keep_commits=True)
    new.seed = state.seed + 1000 + rng.randrange(1000)
    return new


def _decisions(agent_factory, states, seat):
    out = []
    for st in states:
        agent = agent_factory()
        out.append(agent.act(st, seat).text)
    return out


def test_ismcts_cannot_see_hidden_cards(sk):
    """For positions where seat 0 must decide, variants with the others' hidden cards (and the
    deck, and the seed) permuted consistently with seat 0's observation give identical decisions;
    the same search fed the true State (a cheater) changes its decisions across the variants."""
    honest_same, cheat_diff = 0, 0
    rng = random.Random(2)
    positions = []
    for seed in (5, 6, 7, 8):
        state = sk.new_state(4, seed=seed)
        # round 4 or later, seat 0 to play a card with at least 3 options
        while state.vars["round"] < 3 + seed % 3 or 0 not in state.current_players() \
                or len(state.legal_actions(0)) < 3 or state.pending["simultaneous"]:
            _advance_randomly(state, rng, 1)
        positions.append(state)
    for state in positions:
        variants = [state] + [_permuted(sk, state, 0, random.Random(k)) for k in range(3)]
        for v in variants:
            assert v.observation(0)["zones"] == state.observation(0)["zones"]
        honest = _decisions(lambda: ISMCTSAgent(iterations=40, seed=9, kernel=False), variants, 0)
        assert len(set(honest)) == 1, honest
        honest_same += 1

        def cheater():
            agent = ISMCTSAgent(iterations=40, seed=9, kernel=False)
            agent.dets[0] = CheatingDeterminiser(sk, 0)
            return agent
        cheat = _decisions(cheater, variants, 0)
        cheat_diff += len(set(cheat)) > 1
    assert honest_same == len(positions)
    assert cheat_diff >= 1  # the test can tell a bot that sees hidden cards


def test_search_bots_are_deterministic_with_iterations(sk):
    runs = []
    for _ in range(2):
        agents = [ISMCTSAgent(iterations=8, seed=1), GreedyAgent(iterations=12, seed=2),
                  RandomAgent(3), RandomAgent(4)]
        state = sk.new_state(4, seed=21)
        while state.vars["round"] < 3:
            for p in state.current_players():
                step(state, agents, p)
        runs.append(list(state.history))
    assert runs[0] == runs[1]


@pytest.mark.parametrize("spec,players,kind", [("witches_of_blackmore", 3, "ismcts:6"),
                                               ("witches_of_blackmore", 2, "greedy:8")])
def test_search_bots_finish_games(spec, players, kind):
    game = load_game(SPECS / f"{spec}.yaml")
    state = play_game(game, players, 4, bots_for(4, players, {0: kind}))
    assert state.is_terminal() and state.winners()
    again = game.replay(players, 4, state.history)
    assert again.scores() == state.scores()


def test_budget_and_bot_texts():
    assert parse_budget("500") == {"iterations": 500}
    assert parse_budget("0.1s") == {"seconds": 0.1}
    assert parse_budget("100ms") == {"seconds": 0.1}
    assert parse_budget("0.25") == {"seconds": 0.25}
    for bad in ("abc", "0", "-3", "1.5x"):
        with pytest.raises(RulebookError, match="budget"):
            parse_budget(bad)
    assert parse_bots(["1=ismcts:0.1s", "0=Greedy"], 4) == {1: "ismcts:0.1s", 0: "greedy"}
    for bad, msg in (("4=random", "no seat 4"), ("x=random", "SEAT=KIND"), ("1=alpha", "unknown bot"),
                     ("1=random:5", "no budget"), ("1=ismcts:", "after the colon")):
        with pytest.raises(RulebookError, match=msg):
            parse_bots([bad], 4)
    with pytest.raises(RulebookError, match="twice"):
        parse_bots(["1=random", "1=greedy"], 4)
    assert make_agent("ismcts:0.05s", 1).budget.seconds == 0.05
    assert make_agent("greedy", 1).budget.iterations == 200


def test_wilson_interval():
    lo, hi = wilson_interval(160, 200)
    assert 0.739 < lo < 0.742 and 0.849 < hi < 0.852  # textbook values for 80% of 200
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and 0.27 < hi < 0.28


def test_cli_bots_in_simulate_play_and_heat(capsys, tmp_path):
    from interpreter.cli import main
    import json
    witches = str(SPECS / "witches_of_blackmore.yaml")
    assert main(["simulate", witches, "-n", "2", "-p", "3", "--bot", "1=greedy:4", "--json", "-q"]) == 0
    seats = json.loads(capsys.readouterr().out)["seats"]
    assert [s["bot"] for s in seats] == ["random", "greedy:4", "random"]
    assert all(0 <= s["win_low"] <= s["win_rate"] <= s["win_high"] <= 1 for s in seats)
    assert main(["simulate", witches, "-n", "2", "-p", "3", "--bot", "0=ismcts:3", "-q",
                 "--plot", str(tmp_path / "p.png")]) == 0
    out = capsys.readouterr().out
    assert "ismcts:3" in out and "95% interval" in out and (tmp_path / "p.png").stat().st_size > 0
    assert main(["play", witches, "-p", "2", "--seed", "3", "--bot", "0=greedy:3", "--bot", "1=ismcts:3"]) == 0
    out = capsys.readouterr().out
    assert "bots: Bot 0 greedy:3, Bot 1 ismcts:3" in out and "Game over" in out
    assert main(["diagram", witches, "--heat", "1", "-p", "2", "--bot", "0=greedy:3",
                 "-o", str(tmp_path / "h.svg")]) == 0
    assert "greedy:3" in (tmp_path / "h.svg").read_text()
    assert main(["simulate", witches, "-n", "1", "-p", "3", "--bot", "5=greedy"]) == 1
    assert "no seat 5" in capsys.readouterr().err
    assert main(["play", witches, "-p", "2", "--human", "0", "--bot", "0=greedy"]) == 1


def test_search_bots_play_a_realtime_game(tmp_path):
    """In a real-time block the bots act when the scheduler picks them; the search treats whoever
    may act as acting in a random order."""
    from test_language_realtime import SPEC
    path = tmp_path / "race.yaml"
    path.write_text(SPEC)
    game = load_game(path)
    for kind in ("ismcts:10", "greedy:6"):
        state = play_game(game, 3, 2, bots_for(2, 3, {0: kind}))
        assert state.is_terminal()
        assert game.replay(3, 2, state.history).scores() == state.scores()


SECRET_SETS = Path(__file__).resolve().parent / "specs" / "secret_sets.yaml"


def test_determinisation_of_a_hidden_zone_of_sets_keeps_its_sets():
    """A zone of sets only its owner sees (face-down sets) is dealt again set by set: the number
    and sizes of the sets stay, the seat's own sets stay as they are, no card is created or lost."""
    game = load_game(SECRET_SETS)
    state = game.new_state(3, seed=5)
    rng = random.Random(2)
    while len(state.zones["stash"][2]) < 1:  # every seat has stashed its set
        _advance_randomly(state, rng, 1)
    det = Determiniser(game, 0)
    before = state.to_json()
    seen = set()
    for k in range(10):
        d = det.sample(state, random.Random(k))
        assert d.zones["stash"][0] == state.zones["stash"][0]  # the seat's own set
        for seat in (1, 2):
            assert [len(s) for s in d.zones["stash"][seat]] == [2]
            seen.add(tuple(d.zones["stash"][seat][0]))
        ids = [c for _, _, _, lst in d.card_lists() for c in lst]
        assert sorted(ids) == list(range(len(game.cards)))
    assert len(seen) > 3  # the others' sets are drawn again
    assert state.to_json() == before


def test_search_bot_learns_nothing_from_a_set_choice_it_cannot_probe():
    """Regression: a pick in a set choice of at least two cards made the shown-lacking probe (a hand
    of just the picked card) raise "no legal option"; now the probe infers nothing there."""
    game = load_game(SECRET_SETS)
    state = game.new_state(3, seed=0)
    det = Determiniser(game, 0)
    rng = random.Random(0)
    for _ in range(12):
        p = state.current_players()[0]
        a = rng.choice(state.legal_actions(p))
        det.observe(state, p, a.text, random.Random(1))
        state.apply(a, p)
    assert det.lacking == {}
    final = play_game(game, 3, 0, bots_for(0, 3, {0: "ismcts:20"}))
    assert final.is_terminal() and game.replay(3, 0, final.history).scores() == final.scores()


def test_a_rule_failure_inside_a_search_says_it_arose_there(sk, monkeypatch):
    """A spec whose rules fail on a guessed position (impossible in play) is reported as such,
    not as a failure of the game itself (found with Go Fish: an unlaid book in a guessed hand)."""
    from interpreter.agents import search
    from interpreter.errors import RuleError

    def failing_rollout(state, rng, mark):
        raise RuleError("spec.yaml:1:1: error while running the rules: too much work")

    monkeypatch.setattr(search, "rollout", failing_rollout)
    state = sk.new_state(4, seed=2)
    for kind in ("ismcts:5", "greedy:5"):
        agent = make_agent(kind, 0)
        agent.kernel = False  # (the State API's search: the kernel's counts such a position as a rejected sample)
        with pytest.raises(RuleError) as info:
            agent.act(state, state.current_players()[0])
        assert "too much work" in str(info.value) and "guessed from what its seat sees" in str(info.value)
