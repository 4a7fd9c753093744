"""Where `simulate` plays its games: one process, `--jobs 2` worker processes, or a Dask cluster
(`--backend dask`, local or at `--address`). Games are seeded one by one (game i has seed
seed + i) and merged in game order, so every backend gives the same games, seed by seed, and the
same statistics as one process. Dask comes with the `test` extra: these tests always run."""
from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.cli import main
from interpreter.errors import RulebookError
from interpreter.sim import dask_backend
from interpreter.sim import simulate as sim_module
from interpreter.sim.simulate import simulate

ROOT = Path(__file__).resolve().parents[1]
OH_HELL = ROOT / "specs" / "oh_hell.yaml"
SKULL_KING = ROOT / "specs" / "skull_king.yaml"


def games_of(game, n, players, seed, **kw) -> tuple:
    """``(per-game outcomes in the order reported, statistics)`` of a run."""
    seen = []
    result = simulate(game, n, players, seed, on_game=lambda i, *outcome: seen.append((i, *outcome)), **kw)
    stats = result.summary()
    stats.pop("seconds"), stats.pop("games_per_second")
    return seen, stats


@pytest.fixture(scope="module")
def local_cluster():
    """A Dask cluster of two single-threaded workers in this process (light), reached over TCP on
    the loopback address like a remote one; closed after."""
    import logging

    import distributed  # the test extra installs it: never skipped
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://",
                                       host="127.0.0.1", dashboard_address=":0", silence_logs=logging.ERROR)
    assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
    yield cluster
    cluster.close()


def test_two_processes_equal_one_game_by_game():
    game = load_game(SKULL_KING)
    one = games_of(game, 9, 4, 21)
    two = games_of(game, 9, 4, 21, jobs=2)
    assert [g[0] for g in one[0]] == list(range(9))
    assert one == two


def test_dask_at_an_address_equals_one_process_game_by_game(local_cluster):
    game = load_game(OH_HELL)
    one = games_of(game, 12, 4, 5)
    done = []
    dask = games_of(game, 12, 4, 5, backend="dask", address=local_cluster.scheduler_address,
                    progress=done.append)
    assert [g[0] for g in dask[0]] == list(range(12))
    assert one == dask
    assert done == sorted(done) and done[-1] == 12  # progress as chunks finish, as with -j


def test_dask_with_bots_and_options_equals_one_process(local_cluster):
    game = load_game(SKULL_KING, {"lead_suit": "official"})
    bots = {1: "ismcts:4"}
    one = games_of(game, 4, 3, 8, bots=bots)
    dask = games_of(game, 4, 3, 8, bots=bots, backend="dask", address=local_cluster.scheduler_address)
    assert one == dask and one[1]["seats"][1]["bot"] == "ismcts:4"


def test_a_local_dask_cluster_of_two_processes_equals_one_process_game_by_game():
    """No address: simulate starts its own local cluster (2 worker processes here) and closes it."""
    game = load_game(SKULL_KING)
    one = games_of(game, 6, 4, 17)
    dask = games_of(game, 6, 4, 17, backend="dask", jobs=2)
    assert [g[0] for g in dask[0]] == list(range(6))
    assert one == dask


def test_rulebook_simulate_on_a_local_dask_cluster_equals_one_process(capsys):
    """The CLI's own local cluster (two worker processes): the same statistics as one process."""
    args = ["simulate", str(OH_HELL), "-n", "8", "-p", "4", "--seed", "3", "--json", "--quiet"]
    assert main(args) == 0
    one = json.loads(capsys.readouterr().out)
    assert main(args + ["--backend", "dask", "-j", "2"]) == 0
    out = capsys.readouterr()
    dask = json.loads(out.out)
    for d in (one, dask):
        d.pop("seconds"), d.pop("games_per_second")
    assert one == dask and one["games"] == 8
    assert "Traceback" not in out.err


def test_chunks_finishing_out_of_order_are_counted_in_game_order():
    """A pool whose chunks finish last-submitted first: the games are still added 0, 1, 2, ..."""

    class Done:
        def __init__(self, value):
            self.value = value

        def result(self):
            return self.value

    class BackwardsPool:
        workers = 2

        def submit(self, fn, *args):
            return Done(fn(*args))

        def wait(self, futures):
            last = max(futures, key=lambda f: f.value[0][0])  # the latest chunk finishes first
            return {last}, set(futures) - {last}

    game = load_game(OH_HELL)
    from interpreter.spec.loader import read_text
    args = (game.file, read_text(game.file), game.options, game.fingerprint, 3, 40)
    added, progress = [], []
    sim_module._run_chunks(BackwardsPool(), args, ("round-robin", None, None), 11,
                           lambda i, outcome: added.append((i, outcome)), progress.append)
    assert [i for i, _ in added] == list(range(11))
    one = []
    simulate(game, 11, 3, 40, on_game=lambda i, *outcome: one.append((i, outcome)))
    assert added == one
    assert progress[-1] == 11


def test_an_unreachable_scheduler_is_a_clear_error(monkeypatch, capsys):
    monkeypatch.setattr(dask_backend, "CONNECT_SECONDS", 1)
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code = main(["simulate", str(OH_HELL), "-n", "3", "-p", "4", "--backend", "dask",
                 "--address", f"tcp://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"cannot reach the Dask scheduler at tcp://127.0.0.1:{port}" in err and "dask scheduler" in err


@pytest.mark.parametrize("argv,message", [
    (["--backend", "dask", "--address", "nonsense"], "is not a scheduler's address"),
    (["--backend", "dask", "--address", "tcp://127.0.0.1"], "is not a scheduler's address"),
    (["--address", "tcp://127.0.0.1:8786"], "add --backend dask"),
    (["--backend", "dask", "--trace", "t.json"], "drop --backend dask"),
])
def test_bad_backend_arguments_are_refused(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code = main(["simulate", str(OH_HELL), "-n", "3", "-p", "4"] + argv)
    err = capsys.readouterr().err
    assert code == 1 and message in err and "Traceback" not in err


def test_without_dask_the_backend_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    code = main(["simulate", str(OH_HELL), "-n", "3", "-p", "4", "--backend", "dask"])
    err = capsys.readouterr().err
    assert code == 1 and "pip install -e '.[dask]'" in err and "Traceback" not in err
    assert "starting a local Dask cluster" not in err  # said before anything is started


def test_a_spec_changed_since_it_was_loaded_is_not_sent_to_workers(tmp_path):
    path = tmp_path / "g.yaml"
    path.write_text(OH_HELL.read_text())
    game = load_game(path)
    path.write_text(OH_HELL.read_text() + "\n# edited\n")
    with pytest.raises(RulebookError, match="changed since it was loaded"):
        simulate(game, 4, 4, 0, jobs=2)


def test_a_cluster_failing_during_the_run_is_a_clear_error(local_cluster, monkeypatch):
    from distributed.scheduler import KilledWorker

    def killed(*args):
        from types import SimpleNamespace
        raise KilledWorker("chunk-0", SimpleNamespace(address="tcp://127.0.0.1:1"), 3)

    monkeypatch.setattr(sim_module, "_run_chunks", killed)
    with pytest.raises(RulebookError, match="failed during the run: KilledWorker"):
        simulate(load_game(OH_HELL), 4, 4, 0, backend="dask", address=local_cluster.scheduler_address)


def test_a_failing_game_on_a_dask_worker_keeps_its_replay_command(local_cluster, tmp_path):
    """A game's rule error comes back from the worker as it is: located, with its replay command."""
    from interpreter.errors import RuleError
    path = tmp_path / "broken.yaml"
    text = OH_HELL.read_text()
    assert "where: may_play(c, p)" in text
    path.write_text(text.replace("where: may_play(c, p)", "where: \"1 / (count(p.hand) - 1) > 0\""))
    game = load_game(path)
    with pytest.raises(RuleError, match=r"watch it with: rulebook play .*broken.yaml --players 4 --seed \d+"):
        simulate(game, 6, 4, 0, backend="dask", address=local_cluster.scheduler_address)


def test_the_kernel_runs_in_every_worker_with_the_same_games(local_cluster, monkeypatch):
    """`--fast -j 2` and `--fast --backend dask` play in the kernel in the workers (their chunks
    come back as the kernel's arrays: sent to _take_fast) and give one process's games, game by
    game, and its statistics."""
    game = load_game(OH_HELL)
    one = games_of(game, 150, 4, 11, fast=True)
    one[1].pop("kernel")  # (how the kernel was made ready: only the parent's counts)
    taken = []
    real = sim_module._take_fast
    monkeypatch.setattr(sim_module, "_take_fast", lambda g, start, *rest: (taken.append(start), real(g, start, *rest)))
    two = games_of(game, 150, 4, 11, fast=True, jobs=2)
    two[1].pop("kernel")
    assert one == two and sorted(taken) == list(range(0, 150, 18))  # 150 // (2 workers * 4 chunks) per chunk
    taken.clear()
    dask = games_of(game, 150, 4, 11, fast=True, backend="dask", address=local_cluster.scheduler_address)
    dask[1].pop("kernel")
    assert one == dask and taken
    assert one[0] == games_of(game, 150, 4, 11)[0]  # the step API's games
    bulk = simulate(game, 150, 4, 11, fast=True, jobs=2)
    assert bulk.fast and bulk.summary()["seats"] == simulate(game, 150, 4, 11, fast=True).summary()["seats"]
