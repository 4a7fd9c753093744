"""pytest collects every rule scenario under tests/scenarios as a test item."""
from __future__ import annotations

import pytest

from interpreter.errors import RulebookError, SpecError
from interpreter.scenario import load_scenario, run_scenario


def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".yaml" and "scenarios" in file_path.parts:
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioFile(pytest.File):
    def collect(self):
        # A malformed file must not stop collection (then no test runs): it becomes one item
        # that fails with the file's located error when run.
        try:
            data = load_scenario(self.path)
            rule = data.get("rule", "") if isinstance(data, dict) else ""
        except Exception:  # noqa: BLE001 - reported by the item
            rule = ""
        if not isinstance(rule, str):
            rule = str(rule)
        yield ScenarioItem.from_parent(self, name=self.path.stem, rule=rule)


class ScenarioItem(pytest.Item):
    def __init__(self, *, rule, **kw):
        super().__init__(**kw)
        self.rule = rule

    def runtest(self):
        try:
            result = run_scenario(self.path)
        except (SpecError, RulebookError) as exc:
            raise ScenarioFailure([str(exc)]) from None
        if not result.passed:
            raise ScenarioFailure(result.failures or ["no expectation was checked: add expect"])

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ScenarioFailure):
            return f"{self.path}\n  rule: {self.rule}\n  " + "\n  ".join(excinfo.value.failures)
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"scenario: {self.rule}"


class ScenarioFailure(Exception):
    def __init__(self, failures):
        super().__init__("\n".join(failures))
        self.failures = failures
