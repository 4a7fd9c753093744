"""The speed work keeps behaviour: clones are independent, actions apply by index or text,
start-up imports only what a command needs. (No timings here: those are in tools/bench.py.)"""
from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import State, load_game
from interpreter.spec.compile import _has_cycle

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


def _midgame(game, n=4, seed=3, steps=60):
    state = game.new_state(n, seed=seed)
    rng = random.Random(seed)
    while len(state.history) < steps and not state.is_terminal():
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)))
    return state


def _one_round(spec) -> dict:
    """A spec with a `rounds` option plays one round here (a whole Ligretto game to 99 points is
    tens of thousands of actions: minutes, not what this test is about)."""
    from interpreter.spec.loader import load_spec
    return {"rounds": 1} if "rounds" in (load_spec(spec)[0].get("options") or {}) else {}


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_clones_share_nothing_that_changes(spec):
    game = load_game(spec, _one_round(spec))
    state = _midgame(game, game.min_players, steps=12)
    assert not state.is_terminal()
    before = state.to_json()
    clone = state.clone()
    rng = random.Random(1)
    for _ in range(1500):  # play the clone on (bounded: some games are 10^4+ actions): the original must not move
        if clone.is_terminal():
            break
        p = clone.current_players()[0]
        clone.apply(rng.choice(clone.legal_actions(p)))
    assert state.to_json() == before
    other = state.clone()
    p = state.current_players()[0]
    state.apply(state.legal_actions(p)[0])  # and the other way round
    assert len(other.history) == len(state.history) - 1
    assert State.from_json(game, other.to_json()).to_json() == other.to_json()


def test_an_action_of_an_older_list_applies_by_its_text():
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    state = game.new_state(3, seed=5)
    p = state.current_players()[0]
    actions = state.legal_actions(p)
    stale = actions[-1]._replace(index=0)  # its index no longer matches its text
    state.apply(stale)
    assert state.history[-1] == [p, actions[-1].text]


def test_to_json_round_trip_keeps_cards_in_variables_and_frames():
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    state = _midgame(game, 4, 8, 40)
    text = state.to_json()
    data = json.loads(text)
    assert any("card" in json.dumps(f) for f in data["stack"]) or "card" in json.dumps(data["vars"])
    again = State.from_json(game, text)
    assert again.to_json() == text
    assert again.vars == state.vars and again.stack == [[f[0], f[1], {k: list(v) if type(v) is tuple else v
                                                                      for k, v in f[2].items()}]
                                                        for f in state.stack]


def test_define_cycles_are_found():
    assert not _has_cycle({})
    assert not _has_cycle({"a": ["b"], "b": ["c"], "c": []})
    assert _has_cycle({"a": ["b"], "b": ["a"]})
    assert _has_cycle({"a": ["a"]})
    assert _has_cycle({"x": ["y"], "y": ["z"], "z": ["y"]})
    assert not _has_cycle({"x": ["y", "z"], "y": ["z"], "z": []})


def test_simulate_imports_no_drawing_or_graph_library(tmp_path):
    code = ("import sys; from interpreter.cli import main; "
            f"main(['simulate', {str(ROOT / 'specs' / 'skull_king.yaml')!r}, '-n', '1', '-p', '3', '--quiet']); "
            "print(sorted(m for m in ('networkx', 'matplotlib', 'jsonschema') if m in sys.modules))")
    env = {"RULEBOOK_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().splitlines()[-1] == "['jsonschema']"  # checked once, then stamped
    assert any(p.name.startswith("schema-ok-") for p in (tmp_path / "cache").iterdir())
    assert any(p.name.startswith("grammar-") for p in (tmp_path / "cache").iterdir())
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=ROOT)
    assert second.returncode == 0, second.stderr
    assert second.stdout.strip().splitlines()[-1] == "[]"


def test_the_command_sets_its_modules_and_game_aside_from_the_cycle_collector(tmp_path):
    """`rulebook` (interpreter.command) imports with the cycle collector off, then freezes what
    start-up made (modules, the loaded game): the collector is on again while the game plays, and
    `import interpreter` alone loads nothing else. cli.main called from a program freezes nothing."""
    sk = str(ROOT / "specs" / "skull_king.yaml")
    code = ("import gc, json, sys; import interpreter; "
            "alone = sorted(m for m in sys.modules if m.startswith('interpreter')); "
            "from interpreter import command, cli; from interpreter.sim import simulate as sim; seen = []; "
            "real = sim.simulate; "
            "sim.simulate = lambda *a, **k: seen.append([gc.isenabled(), gc.get_freeze_count()]) or real(*a, **k); "
            f"code = {{'command': command.main, 'cli': cli.main}}[sys.argv[1]](['simulate', {sk!r}, '-n', '1', '-p', '3', '--quiet']); "
            "print(json.dumps([alone, code, seen, gc.isenabled()]))")
    env = {"RULEBOOK_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    out = {}
    for entry in ("command", "cli"):
        run = subprocess.run([sys.executable, "-c", code, entry], capture_output=True, text=True, env=env, cwd=ROOT)
        assert run.returncode == 0, run.stderr
        out[entry] = json.loads(run.stdout.strip().splitlines()[-1])
    alone, code, [[enabled, frozen]], enabled_after = out["command"]
    assert alone == ["interpreter"] and code == 0 and enabled and enabled_after
    assert frozen > 10_000  # the modules and the game
    assert out["cli"][1:] == [0, [[True, 0]], True]


def test_a_spec_that_fails_the_schema_is_never_stamped(tmp_path, monkeypatch):
    from interpreter import SpecError
    from interpreter import cache
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "c"))
    monkeypatch.setattr(cache, "_DIR", [])
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "specs" / "skull_king.yaml").read_text().replace("flow:", "flow_typo:", 1))
    for _ in range(2):
        with pytest.raises(SpecError):
            load_game(bad)
    assert not any(p.name.startswith("schema-ok-") for p in (tmp_path / "c").iterdir())


TWO_CARDS = """
players: {min: 2, max: 2}
cards:
  - each: {n: "range(1, 3)"}
    name: "c{n}"
zones:
  deck: {visibility: hidden, initial: all}
"""
LOOP_OVER_A_VARIABLE = "name: Loop over a variable" + TWO_CARDS + """variables: {rows: [[1, 2], [3, 4], [5, 6]], seen: []}
flow:
  - for: row
    in: rows
    do:
      - set: {"rows[2]": "[0, 0]"}
      - set: {"row[0]": 9}
      - choose:
          action: take
          player: 0
          options: "[1, 2]"
          as: k
          then:
            - set: {seen: "seen + [row[0] + row[1] + k]"}
score: "0"
"""


def test_loop_cursors_are_shared_by_clones_safely(tmp_path):
    """A clone shares the loop cursors of its frames (State.clone); this is safe because a loop
    owns its items (copied when it starts, each item bound as a copy): changing the variable it
    loops over, or the bound item, in place changes neither the loop nor any clone's."""
    import textwrap
    path = tmp_path / "loop.yaml"
    path.write_text(textwrap.dedent(LOOP_OVER_A_VARIABLE))
    game = load_game(path)
    state = game.new_state(2, seed=1)
    clone = state.clone()
    saved = clone.to_json()
    for s, pick in ((state, "take 1"), (state, "take 2"), (state, "take 1")):
        s.apply(pick, 0)
    assert clone.to_json() == saved  # the original's moves changed nothing in the clone
    for pick in ("take 2", "take 2", "take 2"):
        clone.apply(pick, 0)
    # the loop reads the rows as they were when it started (9 + 2 + k, 9 + 4 + k, 9 + 6 + k),
    # whether the State was played on, cloned, or saved and loaded mid-loop
    assert state.vars["seen"] == [12, 15, 16] and clone.vars["seen"] == [13, 15, 17]
    assert state.vars["rows"] == [[1, 2], [3, 4], [0, 0]]
    loaded = State.from_json(game, game.replay(2, 1, state.history[:1]).to_json())
    for pick in ("take 2", "take 1"):
        loaded.apply(pick, 0)
    assert loaded.to_json() == game.replay(2, 1, state.history).to_json() == state.to_json()


TAKE_THREE_TIMES = """  - repeat: 3
    do:
      - choose:
          action: take
          player: 0
          options: "[0, 1]"
          as: k
          then:
            - add: {"PICKS[k]": 1}
score: "0"
"""
BECOMES_A_LIST = {  # a variable that starts as null and is set to a list: (spec, its value in a State)
    "player": ("player_variables: {picks: null}\nflow:\n  - for: q\n    in: players\n    do:\n"
               "      - set: {q.picks: \"[0, 0]\"}\n" + TAKE_THREE_TIMES.replace("PICKS", "players[0].picks"),
               lambda state: state.pvars[0]["picks"]),
    "game": ("variables: {picks: null, other: 0}\nflow:\n  - set: {picks: \"[0, 0]\"}\n"
             + TAKE_THREE_TIMES.replace("PICKS", "picks"),
             lambda state: state.vars["picks"]),
}


@pytest.mark.parametrize("kind", sorted(BECOMES_A_LIST))
def test_a_variable_set_to_a_list_is_copied_by_clones(kind, tmp_path):
    """Clones copy variables flat until a `set` makes one a list (State.nested_pvars for player
    variables, State.nested_vars names the game variables); from then on each clone owns its lists."""
    spec, picks = BECOMES_A_LIST[kind]
    path = tmp_path / "picks.yaml"
    path.write_text(f"name: A {kind} variable becomes a list" + TWO_CARDS + spec)
    game = load_game(path)
    marked = (lambda state: state.nested_pvars) if kind == "player" else (lambda state: state.nested_vars == ("picks",))
    fresh = game.new_state(2, seed=1)
    assert marked(fresh) and marked(fresh.clone()) and picks(fresh) == [0, 0]
    clone = fresh.clone()
    fresh.apply("take 1", 0)
    clone.apply("take 0", 0)
    clone.clone().apply("take 0", 0)
    assert picks(fresh) == [0, 1] and picks(clone) == [1, 0]
    loaded = State.from_json(game, clone.to_json())
    assert marked(loaded)
    loaded.clone().apply("take 1", 0)
    assert picks(loaded) == [1, 0]


EVERY_ZONE_STEP = """name: Each zone step alone after a choice
players: {min: 2, max: 2}
cards:
  - each: {rank: "range(1, 9)"}
    name: "c{rank}"
zones:
  deck: {visibility: public, initial: all}
  hand: {per_player: true, visibility: public}
  pile: {visibility: public}
flow:
  - repeat: 2
    do:
      - choose: {action: deal, player: 0, options: "[1, 2]", as: k, then: [{deal: {from: deck, to: hand, count: k}}]}
      - choose:
          action: lay
          player: 0
          options: "[2, 6]"
          as: k
          then: [{move: {cards: "[c in players[0].hand where c.rank > k]", from: "players[0].hand", to: pile}}]
      - choose: {action: draw, player: 1, options: "[1, 2]", as: k, then: [{move: {from: deck, to: "players[1].hand", count: k}}]}
      - choose: {action: shuffle, player: 1, options: "[1, 2]", then: [{shuffle: deck}]}
      - choose: {action: play, player: 1, cards: "players[1].hand", as: c, to: pile}
      - choose: {action: gather, player: 0, options: "[1, 2]", then: [{gather: deck}]}
score: "0"
"""


def test_each_step_that_writes_a_zone_copies_a_list_it_shares_with_a_clone(tmp_path):
    """Zones are copied on write (State.zone_for_write): after a clone the two States share their
    zone lists, and each step that changes one (deal, move of given cards from a zone, move of a
    count, shuffle, play, gather) copies it first. Each such step here is the first to write a
    zone after its choice. Walk every line of play, cloning before each action: playing the clone
    never changes its original."""
    path = tmp_path / "every_zone_step.yaml"
    path.write_text(EVERY_ZONE_STEP)
    game = load_game(path)

    def snapshot(state):
        return repr([state.zones, state.vars, state.pvars, state.marks, state.stack, state.pending])

    lines = 0
    todo = [game.new_state(2, seed=1)]
    while todo:
        state = todo.pop()
        if state.is_terminal():
            lines += 1
            continue
        for action in state.legal_actions(state.current_players()[0]):
            before = snapshot(state)
            twin = state.clone()
            twin.apply(action)
            assert snapshot(state) == before, f"playing {action.text} on a clone changed its original"
            todo.append(twin)
    assert lines >= 2 ** 12  # two rounds of six choices, each between two options or more


def test_a_search_rollout_with_the_phase_horizon_ends_when_that_phase_returns():
    """The `phase` horizon of the search bots: a rollout goes on while the phase under `flow`
    runs (clones share that frame until they return to it) and stops when it returns."""
    from interpreter.agents.search import _horizon_mark, _within
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    state = game.new_state(4, seed=5)
    rng = random.Random(5)
    while not (state.vars["round"] == 3 and len(state.stack) == 3):  # the first trick of round 3
        state.apply(rng.choice(state.legal_actions(state.current_players()[0])))
    s = state.clone()
    mark = _horizon_mark(s, "phase")
    leads = 0
    while _within(s, mark):
        s.apply(rng.choice(s.legal_actions(s.current_players()[0])))
        leads += len(s.stack) == 3 and not s.zones["trick"]
    # the rollout went on through the round's next two tricks and stopped when the round returned
    assert leads == 2
    assert s.vars["round"] == 4 and len(s.stack) == 2 and state.vars["round"] == 3
    assert not _within(s, mark)


def test_the_state_layer_imports_nothing_from_the_engine():
    """Layers are one-way: model/ (the State, plain data) never imports engine/ (behaviour); the
    State's rule methods delegate to its Game (the engine's facade), which the engine gives it."""
    import ast as pyast
    for path in sorted((ROOT / "interpreter" / "model").glob("*.py")):
        tree = pyast.parse(path.read_text())
        for node in pyast.walk(tree):
            if isinstance(node, pyast.ImportFrom):
                target = "." * node.level + (node.module or "")
                # within model/, errors, or the standard library: nothing that reaches the engine
                assert node.level == 1 or target == "..errors" or node.level == 0 and \
                    not target.startswith("interpreter"), f"{path.name} imports {target}"
            elif isinstance(node, pyast.Import):
                assert not any("interpreter.engine" in a.name for a in node.names), path.name


# -- start-up: libyaml's parser, stored expression trees, generated code compiled when first called
SPECS_DIR = Path(__file__).resolve().parent.parent / "specs"


@pytest.mark.parametrize("path", sorted(SPECS_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_the_libyaml_reader_gives_the_python_readers_data_and_positions(path):
    from interpreter.spec import yamlpos
    if yamlpos._FastLoader is None:
        pytest.skip("PyYAML without libyaml: the Python reader is the only one")
    text = path.read_text()
    assert yamlpos._read(text, str(path), yamlpos._FastLoader) == yamlpos._read(text, str(path), yamlpos._Loader)


@pytest.mark.parametrize("text", ['name: "open quote\nx: 1\n', "a: 1\na: 2\n", "a: [1, 2\n", "a: *b\n", "a: 2001-01-01\n",
                                  "a:\tb\n  c: d\n", "x: 'é\u0007'\n"])
def test_a_malformed_file_is_reported_by_the_python_reader(text):
    """Errors are reported with the Python reader's marks and messages, whichever reader ran first."""
    from interpreter.errors import SpecError
    from interpreter.spec import yamlpos
    with pytest.raises(SpecError) as fast:
        yamlpos.load_yaml(text, "f.yaml")
    with pytest.raises(SpecError) as slow:
        yamlpos._read(text, "f.yaml", yamlpos._Loader)
    assert str(fast.value) == str(slow.value)


def _tokens(tree):
    from interpreter.expr.syntax import Token
    if isinstance(tree, Token):
        return [(tree.type, str(tree), tree.start_pos, tree.line, tree.column, tree.end_line, tree.end_column, tree.end_pos)]
    return [] if tree is None else [t for c in tree.children for t in _tokens(c)]


EXPRESSIONS = ["1 + 2 * x", "[c for c in hand where c.suit == led_suit]", '"b" if a else null', "f(x)[1:2]",
               "count([k in box + players[0].stack where k.a != 'x'])\n  and not y"]


def test_stored_expression_trees_read_back_as_parsed(tmp_path):
    from interpreter.expr import compiler as C
    for text in EXPRESSIONS:
        tree = C._lark_parse(text)
        back = C._decode_tree(json.loads(json.dumps(C._encode_tree(tree))))
        assert back == tree
        assert _tokens(back) == _tokens(tree)
    for bad in (["R", "x"], ["T", "NAME", "x", 1, 1, 1, 1, 1, "1"], ["Q"], 5):
        with pytest.raises((TypeError, ValueError, IndexError)):
            C._decode_tree(bad)


def test_syntax_trees_are_larks_trees_without_lark():
    """Rulebook's trees hold what Lark's parse gave: the same rules, token types, texts and
    positions; they compare and hash as Lark's do."""
    from interpreter.expr import compiler as C
    from interpreter.expr.syntax import Token, Tree

    def same(ours, theirs):
        if theirs is None:
            return ours is None
        if hasattr(theirs, "children"):
            return type(ours) is Tree and ours.data == str(theirs.data) and len(ours.children) == len(theirs.children) \
                and all(same(a, b) for a, b in zip(ours.children, theirs.children))
        return type(ours) is Token and (ours.type, str(ours), ours.line, ours.column, ours.end_pos) == \
            (theirs.type, str(theirs), theirs.line, theirs.column, theirs.end_pos)
    for text in EXPRESSIONS:
        C._lark_parse(text)  # makes the parser
        assert same(C._lark_parse(text), C._PARSER.parse(text))
        assert hash(C._lark_parse(text)) == hash(C._lark_parse(text))
    assert Token("NAME", "a") != Token("STRING", "a") and Token("NAME", "a") == "a"
    assert Tree("x", [Token("NAME", "a")]) != Tree("y", [Token("NAME", "a")])


def test_a_start_up_from_the_cache_imports_neither_lark_nor_yaml(tmp_path):
    """The first load of a spec parses its YAML and expressions and keeps both in the cache; the
    next reads them back, and plays a game, without importing the YAML or the parser library."""
    probe = ("import sys; from interpreter import load_game; g = load_game('specs/skull_king.yaml'); "
             "s = g.new_state(4, seed=1)\nwhile not s.is_terminal(): s.apply(0, s.current_players()[0])\n"
             "print('lark' in sys.modules, 'yaml' in sys.modules)")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path)}

    def run():
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                              check=True, cwd=ROOT).stdout.split()
    assert run() == ["True", "True"]  # the first parses every expression and the YAML
    assert run() == ["False", "False"]  # the next reads them back
    (stored,) = tmp_path.glob("spec-data-*.json")
    good = json.loads(stored.read_text())
    stored.write_text('{"data": [5], "positions": []}')
    assert run() == ["False", "True"]  # a stored file that is not a spec's data: the YAML is read again
    # positions are decoded when first asked for (a clean load never asks); damaged ones give way
    # to the YAML's, read again then
    where = ("from interpreter import load_game; from interpreter.spec.positions import position_of; "
             "import sys; g = load_game('specs/skull_king.yaml'); before = 'yaml' in sys.modules; "
             "p = position_of(g.positions, ('flow', 0)); print(before, 'yaml' in sys.modules, p.line, p.column)")
    stored.write_text(json.dumps(good))
    fine = subprocess.run([sys.executable, "-c", where], env=env, capture_output=True, text=True, check=True,
                          cwd=ROOT).stdout.split()
    assert fine[:2] == ["False", "False"] and int(fine[2]) > 1
    stored.write_text(json.dumps({**good, "positions": [[["flow", 0], "x", 1, None, 0, 0]]}))
    damaged = subprocess.run([sys.executable, "-c", where], env=env, capture_output=True, text=True, check=True,
                             cwd=ROOT).stdout.split()
    assert damaged == ["False", "True", *fine[2:]]


def test_a_spec_loaded_before_reads_only_its_own_shelf_of_trees(tmp_path):
    """A spec's expressions are kept in a shelf of their own (under the spec text's digest): a
    spec loaded before does not read the shared file of every expression; an edited spec finds
    its unchanged expressions in the shared file (no parser), and gets a shelf of its own."""
    probe = ("import sys; from interpreter import load_game; from interpreter.expr import compiler as C\n"
             "g = load_game(sys.argv[1])\n"
             "print('lark' in sys.modules, C._STORED.raw is not None, len(g.programs))")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path)}
    spec = tmp_path / "sk.yaml"
    spec.write_text((ROOT / "specs" / "skull_king.yaml").read_text())

    def run():
        return subprocess.run([sys.executable, "-c", probe, str(spec)], env=env, capture_output=True, text=True,
                              check=True, cwd=ROOT).stdout.split()
    first = run()
    assert first[:2] == ["True", "True"]  # parsed every expression; stored them in both files
    shelves = sorted(tmp_path.glob("expression-trees-*-*.json"))
    assert len(shelves) == 1
    assert run() == ["False", "False", first[2]]  # its shelf alone: the shared file is not read
    spec.write_text(spec.read_text() + "\n# an edit\n")
    assert run() == ["False", "True", first[2]]  # edited: the shared file has every tree
    assert len(sorted(tmp_path.glob("expression-trees-*-*.json"))) == 2  # and the edit has its shelf
    assert run() == ["False", "False", first[2]]
    for shelf in tmp_path.glob("expression-trees-*-*.json"):
        shelf.write_text("[not a shelf")
    assert run() == ["False", "True", first[2]]  # a broken shelf is ignored


@pytest.mark.parametrize("path", sorted(ROOT.glob("specs/*.yaml")), ids=lambda p: p.stem)
def test_spec_data_read_back_from_the_cache_equals_the_yaml(path, tmp_path, monkeypatch):
    from interpreter import cache
    from interpreter.spec import loader
    from interpreter.spec.yamlpos import load_yaml
    monkeypatch.setattr(cache, "_DIR", [tmp_path])
    text = path.read_text()
    first = loader._read_yaml(text, str(path))
    assert list(tmp_path.glob("spec-data-*.json")), "a spec of plain data is kept"
    again = loader._read_yaml(text, str(path))
    fresh = load_yaml(text, str(path))
    assert first == fresh and again == fresh
    assert [list(map(type, k)) for k in again[1]] == [list(map(type, k)) for k in fresh[1]]


def test_a_spec_read_back_from_the_cache_reports_its_errors_where_they_are(tmp_path, monkeypatch):
    """Positions read from the cache are decoded only when a diagnostic needs them: a broken spec
    loaded again (its data from the cache) reports the same errors at the same lines and columns."""
    from interpreter import SpecError, cache
    monkeypatch.setattr(cache, "_DIR", [tmp_path])
    spec = tmp_path / "broken.yaml"
    spec.write_text((ROOT / "specs" / "oh_hell.yaml").read_text().replace("trick_winner", "trick_winer", 1))  # the define
    reports = []
    for _ in range(2):
        with pytest.raises(SpecError) as err:
            load_game(spec)
        reports.append([(d.line, d.column, d.message) for d in err.value.diagnostics])
    assert list(tmp_path.glob("spec-data-*.json")), "the second load read the spec's data back"
    assert reports[0] == reports[1] and reports[0][0][0] > 1 and "trick_winner" in reports[0][0][2]  # the call


def test_spec_data_that_json_cannot_give_back_is_not_kept(tmp_path, monkeypatch):
    from interpreter import cache
    from interpreter.spec import loader
    monkeypatch.setattr(cache, "_DIR", [tmp_path])
    for text in ("name: x\n1: one\n", "name: x\nm: {3: [4]}\n", "name: x\nv: [1, {2: b}]\n"):
        data, _ = loader._read_yaml(text, "t.yaml")
        assert loader._read_yaml(text, "t.yaml")[0] == data
    assert not list(tmp_path.glob("spec-data-*.json"))
    assert loader._plain_json({"a": [1, 2.5, True, None, "x", {"b": []}]})


def test_the_stored_trees_file_is_written_at_exit_and_a_bad_one_ignored(tmp_path):
    """One process parses and stores; the next reads the tree back (no parse); a corrupt file is
    ignored (the expression is parsed again)."""
    probe = ("from interpreter.expr import compiler as C; t = C.parse('1 + 41 * y'); "
             "print(C._STORED.raw.get('1 + 41 * y') is not None, t.data)")
    env = {**os.environ, "RULEBOOK_CACHE": str(tmp_path)}

    def run():
        return subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                              check=True).stdout.split()
    assert run() == ["False", "binop"]
    assert run() == ["True", "binop"]  # read back from the file the first process wrote
    (stored,) = tmp_path.glob("expression-trees-*.json")
    stored.write_text("{not json")
    assert run() == ["False", "binop"]


def test_the_stored_trees_file_keeps_the_newest(tmp_path, monkeypatch):
    from interpreter.expr import compiler as C
    monkeypatch.setattr(C._StoredTrees, "LIMIT", 3)
    store = C._StoredTrees()
    store.raw, store.path = {}, tmp_path / "trees.json"
    store.path.write_text(json.dumps({"old": C._encode_tree(C._lark_parse("1"))}))
    for text in ("a + 1", "b + 2", "c + 3"):
        store.put(text, C._lark_parse(text))
    store._save()
    assert list(json.loads(store.path.read_text())) == ["a + 1", "b + 2", "c + 3"]


def test_a_generated_function_answers_by_its_closure_until_warm(monkeypatch):
    from interpreter.expr import codegen as G
    monkeypatch.setattr(G, "WARM_CALLS", 3)
    answered = []

    def closure(ctx):
        answered.append(ctx)
        return 7
    fn = G.build(G.constant(7), closure)
    assert [fn(k) for k in range(5)] == [7] * 5
    assert answered == [0, 1]  # the third call compiled the module, which answers from then on
    assert fn.__code__ is not G._first_call.__code__


def test_generated_functions_compile_on_their_first_call():
    from interpreter.expr import codegen as G
    fn = G.build(G.constant(7))
    assert fn.__code__ is G._first_call.__code__
    assert fn(None) == 7
    assert fn.__code__ is not G._first_call.__code__  # its own code now: later calls go straight there
    assert fn(None) == 7
