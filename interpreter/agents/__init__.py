"""Bots that choose actions: :class:`RandomAgent` and :class:`HeuristicAgent`."""
from .basic import Agent, FirstLegalAgent, RandomAgent

__all__ = ["Agent", "RandomAgent", "FirstLegalAgent"]
