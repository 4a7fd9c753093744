"""Rule tables derived from the spec, captions, and diagrams that read as rules (issue 14 §1)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from interpreter import SpecError, load_game
from interpreter.analysis.diff import spec_diff
from interpreter.analysis.export import render
from interpreter.analysis.graph import flow_graph
from interpreter.analysis.rulesdoc import rules_markdown
from interpreter.analysis.tables import compute_tables

ROOT = Path(__file__).resolve().parents[1]
SK = ROOT / "specs" / "skull_king.yaml"
KINGS = "    else first(kings) if count(kings) > 0\n    else first(pirates) if count(pirates) > 0\n"
PIRATES = "    else first(pirates) if count(pirates) > 0\n    else first(kings) if count(kings) > 0\n"


@pytest.fixture
def house(tmp_path):
    path = tmp_path / "house.yaml"
    path.write_text(SK.read_text().replace(KINGS, PIRATES))
    return path


def _cell(table, row, col):
    return table.cells[table.rows.index(row)][table.columns.index(col)]


def test_who_beats_whom_is_computed_from_the_spec_and_follows_a_rule_change(house):
    (trick, points) = compute_tables(load_game(SK))
    assert trick.title == "Who wins a trick of two cards" and not trick.error
    assert _cell(trick, "pirate", "skull-king") == "skull-king"      # §6.5b
    assert _cell(trick, "skull-king", "mermaid") == "mermaid"        # §6.5a: the mermaid captures the king
    assert _cell(trick, "green-3", "green-12") == "green-12"          # following suit, higher wins
    assert _cell(trick, "green-12", "black-2") == "black-2"          # black trumps
    assert _cell(trick, "escape", "tigress as escape") == "escape"   # the first escape wins
    assert "kraken" not in trick.columns                              # not in the deck without the option
    assert _cell(points, "2", "2") == "40" and _cell(points, "0", "0") == "50" and _cell(points, "1", "3") == "-20"
    (edited, _) = compute_tables(load_game(house))
    assert _cell(edited, "pirate", "skull-king") == "pirate"
    kraken = compute_tables(load_game(SK, {"kraken": True}))[0]
    assert _cell(kraken, "green-12", "kraken") == "—"                 # §6.3: nobody wins


def test_rule_tables_appear_in_the_doc_the_html_diagram_and_the_diff(house):
    game = load_game(SK)
    doc = rules_markdown(game)
    assert "## Rule tables" in doc and "| led \\ follows | green-12 |" in doc
    assert re.search(r"\| \*\*pirate\*\* \|.*\| skull-king \|", doc)
    page = render(flow_graph(game), "html", game=game).decode()
    assert "<table class='rules'>" in page and "Who wins a trick of two cards" in page
    assert "id='L1'" in page and "href=\"#L" in page            # boxes link to the spec source below
    assert "addEventListener('wheel'" in page                     # pan and zoom
    changes = spec_diff(game, load_game(house))
    assert "Who wins a trick of two cards: led pirate, follows skull-king: skull-king → pirate" in changes


def test_a_card_against_itself_needs_a_second_copy_or_is_impossible():
    trick = compute_tables(load_game(SK))[0]
    for card in ("green-12", "skull-king", "tigress as pirate"):
        assert _cell(trick, card, card) == "—"          # one of it in the deck: it cannot meet itself
    assert _cell(trick, "tigress as pirate", "tigress as escape") == "—"  # the same one tigress
    assert _cell(trick, "escape", "escape") == "escape"   # five escapes: the first played wins
    assert _cell(trick, "mermaid", "mermaid") == "mermaid"


def test_the_diff_names_a_new_table_row_and_column(tmp_path):
    path = tmp_path / "kraken_always.yaml"
    path.write_text(SK.read_text().replace("  - name: kraken\n    when: options.kraken\n", "  - name: kraken\n"))
    text = spec_diff(load_game(SK), load_game(path))
    assert "Who wins a trick of two cards: new row led kraken: green-12 —," in text
    assert "Who wins a trick of two cards: new column follows kraken: green-12 —," in text
    back = spec_diff(load_game(path), load_game(SK))
    assert "no longer row led kraken" in back and "no longer column follows kraken" in back


def test_svg_keeps_real_text_and_links_each_box_to_its_spec_line():
    game = load_game(SK)
    svg = render(flow_graph(game), "svg", link=lambda line: f"skull_king.yaml#L{line}").decode()
    assert svg.count("<text") > 100 and "DECISION: play" in svg
    links = set(re.findall(r'xlink:href="skull_king.yaml#L(\d+)"', svg))
    decision_line = next(d["line"] for _, d in flow_graph(game).nodes(data=True)
                         if d.get("kind") == "choose" and d.get("action") == "play")
    assert str(decision_line) in links and len(links) > 20


def test_a_step_is_captioned_by_its_doc_or_the_comment_above_it():
    G = flow_graph(load_game(SK))
    notes = [d.get("note") for _, d in G.nodes(data=True) if d.get("kind") == "for"]
    assert any(n and n.startswith("§5: clockwise from the leader") for n in notes)


@pytest.mark.parametrize("table,message,hint", [
    ("rows: {name: a, cards: [pirat]}\n    columns: {name: b, values: '[1]'}\n    cell: 'a'",
     "there is no card named 'pirat'", "did you mean 'pirate'?"),
    ("rows: {name: a, cards: ['tigress as pirat']}\n    columns: {name: b, values: '[1]'}\n    cell: 'a'",
     "tigress has no mode 'pirat'", "modes: pirate, escape"),
    ("rows: {name: a, values: '[1]'}\n    columns: {name: b, values: '[1]'}\n    set: {nothing: 1}\n    cell: 'a'",
     "set: 'nothing' is not a variable", "p.NAME"),
])
def test_a_bad_table_is_a_located_error(tmp_path, table, message, hint):
    text = SK.read_text()
    text = text[:text.index("\ntables:\n")] + f"\ntables:\n  - title: T\n    {table}\n"
    path = tmp_path / "t.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as exc:
        load_game(path)
    (d,) = exc.value.diagnostics
    assert message in d.message and hint in d.hint and d.line > 200


def test_the_doc_says_the_bonuses_derived_from_the_bonus_definition():
    doc = rules_markdown(load_game(SK))
    for line in ("- capturing green-14, purple-14 or yellow-14 (with any card): +10",
                 "- capturing black-14 (with any card): +20", "- capturing pirate with skull-king: +30",
                 "- capturing skull-king with mermaid: +50", "- capturing mermaid with pirate: +20"):
        assert line in doc
    assert "- [`classic_score`](#classic_score): §7 classic scoring" in doc  # the definition's own words
    # the numbers are the definition's: the 2021 rulebook's option changes one of them
    assert "- capturing skull-king with mermaid: +40" in rules_markdown(load_game(SK, {"preset": "rulebook_2021"}))


def test_the_bonus_table_leaves_out_captures_the_spec_makes_impossible(tmp_path):
    # a house rule where Pirates beat the Skull King: a Pirate is then never captured by him
    old = "    else first(kings) if count(kings) > 0\n    else first(pirates) if count(pirates) > 0\n"
    text = SK.read_text()
    assert old in text
    path = tmp_path / "pirates_win.yaml"
    path.write_text(text.replace(old, "    else first(pirates) if count(pirates) > 0\n"
                                      "    else first(kings) if count(kings) > 0\n"))
    doc = rules_markdown(load_game(path))
    assert "capturing pirate with skull-king" not in doc
    assert "- capturing skull-king with mermaid: +50" in doc and "- capturing mermaid with pirate: +20" in doc
