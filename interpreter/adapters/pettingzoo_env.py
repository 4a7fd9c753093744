"""A PettingZoo AEC environment (and a parallel one) for any spec (needs the ``pettingzoo`` extra).

    from interpreter.adapters.pettingzoo_env import env
    e = env("specs/GAME.yaml", players=4)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (seats). The agent to act is the first current player
(in a simultaneous step the others follow one by one, none seeing the others' secret choices; in a
real-time block, the next seat clockwise after the last one that acted, among those who may act:
:func:`~interpreter.agents.schedule.round_robin_seat`). Observations are dicts: ``observation``
(``float32``, ``Spaces.observation``) and ``action_mask`` (``int8``); actions are ids of the spec's fixed action
space (:class:`~interpreter.adapters.spaces.Spaces`; ``set_encoding`` chooses how set choices are
encoded). Rewards come at the end of the game: ``reward="win"`` (default) gives each winner ``1 /
number of winners`` and the others 0; ``reward="score"`` gives the spec's final scores.
``reset(seed=S)`` deals game seed ``S``; without a seed, the next game seed.

``schedule`` says who is selected: ``"turns"`` (default) the player the rules ask; ``"cycles"``
every seat in turn, one step each per cycle, as PettingZoo's cycle-based environments do: a seat
the rules do not ask now has only the extra ``wait`` id (the last id, ``wait_id``) in its mask and
waits. ``max_cycles=N`` truncates a game after ``N`` cycles (``N`` times the number of players
steps). ``illegal`` says what an illegal action id does: ``"raise"`` (default: RulebookError with
the reason, nothing changes) or ``"random"`` (a legal action drawn by the env's seeded generator is
played instead, and ``infos[agent]["illegal_action"]`` holds the id given). :func:`parallel_env`
plays one cycle per step, each agent's action used on its turns. The environments pickle (the game
as its spec text and options, the position as ``State.to_json``).
"""
from __future__ import annotations

import operator
import random
from types import SimpleNamespace

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv

from ..agents.schedule import round_robin_seat
from ..errors import RulebookError
from ..spec.loader import load_game
from .spaces import Spaces


def env(spec, players: int, options: dict | None = None, **kwargs):
    """The environment of ``spec`` (a path) for ``players`` seats (see :class:`RulebookAECEnv`)."""
    return RulebookAECEnv(load_game(spec, options or {}), players, **kwargs)


def parallel_env(spec, players: int, options: dict | None = None, **kwargs):
    """The parallel environment of ``spec`` (see :class:`RulebookParallelEnv`)."""
    return RulebookParallelEnv(env(spec, players, options, **kwargs))


def module_for(spec, players: int, options: dict | None = None, **kwargs) -> SimpleNamespace:
    """An object with ``env(**kw)`` and ``parallel_env(**kw)`` bound to ``spec``, ``players``,
    ``options`` and ``kwargs``: what PettingZoo's ``max_cycles_test(mod)`` calls."""
    def make(**kw):
        return env(spec, players, options, **{**kwargs, **kw})

    def make_parallel(**kw):
        return RulebookParallelEnv(make(**kw))
    return SimpleNamespace(env=make, parallel_env=make_parallel)



def action_id(action):
    """``action`` as an int action id (an int or a NumPy integer), or None; raises RulebookError for
    anything else (a text, a float), which is not an id: the ids index the action mask."""
    if action is None:
        return None
    try:
        return operator.index(action)
    except TypeError:
        raise RulebookError(f"an action is an integer id (an index of the action mask), not {action!r}; "
                            f"Spaces.action_id(text) gives the id of an action's text") from None

class RulebookAECEnv(AECEnv):
    """PettingZoo AEC environment of a compiled game (see the module doc). ``spaces_`` may pass a
    prebuilt :class:`Spaces` (else one is built with ``set_encoding``)."""

    metadata = {"render_modes": ["human", "ansi"], "name": "rulebook_v0", "is_parallelizable": True}

    def __init__(self, game, players: int, reward: str = "win", render_mode: str | None = None,
                 spaces_: Spaces | None = None, set_encoding: str = "auto", max_cycles: int | None = None,
                 illegal: str = "raise", schedule: str = "turns", discovery: int = 2):
        super().__init__()
        if reward not in ("win", "score"):
            raise ValueError(f"reward is 'win' or 'score', not {reward!r}")
        if illegal not in ("raise", "random"):
            raise ValueError(f"illegal is 'raise' or 'random', not {illegal!r}")
        self.game, self.n, self.reward_kind, self.render_mode = game, players, reward, render_mode
        if schedule not in ("turns", "cycles"):
            raise ValueError(f"schedule is 'turns' or 'cycles', not {schedule!r}")
        self.max_cycles, self.illegal, self.schedule = max_cycles, illegal, schedule
        self.spaces = spaces_ or Spaces(game, players, set_encoding=set_encoding, discovery=discovery)
        # the wait id of schedule="cycles" (None otherwise)
        self.wait_id = self.spaces.num_actions if schedule == "cycles" else None
        size = self.spaces.num_actions + (schedule == "cycles")
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.spaces.observation_size,), np.float32),
            "action_mask": spaces.Box(0, 1, (size,), np.int8)})
        self._size = size
        self._obs_spaces = {a: obs_space for a in self.possible_agents}
        self._act_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self._next_seed = 0
        self._rng = random.Random(0)
        self.state = None

    def observation_space(self, agent):
        return self._obs_spaces[agent]

    def action_space(self, agent):
        return self._act_spaces[agent]

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._next_seed = int(seed)
        self._rng = random.Random(self._next_seed)
        self.state = self.game.new_state(self.n, self._next_seed)
        self._next_seed += 1
        self._turns = 0
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self._select(0)

    def _select(self, seat_in_cycle):
        if self.schedule == "cycles":
            return self.possible_agents[seat_in_cycle]
        return self.possible_agents[round_robin_seat(self.state)]

    def _waits(self, seat) -> bool:
        return self.schedule == "cycles" and seat not in self.state.current_players()

    def legal_ids(self, seat) -> list:
        """The legal ids of ``seat`` now (``[wait_id]`` when it waits)."""
        if self._waits(seat):
            return [self.wait_id]
        return self.spaces.legal_ids(self.state, seat)

    def observe(self, agent):
        seat = self._index[agent]
        mask = np.zeros(self._size, dtype=np.int8)
        if agent == self.agent_selection and not self.state.is_terminal():
            mask[self.legal_ids(seat)] = 1
        return {"observation": self.spaces.observation(self.state, seat), "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._index[agent]
        legal = self.legal_ids(seat)
        self.infos[agent] = {}
        action = action_id(action)
        if action is None or action not in legal:
            if self.illegal == "raise":
                raise RulebookError(f"action {action!r} is not legal for {agent} now"
                                    + (f" ({self.spaces.action_text(int(action))!r})"
                                       if action is not None and 0 <= int(action) < self.spaces.num_actions else "")
                                    + f"; the legal ids are the 1s of the action mask ({len(legal)} of them)")
            self.infos[agent] = {"illegal_action": action}
            action = self._rng.choice(legal)
        if action != self.wait_id:
            self.state.apply(self.spaces.action_for(self.state, seat, int(action)), seat)
        self._turns += 1
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
            self.agent_selection = self._select(self._turns % self.n)
            if self.max_cycles is not None and self._turns >= self.max_cycles * self.n:
                self.truncations = {a: True for a in self.agents}
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


class RulebookParallelEnv(ParallelEnv):
    """A parallel view of a :class:`RulebookAECEnv`: each ``step(actions)`` plays one cycle (as
    many turns as there are players), whoever's turn it is taking ``actions[agent]`` (an agent
    without an action, or whose action is not legal on a later turn of the cycle, plays by the AEC
    env's ``illegal`` rule). Rewards are summed over the cycle. Agents leave when the game ends or
    is truncated."""

    metadata = RulebookAECEnv.metadata

    def __init__(self, aec: RulebookAECEnv):
        self.aec = aec
        self.possible_agents = aec.possible_agents
        self.render_mode = aec.render_mode

    def observation_space(self, agent):
        return self.aec.observation_space(agent)

    def action_space(self, agent):
        return self.aec.action_space(agent)

    def reset(self, seed=None, options=None):
        self.aec.reset(seed=seed, options=options)
        self.agents = self.aec.agents[:]
        return {a: self.aec.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def step(self, actions):
        aec = self.aec
        total = {a: 0.0 for a in self.agents}
        infos = {a: {} for a in self.agents}
        for _ in range(aec.n):
            agent = aec.agent_selection
            if aec.terminations[agent] or aec.truncations[agent]:
                break
            action = action_id(actions.get(agent))
            legal = aec.legal_ids(aec._index[agent])
            if action is None or action not in legal:
                if aec.illegal == "raise" and action is not None:
                    aec.step(action)  # raises, saying why
                infos[agent] = {"illegal_action": action}
                action = aec._rng.choice(legal)
            aec.step(action)
            for a in total:
                total[a] += aec.rewards.get(a, 0.0)
        terms = {a: aec.terminations[a] for a in self.agents}
        truncs = {a: aec.truncations[a] for a in self.agents}
        obs = {a: aec.observe(a) for a in self.agents}
        self.agents = [a for a in self.agents if not (terms[a] or truncs[a])]
        return obs, total, terms, truncs, infos

    def render(self):
        return self.aec.render()

    def close(self):
        pass
