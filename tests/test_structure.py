"""The import structure of ``interpreter/``: layers that point one way, and no import circle.

Every ``import`` and ``from ... import`` in every module counts, including those inside functions
(lazy imports): a lazy import defers the cost of loading a module, not the dependency, and a reader
following a call still goes from one module to the other. The package facade ``interpreter``
(``__version__`` and names loaded on first use through ``importlib``) sits at the bottom.

A unit is a top-level module (``interpreter/cli.py``) or package (``interpreter/engine/``); each has a
layer in LAYERS and may import only units of its own layer or below. The few upward imports not yet
untangled are listed, each with why, in KNOWN_UPWARD (issue 34); an entry that no longer occurs fails
too, so the list only shrinks. docs/architecture.md describes the layers.

A reader holds a file in mind: no module is longer than MAX_LINES, except those in KNOWN_LONG,
each with why (that list only shrinks too).
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent / "interpreter"

# unit -> layer; a unit imports only units of a layer <= its own (see docs/architecture.md)
LAYERS = {
    "interpreter": 0, "errors": 0, "cache": 0, "options": 0,  # no game knowledge, no engine
    "model": 1,                                               # cards, zones, the State: plain data
    "expr": 2,                                                # the expression language
    "fast": 3,                                                # the typed lowering and numba kernel
    "engine": 4,                                              # the Game, programs, the step runner
    "spec": 5, "view": 5,                                     # loading specs; what a seat sees
    "scenario": 6, "agents": 6, "starter": 6,                 # positions as data; bots; `new`
    "sim": 7, "adapters": 7, "analysis": 7,                   # many games; outside APIs; diagrams, checks
    "web": 8, "lsp": 8,                                       # servers
    "commands": 9,                                            # the command families of `rulebook`
    "cli": 10,                                                # the parser and dispatch
    "command": 11, "__main__": 11,                            # the process entry
}

# (importing module, imported module) -> why it is still there
KNOWN_UPWARD = {
    ("interpreter.engine.game", "interpreter.spec.positions"):
        "a card position in a spec's source text: belongs to a layer below both",
    ("interpreter.engine.game", "interpreter.spec.loader"):
        "an unpickled Game (a -j worker) recompiles its spec text; the loader could register itself",
    ("interpreter.engine.game", "interpreter.scenario"):
        "new_state(setup=...) reads the scenario format with the scenario reader (one copy of it)",
    ("interpreter.engine.game", "interpreter.view"):
        "Game.export delegates to the views; the State's facade method could call view directly",
    ("interpreter.spec.cardlist", "interpreter.analysis.tables"):
        "card tables derived at compile time live with the analyses that also print them",
    ("interpreter.spec.loader", "interpreter.analysis.checks"):
        "the loader runs the semantic checks, which are analyses of the compiled game",
}

MAX_LINES = 800
# module (path under the repository) -> why it is still longer than MAX_LINES
KNOWN_LONG = {
}


def _modules() -> dict:
    """Dotted module name -> path, for every module of the package."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imports(modules: dict) -> dict:
    """Module -> {imported module of the package: first line}, every import statement counted."""
    graph = {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        found = graph[name] = {}
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]) if node.level \
                    else node.module
                base = base.rstrip(".")
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            for target in targets:
                if not target.startswith("interpreter"):
                    continue
                while target not in modules:  # `interpreter.x.y` names an attribute of module x
                    target = target.rsplit(".", 1)[0]
                if target != name:
                    found.setdefault(target, node.lineno)
    return graph


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


GRAPH = _imports(_modules())


def test_every_unit_has_a_layer():
    assert sorted({_unit(m) for m in GRAPH} - set(LAYERS)) == []


def test_no_import_runs_upward():
    upward = sorted(f"{a}:{line} imports {b} ({_unit(a)} is layer {LAYERS[_unit(a)]}, {_unit(b)} is layer "
                    f"{LAYERS[_unit(b)]})" for a, targets in GRAPH.items() for b, line in targets.items()
                    if LAYERS[_unit(b)] > LAYERS[_unit(a)] and (a, b) not in KNOWN_UPWARD)
    assert upward == []


def test_the_known_upward_imports_still_exist():
    """The list of exceptions only shrinks: one fixed is removed from it."""
    assert sorted(pair for pair in KNOWN_UPWARD if pair[1] not in GRAPH.get(pair[0], {})) == []


def _edges(key):
    return {(key(a), key(b)) for a, targets in GRAPH.items() for b in targets
            if (a, b) not in KNOWN_UPWARD and key(a) != key(b)}


def test_no_import_circle_between_modules():
    circles = list(nx.simple_cycles(nx.DiGraph(_edges(lambda m: m))))
    assert circles == []


def test_no_import_circle_between_packages():
    circles = list(nx.simple_cycles(nx.DiGraph(_edges(_unit))))
    assert circles == []


def _long_files() -> dict:
    """Path under the repository -> line count, for every module over MAX_LINES."""
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            out[path.relative_to(ROOT.parent).as_posix()] = lines
    return out


def test_no_module_is_longer_than_a_reader_can_hold():
    assert {p: n for p, n in _long_files().items() if p not in KNOWN_LONG} == {}


def test_the_known_long_modules_are_still_long():
    """The list of long modules only shrinks: one split is removed from it."""
    assert sorted(set(KNOWN_LONG) - set(_long_files())) == []
