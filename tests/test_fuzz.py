"""A bounded, seeded slice of the fuzz corpus (tools/fuzz.py runs the full one): mutated specs,
tampered States and game logs, junk API actions, each in a worker process limited to 1 GB and
10 s per case. No case may end in a Python traceback, over a limit, or silently wrong."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _fuzz():
    spec = importlib.util.spec_from_file_location("rulebook_fuzz", ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_slice_of_the_fuzz_corpus_has_no_fault():
    fuzz = _fuzz()
    kinds = fuzz.KINDS
    # 50 mutated specs (YAML and expression mutations) and 150 tampered States, game logs and
    # junk API sequences, from another seed than the full run's
    spec_cases = [i for i in range(400) if kinds[i % len(kinds)] in ("spec", "expr")][:50]
    other = [i for i in range(1000) if kinds[i % len(kinds)] not in ("spec", "expr")][:150]
    result = fuzz.run_corpus(0, seed=2, jobs=2, indices=spec_cases + other)
    assert result["cases"] == 200 and set(result["by_kind"]) == {"spec", "expr", "state", "save", "api"}
    faults = [f"case {f['index']} ({f['kind']}): {f['outcome']}: {f['detail']}" for f in result["faults"]]
    assert faults == []
    assert result["ok"] == 200


def test_the_log_keeps_each_case_and_a_resumed_run_skips_them(tmp_path):
    """Each case's outcome, CPU and wall seconds and the worker's peak memory go to the log as it
    ends; --resume runs only the cases not in it, and the figures are of all of them."""
    import json
    import subprocess
    import sys
    fuzz = _fuzz()
    log, summary = tmp_path / "cases.jsonl", tmp_path / "summary.json"
    with open(log, "a") as f:
        first = fuzz.run_corpus(0, seed=3, jobs=1, indices=[0, 1], log=f)
    rows = fuzz.read_log(log)
    assert [r["index"] for r in rows] == [0, 1] and first["cases"] == 2
    assert all(r["seconds"] > 0 and r["wall"] > 0 and r["peak_mb"] > 10 for r in rows)
    run = subprocess.run([sys.executable, str(ROOT / "tools" / "fuzz.py"), "-n", "3", "--seed", "3", "-j", "1",
                          "--log", str(log), "--resume", "--summary", str(summary)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    assert "resuming: 2 case(s) already in" in run.stderr and "1/1" in run.stderr  # only case 2 ran
    figures = json.loads(summary.read_text())
    assert figures["cases"] == 3 and figures["ok"] == 3 and figures["stopped"] == 0
    assert figures["peak_mb"] == max(r["peak_mb"] for r in fuzz.read_log(log))
    assert figures["slowest_case_index"] in (0, 1, 2) and figures["slowest_case_wall"] > 0


def test_the_full_runs_faults_stay_fixed():
    """The cases of the full run (seed 1) that once failed: 3016, card attributes named by a number
    beside ones named by a text (a TypeError sorting them); 6715, a comprehension over
    range(0, 100000) per player, stopped by the work bound only after ~50 s CPU (now ~5 s)."""
    fuzz = _fuzz()
    result = fuzz.run_corpus(0, seed=1, jobs=2, indices=[3016, 6715])
    assert result["cases"] == 2
    assert [f"case {f['index']}: {f['outcome']}: {f['detail']}" for f in result["faults"]] == []
