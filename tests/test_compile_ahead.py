"""Machine code compiled ahead: ``rulebook compile`` (interpreter/fast/prepare.py), and the bytecode
machine's own first compile, once per installation, timed apart from a run's games."""
import json
import os
import subprocess
import sys
from pathlib import Path

from interpreter.cli import main
from interpreter.starter import TEMPLATES

ROOT = Path(__file__).resolve().parent.parent
STARTER = str(TEMPLATES / "game.yaml")  # (a small spec the package ships: its kernels compile in seconds)


def _rulebook(cache: Path, *args: str) -> subprocess.CompletedProcess:
    """``rulebook ARGS`` in a new process (nothing compiled in it before) with ``cache`` as its cache."""
    env = dict(os.environ, RULEBOOK_CACHE=str(cache), PYTHONPATH=str(ROOT))
    env.pop("RULEBOOK_MACHINE", None)
    return subprocess.run([sys.executable, "-m", "interpreter", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def _line(out: str, part: str) -> str:
    (line,) = [x for x in out.splitlines() if x.strip().startswith(part)]
    return line


def test_the_first_run_compiles_the_machine_apart_then_compile_readies_the_rest_and_runs_compile_nothing(
        tmp_path):
    """In an empty cache (a fresh installation), the first ``--fast`` run compiles the bytecode machine
    before its first games: the output says so and how long it took, and games per second leave it
    out (they counted it: a one-spec run printed 28.7 games/s for a game that plays 10⁵ a second).
    ``rulebook compile`` then finds the machine's games ready and compiles the search's driver on the
    machine; given a spec, its step and search kernels; said again, it compiles nothing; and runs of
    that spec load their kernels (no compile, no machine)."""
    import re
    from interpreter.fast.prepare import Ready
    from interpreter.sim.simulate import SimulationResult
    cache = tmp_path / "cache"
    run = _rulebook(cache, "simulate", STARTER, "-n", "40", "-p", "4", "--fast")
    assert run.returncode == 0, run.stderr
    assert "compiling the bytecode machine first (once per installation" in run.stderr.replace("\n", " ")
    said = re.search(r"games/s \(([\d.]+) s;.* the bytecode machine compiled first in ([\d.]+) s CPU \(([\d.]+) s wall, "
                     r"once per installation\), not counted", run.stdout.replace("\n", " "))
    assert said, run.stdout
    seconds, cpu, wall = map(float, said.groups())
    assert cpu > 1.0 and seconds < wall / 2, said.group(0)
    result = SimulationResult(game="g", num_players=0, machine_ready=Ready(7.5, 7.75, True))  # (--json's fields)
    assert result.summary()["kernel"] == {"machine_compiled_cpu_seconds": 7.5, "machine_compiled_seconds": 7.75}
    assert "kernel" not in SimulationResult(game="g", num_players=0, machine_ready=Ready(0.3, 0.3, False)).summary()

    first = _rulebook(cache, "compile")
    assert first.returncode == 0, first.stderr
    assert str(cache / "kernels") in first.stdout
    assert "in the cache already" in _line(first.stdout, "the machine's games (--fast, step API)")
    assert "compiled in" in _line(first.stdout, "the search bots on the machine")
    spec = _rulebook(cache, "compile", STARTER)
    assert spec.returncode == 0, spec.stderr
    for part in ("the machine's games", "the search bots on the machine"):
        assert "in the cache already" in _line(spec.stdout, part)
    _line(spec.stdout, "kernel (simulate --fast)")  # (compiled behind the first run if it finished first)
    for part in ("step kernel", "search (ismcts and greedy bots)"):
        assert "compiled in" in _line(spec.stdout, part), spec.stdout
    again = _rulebook(cache, "compile", STARTER)
    assert again.returncode == 0 and "compiled in" not in again.stdout, again.stdout
    later = _rulebook(cache, "simulate", STARTER, "-n", "30", "-p", "4", "--fast", "--json")
    assert later.returncode == 0, later.stderr
    kernel = json.loads(later.stdout)["kernel"]
    assert kernel["compiled"] is False and "machine_games" not in kernel and "machine_compiled_seconds" not in kernel
    bots = _rulebook(cache, "simulate", STARTER, "-n", "3", "-p", "4", "--fast", "--bot", "0=ismcts:20", "--json")
    assert bots.returncode == 0, bots.stderr
    searched = json.loads(bots.stdout)["kernel"]
    assert searched["compiled"] is False and "search_on_machine" not in searched, searched


def test_compile_says_why_a_spec_is_not_compiled_and_fails(monkeypatch, capsys):
    """A spec whose kernel does not type: its line gives the reason (the spec then plays on the step
    API) and the exit status is 1; with the machine off, the machine is not compiled; without numba,
    the command says to install the fast extra."""
    from interpreter.fast import kernel, prepare
    from interpreter.fast.lowtypes import NotTyped

    def not_typed():
        raise NotTyped("a list in a player variable (line 12)")
    monkeypatch.setattr(prepare, "machine_parts", lambda game: [])
    monkeypatch.setattr(prepare, "spec_parts", lambda game, n: [("kernel (simulate --fast)", not_typed)])
    assert main(["compile", STARTER]) == 1
    assert ("not compiled: a list in a player variable (line 12); the spec plays on the step API instead"
            in capsys.readouterr().out.replace("\n", " "))
    monkeypatch.setenv("RULEBOOK_MACHINE", "off")  # (nothing of the machine is compiled, and it says so)
    monkeypatch.setattr(prepare, "machine_parts", None)
    assert main(["compile"]) == 0
    assert "the bytecode machine is off (RULEBOOK_MACHINE=off): not compiled" in capsys.readouterr().out
    monkeypatch.setattr(kernel, "unavailable", lambda: "numba is not installed (pip install -e '.[fast]')")
    assert main(["compile"]) == 1
    assert "rulebook compile needs the fast extra: numba is not installed" in capsys.readouterr().err


def test_compile_checks_every_spec_and_the_cache_before_it_compiles(monkeypatch, capsys, tmp_path):
    """A mistake in any spec named is told before anything compiles (the machine's compile is not
    paid first); options need a spec; an unusable RULEBOOK_CACHE is said, with the folder used instead
    and how to keep the code; the closing line is not printed when a part failed."""
    from interpreter import cache
    from interpreter.fast import prepare
    from interpreter.fast.lowtypes import NotTyped
    compiled = []
    monkeypatch.setattr(prepare, "machine_parts", lambda game: compiled.append(game) or [])
    assert main(["compile", STARTER, str(tmp_path / "missing.yaml")]) == 1
    assert "missing.yaml" in capsys.readouterr().err and compiled == []
    assert main(["compile", STARTER, "-p", "99"]) == 1
    assert "players, not 99" in capsys.readouterr().err and compiled == []
    assert main(["compile", "--option", "loot=true"]) == 1
    assert "--option and --players apply to the specs given" in capsys.readouterr().err
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("")
    monkeypatch.setattr(cache, "_DIR", [])

    def fails():
        raise NotTyped("cannot be written")
    monkeypatch.setattr(prepare, "machine_parts", lambda game: [("the machine's games", fails)])
    assert main(["compile"]) == 1
    out = capsys.readouterr().out.replace("\n", " ")
    assert f"(RULEBOOK_CACHE={tmp_path / 'a-file'} is not a folder this user can write: a temporary folder" in out
    assert "not compiled: cannot be written" in out and "now play on the bytecode machine" not in out


def test_an_error_that_follows_a_caught_ctrl_c_is_told_as_an_interrupt(monkeypatch, capsys):
    """Ctrl-C while numba writes machine code: numba catches the KeyboardInterrupt in a callback and
    fails after it with RuntimeError (a 125-line traceback, before). The command says "interrupted"
    and exits with 130; the same error without a Ctrl-C is still raised (a bug to see)."""
    import signal
    import time
    from interpreter.commands import compile as command

    def swallowed(args):
        try:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(2)
        except KeyboardInterrupt:
            pass  # (as numba's ctypes callback does)
        raise RuntimeError("no compiled object yet for <Library 'playout'>")
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        monkeypatch.setattr(command, "cmd_compile", swallowed)
        assert main(["compile"]) == 130
        assert "interrupted" in capsys.readouterr().err

        def plain(args):
            raise RuntimeError("a bug")
        monkeypatch.setattr(command, "cmd_compile", plain)
        try:
            main(["compile"])
        except RuntimeError as exc:
            assert str(exc) == "a bug"
        else:
            raise AssertionError("the error was hidden")
    finally:
        signal.signal(signal.SIGINT, previous)
