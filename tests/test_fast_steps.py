"""The kernel's step API (``new_state(..., fast=True)``, interpreter/fast/steps.py): the same game as
the State, action by action (who is to choose, the legal actions' texts and order, the history,
the scores), bad actions refused with the reason and nothing changed, and clear refusals for
specs it cannot run. numba is installed by the `test` extra: nothing here is skipped."""
from __future__ import annotations

import copy
import random
from pathlib import Path

import numpy as np
import pytest

from interpreter import State, load_game
from interpreter.errors import IllegalAction, RuleError, RulebookError
from interpreter.fast.steps import FastState, step_kernel_for
from interpreter.fast.typepass import NotTyped, check_source, lower_steps

ROOT = Path(__file__).resolve().parents[1]
RUNS = [("specs/oh_hell.yaml", {}), ("specs/oh_hell.yaml", {"num_suits": 2, "num_tricks_fixed": 3}),
        ("specs/oh_hell.yaml", {"off_bid_penalty": True}), ("specs/skull_king.yaml", {}),
        ("specs/skull_king.yaml", {"pirate_abilities": True, "kraken": True, "white_whale": True}),
        ("specs/skull_king.yaml", {"scoring": "rascal_cannonball", "preset": "rulebook_2021"}),
        ("specs/skull_king.yaml", {"loot": True}), ("specs/skull_king.yaml", {"loot": True, "scoring": "rascal"}),
        ("specs/crazy_eights.yaml", {}), ("specs/crazy_eights.yaml", {"preset": "openspiel"}),
        ("specs/witches_of_blackmore.yaml", {}), ("specs/go_fish.yaml", {}),
        ("tests/specs/classic_constructs.yaml", {}), ("tests/specs/phase_args.yaml", {}), ("tests/specs/pairs.yaml", {}),
        ("specs/spades.yaml", {}), ("specs/spades.yaml", {"preset": "openspiel"}), ("tests/specs/teams.yaml", {}),
        ("tests/specs/indexing.yaml", {"pick": -1}), ("tests/specs/lists_and_ties.yaml", {}),
        ("tests/specs/player_maps.yaml", {}), ("tests/specs/set_zones.yaml", {}), ("specs/skull_queen.yaml", {}),
        ("tests/specs/value_lists.yaml", {}), ("tests/specs/climb.yaml", {}),
        ("tests/specs/climb.yaml", {"lead_may_pass": True}), ("tests/specs/auction.yaml", {}),
        ("tests/specs/sitting_out.yaml", {}), ("specs/euchre.yaml", {}),
        ("specs/euchre.yaml", {"stick_the_dealer": False}), ("specs/president.yaml", {}),
        ("specs/queen_of_scots.yaml", {}), ("tests/specs/set_choices.yaml", {}), ("specs/gin_rummy.yaml", {}),
        ("specs/gin_rummy.yaml", {"knock_limit": 60, "return_taken": True, "wall_knock": True}),
        ("specs/five_hundred.yaml", {}), ("specs/five_hundred.yaml", {"misere": False}),
        ("tests/specs/game_maps.yaml", {}), ("tests/specs/list_entries.yaml", {}),
        ("specs/gin_rummy.yaml", {"knock_limit": 60, "melds_by_hand": True}),
        ("specs/canasta.yaml", {"max_hands": 1}), ("tests/specs/team_zones.yaml", {}),
        ("tests/specs/lay_offs.yaml", {"longest": 4}), ("tests/specs/turn_record.yaml", {}),
        ("tests/specs/mode_when.yaml", {}),
        ("tests/specs/board_steps.yaml", {}), ("tests/specs/list_starts.yaml", {}), ("tests/specs/group_maps.yaml", {}),
        ("tests/specs/text_joins.yaml", {}), ("tests/specs/nested_lists.yaml", {})]


RUNS += [("tests/specs/ragged_parts.yaml", {}), ("tests/specs/card_or_meld.yaml", {}),
         ("specs/rummy_500.yaml", {"max_hands": 2})]  # parts some options lack; a card or a meld


def _game(path, options):
    return load_game(ROOT / path, options=options or None)


def _side_by_side(game, players, seed, pick_seed):
    """Play one random game in a FastState and a State together, checking every position; at a
    simultaneous choice the seats choose in a random order, some before the others are listed."""
    fast = game.new_state(players, seed=seed, fast=True)
    slow = game.new_state(players, seed=seed)
    rng = random.Random(pick_seed)
    while not slow.is_terminal():
        assert fast.current_players() == slow.current_players()
        waiting = slow.current_players()
        rng.shuffle(waiting)
        for p in waiting[:rng.randint(1, len(waiting))]:
            a, b = list(fast.legal_actions(p)), slow.legal_actions(p)
            assert a == list(b)  # the same Actions: seat, text, index
            k = rng.randrange(len(b))
            fast.apply(fast.legal_actions(p)[k])
            slow.apply(b[k])
            assert fast.history == slow.history
    assert fast.is_terminal() and fast.current_players() == [] and fast.legal_actions() == []
    assert fast.history == slow.history
    assert fast.scores() == slow.scores()
    assert fast.winners() == slow.winners()
    return fast, slow


@pytest.mark.parametrize("path,options", RUNS)
def test_the_same_game_as_the_state(path, options):
    game = _game(path, options)
    lo, hi = game.min_players, game.max_players
    for seed in range(6):
        _side_by_side(game, lo + seed % (hi - lo + 1), seed, seed + 100)


def test_step_modules_are_built_from_the_templates_only():
    for path, options in RUNS:
        src, info = lower_steps(_game(path, options))
        check_source(src)
        assert "yield " in src and info["sites"]


def test_specs_it_cannot_run_say_why():
    game = load_game(ROOT / "tests" / "specs" / "three_card_pass.yaml")
    with pytest.raises(RulebookError, match=r"a set choice \(choose with min:/max:\) of several players at once"):
        game.new_state(3, seed=1, fast=True)
    for big in (2 ** 63, -(2 ** 63)):
        with pytest.raises(RulebookError, match="fits in 64 bits"):
            load_game(ROOT / "specs" / "oh_hell.yaml").new_state(4, seed=big, fast=True)
    with pytest.raises(RulebookError, match="no trace, events, setup"):
        load_game(ROOT / "specs" / "oh_hell.yaml").new_state(4, seed=1, fast=True, player_names=list("abcd"))
    with pytest.raises(RulebookError, match="no trace, events, setup"):
        load_game(ROOT / "specs" / "oh_hell.yaml").new_state(4, seed=1, fast=True, chance=True)
    with pytest.raises(RulebookError, match="for 3 to 7 players"):
        load_game(ROOT / "specs" / "oh_hell.yaml").new_state(2, fast=True)
    with pytest.raises(NotTyped):
        step_kernel_for(game)


def test_a_simultaneous_choice_waits_for_every_seat():
    """Skull King's bids (§3): every seat bids from the same position, in any order; the others
    still choose after one has; the round starts once all have bid."""
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    st = game.new_state(3, seed=4, fast=True)
    assert st.current_players() == [0, 1, 2]
    assert list(st.legal_actions()) == list(st.legal_actions(0))  # as the State: the first seat to choose
    with pytest.raises(IllegalAction, match="say which player acts"):
        st.apply(0)
    lists = {p: st.legal_actions(p) for p in (0, 1, 2)}
    st.apply("BID  1", player=2)  # read as the State reads it
    assert st.current_players() == [0, 1] and st.legal_actions(2) == []
    assert lists[0][0].text == "bid 0"  # another seat's choice does not make the others' lists stale
    with pytest.raises(IllegalAction, match="P2 has nothing to choose now"):
        st.apply(0, player=2)
    st.apply(lists[0][0])
    assert st.history == [[2, "bid 1"], [0, "bid 0"]] and st.current_players() == [1]
    with pytest.raises(IllegalAction, match="P2 has nothing to choose now"):
        st.apply(lists[2][0])
    st.apply(1)  # the only seat left: no need to name it
    assert st.history[-1] == [1, "bid 1"] and len(st.current_players()) == 1
    assert st.legal_actions()[0].text.startswith("play ")


def test_bad_actions_are_refused_and_change_nothing():
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=3, fast=True)
    seat = st.current_players()[0]
    before = (st.history, [a.text for a in st.legal_actions()], st.current_players())
    n = len(st.legal_actions())
    stale = st.legal_actions()[0]
    for bad, why in [(n, "there is no action"), (-1, "there is no action"), ("bid 99", "not a legal action here"),
                     (True, "an action is an Action"), (1.5, "an action is an Action"),
                     (None, "an action is an Action")]:
        with pytest.raises(IllegalAction, match=why):
            st.apply(bad)
    for seat_given in (np.int64(seat), "1", 9, True):  # seats are whole numbers 0..3, as the State says
        with pytest.raises(IllegalAction, match="there is no seat"):
            st.apply(0, seat_given)
    with pytest.raises(IllegalAction, match="has nothing to choose now"):
        st.apply(0, player=(seat + 1) % 4)
    assert (st.history, [a.text for a in st.legal_actions()], st.current_players()) == before
    # by text and by index, as the State takes them
    st.apply(st.legal_actions()[0].text)
    listed = st.legal_actions()
    assert listed.index(listed[1]) == 1 and listed[1] in listed
    with pytest.raises(TypeError, match="whole-number index"):
        listed["x"]
    st.apply(len(listed) - 1)
    for read in (lambda: listed[0], lambda: len(listed)):
        with pytest.raises(RulebookError, match="earlier position"):
            read()
    with pytest.raises(IllegalAction, match="has nothing to choose now"):
        st.apply(stale._replace(player=(seat + 3) % 4))
    with pytest.raises(IllegalAction, match="not a legal action of P"):
        st.apply(stale._replace(player=st.current_players()[0], text="bid 99"))
    assert len(st.history) == 2


def test_an_offered_action_with_a_player_is_checked_cheaply_and_fully():
    """apply(action, player) of the Action just listed costs what apply(action) costs (a test of
    the player's kind and seat, not the full check: README's loop passes the player), and still
    refuses another seat or a seat that is not a whole number, changing nothing."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=5, fast=True)
    seat = st.current_players()[0]
    for other, why in (((seat + 1) % 4, "has nothing to choose now"), (True, "there is no seat"),
                       (np.int64(seat), "there is no seat"), (float(seat), "there is no seat")):
        offered = st.legal_actions()[0]
        with pytest.raises(IllegalAction, match=why):
            st.apply(offered, other)
        assert st.history == [] and st.current_players() == [seat]
    offered = st.legal_actions(seat)[0]
    st.apply(offered, seat)
    assert st.history == [[seat, offered.text]]


def test_every_list_of_a_position_goes_stale_when_the_state_moves():
    """A turn's legal actions are one list per position (asked twice, with or without the
    player: the same list), marked stale by the move: reading any of them afterwards (an item,
    its length, an iteration begun before) raises, and the next position's list reads anew."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=11, fast=True)
    seat = st.current_players()[0]
    first, again = st.legal_actions(), st.legal_actions(seat)
    assert first is again and list(first) == list(again) and len(first) >= 1
    walk = iter(first)
    st.apply(first[0], seat)
    for read in (lambda: first[0], lambda: len(again), lambda: next(walk), lambda: list(again)):
        with pytest.raises(RulebookError, match="earlier position"):
            read()
    now = st.legal_actions()
    assert now is not first and [a.text for a in now] == [a.text for a in st.to_state().legal_actions()]
    st.apply(now[len(now) - 1], st.current_players()[0])
    assert st.history == st.to_state().history and len(st.history) == 2


def test_a_finished_state_is_freed_when_dropped_without_a_garbage_collection():
    """A state keeps its turn's list, which refers back to it: the game's end lets go of the list,
    so a finished game's state and arrays go when the caller drops the state (a cycle would keep
    ~80 KB per game until the next collection, and made the README's loop slower)."""
    import gc
    import weakref
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    gc.disable()
    try:
        st = game.new_state(4, seed=12, fast=True)
        while not st.is_terminal():
            p = st.current_players()[0]
            st.apply(st.legal_actions(p)[0], p)
        gone = weakref.ref(st.RI)
        del st
        assert gone() is None
    finally:
        gc.enable()


def test_clone_and_to_state_are_the_same_position():
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=8, fast=True)
    rng = random.Random(2)
    for _ in range(9):
        st.apply(rng.choice(st.legal_actions()))
    twin = st.clone()
    slow = st.to_state()
    assert twin.history == st.history == slow.history
    assert list(twin.legal_actions()) == list(st.legal_actions()) == slow.legal_actions()
    twin.apply(0)  # the copy moves on alone
    assert len(st.history) == 9 and len(twin.history) == 10
    other = copy.copy(st)
    other.apply(0)
    assert len(st.history) == 9 and st.current_players() == slow.current_players()
    assert st.observation(0) == slow.observation(0) and st.export(1) == slow.export(1)
    assert State.from_json(game, st.to_json()).history == slow.history
    while not st.is_terminal():
        st.apply(rng.choice(st.legal_actions()))
    with pytest.raises(IllegalAction, match="game is over"):
        st.apply(0)
    assert isinstance(st, FastState) and "over" in repr(st)


def test_a_bad_team_is_the_states_error(tmp_path):
    """A teams: expression giving a seat no team stops new_state(fast=True) as it stops the State."""
    path = tmp_path / "teams.yaml"
    path.write_text((ROOT / "tests" / "specs" / "teams.yaml").read_text().replace('of: "p % 2"', 'of: "p - 1"'))
    game = load_game(path)
    for fast in (False, True):
        with pytest.raises(RuleError, match="the team of seat 0 is -1"):
            game.new_state(3, seed=1, fast=fast)


def test_an_index_out_of_range_is_the_states_error():
    """xs[k] out of range stops the game in the State; the FastState raises the same error."""
    game = _game("tests/specs/indexing.yaml", {"pick": 5})
    fast, slow = game.new_state(2, seed=1, fast=True), game.new_state(2, seed=1)
    action = slow.legal_actions()[0].text
    with pytest.raises(RuleError) as slow_err:
        slow.apply(action)
    with pytest.raises(RuleError) as fast_err:
        fast.apply(action)
    assert "out of range" in str(slow_err.value) and str(fast_err.value) == str(slow_err.value)


def test_a_rule_that_fails_is_the_states_error(tmp_path):
    """The kernel stops where the rules fail; the FastState says what the State says, and keeps the
    position before the failing action."""
    spec = (ROOT / "tests" / "specs" / "phase_args.yaml").read_text()
    spec = spec.replace("  - deal: {from: deck, to: hand, count: 2}\n",
                        "  - deal: {from: deck, to: hand, count: 2}\n"
                        "  - choose: {action: deal, player: 0, options: '[1, 9]', as: k,\n"
                        "             then: [{deal: {from: deck, to: hand, count: k}}]}\n")
    path = tmp_path / "fails.yaml"
    path.write_text(spec)
    game = load_game(path)
    st = game.new_state(2, seed=1, fast=True)
    with pytest.raises(RuleError) as fast_err:
        st.apply("deal 9")
    slow = game.new_state(2, seed=1)
    with pytest.raises(RuleError) as slow_err:
        slow.apply("deal 9")
    assert str(fast_err.value) == str(slow_err.value)
    assert st.history == [] and [a.text for a in st.legal_actions()] == ["deal 1", "deal 9"]
    st.apply("deal 1")
    assert st.history == [[0, "deal 1"]]


def test_real_time_is_the_states_action_by_action():
    """A real-time block (classic Ligretto: cards of each player, a list of maps in a variable):
    every seat that can act is current, each with the State's legal actions; any of them acts
    (here a random one, not the scheduler's pick), and the others' options are listed again."""
    game = load_game(ROOT / "specs" / "ligretto_classic.yaml", options={"max_rounds": 2})
    for seed, players in ((1, 2), (2, 3), (3, 5)):
        fast = game.new_state(players, seed=seed, fast=True)
        slow = game.new_state(players, seed=seed)
        rng = random.Random(seed)
        while not slow.is_terminal():
            waiting = slow.current_players()
            assert fast.current_players() == waiting
            assert (fast.pending or {}).get("realtime") == (slow.pending or {}).get("realtime")
            for p in waiting:
                assert list(fast.legal_actions(p)) == list(slow.legal_actions(p))
            p = rng.choice(waiting)
            k = rng.randrange(len(slow.legal_actions(p)))
            fast.apply(fast.legal_actions(p)[k], p)
            slow.apply(slow.legal_actions(p)[k], p)
        assert fast.is_terminal() and fast.history == slow.history
        assert fast.scores() == slow.scores()
    with pytest.raises(IllegalAction):
        game.new_state(3, seed=1, fast=True).apply("flip")  # several seats may act: say which


NO_CHOICE_FLOW = """flow:
  - shuffle: deck
  - deal: {from: deck, to: hand, count: 2}
  - add: {"players[0].score": "players[0].hand[0].rank"}
"""


def test_a_flow_with_no_choice_is_over_at_the_start_as_the_states(tmp_path):
    """A flow that asks no choice compiles to a plain function, not a generator: the FastState
    was a TypeError ("'NoneType' object is not an iterator"); it is now over at the start with the
    State's scores and winners, and the vectorised environment says there is nothing to step."""
    path = tmp_path / "no_choice.yaml"  # the small phase_args spec with a flow that asks nothing
    path.write_text((ROOT / "tests" / "specs" / "phase_args.yaml").read_text().split("\nflow:")[0] + "\n" + NO_CHOICE_FLOW)
    game = load_game(path)
    for seed in range(5):
        fast, slow = game.new_state(2, seed=seed, fast=True), game.new_state(2, seed=seed)
        assert fast.is_terminal() and slow.is_terminal()
        assert fast.scores() == slow.scores() and fast.scores()[0] > 0 and fast.winners() == slow.winners()
        assert fast.legal_actions() == [] and fast.current_players() == [] and fast.history == []
        with pytest.raises(IllegalAction, match="the game is over"):
            fast.apply(0)
    from interpreter.adapters.vector_env import VectorEnv
    with pytest.raises(RulebookError, match="ends before anyone has a choice to make: there is nothing to step"):
        VectorEnv(game, 2, num_envs=2)


def test_draws_seeded_ahead_are_the_draws_seeded_one_by_one():
    """Games started with seeds in sequence take their first draws' generators from a batch seeded
    side by side (interpreter/fast/stepseeds.py): the same games as the State's, whether the seed is
    in the batch, out of sequence (seeded one by one) or replayed (clone); Skull King draws more
    than are seeded ahead (ten deals), the rest seeded one by one."""
    from interpreter.fast.stepseeds import MOST
    from interpreter.fast.steps import step_kernel_for
    for path, seeds in (("specs/oh_hell.yaml", list(range(20, 32)) + [25, 1000, 26]),
                        ("specs/skull_king.yaml", [40, 41, 42, 43])):
        game = _game(path, None)
        ahead = step_kernel_for(game).ahead
        for seed in seeds:
            fast, _ = _side_by_side(game, game.min_players, seed, seed)
            clone = fast.clone()
            assert clone.history == fast.history and clone.scores() == fast.scores()
        rows, _, count, each = ahead.batch
        assert rows is not None and count >= 8 and 0 < each <= MOST
    assert ahead.draws == MOST  # Skull King's ten deals: eight seeded ahead


def _random_games(runs) -> dict:
    """{"core": the hot path's, "games": [[history, scores] of 4 random games per run]}."""
    from interpreter.fast import steps
    out = {"core": steps.CORE, "games": []}
    for path, options, players in runs:
        game = load_game(path, options=options or None)
        for seed in range(4):
            st, rng = game.new_state(players, seed=seed, fast=True), random.Random(seed)
            while not st.is_terminal():
                p = rng.choice(st.current_players())
                st.apply(rng.choice(st.legal_actions(p)), p)
            out["games"].append([st.history, st.scores()])
    return out


_PYTHON_CORE = """
import json, sys
from tests.test_fast_steps import _random_games
print(json.dumps(_random_games(json.loads(sys.argv[1]))))
"""


def test_the_c_hot_path_and_the_python_one_play_the_same_games():
    """The step API's hot path runs in C (interpreter/fast/_stepcore.c, built by the install: this
    test fails where it was not, rather than testing Python twice) or in Python
    (RULEBOOK_STEP_CORE=python, or no C compiler at install): the same games either way, at turns,
    simultaneous bids (Skull King) and real-time blocks (classic Ligretto)."""
    import json
    import os
    import subprocess
    import sys
    from interpreter.fast import steps
    assert steps.CORE == "C", "the C extension interpreter/fast/_stepcore.c was not built: pip install -e ."
    runs = [[str(ROOT / "specs/oh_hell.yaml"), {}, 4], [str(ROOT / "specs/skull_king.yaml"), {}, 3],
            [str(ROOT / "specs/ligretto_classic.yaml"), {"max_rounds": 1}, 3],
            [str(ROOT / "tests/specs/set_choices.yaml"), {}, 3]]
    played = {"C": json.loads(json.dumps(_random_games(runs)))}  # (compiles here, the other process reads the cache)
    done = subprocess.run([sys.executable, "-c", _PYTHON_CORE, json.dumps(runs)], cwd=ROOT,
                          env=dict(os.environ, RULEBOOK_STEP_CORE="python"), capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    played["python"] = json.loads(done.stdout)
    assert played["C"]["core"] == "C" and played["python"]["core"] == "python"
    assert played["C"]["games"] == played["python"]["games"]
    assert len(played["C"]["games"]) == 16 and all(len(h) > 3 for h, _ in played["C"]["games"])


def test_the_hot_path_takes_its_arguments_as_the_state_does():
    """legal_actions(player=...) and apply(action=..., player=...) by keyword, a seat given as
    another kind of whole number, and wrong arguments refused with TypeError, nothing changed."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=7, fast=True)
    seat = st.current_players()[0]
    assert st.legal_actions(player=seat) is st.legal_actions(seat) and st.legal_actions(player=None)
    assert list(st.legal_actions(np.int64(seat))) == list(st.legal_actions(seat))
    assert st.legal_actions(player=(seat + 1) % 4) == [] and st.legal_actions(seat + 0.5) == []
    for bad in (lambda: st.legal_actions(seat, seat), lambda: st.legal_actions(seat=seat),
                lambda: st.apply(), lambda: st.apply(0, seat, 1), lambda: st.apply(0, who=seat),
                lambda: st.apply(player=seat)):
        with pytest.raises(TypeError):
            bad()
    assert st.history == [] and st.current_players() == [seat]
    first = st.legal_actions(seat)[0]
    st.apply(action=first, player=seat)
    assert st.history == [[seat, first.text]]
    nxt = st.current_players()[0]
    st.apply(action=0, player=nxt)  # an index, checked
    assert len(st.history) == 2 and st.history[1][0] == nxt
    with pytest.raises(IllegalAction, match="has nothing to choose now"):
        st.apply(st.legal_actions()[0], player=(st.current_players()[0] + 1) % 4)
    assert len(st.history) == 2


def test_states_dropped_mid_game_are_collected():
    """A state and its turn's list refer to each other: a game dropped before its end (its list
    asked for) is a cycle the garbage collector frees, C core or not."""
    import gc
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    gc.collect()
    before = sum(isinstance(o, FastState) for o in gc.get_objects())
    for seed in range(50):
        st = game.new_state(4, seed=seed, fast=True)
        for _ in range(3):
            st.apply(st.legal_actions()[0])
        st.legal_actions()
    del st
    gc.collect()
    assert sum(isinstance(o, FastState) for o in gc.get_objects()) == before


_ODD_FIELDS = """
import json, sys
import numpy as np
from interpreter import load_game
from interpreter.errors import IllegalAction
from interpreter.fast import steps
game = load_game(sys.argv[1])
out = {"core": steps.CORE}


def fresh():
    return game.new_state(4, seed=1, fast=True)


def outcome(name, make):
    try:
        make()
        out[name] = "no error"
    except (IllegalAction, IndexError, TypeError, AttributeError) as exc:
        out[name] = type(exc).__name__
    print(name, out[name], file=sys.stderr, flush=True)  # (the last line before a crash names it)


def copied_list():  # a copy would not be marked stale when the state moves (the Python core made one)
    import copy
    copy.copy(fresh().legal_actions())


def list_longer():  # a list's n past its options
    la = fresh().legal_actions()
    la.n = 10 ** 6
    la[10 ** 6 - 1]


def state_n_longer():  # the state's option count past its options
    st = fresh()
    st._n = 10 ** 6
    st.legal_actions()[10 ** 6 - 1]


def gen_not_iterator():
    st = fresh()
    st.gen = [1, 2]
    st.apply(st.legal_actions()[0])


def offer_out_of_range():  # the Action offered, with an index the rules would read unchecked
    st = fresh()
    st._offer = (st.current_players()[0], "x", 10 ** 9)
    st.apply(st._offer)


def offer_negative():
    st = fresh()
    st._offer = (st.current_players()[0], "x", -5)
    st.apply(st._offer)


def offer_index_deletes_the_generator():  # an index that is no int: its __index__ runs Python
    st = fresh()

    class Index:
        def __index__(self):
            del st.gen
            return 0
    st._offer = (st.current_players()[0], "x", Index())
    st.apply(st._offer)


def bound_to_small_arrays():
    st = fresh()
    st._bind(np.zeros(100, dtype=np.int64), np.zeros((2, 1), dtype=np.int64))
    la = st.legal_actions()
    la[len(la) - 1]


def player_eq_deletes_a_field():
    st = fresh()

    class Seat:
        def __eq__(self, other):
            del st._la
            return True
    st.legal_actions(Seat())


def text_maker_lets_go_of_the_state():
    st = fresh()
    la = st.legal_actions()

    def text(v, m):
        la.state = None
        return "x"
    st._textf = text
    del st
    la[0]


for name, make in list(globals().items()):
    if callable(make) and make.__module__ == "__main__" and name not in ("fresh", "outcome"):
        outcome(name, make)
print(json.dumps(out))
"""


@pytest.mark.parametrize("core", ["C", "python"])
def test_fields_set_by_hand_raise_not_crash(core):
    """A researcher's odd object (a list's n or the state's _n set past the options, a generator that
    is not an iterator, an offered Action with an index out of range, arrays bound by hand, a seat
    whose __eq__ deletes a field, a text maker that lets go of the state, an offered index whose
    __index__ deletes the generator, a copied list) raises a Python exception
    in either hot path; the C one used to read past OPT, call a NULL iternext, hand the rules an
    index they read unchecked (in the Python one too), or read a freed state (segmentation faults)."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ)
    if core == "python":
        env["RULEBOOK_STEP_CORE"] = "python"
    else:
        env.pop("RULEBOOK_STEP_CORE", None)
    done = subprocess.run([sys.executable, "-c", _ODD_FIELDS, str(ROOT / "specs" / "oh_hell.yaml")], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"crashed (code {done.returncode}) after: {done.stderr[-600:]}"
    out = json.loads(done.stdout)
    assert out.pop("core") == core
    assert out["offer_out_of_range"] == out["offer_negative"] == "IllegalAction"
    assert out["offer_index_deletes_the_generator"] in ("IllegalAction", "TypeError")
    assert out["gen_not_iterator"] == out["copied_list"] == "TypeError"
    if core == "C":  # (the Python one reads OPT through memoryviews: the same IndexError, or the arrays it holds)
        assert out["list_longer"] == out["state_n_longer"] == out["bound_to_small_arrays"] == "IndexError"
    assert out["player_eq_deletes_a_field"] == "AttributeError"
    assert len(out) == 10


def test_an_action_of_a_seat_that_is_not_an_int_is_refused_as_the_state_refuses_it():
    """At a simultaneous choice legal_actions(np.int64(seat)) lists Actions whose seat is that numpy
    number (as the State's); applying one is refused, as the State refuses it, instead of being recorded
    with a numpy seat that clone() and to_state() then refuse to replay."""
    game = load_game(ROOT / "specs" / "skull_king.yaml")
    st, slow = game.new_state(4, seed=1, fast=True), game.new_state(4, seed=1)
    action = st.legal_actions(np.int64(3))[0]
    assert type(action.player) is not int and slow.legal_actions(np.int64(3))[0] == action
    with pytest.raises(IllegalAction, match="is not an action of this game"):
        slow.apply(action)
    with pytest.raises(IllegalAction, match="is not an action of this game"):
        st.apply(action)
    assert st.history == [] and st.current_players() == [0, 1, 2, 3]
    st.apply(action.index, 3)
    assert st.clone().history == st.history == [[3, action.text]]


_UNCONFIGURED = """
import numpy as np
from interpreter.fast import _stepcore as core
out = []
turn = core.Turn()
turn.n = -1
state = core.Core()
for name in ("gen", "records", "_la", "_offer", "_texts", "_sim", "_seat", "_n", "_limit", "_move", "_over"):
    setattr(state, name, 0)
state._sim, state._over, state._n = None, False, 3
state._bind(np.zeros(10, dtype=np.int64), np.zeros((2, 5), dtype=np.int64))
state._textf = lambda v, m: "x"
fresh = core.Turn()
fresh.state, fresh.n = state, 3
for call in (lambda: len(turn), state.legal_actions, lambda: fresh[1], lambda: state.apply(0)):
    try:
        call()
        out.append("no error")
    except RuntimeError as exc:
        out.append(str(exc))
print(out)
"""


def test_the_c_module_used_on_its_own_raises():
    """interpreter.fast._stepcore imported without steps.py (which configures it with the Action
    type, the list type and the error to raise): its objects raise RuntimeError, where they used to
    build an Action of a NULL type (a segmentation fault)."""
    import subprocess
    import sys
    from interpreter.fast import steps
    assert steps.CORE == "C", "the C extension interpreter/fast/_stepcore.c was not built: pip install -e ."
    done = subprocess.run([sys.executable, "-c", _UNCONFIGURED], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"crashed (code {done.returncode}): {done.stderr[-600:]}"
    assert done.stdout.count("configures it") == 4, done.stdout


def test_an_offered_action_hashes_as_the_same_action_made_in_python():
    """The C core builds a turn's Action with the tuple type's allocator; on Python 3.14, which caches a
    tuple's hash (-1: none yet), the cache it leaves at 0 made every such Action hash to 0, so that a
    dict or set of Actions made elsewhere would not find it. Its hash is the hash of its fields."""
    from interpreter.model.state import Action
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    st = game.new_state(4, seed=2, fast=True)
    offered = list(st.legal_actions())
    made = [Action(*a) for a in offered]
    assert [hash(a) for a in offered] == [hash(a) for a in made] == [hash(tuple(a)) for a in made]
    assert len({hash(a) for a in offered}) == len(offered) > 1
    assert all({m: k}[a] == k for k, (a, m) in enumerate(zip(offered, made)))
