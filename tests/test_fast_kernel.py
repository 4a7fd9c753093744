"""The typed playout kernel (interpreter/fast, `simulate --fast`): CPython's generators reproduced
bit for bit, generated modules built only from the fixed templates, and the same games as the step
API, seed by seed, for every spec and option set that types; the others say why they do not.

numba is installed by the `test` extra (it includes `fast`): nothing here is skipped."""
from __future__ import annotations

import hashlib
import sys
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter import load_game
from interpreter.errors import RuleError
from interpreter.fast import rng as R
from interpreter.fast.kernel import kernel_for, why_not
from interpreter.fast.typepass import NotTyped, check_source, lower
from interpreter.sim.simulate import _play_one, simulate
from interpreter.spec.yamlpos import load_yaml

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))


def option_sets(spec) -> list:
    """Default options, every non-default value of every option that lists its values (or is a
    yes/no option), and every preset."""
    data, _ = load_yaml(spec.read_text(), str(spec))
    sets = [{}]
    for name, decl in (data.get("options") or {}).items():
        values = decl.get("values") or ([True, False] if decl.get("type") == "bool"
                                        or isinstance(decl.get("default"), bool) else [])
        sets += [{name: v} for v in values if v != decl.get("default")]
    sets += [{"preset": p} for p in (data.get("presets") or {})]
    return sets


CASES = [(spec, opts) for spec in SPECS for opts in option_sets(spec)]


# -- the generators ---------------------------------------------------------------------------
def _three_games_as_the_step_api(game, players: int, seed: int, case: tuple):
    """Three games from ``seed``: the kernel's final scores are the step API's, without a flagged error."""
    scores, lengths, errors = kernel_for(game).run(players, seed, 3)
    for i in range(3):
        want, _, length = _play_one(game, players, seed, i, None)
        assert errors[i] == 0
        assert list(scores[i]) == list(want), (seed + i,) + case


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=111))
def test_sha512_is_hashlib(data):
    buf = np.frombuffer(data + b"\0", dtype=np.uint8).copy()
    out = np.zeros(64, dtype=np.uint8)
    R.sha512(buf, len(data), out, np.zeros(128, dtype=np.uint8), np.zeros(16, dtype=np.int64))
    assert bytes(out) == hashlib.sha512(data).digest()


@settings(max_examples=40, deadline=None)
@given(st.integers(-(2 ** 62), 2 ** 62), st.lists(st.integers(1, 2 ** 32 - 1), min_size=1, max_size=30))
def test_int_seeded_generator_draws_as_random(seed, bounds):
    gen = np.zeros(R.STATE_SIZE, dtype=np.int64)
    R.seed_int(gen, seed, np.zeros(64, dtype=np.int64))
    ref = random.Random(seed)
    assert [R.randbelow(gen, n) for n in bounds] == [ref._randbelow(n) for n in bounds]
    assert [R.genrand(gen) for _ in range(700)] == [ref.getrandbits(32) for _ in range(700)]  # past a block


@settings(max_examples=40, deadline=None)
@given(st.integers(-(10 ** 15), 10 ** 15), st.integers(0, 10 ** 6), st.integers(0, 120))
def test_text_seeded_shuffle_is_the_states(seed, count, size):
    """The State's draws: random.Random(f"{seed}/{count}").shuffle / randrange."""
    sc = R.Scratch()
    gen = np.zeros(R.STATE_SIZE, dtype=np.int64)
    R.seed_event(gen, seed, count, sc.text, sc.scratch, sc.digest, sc.key)
    ids = np.arange(size, dtype=np.int64)
    R.shuffle(gen, ids, size)
    want = list(range(size))
    ref = random.Random(f"{seed}/{count}")
    ref.shuffle(want)
    assert list(ids) == want
    assert R.randbelow(gen, 7) == ref.randrange(7)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.binary(max_size=111), min_size=1, max_size=20))
def test_texts_hashed_side_by_side_key_as_one_by_one(texts):
    """key_texts (many texts at once, one vector lane each) gives key_text's key words, leading
    zero bytes and the longest one-block text included."""
    n = len(texts)
    buf, where = np.zeros((n, 112), dtype=np.uint8), np.zeros((2, n), dtype=np.int64)
    for i, t in enumerate(texts):
        buf[i, :len(t)] = np.frombuffer(t, dtype=np.uint8)
        where[0, i], where[1, i] = len(t), n - 1 - i  # keys land in other rows than the texts
    keys, lens = np.zeros((n, 48), dtype=np.int64), np.zeros(n, dtype=np.int64)
    R.key_texts(buf, where, n, keys, lens, np.zeros((24, n), dtype=np.uint64))
    sc = R.Scratch()
    for i in range(n):
        one = np.zeros(48, dtype=np.int64)
        kl = R.key_text(buf[i].copy(), len(texts[i]), sc.scratch, sc.digest, one)
        assert list(keys[n - 1 - i, :lens[n - 1 - i]]) == list(one[:kl])


@settings(max_examples=25, deadline=None)
@given(st.lists(st.one_of(st.integers(-(2 ** 62), 2 ** 62),
                          st.tuples(st.integers(-(10 ** 15), 10 ** 15), st.integers(0, 10 ** 6))),
                min_size=1, max_size=40),
       st.sampled_from([5, R.FIRST, R.FIRST + 3, 700]))
def test_batch_seeded_generators_draw_as_random(seeds, draws):
    """key_texts hashes many texts side by side and seed_many seeds many generators side by side
    (keys of mixed lengths: ints of 1-2 words, texts of 17-18); each then draws as its
    random.Random, within the ready-made outputs, just past them (its state made from its key),
    and past a whole block."""
    n = len(seeds)
    keys, lens = np.zeros((n, 48), dtype=np.int64), np.zeros(n, dtype=np.int64)
    texts, where = np.zeros((n, 64), dtype=np.uint8), np.zeros((2, n), dtype=np.int64)
    refs, m = [], 0
    for r, seed in enumerate(seeds):
        if isinstance(seed, tuple):  # a State's draw: its text, hashed with the others below
            raw = f"{seed[0]}/{seed[1]}".encode()
            texts[m, :len(raw)] = np.frombuffer(raw, dtype=np.uint8)
            where[0, m], where[1, m] = len(raw), r
            m += 1
            refs.append(random.Random(raw.decode()))
        else:
            lens[r] = R.key_int(seed, keys[r])
            refs.append(random.Random(seed))
    R.key_texts(texts, where, m, keys, lens, np.zeros((24, n), dtype=np.uint64))
    RG = np.zeros((n, R.STATE_SIZE), dtype=np.int64)
    R.seed_many(RG, keys, lens, n, np.zeros((624, n), dtype=np.uint32), np.zeros((48, n), dtype=np.uint32),
                np.zeros(n, dtype=np.int64), np.zeros((3, 50), dtype=np.int64), np.zeros(49, dtype=np.int64))
    for r, ref in enumerate(refs):
        assert [R.genrand(RG[r]) for _ in range(draws)] == [ref.getrandbits(32) for _ in range(draws)]
        assert R.randbelow(RG[r], 52) == ref._randbelow(52)


@settings(max_examples=60, deadline=None)
@given(st.data(), st.sampled_from([5, 64, 65, 70, 130]), st.booleans())
def test_sort_row_puts_a_zone_in_card_table_order(data, ncards, roomy):
    """sort_row (bits of 64-bit words, or an insertion sort when the scratch has no room for them
    after the sorted cards) sorts a zone's distinct card ids (all below the scratch's length, as
    the kernel's scratch has room for every card)."""
    from interpreter.fast.runtime import sort_row
    cards = data.draw(st.lists(st.integers(0, ncards - 1), unique=True, max_size=ncards))
    row = np.array(cards + [0], dtype=np.int64)
    out = np.zeros(ncards + (64 if roomy else 0), dtype=np.int64)
    sort_row(row, len(cards), out)
    assert list(out[:len(cards)]) == sorted(cards)


# -- the type pass and the generated modules --------------------------------------------------
@pytest.mark.parametrize("spec,opts", CASES, ids=[f"{s.stem}-{o}" for s, o in CASES])
def test_every_spec_types_or_says_why(spec, opts):
    game = load_game(spec, opts or None)
    try:
        src, info = lower(game)
    except NotTyped as exc:
        assert exc.reason.strip(), "a spec that does not type must say why"
        note = why_not(game, min(4, game.max_players))
        assert note and exc.reason in note
        assert exc.path and exc.line > 0 and f"spec line {exc.line}" in note  # where, as the editor shows it
        assert spec.read_text().splitlines()[exc.line - 1].strip()
        if exc.path.startswith("variables."):  # a variable (Ligretto's map): its own line
            assert spec.read_text().splitlines()[exc.line - 1].strip().startswith(exc.path.split(".")[-1] + ":")
        return
    check_source(src)  # only the templates' nodes, fixed and generated names, numbers
    data, _ = load_yaml(spec.read_text(), str(spec))
    texts = set(info["texts"])
    for name in set(data.get("variables") or {}) | set(data.get("zones") or {}) | \
            {str(k).split("(")[0].strip() for k in (data.get("define") or {})}:
        assert f"'{name}'" not in src and f'"{name}"' not in src
    assert not any(f"'{t}'" in src for t in texts)  # texts are numbers in the module


def test_check_source_refuses_what_the_templates_do_not_make():
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    src, _ = lower(game)
    for bad in ("\nx = __import__('os')\n", "\ndef f():\n    return 'text'\n", "\nimport os\n",
                "\ndef g():\n    return open\n", "\nclass K:\n    pass\n"):
        with pytest.raises(ValueError):
            check_source(src + bad)


# -- same games -------------------------------------------------------------------------------
TYPED = []
for _spec, _opts in CASES:
    try:
        lower(load_game(_spec, _opts or None))
        TYPED.append((_spec, _opts))
    except NotTyped:
        pass


def test_the_kernel_covers_the_specs_it_should():
    """Oh Hell, Skull King, Crazy Eights, Witches, Spades, Go Fish, classic Ligretto and Euchre type with every option set but the ones said in the report (this
    guards against a change that makes the kernel silently fall back)."""
    typed = {(s.stem, tuple(sorted(o.items()))) for s, o in TYPED}
    assert ("oh_hell", ()) in typed and ("skull_king", ()) in typed
    assert ("skull_king", (("scoring", "rascal_cannonball"),)) in typed
    assert ("skull_king", (("pirate_abilities", True),)) in typed
    assert ("skull_king", (("loot", True),)) in typed  # a variable holding a list of pairs
    assert ("crazy_eights", ()) in typed  # optional actions (draw, pass)
    assert ("crazy_eights", (("preset", "openspiel"),)) in typed  # index_of
    assert ("witches_of_blackmore", ()) in typed  # move of given cards
    assert ("spades", ()) in typed and ("spades", (("preset", "openspiel"),)) in typed  # teams, trick[0]
    assert ("go_fish", ()) in typed  # pairs as options, several lists, a map literal, str()
    assert ("ligretto_classic", ()) in typed  # real time, cards of each player, a list of maps in a variable
    # a simultaneous choice among product() (1,250 options a seat: rows sized at compile time), a
    # variable holding a list of cards
    assert ("skull_queen", ()) in typed
    # seats sitting out (turns: skip), for ... until, end, derived attributes, texts joined
    assert ("euchre", ()) in typed and ("euchre", (("stick_the_dealer", False),)) in typed
    assert ("euchre", (("preset", "openspiel"),)) in typed
    # set choices picked card by card (pick/undo), a climb's turn among them; options of different shapes
    assert ("president", ()) in typed and ("queen_of_scots", ()) in typed
    # best_melds (the kernel's exact search), runs in lay_offs; every option but melds_by_hand
    assert ("gin_rummy", ()) in typed and ("gin_rummy", (("return_taken", True),)) in typed
    assert ("gin_rummy", (("wall_knock", True),)) in typed and ("gin_rummy", (("undercut_on_tie", False),)) in typed
    # a map literal of list literals (the bidding table) indexed at run time, keys() of it
    assert ("five_hundred", ()) in typed and ("five_hundred", (("misere", False),)) in typed
    # melds_in listed (each meld a value), meld_kind: melds laid by hand, OpenSpiel's rules
    assert ("gin_rummy", (("melds_by_hand", True),)) in typed and ("gin_rummy", (("preset", "openspiel"),)) in typed
    # melds_in listed with wild cards, values(group_by(...)), flatten and a for step over a zone of sets;
    # a zone per team (the side's melds) and a choice of a card and the set it goes on (onto:)
    assert ("canasta", ()) in typed
    # parts some options lack, a part holding a seat or a text, a variable holding a card or a meld
    assert ("rummy_500", ()) in typed
    # lists of lists of different lengths (the contracts), melds_for(...) != null, runs with wild cards
    assert ("contract_rummy", ()) in typed
    # real-time options that are lists of 4 or 6 parts made by +, name() of a card, a key in a let's group_by
    assert ("ligretto", ()) in typed


# long games played short here (the step API's side is slow): one hand of Canasta, one deal of Contract
# Rummy, two rounds of board Ligretto
SHORT = {"canasta": {"max_hands": 1}, "contract_rummy": {"deals": 1}, "ligretto": {"rounds": 2}}


@pytest.mark.parametrize("spec,opts", TYPED, ids=[f"{s.stem}-{o}" for s, o in TYPED])
def test_same_games_as_the_step_api(spec, opts):
    """Final scores and game lengths, seed by seed, for two player counts."""
    game = load_game(spec, {**SHORT.get(spec.stem, {}), **opts} or None)
    kernel = kernel_for(game)
    counts = sorted({game.min_players, min(4, game.max_players)})
    for players in counts:
        scores, lengths, errors = kernel.run(players, 100, 8)
        for i in range(8):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0
            assert list(scores[i]) == list(want), (players, 100 + i)
            assert lengths[i] == length, (players, 100 + i)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 14))
def test_best_melds_is_the_step_apis_on_random_hands(seed, size):
    """best_melds in the kernel (fast/bestmelds.py) against the step API's search on random hands
    of ``size`` cards from two decks (equal cards: ties between melds; sets and runs whose ace
    counts low or high): the least value, the best melds in order and what each holds, the
    unmelded cards in order, a 'max' search and lay_offs of its melds (tests/specs/best_melds.yaml:
    each seat's score is one of these)."""
    game = load_game(ROOT / "tests" / "specs" / "best_melds.yaml", {"size": size})
    _three_games_as_the_step_api(game, 4, seed, (size,))


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 14))
def test_melds_in_is_the_step_apis_on_random_hands(seed, size):
    """melds_in listed in the kernel (fast/meldlist.py) against the step API's on random hands of
    ``size`` cards from two decks (equal cards; sets and runs whose ace counts low or high): the
    melds in order and each meld's cards in order, of every kind, of 3 cards, of a kind written out,
    and meld_kind of each (tests/specs/melds_in.yaml: each seat's score is one of these)."""
    game = load_game(ROOT / "tests" / "specs" / "melds_in.yaml", {"size": size})
    _three_games_as_the_step_api(game, 4, seed, (size,))


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10 ** 9), st.integers(0, 12), st.integers(0, 3), st.integers(2, 4))
def test_melds_in_with_wild_cards_is_the_step_apis_on_random_hands(seed, size, laps, players):
    """melds_in listed in the kernel (fast/meldlists.py) against the step API on random hands of
    ``size`` cards from two decks with jokers (jokers and twos wild, at most two of them, at least
    two natural cards; a second kind of four or five with jokers only): every meld in order with
    its cards in order, with and without a size, first and last; values(group_by(...)); a zone
    of sets moved set by set and flattened (tests/specs/wild_melds.yaml: each seat's score is a
    signature of these)."""
    game = load_game(ROOT / "tests" / "specs" / "wild_melds.yaml", {"size": size, "laps": laps})
    _three_games_as_the_step_api(game, players, seed, (size, laps, players))


def test_a_meld_of_melds_in_kept_past_its_loop_says_why(tmp_path):
    """first(melds_in(...)) would read the slots of the last meld listed: refused, with the reason."""
    text = (ROOT / "tests" / "specs" / "wild_melds.yaml").read_text()
    text = text.replace("+ 23 * sig_of(distinct(p.hand))", "+ 23 * sig_of(first(melds_in(p.hand, 'set')))")
    (tmp_path / "m.yaml").write_text(text)
    with pytest.raises(NotTyped, match="kept past its loop"):
        lower(load_game(tmp_path / "m.yaml"))


@pytest.mark.parametrize("options, games, knocks", [
    ({"knock_limit": 60}, 40, 30),
    ({"melds_by_hand": True, "knock_limit": 60}, 30, 20)], ids=["best_melds", "melds_by_hand"])
def test_gin_rummy_showdowns_are_the_step_apis(options, games, knocks):
    """Gin Rummy in the kernel with a knock limit that makes random players knock (the showdown:
    best melds of both hands, lay-offs laid out for the defender; with melds laid by hand,
    melds_in listed and each meld's text from its first and last card): the same games as the
    step API, more than ``knocks`` of them ending in a knock."""
    game = load_game(ROOT / "specs" / "gin_rummy.yaml", options)
    scores, lengths, errors = kernel_for(game).run(2, 7, games)
    knocked = 0
    for i in range(games):
        want, _, length = _play_one(game, 2, 7, i, None)
        assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, i
        knocked += any(want)
    assert knocked > knocks


SMALL = [("teams.yaml", {}), ("indexing.yaml", {}), ("indexing.yaml", {"pick": -3}), ("lists_and_ties.yaml", {}),
         ("player_maps.yaml", {}), ("set_zones.yaml", {}), ("set_zones.yaml", {"rounds": 3}), ("sitting_out.yaml", {}),
         ("game_maps.yaml", {}), ("list_entries.yaml", {}),
         ("wild_melds.yaml", {}), ("team_zones.yaml", {}), ("turn_record.yaml", {}),
         ("mode_when.yaml", {})]


SMALL += [("ragged_parts.yaml", {}), ("card_or_meld.yaml", {})]  # parts some options lack; a card or a meld


@pytest.mark.parametrize("name,opts", SMALL)
def test_teams_and_indexing_play_the_step_apis_games(name, opts):
    """Team variables (written to every member of the team), team_of and teammates, xs[k] of a
    zone, a literal, a comprehension and a range (negative: from the end), xs + ys, holder(), a
    variable's list that no step sets, argmax/argmin with ties 'last', a player's map (entries
    by a key written out or known at run time, added to, set whole), zones of sets (new sets,
    set k, a set emptied dropping out, sets counted, indexed and looped over, holder() in a set), and
    seats sitting out of the turn order with for ... until and an end step (sitting_out.yaml), zones
    per team (team_zones.yaml: a pile and a zone of sets each team's members share):
    the same games as the step API at every player count (odd ones too: teams of unequal size)."""
    game = load_game(ROOT / "tests" / "specs" / name, opts or None)
    kernel = kernel_for(game)
    for players in range(game.min_players, game.max_players + 1):
        scores, lengths, errors = kernel.run(players, 100, 6)
        for i in range(6):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0
            assert list(scores[i]) == list(want), (players, 100 + i)
            assert lengths[i] == length, (players, 100 + i)


def test_an_index_out_of_range_is_flagged_and_the_step_api_says_why():
    """The step API stops a game at an index out of range; the kernel flags it (code 7) and
    simulate replays it in the step API, which raises its located error."""
    game = load_game(ROOT / "tests" / "specs" / "indexing.yaml", {"pick": 3})
    _, _, errors = kernel_for(game).run(2, 0, 3)
    assert list(errors) == [7, 7, 7]
    with pytest.raises(RuleError, match="out of range"):
        simulate(game, 3, 2, seed=0, fast=True)


@pytest.mark.parametrize("name,match", [("ragged_parts.yaml", "index 2 is out of range for a list of 2"),
                                        ("card_or_meld.yaml", r"cannot read \.rank of \[")])
def test_a_part_an_option_lacks_or_a_meld_read_as_a_card_is_flagged(name, match):
    """A part the chosen option lacks (fast/partread.py) and a meld held in a card-or-meld variable
    read as one card (fast/cardmeld.py): the step API stops the game with its error; the kernel
    flags it (code 7) and simulate replays it in the step API, which raises that error."""
    game = load_game(ROOT / "tests" / "specs" / name, {"careless": True})
    _, _, errors = kernel_for(game).run(2, 0, 3)
    assert list(errors) == [7, 7, 7]
    with pytest.raises(RuleError, match=match):
        simulate(game, 3, 2, seed=0, fast=True)


def test_a_part_counted_from_the_end_of_lists_of_different_lengths_says_why(tmp_path):
    """x[-1] is a different place in options of different lengths: refused, with the reason."""
    text = (ROOT / "tests" / "specs" / "ragged_parts.yaml").read_text()
    (tmp_path / "r.yaml").write_text(text.replace('"u[5] * 10', '"u[-1] * 10'))
    with pytest.raises(NotTyped, match="counted from the end"):
        lower(load_game(tmp_path / "r.yaml"))


@pytest.mark.parametrize("old,new,reason", [
    ('- add: {"p.marks[colour]": "c.rank"}', "- set: {\"p.marks['purple']\": 1}", "does not start with"),
    ('- set: {colour: c.colour}', "- set: {colour: \"count(p.marks)\"}", "read whole"),
    ('- set: {colour: c.colour}', "- set: {p.marks: \"{'purple': 1}\"}", "a key it does not start with"),
    ('- set: {colour: c.colour}', "- add: {p.marks: 1}", "other than to a map literal")])
def test_what_a_players_map_cannot_do_in_the_kernel_says_why(tmp_path, old, new, reason):
    """A map that would grow, or read whole, does not type: the reason says what."""
    text = (ROOT / "tests" / "specs" / "player_maps.yaml").read_text()
    assert old in text
    path = tmp_path / "maps.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(NotTyped, match=reason):
        lower(load_game(path))


def test_a_map_of_lists_of_different_lengths_says_why(tmp_path):
    """A map literal whose values are lists of different lengths does not type (fast/tablemaps.py):
    the reason says so, with the spec line."""
    text = (ROOT / "specs" / "five_hundred.yaml").read_text()
    assert "'10NT': [10, 'NT', 520]" in text
    path = tmp_path / "table.yaml"
    path.write_text(text.replace("'10NT': [10, 'NT', 520]", "'10NT': [10, 'NT']"))
    with pytest.raises(NotTyped, match="a map literal holding lists of different lengths"):
        lower(load_game(path))


@pytest.mark.parametrize("old,new,reason", [
    ("  who: {}  ", "  who: {1: 2}  ", "starts as a map with entries"),
    ('- set: {last: "{}"}', '- set: {last: "[]"}', "set other than to a map literal"),
    ('- set: {last: "{}"}', '- set: {last: "{}", x: "count(times)"}', "read whole"),
    ('"last[c.colour]": c.rank, ', '"last[c.colour]": c.rank, "last[c.rank]": 1, ', "holds keys of several kinds")])
def test_what_a_game_variables_map_cannot_do_in_the_kernel_says_why(tmp_path, old, new, reason):
    """A game variable's map (fast/mapvars.py) read whole, set to a list, starting with entries or
    holding keys of two kinds does not type: the reason says what."""
    text = (ROOT / "tests" / "specs" / "game_maps.yaml").read_text()
    assert old in text
    path = tmp_path / "maps.yaml"
    path.write_text(text.replace(old, new).replace("  who: {}", "  x: 0\n  who: {}"))
    with pytest.raises(NotTyped, match=reason):
        lower(load_game(path))


def test_a_list_entry_out_of_range_is_flagged_and_the_step_api_says_why(tmp_path):
    """An entry of a list of single values set at an index past its end (fast/listvars.py): the
    kernel flags the game (code 8), simulate replays it in the step API, which raises its error."""
    text = (ROOT / "tests" / "specs" / "list_entries.yaml").read_text()
    assert "c.colour) - 3]" in text
    path = tmp_path / "entries.yaml"
    path.write_text(text.replace("c.colour) - 3]", "c.colour) + 3]"))
    game = load_game(path)
    _, _, errors = kernel_for(game).run(3, 0, 3)
    assert list(errors) == [8, 8, 8]
    with pytest.raises(RuleError, match="no entry at that position"):
        simulate(game, 3, 3, seed=0, fast=True)


def test_a_list_with_items_at_the_start_set_by_a_step_plays_the_step_apis_games(tmp_path):
    """A variable whose default is a list of values that a step sets is a list variable starting with
    those items (fast/liststarts.py; it used to be refused as a constant list)."""
    text = (ROOT / "tests" / "specs" / "lists_and_ties.yaml").read_text()
    path = tmp_path / "lists.yaml"
    path.write_text(text.replace("      - move: {from: pile, to: deck}", "      - set: {values: \"[v * 2 + 1 for v in "
                                 "values]\"}\n      - move: {from: pile, to: deck}"))
    game = load_game(path)
    for seed in (100, 200):
        _three_games_as_the_step_api(game, 3, seed, ("lists_and_ties", "values set"))


def test_a_map_key_known_at_run_time_that_the_map_lacks_is_flagged(tmp_path):
    """The step API's map grows; the kernel's cannot: it flags the game (code 7) and simulate
    plays it in the step API, with the same results."""
    text = (ROOT / "tests" / "specs" / "player_maps.yaml").read_text()
    path = tmp_path / "grows.yaml"
    path.write_text(text.replace("- set: {colour: c.colour}", "- set: {colour: \"'purple' if c.rank == 1 else c.colour\"}"))
    game = load_game(path)
    _, _, errors = kernel_for(game).run(3, 0, 20)
    assert 7 in set(errors) and set(errors) <= {0, 7}
    fast = simulate(game, 20, 3, seed=0, fast=True)
    assert fast.fast and fast.scores == simulate(game, 20, 3, seed=0).scores


def test_a_set_that_is_not_there_is_flagged_and_the_step_api_says_why(tmp_path):
    """A move onto set k of a zone of sets that has fewer sets: the step API stops the game; the
    kernel flags it (code 7, the cards put in a spare row) and simulate replays it in the step
    API, which raises its located error."""
    text = (ROOT / "tests" / "specs" / "set_zones.yaml").read_text()
    old = '- move: {cards: "top(p.hand)", to: "p.melds[k]"}'
    assert old in text
    path = tmp_path / "no_such_set.yaml"
    path.write_text(text.replace(old, old.replace("p.melds[k]", "p.melds[k - 2]")))
    game = load_game(path)
    _, _, errors = kernel_for(game).run(3, 0, 12)
    assert 7 in set(errors) and set(errors) <= {0, 7}
    with pytest.raises(RuleError, match="there is no set"):
        simulate(game, 12, 3, seed=0, fast=True)


@pytest.mark.parametrize("new,reason", [
    ('- set: {who: "1 if top(p.hand) in p.melds else 0"}', "in: one set of a zone of sets"),
    ('- set: {who: "1 if any(p.melds) else 0"}', "any/all: one set of a zone of sets"),
    ('- set: {who: "count(first(p.melds))"}', "first/last: one set of a zone of sets"),
    ('- deal: {from: "p.melds[0]", to: hand, count: 1}', "deal from a set of a zone of sets"),
    ('- random: {who: p.melds}', "holds both a int and a set of cards")])
def test_what_a_zone_of_sets_cannot_do_in_the_kernel_says_why(tmp_path, new, reason):
    """A set is no value of its own in the kernel (its row moves when a set before it drops out),
    and a deal may leave an empty set the step API keeps: each says why, with its line."""
    text = (ROOT / "tests" / "specs" / "set_zones.yaml").read_text()
    old = '- set: {who: "holder(first(p.melds[0])) if count(p.melds) > 0 else -1"}'
    assert old in text
    path = tmp_path / "sets.yaml"
    path.write_text(text.replace(old, new))
    with pytest.raises(NotTyped, match=reason) as exc:
        lower(load_game(path))
    assert exc.value.line > 0


def _tallies(result):
    return [(t.n, t.total, t.squares, t.low, t.high, t.counts, t.complete)
            for t in result.tallies + [result.length_tally]], result.wins


@pytest.mark.parametrize("spec,players", [("oh_hell", 4), ("skull_king", 3), ("spades", 4)])
def test_simulate_fast_is_simulate(spec, players):
    """The statistics (counted in bulk from the kernel's arrays) are those of the step API."""
    game = load_game(ROOT / "specs" / f"{spec}.yaml")
    slow = simulate(game, 40, players, seed=7)
    fast = simulate(game, 40, players, seed=7, fast=True)
    assert fast.fast and not fast.fast_note and not slow.fast
    assert _tallies(fast) == _tallies(slow)
    assert fast.summary()["seats"] == slow.summary()["seats"]
    assert fast.summary().get("teams") == slow.summary().get("teams") and fast.team_wins == slow.team_wins
    seen = []
    one_by_one = simulate(game, 5, players, seed=7, fast=True, on_game=lambda i, *o: seen.append((i, o)))
    assert [i for i, _ in seen] == list(range(5)) and _tallies(one_by_one)[1] == simulate(game, 5, players, seed=7).wins


def test_bulk_tally_is_one_by_one(monkeypatch):
    """Tally.add_many counts as add does, past the cap of remembered values too."""
    from interpreter.sim import simulate as sim
    monkeypatch.setattr(sim, "MAX_DISTINCT", 5)
    xs = np.array([3, 9, 3, -4, 12, 7, 7, 100, 2, 3, -4, 55], dtype=np.int64)
    a, b = sim._Tally(), sim._Tally()
    a.add(1)
    b.add(1)
    a.add_many(xs)
    for x in xs:
        b.add(int(x))
    assert (a.n, a.total, a.squares, a.low, a.high, a.counts, a.complete) == \
        (b.n, b.total, b.squares, b.low, b.high, b.counts, b.complete)
    assert not a.complete


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.one_of(st.integers(-300, 300), st.integers(-2 ** 40, 2 ** 40)), max_size=40), max_size=4),
       st.sampled_from([3, 100_000]))
def test_bulk_tally_is_one_by_one_for_any_numbers(chunks, cap):
    """Tally.add_many, chunk by chunk, counts as add does, whatever the numbers: its int64 sums (numbers
    up to 2²⁰), its object sums (larger ones), its counts by bincount (a small span, all values kept)
    and by first appearance (the cap of remembered values reached) agree with the one-by-one tally."""
    from interpreter.sim import simulate as sim
    import pytest
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sim, "MAX_DISTINCT", cap)
        a, b = sim._Tally(), sim._Tally()
        for chunk in chunks:
            a.add_many(np.array(chunk, dtype=np.int64))
            for x in chunk:
                b.add(x)
    assert (a.n, a.total, a.squares, a.low, a.high, a.counts, a.complete) == \
        (b.n, b.total, b.squares, b.low, b.high, b.counts, b.complete)


def test_bulk_team_wins_are_one_by_one():
    """SimulationResult.add_many counts a team's win once for the team, as add does."""
    from fractions import Fraction
    from interpreter.sim import simulate as sim
    scores = np.array([[1, 5, 5, 0], [7, 7, 7, 7], [3, 2, 3, 1], [0, 9, 1, 8], [4, 4, 2, 2]], dtype=np.int64)
    lengths = np.arange(5, dtype=np.int64)
    for teams in ([0, 1, 0, 1], [0, 0, 1, 2]):
        a, b = (sim.SimulationResult("t", 4, "", [sim._Tally() for _ in range(4)], [Fraction(0)] * 4)
                for _ in range(2))
        a.teams = b.teams = teams
        a.add_many(scores, lengths, False)
        for row, n in zip(scores, lengths):
            b.add([int(x) for x in row], [p for p in range(4) if row[p] == max(row)], int(n))
        assert a.team_wins == b.team_wins and a.wins == b.wins and sum(a.team_wins.values()) == 5


def test_real_time_runs_in_the_kernel_with_the_round_robin_schedule_only():
    """The kernel's scheduler is round-robin (seeded as the step API's: it draws nothing); another
    schedule or reaction times fall back to the step API, saying why."""
    from interpreter.engine.program import MAX_REALTIME_ACTIONS
    from interpreter.fast import realtime
    assert realtime.MAX_REALTIME_ACTIONS == MAX_REALTIME_ACTIONS  # the same bound on one block's actions
    game = load_game(ROOT / "specs" / "ligretto_classic.yaml")
    assert why_not(game, 3) is None
    for note in (why_not(game, 3, schedule="random"), why_not(game, 3, speeds={0: 2.0})):
        assert note and "round-robin" in note
    assert why_not(load_game(ROOT / "specs" / "oh_hell.yaml"), 4, schedule="random") is None  # no real time
    result = simulate(game, 2, 3, seed=5, fast=True, schedule="random")
    assert not result.fast and "round-robin" in result.fast_note


def test_simulate_fast_falls_back_with_the_reason():
    game = load_game(ROOT / "tests" / "specs" / "three_card_pass.yaml")  # (a set choice of several players at once)
    result = simulate(game, 2, 3, seed=1, fast=True)
    assert not result.fast and "does not type" in result.fast_note and "several players at once" in result.fast_note
    assert result.scores == simulate(game, 2, 3, seed=1).scores
    oh = load_game(ROOT / "specs" / "oh_hell.yaml")
    result = simulate(oh, 2, 4, seed=1, fast=True, bots={1: "first"})
    assert not result.fast and "seat 1 is a first bot" in result.fast_note


def test_a_game_the_kernel_flags_is_replayed_by_the_step_api(monkeypatch):
    """An error code from the kernel (a rule error in the step API) sends that game to the step
    API, which plays it (or raises its own located error)."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    kernel = kernel_for(game)
    kernel.ready()  # (it calls run to play no game)
    real = kernel.run

    def flagged(players, first, n):
        scores, lengths, errors = real(players, first, n)
        scores[1] = -99
        errors[1] = 5
        return scores, lengths, errors
    monkeypatch.setattr(kernel, "run", flagged)
    fast = simulate(game, 4, 4, seed=3, fast=True)
    assert fast.scores == simulate(game, 4, 4, seed=3).scores


def test_simulate_fast_says_when_the_kernel_compiles(monkeypatch):
    """A first run compiles for tens of seconds: the user is told (a new-user trial saw a progress
    bar stuck at 0 with no word); a cached kernel says nothing."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    kernel = kernel_for(game)
    notes = []
    monkeypatch.setattr(kernel, "compiled", False)
    simulate(game, 2, 4, fast=True, note=notes.append)
    assert len(notes) == 1 and "compiling the kernel" in notes[0]
    monkeypatch.setattr(kernel, "compiled", True)
    simulate(game, 2, 4, fast=True, note=notes.append)
    assert len(notes) == 1


def test_the_compile_is_announced_and_left_out_of_games_per_second(monkeypatch, capsys):
    """While the kernel is made ready, `compiling(compiles)` is held (the command's progress line
    says so); that time is not in result.seconds (games/s) and the output says how long it took."""
    import contextlib
    import time
    from interpreter.cli import main
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    kernel = kernel_for(game)
    kernel.ready()

    def slow_ready():
        time.sleep(1.0)
        return (12.5, 20.0, True)
    monkeypatch.setattr(kernel, "ready", slow_ready)
    monkeypatch.setattr(kernel, "compiled", False)
    held = []

    @contextlib.contextmanager
    def compiling(compiles):
        held.append(compiles)
        yield
    result = simulate(game, 3, 4, fast=True, compiling=compiling)
    assert held == [True] and result.kernel_ready == (12.5, 20.0, True) and result.seconds < 1.0
    assert result.summary()["kernel"] == {"compiled": True, "ready_cpu_seconds": 12.5, "ready_seconds": 20.0}
    monkeypatch.setattr("interpreter.commands.simulate._load", lambda args: game)
    assert main(["simulate", str(ROOT / "specs" / "oh_hell.yaml"), "-n", "3", "-p", "4", "--fast",
                 "--compile-first"]) == 0
    assert "kernel compiled in 12.5 s CPU (20.0 s wall), not counted" in capsys.readouterr().out


# -- the runtime's moves and the memo of repeated helper calls ---------------------------------
@settings(max_examples=150, deadline=None)
@given(st.integers(0, 6), st.integers(0, 6), st.integers(-1, 8), st.booleans(), st.booleans(), st.booleans())
def test_move_top_is_the_step_apis_move(m, d, count, has_count, bottom, same):
    """``move_top`` (in place, no buffer) against the rule it implements: the cards taken from the top
    one at a time (or all in order) land on the top or bottom of the destination, marks cleared."""
    from interpreter.fast.runtime import NULL, move_top
    src, dst = 0, (0 if same else 1)
    rows = [list(range(m)), [] if same else list(range(100, 100 + d))]
    Z = np.full((2, 32), -7, dtype=np.int64)
    ZN = np.zeros(2, dtype=np.int64)
    for r, cards in enumerate(rows):
        Z[r, :len(cards)] = cards
        ZN[r] = len(cards)
    PB, MD, LOC = (np.zeros(128, dtype=np.int64) for _ in range(3))
    ok = move_top(Z, ZN, PB, MD, LOC, src, dst, count, int(has_count), int(bottom))
    if has_count and count < 0:
        assert not ok
        return
    n = min(count, m) if has_count else m
    taken = rows[src][::-1][:n] if has_count else rows[src][:n]
    left = rows[src][:m - n]
    into = left if same else rows[dst]
    want_dst = taken + into if bottom else into + taken
    assert ok
    assert list(Z[dst, :ZN[dst]]) == want_dst
    if not same:
        assert list(Z[src, :ZN[src]]) == left
    for c in taken:
        assert (PB[c], MD[c], LOC[c]) == (NULL, NULL, dst)


def test_memo_shares_repeated_helper_calls_in_one_line_only():
    from interpreter.fast.typepass import UNSET, _memo
    slots = iter(range(10))
    lines = ["    t1 = (h5(Z, ZN) if (h7(Z) > 0) else h5(Z, ZN))",
             "    while (h5(Z, ZN) > 0) and (h5(Z, ZN) < 9):",
             "    t2 = h5(Z, ZN) + randbelow(RG[0], h5(Z, ZN))",
             "    t3 = h7(Z) + h8(Z)"]
    out = _memo(lines, lambda: next(slots))
    assert out[:2] == [f"    MEMO[0] = {UNSET}",
                       f"    t1 = ((MEMO[0] if MEMO[0] != {UNSET} else memo(MEMO, 0, h5(Z, ZN))) if (h7(Z) > 0) "
                       f"else (MEMO[0] if MEMO[0] != {UNSET} else memo(MEMO, 0, h5(Z, ZN))))"]
    assert out[2:] == lines[1:]  # a `while` head, a line that draws, a line with no repeat: as they were


def test_the_kernel_spends_no_reference_counts_on_the_state():
    """The driver sees every array through ``raw`` (no owner to count): the generated module says so."""
    src, _ = lower(load_game(ROOT / "specs" / "oh_hell.yaml"))
    driver = src[src.index("def run("):]
    for name in ("Z", "ZN", "GV", "PV", "MD", "ATTR", "RG", "OPT", "MEMO", "SCORES"):
        assert f"    {name} = raw({name})\n" in driver


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 6), st.integers(0, 5), st.lists(st.integers(0, 11), min_size=1, max_size=4, unique=True),
       st.booleans(), st.booleans())
def test_move_card_is_the_step_apis_move_of_given_cards(m, d, picks, bottom, named_src):
    """``move_card`` card by card against the rule (engine.program.Move with ``cards``): the cards
    leave their zones (or ``from``, which must hold them), land on the top of ``to`` in order, or
    on its bottom in order (here ``to`` already holds cards, some of them moved again); marks
    cleared; a card not in ``from`` is refused."""
    from interpreter.fast.runtime import NULL, move_card
    rows = [list(range(m)), list(range(6, 6 + d)), []]  # cards 0..11: row 0, row 1, the rest in row 3
    rows.append([c for c in range(12) if c not in rows[0] + rows[1]])
    Z = np.full((4, 16), -7, dtype=np.int64)
    ZN = np.zeros(4, dtype=np.int64)
    LOC = np.zeros(16, dtype=np.int64)
    for r, cards in enumerate(rows):
        Z[r, :len(cards)] = cards
        ZN[r] = len(cards)
        LOC[cards] = r
    PB, MD = np.zeros(16, dtype=np.int64), np.zeros(16, dtype=np.int64)
    where = {c: r for r, cards in enumerate(rows) for c in cards}
    src = 0 if named_src else -1
    ok = True
    for k, c in enumerate(picks):
        ok = move_card(Z, ZN, PB, MD, LOC, c, src, 1, k if bottom else -1)
        if named_src and where[c] != 0:
            assert not ok
            return
        assert ok
    want = [[c for c in cards if c not in picks] for cards in rows]  # all taken out, then put in (row 1)
    want[1] = picks + want[1] if bottom else want[1] + picks
    assert [list(Z[r, :ZN[r]]) for r in range(4)] == want
    assert all((PB[c], MD[c], LOC[c]) == (NULL, NULL, 1) for c in picks)


def test_seeds_too_large_for_the_kernel_fall_back_with_the_reason():
    """The random bots' seeds (seed * 1_000_003 + seat) must fit in 64 bits in the kernel: larger
    seeds are played by the step API (the same games as without --fast), and the note says why."""
    game = load_game(ROOT / "specs" / "oh_hell.yaml")
    big = 2 ** 44
    result = simulate(game, 2, 4, seed=big, fast=True)
    assert not result.fast and "overflow the kernel's 64-bit numbers" in result.fast_note
    plain = simulate(game, 2, 4, seed=big)
    assert _tallies(result) == _tallies(plain)


def test_a_change_to_the_generators_drops_the_cached_machine_code(tmp_path):
    """numba checks only a cached function's own file; runtime.py compiles rng.py's functions in,
    so a change to either must drop both modules' caches (an edit to rng.py alone once left the
    kernel drawing from the old generator layout)."""
    from interpreter.fast.runtime import _drop_stale_caches
    for name in ("rng.seed_many-1.py311.nbi", "runtime.event_gen-2.py311.1.nbc", "other.f-3.py311.nbi"):
        (tmp_path / name).write_text("old")
    (tmp_path / "rulebook-fast-sources.sha256").write_text("a digest of other sources")
    _drop_stale_caches(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.f-3.py311.nbi", "rulebook-fast-sources.sha256"]
    (tmp_path / "rng.seed_many-1.py311.nbi").write_text("new")  # cached after the change: kept
    _drop_stale_caches(tmp_path)
    assert (tmp_path / "rng.seed_many-1.py311.nbi").exists()


def test_a_new_option_value_costs_no_compile():
    """Options are run-time data of the kernel (slots of GV after the game variables): every value
    of an option gives the same module text, so numba's machine code of the first serves them all
    (Oh Hell's num_tricks_fixed=1, 4, 8, 12 were four compiles); the values reach the games (the
    same games as the step API: test_same_games_as_the_step_api)."""
    from interpreter.fast.steps import step_kernel_for
    sets = [{"num_tricks_fixed": 1}, {"num_tricks_fixed": 4}, {"num_suits": 3, "off_bid_penalty": True},
            {"num_cards_per_suit": 6, "points_per_trick": 2}]
    games = [load_game(ROOT / "specs" / "oh_hell.yaml", o) for o in sets]
    kernels = [kernel_for(g) for g in games]
    assert len({k.source for k in kernels}) == 1 and len({id(k.module) for k in kernels}) == 1
    assert len({id(step_kernel_for(g).module) for g in games}) == 1
    ntf = kernels[0].info["gvars"][-len(games[0].options):]  # the option slots, in declaration order
    assert ntf[list(games[0].options).index("num_tricks_fixed")] == 1
    lengths = {int(k.run(4, 5, 1)[1][0]) for k in kernels[:2]}
    assert len(lengths) == 2  # 1 trick or 4: the option is read when the game runs
    # Skull King: one module for every option set (loot=true too: its list of pairs is run-time data)
    sk = [lower(load_game(ROOT / "specs" / "skull_king.yaml", o))[0] for o in ({}, {"kraken": False},
                                                                                {"scoring": "rascal"}, {"loot": True})]
    assert len(set(sk)) == 1


def test_a_list_of_maps_in_a_variable_plays_the_step_apis_games():
    """A game variable holding a list of maps (appended to, set by index, read in comprehensions,
    kept through a gather): the same games; an entry set past the end stops the kernel's game,
    which the step API then replays to its own error."""
    game = load_game(ROOT / "tests" / "specs" / "record_list.yaml")
    kernel = kernel_for(game)
    for players in (2, 3):
        scores, lengths, errors = kernel.run(players, 100, 20)
        for i in range(20):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, 100 + i)
    far = load_game(ROOT / "tests" / "specs" / "record_list.yaml", {"reach": 5})
    assert kernel_for(far).source == kernel.source  # the option is run-time data: the same module
    _, _, errors = kernel_for(far).run(2, 100, 20)
    assert set(errors) - {0} == {8}
    with pytest.raises(RuleError, match="no entry at that position"):
        simulate(far, 20, 2, seed=100, fast=True)


def test_lists_of_values_in_variables_and_a_product_choice_play_the_step_apis_games():
    """Game variables holding a list of cards and one of numbers (set, appended to, two set in one
    step, moved, counted), a simultaneous choice among product(): the same games. A `for` over a
    list longer than the rows' room, its length known only at run time (an option), stops the
    kernel's game (error 6), and the step API plays that game instead: the same scores."""
    game = load_game(ROOT / "tests" / "specs" / "value_lists.yaml")
    kernel = kernel_for(game)
    assert kernel.info["width"] == 512  # (no list of constant length longer than the default room)
    for players in (2, 4):
        scores, lengths, errors = kernel.run(players, 100, 20)
        for i in range(20):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, 100 + i)
    long = load_game(ROOT / "tests" / "specs" / "value_lists.yaml", {"span": 2000})
    assert kernel_for(long).source == kernel.source  # (the option is run-time data)
    _, _, errors = kernel_for(long).run(3, 100, 4)
    assert set(errors) == {6}
    assert simulate(long, 4, 3, seed=100, fast=True).scores == simulate(long, 4, 3, seed=100).scores


@pytest.mark.parametrize("opts", [{}, {"lead_may_pass": True}])
def test_climbing_turns_play_the_step_apis_games(opts):
    """The climb step (turns until all the others pass, players going out, the pile clearing to
    the last to play or the next player in): the same games at every player count."""
    game = load_game(ROOT / "tests" / "specs" / "climb.yaml", opts)
    kernel = kernel_for(game)
    for players in range(game.min_players, game.max_players + 1):
        scores, lengths, errors = kernel.run(players, 100, 20)
        for i in range(20):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, 100 + i)


def test_an_auction_where_everyone_speaks_plays_the_step_apis_games():
    """A climb with all_speak (tests/specs/auction.yaml: passes final, the last seat still bids when
    all the others passed): the same scores and lengths as the step API at every player count."""
    game = load_game(ROOT / "tests" / "specs" / "auction.yaml")
    kernel = kernel_for(game)
    for players in range(game.min_players, game.max_players + 1):
        scores, lengths, errors = kernel.run(players, 100, 20)
        for i in range(20):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, 100 + i)


def test_a_climb_over_seats_listed_twice_is_flagged_and_the_step_api_says_why(tmp_path):
    path = tmp_path / "climb.yaml"
    path.write_text((ROOT / "tests" / "specs" / "climb.yaml").read_text()
                    .replace('players: "turn_order(1)"', 'players: "[0, 1, 0]"'))
    game = load_game(path)
    _, _, errors = kernel_for(game).run(3, 100, 3)
    assert set(errors) == {11}  # ERR_CLIMB
    with pytest.raises(RuleError, match="distinct seats"):
        simulate(game, 3, 3, seed=100, fast=True)


def test_a_list_of_pairs_in_a_variable_plays_the_step_apis_games():
    """Skull King's Loot alliances: a game variable holding a list of pairs (appended to with
    ``xs + [[a, b]]``, emptied each round, read in a comprehension with ``p in a`` and ``a[0]``):
    the same scores and lengths as the step API, over games where alliances were made."""
    game = load_game(ROOT / "specs" / "skull_king.yaml", {"loot": True})
    kernel = kernel_for(game)
    allied = 0
    for players in (2, 4):
        scores, lengths, errors = kernel.run(players, 300, 12)
        for i in range(12):
            want, _, length = _play_one(game, players, 300, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, 300 + i)
            state = game.new_state(players, seed=300 + i)
            state.events = []
            rng = random.Random(i)
            while not state.is_terminal():
                p = state.current_players()[0]
                state.apply(rng.choice(state.legal_actions(p)))
            allied += sum(1 for e in state.events if "Loot allies" in str(e.get("text")))
    assert allied > 0  # the pairs were made and scored in these games


def test_texts_joined_at_run_time_play_the_step_apis_games():
    """``word + '1'`` and ``'x' + word`` (a text known only at run time joined to a constant text):
    the same games as the step API; a numeral made by str() lies outside the kernel's table of
    texts: the kernel flags that game (code 7) and simulate replays it in the step API."""
    game = load_game(ROOT / "tests" / "specs" / "joined_texts.yaml")
    kernel = kernel_for(game)
    scored = set()
    for players in (2, 3):
        scores, lengths, errors = kernel.run(players, 100, 30)
        assert set(errors.tolist()) == {0, 7}
        for i in range(30):
            want, _, length = _play_one(game, players, 100, i, None)
            if errors[i] == 0:
                assert list(scores[i]) == list(want) and lengths[i] == length, (players, 100 + i)
                scored |= set(want)
        fast, plain = simulate(game, 30, players, seed=100, fast=True), simulate(game, 30, players, seed=100)
        assert fast.fast and fast.scores == plain.scores and fast.lengths == plain.lengths
    assert len(scored) >= 4  # the joined texts matched names and texts of the rules in these games


def test_a_numba_that_fails_to_import_is_not_called_missing(monkeypatch):
    """An installed numba whose import fails (a broken install) is named with its error; only an
    absent one reads 'not installed'."""
    import builtins
    import importlib.util
    from interpreter.fast import kernel
    real_import = builtins.__import__

    def broken(name, *args, **kwargs):
        if name == "numba":
            raise ImportError("numpy.core.multiarray failed to import")
        return real_import(name, *args, **kwargs)
    monkeypatch.delitem(sys.modules, "numba", raising=False)  # not served from sys.modules
    monkeypatch.setattr(builtins, "__import__", broken)
    assert "failed to import: numpy.core.multiarray" in kernel.unavailable()
    assert not kernel.available()
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    assert kernel.unavailable().startswith("numba is not installed")


def test_a_kernels_folder_that_cannot_be_written(tmp_path, monkeypatch):
    """The cache's kernels folder not writable (a read-only mount): generated modules go to the
    temporary folder instead, as with caching off; a module that cannot be written at all is a
    reason the kernel is not used (NotTyped, said by --fast), not a traceback."""
    import errno
    import os
    from interpreter import cache
    from interpreter.fast import kernel as kmod
    from interpreter.fast.typepass import NotTyped
    monkeypatch.setenv("RULEBOOK_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_DIR", [])
    kernels = tmp_path / "cache" / "kernels"
    assert kmod._folder() == kernels
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == kernels else real_access(p, mode))
    assert kmod._folder().name.startswith("rulebook-kernels-")

    def read_only(self, *args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")
    monkeypatch.setattr(Path, "write_text", read_only)
    with pytest.raises(NotTyped, match="cannot be written to .*Read-only file system.*RULEBOOK_CACHE"):
        kmod.load_module("x = 1  # a module not written before\n", "rulebook_test_readonly")


_MODULE_TEXTS = """
import hashlib, json, sys
from interpreter import load_game
from interpreter.fast.typepass import lower, lower_search, lower_steps
out = {}
for path in sys.argv[1:]:
    game = load_game(path)
    out[path] = [hashlib.sha256(fn(game)[0].encode()).hexdigest() for fn in (lower, lower_steps, lower_search)]
print(json.dumps(out))
"""


def test_a_specs_modules_are_the_same_text_in_every_process():
    """The kernel's cache is keyed by the generated module's text: a text that varied with the
    process (a set of texts iterated in hash order: Queen of Scots' hoisted reads, Ligretto's
    steps, texts joined from two sets) was compiled again in every new process. Two processes
    with other string hash seeds write the same three modules for every shipped spec and the
    test specs that showed it."""
    import json
    import os
    import subprocess
    import sys
    paths = sorted(str(p) for p in (ROOT / "specs").glob("*.yaml")) + \
        [str(ROOT / "tests" / "specs" / f"{name}.yaml") for name in ("text_joins", "best_melds", "nested_lists")]
    texts = []
    for seed in ("1", "2"):
        done = subprocess.run([sys.executable, "-c", _MODULE_TEXTS, *paths], cwd=ROOT, capture_output=True, text=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        texts.append(json.loads(done.stdout))
    assert len(texts[0]) == len(paths) >= 20
    assert texts[0] == texts[1]
