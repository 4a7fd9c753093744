"""A PettingZoo AEC environment for any spec (needs the ``pettingzoo`` extra).

    from interpreter.adapters.pettingzoo_env import env
    e = env("specs/GAME.yaml", players=4)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (seats). The agent to act is the first current player
(in a simultaneous step the others follow one by one, none seeing the others' secret choices; in a
real-time block, the first who may act). Observations are dicts: ``observation`` (``float32``,
``Spaces.observation``) and ``action_mask`` (``int8``); actions are ids of the spec's fixed action
space (:class:`~interpreter.adapters.spaces.Spaces`). Rewards come at the end of the game:
``reward="win"`` (default) gives each winner ``1 / number of winners`` and the others 0;
``reward="score"`` gives the spec's final scores. ``reset(seed=S)`` deals game seed ``S``; without a
seed, the next game seed.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..spec.loader import load_game
from .spaces import Spaces


def env(spec, players: int, options: dict | None = None, **kwargs):
    """The environment of ``spec`` (a path) for ``players`` seats (see :class:`RulebookAECEnv`)."""
    return RulebookAECEnv(load_game(spec, options or {}), players, **kwargs)


class RulebookAECEnv(AECEnv):
    """PettingZoo AEC environment of a compiled game (see the module doc). ``spaces`` may pass a
    prebuilt :class:`Spaces` (else one is built with ``discovery`` games)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "rulebook_v0", "is_parallelizable": False}

    def __init__(self, game, players: int, reward: str = "win", render_mode: str | None = None,
                 spaces_: Spaces | None = None, discovery: int = 10):
        super().__init__()
        if reward not in ("win", "score"):
            raise ValueError(f"reward is 'win' or 'score', not {reward!r}")
        self.game, self.n, self.reward_kind, self.render_mode = game, players, reward, render_mode
        self.spaces = spaces_ or Spaces(game, players, discovery=discovery)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.spaces.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self.spaces.num_actions,), np.int8)})
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(self.spaces.num_actions) for a in self.possible_agents}
        self._next_seed = 0
        self.state = None

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._next_seed = int(seed)
        self.state = self.game.new_state(self.n, self._next_seed)
        self._next_seed += 1
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.state.current_players()[0]]

    def observe(self, agent):
        seat = self._index[agent]
        mask = (self.spaces.mask(self.state, seat) if agent == self.agent_selection and not self.state.is_terminal()
                else np.zeros(self.spaces.num_actions, dtype=np.int8))
        return {"observation": self.spaces.observation(self.state, seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._index[agent]
        self.state.apply(self.spaces.action_text(int(action)), seat)
        self._cumulative_rewards[agent] = 0.0
        if self.state.is_terminal():
            if self.reward_kind == "win":
                winners = self.state.winners()
                self.rewards = {a: (1.0 / len(winners) if i in winners else 0.0)
                                for i, a in enumerate(self.possible_agents)}
            else:
                self.rewards = {a: float(s) for a, s in zip(self.possible_agents, self.state.scores())}
            self.terminations = {a: True for a in self.agents}
        else:
            self.rewards = {a: 0.0 for a in self.agents}
            self.agent_selection = self.possible_agents[self.state.current_players()[0]]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        text = f"{self.game.name}: history {len(self.state.history)} actions; to act: {self.state.current_players()}"
        if self.render_mode == "human":
            print(text)
        return text

    def close(self):
        pass
