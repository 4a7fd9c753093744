"""Rulebook: a declarative rules interpreter for card games.

>>> from interpreter import load_game
>>> game = load_game("specs/my_game.yaml")  # any spec
>>> state = game.new_state(4, seed=1)
>>> state.legal_actions(0)[:2]          # doctest: +SKIP
"""
__version__ = "0.1.0"  # first: interpreter.cache reads it while the package imports

from .errors import IllegalAction, RuleError, RulebookError, SpecError
from .model.state import Action, State
from .spec.loader import check_spec, load_game

__all__ = ["load_game", "check_spec", "State", "Action", "IllegalAction", "RuleError", "RulebookError",
           "SpecError"]
