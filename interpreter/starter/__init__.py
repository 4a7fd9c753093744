"""``rulebook new NAME``: a starter spec and a folder of rule scenarios for it.

The templates beside this module (``game.yaml``, ``scenario.yaml``) are a plain trick-taking game
(no published game): the smallest spec that shows cards, zones, variables, definitions, a
decision and scoring, and passes ``validate --strict``.

Their modeline names the installed package's schema by an absolute ``file://`` URI, so it resolves
wherever the spec is written and wherever it is copied to on this machine (a relative path breaks
as soon as the file moves, which is how copies lost their editor support), and it is always the
schema of the Rulebook that validates the spec (a copy of the schema beside it would go stale when
Rulebook is upgraded). On another machine, ``validate`` says the file is missing and how to fix it.
"""
from __future__ import annotations

import os
import shlex
from pathlib import Path

from ..errors import RulebookError

TEMPLATES = Path(__file__).resolve().parent
SCENARIO_NAME = "highest_card_wins.yaml"


def schema_uri(kind: str = "game") -> str:
    """The ``file://`` URI of the installed schema ``kind`` (``game`` or ``scenario``)."""
    from ..spec.loader import SCHEMA_DIR
    return (SCHEMA_DIR / f"{kind}.schema.json").resolve().as_uri()


def write_starter(name: str) -> list[Path]:
    """Write ``NAME.yaml`` (``name`` may include folders, which must exist) and
    ``scenarios/NAME/highest_card_wins.yaml`` beside it; return the files written. Raises
    RulebookError when a file exists already (nothing is overwritten) or cannot be written."""
    base = Path(name[:-5] if name.endswith((".yaml", ".yml")) else name)
    if not base.name or base.name.startswith("."):
        raise RulebookError(f"rulebook new {name}: give the game a name, e.g. rulebook new my_game")
    spec = base.with_name(base.name + ".yaml")
    folder = base.parent / "scenarios" / base.name
    scenario = folder / SCENARIO_NAME
    for path in (spec, scenario):
        if path.exists():
            raise RulebookError(f"rulebook new {name}: {path} exists already (nothing was written)\n"
                                f"    hint: choose another name, or move {path} away")
    if not spec.parent.is_dir():
        raise RulebookError(f"rulebook new {name}: the folder {spec.parent} does not exist\n"
                            f"    hint: create it first (mkdir -p {shell_path(spec.parent)})")
    title = base.name.replace("_", " ").replace("-", " ").strip().capitalize() or base.name
    # the spec's comments name the files from the spec's own folder (the cwd of this run is not the
    # reader's); shell-quoted, so a name with spaces is one argument
    fill = {"<name>": title, "<file>": shlex.quote(spec.name),
            "<scenarios>": shlex.quote(f"scenarios/{base.name}"),
            "<schema>": schema_uri("game"), "<scenario_schema>": schema_uri("scenario"),
            "<spec>": f"../../{spec.name}"}
    try:
        _write(spec, (TEMPLATES / "game.yaml").read_text(encoding="utf-8"), fill)
        folder.mkdir(parents=True, exist_ok=True)
        _write(scenario, (TEMPLATES / "scenario.yaml").read_text(encoding="utf-8"), fill)
    except OSError as exc:
        raise RulebookError(f"rulebook new {name}: cannot write: {exc.strerror or exc}") from None
    return [spec, scenario]


def shell_path(path: Path) -> str:
    """``path`` as a shell argument that names it from the current directory: relative when it is
    at or below the current directory, else as given (relative with ``..``) or absolute, normalised
    (no ``./``) and quoted with :func:`shlex.quote` (spaces, quotes, ``$``)."""
    text = os.path.normpath(path)
    if os.path.isabs(text):
        try:
            rel = os.path.relpath(text)
        except ValueError:  # another drive (Windows)
            rel = text
        if not rel.startswith(os.pardir):
            text = rel
    return shlex.quote(text)


def next_steps(spec: Path, scenario: Path) -> list[str]:
    """The commands to run next on a starter written by :func:`write_starter` (``spec``, its
    ``scenario``), each a line to paste into a shell in the current directory."""
    return [f"rulebook validate {shell_path(spec)}",
            f"rulebook test {shell_path(scenario.parent)}",
            f"rulebook play {shell_path(spec)} -p 3 --human 0"]


def _write(path: Path, template: str, fill: dict) -> None:
    for marker, value in fill.items():
        template = template.replace(marker, value)
    with open(path, "x", encoding="utf-8") as f:  # "x": never overwrite a file made meanwhile
        f.write(template)
