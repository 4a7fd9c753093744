"""What people see at the terminal: hot-seat play (several humans on one terminal), the
replay of one seat's view and its export, and text from specs and users made harmless."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.spec.loader import load_game
from interpreter.view import sanitize

ROOT = Path(__file__).resolve().parents[1]
PRIVATE = ROOT / "tests" / "specs" / "private_pass.yaml"
CLEARED = "the screen is cleared here"


def _drive(monkeypatch, answers):
    """Feed ``answers`` to input(); record each prompt. Returns the list of prompts."""
    prompts = []
    answers = list(answers)

    def fake_input(prompt=""):
        print(prompt)  # as input() does: the prompt is on the screen
        prompts.append(prompt)
        if not answers:
            raise EOFError
        return answers.pop(0)

    monkeypatch.setattr("builtins.input", fake_input)
    return prompts


def _hands_at_decisions(log, humans):
    """Replay a saved game: ``[(seat, its hand card names)]`` at each human decision."""
    data = json.loads(Path(log).read_text())
    game = load_game(PRIVATE)
    state = game.new_state(data["num_players"], data["seed"])
    out = []
    for seat, text in data["history"]:
        if seat in humans:
            out.append((seat, {game.cards[i].name for i in state.zones["hand"][seat]}))
        state.apply(text, seat)
    return out, data


def test_hot_seat_clears_the_screen_and_passes_the_device_before_each_human(monkeypatch, capsys, tmp_path):
    log = tmp_path / "hot.json"
    # each human: Enter at the pass prompt, then the first option
    prompts = _drive(monkeypatch, ["", "0"] * 8)
    assert main(["play", str(PRIVATE), "-p", "3", "--human", "1", "--human", "2", "--seed", "7",
                 "--save", str(log)]) == 0
    out = capsys.readouterr().out
    decisions, data = _hands_at_decisions(log, {1, 2})
    # before each human's decision (the holder changes every time here): a clear and a pass prompt
    passes = [p for p in prompts if "press Enter when ready" in p]
    assert [int(re.search(r"Player (\d)", p).group(1)) for p in passes] == [seat for seat, _ in decisions]
    assert out.count(CLEARED) == len(decisions) + 1  # and once more before the result
    # each screen between two clears shows one human's hand, and no other human's hand
    screens = out.split(CLEARED)[1:-1]
    assert len(screens) == len(decisions)
    for screen, (seat, hand) in zip(screens, decisions):
        assert f"Pass the device to Player {seat}." in screen
        shown = re.search(r"Your hand: (.*)", screen).group(1)
        assert set(shown.split(", ")) == hand
        other = 3 - seat
        assert f"Player {other}: pass" not in screen or seat == (other + 1) % 3  # another's private pass
    # the simultaneous play: Player 1 chose first (in secret); Player 2's screen, up to its
    # prompt, does not show that choice (it is revealed after)
    assert decisions[-2][0] == 1 and decisions[-1][0] == 2
    p1_play = next(t for s, t in data["history"] if s == 1 and t.startswith("play"))
    before_prompt = screens[-1].split("Player 2 >")[0]
    assert "Your hand" in before_prompt and p1_play not in before_prompt
    assert f"Player 1: {p1_play}" in out.split(CLEARED)[-1]  # revealed at the end


def test_hot_seat_a_private_line_waits_for_its_reader(monkeypatch, capsys, tmp_path):
    log = tmp_path / "hot.json"
    _drive(monkeypatch, ["", "0"] * 8)
    assert main(["play", str(PRIVATE), "-p", "3", "--human", "1", "--human", "2", "--seed", "7",
                 "--save", str(log)]) == 0
    out = capsys.readouterr().out
    data = json.loads(log.read_text())
    p1_pass = next(t for s, t in data["history"] if s == 1).split(" ", 1)[1]
    screens = out.split(CLEARED)
    p2_screens = [s for s in screens if "Pass the device to Player 2." in s]
    p1_screens = [s for s in screens if "Pass the device to Player 1." in s]
    # Player 1 passes to Player 2: Player 2 reads it on its own screen, after the pass prompt
    assert any(f"Player 1 passed you {p1_pass}" in s for s in p2_screens)
    assert not any(f"Player 1 passed you {p1_pass}" in s for s in p1_screens if "Player 1 >" not in s)
    # the bottom of the deck shown to each human is on their screen only
    for seat, screens_of in ((1, p1_screens), (2, p2_screens)):
        assert any(f"shown to Player {seat}:" in s for s in screens_of)
        others = [s for s in screens if s not in screens_of]
        assert not any(f"shown to Player {seat}:" in s for s in others)


def test_hot_seat_quitting_at_the_pass_prompt_ends_the_game(monkeypatch, capsys):
    _drive(monkeypatch, ["q"])
    assert main(["play", str(PRIVATE), "-p", "3", "--human", "0", "--human", "1", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "Game left after 0 action(s)" in out and "Your hand" not in out


def test_one_human_is_not_asked_to_pass_the_device(monkeypatch, capsys):
    prompts = _drive(monkeypatch, ["0"] * 4)
    assert main(["play", str(PRIVATE), "-p", "3", "--human", "1", "--seed", "7"]) == 0
    out = capsys.readouterr().out
    assert CLEARED not in out and not any("press Enter" in p for p in prompts)
    assert "Seen in deck:" in out  # the cards a show step let this player see


# -- replay --seat and the per-seat export ------------------------------------------------------
def test_replay_as_one_seat_hides_the_seed_and_the_others_private_lines(monkeypatch, capsys, tmp_path):
    log = tmp_path / "g.json"
    assert main(["play", str(PRIVATE), "-p", "3", "--seed", "31", "--save", str(log)]) == 0
    capsys.readouterr()
    data = json.loads(log.read_text())
    passes = {s: t.split(" ", 1)[1] for s, t in data["history"] if t.startswith("pass")}
    assert main(["replay", str(log)]) == 0  # the full record: seed and every private line, marked
    full = capsys.readouterr().out
    assert "seed 31" in full and f"Bot 0: pass {passes[0]} (only Bot 0, Bot 1)" in full
    export = tmp_path / "seat2.json"
    assert main(["replay", str(log), "--seat", "2", "--export", str(export)]) == 0
    seat2 = capsys.readouterr().out
    assert "31" not in seat2.split("Game over")[0] and "as Bot 2 saw it" in seat2
    # replay has no --show-seed, so its header does not offer one
    assert "seed not shown" in seat2 and "--show-seed" not in seat2
    assert f"pass {passes[0]}" not in seat2 and "Bot 0 passes a card to Bot 1" in seat2
    assert f"Bot 1 passed you {passes[1]}" in seat2
    view = json.loads(export.read_text())
    assert view["seat"] == 2 and "seed" not in view
    assert view["history"][0] == {"player": 0, "hidden": "Bot 0 passes a card to Bot 1"}
    assert f"Bot 1 passed you {passes[1]}" in view["log"]


def test_replay_seat_errors(monkeypatch, capsys, tmp_path):
    log = tmp_path / "g.json"
    assert main(["play", str(PRIVATE), "-p", "3", "--seed", "31", "--save", str(log)]) == 0
    capsys.readouterr()
    assert main(["replay", str(log), "--seat", "5"]) == 1
    assert "--seat 5: seats are 0..2" in capsys.readouterr().err
    assert main(["replay", str(log), "--export", str(tmp_path / "x.json")]) == 1
    assert "give --seat N too" in capsys.readouterr().err


# -- text from specs and users made harmless ---------------------------------------------------
def test_sanitize_removes_escape_sequences_and_shows_control_characters():
    assert sanitize("a\x1b[2J\x1b[Hb") == "ab"
    assert sanitize("x\x1b]0;title\x07y") == "xy"
    assert sanitize("fake\rPlayer 0 (you) > ") == "fake\\x0dPlayer 0 (you) > "
    assert sanitize("bell\x07 back\x08") == "bell\\x07 back\\x08"
    assert sanitize("c1 \x9b31m") == "c1 "
    assert sanitize("rtl \u202egnp.exe") == "rtl \\u202egnp.exe"
    assert sanitize("two\nlines\tand tab") == "two\nlines\tand tab"
    assert sanitize(42) == "42"


HOSTILE = """\
name: "Evil\\e[2J game"
players: {min: 2, max: 2}
cards:
  - each: {rank: "range(1, 4)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
player_variables: {score: 0}
flow:
  - shuffle: deck
  - deal: {from: deck, to: hand, count: 1}
  - log: "\\e[2J\\e[HPlayer 0 (you) > \\rsecret"
  - doc: "pick \\e[31mred\\e[0m"
    choose:
      action: take
      player: 0
      options: "['a\\u001b[2Jb', 'ok']"
  - end: "bye \\x07"
"""


def test_spec_text_reaches_the_terminal_without_escape_sequences(monkeypatch, capsys, tmp_path):
    spec = tmp_path / "evil.yaml"
    spec.write_text(HOSTILE)
    _drive(monkeypatch, ["1"])
    assert main(["play", str(spec), "-p", "2", "--human", "0", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
    assert "Player 0 (you) > \\x0dsecret" in out  # shown, not obeyed
    assert main(["doc", str(spec)]) == 0
    assert "\x1b" not in capsys.readouterr().out


def test_player_names_from_a_game_log_are_made_harmless(monkeypatch, capsys, tmp_path):
    log = tmp_path / "g.json"
    assert main(["play", str(PRIVATE), "-p", "3", "--seed", "31", "--save", str(log)]) == 0
    capsys.readouterr()
    data = json.loads(log.read_text())
    data["player_names"] = ["\x1b[2JBot 0", "Bot\r 1", "Bot \x1b]0;x\x07 2"]
    log.write_text(json.dumps(data))
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\r" not in out and "\x07" not in out
