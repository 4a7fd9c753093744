"""tools/openspiel_ismcts_paired.py: the pairing machinery of the Rulebook-vs-OpenSpiel ISMCTS games
(issue 27). Not the strength claim itself (that is the tool's run, in docs/research.md): here, that
both engines hold the same deal, that the two games of a pair are the same deal with the sides
swapped, that each side's bot plays only its own seats, that the difference has the right sign, and
that the real bots run (Rulebook's in the kernel)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pyspiel  # noqa: F401  (the test extra installs open-spiel: a missing one is a failure, not a skip)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import openspiel_ismcts_paired as paired  # noqa: E402

from interpreter import load_game  # noqa: E402


@pytest.fixture(scope="module")
def games():
    return load_game(paired.SPEC), {n: pyspiel.load_game("oh_hell", {"players": n}) for n in (3, 4, 5)}


def _os_hand(os_state, seat):
    """The card names of ``seat``'s hand read from OpenSpiel's information state string."""
    lines = os_state.information_state_string(seat).splitlines()
    at = lines.index(f"Player: {seat}")
    return sorted(f"{suit}{rank}" for line in lines[at + 1:at + 5]
                  for suit, _, ranks in [line.strip().partition(": ")] for rank in ranks)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_openspiel_is_dealt_rulebooks_deal(games, players):
    game, os_games = games
    names = {c.id: c.name for c in game.cards}
    for seed in range(6):
        fs = game.new_state(players, seed=seed, fast=True)
        num_tricks, dealer, hands, trump = paired.deal_of(fs)
        os_state = paired.openspiel_state(os_games[players], (num_tricks, dealer, hands, trump))
        text = os_state.information_state_string(0)
        assert f"Num Total Tricks: {num_tricks}\n" in text and f"Dealer: {dealer}\n" in text
        assert f"Trump: {names[trump]}\n" in text
        for p in range(players):
            assert len(hands[p]) == num_tricks
            assert _os_hand(os_state, p) == sorted(names[c] for c in hands[p])


def test_swapped_exchanges_the_sides_only():
    assert paired.swapped("RORO") == "OROR"
    assert paired.swapped("ROX") == "ORX"
    assert paired.swapped(paired.swapped("RXOO")) == "RXOO"


def _lowest(fs, os_state, p, texts):
    return texts[0]


def test_same_policy_on_both_sides_gives_identical_games_and_no_difference(games):
    """Both sides play the same deterministic policy: the two games of a pair are the same game
    (same deal), so every pair's difference is 0 and the scores of both games are equal."""
    game, os_games = games
    calls = []

    def make(seed, layout):
        def spy(letter):
            def policy(fs, os_state, p, texts):
                calls.append((layout, p, letter))
                return _lowest(fs, os_state, p, texts)
            return policy
        return {"R": spy("R"), "O": spy("O"), "X": spy("X")}

    for seed in range(5):
        r = paired.play_pair(game, os_games[4], seed, "RORX", make)
        a, b = r["games"]
        assert (a["layout"], b["layout"]) == ("RORX", "OROX")
        assert a["scores"] == b["scores"] and a["decisions"] == b["decisions"] > 0
        assert r["diff"] == 0
    # each side's policy was asked only for its own seats
    assert calls and all(layout[p] == letter for layout, p, letter in calls)
    assert {letter for _, _, letter in calls} == {"R", "O", "X"}


def test_the_difference_is_rulebook_minus_openspiel_whatever_the_seats(games, monkeypatch):
    """A stand-in game where every R seat scores 3 and every O seat 1: each pair's difference is
    +2 in both seatings (the sign follows the side, not the seat)."""
    game, os_games = games
    seen = []

    def fake_play_one(game_, os_game, seed, layout, policies):
        seen.append((seed, layout))
        return [3.0 if k == "R" else 1.0 if k == "O" else 0.0 for k in layout], 1

    monkeypatch.setattr(paired, "play_one", fake_play_one)
    diffs = [paired.play_pair(game, os_games[4], s, "RXOO", lambda *a: {})["diff"] for s in (7, 8)]
    assert diffs == [2.0, 2.0]
    assert seen == [(7, "RXOO"), (7, "OXRR"), (8, "RXOO"), (8, "OXRR")]


def test_interval():
    mean, lo, hi = paired.interval([1.0, 3.0])
    assert mean == 2.0 and lo == pytest.approx(2 - 1.959963984540054) and hi == pytest.approx(2 + 1.959963984540054)
    assert paired.side_means([10, 0, 4, 2], "RORO") == 6.0
    assert paired.side_wins([10, 0, 4, 2], "RORO") == 1.0 and paired.side_wins([1, 3, 0, 3], "RORX") == -0.5
    assert paired.side_wins([3, 3, 0, 1], "RORO") == 0.0 and paired.side_wins([3, 3, 3, 1], "RORO") == 1 / 3


def test_a_disagreement_is_reported(games, monkeypatch):
    """The lock step can fail: OpenSpiel given another trump card than Rulebook's deal."""
    game, os_games = games
    real = paired.deal_of

    def wrong_trump(fs):
        n, d, hands, trump = real(fs)
        held = {c for h in hands for c in h}
        return n, d, hands, next(c for c in range(52) if c not in held and c != trump and c % 4 != trump % 4)

    monkeypatch.setattr(paired, "deal_of", wrong_trump)
    with pytest.raises(paired.Mismatch):
        for seed in range(10):
            paired.play_one(game, os_games[4], seed, "RORO", {"R": _lowest, "O": _lowest})


def test_the_real_bots_play_a_pair(games):
    """One pair with both search bots at 5 simulations: Rulebook's searched in the kernel."""
    game, os_games = games
    make, stats = paired.bot_policies(5, 2.0)
    r = paired.play_pair(game, os_games[4], 3, "RORO", make)
    assert [g["layout"] for g in r["games"]] == ["RORO", "OROR"]
    assert stats["kernel"] > 0 and stats["python"] == 0


def _dealt(os_state, players):
    """Each seat's dealt cards in an OpenSpiel oh_hell state's history (dealt one at a time from seat 0)."""
    h = os_state.history()
    return [set(h[2 + q:2 + players * h[0]:players]) for q in range(players)]


def test_openspiels_resampling_deals_the_others_only_cards_they_hold(games):
    """Why --os-uniform exists: OpenSpiel's own oh_hell ResampleFromInfostate (open_spiel 2.0.2) gives
    the other seats only cards they really hold, never one of the undealt pile, so its ISMCTSBot on
    the real state knows which cards are out of play. A screened state keeps the seat's information
    state and the cards played, and deals the others from the undealt pile too."""
    import random
    game, os_games = games
    fs = game.new_state(4, seed=0, fast=True)
    deal = paired.deal_of(fs)
    real = paired.openspiel_state(os_games[4], deal)
    seat = real.current_player()
    others = set().union(*(set(h) for q, h in enumerate(deal[2]) if q != seat))
    rng = random.Random(1)
    from_pile = 0
    for _ in range(20):
        sample = real.resample_from_infostate(seat, rng.random)
        assert set().union(*(h for q, h in enumerate(_dealt(sample, 4)) if q != seat)) == others
        screened = paired.screened(os_games[4], real, seat, rng)
        assert screened.information_state_string(seat) == real.information_state_string(seat)
        got = set().union(*(h for q, h in enumerate(_dealt(screened, 4)) if q != seat))
        from_pile += len(got - others)
    assert len(others) < 40 and from_pile > 0


def test_a_screened_state_keeps_the_cards_played(games):
    game, os_games = games
    import random
    rng = random.Random(2)
    fs = game.new_state(4, seed=5, fast=True)
    real = paired.openspiel_state(os_games[4], paired.deal_of(fs))
    while len([a for a in real.history()[3 + 4 * real.history()[0]:] if a < 52]) < 3:
        real.apply_action(real.legal_actions()[0])
    seat = real.current_player()
    st = paired.screened(os_games[4], real, seat, rng)
    assert st.history()[3 + 4 * st.history()[0]:] == real.history()[3 + 4 * real.history()[0]:]
    assert st.information_state_string(seat) == real.information_state_string(seat)


def test_openspiels_python_bot_with_uniform_worlds_plays_a_pair(games):
    """--os-uniform: OpenSpiel's Python ISMCTSBot, each simulation's world drawn by screened()."""
    game, os_games = games
    make, stats = paired.bot_policies(5, 2.0, uniform=True, os_game=os_games[4])
    r = paired.play_pair(game, os_games[4], 3, "RORO", make)
    assert [g["layout"] for g in r["games"]] == ["RORO", "OROR"] and stats["kernel"] > 0
