"""display.player_columns: player variables or {title: expression of p}, shown in score tables."""
from __future__ import annotations

import pytest

from interpreter import SpecError, load_game
from interpreter.cli import main

SPEC = """\
name: Columns
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 7)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
player_variables: {score: 0}
flow:
  - deal: {from: deck, to: hand, count: 2}
  - for: p
    in: players
    do:
      - set: {p.score: "sum([c.rank for c in p.hand])"}
  - log: {text: "totals", table: true}
score: p.score
display:
  player_columns:
    - score
    - cards: "count(p.hand)"
    - best: "max([c.rank for c in p.hand])"
"""


def test_expression_columns(tmp_path, capsys):
    path = tmp_path / "cols.yaml"
    path.write_text(SPEC)
    game = load_game(path)
    state = game.new_state(2, seed=1)
    assert state.is_terminal()
    rows = game.table_rows(state)
    assert [list(r) for r in rows] == [["score", "cards", "best"]] * 2
    for p, row in enumerate(rows):
        hand = [game.cards[i].attrs["rank"] for i in state.zones["hand"][p]]
        assert row == {"score": sum(hand), "cards": 2, "best": max(hand)}
    assert main(["play", str(path), "--players", "2", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "best" in out and "cards" in out


def test_unknown_column_is_an_error(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(SPEC.replace("    - score\n", "    - scroe\n"))
    with pytest.raises(SpecError) as exc:
        load_game(path)
    d = exc.value.diagnostics[0]
    assert "scroe" in d.message and d.line == SPEC.split("\n").index("    - score") + 1
