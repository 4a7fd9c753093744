"""Rule-flow graph, diagrams, static checks and the generated rules document (interpreter/analysis)."""
from __future__ import annotations

import json
import re
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from interpreter.analysis.checks import static_checks
from interpreter.analysis.export import FORMATS, render, to_dot, to_mermaid
from interpreter.analysis.graph import GAME_OVER, START, children, flow_graph, phase_graph
from interpreter.analysis.layout import Branch, Heat, Layout, Loop, Stack
from interpreter.analysis.rulesdoc import rules_markdown
from interpreter.cli import main
from interpreter.sim.simulate import simulate
from interpreter.spec.loader import check_spec, load_game

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml"))
SKULL_KING = ROOT / "specs" / "skull_king.yaml"


@pytest.fixture(scope="module")
def sk():
    game = load_game(SKULL_KING)
    return game, flow_graph(game)


def _edge(G, u, v):
    assert G.has_edge(u, v), f"no edge {u} -> {v}"
    return G.edges[u, v]


def _call_site(G, phase, cluster):
    sites = [n for n, d in G.nodes(data=True) if d["kind"] == "call" and d["phase"] == phase
             and d["cluster"] == cluster]
    assert len(sites) == 1, sites
    return sites[0]


# -- the graph ------------------------------------------------------------------------------------
def test_skull_king_graph_has_its_phases_as_clusters(sk):
    game, G = sk
    phases = {d["label"] for n, d in G.nodes(data=True) if d["kind"] == "phase"}
    assert phases == {"round", "trick", "scoring", "pirate_ability"}
    assert G.nodes["phases/trick"]["parent_phase"] == "round"      # a sub-phase of round
    assert G.nodes["phases/scoring"]["parent_phase"] == "round"
    assert G.nodes["phases/round"]["parent_phase"] is None          # called from the flow
    assert {G.nodes[n]["cluster"] for n in children(G, "phases/trick")} == {"trick"}


def test_skull_king_flow_repeats_the_round_phase(sk):
    _, G = sk
    loop = children(G, START)[0]
    assert G.nodes[loop]["kind"] == "repeat" and G.nodes[loop]["label"] == "repeat 10 times"
    call = _call_site(G, "round", "flow")
    assert _edge(G, loop, call)["kind"] == "body"
    assert _edge(G, call, "phases/round")["kind"] == "call"
    assert _edge(G, call, loop)["kind"] == "back"                    # the loop closes
    assert _edge(G, loop, children(G, START)[1])["label"] == "done"
    assert any(G.edges[u, v]["kind"] in ("seq", "exit") for u, v in G.in_edges(GAME_OVER))


def test_skull_king_round_calls_trick_in_a_loop_and_trick_loops_over_players(sk):
    _, G = sk
    call = _call_site(G, "trick", "round")
    assert _edge(G, call, "phases/trick")["kind"] == "call"
    tricks = G.nodes[call]["parent"]
    assert G.nodes[tricks]["label"] == "repeat cards_dealt times"
    turn = children(G, "phases/trick")[0]
    assert G.nodes[turn]["kind"] == "for" and G.nodes[turn]["label"] == "for p in play_order"
    ghost_turn = children(G, turn)[0]  # §11: Graybeard's turn (2 players), else the seat's decision
    assert G.nodes[ghost_turn]["condition"] == "p == null"
    play = children(G, ghost_turn, "else")[0]
    d = G.nodes[play]
    assert (d["kind"], d["category"], d["action"], d["who"], d["simultaneous"]) == \
        ("choose", "decision", "play", "p", False)
    assert "lead_suit" in d["options"]                               # through may_play -> lead_suit_of
    assert _edge(G, turn, ghost_turn)["kind"] == "body"
    assert _edge(G, ghost_turn, play)["branch"] == "else"
    assert _edge(G, play, turn)["kind"] == "back"


def test_skull_king_trick_branches_on_nobody_winning(sk):
    _, G = sk
    branch = [n for n, d in G.nodes(data=True) if d["kind"] == "if" and d["cluster"] == "trick"
              and G.nodes[n]["parent"] == "phases/trick"]
    assert len(branch) == 1  # the other branches (Graybeard, Loot, abilities) are nested
    b = branch[0]
    assert G.nodes[b]["condition"] == "winning == null"
    then_edge = _edge(G, b, children(G, b, "then")[0])
    else_edge = _edge(G, b, children(G, b, "else")[0])
    assert (then_edge["kind"], then_edge["label"], then_edge["branch"]) == ("branch", "winning == null", "then")
    assert (else_edge["label"], else_edge["branch"]) == ("else", "else")


def test_skull_king_decisions_chance_and_line_numbers(sk):
    game, G = sk
    bid = [d for n, d in G.nodes(data=True) if d.get("action") == "bid"][0]
    assert bid["simultaneous"] is True and bid["who"] == "players"
    chance = {d["kind"] for n, d in G.nodes(data=True) if d["category"] == "chance"}
    assert chance == {"shuffle", "deal", "move"}  # move: Graybeard's (§11) and Bendt's (§10) draws
    text = SKULL_KING.read_text().split("\n")
    # the step starts where its list item does (its doc: comes first in this spec)
    assert text[bid["line"] - 1].strip().startswith("- doc:")
    assert text[bid["line"]].strip() == "choose:"
    assert text[G.nodes["phases/trick"]["line"] - 1].strip() == "trick:"
    # the kraken and white whale cards exist only with their options: the steps that read their kinds say so
    winner = [d for n, d in G.nodes(data=True) if d["kind"] == "set" and "winner_card" in d["label"]][0]
    assert {"kraken", "white_whale"} <= set(winner["options"])


def test_node_ids_are_the_compiled_step_ids(sk):
    game, G = sk
    ids = {i.step_id for prog in game.programs.values() for i in prog if i.step_id is not None}
    assert ids <= set(G.nodes)
    assert {n for n, d in G.nodes(data=True) if "step" in d} == ids


def test_a_trace_of_simulated_games_maps_onto_the_nodes(sk):
    game, G = sk
    trace: dict = {}
    simulate(game, 2, 3, seed=1, trace=trace)
    assert trace and set(trace) <= set(G.nodes)
    assert trace[children(G, START)[0]] == 2                         # the repeat ran once per game
    assert trace[_call_site(G, "round", "flow")] == 20               # 10 rounds per game


def test_phase_view_keeps_phases_loops_and_summarises_other_steps(sk):
    _, G = sk
    H = phase_graph(G)
    kinds = {d["kind"] for _, d in H.nodes(data=True)}
    assert {"phase", "call", "repeat", "group"} <= kinds and "set" not in kinds
    assert {"phases/round", "phases/trick", "phases/scoring"} <= set(H.nodes)
    groups = [d for _, d in H.nodes(data=True) if d["kind"] == "group"]
    assert all(set(d["members"]) <= set(G.nodes) for d in groups)
    trick = [d for d in groups if d["cluster"] == "trick"][0]
    assert any("play" in line and "in turn" in line for line in trick["text"])
    round_ = [d for d in groups if d["cluster"] == "round"][0]
    assert any("bid" in line and "all at once" in line for line in round_["text"])


BRANCHY = """\
name: Branchy
players: {min: 2, max: 3}
cards:
  - each: {rank: "range(1, 9)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {n: 0}
score: "count(p.hand)"
flow:
  - phase: refill
phases:
  refill:
    - if: n == 0
      then:
        - for: p
          in: players
          do:
            - if: count(deck) > 0
              then:
                - move: {from: deck, to: p.hand, count: 1}
              else:
                - log: "nothing left for {name(p)}"
      else:
        - shuffle: deck
    - add: {n: 1}
"""


def test_phase_view_shows_else_branches_apart(tmp_path):
    path = tmp_path / "branchy.yaml"
    path.write_text(BRANCHY)
    H = phase_graph(flow_graph(load_game(path)))
    group = H.nodes[children(H, "phases/refill")[0]]
    # the shuffle is the other way of the first `if`: an "else:" line at that `if`'s depth says so;
    # the inner else shows nothing (only a message), so it gets no "else:" line; the loop around a
    # branch is listed, so the branch is not left hanging under nothing
    assert group["text"] == [
        "? if n == 0",
        "   ↻ for p in players",
        "      ? if count(deck) > 0",
        "         ⚄ move 1 from deck → p.hand",
        "else:",
        "   ⚄ shuffle deck",
        "+ 2 other steps (add, log)",
    ]
    lay = Layout(H).build()
    drawn = [ln for p in lay.prims if p[0] == "box" for ln in p[5].lines if ln.text.strip() == "else:"]
    assert len(drawn) == 1 and drawn[0].color == "#7a6500"   # in the colour of the branch it belongs to
    # DOT keeps the indentation: the summary's lines are left-justified (\l)
    assert "\\l   ↻ for p in players\\l" in to_dot(H) and "\\lelse:\\l   ⚄ shuffle deck\\l" in to_dot(H)


# -- static checks ----------------------------------------------------------------------------------
FLAWED = """\
name: Flawed
players: {min: 2, max: 4}
options:
  fast: {type: bool, default: false}
  colour_blind: {type: bool, default: false}    # UNUSED-OPTION
cards:
  - each: {rank: "range(1, 6)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {ready: false, turns: 0}
player_variables: {score: 0}
flow:
  - deal: {from: deck, to: hand, count: 2}
  - while: "not ready and turns < 100"    # ENDLESS
    max: 20
    do:
      - log: "waiting {turns}"
  - if: options.fast
    then:
      - log: "fast"
  - for: p
    in: players
    do:
      - choose: {action: play, player: p, cards: p.hand, to: deck}
      - add: {p.score: 1}
phases:
  forgotten:                                    # UNREACHABLE
    - log: "nobody comes here"
"""


def _line_of(text, marker):
    lines = [i + 1 for i, ln in enumerate(text.split("\n")) if marker in ln]
    assert len(lines) == 1, marker
    return lines[0]


def test_flawed_spec_gets_exactly_its_three_warnings(tmp_path):
    path = tmp_path / "flawed.yaml"
    path.write_text(FLAWED)
    diags = check_spec(path)
    got = sorted((d.line, d.column, d.severity, d.message.split(":")[0]) for d in diags)
    assert got == sorted([
        (_line_of(FLAWED, "UNUSED-OPTION"), 3, "warning", "option 'colour_blind' is never used"),
        (_line_of(FLAWED, "ENDLESS"), 5, "warning", "this while loop's condition never changes"),
        (_line_of(FLAWED, "UNREACHABLE"), 3, "warning", "phase 'forgotten' is never entered"),
    ]), [str(d) for d in diags]
    endless = [d for d in diags if "while" in d.message][0]
    assert "ready, turns" in endless.message and all(d.file == str(path) for d in diags)


def test_validate_strict_fails_on_warnings(tmp_path, capsys):
    path = tmp_path / "flawed.yaml"
    path.write_text(FLAWED)
    assert main(["validate", str(path)]) == 0
    assert "3 warning(s)" in " ".join(capsys.readouterr().out.split())
    assert main(["validate", "--strict", str(path)]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "3 warning(s) (refused: --strict)" in out and "error(s)" not in out  # warnings are not errors


MORE_FLAWS = """\
name: More flaws
players: {min: 2, max: 4}
options:
  bonus: {type: int, default: 5}                # PRESET-ONLY
presets:
  generous: {bonus: 10}
cards:
  - each: {rank: "range(1, 6)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
  limbo: {visibility: public}
variables: {spare: 1, tally: 0}                 # VARIABLES
player_variables: {score: 0, streak: 0}         # PLAYER-VARIABLES
flow:
  - deal: {from: deck, to: hand, count: 1}
  - for: p
    in: players
    do:
      - choose: {action: take, player: p, cards: limbo, to: p.hand}    # EMPTY-ZONE
      - choose: {action: say, player: p, options: "[]"}                # NO-OPTIONS
      - choose: {action: maybe, player: p, options: "[]", optional: true}
      - add: {p.streak: 1, tally: 1, p.score: 1}
  - end: "that is all"
  - log: "too late"                             # AFTER-END
"""


def test_each_check_on_its_own_flaw(tmp_path):
    path = tmp_path / "more.yaml"
    path.write_text(MORE_FLAWS)
    diags = static_checks(load_game(path))
    got = {(d.line, d.message.split(":")[0].split(" (")[0]) for d in diags}
    var_line = _line_of(MORE_FLAWS, "# VARIABLES")
    assert got == {
        (_line_of(MORE_FLAWS, "PRESET-ONLY"), "option 'bonus' is never used"),
        (var_line, "variable 'spare' is declared but never used"),
        (var_line, "variable 'tally' is written"),
        (_line_of(MORE_FLAWS, "PLAYER-VARIABLES"), "player variable 'streak' is written"),
        (_line_of(MORE_FLAWS, "EMPTY-ZONE"), "decision 'take' may never have an option"),
        (_line_of(MORE_FLAWS, "NO-OPTIONS"), "decision 'say' never has an option"),
        (_line_of(MORE_FLAWS, "AFTER-END"), "this step can never run"),
    }, [str(d) for d in diags]
    assert all(d.severity == "warning" for d in diags)
    assert any("presets generous set it" in d.message for d in diags)


def test_a_while_loop_whose_body_changes_its_condition_is_fine(tmp_path):
    text = FLAWED.replace('      - log: "waiting {turns}"', '      - add: {turns: 1}')
    path = tmp_path / "ok.yaml"
    path.write_text(text)
    messages = [d.message for d in check_spec(path)]
    assert not any("while" in m for m in messages) and len(messages) == 2


@pytest.mark.parametrize("spec", SPECS, ids=lambda p: p.stem)
def test_every_spec_validates_strictly(spec):
    diags = check_spec(spec)
    assert diags == [], "\n".join(map(str, diags))


# -- exports ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def graphs():
    out = {}
    for spec in SPECS:
        G = flow_graph(load_game(spec))
        out[spec.stem] = {"steps": G, "phases": phase_graph(G)}
    return out


def _check_output(fmt, data, G):
    phases = [d["label"] for _, d in G.nodes(data=True) if d["kind"] == "phase"]
    if fmt == "png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
        return
    text = data.decode("utf-8")
    if fmt == "svg":
        root = ET.fromstring(data)
        assert root.tag.endswith("svg") and float(root.get("width").rstrip("pt")) > 100
    elif fmt == "dot":
        assert text.startswith("digraph ") and text.rstrip().endswith("}")
        for p in phases:
            assert f'"cluster_{p}"' in text
        assert text.count(" -> ") == G.number_of_edges()
    elif fmt == "mermaid":
        assert "flowchart TD" in text
        for p in phases:
            assert f'["phase {p}"]' in text
        lines = [ln.strip() for ln in text.split("\n")]
        assert sum(ln.startswith("subgraph ") for ln in lines) == lines.count("end") >= len(phases)
    elif fmt == "html":
        assert text.startswith("<!DOCTYPE html>") and "<svg" in text and "flowchart TD" in text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("spec", [p.stem for p in SPECS])
def test_every_format_renders_for_every_spec(graphs, spec, fmt):
    G = graphs[spec]["steps"]
    _check_output(fmt, render(G, fmt, title=spec), G)


@pytest.mark.parametrize("spec", [p.stem for p in SPECS])
def test_phase_view_renders_for_every_spec(graphs, spec):
    H = graphs[spec]["phases"]
    _check_output("svg", render(H, "svg", title=spec), H)
    _check_output("mermaid", render(H, "mermaid"), H)


def test_mermaid_and_dot_mark_loops_branches_and_back_edges(sk):
    _, G = sk
    m = to_mermaid(G)
    assert '>"↻ repeat 10 times"]' in m                      # a loop node
    assert '{"if winning == null"}' in m                     # a branch node
    assert '-->|"winning == null"|' in m and '-->|"else"|' in m
    assert "-.->" in m and "==>" in m                         # back edges dotted, phase calls thick
    assert "DECISION: bid" in m and "all at once" in m
    d = to_dot(G)
    assert 'style="dashed", constraint="false"' in d
    assert d.index('subgraph "cluster_round"') < d.index('subgraph "cluster_trick"') < d.rindex("}")


def test_heat_colours_nodes_and_labels_branches(sk):
    game, G = sk
    trace: dict = {}
    simulate(game, 2, 3, seed=0, trace=trace)
    lay = Layout(G, Heat(trace, 2)).build()
    texts = [ln.text for p in lay.prims if p[0] == "box" for ln in p[5].lines]
    assert "ran 10× per game" in texts                       # the round phase's first step
    assert "never ran" in texts                               # nobody-wins branch: no kraken by default

    def find(item, cls):
        out = [item] if isinstance(item, cls) else []
        for attr in ("items",):
            for x in getattr(item, attr, []) or []:
                out += find(x, cls)
        for attr in ("body", "then", "other"):
            x = getattr(item, attr, None)
            if x is not None:
                out += find(x, cls)
        return out
    main_item = Layout(G, Heat(trace, 2)).seq([START] + children(G, START))
    branches = find(main_item, Branch)
    assert branches and branches[0].labels == ("yes 0%", "no 100%")
    loops = [x for x in find(main_item, Loop) if G.nodes[x.nid]["label"] == "repeat cards_dealt times"]
    assert loops and loops[0].lane_label == "5.5 passes"       # 55 tricks in 10 rounds


# -- command line -----------------------------------------------------------------------------------
def test_cli_diagram_formats_and_heat(tmp_path, capsys):
    out = tmp_path / "sk.svg"
    assert main(["diagram", str(SKULL_KING), "-o", str(out)]) == 0
    ET.fromstring(out.read_bytes())
    png = tmp_path / "heat.png"
    assert main(["diagram", str(SKULL_KING), "--heat", "2", "--players", "3", "--detail", "phases",
                 "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    capsys.readouterr()
    assert main(["diagram", str(SKULL_KING), "--format", "mermaid", "--option", "kraken=true"]) == 0
    assert "flowchart TD" in capsys.readouterr().out


def test_simulate_trace_feeds_diagram_trace(tmp_path, capsys):
    trace = tmp_path / "trace.json"
    assert main(["simulate", str(SKULL_KING), "-n", "2", "-p", "4", "-q", "--trace", str(trace)]) == 0
    counts = json.loads(trace.read_text())
    assert counts["flow/0"] == 2 and counts["flow/0/do/0"] == 20
    dot = tmp_path / "trace.dot"
    assert main(["diagram", str(SKULL_KING), "--trace", str(trace), "-o", str(dot)]) == 0
    assert "ran 20×" in dot.read_text()


@pytest.mark.parametrize("argv, message", [
    (["diagram", "nope.yaml"], "no such file"),
    (["diagram", str(SKULL_KING), "-o", "out.txt"], "cannot tell the format"),
    (["diagram", str(SKULL_KING), "--heat", "1", "--players", "1"], "not 1"),
    (["diagram", str(SKULL_KING), "--trace", "missing.json"], "no such trace file"),
    (["doc", str(SKULL_KING), "--option", "kraken=maybe"], "kraken must be bool"),
])
def test_cli_errors_are_messages_not_tracebacks(argv, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 1
    err = " ".join(capsys.readouterr().err.split())  # the console wraps long lines
    assert message in err and "Traceback" not in err


def test_cli_rejects_a_trace_of_another_spec(tmp_path, capsys):
    bad = tmp_path / "t.json"
    bad.write_text(json.dumps({"phases/elsewhere/0": 3}))
    assert main(["diagram", str(SKULL_KING), "--trace", str(bad), "-o", str(tmp_path / "x.svg")]) == 1
    assert "another spec" in " ".join(capsys.readouterr().err.split())
    bad.write_text("[1, 2]")
    assert main(["diagram", str(SKULL_KING), "--trace", str(bad), "-o", str(tmp_path / "x.svg")]) == 1
    assert "a trace is a JSON object" in " ".join(capsys.readouterr().err.split())


# -- rules document ---------------------------------------------------------------------------------
def test_rules_document_of_skull_king(sk):
    game, _ = sk
    md = rules_markdown(game)
    for text in ("# Skull King — rules", "**Players:** 2 to 8.", "56 × **green-1** … **black-14**",
                 "5 × **escape**", "played as *pirate* or *escape*", "only with option `kraken`",
                 "That is **70 cards**", "1. **§2: 10 rounds.** — Repeat `10` times:", "### Phase trick",
                 "**Decision — bid:** every player chooses at the same time",
                 "starting with the player left of `dealer`",
                 "range(0, cards_dealt + 1)", "**Allowed when:** `may_play(c, p)`", "If `winning == null`:",
                 "- Otherwise:", "the **highest** final score wins", "Add `p.round_points` to `p.score`",
                 "§6: add the Kraken: nobody wins its trick.", "**rulebook_2021**: `lead_suit=official`",
                 "### winner_card", "*§6: the card that wins the trick, or null when nobody wins.*"):
        assert text in md, text
    # steps are numbered in order within each phase
    trick = md.split("### Phase trick")[1].split("###")[0]
    assert re.findall(r"^(\d+)\. ", trick, re.M) == ["1", "2", "3", "4", "5"]


LONG_FLOW = """\
name: Long flow
players: {min: 2, max: 2}
cards:
  - each: {rank: "range(1, 5)"}
    name: "c{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {n: 0}
score: "n"
flow:
""" + "  - add: {n: 1}\n" * 8 + """\
  - shuffle: deck
  - if: n > 3
    then:
      - log: "big {n}"
    else:
      - repeat: 2
        do:
          - log: "small {n}"
  - repeat: 2
    do:
      - deal: {from: deck, to: hand, count: 1}
      - log: "dealt"
  - log: "done {n}"
"""


def _outline(md, heading):
    """The lists under ``heading`` as a CommonMark parser reads them: [(item text, [sub-items])]."""
    from markdown_it import MarkdownIt  # a dependency of rich
    from markdown_it.tree import SyntaxTreeNode

    section = md.split(heading + "\n", 1)[1].split("\n#", 1)[0]

    def items(node):
        out = []
        for lst in node.children:
            if lst.type not in ("ordered_list", "bullet_list"):
                continue
            for li in lst.children:
                para = next(c for c in li.children if c.type == "paragraph")
                out.append((para.children[0].content, items(li)))
        return out
    return items(SyntaxTreeNode(MarkdownIt("commonmark").parse(section)))


def test_plain_steps_in_a_row_share_one_stack(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text(LONG_FLOW)
    G = flow_graph(load_game(path))
    lay = Layout(G)
    main_seq = lay.measure(lay.seq(children(G, START)))
    first = main_seq.items[0]
    assert isinstance(first, Stack) and [x.nid for x in first.leaves] == children(G, START)[:8]
    assert first.h == sum(x.h for x in first.leaves)                  # no gaps, no arrows inside
    assert len({(x.left, x.right) for x in first.leaves}) == 1          # one width
    assert [type(x).__name__ for x in main_seq.items[1:]] == ["Leaf", "Branch", "Loop", "Leaf"]
    inner = main_seq.items[3].body.items                                 # a draw breaks a stack
    assert [type(x).__name__ for x in inner] == ["Leaf", "Leaf"]
    lay = Layout(G).build()
    assert sum(p[0] == "stack" for p in lay.prims) == 1
    assert render(G, "png")[:8] == b"\x89PNG\r\n\x1a\n"


def test_rules_document_nests_steps_under_items_numbered_10_and_up(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text(LONG_FLOW)
    md = rules_markdown(load_game(path))
    top = _outline(md, "## How a game goes")
    assert [t.split(" ")[0] for t, _ in top] == ["Add"] * 8 + ["Shuffle", "If", "Repeat", "Announce"]
    branch, loop = top[9], top[10]
    assert branch == ("If `n > 3`:", [("Announce “big {n}”.", []), ("Otherwise:", [
        ("Repeat `2` times:", [("Announce “small {n}”.", [])])])])
    assert [t for t, _ in loop[1]] == ["Deal `1` cards to each player's `hand` from `deck`, one at a time.",
                                       "Announce “dealt”."]
    # the sub-steps are indented by the width of the marker: 4 spaces under "10. "
    assert "\n10. If `n > 3`:\n    1. Announce" in md and "\n    - Otherwise:\n      1. Repeat" in md


def test_rules_document_of_skull_king_nests_its_long_round(sk):
    game, _ = sk
    rnd = _outline(rules_markdown(game), "### Phase round")
    assert len(rnd) >= 11
    tricks = [sub for text, sub in rnd if text.startswith("Repeat `cards_dealt` times")]
    assert tricks and [t for t, _ in tricks[0]] == ["Play the phase **trick** (see *Phase trick* below)."]


def test_cli_doc_for_every_spec(tmp_path):
    for spec in SPECS:
        out = tmp_path / f"{spec.stem}.md"
        assert main(["doc", str(spec), "-o", str(out)]) == 0
        md = out.read_text()
        game = load_game(spec)
        assert md.startswith(f"# {game.name} — rules")
        assert "## How a game goes" in md and "## Scoring and winning" in md
        G = flow_graph(game)
        for key in game.spec.get("phases") or {}:
            name = str(key).split("(", 1)[0].strip()  # a phase key may declare arguments: turn(p)
            # a phase only optional rules call is left out when they are off
            assert (f"### Phase {name}" in md) != G.nodes[f"phases/{name}"]["inactive"], name


def test_analysis_names_no_game():
    words = ("skull", "pirate", "tigress", "kraken", "whale", "witch", "blackmore", "ligretto", "scots")
    for path in (ROOT / "interpreter" / "analysis").glob("*.py"):
        text = path.read_text().lower()
        assert not [w for w in words if w in text], path


MODULAR = """
name: Modular
players: {min: 2, max: 4}
options:
  bonus_round: {type: bool, default: false}
  extra: {type: bool, default: false}
cards:
  - each: {rank: "range(1, 5)"}
    name: "c-{rank}"
zones:
  deck: {visibility: hidden, initial: all}
  hand: {per_player: true, visibility: owner}
variables: {turns: 0, extra_on: false}
player_variables: {score: 0}
define:
  duel: "num_players == 2"
  wants_extra: "options.extra"
flow:
  - shuffle: deck
  - deal: {from: deck, to: hand, count: 1}
  - if: "options.bonus_round and turns == 0"
    then:
      - phase: bonus
  - if: "wants_extra"
    then:
      - set: {extra_on: true}
    else:
      - set: {extra_on: false}
  - if: duel
    then:
      - add: {turns: 1}
phases:
  bonus:
    - choose: {action: pick, player: 0, options: "[1, 2]", as: k, then: [add: {player.score: k}]}
"""


def test_option_guards_mark_variants_and_inactive_steps(tmp_path):
    """An `if` conjunct that reads only options (also through a define) guards its branch as a
    variant; with those options off the branch is inactive, and so is a phase called only there;
    a player-count guard is named by its define."""
    path = tmp_path / "modular.yaml"
    path.write_text(MODULAR)
    G = flow_graph(load_game(path))
    assert G.nodes["flow/2/then/0"]["variant"] == ["bonus_round"] and G.nodes["flow/2/then/0"]["inactive"]
    assert G.nodes["phases/bonus"]["inactive"] and G.nodes["phases/bonus/0"]["variant"] == ["bonus_round"]
    assert G.nodes["flow/3"]["then_off"] and not G.nodes["flow/3"]["else_off"]
    assert G.nodes["flow/4/then/0"]["variant"] == ["duel"] and not G.nodes["flow/4/then/0"]["inactive"]
    md = rules_markdown(load_game(path))
    assert "### Phase bonus" not in md and "Decision — pick" not in md
    assert "Set `extra_on` to `false`" in md and "Set `extra_on` to `true`" not in md   # the else inlined
    assert "If `options.bonus_round" not in md
    on = load_game(path, {"bonus_round": True, "extra": True})
    G = flow_graph(on)
    assert not G.nodes["phases/bonus"]["inactive"] and G.nodes["flow/3"]["else_off"]
    md = rules_markdown(on)
    assert "### Phase bonus" in md and "Decision — pick" in md
    assert "Set `extra_on` to `true`" in md and "Set `extra_on` to `false`" not in md
