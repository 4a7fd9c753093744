"""Rule tables derived from the spec itself: "who beats whom", "what a bid scores".

A spec lists under ``tables:`` the tables a reader needs to see the key rules at a glance; each
cell is the spec's own expression evaluated on a scratch position, so a table changes whenever
the rule does (``rulebook doc``, the HTML diagram and ``rulebook diff`` show them)::

    tables:
      - title: Who wins a trick of two cards
        doc: the row's card is led, the column's card follows
        rows: {name: led, cards: [red-7, trump-5, fool, joker as high, joker as low]}
        columns: {name: follows, cards: [red-7, trump-5, fool, joker as high, joker as low]}
        cell: "winner_card([led, follows])"
      - title: Classic score of a round of 5 cards
        rows: {name: bid, values: "range(0, 6)"}
        columns: {name: won, values: "range(0, 6)"}
        set: {p.bid: bid, p.tricks: won, p.bonus: 0, cards_dealt: 5}
        cell: "classic_score(p)"

Rows and columns are ``cards`` (card names, ``NAME as MODE`` for a declared mode; cards the
chosen options leave out of the deck are left out of the table) or ``values`` (a list
expression). Card rows are played by seat 0 and card columns by seat 1 (``played_by`` and
``mode`` are set as if they had been played; a card against itself takes a second copy for the
column, and is written ``—`` when there is only one); ``set`` assigns variables (``NAME`` or ``p.NAME``,
``p`` being seat 0) before each cell is computed; ``cell`` sees the row and column names and ``p``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import RulebookError


@dataclass
class TableDef:
    """A compiled ``tables:`` entry (built by the spec compiler)."""

    title: str
    doc: str
    row_name: str
    col_name: str
    rows: list        # ("cards", [(card, mode), ...]) entries, or a compiled list expression
    cols: list
    cell: object      # compiled expression f(ctx)
    assigns: list = field(default_factory=list)  # (kind, name, f): kind "var" or "player"
    path: tuple = ()


@dataclass
class RuleTable:
    """A computed table: ``rows``/``columns`` are display texts, ``cells[i][j]`` the text of the
    cell (row i, column j); ``error`` says why it could not be computed (then cells is empty)."""

    title: str
    doc: str
    row_name: str
    col_name: str
    rows: list
    columns: list
    cells: list
    line: int = 0
    error: str = ""


IMPOSSIBLE = "—"  # a cell that cannot happen in play (a card against itself, of which there is one)


def _display(value) -> str:
    from ..model.cards import Card
    if value is None:
        return "—"
    if value is True or value is False:
        return "yes" if value else "no"
    if isinstance(value, Card):
        return value.name
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return ", ".join(_display(v) for v in value)
    return str(value)


def _axis(spec, ctx) -> list:
    """``[(display text, value, mode)]`` of a rows/columns spec."""
    kind, body = spec
    if kind == "cards":
        return [(card.name + (f" as {mode}" if mode else ""), card, mode) for card, mode in body]
    values = body(ctx)
    if isinstance(values, dict):
        values = list(values)
    if not isinstance(values, list):
        raise RulebookError(f"the values to tabulate must be a list, not {_display(values)}")
    return [(_display(v), v, None) for v in values]


def compute_tables(game) -> list[RuleTable]:
    """Every ``tables:`` entry of ``game`` computed on a scratch position (a new State of
    ``max(2, min players)`` seats before any step has run, every card in the starting zone)."""
    from ..engine.context import Ctx
    from ..engine.run import describe_python_error
    from ..model.cards import Card
    from ..model.state import State
    out = []
    for t in getattr(game, "tables", ()) or ():
        pos = game.position(t.path)
        table = RuleTable(t.title, t.doc, t.row_name, t.col_name, [], [], [], pos.line)
        def fresh():
            state = State(game, max(2, game.min_players), 0)
            state.zones[game.initial_zone].extend(game.cards_in_play(state.num_players))
            return state

        try:
            ctx = Ctx(fresh())
            rows, cols = _axis(t.rows, ctx), _axis(t.cols, ctx)
            table.rows = [r[0] for r in rows]
            table.columns = [c[0] for c in cols]
            in_play = [game.cards[i] for i in game.cards_in_play(max(2, game.min_players))]
            for rtext, rv, rmode in rows:
                line = []
                for ctext, cv, cmode in cols:
                    if isinstance(rv, Card) and isinstance(cv, Card) and cv.id == rv.id:
                        # one card cannot be played twice: the column takes another copy, and
                        # with none (a card of which the deck has one) the cell cannot happen
                        cv = next((x for x in in_play if x.name == rv.name and x.id != rv.id), None)
                        if cv is None:
                            line.append(IMPOSSIBLE)
                            continue
                    scratch = fresh()
                    if isinstance(rv, Card):
                        scratch.marks[rv.id] = [0, rmode]
                    if isinstance(cv, Card):
                        scratch.marks[cv.id] = [1, cmode]
                    c = Ctx(scratch)
                    c.bound = {t.row_name: rv, t.col_name: cv, "p": 0}
                    for kind, name, f in t.assigns:
                        value = f(c)
                        (scratch.pvars[0] if kind == "player" else scratch.vars)[name] = value
                        if type(value) in (list, dict):
                            scratch.note_nested(kind, name)
                    c.work = 0
                    value = t.cell(c)
                    # the row's or column's card is named as on its axis ("joker as high")
                    line.append(ctext if isinstance(cv, Card) and value is cv else
                                rtext if value is rv and isinstance(rv, Card) else _display(value))
                table.cells.append(line)
        except RulebookError as exc:
            table.cells, table.error = [], str(exc).split("\n")[0]
        except (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError) as exc:
            table.cells, table.error = [], describe_python_error(exc)
        out.append(table)
    return out


def table_markdown(t: RuleTable) -> list[str]:
    """A computed table as Markdown lines (a heading line, the doc, the table)."""
    lines = [f"### {t.title}", ""]
    if t.doc:
        lines += [f"*{t.doc}*", ""]
    if t.error:
        return lines + [f"(cannot be computed: {t.error})", ""]
    corner = f"{t.row_name} \\ {t.col_name}"
    lines.append("| " + " | ".join([corner] + t.columns) + " |")
    lines.append("|" + "---|" * (len(t.columns) + 1))
    for name, row in zip(t.rows, t.cells):
        lines.append("| " + " | ".join([f"**{name}**"] + row) + " |")
    return lines + [""]


def table_html(t: RuleTable) -> str:
    """A computed table as an HTML ``<table>`` with its title."""
    import html
    e = html.escape
    head = f"<h3>{e(t.title)}</h3>" + (f"<p class='doc'>{e(t.doc)}</p>" if t.doc else "")
    if t.error:
        return head + f"<p>(cannot be computed: {e(t.error)})</p>"
    rows = "".join("<tr><th>" + e(name) + "</th>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>"
                   for name, row in zip(t.rows, t.cells))
    cols = "".join(f"<th>{e(c)}</th>" for c in t.columns)
    return (head + f"<table class='rules'><thead><tr><th>{e(t.row_name)} \\ {e(t.col_name)}</th>{cols}</tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def _line(t: RuleTable, what: str, item: str) -> str:
    """The cells of one row or column of ``t``, as ``other: cell`` pairs."""
    if what == "row":
        return ", ".join(f"{c} {v}" for c, v in zip(t.columns, t.cells[t.rows.index(item)]))
    j = t.columns.index(item)
    return ", ".join(f"{r} {row[j]}" for r, row in zip(t.rows, t.cells))


def table_changes(a: RuleTable, b: RuleTable) -> list[str]:
    """What differs in a table between two specs, as sentences: rows and columns added (with
    their cells) or removed, then the cells that changed."""
    if a.error or b.error:
        return [] if a.error == b.error else [f"{b.title}: {b.error or 'now computed'}"]
    out = []
    for what, name, old, new in (("row", b.row_name, a.rows, b.rows), ("column", b.col_name, a.columns, b.columns)):
        added, removed = [x for x in new if x not in old], [x for x in old if x not in new]
        for verb, items in (("new", added), ("no longer", removed)):
            if items:
                plural = "s" if len(items) > 1 else ""
                out.append(f"{b.title}: {verb} {what}{plural} {name} " + ", ".join(items) +
                           (": " + "; ".join(_line(b, what, x) for x in items) if verb == "new" else ""))
    ca = {(r, c): a.cells[i][j] for i, r in enumerate(a.rows) for j, c in enumerate(a.columns)}
    cb = {(r, c): b.cells[i][j] for i, r in enumerate(b.rows) for j, c in enumerate(b.columns)}
    for key in [k for k in cb if k in ca and ca[k] != cb[k]]:
        out.append(f"{b.title}: {b.row_name} {key[0]}, {b.col_name} {key[1]}: {ca[key]} → {cb[key]}")
    return out
