"""Chance nodes: ``shuffle`` and ``random`` steps as decisions of the chance player, on request.

``game.new_state(n, seed, chance=True)`` makes every ``shuffle`` and ``random`` step stop the rules
and wait for an outcome: ``state.current_players()`` is then ``[CHANCE]`` (-1, as in OpenSpiel),
``state.chance_outcomes()`` lists ``(Action, probability)`` pairs, and ``state.apply(outcome,
CHANCE)`` fixes it and runs on. The history records it as ``[-1, text]``, so ``game.replay`` (which
sees the ``-1`` entries and asks for chance nodes itself) gives the same game again.

Outcomes (their texts):

- a ``random`` step drawing from ``k`` items: ``outcome 0`` .. ``outcome k-1`` (the item's position in
  the list), each with probability ``1/k`` (exact);
- a ``shuffle`` of ``m`` cards: when the distinct orders of those cards (identical cards are not told
  apart) are at most ``samples`` (``chance_samples``, default 24), every order is listed, as
  ``order A, B, C`` (the zone's cards bottom first, the top card last) with its exact probability;
  otherwise ``samples`` seeded outcomes ``outcome 0`` .. ``outcome samples-1`` are listed, each with
  probability ``1/samples``: outcome ``k`` is the order a generator seeded with the State's seed, the
  shuffle's number and ``k`` gives, so a search branches on a uniform sample of the orders (not on all
  ``m!``). Any order may also be applied as ``order ...`` even when it is not listed: that is how a
  deal is injected (a stacked deck dealt by the spec's own ``deal`` step). ``outcome k`` with any
  ``k >= 0`` is accepted as well.
"""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter

from ..errors import IllegalAction
from ..model.state import CHANCE

__all__ = ["CHANCE", "ChanceNeeded", "outcomes", "apply"]
DEFAULT_SAMPLES = 24


class ChanceNeeded(Exception):
    """Raised inside a step by the State's generator when chance mode needs an outcome; the run
    loop turns it into a chance node (the step runs again once the outcome is given)."""

    def __init__(self, kind, n, ids=None):
        super().__init__(kind)
        self.kind, self.n, self.ids = kind, n, ids


def new_chance(samples: int | None) -> dict:
    """The ``state.chance`` record of a State in chance mode."""
    samples = DEFAULT_SAMPLES if samples is None else samples
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise IllegalAction(f"chance_samples must be a whole number >= 1, not {samples!r}")
    return {"queue": [], "used": 0, "samples": samples}


def next_outcome(state, kind, n, ids=None):
    """The outcome given for the next chance draw of this step, or raise ChanceNeeded."""
    ch = state.chance
    if ch["used"] < len(ch["queue"]):
        out = ch["queue"][ch["used"]]
        ch["used"] += 1
        return out
    raise ChanceNeeded(kind, n, ids)


def pend(state, need: ChanceNeeded) -> None:
    """Make the State wait for the chance player (called by the run loop)."""
    state.chance["used"] = 0
    node = {"kind": need.kind, "n": need.n}
    if need.ids is not None:
        node["cards"] = sorted(need.ids)
    state.pending = {"players": [CHANCE], "committed": {}, "simultaneous": False, "chance": node}


def _orders(game, ids):
    """Distinct orders (by name) of ``ids`` and how many permutations give each."""
    names = sorted(game.cards[i].name for i in ids)
    counts = Counter(names)
    distinct = math.factorial(len(names))
    for c in counts.values():
        distinct //= math.factorial(c)
    return names, counts, distinct


def outcomes(state) -> list:
    """``[(text, probability), ...]`` of the chance node ``state`` waits at."""
    node = state.pending["chance"]
    if node["kind"] == "random":
        return [(f"outcome {i}", 1 / node["n"]) for i in range(node["n"])]
    names, _, distinct = _orders(state.game, node["cards"])
    samples = state.chance["samples"]
    if distinct <= samples:
        seen = sorted(set(itertools.permutations(names)))
        return [(f"order {', '.join(p)}", 1 / distinct) for p in seen]
    return [(f"outcome {k}", 1 / samples) for k in range(samples)]


def apply(state, action) -> str:
    """Fix the outcome ``action`` (text, index into :func:`outcomes`, or Action); returns the text
    recorded. Raises IllegalAction for an outcome the node cannot have."""
    from ..model.state import Action
    node = state.pending["chance"]
    listed = outcomes(state)
    if type(action) is Action:
        action = action.text
    if isinstance(action, int) and not isinstance(action, bool):
        if not 0 <= action < len(listed):
            raise IllegalAction(f"chance outcome index {action} is out of range 0..{len(listed) - 1}")
        action = listed[action][0]
    if not isinstance(action, str):
        raise IllegalAction(f"a chance outcome is a text or an index, not {type(action).__name__}")
    text = " ".join(action.split())
    verb, _, rest = text.partition(" ")
    if verb == "outcome":
        try:
            k = int(rest)
        except ValueError:
            raise IllegalAction(f"{text!r}: write 'outcome K' with a whole number K") from None
        if k < 0 or (node["kind"] == "random" and k >= node["n"]):
            top = f"0..{node['n'] - 1}" if node["kind"] == "random" else "0 or more"
            raise IllegalAction(f"{text!r}: the outcome must be {top}")
        entry = ["index", k] if node["kind"] == "random" else ["seed", k]
    elif verb == "order" and node["kind"] == "shuffle":
        names = [n.strip() for n in rest.split(",")] if rest.strip() else []
        want, counts, _ = _orders(state.game, node["cards"])
        if Counter(names) != counts:
            extra = sorted((Counter(names) - counts).elements())
            missing = sorted((counts - Counter(names)).elements())
            said = "; ".join(x for x in (f"not shuffled here: {', '.join(extra[:5])}" if extra else "",
                                         f"missing: {', '.join(missing[:5])}" if missing else "") if x)
            raise IllegalAction(f"this order is not an order of the {len(want)} cards shuffled here ({said})")
        entry = ["order", names]
        text = f"order {', '.join(names)}"
    else:
        what = "'outcome K'" + (" or 'order A, B, ...'" if node["kind"] == "shuffle" else "")
        raise IllegalAction(f"{text!r} is not a chance outcome here: write {what}")
    state.chance["queue"].append(entry)
    return text


def shuffle_with(state, ids, entry) -> None:
    """Order ``ids`` in place by the chance outcome ``entry``."""
    if entry[0] == "seed":
        rng = random.Random(f"{state.seed}/{state.rng_count}/{entry[1]}")
        rng.shuffle(ids)
    else:
        pool = {}
        for i in sorted(ids):
            pool.setdefault(state.game.cards[i].name, []).append(i)
        ids[:] = [pool[name].pop(0) for name in entry[1]]
