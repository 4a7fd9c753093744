"""Simple agents. An agent maps (State, seat) to one of that seat's legal actions."""
from __future__ import annotations

import random


class Agent:
    """Base class: ``act(state, player) -> Action`` must return one of
    ``state.legal_actions(player)``."""

    name = "agent"

    def act(self, state, player):  # pragma: no cover - abstract
        raise NotImplementedError

    def notify(self, state, player, action) -> None:
        """Called before any seat's ``action`` is applied to ``state`` (so a bot can learn what a
        seat may observe, e.g. that a player failed to follow suit). Default: nothing."""

    def reset(self) -> None:
        """Forget everything learnt in a game (called before a new game). Default: nothing."""


class RandomAgent(Agent):
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def act(self, state, player):
        return self.rng.choice(state.legal_actions(player))


class FirstLegalAgent(Agent):
    """Always the first legal action: deterministic, for tests and baselines."""

    name = "first"

    def act(self, state, player):
        return state.legal_actions(player)[0]


def random_bots(game_seed: int, num_players: int) -> list:
    """The random bots of a game played with ``game_seed``: the same in ``rulebook play`` and
    ``rulebook simulate`` (its game ``i`` has seed ``seed + i``), so any simulated game can be
    watched again with ``rulebook play SPEC --players N --seed S``."""
    return [RandomAgent(game_seed * 1_000_003 + p) for p in range(num_players)]


def play_game(game, num_players: int, seed: int, agents, trace: dict | None = None, scheduler=None,
              fast: bool = False):
    """Play one game to the end with ``agents`` (one per seat); returns the final State.
    ``trace`` (optional dict) counts the spec steps run. ``scheduler`` (a
    :class:`~interpreter.agents.schedule.Scheduler`, default round-robin) picks who acts
    next when several players may act at once. ``fast``: the game runs in the kernel's step API
    (a :class:`~interpreter.fast.steps.FastState`: the same game; search bots then search in the
    kernel)."""
    from .schedule import Scheduler
    scheduler = scheduler if scheduler is not None else Scheduler(seed=seed)
    state = game.new_state(num_players, seed, fast=True) if fast else game.new_state(num_players, seed, trace=trace)
    for agent in dict.fromkeys(agents):
        agent.reset()
    while not state.is_terminal():
        p = scheduler.next_player(state)
        step(state, agents, p)
        scheduler.acted(p)
    return state


def step(state, agents, player):
    """Ask ``agents[player]`` for an action, tell every agent about it (:meth:`Agent.notify`),
    then apply it. Returns the action applied."""
    action = agents[player].act(state, player)
    for agent in dict.fromkeys(agents):
        agent.notify(state, player, action)
    state.apply(action, player)
    return action
