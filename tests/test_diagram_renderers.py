"""Every shipped spec's DOT and Mermaid exports, rendered by the real programs.

The text exports are only useful if Graphviz and Mermaid read them: a class named ``end`` once
stopped Mermaid 11's parser on every spec. ``dot`` comes from Debian's graphviz, ``mmdc`` from
``@mermaid-js/mermaid-cli`` in ``tools/node`` (both installed by ``.ci/run``); mmdc drives the
system Chromium through ``tools/node/puppeteer.json``. All charts go to one mmdc call (a Markdown
file of charts): one browser session instead of one per chart.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from interpreter.analysis.export import to_dot, to_mermaid
from interpreter.analysis.graph import flow_graph, phase_graph
from interpreter.spec.loader import load_game

ROOT = Path(__file__).resolve().parent.parent
SPECS = sorted((ROOT / "specs").glob("*.yaml"))
NODE = ROOT / "tools" / "node"
MMDC = NODE / "node_modules" / ".bin" / "mmdc"
INSTALL = "run .ci/run, or: PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix tools/node; apt-get install graphviz"


@pytest.fixture(scope="module")
def views():
    """``[(name, graph)]``: the step view and the phase view of every shipped spec."""
    out = []
    for spec in SPECS:
        G = flow_graph(load_game(spec))
        out += [(f"{spec.stem}-steps", G), (f"{spec.stem}-phases", phase_graph(G))]
    return out


def _phases(G) -> list:
    return [d["label"] for _, d in G.nodes(data=True) if d["kind"] == "phase"]


def test_dot_renders_every_export(views, tmp_path):
    dot = shutil.which("dot")
    assert dot, f"Graphviz's dot is not installed: {INSTALL}"
    for name, G in views:
        src = tmp_path / f"{name}.dot"
        src.write_text(to_dot(G, title=name), encoding="utf-8")
        run = subprocess.run([dot, "-Tsvg", str(src)], capture_output=True, text=True, timeout=60)
        assert run.returncode == 0 and not run.stderr.strip(), f"{name}: {run.stderr}"
        assert run.stdout.lstrip().startswith("<?xml") and "</svg>" in run.stdout
        for phase in _phases(G):
            assert f"phase {phase}" in run.stdout, (name, phase)


def test_mermaid_cli_renders_every_export(views, tmp_path):
    assert MMDC.exists(), f"mmdc is not installed: {INSTALL}"
    charts = "".join(f"## {name}\n\n```mermaid\n{to_mermaid(G, title=name)}```\n\n" for name, G in views)
    (tmp_path / "charts.md").write_text(charts, encoding="utf-8")
    run = subprocess.run([str(MMDC), "-p", str(NODE / "puppeteer.json"), "-i", "charts.md", "-o", "out.md"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    for i, (name, G) in enumerate(views, 1):
        svg = (tmp_path / f"out-{i}.svg").read_text(encoding="utf-8")
        assert svg.startswith("<svg") and "Syntax error" not in svg, name
        for phase in _phases(G):
            assert f"phase {phase}" in svg, (name, phase)


def test_mermaid_classes_are_not_keywords(views):
    # Mermaid's flowchart keywords cannot name a class: ``classDef end`` is a parse error
    keywords = {"end", "call", "click", "class", "classDef", "style", "subgraph", "graph", "flowchart",
                "direction", "linkStyle", "interpolate", "default"}
    for name, G in views:
        for line in to_mermaid(G).split("\n"):
            words = line.split()
            if words[:1] == ["classDef"]:
                assert words[1] not in keywords, (name, line)
            elif words[:1] == ["class"]:
                assert words[-1] not in keywords, (name, line)
