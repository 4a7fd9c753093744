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
