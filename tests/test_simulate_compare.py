"""simulate --compare: the same seeds under two rule sets, differences with 95% intervals (issue 14 §2)."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import RulebookError, load_game
from interpreter.cli import main
from interpreter.sim.compare import compare

ROOT = Path(__file__).resolve().parents[1]
WITCHES = ROOT / "specs" / "witches_of_blackmore.yaml"


@pytest.fixture
def bonus(tmp_path):
    """Witches where every player's final score is 10 more: the same games, shifted scores."""
    path = tmp_path / "bonus.yaml"
    path.write_text(WITCHES.read_text().replace('score: "points(p)"', 'score: "points(p) + 10"'))
    return path


def test_the_same_rules_differ_in_nothing():
    game = load_game(WITCHES)
    result = compare(game, load_game(WITCHES), 12, 3, seed=5, track=["p.tricks"])
    assert result.games == 12 and not result.significant()
    for r in result.rows:
        assert r["a"] == r["b"] and r["diff"] == 0 and r["low"] == r["high"] == 0


def test_a_score_bonus_shows_as_exactly_that_difference(bonus):
    result = compare(load_game(WITCHES), load_game(bonus), 10, 3, seed=1)
    rows = {r["measure"]: r for r in result.rows}
    for p in range(3):
        r = rows[f"seat {p} mean score"]
        assert r["b"] - r["a"] == pytest.approx(10) and r["low"] == pytest.approx(10) == r["high"]
    assert rows["game length (actions)"]["diff"] == 0  # paired seeds: the very same games
    assert {r["measure"] for r in result.significant()} == {f"seat {p} mean score" for p in range(3)} | {
        "mean score (all seats)"}


def test_cli_compare_prints_the_table_and_draws_the_plot(bonus, tmp_path, capsys):
    plot = tmp_path / "cmp.png"
    code = main(["simulate", str(WITCHES), "-p", "3", "-n", "8", "-q", "--compare", str(bonus),
                 "--track", "p.tricks", "--plot", str(plot)])
    out = capsys.readouterr().out
    assert code == 0 and plot.stat().st_size > 1000
    assert "B − A" in out and "p.tricks at the end" in out
    assert "4 of 9 measures differ" in out  # 3 seats × 2, all seats, length, tracked


def test_cli_compare_option_and_bad_track(capsys):
    assert main(["simulate", str(WITCHES), "-p", "3", "-n", "4", "-q", "--compare-option", "wheel=ascending",
                 "--json"]) == 0
    assert '"b": "' in capsys.readouterr().out
    with pytest.raises(RulebookError, match="no player variable 'trick'"):
        compare(load_game(WITCHES), load_game(WITCHES), 2, 3, track=["p.trick"])
    assert main(["simulate", str(WITCHES), "-p", "3", "-n", "2", "-q", "--track", "p.tricks"]) != 0


def test_cli_compare_says_it_does_not_run_fast(capsys):
    """--compare plays through the step API: --fast with it is refused with the reason, not ignored."""
    assert main(["simulate", str(WITCHES), "-p", "3", "-n", "2", "-q", "--compare-option", "wheel=ascending",
                 "--fast"]) != 0
    assert "drop --jobs/--backend/--trace/--fast" in capsys.readouterr().err.replace("\n", " ")


def test_cli_compare_names_the_bots(bonus, capsys):
    assert main(["simulate", str(WITCHES), "-p", "3", "-n", "2", "-q", "--compare", str(bonus),
                 "--bot", "1=first"]) == 0
    out = capsys.readouterr().out
    assert "bots (the same under A and B): seat 0 random, seat 1 first, seat 2 random" in " ".join(out.split())
    assert main(["simulate", str(WITCHES), "-p", "3", "-n", "2", "-q", "--compare", str(bonus), "--json"]) == 0
    import json
    assert json.loads(capsys.readouterr().out)["bots"] == ["random", "random", "random"]
