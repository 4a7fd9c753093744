"""Values, texts and card attributes in the typed kernel (:mod:`interpreter.fast.typepass`): the card
attribute table (``ATTR``), a spec's constant as the number the kernel holds, and the type of a value.

A mixin of :class:`~interpreter.fast.typepass.Lowering`."""
from __future__ import annotations

from .lowtypes import BOOL, CARD, EMPTY, INT, NO_OVERRIDE, NUL, NULL, NotTyped, TEXT, TEXT_BASE, _join
from . import boards, compound, mapvars


def _declared_attributes(entries) -> dict:
    """Attribute name -> the type of its literal values (or NUL when none is a plain literal), in
    the order the spec's card entries (``cards:``; their ``each``, ``attributes`` and modes) name
    them, whatever their ``when``."""
    out: dict = {}
    for entry in entries or []:
        if not isinstance(entry, dict):
            continue
        values = [(k, v) for k, vs in (entry.get("each") or {}).items() for v in (vs if isinstance(vs, list) else [None])]
        values += list((entry.get("attributes") or {}).items())
        values += [(k, v) for m in (entry.get("modes") or {}).values() for k, v in (m or {}).items()]
        for k, v in values:
            ty = NUL if isinstance(v, str) and not v else {bool: BOOL, int: INT, str: TEXT}.get(type(v), NUL)
            joined = _join(out.get(k, NUL), ty)
            out[k] = joined if joined is not None else out.get(k, NUL)
    return out


class Values:
    """The card table, constants and their types (methods of :class:`~interpreter.fast.typepass.Lowering`)."""

    def card_table(self) -> list:
        """The card attribute table (rows of ``ATTR``: each attribute, name, id, modes, what each mode
        sets, name number), with the attributes' types, the mode rows' places and whether names are
        unique set on ``self``. Raises NotTyped for a value the kernel cannot hold."""
        # card attributes: those the spec's card entries name, whichever cards the options keep (the
        # same rows and types for every option set: one module for them all)
        declared = _declared_attributes(self.spec.get("cards"))
        names = list(declared)
        for card in self.game.cards:
            for k in card.attrs:
                if k not in names:
                    names.append(k)
        self.attr_index = {k: i for i, k in enumerate(names)}
        self.attr_index.update({"name": len(names), "id": len(names) + 1})
        self.attr_types: dict = {}
        table = []
        for k in names:
            col, t = [], declared.get(k, NUL)
            for card in self.game.cards:
                v = card.attrs.get(k)
                col.append(self.value(v, f"card attribute {k}"))
                t = _join(t, self.type_of_value(v))
                if t is None:
                    raise NotTyped(f"card attribute {k!r} holds values of several kinds", "cards")
            table.append(col)
            self.attr_types[k] = t if t != NUL else INT
        table.append([self.text(c.name) for c in self.game.cards])
        table.append(list(range(self.ncards)))
        self.attr_types["name"], self.attr_types["id"] = TEXT, INT
        # a card's modes (played as one of several kinds): how many, then each one's text
        self.modes = [list(c.modes or ()) for c in self.game.cards]
        self.max_modes = max(len(m) for m in self.modes)
        self.nmodes_row = len(table)
        table.append([len(m) for m in self.modes])
        for k in range(self.max_modes):
            table.append([self.value(m[k], "a mode") if k < len(m) else NULL for m in self.modes])
        self.n_attrs = len(names)
        for k in range(self.max_modes):  # what each mode sets: attribute a of mode k, or NO_OVERRIDE
            for a in names:
                row = []
                for card, m in zip(self.game.cards, self.modes):
                    over = card.modes.get(m[k]) if k < len(m) else None
                    row.append(self.value(over[a], f"mode attribute {a}") if over and a in over else NO_OVERRIDE)
                    if over and a in over and _join(self.attr_types[a], self.type_of_value(over[a])) is None:
                        raise NotTyped(f"mode {m[k]!r} sets attribute {a!r} to another kind of value", "cards")
                table.append(row)
        # each card's name as a small number (cards of one name give one option: see s_choose)
        name_ids: dict = {}
        self.name_id_row = len(table)
        table.append([name_ids.setdefault(c.name, len(name_ids)) for c in self.game.cards])
        self.names_unique = len({c.name for c in self.game.cards}) == self.ncards
        return table

    # -- values and texts ---------------------------------------------------------------------
    def text(self, s: str) -> int:
        n = compound.numeral(s)
        if n is not None:  # a whole number written plainly: str(n) of a run-time number equals it
            return compound.NUMERAL_BASE + n
        if s not in self.texts:
            self.texts[s] = boards.cell_slot(s, len(self.texts))  # (a cell name: its own place, boards.py)
        return TEXT_BASE + self.texts[s]

    def value(self, v, what="a value") -> int:
        if v is None or (isinstance(v, (list, dict)) and what.startswith("variable")):
            return NULL  # (a list in a variable is written where it is read: see teams.py)
        if isinstance(v, bool):
            return int(v)
        if isinstance(v, int):
            if not -(2 ** 61) < v < 2 ** 61:
                raise NotTyped(f"{what}: the number {v} is too large for the kernel")
            return v
        if isinstance(v, str):
            if v == "":
                raise NotTyped(f"{what}: an empty text (false as a condition, unlike every other text)")
            return self.text(v)
        from ..model.cards import Card
        if isinstance(v, Card):
            return v.id
        raise NotTyped(f"{what} holds a {type(v).__name__} (the kernel knows numbers, texts, cards and null)")

    def type_of_value(self, v, what="a value"):
        if v is None:
            return NUL
        if isinstance(v, list) and not v and what.startswith("variable"):
            return EMPTY
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, str):
            return TEXT
        from ..model.cards import Card
        if isinstance(v, Card):
            return CARD
        raise NotTyped(f"{what} holds a {type(v).__name__} (a list or map: the kernel knows numbers, texts, "
                       f"cards and null)")

    def typed_default(self, v, what, path):
        """The type of a variable's default value; NotTyped located at the variable (``path``)."""
        known = self.constant_list(v, path) or self.player_map(v, path) or mapvars.game_map(self, v, path)
        if known is not None:
            return known
        try:
            return self.type_of_value(v, what)
        except NotTyped as exc:
            raise NotTyped(exc.reason, path) from None

    def fresh(self, prefix="t"):
        self.counter += 1
        return f"{prefix}{self.counter}"
