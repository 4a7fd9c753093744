"""A choice of a card and the set it goes on (`choose ... onto:`, docs/spec-language.md, choose):
the options, where reading the set's place, the move, saved games, located mistakes, the adapters'
action ids, the rules text and diagram, and the kernel's games (fast/onto.py) (tests/specs/lay_offs.yaml;
its rule scenarios are in tests/scenarios/lay_offs/)."""
from __future__ import annotations

import random
import textwrap
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.errors import SpecError
from interpreter.fast.typepass import lower
from interpreter.model.state import State

SPEC = Path(__file__).parent / "specs" / "lay_offs.yaml"


@pytest.mark.parametrize("players", [2, 3])
def test_random_games_end_and_replay(players):
    game = load_game(SPEC)
    for seed in range(15):
        rng = random.Random(seed)
        state = game.new_state(players, seed=seed)
        while not state.is_terminal():
            seat = state.current_players()[0]
            legal = state.legal_actions(seat)
            for a in legal:  # every lay-off option names a card held and a set it lays off on
                if a.text != "pass":
                    name, k = a.text.split(" ")[1:]
                    assert name in [state.game.cards[i].name for i in state.zones["hand"][seat]]
                    assert 0 <= int(k) < len(state.zones["table"])
            state.apply(rng.choice(legal))
        assert sum(len(h) for h in state.zones["hand"]) + sum(len(s) for s in state.zones["table"]) \
            == 12 + 4 * players
        again = game.replay(players, seed, state.history)
        assert again.to_json() == state.to_json()
        assert State.from_json(game, state.to_json()).to_json() == state.to_json()


def _with(tmp_path, old, new):
    text = SPEC.read_text()
    assert old in text
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace(old, new))
    return path


@pytest.mark.parametrize("old, new, words", [
    ("onto: table", "onto: deck", "onto names a zone of sets"),
    ("onto: table", "onto: \"table[0]\"", "onto names a zone of sets"),
    ("          at: i\n", "          at: i\n          to: table\n", "a choice with onto has no to"),
    ("          at: i\n", "          at: i\n          min: 1\n", "a choice with onto has no min"),
])
def test_mistakes_are_located_errors(tmp_path, old, new, words):
    with pytest.raises(SpecError) as exc:
        load_game(_with(tmp_path, old, new))
    assert words in str(exc.value) and "bad.yaml:" in str(exc.value)


def test_onto_needs_meld_kinds(tmp_path):
    text = SPEC.read_text()
    start, end = text.index("melds:\n"), text.index("zones:\n")
    path = tmp_path / "bad.yaml"
    path.write_text(text[:start] + text[end:])
    with pytest.raises(SpecError, match="onto offers the lay-offs of meld kinds, and this spec declares none"):
        load_game(path)


def test_the_adapters_have_an_id_for_every_option():
    from interpreter.adapters.spaces import Spaces
    game = load_game(SPEC)
    sp = Spaces(game, 2)
    state = game.new_state(2, seed=3)
    for _ in range(6):
        if state.is_terminal():
            break
        seat = state.current_players()[0]
        ids = sp.legal_ids(state, seat)
        assert [sp.action_text(i) for i in ids] == [a.text for a in state.legal_actions(seat)]
        state.apply(state.legal_actions(seat)[0])


def test_rules_text_and_diagram_say_it(tmp_path):
    from interpreter.analysis.graph import flow_graph
    from interpreter.cli import main
    texts = [" ".join(d.get("text", [])) for _, d in flow_graph(load_game(SPEC)).nodes(data=True)]
    assert any("a card of mover.hand and a set i of table it lays off on" in t and "→ table[i]" in t
               for t in texts), texts
    doc = tmp_path / "rules.md"
    assert main(["doc", str(SPEC), "-o", str(doc)]) == 0
    assert "and a set of `table` it can be laid off on" in doc.read_text()


@pytest.mark.parametrize("options", [{}, {"longest": 4}])
def test_the_kernel_plays_the_step_apis_games(options):
    """The kernel lowers it (fast/onto.py): the same scores and lengths as the step API at every
    player count, and in lock step (the kernel's step API) the same legal actions (`lay NAME K`, in
    order) and histories, with lay-offs actually chosen."""
    from interpreter.fast.kernel import kernel_for
    from interpreter.sim.simulate import _play_one
    game = load_game(SPEC, options or None)
    lower(game)  # types
    kernel = kernel_for(game)
    for players in (2, 3):
        scores, lengths, errors = kernel.run(players, 100, 10)
        for i in range(10):
            want, _, length = _play_one(game, players, 100, i, None)
            assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, (players, i)
    laid = 0
    for seed in range(6):
        fast, slow = game.new_state(2 + seed % 2, seed=seed, fast=True), game.new_state(2 + seed % 2, seed=seed)
        rng = random.Random(seed)
        while not slow.is_terminal():
            a, b = list(fast.legal_actions()), slow.legal_actions()
            assert a == list(b)
            k = rng.randrange(len(b))
            laid += b[k].text != "pass"
            fast.apply(a[k])
            slow.apply(b[k])
        assert fast.is_terminal() and fast.history == slow.history and fast.scores() == slow.scores()
    assert laid > 4  # (8 with these seeds)
