"""``rulebook new NAME`` and the warning of ``validate`` about a modeline that names no file."""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

from interpreter.cli import main
from interpreter.spec.loader import check_spec

ROOT = Path(__file__).resolve().parent.parent


def test_new_writes_a_spec_and_a_scenario_that_pass_and_whose_modeline_resolves(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["new", "my_game"]) == 0
    spec, scenario = tmp_path / "my_game.yaml", tmp_path / "scenarios" / "my_game" / "highest_card_wins.yaml"
    assert spec.is_file() and scenario.is_file()
    assert main(["validate", "--strict", str(spec)]) == 0
    assert main(["test", str(scenario.parent)]) == 0
    assert "1 passed, 0 failed" in capsys.readouterr().out
    for f, kind in ((spec, "game"), (scenario, "scenario")):
        target = re.match(r"# yaml-language-server: \$schema=(\S+)", f.read_text()).group(1)
        assert Path(unquote(urlparse(target).path)).name == f"{kind}.schema.json"
        assert Path(unquote(urlparse(target).path)).is_file()
    # moved elsewhere, the modeline still resolves: no warning
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    shutil.copy(spec, moved / "copy.yaml")
    assert check_spec(moved / "copy.yaml") == []
    # nothing is overwritten
    assert main(["new", "my_game"]) == 1
    assert "exists already" in capsys.readouterr().err


def test_validate_warns_about_a_modeline_naming_no_file(tmp_path):
    copy = tmp_path / "house_rules.yaml"
    shutil.copy(ROOT / "specs" / "skull_king.yaml", copy)  # as docs/scenarios.md says to
    (d,) = check_spec(copy)
    assert (d.line, d.column, d.severity) == (1, 33, "warning")
    assert "../schemas/game.schema.json does not exist" in d.message
    assert "$schema=file://" in d.hint and "rulebook lsp" in d.hint
    assert check_spec(ROOT / "specs" / "skull_king.yaml") == []  # in specs/, it resolves


def test_new_prints_next_steps_that_run_as_pasted_from_the_cwd(tmp_path, monkeypatch, capsys):
    """A path with spaces, outside the current directory: each printed command is one line, its
    paths quoted for the shell and valid from here; the spec's comments name the files from its folder."""
    import shlex
    (tmp_path / "my games").mkdir()
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    assert main(["new", "../my games/house rules"]) == 0
    out = capsys.readouterr().out
    commands = [line.strip() for line in out.splitlines() if line.strip().startswith("rulebook ")]
    assert [shlex.split(c)[:3] for c in commands] == [
        ["rulebook", "validate", "../my games/house rules.yaml"],
        ["rulebook", "test", "../my games/scenarios/house rules"],
        ["rulebook", "play", "../my games/house rules.yaml"]]
    for command in commands[:2]:  # as the user pastes them, here
        assert main(shlex.split(command)[1:]) == 0, command
    assert "1 passed, 0 failed" in capsys.readouterr().out
    text = (tmp_path / "my games" / "house rules.yaml").read_text()
    assert "`rulebook validate 'house rules.yaml'`" in text and "`rulebook test 'scenarios/house rules'`" in text
    # an absolute path below the current directory is printed relative to it
    assert main(["new", str(tmp_path / "here" / "inside")]) == 0
    assert "  rulebook validate inside.yaml\n" in capsys.readouterr().out
