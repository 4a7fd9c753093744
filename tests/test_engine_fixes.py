"""Regression tests for interpreter bugs found while writing the Skull King rule scenarios.

Each test names the bug it pins down; the games used here are tiny specs written to tmp_path
(or the Skull King spec only as a file to point the CLI at).
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.errors import SpecError
from interpreter.spec.loader import check_spec, load_game
from interpreter.spec.yamlpos import load_yaml

REPO = Path(__file__).resolve().parents[1]

TINY = """\
name: Tiny
players: {min: 2, max: 4}
options:
  fast: {type: bool, default: false}
  speed: {type: int, default: 1}
  colour: {values: [red, blue], default: red}
presets:
  quick: {fast: true}
cards:
  - each: {suit: [red, blue], rank: "range(1, 4)"}
    name: "{suit}-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
flow:
  - deal: {from: deck, to: hand, count: 1}
"""


def _write(tmp_path, text, name="spec.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


# -- Bug 1: an unclosed quote was reported at the end of the file ---------------------------
def test_unclosed_quote_is_reported_where_it_opens():
    text = 'name: "Tiny\nplayers: {min: 2, max: 4}\nflow: []\n'
    with pytest.raises(SpecError) as info:
        load_yaml(text, "t.yaml")
    (d,) = info.value.diagnostics
    assert (d.line, d.column) == (1, 7)          # the opening quote, not line 4 (end of file)
    assert "quoted scalar" in d.message and "line 4" in d.message


def test_unclosed_flow_mapping_is_reported_where_it_opens():
    text = "a: 1\nzones: {deck: 1\nflow: []\n"
    with pytest.raises(SpecError) as info:
        load_yaml(text, "t.yaml")
    (d,) = info.value.diagnostics
    assert (d.line, d.column) == (2, 8)          # the '{', not line 3 where the parser gave up


def test_error_inside_a_one_line_flow_mapping_keeps_the_exact_column():
    text = "a: 1\nzones: {deck: 1 hand: 2}\n"
    with pytest.raises(SpecError) as info:
        load_yaml(text, "t.yaml")
    (d,) = info.value.diagnostics
    assert d.line == 2 and d.column > 8           # same line: the precise problem mark is kept


# -- Bug 2: errors about --option values were located at 0:0 --------------------------------
@pytest.mark.parametrize("options, line, col, text", [
    ({"nosuch": "1"}, 3, 1, "unknown option 'nosuch'"),          # the options: key
    ({"fast": "maybe"}, 4, 3, "option fast must be bool"),        # the option's declaration
    ({"speed": "fast"}, 5, 3, "option speed must be int"),
    ({"colour": "green"}, 6, 3, "option colour cannot be 'green'"),
    ({"preset": "slow"}, 7, 1, "unknown preset 'slow'"),          # the presets: key
])
def test_option_errors_point_at_the_declaration(tmp_path, options, line, col, text):
    spec = _write(tmp_path, TINY)
    diags = check_spec(spec, options)
    assert [(d.line, d.column) for d in diags if text in d.message] == [(line, col)], diags


def test_unknown_option_without_an_options_section_points_at_the_top(tmp_path):
    spec = _write(tmp_path, TINY.replace("options:\n  fast: {type: bool, default: false}\n"
                                         "  speed: {type: int, default: 1}\n"
                                         "  colour: {values: [red, blue], default: red}\n"
                                         "presets:\n  quick: {fast: true}\n", ""))
    with pytest.raises(SpecError) as info:
        load_game(spec, {"fast": "true"})
    assert [(d.line, d.column) for d in info.value.diagnostics] == [(1, 1)]


def test_good_options_still_load(tmp_path):
    game = load_game(_write(tmp_path, TINY), {"preset": "quick", "speed": "3", "colour": "blue"})
    assert game.options == {"fast": True, "speed": 3, "colour": "blue"}


# -- Bug 3: `rulebook replay` printed a traceback for a missing or malformed log -----------
@pytest.mark.parametrize("content, needle", [
    (None, "cannot read the game log"),
    ("{not json", "not a game log"),
    ("{}", "not a game log"),
    ("[1, 2]", "not a game log"),
])
def test_replay_of_a_bad_log_is_a_clear_error(tmp_path, capsys, content, needle):
    log = tmp_path / "game.json"
    if content is not None:
        log.write_text(content)
    assert main(["replay", str(log)]) == 1
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert needle in err and "Traceback" not in err


def test_replay_of_a_missing_log_from_the_shell_has_no_traceback(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "interpreter", "replay", str(tmp_path / "nosuch.json")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "cannot read the game log" in " ".join(proc.stderr.split())


# -- Bug 4: `rulebook simulate --plot` into a missing folder printed a traceback ---------------
@pytest.mark.parametrize("name, needle", [("nosuch/plot.png", "No such file"), ("plot.weird", "not supported")])
def test_simulate_plot_that_cannot_be_written_is_a_clear_error(tmp_path, capsys, name, needle):
    pytest.importorskip("matplotlib")
    spec = _write(tmp_path, TINY)
    status = main(["simulate", str(spec), "-n", "1", "--players", "2", "-q", "--plot", str(tmp_path / name)])
    err = " ".join(capsys.readouterr().err.split())
    assert status == 1
    assert "cannot write the plot" in err and needle in err and "Traceback" not in err


# -- Bug 5: positions inside a folded (>) block were wrong after a more-indented line --------
FOLDED = TINY + """\
define:
  high(cards): >
    argmax(cards,
           c => c.rank)
  low(cards): |
    argmin(cards,

      c => c.rank)
"""


def _diags(tmp_path, text):
    with pytest.raises(SpecError) as info:
        load_game(_write(tmp_path, text))
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


def _at(text, line, col):
    """The source text from line:col (1-based) to the end of that line."""
    return text.split("\n")[line - 1][col - 1:]


def test_folded_block_syntax_error_on_a_more_indented_line(tmp_path):
    text = FOLDED.replace("c => c.rank)\n  low", "c => c.rank +)\n  low")
    (d,) = _diags(tmp_path, text)
    assert d[:2] == (20, 25) and "unexpected ')'" in d[2]   # '           c => c.rank +)'
    assert _at(text, 20, 25) == ")"


def test_folded_block_unknown_name_on_a_more_indented_line(tmp_path):
    text = FOLDED.replace("c => c.rank)\n  low", "c => c.rnk)\n  low")
    (d,) = _diags(tmp_path, text)
    assert d[:2] == (20, 19) and "'rnk'" in d[2]
    assert _at(text, 20, 19) == "rnk)"


def test_folded_block_lines_at_the_same_indentation_are_joined(tmp_path):
    text = FOLDED.replace("    argmax(cards,\n           c => c.rank)", "    argmax(cards,\n    c => c.rank +)")
    (d,) = _diags(tmp_path, text)
    assert d[:2] == (20, 18) and _at(text, 20, 18) == ")"


def test_literal_block_counts_blank_lines(tmp_path):
    text = FOLDED.replace("\n\n      c => c.rank)", "\n\n      c => c.rank +)")
    (d,) = _diags(tmp_path, text)
    assert d[:2] == (24, 20) and _at(text, 24, 20) == ")"   # after the blank line 23


# -- Bug 6: an unknown name inside a define was reported again at every call site -----------
def test_error_in_a_define_is_reported_once_where_it_is_written(tmp_path):
    text = FOLDED.replace("c => c.rank)\n  low", "c => c.rnk)\n  low") + """\
  best: "high(deck)"
variables: {top: 0}
"""
    text = text.replace("flow:\n  - deal: {from: deck, to: hand, count: 1}\n",
                        "flow:\n  - deal: {from: deck, to: hand, count: 1}\n"
                        "  - set: {top: \"high(deck).rank\"}\n  - set: {top: \"best.rank\"}\n")
    diags = _diags(tmp_path, text)
    # only inside high(cards), not at its two call sites nor inside best
    assert [(line, col) for line, col, _ in diags] == [(22, 19)], diags
    assert _at(text, 22, 19) == "rnk)"


def test_error_in_a_call_argument_is_still_reported_at_the_call(tmp_path):
    text = FOLDED + "variables: {top: 0}\n"
    text = text.replace("flow:\n  - deal: {from: deck, to: hand, count: 1}\n",
                        "flow:\n  - deal: {from: deck, to: hand, count: 1}\n  - set: {top: \"high(dek).rank\"}\n")
    diags = _diags(tmp_path, text)
    assert [(line, col) for line, col, _ in diags] == [(17, 22)], diags
    assert _at(text, 17, 22).startswith("dek)")


# -- Bug 7: an unclosed quote followed later by another quote was reported far below ---------
def test_unclosed_quote_that_runs_on_to_a_later_quote():
    text = 'a:\n  name: "red-{rank}\n  b: 1\n  c: "x"\n'   # the quoted text runs on to line 4's quote
    with pytest.raises(SpecError) as info:
        load_yaml(text, "t.yaml")
    (d,) = info.value.diagnostics
    assert (d.line, d.column) == (2, 9)             # the unclosed quote, not line 4
    assert "line 4" in d.message and "closing quote missing" in d.message


def test_a_real_multi_line_quoted_string_is_still_fine():
    data, _ = load_yaml('a: "one\n  two"\nb: 1\n', "t.yaml")
    assert data == {"a": "one two", "b": 1}
