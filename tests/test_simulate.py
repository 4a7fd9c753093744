"""Batch simulation: reproducible statistics, the same with worker processes."""
from __future__ import annotations

import json
from pathlib import Path

from interpreter import load_game
from interpreter.cli import main
from interpreter.sim.simulate import simulate

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _stats(result):
    summary = result.summary()
    summary.pop("seconds")
    summary.pop("games_per_second")
    return summary, result.scores, result.lengths


def test_parallel_runs_give_the_same_results():
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    one = simulate(game, 12, 3, seed=5)
    two = simulate(game, 12, 3, seed=5, jobs=2)
    assert _stats(one) == _stats(two)
    assert sum(one.wins) == 12  # ties share one win
    assert one.games == 12 and all(len(s) == 12 for s in one.scores)


def test_seed_changes_the_games():
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    assert simulate(game, 5, 3, seed=1).scores != simulate(game, 5, 3, seed=2).scores


def test_cli_prints_statistics(capsys, tmp_path):
    plot = tmp_path / "scores.png"
    assert main(["simulate", str(SPECS / "witches_of_blackmore.yaml"), "-n", "8", "--players", "4",
                 "--seed", "3", "-q", "--plot", str(plot)]) == 0
    out = capsys.readouterr().out
    assert "games/s" in out and "win rate" in out and "mean game length" in out
    assert plot.stat().st_size > 10_000 and plot.read_bytes()[:4] == b"\x89PNG"


def test_players_may_be_left_out_when_the_spec_allows_one_count(capsys):
    # Issue 33: simulate demanded --players even for a 4-player-only game.
    assert main(["simulate", str(SPECS / "spades.yaml"), "-n", "2", "--seed", "1", "-q", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["players"] == 4
    assert main(["simulate", str(SPECS / "hearts.yaml"), "-n", "2", "-q"]) == 1
    assert "is for 3 to 5 players: give the number with --players N" in capsys.readouterr().err
