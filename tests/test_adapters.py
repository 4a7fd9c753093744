"""Fixed action ids, masks and tensors (numpy) for any spec, and the PettingZoo and OpenSpiel
adapters. The adapters' packages are in the test extra: CI runs these tests (a missing package is
an error there, a skip only outside CI)."""
from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path

import numpy as np
import pytest

from interpreter import load_game
from interpreter.adapters.spaces import Spaces
from interpreter.agents.determinize import Determiniser
from interpreter.errors import RulebookError

SPECS = Path(__file__).resolve().parents[1] / "specs"


def _need(module):
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed (pip install -e '.[research]')")


@pytest.fixture(scope="module")
def witches():
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    return game, Spaces(game, 3)


def test_action_ids_cover_every_legal_action_and_tensors_have_their_shapes(witches):
    game, sp = witches
    assert sp.num_actions == len(sp.actions) == len(set(sp.actions))
    assert sp.observation_size == sum(size for _, size in sp.sections)
    rng = random.Random(5)
    for seed in (11, 12):  # games not used for discovery
        state = game.new_state(3, seed)
        while not state.is_terminal():
            p = state.current_players()[0]
            legal = state.legal_actions(p)
            mask = sp.mask(state, p)
            assert mask.dtype == np.int8 and mask.shape == (sp.num_actions,)
            assert mask.sum() == len(legal)
            assert [sp.action_text(i) for i in sp.legal_ids(state, p)] == [a.text for a in legal]
            obs = sp.observation(state, p)
            info = sp.information_state(state, p)
            assert obs.dtype == np.float32 and obs.shape == (sp.observation_size,)
            assert info.shape == (sp.information_state_size,) and np.array_equal(info[:sp.observation_size], obs)
            state.apply(rng.choice(legal), p)
    with pytest.raises(RulebookError, match="no id"):
        sp.action_id("fly away")
    with pytest.raises(RulebookError, match="out of range"):
        sp.action_text(sp.num_actions)


def test_value_options_are_derived_from_the_spec_and_card_options_enumerated():
    """Bids 0..the most cards a round can deal, every card (and mode), the optional verbs: all
    from the spec, none from played games."""
    game = load_game(SPECS / "skull_king.yaml")
    sp = Spaces(game, 4)
    bids = [t for t in sp.actions if t.startswith("bid ")]
    assert bids[:11] == [f"bid {k}" for k in range(11)] and len(bids) == int(bids[-1].split()[1]) + 1
    assert "play tigress as pirate" in sp.ids and "play tigress as escape" in sp.ids
    assert "play tigress" not in sp.ids and "play black-14" in sp.ids
    oh = load_game(SPECS / "oh_hell.yaml")  # 3 players: up to 17 tricks, so bids 0..17
    assert [t for t in Spaces(oh, 3).actions if t.startswith("bid ")] == [f"bid {k}" for k in range(18)]


def test_options_built_from_melds_are_bounded():
    """Gin Rummy's meld choices (`meld AS to 3S`, `meld 7 set without S`) are read from melds_in:
    each word is a card name, a rank, a suit or a fixed word, so every text has an id (they were
    'not bounded' before the abstract interpreter knew the meld built-ins), and few of them."""
    game = load_game(SPECS / "gin_rummy.yaml", {"preset": "openspiel"})
    sp = Spaces(game, 2)
    assert "meld AS to 3S" in sp.ids and "meld 7 set without S" in sp.ids and "meld 7 set of four" in sp.ids
    assert "lay-off 4S" in sp.ids and "knock" in sp.ids and len(sp.actions) < 10_000


def test_product_block_ids_are_exact_both_ways():
    """A board placement (pair x square x direction x pawn) is a product block: ids and texts
    convert both ways without listing the block; every legal placement has its id."""
    game = load_game(SPECS / "ligretto.yaml")
    sp = Spaces(game, 2)
    block = max(sp.actions.blocks, key=lambda b: b.size)
    assert block.size > 100_000 and sp.num_actions == len(sp.actions)
    for i in (block.offset, block.offset + 12_345, block.offset + block.size - 1):
        assert sp.action_id(sp.action_text(i)) == i
    state = game.new_state(2, 1)
    rng = random.Random(2)
    placements = 0
    for _ in range(150):
        p = state.current_players()[0]
        ids = sp.legal_ids(state, p)
        assert [sp.action_text(i) for i in ids] == [a.text for a in state.legal_actions(p)]
        placements += sum(sp.action_text(i).startswith("place ") for i in ids)
        state.apply(sp.action_for(state, p, rng.choice(ids)), p)
    assert placements > 0


def test_information_state_counts_a_product_block_action_by_its_words():
    """A board placement counts once in each of its words' slots of the history (not in one slot
    of its 3.2 million combinations): the information state stays small, and each word position
    of a block sums to the number of block actions the seat took."""
    game = load_game(SPECS / "ligretto.yaml", {"rounds": 1})
    sp = Spaces(game, 2)
    listed = len(sp.actions.texts)
    assert sp.history_size == listed + sum(sum(b.sizes) for b in sp.actions.blocks) < sp.num_actions
    assert sp.information_state_size == sp.observation_size + 2 * sp.history_size
    state, rng, taken = game.new_state(2, 3), random.Random(0), []
    while len(taken) < 2:
        p = rng.choice(state.current_players())
        action = rng.choice(state.legal_actions(p))
        i = sp.action_id(action.text)
        if i >= listed:
            taken.append((p, i))
        state.apply(action, p)
    p, i = taken[0]
    block = next(b for b in sp.actions.blocks if b.offset <= i < b.offset + b.size)
    words = sp.action_text(i).split(" ")[1:]
    slots = sp._history_slots(i)
    bases = sp._word_bases[sp.actions.blocks.index(block)]
    assert [w[s - b] for w, s, b in zip(block.words, slots, bases)] == words
    info = sp.information_state(state, p)
    mine = info[sp.observation_size:sp.observation_size + sp.history_size]  # relative seat 0: p itself
    assert all(mine[s] >= 1 for s in slots)
    # taken holds every block action played so far: each word position counts each of p's once
    own_block = sum(1 for q, j in taken if q == p and block.offset <= j < block.offset + block.size)
    bases = sp._word_bases[sp.actions.blocks.index(block)]
    for lo, size in zip(bases, block.sizes):
        assert mine[lo:lo + size].sum() == own_block >= 1


def test_action_table_is_the_same_in_other_processes_and_seeds_and_needs_no_games(monkeypatch):
    """Every shipped spec at its minimum and maximum player counts: the action-id table's digest
    is the same in two other processes (other string hash seeds, so no set order leaks into the
    ids), for another seed and number of discovery games, and no game is played to build it."""
    import subprocess
    code = ("import sys; from pathlib import Path; from interpreter import load_game; "
            "from interpreter.adapters.spaces import Spaces\n"
            "for f in sorted(Path('specs').glob('*.yaml')):\n"
            "    g = load_game(f)\n"
            "    for n in sorted({g.min_players, g.max_players}):\n"
            "        print(f.stem, n, Spaces(g, n).action_table_digest)\n")
    others = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             cwd=SPECS.parent, env={**os.environ, "PYTHONHASHSEED": seed}).stdout.split("\n")
              for seed in ("1", "2")]
    here = []
    for f, n in _player_counts():
        game = load_game(f)
        monkeypatch.setattr(type(game), "new_state", lambda *a, **k: pytest.fail("a game was played"))
        digest = Spaces(game, n).action_table_digest
        assert Spaces(game, n, seed=7, discovery=0).action_table_digest == digest
        here.append(f"{f.stem} {n} {digest}")
        monkeypatch.undo()
    assert len(here) > 20 and others[0][:-1] == others[1][:-1] == here


def test_openspiel_registration_plays_no_game_and_bounds_the_length_by_max_actions(monkeypatch):
    """Registering a spec builds its spaces only (the board Ligretto played 10 random games, ~5 s,
    to guess max_game_length); the bound is the engine's own max_actions, and a random game of the
    registered spec stays within it."""
    pyspiel = _need("pyspiel")
    from interpreter.engine.game import Game
    from interpreter.adapters.openspiel_game import register
    real = Game.new_state
    monkeypatch.setattr(Game, "new_state", lambda *a, **k: pytest.fail("a game was played"))
    name = register(SPECS / "ligretto.yaml", players=3)
    monkeypatch.setattr(Game, "new_state", real)
    game = pyspiel.load_game(name)
    assert game.max_game_length() == load_game(SPECS / "ligretto.yaml").max_actions == 1_000_000
    short = pyspiel.load_game(register(SPECS / "witches_of_blackmore.yaml", players=2, discovery=2))
    assert 10 < short.max_game_length() < 1000  # discovery > 0: twice the longest of 2 games, plus 10


def test_a_choice_the_spec_cannot_bound_is_named_with_its_line(tmp_path):
    spec = tmp_path / "unbounded.yaml"
    spec.write_text("""name: Unbounded
players: {min: 2, max: 2}
cards:
  - each: {rank: "range(1, 5)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
variables: {counter: 0}
flow:
  - while: "counter < 5"
    max: 10
    do:
      - choose:
          action: guess
          player: 0
          options: "range(0, counter + 1)"
          as: g
          then:
            - add: {counter: "g + 1"}
""")
    game = load_game(spec)
    with pytest.raises(RulebookError, match=r"unbounded\.yaml:13: the options of the choice 'guess' cannot be bounded"):
        Spaces(game, 2)


@pytest.mark.parametrize("encoding", ["auto", "picks"])
def test_set_choices_in_both_encodings(encoding):
    """President's exchange (2 cards) and plays (1-4 cards of a rank, or as many as the play to
    beat, which the spec bounds by the deck only): ``auto`` lists every exchange as one id and
    builds plays card by card (``pick NAME`` ids then ``done``); ``picks`` builds both so. A
    whole game plays through the ids."""
    game = load_game(SPECS / "president.yaml", {"rounds": 2})
    sp = Spaces(game, 4, set_encoding=encoding)
    assert {"pick 3c", "done", "undo"} <= set(sp.actions.texts) and "play 3c 3d" not in sp.ids
    assert ("give 3c 3d" in sp.ids) == (encoding == "auto")
    if encoding == "auto":
        with pytest.raises(RulebookError, match=r"president\.yaml:\d+: the set choice 'play' has more than"):
            Spaces(game, 4, set_encoding="exact")
    state = game.new_state(4, 5)
    rng = random.Random(4)
    seen = set()
    while not state.is_terminal():
        p = state.current_players()[0]
        ids = sp.legal_ids(state, p)
        assert ids and len(set(ids)) == len(ids)
        i = rng.choice(ids)
        text = sp.action_for(state, p, i)
        seen.add(sp.action_text(i).split()[0])
        state.apply(text, p)
    assert {"pick", "done"} <= seen and ("give" in seen) == (encoding == "auto") and state.winners()


def test_game_state_and_environment_pickle():
    import pickle
    game = load_game(SPECS / "hearts.yaml")
    again = pickle.loads(pickle.dumps(game))
    assert again.fingerprint == game.fingerprint and again.options == game.options
    state = game.new_state(4, 3)
    rng = random.Random(1)
    for _ in range(9):
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)), p)
    copy = pickle.loads(pickle.dumps(state))
    assert copy.to_json() == state.to_json() and copy.legal_actions(p) == state.legal_actions(p)
    _need("pettingzoo")
    from interpreter.adapters.pettingzoo_env import env as make_env
    e = make_env(SPECS / "hearts.yaml", 4)
    e.reset(seed=2)
    for _ in range(5):
        obs, *_ = e.last()
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    e2 = pickle.loads(pickle.dumps(e))
    assert e2.agent_selection == e.agent_selection
    assert np.array_equal(e2.last()[0]["action_mask"], e.last()[0]["action_mask"])
    # the OpenSpiel game and state pickle too, and load in another process (which registers the game)
    pyspiel = _need("pyspiel")
    import subprocess
    from interpreter.adapters.openspiel_game import register
    os_game = pyspiel.load_game(register(SPECS / "hearts.yaml", 4))
    os_state = os_game.new_initial_state()
    for _ in range(12):
        acts = [a for a, _ in os_state.chance_outcomes()] if os_state.is_chance_node() else os_state.legal_actions()
        os_state.apply_action(rng.choice(acts))
    game2, state2 = pickle.loads(pickle.dumps((os_game, os_state)))
    assert game2.get_type().short_name == os_game.get_type().short_name
    assert str(state2) == str(os_state) and state2.history() == os_state.history()
    assert state2.legal_actions() == os_state.legal_actions()
    code = ("import pickle, sys; g, s = pickle.loads(sys.stdin.buffer.read()); "
            "print(g.get_type().short_name, s.history(), s.legal_actions())")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps((os_game, os_state)), capture_output=True,
                         check=True, cwd=SPECS.parent).stdout.decode().strip()
    assert out == f"{os_game.get_type().short_name} {os_state.history()} {os_state.legal_actions()}"


def test_tensors_hide_what_the_seat_may_not_see(witches):
    """The observation and information-state tensors of a seat are the same when the cards it
    cannot see are dealt differently (and they change when its own hand does)."""
    game, sp = witches
    state = game.new_state(3, 4)
    rng = random.Random(1)
    for _ in range(7):
        p = state.current_players()[0]
        state.apply(rng.choice(state.legal_actions(p)), p)
    seat = state.current_players()[0]
    other = Determiniser(game, seat).sample(state, random.Random(3))
    assert other.zones != state.zones
    assert np.array_equal(sp.observation(state, seat), sp.observation(other, seat))
    assert np.array_equal(sp.information_state(state, seat), sp.information_state(other, seat))
    watcher = (seat + 1) % 3
    assert not np.array_equal(sp.observation(state, watcher), sp.observation(other, watcher))


def _player_counts():
    for f in sorted(SPECS.glob("*.yaml")):
        game = load_game(f)
        for n in sorted({game.min_players, game.max_players}):
            yield f, n


@pytest.mark.parametrize("spec,n", list(_player_counts()), ids=lambda x: getattr(x, "stem", x))
def test_pettingzoo_api_test_on_every_spec(spec, n):
    _need("pettingzoo")
    from pettingzoo.test import api_test
    from interpreter.adapters.pettingzoo_env import RulebookAECEnv
    api_test(RulebookAECEnv(load_game(spec), n), num_cycles=3)


def test_pettingzoo_seed_and_max_cycles_tests():
    _need("pettingzoo")
    from pettingzoo.test import api_test, max_cycles_test, seed_test
    from interpreter.adapters.pettingzoo_env import RulebookAECEnv, module_for
    game = load_game(SPECS / "witches_of_blackmore.yaml")
    env = RulebookAECEnv(game, 3)
    api_test(env, num_cycles=100)
    seed_test(lambda: RulebookAECEnv(game, 3), num_cycles=50)
    seed_test(lambda: RulebookAECEnv(load_game(SPECS / "president.yaml"), 4), num_cycles=20)
    max_cycles_test(module_for(SPECS / "go_fish.yaml", 3, illegal="random", schedule="cycles"))
    sk = RulebookAECEnv(load_game(SPECS / "skull_king.yaml"), 4, reward="score")
    api_test(sk, num_cycles=30)
    with pytest.raises(RulebookError, match="not legal"):
        sk.reset(seed=1)
        sk.step(next(i for i in range(sk.spaces.num_actions) if i not in sk.legal_ids(0)))
    for not_an_id in ("play x", 0.5):  # a text or a float is refused with the reason, nothing moves
        sk.reset(seed=1)
        with pytest.raises(RulebookError, match="an action is an integer id"):
            sk.step(not_an_id)
        assert sk.state.history == []
    # a whole game by the mask, with rewards at the end
    env.reset(seed=3)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert abs(sum(total.values()) - 1.0) < 1e-9


def test_openspiel_random_simulation_and_mcts():
    pyspiel = _need("pyspiel")
    from interpreter.adapters.openspiel_game import register
    name = register(SPECS / "witches_of_blackmore.yaml", players=2, discovery=2)
    assert register(SPECS / "witches_of_blackmore.yaml", players=2, discovery=2) == name
    other = register(SPECS / "witches_of_blackmore.yaml", players=2, options={"wheel": "ascending"}, discovery=1)
    assert other != name and pyspiel.load_game(other).num_players() == 2
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    sk = pyspiel.load_game(register(SPECS / "skull_king.yaml", players=3, discovery=1))
    pyspiel.random_sim_test(sk, num_sims=1, serialize=False, verbose=False)
    state = game.new_initial_state()
    assert state.is_chance_node() and abs(sum(p for _, p in state.chance_outcomes()) - 1) < 1e-9
    from open_spiel.python.algorithms import mcts
    bot = mcts.MCTSBot(game, 2, 10, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                       random_state=np.random.RandomState(1))
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert bot.step(state) in state.legal_actions()


def test_pettingzoo_real_time_block_gives_every_seat_its_moves():
    """In a real-time block the agent selected is the next seat clockwise after the last to act
    (it was always the first seat, and a random game never ended: the engine's bound of 50000
    actions in one block stopped it with an error)."""
    _need("pettingzoo")
    from interpreter.adapters.pettingzoo_env import RulebookAECEnv
    env = RulebookAECEnv(load_game(SPECS / "ligretto_classic.yaml"), 2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    seats, total = [], {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if not (terminated or truncated) and env.state.pending.get("realtime"):
            seats.append(agent)
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert abs(sum(total.values()) - 1.0) < 1e-9
    assert set(seats) == {"player_0", "player_1"} and 0.4 < seats.count("player_0") / len(seats) < 0.6


def test_adapter_bench_measures_each_way_to_step_a_spec():
    """tools/adapter_bench.py's loops play random moves through OpenSpiel's adapter and the
    kernel's step API (the figures are the tool's; here, that each loop steps and that a spec
    the kernel does not run gives no kernel figure)."""
    _need("pyspiel")
    sys.path.insert(0, str(SPECS.parent / "tools"))
    import adapter_bench
    assert adapter_bench.openspiel_steps_per_second(SPECS / "oh_hell.yaml", 3, 0.05) > 0
    assert adapter_bench.kernel_steps_per_second(load_game(SPECS / "oh_hell.yaml"), 3, 0.05) > 0
    # (a set choice of several players at once: not lowered)
    assert adapter_bench.kernel_steps_per_second(load_game(SPECS.parent / "tests" / "specs" / "three_card_pass.yaml"),
                                                 4, 0.05) is None
    assert adapter_bench.vector_steps_per_second(load_game(SPECS / "oh_hell.yaml"), 3, 0.05, num_envs=4) > 0
    assert adapter_bench.vector_steps_per_second(load_game(SPECS / "president.yaml"), 4, 0.05) is None
