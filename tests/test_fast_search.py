"""The search bots in the kernel (interpreter.fast.search): what a seat may know, determinism, the
ways in (FastState, State, simulate --fast) and strength against the State API's search."""
from __future__ import annotations

import random
import statistics
from pathlib import Path

import pytest

pytest.importorskip("numba")

from interpreter import load_game  # noqa: E402
from interpreter.agents.basic import RandomAgent, play_game  # noqa: E402
from interpreter.agents.search import GreedyAgent, ISMCTSAgent  # noqa: E402
from interpreter.fast.search import search_kernel_for  # noqa: E402
from interpreter.fast.typepass import STATE_ARGS, check_source  # noqa: E402
from interpreter.sim.simulate import simulate  # noqa: E402

SPECS = Path(__file__).resolve().parent.parent / "specs"


@pytest.fixture(scope="module")
def oh_hell():
    return load_game(SPECS / "oh_hell.yaml", {"num_tricks_fixed": 2})


def _rows(fs, zone):
    info = fs.kernel.info
    z, zn = fs.arrays[STATE_ARGS.index("Z")], fs.arrays[STATE_ARGS.index("ZN")]
    base = info["zone_row"][zone]
    n = fs.num_players if info["per_player"][zone] else 1
    return [sorted(z[base + k, :zn[base + k]].tolist()) for k in range(n)]


def test_same_information_same_decision(oh_hell):
    """Two deals where seat 0 holds the same hand, sees the same trump card and the same dealer
    (found among seeds: the other hands differ) give, after the same bids, the same search: the
    same action and the same visit counts at the root for a fixed bot seed. The search reads no
    card hidden from its seat."""
    sk = search_kernel_for(oh_hell)
    seen = {}
    pairs = []
    for seed in range(4000):
        fs = oh_hell.new_state(4, seed=seed, fast=True)
        if fs.current_players() != [0]:  # dealer 3: seat 0 bids first and leads
            continue
        key = (tuple(_rows(fs, "hand")[0]), tuple(_rows(fs, "trump_card")[0]))
        if key in seen:
            pairs.append((seen[key], seed))
        else:
            seen[key] = seed
        if len(pairs) == 3:
            break
    assert len(pairs) == 3
    for a, b in pairs:
        states = [oh_hell.new_state(4, seed=s, fast=True) for s in (a, b)]
        assert _rows(states[0], "hand")[1:] != _rows(states[1], "hand")[1:]  # other hands differ
        for st in states:
            for p, text in ((0, "bid 1"), (1, "bid 0"), (2, "bid 1"), (3, "bid 1")):
                st.apply(text, p)
            assert st.current_players() == [0] and len(st.legal_actions(0)) == 2
        got = []
        for st in states:
            recs = [(x.player, x.index) for x in st.records]
            choice = sk.decide(st.seed, 4, recs, 0, 300, 12345)
            ti = sk._work[4]["TI"]
            got.append((choice, sorted(ti[3, 1:sk.last["nodes"]].tolist()), sk.last["iterations"]))
        assert got[0] == got[1]
        assert got[0][2] == 300


def test_kernel_search_is_deterministic_and_the_same_on_a_state(oh_hell):
    """A seeded kernel ISMCTS plays the same game twice, and the same on a State (searched through
    a kernel copy of its actions) as on a FastState; its decisions ran in the kernel."""
    finals = []
    for fast in (True, True, False):
        bot = ISMCTSAgent(iterations=60, seed=4)
        st = play_game(oh_hell, 4, 17, [bot, RandomAgent(1), RandomAgent(2), RandomAgent(3)], fast=fast)
        finals.append((st.history, st.scores()))
        assert bot.kernel_decisions > 0 and bot.python_decisions == 0
    assert finals[0] == finals[1] == finals[2]


def test_greedy_in_the_kernel(oh_hell):
    bot = GreedyAgent(iterations=40, seed=1)
    st = play_game(oh_hell, 4, 3, [RandomAgent(0), bot, RandomAgent(2), RandomAgent(3)], fast=True)
    assert st.is_terminal() and bot.kernel_decisions > 0 and bot.python_decisions == 0


def test_play_makes_the_search_ready_before_the_first_decision(oh_hell):
    """`rulebook play` readies the kernel's search up front (under a status line), for the bots that
    search there: none for random bots or a time budget; after it, a decision needs no compile."""
    from contextlib import contextmanager

    from interpreter.agents.search import ready_kernel_search
    held = []

    @contextmanager
    def compiling(flag):
        held.append(flag)
        yield

    assert ready_kernel_search([RandomAgent(0)], oh_hell, 4, compiling) is None
    assert ready_kernel_search([ISMCTSAgent(seconds=0.01, seed=1)], oh_hell, 4, compiling) is None
    assert held == []
    bot = ISMCTSAgent(iterations=20, seed=1)
    cpu, wall, compiled = ready_kernel_search([RandomAgent(0), bot], oh_hell, 4, compiling)
    assert held == [True] and cpu >= 0 and wall >= 0 and isinstance(compiled, bool)
    st = play_game(oh_hell, 4, 3, [RandomAgent(0), bot, RandomAgent(2), RandomAgent(3)])
    assert st.is_terminal() and bot.kernel_decisions > 0


def test_search_module_is_from_fixed_templates(oh_hell):
    sk = search_kernel_for(oh_hell)
    check_source(sk.source, __import__("interpreter.fast.search", fromlist=["_NAMES"])._NAMES,
                 __import__("interpreter.fast.search", fromlist=["_IMPORTS"])._IMPORTS, (__import__("ast").Break, __import__("ast").Continue,
                                                __import__("ast").BitAnd, __import__("ast").RShift))
    with pytest.raises(ValueError):  # the guard still refuses what the templates do not write
        check_source(sk.source + "\nimport os\n", set(), ("interpreter.fast.search",))


def test_simulate_fast_with_a_search_bot(oh_hell):
    """simulate --fast runs search bots in the kernel (no fallback); a time budget is refused with
    the reason (the kernel searches a number of iterations)."""
    res = simulate(oh_hell, 6, 4, seed=2, fast=True, bots={1: "ismcts:30"})
    assert res.fast and res.fast_note == ""
    assert sum(s["mean"] for s in res.summary()["seats"]) > 0
    res = simulate(oh_hell, 2, 4, seed=2, fast=True, bots={1: "ismcts:0.01s"})
    assert not res.fast and "number of iterations" in res.fast_note


def test_kernel_search_is_not_weaker_than_the_state_api_search(oh_hell):
    """Paired deals (each played twice, the two searches swapping seats 0 and 1; seats 2, 3
    random), equal iterations: the kernel's ISMCTS is not clearly weaker than the State API's (a
    random bot in its place is: the check can fail). A small sample, so a loose bound:
    tools/bench_search.py runs the comparison with its 95% interval."""
    import sys
    sys.path.insert(0, str(SPECS.parent / "tools"))
    from bench_search import paired
    diffs = paired(oh_hell, 30, 30, first_seed=100)
    baseline = paired(oh_hell, 30, 30, first_seed=100, mine=lambda seed: RandomAgent(seed))
    assert statistics.mean(baseline) < -1.5, baseline
    assert statistics.mean(diffs) >= -1.0, diffs


def test_search_bots_in_workers_play_the_games_of_one_process(oh_hell):
    """simulate --fast -j 2 with a search bot: each worker searches in the kernel, game by game the
    same as one process."""
    def games(**kw):
        out = []
        res = simulate(oh_hell, 6, 4, seed=3, fast=True, bots={0: "ismcts:20"},
                       on_game=lambda i, *rest: out.append((i, rest)), **kw)
        assert res.fast
        return out
    assert games() == games(jobs=2)


def test_search_in_the_kernel_with_zones_of_sets():
    """A spec with zones of sets (a block of rows per seat): the search sees the public sets of
    every seat, its own hand only, and its bots decide in the kernel."""
    game = load_game(SPECS.parent / "tests" / "specs" / "set_zones.yaml")
    sk = search_kernel_for(game)
    info = sk.info
    span = info["zone_span"]["melds"]
    assert span == len(game.cards) and info["zone_span"]["hand"] == 1
    vis = sk.visible_rows(3, 1)
    melds, hand, deck = info["zone_row"]["melds"], info["zone_row"]["hand"], info["zone_row"]["deck"]
    assert vis[melds:melds + 3 * span].all()
    assert [bool(vis[hand + k]) for k in range(3)] == [False, True, False] and not vis[deck]
    for bot in (GreedyAgent(iterations=20, seed=1), ISMCTSAgent(iterations=20, seed=1)):
        st = play_game(game, 3, 2, [RandomAgent(0), bot, RandomAgent(2)], fast=True)
        assert st.is_terminal() and bot.kernel_decisions > 0 and bot.python_decisions == 0


@pytest.mark.parametrize("agent", [ISMCTSAgent, GreedyAgent])
def test_search_over_a_choice_of_1250_options_in_the_kernel(agent):
    """Skull Queen's placement (product(): 1,250 options a seat, four seats at once) is searched
    in the kernel: the tree's and greedy's per-option arrays are as wide as the kernel's rows (they
    held 512, and a wider choice wrote past them: the process died); every decision of a 4-player
    game runs there."""
    game = load_game(SPECS / "skull_queen.yaml")
    bot = agent(iterations=20, seed=3)
    st = play_game(game, 4, 5, [bot, RandomAgent(1), RandomAgent(2), RandomAgent(3)], fast=True)
    assert st.is_terminal() and bot.kernel_decisions > 0 and bot.python_decisions == 0
    assert any(text.startswith("place ") for seat, text in st.history if seat == 0)


@pytest.mark.parametrize("spec,options,seed", [("euchre.yaml", {"stick_the_dealer": False}, 7),
                                               ("skull_king.yaml", {"loot": True}, 5)])
def test_kernel_search_on_euchre_and_skull_kings_loot(spec, options, seed):
    """The search runs in the kernel on seats sitting out, for ... until, a game ended by `end`
    (everyone passes: no stuck dealer), derived attributes and a variable holding a list of
    pairs: a seeded ISMCTS and greedy seat decide in the kernel only, the same on a FastState as on
    a State. (Euchre's deal: one where both search seats have a choice before everyone passes; seed 5
    gave the greedy seat none once the search forced recorded cards by name.)"""
    game = load_game(SPECS / spec, options)
    finals = []
    for fast in (True, False):
        bots = [ISMCTSAgent(iterations=30, seed=4), RandomAgent(1), GreedyAgent(iterations=10, seed=2), RandomAgent(3)]
        st = play_game(game, 4, seed, bots, fast=fast)
        finals.append((st.history, st.scores()))
        for bot in (bots[0], bots[2]):
            assert bot.kernel_decisions > 0 and bot.python_decisions == 0
    assert finals[0] == finals[1]


def test_search_in_a_real_time_block_runs_in_the_kernel():
    """A greedy and an ISMCTS seat in classic Ligretto (real time; the centre piles a list variable
    kept in rows of Z; each seat's cards shuffled apart) decide in the kernel, every decision, with
    every simulation accepted. Before interpreter.fast.searchrt the search answered the real-time
    block as a simultaneous choice and read the list's rows as cards: the process died (SIGSEGV) at
    the second decision. Run apart: a crash would end pytest."""
    import subprocess
    import sys
    code = ("import random\n"
            "from interpreter import load_game\n"
            "from interpreter.fast.search import search_kernel_for\n"
            f"g = load_game({str(SPECS / 'ligretto_classic.yaml')!r})\n"
            "sk = search_kernel_for(g)\n"
            "fs = g.new_state(3, seed=5, fast=True)\n"
            "rng = random.Random(1)\n"
            "out = []\n"
            "while len(out) < 12 and not fs.is_terminal():\n"
            "    p = rng.choice(fs.current_players())\n"
            "    legal = list(fs.legal_actions(p))\n"
            "    if len(fs.records) % 40 == 0 and len(legal) > 1:\n"
            "        recs = [(a.player, a.index) for a in fs.records]\n"
            "        for greedy in (True, False):\n"
            "            got = sk.decide(fs.seed, 3, recs, p, 8, 7, greedy=greedy)\n"
            "            ok = got is not None and (0 <= got[1] < len(legal) if greedy else got[1] in range(3))\n"
            "            out.append((ok, sk.last['iterations'], sk.last['rejected']))\n"
            "    fs.apply(rng.choice(legal), p)\n"
            "print(out)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900,
                          cwd=SPECS.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    got = __import__("ast").literal_eval(done.stdout.strip())
    assert len(got) == 12 and all(x == (True, 8, 0) for x in got), got


def test_card_rows_are_the_zones_rows():
    """The search deals hidden cards from the zones' rows of Z only (a list variable's come after)."""
    from interpreter.fast.searchtables import card_rows
    classic = search_kernel_for(load_game(SPECS / "ligretto_classic.yaml"))
    assert classic.info["lists"] and card_rows(classic.game, classic.info) < classic.info["rows"]
    oh = search_kernel_for(load_game(SPECS / "oh_hell.yaml", {"num_tricks_fixed": 2}))
    assert not oh.info["lists"] and card_rows(oh.game, oh.info) == oh.info["rows"]


def test_recorded_cards_are_forced_by_name():
    """Identical cards are one option (the first copy in card-table order), so in a sampled world the
    option of a recorded ``pick mary`` may hold another copy: the search forces a recorded card by its
    name (``same_card``), a value that is not a card exactly; a set choice's rejected sample teaches
    no exclusion (``learns``: holding more cards adds picks there). Before, most of Queen of Scots'
    samples were rejected after a few picks and its decisions fell back to the State API."""
    from interpreter.fast.multichoice import CONFIRM, PICK
    from interpreter.fast.searchnames import card_classes, learns, same_card
    game = load_game(SPECS / "queen_of_scots.yaml")
    cls = card_classes(game)
    name = game.cards[0].name
    copies = [i for i, c in enumerate(game.cards) if c.name == name]
    other = next(i for i, c in enumerate(game.cards) if c.name != name)
    assert len(copies) > 1 and {int(cls[i]) for i in copies} == {copies[0]} and cls[other] == other
    assert same_card(cls, copies[-1], copies[0], 1) and not same_card(cls, copies[-1], copies[0], 0)
    assert not same_card(cls, other, copies[0], 1) and not same_card(cls, -1, copies[0], 1)
    assert same_card(cls, -3, -3, 0)
    assert learns(1, 1, PICK) == 0 and learns(1, 1, CONFIRM) == 0 and learns(1, 0, PICK) == 1 and learns(1, 1, 7) == 1


def test_cards_seen_face_up_are_pinned_until_a_hidden_shuffle():
    """The record pass notes every card in a row the seat sees (``mark_seen``), so a card seen face up
    and later hidden (a pile taken into a hand) keeps its place in every sampled world; a shuffle of
    a hidden row forgets the cards in it; the game's first yield clears the notes."""
    import numpy as np
    from interpreter.fast.lowtypes import SEARCH_SHUFFLE
    from interpreter.fast.search import CUR, EV, MODE, SI_SIZE
    from interpreter.fast.searchdeal import mark_seen
    Z = np.array([[3, 4, 0], [1, 2, 0]], dtype=np.int64)
    ZN = np.array([2, 2], dtype=np.int64)
    vis = np.array([True, False])
    saw = np.ones(5, dtype=np.bool_)
    si = np.zeros(SI_SIZE, dtype=np.int64)
    mark_seen(0, Z, ZN, si, vis, saw)  # the first yield: cleared, then row 0 seen
    assert saw.tolist() == [False, False, False, True, True]
    si[CUR], si[EV] = 3, 1
    Z[0, 0], ZN[0], Z[1, 0] = 4, 1, 3  # card 3 went face down into the hidden row 1 (its place is known)
    mark_seen(0, Z, ZN, si, vis, saw)
    assert saw[3]
    mark_seen(SEARCH_SHUFFLE | (1 << 16), Z, ZN, si, vis, saw)  # row 1 shuffled: 3 is lost again
    assert saw.tolist() == [False, False, False, False, True]
    si[MODE] = 1
    saw[:] = False
    mark_seen(0, Z, ZN, si, vis, saw)  # (outside the record pass: nothing)
    assert not saw.any()


def test_a_search_compile_stopped_after_its_generator_does_not_break_the_next(tmp_path):
    """A search module's compile stopped part way (a run that ended first stops the compile behind it)
    leaves no generator cached without its driver: numba cannot compile the driver around a generator
    it loaded from its cache (a KeyError in a later run, a bug found in this session's review). Here
    one process compiles the module's generator alone and ends; a new process then searches."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, RULEBOOK_CACHE=str(tmp_path), RULEBOOK_MACHINE="off", PYTHONPATH=str(SPECS.parent))
    head = ("from interpreter import load_game\n"
            f"g = load_game({str(SPECS / 'witches_of_blackmore.yaml')!r})\n")
    generator_alone = head + (
        "from interpreter.fast.kernel import load_module, state_arrays\n"
        "from interpreter.fast.search import driver_source\n"
        "from interpreter.fast.typepass import STATE_ARGS, lower_search\n"
        "source, info = lower_search(g)\n"
        "module, _ = load_module(driver_source(source), 'rulebook_search')\n"
        "st = state_arrays(g, info, g.min_players, 1)\n"
        "next(module.steps(*[st[k] for k in STATE_ARGS]))\n")
    search = head + ("from interpreter.fast.search import search_kernel_for\n"
                     "print(search_kernel_for(g).decide(0, g.min_players, [], 0, 4, 1))\n")
    for script in (generator_alone, search):
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().startswith("(")  # a decision: (value, mode)
