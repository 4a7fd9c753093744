"""Bots by name: ``KIND[:budget]`` texts, as ``--bot SEAT=KIND[:budget]`` takes them.

Kinds: ``random``, ``first`` (first legal action), ``greedy`` (:class:`~.search.GreedyAgent`),
``ismcts`` (:class:`~.search.ISMCTSAgent`). A budget is a whole number of iterations (``ismcts:500``,
deterministic for a given seed) or a time per decision in seconds of CPU time (``ismcts:0.1s``,
``greedy:0.05s``, ``ismcts:100ms``; a number with a decimal point is also read as seconds). Without a budget the search bots use
200 iterations.
"""
from __future__ import annotations

from ..errors import RulebookError
from .basic import FirstLegalAgent, RandomAgent

KINDS = ("random", "first", "greedy", "ismcts")


def parse_budget(text: str) -> dict:
    """``"500"`` -> ``{"iterations": 500}``; ``"0.1s"``, ``"100ms"`` or ``"0.1"`` ->
    ``{"seconds": 0.1}``. Raises RulebookError for anything else."""
    t = text.strip().lower()
    try:
        if t.endswith("ms"):
            value = {"seconds": float(t[:-2]) / 1000}
        elif t.endswith("s"):
            value = {"seconds": float(t[:-1])}
        elif "." in t:
            value = {"seconds": float(t)}
        else:
            value = {"iterations": int(t)}
    except ValueError:
        raise RulebookError(f"bad bot budget {text!r}: write a number of iterations (500) or a time "
                            f"per decision (0.1s, 100ms)") from None
    v = next(iter(value.values()))
    if not v > 0:
        raise RulebookError(f"bad bot budget {text!r}: it must be more than 0")
    return value


def make_agent(text: str, seed: int):
    """An agent from ``KIND[:budget]`` with its own seeded generator. Raises RulebookError."""
    kind, colon, budget = text.strip().lower().partition(":")
    if colon and not budget.strip():
        raise RulebookError(f"bad bot budget in {text!r}: after the colon, a number of iterations ({kind}:500) or "
                            f"a time per decision ({kind}:0.1s); or no colon for the default")
    if kind not in KINDS:
        raise RulebookError(f"unknown bot {kind!r}: the bots are {', '.join(KINDS)}")
    if kind == "random":
        agent = RandomAgent(seed)
    elif kind == "first":
        agent = FirstLegalAgent()
    else:
        from .search import GreedyAgent, ISMCTSAgent
        cls = ISMCTSAgent if kind == "ismcts" else GreedyAgent
        agent = cls(seed=seed, **(parse_budget(budget) if budget else {}))
    if budget and kind in ("random", "first"):
        raise RulebookError(f"the {kind} bot takes no budget (got {text!r})")
    agent.label = f"{kind}:{budget}" if budget else kind
    return agent


def parse_bots(items, num_players: int) -> dict:
    """``["1=ismcts:0.1s", "2=greedy"]`` -> ``{1: "ismcts:0.1s", 2: "greedy"}``, checked (each seat
    in range, given once, a known kind and budget). Raises RulebookError."""
    out = {}
    for item in items or []:
        seat, eq, kind = item.partition("=")
        try:
            seat_no = int(seat)
        except ValueError:
            seat_no = None
        if not eq or seat_no is None:
            raise RulebookError(f"--bot {item!r}: write SEAT=KIND[:budget], e.g. 0=ismcts:0.1s")
        if not 0 <= seat_no < num_players:
            raise RulebookError(f"--bot {item!r}: there is no seat {seat_no} ({num_players} players: "
                                f"seats 0..{num_players - 1})")
        if seat_no in out:
            raise RulebookError(f"--bot {item!r}: seat {seat_no} is given twice")
        make_agent(kind, 0)  # check it now
        out[seat_no] = kind.strip().lower()
    return out


def bots_for(game_seed: int, num_players: int, kinds: dict) -> list:
    """The bots of a game played with ``game_seed``: ``kinds[seat]`` (``KIND[:budget]``) or a
    random bot; seeded like :func:`~.basic.random_bots` so play and simulate agree."""
    agents = [make_agent(kinds.get(p, "random"), game_seed * 1_000_003 + p) for p in range(num_players)]
    for p, agent in enumerate(agents):
        if hasattr(agent, "dets"):
            agent.seat = p  # a search bot learns what its seat observes from the first action on
    return agents


def describe(num_players: int, kinds: dict) -> list:
    """The label of each seat's bot (``"random"``, ``"ismcts:0.1s"``...)."""
    return [kinds.get(p, "random") for p in range(num_players)]
