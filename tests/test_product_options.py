"""Products of options (a choice among ``product(A, B, ...)``, Skull Queen's placement: 2 x 5^4 =
1,250 options per seat and round) are sampled and checked by index: bots never list their texts.

The texts are counted: ``ProductOptions.text`` is the only place a product option's text is
built. The one text a bot cannot avoid is the text of the action it applies, which the history
records (the State replays from its texts); every other option's text is never built. So during
bots' play the number of texts built equals the number of product options applied (each applied
option's value is built once, by ``ProductOptions.value`` or with its text by indexing).
"""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import IllegalAction, load_game
from interpreter.agents.basic import RandomAgent, step
from interpreter.agents.search import ISMCTSAgent
from interpreter.engine import program
from interpreter.engine.program import ProductOptions
from interpreter.engine.run import legal_options

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "skull_queen.yaml"


@pytest.fixture
def built(monkeypatch):
    """Counts of product option texts and values built while the test runs."""
    counts = {"texts": 0, "values": 0}
    text, value = ProductOptions.text, ProductOptions.value

    def counted_text(self, i):
        counts["texts"] += 1
        return text(self, i)

    def counted_value(self, i):
        counts["values"] += 1
        return value(self, i)

    monkeypatch.setattr(ProductOptions, "text", counted_text)
    monkeypatch.setattr(ProductOptions, "value", counted_value)
    return counts


def _play_round(state, agents) -> int:
    """Play until the second placement decision of the game begins (one whole round); returns how
    many placements were chosen."""
    placements = rounds = 0
    while not state.is_terminal():
        p = state.current_players()[0]
        if type(legal_options(state, p)) is ProductOptions:
            if not state.pending["committed"] and len(state.pending["players"]) == state.num_players:
                rounds += 1
                if rounds == 2:
                    break
            placements += 1
        step(state, agents, p)
    return placements


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_bots_build_no_option_text_in_a_round(built, players):
    game = load_game(SPEC)
    state = game.new_state(players, seed=players)
    placements = _play_round(state, [RandomAgent(10 + p) for p in range(players)])
    assert placements == players  # everyone placed once: the whole round was played
    assert len(state.history) > 3 * players  # and its tricks
    # one text per placement: the one the history records; none of the 1,249 others
    assert built["texts"] == placements
    assert built["values"] == placements


def test_ismcts_builds_only_the_texts_of_the_actions_it_applies(built):
    game = load_game(SPEC)
    state = game.new_state(3, seed=4)
    p = state.current_players()[0]
    bot = ISMCTSAgent(iterations=25, seed=1, kernel=False)  # (the State API's search: Skull Queen also
    bot.seat = p                                             # runs in the kernel, which builds no text)
    action = bot.act(state, p)
    assert action.text.startswith("place ") and type(action.index) is int
    # each text built is that of an option applied in a search's determinisation; the 25
    # iterations apply at most 3 placements each (the other seats' in the rollout)
    assert 25 <= built["texts"] == built["values"] <= 25 * 3
    before = built["texts"]
    state.apply(action, p)  # checked by its words: no text built
    assert built["texts"] == before and state.history[-1] == [p, action.text]


def test_ismcts_chooses_the_same_placement_lazily_and_listed(monkeypatch):
    """The search over a product choice by index takes the same decisions as over its listed
    texts (same random draws, same order of options)."""
    game = load_game(SPEC)
    lazy = {}
    for seed in (1, 2):
        state = game.new_state(3, seed=seed)
        assert type(legal_options(state, 0)) is ProductOptions
        lazy[seed] = ISMCTSAgent(iterations=30, seed=seed).act(state, 0)
    with monkeypatch.context() as m:  # read when options are listed
        m.setattr(program, "LAZY_PRODUCTS", False)
        for seed in (1, 2):
            state = game.new_state(3, seed=seed)
            assert type(legal_options(state, 0)) is list
            assert ISMCTSAgent(iterations=30, seed=seed).act(state, 0) == lazy[seed]


def test_len_sampling_and_checks_build_no_text(built):
    game = load_game(SPEC)
    state = game.new_state(4, seed=9)
    p = state.current_players()[0]
    actions = state.legal_actions(p)
    assert len(actions) == 1250 and built["texts"] == 0
    assert actions.index_of("place back 2 3 4 5") == 625 + 125 * 1 + 25 * 2 + 5 * 3 + 4
    assert actions.index_of("PLACE back 2 3 4 5") == 819  # ignoring case, as typed
    assert actions.index_of("place back 2 3 4 6") is None and actions.index_of("place back 2 3 4") is None
    assert built["texts"] == 0
    i = random.Random(3).randrange(len(actions))
    clone = state.clone()
    state.apply(i, p)  # by index: its text is built once, for the history
    assert built["texts"] == 1
    action = clone.legal_actions(p)[i]  # the Action's text: one more
    clone.apply(action, p)  # checked by its words: none
    assert built["texts"] == 2
    assert state.history == clone.history and state.history[-1][1] == action.text


def test_a_product_action_of_a_wrong_index_or_text_is_refused_with_a_short_list(built):
    from interpreter.model.state import Action
    game = load_game(SPEC)
    state = game.new_state(3, seed=2)
    p = state.current_players()[0]
    before = state.to_json()
    with pytest.raises(IllegalAction, match=r"not a legal action .*legal: place front 1 1 1 1, .* \.\.\.") as exc:
        state.apply(Action(p, "place front 9 1 1 1", 3), p)
    assert built["texts"] <= 13  # a dozen shown, not 1,250 listed
    assert state.to_json() == before
    assert exc.value is not None
    # an Action whose index does not match its text is found by its text
    state.apply(Action(p, "place front 1 1 1 2", 0), p)
    assert state.history[-1] == [p, "place front 1 1 1 2"]


def test_listing_for_display_gives_every_text_in_order():
    game = load_game(SPEC)
    state = game.new_state(2, seed=1)
    opts = legal_options(state, 0)
    texts = [o[0] for o in opts]
    assert len(texts) == len(set(texts)) == 1250
    assert [opts.index_of(t) for t in texts[:50]] == list(range(50))
    assert [opts.text(i) for i in range(1250)] == texts
    assert opts.value(1249) == ["back", 5, 5, 5, 5] and opts[1249][1] == opts.value(-1)
    with pytest.raises(IndexError):
        opts.text(1250)
