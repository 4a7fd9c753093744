"""Generated code: built only from the fixed templates of interpreter/expr/codegen.py (spec names
only as quoted data), and the same games whatever the execution path (closures or generated
code, lazy or listed product options, one process or `simulate --jobs 2`)."""
from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.engine import program
from interpreter.expr import codegen
from interpreter.sim.simulate import simulate
from interpreter.spec.yamlpos import load_yaml

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


def option_sets(spec) -> list:
    """Default options, each non-default value of each option alone, and each preset."""
    data, _ = load_yaml(spec.read_text(), str(spec))
    sets = [{}]
    for name, decl in (data.get("options") or {}).items():
        values = decl.get("values") or ([True, False] if decl.get("type") == "bool" else [])
        sets += [{name: v} for v in values if v != decl.get("default")][:1]
    sets += [{"preset": p} for p in (data.get("presets") or {})]
    return sets[:4]  # bounded: the suite stays fast (tests/test_properties.py plays every combination)


def spec_identifiers(spec) -> set:
    """Every name the spec declares (variables, zones, definitions, options, card attributes)."""
    data, _ = load_yaml(spec.read_text(), str(spec))
    names = set(data.get("variables") or {}) | set(data.get("player_variables") or {}) \
        | set(data.get("zones") or {}) | set(data.get("options") or {})
    names |= {str(k).split("(")[0].strip() for k in (data.get("define") or {})}
    for entry in data.get("cards") or []:
        names |= set(entry.get("attributes") or {}) | set(entry.get("each") or {})
    return names


@pytest.fixture
def keep_modules(monkeypatch):
    monkeypatch.setattr(codegen, "KEEP_MODULES", True)
    monkeypatch.setattr(codegen, "GENERATED", [])
    return codegen.GENERATED


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_generated_modules_hold_spec_names_only_as_data(spec, keep_modules):
    load_game(spec)
    assert keep_modules, "the spec's expressions made no generated code"
    names = spec_identifiers(spec)
    constants = set()
    for module in keep_modules:
        codegen.check_module(module)  # the templates' node kinds, names and attributes only
        for node in ast.walk(module):
            if isinstance(node, ast.Name):
                assert node.id not in names, f"spec name {node.id!r} as Python syntax in {ast.unparse(module)}"
            elif isinstance(node, ast.Attribute):
                assert node.attr not in names or node.attr in codegen.ATTRIBUTES, ast.unparse(module)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                constants.add(node.value)
    assert constants & names, "spec names appear in generated code as quoted data"


def test_check_module_refuses_anything_else():
    ok = ast.parse("def k1(ctx):\n    return ctx.bound['suit'] == 'black' and k2(ctx)")
    codegen.check_module(ok)
    for bad in ("def k1(ctx):\n    return suit", "def k1(ctx):\n    return ctx.bound.rank",
                "import os", "def k1(ctx):\n    return [x for x in ctx.bound]",
                "def k1(ctx):\n    return ctx.__class__", "def suit(ctx):\n    return 1",
                "def k1(ctx, suit):\n    return 1", "def k1(ctx):\n    return eval('1')",
                "def k1(ctx):\n    return (ctx.memo or k2).pop('x')",
                "def k1(ctx):\n    return (ctx.hoisted or k2).get(k3, k4).__class__",
                "def k1(ctx):\n    return (suit := 2)"):
        with pytest.raises(AssertionError):
            codegen.check_module(ast.parse(bad))


def _scores(game, n, seed):
    state = game.new_state(n, seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        for p in state.current_players():
            actions = state.legal_actions(p)
            if not actions:  # real time: another seat's action just now took this seat's options
                continue
            state.apply(rng.choice(actions))
            if state.is_terminal():
                break
    return state.scores(), state.history  # the same games: every action, not only the scores


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_same_games_on_every_execution_path(spec, monkeypatch):
    for options in option_sets(spec):
        fast = load_game(spec, options)  # generated functions compiled once warm (WARM_CALLS)
        n = max(fast.min_players, min(4, fast.max_players))
        got = _scores(fast, n, 1)
        a = simulate(fast, 2, n, 7) if not options else None
        with monkeypatch.context() as m:  # generated functions from their first call
            m.setattr(codegen, "WARM_CALLS", 0)
            assert got == _scores(load_game(spec, options), n, 1), options
        with monkeypatch.context() as m:  # the closures alone, every option listed as text
            m.setattr(codegen, "ENABLED", False)
            m.setattr(program, "LAZY_PRODUCTS", False)  # read when options are listed: play inside
            plain = load_game(spec, options)
            assert got == _scores(plain, n, 1), options
            if a is not None:
                b = simulate(plain, 2, n, 7)
                assert (a.scores, a.lengths) == (b.scores, b.lengths)


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_simulate_in_two_processes_equals_one(spec):
    game = load_game(spec)
    n = max(game.min_players, min(4, game.max_players))
    one = simulate(game, 3, n, 11)
    two = simulate(game, 3, n, 11, jobs=2)
    assert (one.scores, one.wins, one.lengths) == (two.scores, two.wins, two.lengths)


def test_product_options_are_found_by_index_and_by_text():
    game = load_game(ROOT / "specs" / "skull_queen.yaml")
    state = game.new_state(3, seed=2)
    p = state.current_players()[0]
    actions = state.legal_actions(p)
    assert len(actions) == 1250 and actions[0].text == "place front 1 1 1 1"
    assert actions[1249].text == "place back 5 5 5 5" and actions[-1] == actions[1249]
    assert actions[7].text == "place front 1 1 2 3" and actions[7].index == 7
    assert list(actions)[:8] == actions[:8]
    listed = [a.text for a in actions]
    assert len(set(listed)) == 1250
    clone = state.clone()
    state.apply("PLACE  back 2 3 4 5", p)  # case and spaces as a human types them
    clone.apply(actions[625 + 125 * 1 + 25 * 2 + 5 * 3 + 4])  # back 2 3 4 5 by its Action
    assert state.history[-1] == clone.history[-1] == [p, "place back 2 3 4 5"]
    from interpreter import IllegalAction
    with pytest.raises(IllegalAction, match="not a legal action"):
        state.apply("place back 6 1 1 1", state.current_players()[0])


def test_a_where_with_a_nested_comprehension_is_not_hoisted_wrongly(tmp_path):
    """Hoisting keeps what depends on a name bound inside the filter (here `y` of a nested
    comprehension, which does not read the option `c`) per option."""
    from interpreter.scenario import build_state
    from interpreter.engine.run import advance
    spec = (ROOT / "specs" / "oh_hell.yaml").read_text().replace(
        'where: may_play(c, p)',
        'where: "count([y for x in [c] for y in [x.rank] where y > 5]) > 0"')
    path = tmp_path / "g.yaml"
    path.write_text(spec)
    game = load_game(path)
    state = build_state(game, {"players": 3, "start": "trick",
                               "setup": {"vars": {"leader": 0, "trump": "S", "num_tricks": 3},
                                         "zones": {"hand": {0: ["C2", "H9", "DK"], 1: ["D3"], 2: ["S4"]}}}})
    advance(state)
    assert sorted(a.text for a in state.legal_actions(0)) == ["play DK", "play H9"]


def test_a_definition_reads_a_passed_name_where_it_is_unless_it_binds_that_name(tmp_path):
    """A definition's argument that is a name already bound (the option `c`) or step-bound (the
    loop's `p`) is read where it is, not copied: except when the body binds the same name itself
    (here its own comprehension over `c`), where reading it in place would read the wrong `c`."""
    from interpreter.scenario import build_state
    from interpreter.engine.run import advance
    spec = (ROOT / "specs" / "oh_hell.yaml").read_text().replace(
        'where: may_play(c, p)', 'where: lowest(c, p) and not highest(c, p)').replace(
        "\ndefine:\n", '\ndefine:\n  lowest(x, q): "count([c in q.hand where c.rank < x.rank]) == 0"\n'
                       '  highest(c, q): "count([d in q.hand where d.rank > c.rank]) == 0"\n', 1)
    path = tmp_path / "g.yaml"
    path.write_text(spec)
    codegen_warm = codegen.WARM_CALLS
    for generate in (True, False):
        codegen.ENABLED, codegen.WARM_CALLS = generate, 0
        try:
            game = load_game(path)
        finally:
            codegen.ENABLED, codegen.WARM_CALLS = True, codegen_warm
        state = build_state(game, {"players": 3, "start": "trick",
                                   "setup": {"vars": {"leader": 0, "trump": "S", "num_tricks": 3},
                                             "zones": {"hand": {0: ["H9", "C2", "DK"], 1: ["D3"], 2: ["S4"]}}}})
        advance(state)
        assert [a.text for a in state.legal_actions(0)] == ["play C2"]


def test_a_filter_reads_its_caches_and_calls_in_its_own_generated_function(keep_modules):
    """Oh Hell's `where: may_play(c, p)`: the call of the definition (its arguments read in place),
    the memo of `led_suit` and the hoisted parts (the lead suit, the count of the hand's cards of
    it) are all inside one generated function, made of the templates only."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    choose = next(i for i in game.programs["trick"] if isinstance(i, program.Choose))
    module = next(m for m in keep_modules if m.body[0].name == choose.where.__name__)
    codegen.check_module(module)
    attrs = {n.attr for n in ast.walk(module) if isinstance(n, ast.Attribute)}
    assert {"hoisted", "memo", "bound", "attrs"} <= attrs, ast.unparse(module)
    assert "led_suit" in {n.value for n in ast.walk(module) if isinstance(n, ast.Constant)}
