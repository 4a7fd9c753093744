"""The bytecode machine (interpreter/fast/vm.py): a spec's kernel module translated to bytecode
(interpreter/fast/bytecode.py) and run by one compiled loop plays the compiled kernel's games, and
each construct of the translated Python means what it means in Python."""
import ast

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from interpreter import load_game
from interpreter.fast.bytecode import translate
from interpreter.fast.kernel import kernel_for
from interpreter.fast.lowtypes import NotTyped
from interpreter.fast.vm import call, machine_for
from test_fast_kernel import ROOT, SHORT, TYPED
from test_fast_steps import RUNS as STEP_RUNS


@pytest.mark.parametrize("spec,opts", TYPED, ids=[f"{s.stem}-{o}" for s, o in TYPED])
def test_the_machine_plays_the_kernels_games(spec, opts):
    """Every shipped spec and option set the kernel types: scores, lengths and error codes, seed
    by seed, for the least and the most players."""
    game = load_game(spec, {**SHORT.get(spec.stem, {}), **opts} or None)
    kernel, machine = kernel_for(game), machine_for(game)
    for players in sorted({game.min_players, game.max_players}):
        want = kernel.run(players, 100, 12)
        got = machine.run(players, 100, 12)
        for name, a, b in zip(("scores", "lengths", "errors"), got, want):
            assert np.array_equal(a, b), (players, name, a.tolist(), b.tolist())


# -- the translated Python means Python's -----------------------------------------------------
PROGRAM = '''
NULL = -4611686018427387904
T = (5, -7, 11, -4611686018427387904,)


def walk(a, b):
    total = 0
    for i in range(a, b, -2):
        total += i
        if total > 40:
            break
    k = 0
    while k < 3 and total != 0:
        k += 1
        total = total // 2 if total > 0 else -(-total // 3)
    return total * 100 + k


def pick(a, b, c):
    x = a and b or c
    y = a < b <= c
    z = not (a or b)
    return x * 100 + y * 10 + z


def tables(i):
    return T[i] + T[(i + 1) % 4] * 2


def nested(a, b):
    return pick(a, b, walk(a, b)) + tables(a % 4) - min(a, b) + max(a, b) + abs(a - b)


def arrays(r, k):
    GV[0] += r
    ZN[r] = GV[0] * 2
    Z[r, k] = ZN[r] + len(Z[0])
    return Z[r, k] - GV[0]
'''


def _python(name, args, arrays=None):
    """What Python says (the program run as Python: this test's own text, no spec in it)."""
    space = {"Z": arrays["Z"], "ZN": arrays["ZN"], "GV": arrays["GV"]} if arrays else {}
    exec(compile(PROGRAM, "<program>", "exec"), space)
    return int(space[name](*args))


@pytest.mark.parametrize("name,args", [("walk", (30, 1)), ("walk", (-5, -30)), ("walk", (3, 9)), ("walk", (0, 0)),
                                       ("pick", (0, 5, 7)), ("pick", (3, 0, 7)), ("pick", (3, 5, 5)),
                                       ("pick", (0, 0, 0)), ("tables", (3,)), ("tables", (0,)),
                                       ("nested", (7, -2)), ("nested", (-9, 4))])
def test_statements_and_calls_mean_what_they_mean_in_python(name, args):
    prog = translate(PROGRAM, roots=(name,))
    assert call(prog, name, args, {}) == _python(name, args)


def test_the_layouts_arrays_are_read_and_written_in_place():
    def state():
        return {"Z": np.zeros((3, 8), dtype=np.int64), "ZN": np.zeros(3, dtype=np.int64),
                "GV": np.full(2, 5, dtype=np.int64)}
    got, want = state(), state()
    assert call(translate(PROGRAM, roots=("arrays",)), "arrays", (2, 3), got) == _python("arrays", (2, 3), want)
    for k in got:
        assert np.array_equal(got[k], want[k]), k


def _expressions(depth):
    leaf = st.one_of(st.integers(-50, 50).map(str), st.sampled_from(["a", "b", "c"]))
    if depth == 0:
        return leaf
    sub = _expressions(depth - 1)
    binary = st.tuples(sub, st.sampled_from(["+", "-", "*", "&", "|", "^"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    divide = st.tuples(sub, st.sampled_from(["//", "%"]), sub).map(lambda t: f"({t[0]} {t[1]} (({t[2]}) | 1))")
    shift = st.tuples(sub, st.sampled_from(["<<", ">>"]), sub).map(lambda t: f"({t[0]} {t[1]} (({t[2]}) & 7))")
    compare = st.tuples(sub, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), sub,
                        st.sampled_from(["", " < 3", " != 0"])).map(lambda t: f"({t[0]} {t[1]} {t[2]}{t[3]})")
    logic = st.tuples(sub, st.sampled_from(["and", "or"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
    unary = st.tuples(st.sampled_from(["-", "not "]), sub).map(lambda t: f"({t[0]}{t[1]})")
    choice = st.tuples(sub, sub, sub).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})")
    return st.one_of(leaf, binary, divide, shift, compare, logic, unary, choice)


@settings(max_examples=300, deadline=None)
@given(_expressions(3), st.integers(-60, 60), st.integers(-60, 60), st.integers(-60, 60))
def test_expressions_mean_what_they_mean_in_python(expr, a, b, c):
    """Random expressions (no division by zero, small shifts, no overflow at this depth): the
    machine's value is Python's, as a value and as the test of an ``if``."""
    source = f"def f(a, b, c):\n    return {expr}\n\n\ndef g(a, b, c):\n    if {expr}:\n        return 1\n    return 0\n"
    space = {}
    exec(compile(source, "<expression>", "exec"), space)
    for name in ("f", "g"):
        prog = translate(source, roots=(name,))
        assert call(prog, name, (a, b, c), {}) == int(space[name](a, b, c)), (name, expr)


@pytest.mark.parametrize("source,match", [
    ("def flow(NP):\n    return flow(NP)\n", "calls itself"),
    ("def flow(NP):\n    x = [1, 2]\n    return 0\n", "has no"),
    ("def flow(NP):\n    return zzz\n", "does not know"),
    ("def flow(NP):\n    return sorted(NP)\n", "has no sorted"),
])
def test_what_the_machine_lacks_is_said(source, match):
    """A module outside the translated part of Python raises NotTyped naming it (the spec then
    runs as numba compiles it)."""
    ast.parse(source)
    with pytest.raises(NotTyped, match=match):
        translate(source, roots=("flow",))


# -- the step API on the machine ----------------------------------------------------------------
def _kernels(game):
    """The step module of ``game`` compiled by numba and on the machine (StepKernels of each)."""
    from interpreter.fast.kernel import load_module
    from interpreter.fast.steps import StepKernel
    from interpreter.fast.typepass import lower_steps
    from interpreter.fast.vm import machine_steps
    source, info = lower_steps(game)
    return (StepKernel(game, source, info, load_module(source, "rulebook_steps")[0]),
            StepKernel(game, source, info, machine_steps(source)))


@pytest.mark.parametrize("path,options", STEP_RUNS, ids=[f"{p.split('/')[-1]}-{o}" for p, o in STEP_RUNS])
def test_the_machine_plays_the_step_modules_games(path, options):
    """In lock step with the compiled step module: the seats to choose, their legal actions (seat,
    text, index), the history and the scores, at every position of random games; at a
    simultaneous choice the seats choose in a random order, some before the others are listed."""
    import random
    from interpreter.fast.steps import FastState
    game = load_game(ROOT / path, options=options or None)
    compiled, machine = _kernels(game)
    lo, hi = game.min_players, game.max_players
    for seed in range(3):
        players = lo + seed % (hi - lo + 1)
        a, b = FastState(compiled, players, seed), FastState(machine, players, seed)
        rng = random.Random(seed)
        while not a.is_terminal():
            assert a.current_players() == b.current_players()
            waiting = a.current_players()
            rng.shuffle(waiting)
            for p in waiting[:rng.randint(1, len(waiting))]:
                assert list(a.legal_actions(p)) == list(b.legal_actions(p))
                k = rng.randrange(len(a.legal_actions(p)))
                a.apply(a.legal_actions(p)[k])
                b.apply(b.legal_actions(p)[k])
                assert a.history == b.history
            assert a.scores() == b.scores()  # (mid-game too: the score pauses nothing)
        assert b.is_terminal() and a.scores() == b.scores() and a.winners() == b.winners()


def test_a_specs_first_states_play_on_the_machine_until_the_compile_is_done(tmp_path, monkeypatch):
    """From an empty cache, the step kernel is the machine's while another process compiles the
    step module; once that is done the next state plays in the compiled module, the same game.
    With RULEBOOK_MACHINE=off the kernel is the compiled module's at once."""
    import time
    from interpreter import cache
    from interpreter.fast import behind, steps
    machine_for(load_game(ROOT / "specs" / "oh_hell.yaml")).run(4, 0, 1)  # (the machine ready: once per cache)
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_DIR", [])
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    # (as in a new process: the step module not imported yet, no compile of it under way)
    import hashlib
    import sys
    from interpreter.fast.typepass import lower_steps
    name = "rulebook_steps_" + hashlib.sha256(lower_steps(game)[0].encode()).hexdigest()[:24]
    monkeypatch.delitem(sys.modules, name, raising=False)
    monkeypatch.setattr(behind, "_COMPILING", {})
    first = game.new_state(4, seed=3, fast=True)
    kernel = steps.step_kernel_for(game)
    assert kernel.__class__ is steps.MachineStepKernel and first.kernel is kernel
    deadline = time.monotonic() + 600
    while not kernel.behind.done():
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert kernel.behind.outcome() is not None, kernel.behind.failure
    later = game.new_state(4, seed=3, fast=True)
    assert later.kernel.__class__ is steps.StepKernel and later.kernel.module is not kernel.module
    for state in (first, later):
        while not state.is_terminal():
            state.apply(state.legal_actions()[0])
    assert first.history == later.history and first.scores() == later.scores()
    monkeypatch.setenv("RULEBOOK_MACHINE", "off")
    assert steps.step_kernel_for(load_game(ROOT / "specs" / "skull_king.yaml")).__class__ is steps.StepKernel


def test_a_paused_generator_keeps_its_locals_while_the_score_runs():
    """A game's score read while its generator is paused at a choice leaves the generator's locals
    as they were (and the generator ends after its last yield)."""
    from interpreter.fast.lowtypes import STATE_ARGS
    from interpreter.fast.vm import MachineSteps
    source = ("def steps(RI, NP):\n    a = NP * 10\n    b = a + 1\n    yield a\n    yield b + a\n\n\n"
              "def score(RI, NP, v):\n    x = v + 100\n    y = x * 2\n    return y\n")
    from interpreter.fast.vmops import ARRAYS_2D
    arrays = [np.int64(3) if k == "NP" else np.zeros((2, 2) if k in ARRAYS_2D else 2, dtype=np.uint8 if k == "SB"
                                                     else np.int64) for k in STATE_ARGS]
    module = MachineSteps(source)
    paused = module.steps(*arrays)
    assert next(paused) == 30
    out = np.zeros(2, dtype=np.int64)
    module.scores(*arrays, out)
    assert out.tolist() == [200, 202]
    assert next(paused) == 61
    with pytest.raises(StopIteration):
        next(paused)


SEARCHED = [("oh_hell.yaml", {"num_tricks_fixed": 2}, 4), ("skull_king.yaml", {"loot": True}, 4),
            ("ligretto_classic.yaml", {}, 3)]  # (specs whose search modules the suite compiles anyway)


def _search_pair(game):
    """``(compiled, machine)``: the spec's search module compiled (here, if not cached) and on the machine."""
    from interpreter.fast.kernel import load_module
    from interpreter.fast.search import MachineSearch, SearchKernel, driver_source
    from interpreter.fast.typepass import lower_search
    source, info = lower_search(game)
    source = driver_source(source)
    return (SearchKernel(game, source, info, load_module(source, "rulebook_search")[0]),
            MachineSearch(game, source, info))


@pytest.mark.parametrize("spec,options,players", SEARCHED, ids=[s[0] for s in SEARCHED])
def test_the_machine_searches_as_the_compiled_search(spec, options, players):
    """The in-kernel search on the machine decides as the compiled search module does, ISMCTS and
    greedy, at positions along random games: the same action, the same iterations, rejections,
    hidden cards and tree nodes, and the same margin spread carried to the next decision."""
    import random
    game = load_game(ROOT / "specs" / spec, options)
    compiled, machine = _search_pair(game)
    decided = 0
    for seed in range(3):
        state, rng = game.new_state(players, seed=seed, fast=True), random.Random(seed)
        for step in range(60):
            if state.is_terminal():
                break
            seat = rng.choice(state.current_players())
            if step % 6 == 1:
                records = state.records
                if state._sim is not None:  # (the seats that chose already in a simultaneous choice chose in secret)
                    records = records[:len(records) - len(state._sim["chosen"])]
                records = [(a.player, a.index) for a in records]
                got = []
                for sk in (compiled, machine):
                    scale = [3, 2.5]
                    ismcts = sk.decide(state.seed, players, records, seat, 25, 99 + step, scale=scale)
                    ismcts_last = dict(sk.last)
                    greedy = sk.decide(state.seed, players, records, seat, 6, 5, greedy=True)
                    got.append((ismcts, ismcts_last, scale, greedy, dict(sk.last)))
                assert got[0] == got[1], (seed, step)
                decided += got[0][0] is not None
            state.apply(rng.choice(state.legal_actions(seat)), seat)
    assert decided >= 6  # (searches that found an action, compared)


def test_a_specs_first_search_runs_on_the_machine_until_the_compile_is_done(tmp_path, monkeypatch):
    """From an empty cache the search kernel is the machine's while another process compiles the
    spec's search module; once that is done it is the compiled one, which decides the same. With
    RULEBOOK_MACHINE=off the search is compiled at once."""
    import sys
    import time
    from interpreter import cache
    from interpreter.fast import behind, search
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    _search_pair(load_game(ROOT / "specs" / "witches_of_blackmore.yaml"))  # (the machine and its search: once per cache)
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_DIR", [])
    # (as in a new process: the search module not imported yet, no compile of it under way)
    import hashlib
    from interpreter.fast.typepass import lower_search
    source = search.driver_source(lower_search(game)[0])
    monkeypatch.delitem(sys.modules, "rulebook_search_" + hashlib.sha256(source.encode()).hexdigest()[:24], raising=False)
    monkeypatch.setattr(behind, "_COMPILING", {})
    first = search.search_kernel_for(game)
    assert first.__class__ is search.MachineSearch and first.behind is not None
    before = first.decide(3, 4, [], 0, 40, 11)
    deadline = time.monotonic() + 600
    while not first.behind.done():
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert first.behind.outcome() is not None, first.behind.failure
    later = search.search_kernel_for(game)
    assert later.__class__ is search.SearchKernel and later.module is not first.module
    assert later.decide(3, 4, [], 0, 40, 11) == before and before is not None
    monkeypatch.setenv("RULEBOOK_MACHINE", "off")
    assert search.search_kernel_for(load_game(ROOT / "specs" / "hearts.yaml")).__class__ is search.SearchKernel
