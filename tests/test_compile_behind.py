"""A spec's first ``simulate --fast`` run: the kernel compiles in another process while the first
games play on the bytecode machine (interpreter/fast/vm.py), or on the step API when the machine
cannot run the spec (interpreter/fast/behind.py); the statistics are the same games'."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.spec.loader import load_game

ROOT = Path(__file__).resolve().parent.parent

# a fresh process (no kernel module imported or compiled before it), an empty cache: the run with
# compile_behind, then the same run in the kernel alone (which loads what the child compiled)
SCRIPT = """
import json, sys
from interpreter.sim import simulate as sim
from interpreter.sim.simulate import simulate
from interpreter.spec.loader import load_game
if sys.argv[4] == "step API":
    sim._machine_of = lambda game: None  # (as for a spec the machine cannot run)
else:  # a slow machine (a game at a time, 0.06 s each): the compile ends first
    import time
    from interpreter.fast import vm
    fast_run = vm.Machine.run
    vm.Machine.run = lambda self, *a: (time.sleep(0.06), fast_run(self, *a))[1]
game = load_game(sys.argv[1])
if sys.argv[4] != "step API":  # the machine compiled first, as on an installation that has run it once
    vm.machine_for(game).run(4, 0, 0)
runs = []
for behind in (True, False):
    games = []
    r = simulate(game, int(sys.argv[2]), 4, seed=7, fast=True, compile_behind=behind, jobs=int(sys.argv[3]),
                 on_game=lambda i, scores, winners, length: games.append((i, scores, winners, length)))
    runs.append({"fast": r.fast, "step_api_games": r.step_api_games, "machine_games": r.machine_games,
                 "ready": r.kernel_ready, "games": games, "note": r.kernel_note,
                 "kernel": r.summary().get("kernel")})
print(json.dumps(runs))
"""


@pytest.mark.parametrize("jobs,meanwhile", [(1, "machine"), (2, "machine"), (1, "step API")])
def test_the_first_games_play_while_the_kernel_compiles(tmp_path, jobs, meanwhile):
    """With an empty cache, the run's first games are the bytecode machine's (or the step API's)
    while a child compiles; the kernel plays the rest once the child is done (in this process, or
    on ``jobs`` workers), and every game (scores, winners, length, in order) is the kernel's own
    run's. The child's machine code is in the shared cache: the second run loads it (compiles
    nothing)."""
    n = 30_000  # (either alone would take minutes: the compile ends first)
    env = dict(os.environ, RULEBOOK_CACHE=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "specs" / "oh_hell.yaml"), str(n), str(jobs),
                          meanwhile], capture_output=True, text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    behind, alone = json.loads(out.stdout)
    played, other = ("machine_games", "step_api_games") if meanwhile == "machine" else ("step_api_games",
                                                                                        "machine_games")
    assert behind["fast"] and 0 < (behind[played] or 0) < n and behind[other] is None, (behind["kernel"],
                                                                                        behind["note"])
    assert behind["ready"][2] is True and behind["ready"][0] > 0  # the child's compile, (CPU s, wall s, compiled)
    assert behind["kernel"]["compiled_behind"] and behind["kernel"][played] == behind[played]
    assert alone["fast"] and alone[played] is None and alone["ready"][2] is False  # from the cache
    assert [g[0] for g in behind["games"]] == list(range(n))
    assert behind["games"] == alone["games"]


@pytest.mark.parametrize("meanwhile", ["bytecode machine", "step API"])
def test_a_run_done_before_the_compile_stops_it(tmp_path, monkeypatch, capsys, meanwhile):
    """Three games end long before the kernel compiles: they are the bytecode machine's (or, when
    it cannot run the spec, the step API's), the compile is stopped (its process has exited), and
    the command says who played them and why."""
    from interpreter import cache
    from interpreter.fast import behind
    from interpreter.sim import simulate as sim
    if meanwhile == "step API":
        monkeypatch.setattr(sim, "_machine_of", lambda game: None)
    else:  # the machine ready in this process first (it is compiled once for every spec, not per cache)
        from interpreter.fast.vm import machine_for
        machine_for(load_game(ROOT / "specs" / "oh_hell.yaml")).run(4, 0, 1)
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_DIR", [])
    children = []
    start = behind.CompileBehind.__init__

    def started(self, *args):
        children.append(self)
        start(self, *args)
    monkeypatch.setattr(behind.CompileBehind, "__init__", started)
    spec = tmp_path / "short.yaml"
    spec.write_text((ROOT / "specs" / "oh_hell.yaml").read_text() + "\n# compile-behind test\n")
    # as in a new process: the kernel module not imported (a comment leaves the module's text as it was,
    # and a kernel another test compiled in this process counts as cached: a failure of the full suite)
    import hashlib
    from interpreter.fast.typepass import lower
    name = "rulebook_kernel_" + hashlib.sha256(lower(load_game(spec))[0].encode()).hexdigest()[:24]
    monkeypatch.delitem(sys.modules, name, raising=False)
    assert main(["simulate", str(spec), "-n", "3", "-p", "4", "--fast", "--json"]) == 0
    captured = capsys.readouterr()
    said = (f"the {meanwhile} played all the games of the run (3) before the kernel compiled (the compile was "
            "stopped")
    err = captured.err.replace("\n", " ")
    assert (f"played by the step API instead: {said}" in err) == (meanwhile == "step API") and said in err
    assert "kernel" not in json.loads(captured.out)
    assert len(children) == 1 and children[0]._proc.poll() is not None
    assert main(["simulate", str(spec), "-n", "3", "-p", "4", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    first = json.loads(captured.out)
    assert [s["mean"] for s in first["seats"]] == [s["mean"] for s in plain["seats"]]
    assert first["mean_length"] == plain["mean_length"]


def test_compile_first_waits_for_the_kernel(monkeypatch):
    """``compile_behind=False`` (the command's --compile-first) compiles before the first game, as
    before: no child is started; with ``compile_behind=True`` one is (here refused: the run then
    compiles in its own process, as without)."""
    from interpreter.fast.kernel import kernel_for
    from interpreter.fast import behind
    from interpreter.sim import simulate as sim
    started = []

    def refuse(self, *args):
        started.append(args)
        raise OSError("no process here")
    monkeypatch.setattr(behind.CompileBehind, "__init__", refuse)
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    monkeypatch.setattr(kernel_for(game), "compiled", False)
    result = sim.simulate(game, 5, 4, fast=True, compile_behind=False)
    assert result.fast and result.step_api_games is None and started == []
    result = sim.simulate(game, 5, 4, fast=True, compile_behind=True)
    assert result.fast and result.step_api_games is None and len(started) == 1


@pytest.mark.parametrize("meanwhile,key,played", [("step API", "step_api_games", 2),
                                                   ("bytecode machine", "machine_games", 3)])
def test_a_failed_compile_behind_is_said_and_the_run_compiles_itself(monkeypatch, capsys, meanwhile, key, played):
    """The other process fails after two chunks of games (a game each on the step API; one, then
    two on the machine): the run says why, compiles the kernel itself (its time left out of
    games/s, as --compile-first's), and does not claim the compile was behind."""
    from interpreter.fast.kernel import kernel_for
    from interpreter.fast import behind
    from interpreter.sim import simulate as sim
    if meanwhile == "step API":
        monkeypatch.setattr(sim, "_machine_of", lambda game: None)

    class Failing:
        def __init__(self, *args):
            self.asked, self.failure = 0, ""

        def done(self):
            self.asked += 1
            return self.asked > 2

        def outcome(self):
            self.failure = "MemoryError: out of memory"
            return None

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            pass
    monkeypatch.setattr(behind, "CompileBehind", Failing)
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    kernel = kernel_for(game)
    kernel.ready()
    monkeypatch.setattr(kernel, "compiled", False)
    monkeypatch.setattr(kernel, "ready", lambda: (3.5, 4.0, True))
    monkeypatch.setattr("interpreter.commands.simulate._load", lambda args: game)
    assert main(["simulate", str(ROOT / "specs" / "oh_hell.yaml"), "-n", "50", "-p", "4", "--fast", "--json"]) == 0
    captured = capsys.readouterr()
    assert "the kernel's compile in another process failed (MemoryError: out of memory): compiled here" in \
        captured.err.replace("\n", " ")
    kernel_json = json.loads(captured.out)["kernel"]
    assert kernel_json == {"compiled": True, "ready_cpu_seconds": 3.5, "ready_seconds": 4.0,
                           "compiled_behind": False, key: played}
    assert main(["simulate", str(ROOT / "specs" / "oh_hell.yaml"), "-n", "50", "-p", "4", "--fast"]) == 0
    line = capsys.readouterr().out.replace("\n", " ")
    assert f"the first {played} on the {meanwhile} while another process tried to compile the kernel, the others in the " \
           "kernel compiled here in 3.5 s CPU (4.0 s wall), not counted" in line


def test_search_bots_begin_on_the_machine_and_a_short_run_says_its_compile_did_not_finish(tmp_path, monkeypatch,
                                                                                         capsys):
    """A search bot's first run of a spec: its decisions on the bytecode machine while another process
    compiles the search module; a run that ends first says that compile did not finish, and how to
    keep it (--json: ``search_on_machine``). With --compile-first the search is compiled first."""
    import hashlib
    from interpreter import cache
    from interpreter.fast import behind, search
    from interpreter.fast.typepass import lower_search
    search._machine_module()  # (the machine's search driver: once for every spec, not per cache folder)
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_DIR", [])
    monkeypatch.setattr(behind, "_COMPILING", {})
    spec = ROOT / "specs" / "witches_of_blackmore.yaml"
    # as in a new process: the spec's search module not imported
    text = search.driver_source(lower_search(load_game(spec))[0])
    monkeypatch.delitem(sys.modules, "rulebook_search_" + hashlib.sha256(text.encode()).hexdigest()[:24], raising=False)
    try:
        assert main(["simulate", str(spec), "-n", "2", "-p", "3", "--fast", "--bot", "0=ismcts:10", "--json"]) == 0
        captured = capsys.readouterr()
        err = captured.err.replace("\n", " ")
        assert "first decisions ran on the bytecode machine" in err and "the run ended before that compile" in err
        assert json.loads(captured.out)["kernel"]["search_on_machine"] is True
        assert any(form == "search" for form, _ in behind._COMPILING)
    finally:
        for running in behind._COMPILING.values():
            running.stop()
    assert main(["simulate", str(spec), "-n", "2", "-p", "3", "--fast", "--bot", "0=ismcts:10", "--json",
                 "--compile-first"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert "search_on_machine" not in first["kernel"] and first["kernel"]["compiled"] is True
