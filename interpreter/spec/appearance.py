"""How a game looks at a table: the optional ``appearance:`` section of a spec (docs/spec-language.md,
Appearance), checked at load time and resolved with defaults for the web table.

A card's face comes from its attributes: a colour (one attribute, or two for a card of two halves),
a big mark (a rank or value) and, for cards with neither, a symbol or a short label. Zones go to
places on the table: a ``seat`` (one part per player, drawn at that player's place), the ``centre``
or ``none`` (not drawn on the table; still listed under "every zone"). Everything has a default, so
a spec that says nothing still gets a table: the first of the attributes ``suit``, ``colour`` or
``color`` gives the colour, ``rank``, ``value`` or ``number`` the mark, per-player zones go to the
seats and shared zones to the centre. Nothing here knows a game.
"""
from __future__ import annotations

import re
from pathlib import Path

COLOUR_ATTRS = ("suit", "colour", "color")
MARK_ATTRS = ("rank", "value", "number")
PLACES = ("seat", "centre", "none")
SHOWS = ("fan", "row", "pile")
# colours a spec may name without saying what they look like: (face tint, ink); every ink is dark
# enough on its tint for WCAG AA (4.5:1) and the tints are told apart by people with common colour
# blindness through the ink's symbol too (the suit's initial, see face()).
PALETTE = {
    "red": ("#ffd9d6", "#a3140b"), "green": ("#d5f0d8", "#17601f"), "blue": ("#d6e6ff", "#0b4a9e"),
    "yellow": ("#fff1b8", "#6b5200"), "purple": ("#ecdcff", "#5b2597"), "black": ("#e4e4e4", "#1c1c1c"),
    "orange": ("#ffe0c2", "#8a3c00"), "white": ("#ffffff", "#333333"), "pink": ("#ffdcec", "#8c1751"),
    "brown": ("#eedfd2", "#5b3a1e"), "grey": ("#e8e8e8", "#424242"), "gray": ("#e8e8e8", "#424242"),
    "hearts": ("#ffe1e1", "#a3140b"), "diamonds": ("#ffe1e1", "#a3140b"),
    "clubs": ("#e9e9e9", "#1c1c1c"), "spades": ("#e9e9e9", "#1c1c1c"),
}
SUIT_SYMBOLS = {"hearts": "♥", "diamonds": "♦", "clubs": "♣", "spades": "♠"}
# squares of a board: the colour itself, full strength (its letter is printed on it as well)
SQUARE = {"red": "#e53935", "green": "#43a047", "blue": "#1e88e5", "yellow": "#fdd835", "purple": "#8e24aa",
          "orange": "#fb8c00", "black": "#212121", "white": "#fafafa"}
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _attr_names(cards) -> set:
    return {k for c in cards for k in c.attrs}


def check(data: dict, cards, zones: dict, file: str, game_vars: set, boards: set):
    """The problems of ``data`` (the spec's ``appearance:`` mapping, schema-checked) as
    ``(path under appearance, message, hint)`` triples: attributes no card has, zones, variables
    or boards the spec does not declare, colours that are not ``#rrggbb``, image files missing
    (``file``: the spec's path; images are found next to it)."""
    out = []
    attrs = _attr_names(cards)
    for key in ("colour", "mark", "corner", "symbol_by"):
        names = data.get(key)
        for i, name in enumerate(names if isinstance(names, list) else [names] if names else []):
            if name not in attrs:
                out.append(((key,) if not isinstance(names, list) else (key, i),
                            f"no card has an attribute {name!r}",
                            "attributes: " + (", ".join(sorted(attrs)) or "none")))
    for name, colour in (data.get("colours") or {}).items():
        if not _HEX.match(str(colour)):
            out.append((("colours", name), f"colour {colour!r} is not #rrggbb", "write it as #2e7d32"))
    for name in (data.get("zones") or {}):
        if name not in zones:
            out.append((("zones", name), f"there is no zone {name!r}", "zones: " + ", ".join(zones)))
    board = data.get("board") or {}
    for key in ("covered", "tokens"):
        if board.get(key) and board[key] not in game_vars:
            out.append((("board", key), f"there is no game variable {board[key]!r}", "name the variable that holds it"))
    grid = board.get("grid")
    if grid and grid not in game_vars and grid not in boards:
        out.append((("board", "grid"), f"{grid!r} is neither a board nor a game variable",
                    "boards: " + (", ".join(sorted(boards)) or "none")))
    piles = data.get("piles") or {}
    if piles.get("list") and piles["list"] not in game_vars:
        out.append((("piles", "list"), f"there is no game variable {piles['list']!r}", "name a list of maps"))
    images = data.get("images")
    if images:
        folder = Path(file).parent
        for c in cards:
            path = folder / _fill(images, c)
            if not path.is_file():
                out.append((("images",), f"no image {path} for card {c.name}", "add the file, or remove images:"))
                break
    return out


def _fill(template: str, card) -> str:
    """``template`` with ``{name}`` and ``{ATTRIBUTE}`` replaced by the card's."""
    return re.sub(r"\{(\w+)\}", lambda m: str(card.name if m.group(1) == "name" else card.attrs.get(m.group(1), "")),
                  template)


class Appearance:
    """The resolved look of one compiled game (``game``): :meth:`face` of a card name,
    :meth:`place` and :meth:`show` of a zone, ``board`` and ``piles`` (the spec's mappings or None),
    ``image`` (the image path template or None). Built once per game (see :func:`of`)."""

    def __init__(self, game):
        data = (game.spec.get("appearance") or {}) if isinstance(game.spec, dict) else {}
        self.data = data
        attrs = _attr_names(game.cards)
        colour = data.get("colour") or next((a for a in COLOUR_ATTRS if a in attrs), None)
        self.colour = colour if isinstance(colour, list) else [colour] if colour else []
        self.mark = data.get("mark", next((a for a in MARK_ATTRS if a in attrs), None))
        self.corner = data.get("corner")
        self.symbol_by = data.get("symbol_by")
        self.symbols = {str(k): str(v) for k, v in (data.get("symbols") or {}).items()}
        self.colours = {str(k): str(v) for k, v in (data.get("colours") or {}).items()}
        self.zones = data.get("zones") or {}
        self.board, self.piles = data.get("board"), data.get("piles")
        self.image = data.get("images")
        self.back = data.get("back")
        self.by_name = {}
        self.docs = {}
        entries = (game.spec.get("cards") or []) if isinstance(game.spec, dict) else []
        made_by = getattr(game, "card_entries", None) or []
        for c in game.cards:
            self.by_name.setdefault(c.name, c)
            entry = entries[made_by[c.id]] if c.id < len(made_by) and made_by[c.id] < len(entries) else None
            if isinstance(entry, dict) and entry.get("doc"):
                self.docs.setdefault(c.name, " ".join(str(entry["doc"]).split()))
        self._faces = {}

    def tint(self, value) -> tuple:
        """``(tint, ink)`` of a colour value (a name of the palette, or the spec's ``#rrggbb`` for it)."""
        v = str(value)
        if v in self.colours:
            return _mix(self.colours[v])
        if v in PALETTE:
            return PALETTE[v]
        hue = sum(ord(ch) * 31 ** i for i, ch in enumerate(v)) % 360  # a colour the palette lacks: a stable hue
        return (f"hsl({hue} 70% 90%)", f"hsl({hue} 80% 22%)")

    def face(self, name) -> dict:
        """The face of the card called ``name``: ``{"name", "mark", "symbol", "label", "corner", "tints"
        [(tint, ink)...], "suit", "doc", "image"}`` (``mark``/``symbol`` None when it has none)."""
        if name in self._faces:
            return self._faces[name]
        card = self.by_name.get(name)
        attrs = card.attrs if card is not None else {}
        colours = [attrs.get(a) for a in self.colour if attrs.get(a) is not None]
        mark = attrs.get(self.mark) if self.mark else None
        key = str(attrs.get(self.symbol_by)) if self.symbol_by and self.symbol_by in attrs else None
        # a symbol by the card's name, else by its symbol_by attribute, else by its colour
        symbol = self.symbols.get(str(name)) or (self.symbols.get(key) if key else None)
        if symbol is None and colours:
            symbol = self.symbols.get(str(colours[0])) or SUIT_SYMBOLS.get(str(colours[0]))
        # the label: the name less what the face already shows (its colours, its mark, a seat suffix)
        label = re.sub(r"\.p\d+$", "", str(name))
        words = [w for w in re.split(r"[-_ ]+", label)
                 if w and w not in {str(c) for c in colours} and w != str(mark)]
        label = " ".join(words)
        corner = attrs.get(self.corner) if self.corner else None
        face = {"name": name, "mark": None if mark is None else str(mark), "symbol": symbol, "label": label,
                "corner": None if corner is None else str(corner),
                "tints": [self.tint(c) for c in colours] or [("#fdfbf5", "#222222")],
                "suit": " ".join(str(c) for c in colours), "doc": self.docs.get(name),
                "image": _fill(self.image, card) if self.image and card is not None else None}
        self._faces[name] = face
        return face

    def _zone(self, name) -> dict:
        z = self.zones.get(name)
        return {"place": z} if isinstance(z, str) else (z or {})

    def place(self, name, per_player: bool) -> str:
        """Where zone ``name`` is drawn: ``seat``, ``centre`` or ``none``."""
        return self._zone(name).get("place") or ("seat" if per_player else "centre")

    def show(self, name) -> str | None:
        """How zone ``name`` is drawn (``fan``, ``row`` or ``pile``), or None: the default for its content."""
        return self._zone(name).get("show")

    def title(self, name) -> str:
        """The zone's title at the table (its ``title:``, else its name with spaces)."""
        return self._zone(name).get("title") or str(name).replace("_", " ")


def _mix(hex_colour: str) -> tuple:
    """A spec's ``#rrggbb``: a light tint of it for the face, the colour darkened for the ink."""
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    tint = "#" + "".join(f"{int(x + (255 - x) * 0.8):02x}" for x in (r, g, b))
    ink = "#" + "".join(f"{int(x * 0.55):02x}" for x in (r, g, b))
    return tint, ink


def of(game) -> Appearance:
    """The :class:`Appearance` of ``game``, built once and kept on it."""
    found = getattr(game, "_appearance", None)
    if found is None:
        found = Appearance(game)
        try:
            game._appearance = found
        except AttributeError:  # a game without a __dict__: built each time
            pass
    return found
