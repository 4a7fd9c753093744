"""The names an expression can see: :class:`Names` (what a spec's names mean, given to the
compiler), the card attributes every card has, and :class:`ExprNameError` for a name that does
not exist.
"""
from __future__ import annotations

from dataclasses import dataclass, field


# Card attributes that every card has, whatever the spec says.
CARD_BUILTIN_ATTRS = ("name", "id", "played_by", "mode")


class ExprNameError(Exception):
    """An expression uses a name, attribute or built-in that does not exist; ``hint`` suggests a fix."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message, self.hint = message, hint
        self.define = None  # the `define` whose body it is in, when found while inlining a call


@dataclass
class Names:
    """What the names of a spec mean, for the compiler.

    ``game_vars``/``player_vars``: variable names; ``game_zones``/``player_zones``:
    zone names; ``defines``: name -> parameter list (a function is looked up in
    ``functions`` at run time, so definitions may refer to each other in any order);
    ``options``: option name -> default; ``card_attrs``: every attribute name a card can have.
    """

    game_vars: set = field(default_factory=set)
    player_vars: set = field(default_factory=set)
    game_zones: set = field(default_factory=set)
    player_zones: set = field(default_factory=set)
    set_zones: set = field(default_factory=set)  # zones of sets (either kind): read as lists of lists
    defines: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    card_attrs: set = field(default_factory=set)
    functions: dict = field(default_factory=dict)  # name -> compiled f(ctx, *args), filled later
    used_options: set = field(default_factory=set)
    read_vars: set = field(default_factory=set)
    called_defines: dict = field(default_factory=dict)  # define -> set of defines it calls
    boards: set | None = None  # board names (None: not known, e.g. a scenario's eval)
    meld_kinds: set | None = None  # meld kind names (melds:; None: not known)
    derived: set = field(default_factory=set)  # derived card attributes (derived:), read through the game
    turn_phase: str | bool | None = None  # turns: {phase: NAME} (None: not known; False: not declared)
    root_defines: set = field(default_factory=set)  # defines called from outside any define


def _mentions(t, names) -> bool:
    """True when the syntax tree ``t`` reads any of ``names`` (anywhere inside, conservatively:
    an inner binding of the same name counts too)."""
    if not names:
        return False
    for sub in t.iter_subtrees():
        if sub.data == "name" and str(sub.children[0]) in names:
            return True
    return False
