"""Rulebook: a declarative rules interpreter for card games.

>>> from interpreter import load_game
>>> game = load_game("specs/my_game.yaml")  # any spec
>>> state = game.new_state(4, seed=1)
>>> state.legal_actions(0)[:2]          # doctest: +SKIP
"""
__version__ = "0.1.0"  # first: interpreter.cache reads it while the package imports

# The public names, each imported from its module when first used (PEP 562): importing the package
# alone, as the `rulebook` command does first, loads nothing else (see interpreter.command).
_HOME = {"load_game": "spec.loader", "check_spec": "spec.loader", "State": "model.state",
         "Action": "model.state", "IllegalAction": "errors", "RuleError": "errors",
         "RulebookError": "errors", "SpecError": "errors"}
__all__ = list(_HOME)


def __getattr__(name: str):
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'interpreter' has no attribute {name!r}")
    from importlib import import_module
    value = globals()[name] = getattr(import_module(f"{__name__}.{home}"), name)
    return value


def __dir__() -> list:
    return sorted({*globals(), *_HOME})
