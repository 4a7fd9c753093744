"""What a new user sees at the terminal: play, replay, simulate and the command line's own
mistakes. Each user mistake is a clear message (what, where, a hint) with exit status 1,
checked before long work starts; nothing shows Python's spelling (True, KeyError, p.hand)."""
from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.cli import main

ROOT = Path(__file__).resolve().parents[1]
SK = ROOT / "specs" / "skull_king.yaml"

TINY = """\
name: Tiny
players: {min: 2, max: 8}
options:
  fast: {type: bool, default: false}
cards:
  - each: {suit: [red, blue], rank: "range(1, 6)"}
    name: "{suit}-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  trick: {visibility: public}
variables: {leader: 0}
player_variables: {score: 0, bid: 0}
display:
  player_columns: [score, {lucky: "p.bid == 1"}]
flow:
  - shuffle: deck
  - deal: {from: deck, to: hand, count: 1 if options.fast else 3}
  - log: "{name(leader)} deals"
  - for: p
    in: players
    do:
      - choose: {action: bid, player: p, options: "range(0, 3)", as: b, then: [{set: {p.bid: b}}]}
  - for: p
    in: "turn_order(1)"
    do:
      - doc: "Play one card from your hand: the highest rank scores."
        choose: {action: play, player: p, cards: p.hand, to: trick}
  - log: {text: "Scores", table: true}
"""

BIG = """\
name: Big
players: {min: 2, max: 4}
cards:
  - name: card
zones:
  deck: {visibility: hidden, initial: all}
player_variables: {score: 0}
flow:
  - choose: {action: go, player: 0, options: "range(0, 1250)"}
"""


@pytest.fixture(autouse=True)
def _terminal_width(monkeypatch):
    """A terminal 120 columns wide, whatever COLUMNS says."""
    from interpreter import cli
    monkeypatch.setattr(cli.console, "width", 120)
    monkeypatch.setattr(cli.err_console, "width", 120)


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.yaml"
    path.write_text(TINY)
    return path


def _answers(monkeypatch, *answers):
    """Type ``answers`` at the play prompt; after the last one, Ctrl-D (EOF)."""
    it = iter(answers)

    def fake_input(prompt=""):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None
    monkeypatch.setattr(builtins, "input", fake_input)


def _flat(text: str) -> str:
    return " ".join(text.split())


# -- play: the save path, quitting, the seed -------------------------------------------------------
def test_play_checks_the_save_path_before_playing(tmp_path, capsys):
    assert main(["play", str(SK), "-p", "3", "--seed", "1", "--save", str(tmp_path / "nope" / "x.json")]) == 1
    captured = capsys.readouterr()
    err = _flat(captured.err)
    assert f"--save {tmp_path / 'nope' / 'x.json'}: cannot write the game log: the folder {tmp_path / 'nope'} does not exist" in err
    assert "hint:" in err and "Traceback" not in err
    assert "Round 1" not in captured.out  # nothing was played


def test_play_takes_the_only_player_count_when_players_is_left_out(capsys):
    """Five Hundred allows only 4 players: --players may be left out, as in simulate."""
    bots = [a for s in range(4) for a in ("--bot", f"{s}=random")]
    assert main(["play", str(ROOT / "specs" / "five_hundred.yaml"), "--seed", "2", *bots]) == 0
    assert "scores:" in capsys.readouterr().out


def test_play_without_players_on_a_spec_of_several_counts_says_how(capsys):
    assert main(["play", str(SK), "--seed", "1"]) == 1
    err = _flat(capsys.readouterr().err)
    assert "is for 2 to 8 players: give the number with --players N" in err and "Traceback" not in err


def test_play_save_to_a_folder_is_refused(tmp_path, capsys):
    assert main(["play", str(SK), "-p", "3", "--seed", "1", "--save", str(tmp_path)]) == 1
    assert "that is a folder" in capsys.readouterr().err


@pytest.mark.parametrize("answers", [("1", "q"), ("1",)])  # q, or Ctrl-D at the second decision
def test_quitting_a_game_saves_what_was_played(tiny, tmp_path, monkeypatch, capsys, answers):
    log = tmp_path / "game.json"
    _answers(monkeypatch, *answers)
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5", "--save", str(log)]) == 0
    out = _flat(capsys.readouterr().out)
    # three bids, then Bot 1 and Bot 2 play before seat 0 is asked again
    assert "Game left after 5 action(s)" in out and f"saved to {log}" in out
    data = json.loads(log.read_text())
    assert data["history"][0] == [0, "bid 1"] and len(data["history"]) == 5 and data["scores"] is None
    # the log replays to that position
    state = load_game(tiny).replay(3, 5, data["history"])
    assert state.current_players() == [0] and state.pvars[0]["bid"] == 1 and len(state.zones["trick"]) == 2
    assert main(["replay", str(log)]) == 0
    replayed = _flat(capsys.readouterr().out)
    assert "the game is unfinished: the log stops after 5 action(s); next to decide: Player 0 (you)" in replayed


def test_play_without_a_seed_picks_one_and_shows_it(tiny, monkeypatch, capsys):
    import secrets
    monkeypatch.setattr(secrets, "randbelow", lambda n: 4242)
    assert main(["play", str(tiny), "-p", "3"]) == 0
    first = capsys.readouterr().out
    assert "seed 4242 — replay with --seed 4242" in _flat(first)
    assert main(["play", str(tiny), "-p", "3", "--seed", "4242"]) == 0
    assert capsys.readouterr().out == first  # the same game


def test_two_games_without_a_seed_are_not_both_seed_0(tiny, capsys):
    seeds = set()
    for _ in range(4):
        assert main(["play", str(tiny), "-p", "3"]) == 0
        seeds.add(re.search(r"seed (\d+) — replay", capsys.readouterr().out).group(1))
    assert len(seeds) > 1


# -- play: what a human sees -------------------------------------------------------------------
def test_human_and_bot_names_read_well_in_log_lines(tiny, monkeypatch, capsys):
    _answers(monkeypatch, "1", "0")
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "Player 0 (you) deals" in out and "You deals" not in out
    assert "Bot 1: play" in out


def test_a_refused_card_names_the_zone_not_the_expression(tiny, monkeypatch, capsys):
    game = load_game(tiny)
    state = game.new_state(3, 5)
    hand = {game.cards[i].name for i in state.zones["hand"][0]}
    missing = next(c.name for c in game.cards if c.name not in hand)
    _answers(monkeypatch, "1", f"play {missing}", "0")
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5"]) == 0
    out = _flat(capsys.readouterr().out)
    assert f"Player 0 (you) has no {missing} in their hand" in out
    assert "p.hand" not in out


def test_the_trick_is_listed_with_commas_and_the_hand_in_card_table_order(tiny, monkeypatch, capsys):
    _answers(monkeypatch, "0", "0")
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    trick = re.search(r"^trick: (.*)$", out, re.M).group(1)  # seat 0 plays last: two cards are down
    assert re.fullmatch(r"\S+ \(Bot 1\), \S+ \(Bot 2\)", trick), trick
    hand = re.search(r"^Your hand: (.*)$", out, re.M).group(1).split(", ")
    game = load_game(tiny)
    order = [c.name for c in game.cards]
    assert len(hand) == 3 and hand == sorted(hand, key=order.index)
    options = re.findall(r"^\s+\d+ play (\S+)$", out, re.M)
    assert options == hand  # the numbered options are in the same order


def test_the_status_is_a_table_with_one_row_per_seat(tiny, monkeypatch, capsys):
    _answers(monkeypatch)  # leave at the first decision
    assert main(["play", str(tiny), "-p", "8", "--human", "0", "--seed", "5", "--option", "fast=true"]) == 0
    out = capsys.readouterr().out
    assert " | " not in out
    for seat in range(1, 8):
        assert re.search(rf"^\s*Bot {seat}\s+0\s+no\s*$", out, re.M), out
    status = out[out.index(" player "):out.index("Your hand")]
    assert len(status.splitlines()) == 9 and max(len(line) for line in status.splitlines()) <= 40


def test_booleans_are_shown_as_the_user_types_them(tiny, monkeypatch, capsys):
    _answers(monkeypatch, "1", "0")
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "options: fast=false" in out
    assert re.search(r"^\s*Player 0 \(you\)\s+0\s+yes\s*$", out, re.M), out  # the score table
    assert "True" not in out and "False" not in out


def test_a_decision_shows_its_doc_above_the_options(tiny, monkeypatch, capsys):
    _answers(monkeypatch, "1", "0")
    assert main(["play", str(tiny), "-p", "3", "--human", "0", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    doc = out.index("Play one card from your hand: the highest rank scores.")
    assert doc < out.index("0 play ", doc)
    assert out.count("the highest rank scores") == 1  # not above the bids (no doc there)


def test_a_long_option_list_is_shortened_in_order(tmp_path, monkeypatch, capsys):
    spec = tmp_path / "big.yaml"
    spec.write_text(BIG)
    _answers(monkeypatch)
    assert main(["play", str(spec), "-p", "2", "--human", "0", "--seed", "1"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    first, last = lines.index("0 go 0"), lines.index("1249 go 1249")
    shown = lines[first:last + 1]
    assert shown[:10] == [f"{i} go {i}" for i in range(10)]
    assert shown[10].startswith("... 1237 more (1250 actions in all)")
    assert shown[11:] == ["1247 go 1247", "1248 go 1248", "1249 go 1249"]


# -- replay -----------------------------------------------------------------------------------
@pytest.fixture
def saved(tmp_path, capsys):
    log = tmp_path / "game.json"
    assert main(["play", str(SK), "-p", "3", "--seed", "4", "--save", str(log)]) == 0
    capsys.readouterr()
    return log, json.loads(log.read_text())


def test_replay_prints_play_s_header_and_ranking(saved, capsys):
    log, data = saved
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Skull King — 3 players, seed 4", out)
    assert "options: lead_suit=first_numbered" in out and "kraken=false" in out
    assert "Game over" in out
    ranking = re.findall(r"^  (Bot \d)\s+(-?\d+)( wins)?$", out, re.M)
    assert len(ranking) == 3 and ranking[0][2] == " wins"
    final = load_game(SK).replay(3, 4, data["history"])
    assert [int(s) for _, s, _ in ranking] == sorted(final.scores(), reverse=True)


@pytest.mark.parametrize("change, words", [
    (lambda d: "{not json", "not valid JSON"),
    (lambda d: json.dumps({k: v for k, v in d.items() if k != "spec"}), "not a game log: missing 'spec'"),
    (lambda d: json.dumps({**d, "seed": "abc"}), "'seed' must be a whole number, not 'abc'"),
    (lambda d: json.dumps({**d, "num_players": True}), "'num_players' must be a whole number"),
    (lambda d: json.dumps({**d, "history": [[0]]}), 'history entry 0 ([0]): not a [seat, action text] pair'),
    (lambda d: json.dumps({**d, "history": "x"}), '"history" must be a list'),
    (lambda d: json.dumps([1, 2]), "the JSON is a list, not an object"),
])
def test_replay_of_a_broken_log(saved, capsys, change, words):
    log, data = saved
    log.write_text(change(data))
    assert main(["replay", str(log)]) == 1
    err = _flat(capsys.readouterr().err)
    assert err.startswith(str(log)) and words in err
    assert "Error" not in err and "Traceback" not in err  # no JSONDecodeError, KeyError, TypeError


def test_replay_of_a_tampered_history(saved, capsys):
    log, data = saved
    data["history"][5] = [data["history"][5][0], "play nothing-here"]
    log.write_text(json.dumps(data))
    assert main(["replay", str(log)]) == 1
    err = _flat(capsys.readouterr().err)
    assert f'{log}: history entry 5 ([{data["history"][5][0]}, "play nothing-here"]): ' in err
    assert "no card named 'nothing-here'" in err


def test_replay_of_a_truncated_log_says_the_game_is_unfinished(saved, capsys):
    log, data = saved
    data["history"] = data["history"][:10]
    log.write_text(json.dumps(data))
    assert main(["replay", str(log)]) == 0
    out = _flat(capsys.readouterr().out)
    assert "the game is unfinished: the log stops after 10 action(s)" in out
    assert "Game over" not in out


def test_replay_of_a_log_whose_spec_is_gone(saved, capsys):
    log, data = saved
    log.write_text(json.dumps({**data, "spec": "gone/nowhere.yaml"}))
    assert main(["replay", str(log)]) == 1
    err = _flat(capsys.readouterr().err)
    assert "the spec gone/nowhere.yaml (named in" in err and "--spec" in err


# -- simulate -----------------------------------------------------------------------------------
@pytest.mark.parametrize("flag, name, words", [
    ("--plot", "nope/scores.png", "cannot write the plot: the folder"),
    ("--trace", "nope/trace.json", "cannot write the trace: the folder"),
    ("--plot", "scores.xyz", "cannot write the plot: the format .xyz is not supported"),
    ("--plot", "scores", "a name without a suffix has no format"),
])
def test_simulate_checks_output_paths_before_simulating(tmp_path, capsys, flag, name, words):
    target = tmp_path / name
    assert main(["simulate", str(SK), "-n", "1", "-p", "4", "-q", flag, str(target)]) == 1
    captured = capsys.readouterr()
    assert words in _flat(captured.err) and f"{flag} {target}" in _flat(captured.err)
    assert "games/s" not in captured.out  # nothing was simulated


@pytest.mark.parametrize("jobs", ["0", "-2"])
def test_simulate_refuses_no_workers(capsys, jobs):
    assert main(["simulate", str(SK), "-n", "2", "-p", "4", "-q", "--jobs", jobs]) == 1
    assert f"--jobs must be at least 1, not {jobs}" in capsys.readouterr().err


def test_simulate_json_keeps_stdout_json(tmp_path, capsys):
    trace = tmp_path / "t.json"
    assert main(["simulate", str(SK), "-n", "2", "-p", "3", "-q", "--json", "--trace", str(trace)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["seats"] and json.loads(trace.read_text())
    assert "trace written to" in captured.err


def test_the_plot_legend_is_clear_of_the_bars(tmp_path, monkeypatch):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from interpreter.sim.plots import plot_simulation
    from interpreter.sim.simulate import simulate
    figures = []
    real_savefig = Figure.savefig

    def savefig(self, *args, **kwargs):
        figures.append(self)
        return real_savefig(self, *args, **kwargs)
    monkeypatch.setattr(Figure, "savefig", savefig)
    for players in (3, 8):  # bars near the equal share, and many bars
        result = simulate(load_game(SK), 4, players, 1)
        plot_simulation(result, str(tmp_path / f"p{players}.png"))
        fig = figures[-1]
        renderer = FigureCanvasAgg(fig).get_renderer()
        wins = fig.axes[1]
        legend = wins.get_legend()
        assert [t.get_text() for t in legend.get_texts()] == [f"equal share ({100 / players:.1f}%)"]
        box = legend.get_window_extent(renderer)
        assert all(not box.overlaps(bar.get_window_extent(renderer)) for bar in wins.patches)
        assert not box.overlaps(wins.get_window_extent(renderer))  # outside the axes
    assert (tmp_path / "p8.png").stat().st_size > 0


# -- the command line's own mistakes --------------------------------------------------------------
def test_an_option_without_a_name_gets_a_sensible_hint(capsys):
    assert main(["play", str(SK), "-p", "3", "--option", "=1"]) == 1
    err = capsys.readouterr().err
    assert "e.g. --option NAME=1 " in err and "=1=true" not in err


def test_diagram_format_and_suffix_must_agree(tmp_path, capsys):
    out = tmp_path / "x.png"
    assert main(["diagram", str(SK), "-o", str(out), "-f", "svg"]) == 1
    err = _flat(capsys.readouterr().err)
    assert "is a png file name but --format is svg" in err and "x.svg" in err
    assert not out.exists()


def test_play_saves_the_log_when_the_rules_stop_the_game(tmp_path, capsys):
    """--save keeps the game, the action the rules failed on last (a new-user trial found no file
    written), and the seed line says why it is shown; replaying the log shows the failure."""
    spec = tmp_path / "stops.yaml"
    spec.write_text(RULE_STOPS)
    log = tmp_path / "g.json"
    assert main(["play", str(spec), "-p", "2", "--seed", "3", "--save", str(log)]) == 1
    captured = capsys.readouterr()
    assert "division by zero" in captured.err and "its last action is the one the rules failed on" in captured.err
    assert "now that the rules have stopped the game" in captured.out
    data = json.loads(log.read_text())
    assert [text for _, text in data["history"]] == ["play red-1", "play blue-1"]
    assert main(["replay", str(log)]) == 1 and "division by zero" in capsys.readouterr().err


RULE_STOPS = """\
name: rule error
players: {min: 2, max: 2}
cards:
  - each: {suit: "['red', 'blue']", rank: "range(1, 5)"}
    name: "{suit}-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  pile: {visibility: public}
player_variables: {score: 0}
variables: {x: 0}
flow:
  - shuffle: deck
  - deal: {from: deck, to: hand, count: 2}
  - for: p
    in: players
    do:
      - choose: {action: play, player: p, cards: p.hand, as: c, then: [{move: {cards: c, to: pile}}]}
  - set: {x: "1 / (count(pile) - 2)"}
  - set: {"players[0].score": x}
"""


def test_a_name_with_colons_is_printed_as_written_not_as_an_emoji(tmp_path, capsys):
    """Rich would turn ":skull:" into an emoji; the CLI's consoles print names as written."""
    path = tmp_path / "emoji.yaml"
    path.write_text(TINY.replace("name: Tiny", "name: \"Pirates :skull: ahoy\"", 1))
    assert main(["simulate", str(path), "-n", "2", "-p", "2", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "Pirates :skull: ahoy" in out and "\N{SKULL}" not in out


def test_each_command_parses_as_when_every_command_is_declared():
    """build_parser(argv) declares only the arguments of the command argv names (a start-up
    saving): each command's help and parsed arguments are the same as with every command declared."""
    import argparse

    from interpreter.cli import COMMANDS, build_parser
    full = build_parser()
    commands = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert tuple(commands) == COMMANDS  # the names build_parser checks argv against
    for name, parser in commands.items():
        lazy = next(a for a in build_parser([name])._actions if isinstance(a, argparse._SubParsersAction))
        assert lazy.choices[name].format_help() == parser.format_help(), name
    argv = ["simulate", str(SK), "-n", "3", "-p", "4", "--quiet", "--bot", "0=greedy"]
    assert vars(build_parser(argv).parse_args(argv)) == vars(full.parse_args(argv))
    assert build_parser(["--help"]).format_help() == full.format_help()


def test_version_prints_the_installed_package_version(capsys):
    from importlib.metadata import version
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.strip() == f"rulebook {version('rulebook')}"
