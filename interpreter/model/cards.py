"""Cards: immutable entries of a game's card table."""
from __future__ import annotations


class Card:
    """One physical card. ``id`` is its index in the game's card table (int),
    ``name`` its readable name (str; copies of one card share a name) and
    ``attrs`` its attributes (dict str -> plain value). Cards compare by identity:
    two Escapes are two cards with the same name. ``seat`` is the seat a card of a
    ``per_player`` entry belongs to (int), None for the cards every game uses: a game of n
    players plays with the cards whose seat is None or below n."""

    __slots__ = ("id", "name", "attrs", "modes", "seat")

    def __init__(self, id: int, name: str, attrs: dict, modes: dict | None = None, seat: int | None = None):
        self.id = id
        self.name = name
        self.attrs = attrs
        self.modes = modes or {}
        self.seat = seat

    def __repr__(self) -> str:
        return self.name

    def __lt__(self, other: "Card") -> bool:  # stable display order: the card table's
        return self.id < other.id


def card_attr(card: Card, mark, name: str):
    """``card.NAME`` as printed: ``name``, ``id``, ``played_by`` and ``mode`` (from ``mark``, the
    State's ``[seat, mode]`` for a played card, or None), else the declared mode's value when the
    card was played in one, else its attribute (None when it has none)."""
    if name == "name":
        return card.name
    if name == "played_by":
        return mark[0] if mark else None
    if name == "mode":
        return mark[1] if mark else None
    if name == "id":
        return card.id
    if mark and mark[1] is not None:
        override = card.modes.get(mark[1])
        if override and name in override:
            return override[name]
    return card.attrs.get(name)
