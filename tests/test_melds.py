"""Melds by pattern (issue 33): the spec's melds: kinds and the built-ins is_meld, meld_kind,
melds_in, best_melds and lay_offs (interpreter/expr/melds.py)."""
from __future__ import annotations

import itertools
import random

import pytest

from interpreter import SpecError, load_game
from interpreter.errors import RuleError
from interpreter.scenario import evaluate

SPEC = """\
name: Meld test
players: {min: 2, max: 2}
cards:
  - each: {suit: [s, h, d, c], rank: "range(1, 14)"}
    name: "{suit}{rank}"
    attributes: {joker: false}
  - {name: joker, count: 2, attributes: {joker: true}}
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
melds:
  set: {form: set, min: 3, max: 4, wild: "c.joker", max_wild: 1}
  run: {form: run, min: 3, ace: ACE, wild: "c.joker", max_wild: 1}
define:
  cs(names): "[c in deck where c.name in names]"
  joker1: "[first([c in deck where c.joker])]"
flow:
  - choose: {action: pick, player: 0, options: "[1]"}
"""


def _state(tmp_path, ace="both", spec=SPEC):
    path = tmp_path / "melds.yaml"
    path.write_text(spec.replace("ACE", ace))
    return load_game(path).new_state(2, 0)


def _names(v):
    if isinstance(v, list):
        return [_names(x) for x in v]
    if isinstance(v, dict):
        return {k: _names(x) for k, x in v.items()}
    return getattr(v, "name", v)


@pytest.mark.parametrize("cards,kind,ok", [
    ("['s1', 'h1', 'd1']", None, True),
    ("['s1', 'h1']", None, False),                     # too few
    ("['s1', 'h1', 'd1', 'c1']", "set", True),
    ("['s1', 'h1', 'd2']", None, False),               # ranks differ
    ("['s1', 's2', 's3']", "run", True),
    ("['s1', 's2', 's3']", "set", False),
    ("['s2', 's3', 'h4']", None, False),               # suits differ
    ("['s12', 's13', 's1']", None, True),              # ace high
    ("['s13', 's1', 's2']", None, False),              # a run never wraps round
    ("['s5', 's7', 's6', 's4']", None, True),          # any order
])
def test_is_meld(tmp_path, cards, kind, ok):
    st = _state(tmp_path)
    arg = f", '{kind}'" if kind else ""
    assert evaluate(st, f"is_meld(cs({cards}){arg})") is ok


@pytest.mark.parametrize("ace,high,low", [("low", False, True), ("high", True, False), ("both", True, True)])
def test_the_ace_counts_low_high_or_either(tmp_path, ace, high, low):
    st = _state(tmp_path, ace)
    assert evaluate(st, "is_meld(cs(['s12', 's13', 's1']))") is high
    assert evaluate(st, "is_meld(cs(['s1', 's2', 's3']))") is low


def test_wild_cards_fill_gaps_within_their_limit(tmp_path):
    st = _state(tmp_path)
    assert evaluate(st, "meld_kind(cs(['s4', 's6']) + joker1)") == "run"
    assert evaluate(st, "meld_kind(cs(['s4', 'h4']) + joker1)") == "set"
    assert evaluate(st, "meld_kind(cs(['s4', 's7']) + joker1)") is None         # two gaps, one wild
    assert evaluate(st, "is_meld(cs(['s4', 'joker']))") is False                # two wilds: max_wild 1
    assert evaluate(st, "is_meld(cs(['s4', 's5']) + joker1)") is True           # a wild at the end


def test_melds_in_lists_every_meld(tmp_path):
    st = _state(tmp_path)
    got = _names(evaluate(st, "melds_in(cs(['s4', 's5', 's6', 's7', 'h4', 'd4']))"))
    assert sorted(map(sorted, got)) == sorted(map(sorted, [
        ["s4", "h4", "d4"], ["s4", "s5", "s6"], ["s5", "s6", "s7"], ["s4", "s5", "s6", "s7"]]))
    assert _names(evaluate(st, "melds_in(cs(['s4', 's5', 's6', 'h4', 'd4']), 'set')")) == [["s4", "h4", "d4"]]


def test_best_melds_minimises_the_rest(tmp_path):
    st = _state(tmp_path)
    # s4 belongs to the run or to the set: the set of 4s and the run 5-6-7 leave 9 + 10 of clubs
    got = _names(evaluate(st, "best_melds(cs(['s4', 's5', 's6', 's7', 'h4', 'd4', 'c9', 'c10']), "
                              "r => sum([c.rank for c in r]))"))
    assert got["value"] == 19 and got["rest"] == ["c9", "c10"]
    assert sorted(map(sorted, got["melds"])) == [["d4", "h4", "s4"], ["s5", "s6", "s7"]]
    most = evaluate(st, "best_melds(cs(['s4', 's5', 's6']), r => len(r), 'max')")
    assert most["value"] == 3 and most["melds"] == []
    with_wild = _names(evaluate(st, "best_melds(cs(['s4', 's6', 'h9']) + joker1, r => len(r))"))
    assert with_wild == {"melds": [["s4", "joker", "s6"]], "rest": ["h9"], "value": 1}


def _brute_deadwood(hand):
    """The least deadwood of ``hand`` ((suit, rank) pairs) over every partition, by brute force:
    sets of 3-4 equal ranks, runs of 3+ consecutive ranks of one suit, the ace low or high."""
    def meld(group):
        if len(group) < 3:
            return False
        if len({r for _, r in group}) == 1:
            return len(group) <= 4
        if len({s for s, _ in group}) != 1:
            return False
        for ranks in ({r for _, r in group}, {14 if r == 1 else r for _, r in group}):
            if len(ranks) == len(group) and max(ranks) - min(ranks) == len(group) - 1:
                return True
        return False

    def best(cards):
        if not cards:
            return 0
        first, rest = cards[0], cards[1:]
        value = first[1] + best(rest)
        for k in range(2, len(rest) + 1):
            for others in itertools.combinations(rest, k):
                if meld((first,) + others):
                    left = tuple(c for c in rest if c not in others)
                    value = min(value, best(left))
        return value
    return best(tuple(hand))


def test_best_melds_agrees_with_brute_force(tmp_path):
    st = _state(tmp_path)
    rng = random.Random(7)
    deck = [(s, r) for s in "shdc" for r in range(1, 14)]
    for _ in range(25):
        # hands rich in melds: two suits, nearby ranks
        pool = [c for c in deck if (c[0] in "sh" and c[1] <= 8) or c[1] in (1, 13)]
        hand = rng.sample(pool, 9)
        names = [f"{s}{r}" for s, r in hand]
        got = evaluate(st, f"best_melds(cs({names!r}), r => sum([c.rank for c in r]))")
        assert got["value"] == _brute_deadwood(hand), hand
        assert all(evaluate(st, f"is_meld(cs({[c.name for c in m]!r}))") for m in got["melds"])


def test_lay_offs(tmp_path):
    st = _state(tmp_path)
    assert _names(evaluate(st, "lay_offs(cs(['s4', 's5', 's6']), cs(['s3', 's7', 's8', 'h4']))")) == ["s3", "s7"]
    assert _names(evaluate(st, "lay_offs(cs(['s4', 'h4', 'd4']), cs(['c4', 's5']))")) == ["c4"]
    assert evaluate(st, "lay_offs(cs(['s4', 'h4', 'd4', 'c4']), cs(['s5']) + joker1)") == []   # max 4
    assert evaluate(st, "lay_offs(cs(['s4', 'h9']), cs(['s5']))") == []         # no meld: nothing


def test_mistakes_are_named(tmp_path):
    with pytest.raises(SpecError, match="no meld kind named 'sett'"):
        _state(tmp_path, spec=SPEC.replace("options: \"[1]\"", "options: \"[1]\", where: \"is_meld([], 'sett')\""))
    with pytest.raises(SpecError, match="key is for a set, not a run"):
        _state(tmp_path, spec=SPEC.replace("{form: run, min: 3,", "{form: run, key: c.rank, min: 3,"))
    with pytest.raises(SpecError, match="max_wild/min_natural need wild"):
        _state(tmp_path, spec=SPEC.replace(', wild: "c.joker", max_wild: 1}', ", max_wild: 1}", 1))
    with pytest.raises(SpecError, match="form"):
        _state(tmp_path, spec=SPEC.replace("{form: set, min: 3", "{form: pair, min: 3"))
    st = _state(tmp_path)
    with pytest.raises(RuleError, match="takes a list of cards"):
        evaluate(st, "is_meld(3)")
    with pytest.raises(RuleError, match="goal is 'min' or 'max'"):
        evaluate(st, "best_melds([], r => 0, 'most')")
    bare = SPEC.replace("melds:\n  set: {form: set, min: 3, max: 4, wild: \"c.joker\", max_wild: 1}\n"
                        "  run: {form: run, min: 3, ace: ACE, wild: \"c.joker\", max_wild: 1}\n", "")
    with pytest.raises(RuleError, match="declares no meld kinds"):
        evaluate(_state(tmp_path, spec=bare), "is_meld([])")


def test_the_rules_document_and_diagram_say_what_a_meld_is():
    from pathlib import Path
    from interpreter.analysis.graph import flow_graph
    from interpreter.analysis.rulesdoc import rules_markdown
    game = load_game(Path(__file__).resolve().parents[1] / "specs" / "queen_of_scots.yaml")
    doc = rules_markdown(game)
    assert "### Melds" in doc and "a set: 3 or more cards that match" in doc
    texts = [" ".join(d.get("text", [])) for _, d in flow_graph(game).nodes(data=True)]
    assert any("melds: set = a set: 3 or more cards" in t for t in texts)


def test_melds_in_of_one_size(tmp_path):
    st = _state(tmp_path)
    got = _names(evaluate(st, "melds_in(cs(['s4', 's5', 's6', 's7', 'h4', 'd4', 'c4']), null, 3)"))
    assert all(len(m) == 3 for m in got)
    assert sorted(map(sorted, got)) == sorted(map(sorted, [
        ["s4", "s5", "s6"], ["s5", "s6", "s7"], ["s4", "h4", "d4"], ["s4", "h4", "c4"], ["s4", "d4", "c4"],
        ["h4", "d4", "c4"]]))
    assert _names(evaluate(st, "melds_in(cs(['s4', 's5', 's6', 's7']), 'run', 4)")) == [["s4", "s5", "s6", "s7"]]
    assert evaluate(st, "melds_in(cs(['s4', 's5', 's6']), 'set', 3)") == []
    with pytest.raises(RuleError, match="the size is a whole number from 1"):
        evaluate(st, "melds_in([], null, 0)")


# -- melds_for: melds of exactly these kinds (a contract) ---------------------------------------
def test_melds_for_finds_melds_of_exactly_these_kinds(tmp_path):
    st = _state(tmp_path)
    hand = "cs(['s4', 's5', 's6', 's7', 'h4', 'd4', 'c9'])"
    got = _names(evaluate(st, f"melds_for({hand}, ['set', 'run'])"))
    # the first set of 4s takes s4: the run is then 5-6-7, each meld at its kind's smallest size (3)
    assert [sorted(m) for m in got] == [["d4", "h4", "s4"], ["s5", "s6", "s7"]]
    assert evaluate(st, f"melds_for({hand}, ['set', 'set'])") is None       # one rank only
    assert _names(evaluate(st, f"melds_for({hand}, ['run'])")) == [["s4", "s5", "s6"]]
    assert evaluate(st, f"melds_for({hand}, [])") == []
    assert evaluate(st, "melds_for([], ['set'])") is None


def test_melds_for_agrees_with_a_search_over_melds_in(tmp_path):
    """On random hands: a contract can be made exactly when nested melds_in searches find one,
    and what melds_for returns is disjoint melds of the kinds asked, each of its smallest size."""
    st = _state(tmp_path)
    rng = random.Random(7)
    names = [f"{s}{r}" for s in "shdc" for r in range(1, 14)]
    contracts = [["set", "set"], ["set", "run"], ["run", "run"], ["set", "set", "run"]]
    found = 0
    for _ in range(60):
        hand = "cs([" + ", ".join(f"'{x}'" for x in rng.sample(names, 20)) + "])"
        for ks in contracts:
            kinds = "[" + ", ".join(f"'{k}'" for k in ks) + "]"
            got = evaluate(st, f"melds_for({hand}, {kinds})")
            ref = evaluate(st, "any([" + _nested(hand, ks) + "])")
            assert (got is not None) == ref, (hand, ks)
            if got is not None:
                found += 1
                ids = [c.id for m in got for c in m]
                assert len(ids) == len(set(ids)) and len(got) == len(ks)
                for m, k in zip(got, ks):
                    assert len(m) == 3 and evaluate(st, f"is_meld(cs({[c.name for c in m]}), '{k}')")
    assert found > 10  # the hands do hold contracts, not only misses


def _nested(hand, ks):
    """`true for m0 in melds_in(hand, k0, 3) for m1 in melds_in(without(hand, m0), k1, 3) ...`."""
    parts, rest = [], hand
    for i, k in enumerate(ks):
        parts.append(f"for m{i} in melds_in({rest}, '{k}', 3)")
        rest = f"without({rest}, m{i})"
    return "true " + " ".join(parts)


def test_melds_for_mistakes_are_named(tmp_path):
    with pytest.raises(SpecError, match="melds_for: there is no meld kind named 'rn'"):
        _state(tmp_path, spec=SPEC.replace("options: \"[1]\"", "options: \"[1]\", where: \"melds_for([], ['set', 'rn']) == null\""))
    st = _state(tmp_path)
    with pytest.raises(RuleError, match="takes a list of meld kind names"):
        evaluate(st, "melds_for([], 'set')")
    with pytest.raises(RuleError, match="no meld kind 'x'"):
        evaluate(st, "melds_for([], [str('x')])")


def test_the_kernel_plays_melds_for_by_name(tmp_path):
    """melds_for(cards, ['set']) != null, refused by the kernel until fast/meldsfor.py lowered it,
    now plays the step API's games seed by seed (scores and lengths)."""
    from interpreter.fast.kernel import kernel_for
    from interpreter.sim.simulate import _play_one
    path = tmp_path / "melds.yaml"
    path.write_text(SPEC.replace("ACE", "low").replace(
        'options: "[1]"', "options: \"[1]\", where: \"melds_for(deck, ['set']) != null\"")
        + 'score: "count(deck)"\n')
    game = load_game(path)
    scores, lengths, errors = kernel_for(game).run(2, 7, 3)
    for i in range(3):
        want, _, length = _play_one(game, 2, 7, i, None)
        assert (errors[i], list(scores[i]), lengths[i]) == (0, list(want), length)
