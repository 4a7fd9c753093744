"""Bots that choose actions: :class:`RandomAgent` and :class:`FirstLegalAgent`."""
from .basic import Agent, FirstLegalAgent, RandomAgent, play_game, random_bots

__all__ = ["Agent", "RandomAgent", "FirstLegalAgent", "play_game", "random_bots"]
