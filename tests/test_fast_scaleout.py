"""`simulate --fast` on worker processes: a Dask cluster of processes (each its own Python, as on
other machines) runs the kernel in every worker, loading the machine code the parent compiled from
the cache they share (no worker compiles), with one process's games, game by game. (The threads of
tests/test_simulate_backends.py share the parent's kernel; `-j N` forks the parent, kernel and all.)
No timings here: tools/bench.py --jobs-ratio measures `-j 2` against one process."""
from __future__ import annotations

import logging
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.sim.simulate import simulate

pytest.importorskip("numba")
distributed = pytest.importorskip("distributed")
OH_HELL = Path(__file__).resolve().parents[1] / "specs" / "oh_hell.yaml"


def _games(game, n, **kw) -> list:
    seen = []
    result = simulate(game, n, 4, 3, on_game=lambda i, *outcome: seen.append((i, *outcome)), **kw)
    assert result.fast, result.fast_note
    return seen


def _kernels_here() -> dict:
    """In a worker: each kernel module it loaded -> (numba cache hits, compiles) of its driver."""
    import sys
    return {name: (sum(m.run.stats.cache_hits.values()), sum(m.run.stats.cache_misses.values()))
            for name, m in list(sys.modules.items()) if name.startswith("rulebook_kernel_") and hasattr(m, "run")}


def test_dask_worker_processes_load_the_kernel_and_play_one_process_games():
    game = load_game(OH_HELL)
    one = _games(game, 400, fast=True)  # (the parent makes the kernel ready: compiled or loaded)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=":0", silence_logs=logging.ERROR)
    client = distributed.Client(cluster, set_as_default=False)
    try:
        assert _games(game, 400, fast=True, backend="dask", address=cluster.scheduler_address) == one
        loaded = client.run(_kernels_here)
    finally:
        client.close()
        cluster.close()
    assert len(loaded) == 2
    ran = [counts for worker in loaded.values() for counts in worker.values()]
    assert ran, "no worker ran the kernel"
    assert all(hits >= 1 and compiles == 0 for hits, compiles in ran), loaded


def test_two_forked_workers_play_one_process_games():
    game = load_game(OH_HELL)
    assert _games(game, 300, fast=True, jobs=2) == _games(game, 300, fast=True)
