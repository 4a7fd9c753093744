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
