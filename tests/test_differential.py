"""tools/differential.py: Rulebook and OpenSpiel in lock step (issue 15). A few games of each game
with the same deal and the same random actions: the seat to act, the legal action sets and the
returns must agree at every step. OpenSpiel is installed by the `test` extra, so this never skips in
CI; the 1,000-game run is the tool's (python tools/differential.py)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

import pyspiel  # noqa: F401  (the test extra installs open-spiel: a missing one is a failure, not a skip)

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
import differential  # noqa: E402


@pytest.mark.parametrize("name", sorted(differential.GAMES))
def test_no_mismatch_in_lock_step(name):
    s = differential.run(name, 20, seed=1)
    details = [(i, r.legal_mismatches[:2], r.return_mismatch, r.failure) for i, r in s["details"][:3]]
    assert (s["legal_mismatches"], s["return_mismatches"], s["failures"]) == (0, 0, 0), details
    assert s["decisions"] >= 20 * 10  # every game was played through, decision by decision


def test_published_rules_differ_from_openspiel(monkeypatch):
    """The comparison can fail: Hearts with the published defaults (the queen of spades does not
    break hearts, passes cycle from left) against OpenSpiel's hearts disagrees somewhere."""
    monkeypatch.setattr(differential.Hearts, "configure",
                        lambda self, index: (4, {}, {"target": 1, "passing": "random"}))
    s = differential.run("hearts", 20, seed=1)
    assert s["legal_mismatches"] > 0
    first = s["details"][0][1].legal_mismatches[0]
    assert first["only_openspiel"] and all(c.endswith("H") for c in first["only_openspiel"])


def test_spades_scoring_option_matters(monkeypatch):
    """Without nil_tricks_count the returns of some one-hand games differ from OpenSpiel's."""
    monkeypatch.setattr(differential.Spades, "configure", lambda self, index: (
        4, {}, {"preset": "openspiel", "nil_tricks_count": False}))
    s = differential.run("spades", 40, seed=1)
    assert s["legal_mismatches"] == 0 and s["return_mismatches"] > 0


def test_main_prints_the_table(capsys):
    assert differential.main(["-n", "2", "--games", "oh_hell"]) == 0
    out = capsys.readouterr().out
    assert "legal-set mismatches" in out and out.splitlines()[2].split()[:2] == ["oh_hell", "2"]


def test_crazy_eights_scoring_option_matters(monkeypatch):
    """With the published scoring (the player who goes out collects the others' cards) the returns
    differ from OpenSpiel's, while every legal set still agrees."""
    monkeypatch.setattr(differential.CrazyEights, "configure", lambda self, index: (
        3, {"players": 3}, {"preset": "openspiel", "scoring": "winner_collects"}))
    s = differential.run("crazy_eights", 20, seed=1)
    assert s["legal_mismatches"] == 0 and s["failures"] == 0 and s["return_mismatches"] > 0
