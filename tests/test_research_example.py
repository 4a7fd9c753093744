"""tools/research_example.py's learning curve (issue 27): evaluations at fixed points of the
training, on the same seeds each time, plotted and kept as JSON. (The curve in docs/research.md is
the tool's run; here a tiny one.)"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")  # the test extra installs it

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("research_example", ROOT / "tools" / "research_example.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_learning_curve_points_plot_and_repeat(tmp_path, capsys):
    tool = _tool()
    runs = []
    for k in range(2):
        png = tmp_path / f"curve{k}.png"
        tool.main([str(ROOT / "specs" / "crazy_eights.yaml"), "-p", "2", "--train", "4", "--every", "2",
                   "--eval", "6", "--mcts", "0", "--curve", str(png)])
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        runs.append(json.loads(png.with_suffix(".json").read_text()))
    points = runs[0]["points"]
    assert [p["trained"] for p in points] == [0, 2, 4]
    assert all(0 <= p["low"] <= p["win_rate"] <= p["high"] <= 1 for p in points)
    # the same seeds and generator at every evaluation: a second run gives the same points
    assert [p["win_rate"] for p in points] == [p["win_rate"] for p in runs[1]["points"]]
    assert "after 2 REINFORCE games" in capsys.readouterr().out
