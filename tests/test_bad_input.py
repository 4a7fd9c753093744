"""Bad input: every user mistake is a located, readable error, never a crash.

Specs: a YAML syntax error, schema violations, undefined names, bad expressions (in a folded
block scalar and in one-line scalars), duplicate keys, unknown phases and unknown command-line
options each give ``file:line:col`` with the right line and column, and ``rulebook validate``
exits 1; several errors in one spec are all reported.
Actions: an illegal action raises IllegalAction with a reason and leaves the State unchanged.
CLI: a user mistake never prints a Python traceback.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from interpreter import IllegalAction, load_game
from interpreter.cli import main
from interpreter.engine.run import advance
from interpreter.scenario import build_state
from interpreter.spec.loader import check_spec

REPO = Path(__file__).resolve().parents[1]
SK = REPO / "specs" / "skull_king.yaml"

# A small valid game; the tests below break one line of it at a time. Line numbers:
BASE = """\
name: Tiny
players: {min: 2, max: 4}
options:
  fast: {type: bool, default: false}
cards:
  - each: {suit: [red, blue], rank: "range(1, 4)"}
    name: "{suit}-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  pile: {visibility: public}
variables: {leader: 0}
player_variables: {score: 0}
define:
  high(cards): >
    argmax(cards,
           c => c.rank)
flow:
  - deal: {from: deck, to: hand, count: 2}
  - repeat: 2
    do:
      - phase: turn
phases:
  turn:
    - for: p
      in: turn_order(leader)
      do:
        - choose:
            action: play
            player: p
            cards: p.hand
            as: c
            to: pile
    - set: {leader: "high(pile).played_by"}
    - add: {leader.score: 1}
    - move: {from: pile, to: deck}
"""
LINES = BASE.split("\n")
assert LINES[25] == "      in: turn_order(leader)" and LINES[34] == "    - add: {leader.score: 1}"

DIAG = re.compile(r"^(?P<file>[^\s:]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): (?P<msg>.*)$")


def _replace_line(number: int, new: str, text: str = BASE) -> str:
    """``text`` with its line ``number`` (1-based) replaced by ``new`` (may be several lines)."""
    lines = text.split("\n")
    lines[number - 1] = new
    return "\n".join(lines)


def _at(text: str, line: int, col: int) -> str:
    """The source from line:col (1-based) to the end of that line."""
    return text.split("\n")[line - 1][col - 1:]


def _validate(tmp_path, monkeypatch, capsys, text, *extra):
    """Run ``rulebook validate spec.yaml`` on ``text``; returns (exit status, [(line, col, message)])."""
    (tmp_path / "spec.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)  # a short relative path: the console never wraps file:line:col
    status = main(["validate", "spec.yaml", *extra])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    found, current = [], None
    for raw in out.out.splitlines():  # the console wraps long messages: join their lines
        m = DIAG.match(raw)
        if m:
            current = [m["file"], int(m["line"]), int(m["col"]), m["sev"], m["msg"]]
            found.append(current)
        elif raw.startswith(" ") or raw.startswith("spec.yaml: "):
            current = None  # a hint, or the summary line
        elif current is not None:
            current[4] += " " + raw.strip()
    assert all(f[0] == "spec.yaml" for f in found)
    return status, [(line, col, msg) for _, line, col, sev, msg in found if sev == "error"]


def test_the_base_spec_is_valid(tmp_path, monkeypatch, capsys):
    status, found = _validate(tmp_path, monkeypatch, capsys, BASE)
    assert (status, found) == (0, [])
    game = load_game(tmp_path / "spec.yaml")
    assert game.new_state(3, seed=1).current_players() == [0]


# -- YAML syntax ----------------------------------------------------------------------------
@pytest.mark.parametrize("number, new, where, starts", [
    (11, "  pile: {visibility: public", (11, 9), "{visibility"),          # unclosed {: where it opens
    (1, "name: Tiny: the game", (1, 11), ": the game"),                  # ': ' inside a plain value
    (7, '    name: "{suit}-{rank}', (7, 11), '"{suit}'),                 # unclosed quote
    (9, "\tdeck: {visibility: hidden, initial: all}", (9, 1), "\tdeck"),  # a tab for indentation
    (20, "  - repeat: 2\n   - shuffle: deck", (21, 4), "- shuffle"),     # bad indentation
])
def test_yaml_syntax_error(tmp_path, monkeypatch, capsys, number, new, where, starts):
    text = _replace_line(number, new)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [where]
    assert "YAML syntax error" in found[0][2]
    assert _at(text, *where).startswith(starts)


# -- schema ---------------------------------------------------------------------------------
@pytest.mark.parametrize("number, new, where, words", [
    (32, "            colour: c", (32, 13), ["'colour' was unexpected"]),         # unknown key in a step
    (13, "player_vars: {score: 0}", (13, 1), ["'player_vars' was unexpected"]),  # unknown top-level key
    (19, "  - deal: {from: deck, count: 2}", (19, 11), ["flow.0.deal", "missing required key 'to'"]),
    (2, "players: {min: two, max: 4}", (2, 16), ["players.min", "'two' is not of type"]),
    (29, "            action: play\n            optional: maybe", (30, 23), ["optional", "'maybe'"]),
])
def test_schema_violation(tmp_path, monkeypatch, capsys, number, new, where, words):
    text = _replace_line(number, new)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [where], found
    for w in words:
        assert w in found[0][2]


def test_an_expression_written_as_a_yaml_list_gets_the_quoted_form(tmp_path, monkeypatch, capsys):
    """`in: [0, 1]` is a YAML list where an expression is expected: the hint quotes it."""
    text = _replace_line(26, "      in: [0, 1]")
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1 and [(line, col) for line, col, _ in found] == [(26, 11)], found
    assert "an expression is expected here, not a YAML list" in found[0][2]
    (tmp_path / "spec.yaml").write_text(text)
    main(["validate", "spec.yaml"])
    out = " ".join(capsys.readouterr().out.split())
    assert 'quote it to make it an expression: in: "[0, 1]"' in out and "1 error(s)" in out


def test_missing_required_top_level_key(tmp_path, monkeypatch, capsys):
    text = BASE.replace("flow:\n  - deal: {from: deck, to: hand, count: 2}\n  - repeat: 2\n    do:\n"
                        "      - phase: turn\n", "")
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [(1, 1)]      # the spec itself
    assert "missing required key 'flow'" in found[0][2]


# -- names and expressions ------------------------------------------------------------------
@pytest.mark.parametrize("number, new, where, token, words", [
    # an undefined name in a plain one-line scalar
    (26, "      in: turn_order(leadr)", (26, 22), "leadr", "unknown name 'leadr'"),
    # an undefined function in a folded block scalar
    (16, "    argmx(cards,", (16, 5), "argmx", "unknown function 'argmx'"),
    # an unknown attribute on a more-indented line of the folded block
    (17, "           c => c.rnk)", (17, 19), "rnk", "'rnk'"),
    # an undefined player variable as a set target
    (35, "    - add: {leader.scor: 1}", (35, 13), "leader.scor", "'scor' is not a player variable"),
    # an undefined name in a double-quoted scalar
    (34, '    - set: {leader: "high(pyle).played_by"}', (34, 27), "pyle", "unknown name 'pyle'"),
])
def test_undefined_name(tmp_path, monkeypatch, capsys, number, new, where, token, words):
    text = _replace_line(number, new)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [where], found
    assert words in found[0][2]
    assert _at(text, *where).startswith(token)


@pytest.mark.parametrize("number, new, where, token", [
    # syntax error inside a folded `>` block scalar, on its second (more-indented) line
    (17, "           c => c.rank +)", (17, 25), ")"),
    # ... and on its first line
    (16, "    argmax(cards +,", (16, 19), ","),
    # syntax error inside a plain one-line scalar
    (26, "      in: turn_order(leader))", (26, 29), ")"),
    (26, "      in: turn_order(leader) ?", (26, 30), "?"),
    # inside a double-quoted one-line scalar: the expression ends too soon, at the closing quote
    (34, '    - set: {leader: "high(pile).played_by +"}', (34, 44), '"}'),
])
def test_bad_expression(tmp_path, monkeypatch, capsys, number, new, where, token):
    text = _replace_line(number, new)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [where], found
    assert found[0][2].startswith("bad expression")
    assert _at(text, *where).startswith(token)


# -- duplicate keys, phases, options ----------------------------------------------------------
def test_duplicate_top_level_key(tmp_path, monkeypatch, capsys):
    text = _replace_line(13, "variables: {x: 1}")
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert found == [(13, 1, "duplicate key 'variables' (first at line 12)")]


def test_duplicate_key_in_a_flow_mapping(tmp_path, monkeypatch, capsys):
    text = _replace_line(9, "  deck: {visibility: hidden, initial: all, visibility: public}")
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert [(line, col) for line, col, _ in found] == [(9, 44)]
    assert "duplicate key 'visibility'" in found[0][2]
    assert _at(text, 9, 44).startswith("visibility: public")


def test_unknown_phase(tmp_path, monkeypatch, capsys):
    text = _replace_line(22, "      - phase: trun")
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert found == [(22, 16, "unknown phase 'trun'")]


@pytest.mark.parametrize("option, where, words", [
    ("nosuch=1", (3, 1), "unknown option 'nosuch'"),                  # the options: key
    ("fast=maybe", (4, 3), "option fast must be bool, not 'maybe'"),  # the option's declaration
    ("preset=quick", (1, 1), "unknown preset 'quick'"),               # no presets: the spec's top
])
def test_bad_option_on_the_command_line(tmp_path, monkeypatch, capsys, option, where, words):
    status, found = _validate(tmp_path, monkeypatch, capsys, BASE, "--option", option)
    assert status == 1
    assert found == [(*where, words)]


def test_option_without_a_value_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "spec.yaml").write_text(BASE)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "spec.yaml", "--option", "fast"]) == 1
    assert "--option takes KEY=VALUE" in " ".join(capsys.readouterr().err.split())


def test_missing_spec_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "nosuch.yaml"]) == 1
    assert "nosuch.yaml:0:0: error: no such file" in capsys.readouterr().out


# -- several errors at once -------------------------------------------------------------------
def test_several_errors_in_one_spec_are_all_reported(tmp_path, monkeypatch, capsys):
    text = _replace_line(22, "      - phase: trun")
    text = _replace_line(26, "      in: turn_order(leadr)", text)
    text = _replace_line(35, "    - add: {leader.scor: 1}", text)
    text = _replace_line(17, "           c => c.rnk)", text)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert sorted((line, col) for line, col, _ in found) == [(17, 19), (22, 16), (26, 22), (35, 13)]


def test_several_errors_summary_line(tmp_path, monkeypatch, capsys):
    text = _replace_line(22, "      - phase: trun")
    text = _replace_line(26, "      in: turn_order(leadr)", text)
    (tmp_path / "spec.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    assert main(["validate", "spec.yaml"]) == 1
    assert "spec.yaml: 2 error(s)" in capsys.readouterr().out


def test_several_schema_errors_are_all_reported(tmp_path, monkeypatch, capsys):
    text = _replace_line(32, "            colour: c")
    text = _replace_line(35, "    - add: {leader.score: 1}\n      twice: true", text)
    text = _replace_line(2, "players: {min: two, max: 4}", text)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert sorted((line, col) for line, col, _ in found) == [(2, 16), (32, 13), (36, 7)]


def test_several_duplicate_keys_are_all_reported(tmp_path, monkeypatch, capsys):
    text = _replace_line(13, "variables: {x: 1}")
    text = _replace_line(10, "  hand: {per_player: true, visibility: owner, per_player: false}", text)
    status, found = _validate(tmp_path, monkeypatch, capsys, text)
    assert status == 1
    assert sorted((line, col) for line, col, _ in found) == [(10, 47), (13, 1)]


def test_check_spec_gives_the_same_positions(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text(_replace_line(26, "      in: turn_order(leadr)", _replace_line(22, "      - phase: trun")))
    diags = check_spec(path)
    assert sorted((d.file, d.line, d.column) for d in diags) == [(str(path), 22, 16), (str(path), 26, 22)]


# -- illegal actions --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sk():
    return load_game(SK)


def _trick(game, hands, leader=0):
    """A Skull King trick position (start: trick) with the given hands."""
    state = build_state(game, {"players": len(hands), "start": "trick",
                               "setup": {"vars": {"leader": leader, "round": 2, "cards_dealt": 2},
                                         "zones": {"hand": dict(enumerate(hands))}}})
    advance(state)
    return state


def _refused(state, action, seat, *words):
    before = state.to_json()
    legal_before = [a.text for a in state.legal_actions(seat)] if seat is not None else None
    with pytest.raises(IllegalAction) as info:
        state.apply(action, seat)
    reason = info.value.reason
    for w in words:
        assert w in reason, reason
    assert state.to_json() == before
    if seat is not None:
        assert [a.text for a in state.legal_actions(seat)] == legal_before
    return reason


def test_illegal_wrong_card(sk):
    state = _trick(sk, [["green-5", "purple-2"], ["green-9", "yellow-1"], ["green-1", "black-3"]])
    _refused(state, "play black-14", 0, "P0 has no black-14")
    _refused(state, "play joker", 0, "no card named 'joker'")
    _refused(state, "bid 1", 0, "not a legal action")


def test_illegal_not_your_turn(sk):
    state = _trick(sk, [["green-5", "purple-2"], ["green-9", "yellow-1"], ["green-1", "black-3"]], leader=1)
    _refused(state, "play green-5", 0, "not P0's turn", "waiting for P1")
    _refused(state, "play black-3", 2, "not P2's turn")


def test_illegal_not_following_suit(sk):
    state = _trick(sk, [["green-5", "purple-2"], ["green-9", "black-14"], ["green-1", "black-3"]])
    state.apply("play green-5", 0)
    reason = _refused(state, "play black-14", 1, "black-14 may not be played")
    assert "play green-9" in reason                     # the reason lists what is legal


def test_illegal_tigress_without_declaration(sk):
    state = _trick(sk, [["tigress", "purple-2"], ["green-9", "black-14"], ["green-1", "black-3"]])
    _refused(state, "play tigress", 0, "say how tigress is played")
    _refused(state, "play tigress as king", 0, "cannot be played as 'king'")


def test_illegal_bid_twice_and_out_of_range(sk):
    state = sk.new_state(4, seed=5)
    _refused(state, "bid 2", 0, "not a legal action")      # round 1: 0 or 1
    state.apply("bid 1", 0)
    _refused(state, "bid 0", 0, "already chosen")
    _refused(state, 99, 1, "out of range")
    _refused(state, "bid 1", None, "say which player")     # three players could bid 1


def test_illegal_after_the_game_is_over(sk):
    state = _trick(sk, [["green-5"], ["green-9"], ["green-1"]])
    for seat, card in ((0, "green-5"), (1, "green-9"), (2, "green-1")):
        state.apply(f"play {card}", seat)
    assert state.is_terminal()
    _refused(state, "play green-5", 0, "the game is over")


def test_illegal_after_a_whole_game_is_over(sk):
    state = sk.new_state(3, seed=11)
    while not state.is_terminal():
        for p in state.current_players():
            state.apply(state.legal_actions(p)[-1])
    assert state.history and len(state.scores()) == 3
    _refused(state, "bid 0", 0, "the game is over")


# -- the CLI never shows a traceback ------------------------------------------------------------
def _rulebook(*args, cwd=REPO):
    exe = shutil.which("rulebook")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "interpreter", *args]
    env = dict(os.environ, COLUMNS="200")
    return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=300, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("args, words", [
    (["play", "specs/skull_king.yaml", "--players", "9"], "is for 2 to 8 players, not 9"),
    (["simulate", "nosuch.yaml", "-n", "1", "--players", "4"], "nosuch.yaml:0:0: error: no such file"),
    (["play", "specs/skull_king.yaml", "--players", "4", "--option", "kraken=maybe"], "option kraken must be bool"),
    (["simulate", "specs/skull_king.yaml", "-n", "1", "--players", "4", "--option", "preset=nope"],
     "unknown preset 'nope'"),
    (["play", "specs/skull_king.yaml", "--players", "4", "--human", "7"], "--human 7: seats are 0..3"),
    (["simulate", "specs/skull_king.yaml", "-n", "0", "--players", "4"], "-n must be at least 1"),
    (["replay", "nosuch.json"], "cannot read the game log"),
    (["validate", "README.md"], "YAML syntax error"),
    (["test", "nosuch_folder"], "no such file"),
])
def test_cli_user_mistakes_have_no_traceback(args, words):
    proc = _rulebook(*args)
    both = proc.stdout + proc.stderr
    assert proc.returncode == 1, both
    assert "Traceback" not in both
    assert words in " ".join(both.split())


def test_cli_usage_mistakes_are_argparse_errors(tmp_path):
    proc = _rulebook("play", "specs/skull_king.yaml", "--players", "four")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "invalid int value: 'four'" in proc.stderr
