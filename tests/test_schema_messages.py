"""Schema errors name the closest fix, and the schema serves editors (issue 14: editor support)."""
from __future__ import annotations

import json

import pytest

from interpreter import SpecError, load_game
from interpreter.cli import main
from interpreter.spec.compile import STEP_KINDS
from interpreter.spec.loader import schema

SPEC = """\
name: T
players: {min: 2, max: 3}
cards:
  - name: a
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true}
variables: {x: 0}
player_variables: {score: 0}
flow:
  - STEP
  - choose: {action: go, player: 0, options: "[1, 2]"}
"""


@pytest.mark.parametrize("step,message,hint", [
    ("{sett: {x: 1}}", "flow.0: not a known step", "did you mean 'set'?"),
    ("{log: {txt: hi}}", "Additional properties are not allowed ('txt' was unexpected)", "text"),
    ("{log: [hi]}", "flow.0.log: must be a text or a mapping, not a list", ""),
    ("{choose: {action: go, player: 0, options: '[1]', optional: maybe}}",
     "must be true or false or a mapping, not 'maybe'", ""),
])
def test_a_schema_error_names_the_closest_branch_not_all_of_them(tmp_path, step, message, hint):
    path = tmp_path / "s.yaml"
    path.write_text(SPEC.replace("STEP", step))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    texts = [(d.message, d.hint) for d in exc.value.diagnostics]
    assert any(message in m and hint in h for m, h in texts), texts
    assert not any("valid under" in m or "is not valid under any" in m for m, _ in texts)


def test_rulebook_schema_prints_the_schemas(capsys):
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "Rulebook game spec"
    assert main(["schema", "--scenario"]) == 0
    assert json.loads(capsys.readouterr().out)["title"] == "Rulebook rule scenario"


def test_every_kind_of_step_is_offered_by_the_schema():
    """An editor completes step kinds from the schema's step branches: they are exactly the engine's."""
    branches = schema("game")["$defs"]["step"]["oneOf"]
    kinds = [b["required"][0] for b in branches]
    assert sorted(kinds) == sorted(STEP_KINDS)


def _properties(node, path=""):
    """Every (path, property schema) of a JSON Schema, through items, oneOf and $defs."""
    if not isinstance(node, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        yield f"{path}/{name}", sub
        yield from _properties(sub, f"{path}/{name}")
    for key in ("items", "additionalProperties"):
        if isinstance(node.get(key), dict):
            yield from _properties(node[key], f"{path}/{key}")
    for key in ("oneOf", "anyOf", "allOf"):
        for i, branch in enumerate(node.get(key) or []):
            yield from _properties(branch, f"{path}/{key}{i}")
    for name, sub in (node.get("$defs") or {}).items():
        yield from _properties(sub, f"#/{name}")


def test_every_schema_property_has_a_description_and_examples_that_validate():
    """Editors show a property's description and offer its examples: both exist everywhere, and
    every example is a valid value of its property."""
    import jsonschema
    root = schema("game")
    props = list(_properties(root))
    assert len(props) > 100
    for path, sub in props:
        assert sub.get("description"), f"{path} has no description"
        assert sub.get("examples"), f"{path} has no examples"
        checker = jsonschema.Draft202012Validator({**sub, "$defs": root["$defs"]})
        for example in sub["examples"]:
            errors = [e.message for e in checker.iter_errors(example)]
            assert not errors, (path, example, errors)
