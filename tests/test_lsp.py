"""``rulebook lsp`` over stdio, driven by pygls's own LSP client: one server process for the
module, a copy of specs/skull_king.yaml in a folder of its own (its modeline then points nowhere,
as a designer's copy's does)."""
from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest
from lsprotocol import types as T
from pygls.lsp.client import LanguageClient

from interpreter.spec.loader import check_text

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 30


class Session:
    """The client, its event loop, and the diagnostics published so far by URI."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.client = LanguageClient("rulebook-test", "1")
        self.diagnostics: dict = {}
        self.arrived = asyncio.Event()

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(ls, params: T.PublishDiagnosticsParams):  # pygls passes the client as `ls`
            self.diagnostics[params.uri] = (params.version, params.diagnostics)
            self.arrived.set()

    def run(self, coro):
        return self.loop.run_until_complete(asyncio.wait_for(coro, TIMEOUT))

    def diagnostics_of(self, uri: str, version: int) -> list:
        """The diagnostics of ``uri`` at ``version``, waiting for them."""
        async def wait():
            while self.diagnostics.get(uri, (None,))[0] != version:
                self.arrived.clear()
                await self.arrived.wait()
            return self.diagnostics[uri][1]
        return self.run(wait())


@pytest.fixture(scope="module")
def lsp(tmp_path_factory):
    s = Session()
    s.run(s.client.start_io(sys.executable, "-m", "interpreter", "lsp"))
    s.run(s.client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities())))
    s.client.initialized(T.InitializedParams())
    yield s
    s.run(s.client.shutdown_async(None))
    s.client.exit(None)
    s.run(s.client.stop())
    s.loop.close()


@pytest.fixture(scope="module")
def spec(lsp, tmp_path_factory):
    """A copy of Skull King with one misspelt card literal, opened in the server: (uri, text)."""
    folder = tmp_path_factory.mktemp("designer")
    path = folder / "house_rules.yaml"
    shutil.copy(ROOT / "specs" / "skull_king.yaml", path)
    text = path.read_text().replace("c.kind == 'kraken' or", "c.kind == 'krakn' or", 1)
    path.write_text(text)
    uri = path.as_uri()
    lsp.client.text_document_did_open(T.DidOpenTextDocumentParams(
        T.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)))
    return uri, text


def _position(text: str, needle: str, offset: int = 0) -> T.Position:
    """The position of ``needle``'s first character (plus ``offset``) in ``text``."""
    index = text.index(needle) + offset
    line = text.count("\n", 0, index)
    return T.Position(line, index - (text.rfind("\n", 0, index) + 1))


def test_a_misspelt_card_literal_is_diagnosed_at_its_column_with_a_quick_fix(lsp, spec):
    uri, text = spec
    diags = lsp.diagnostics_of(uri, 1)
    typo = [d for d in diags if "'krakn'" in d.message]
    assert len(typo) == 1
    d = typo[0]
    at = _position(text, "'krakn'")
    assert (d.range.start.line, d.range.start.character) == (at.line, at.character)
    assert d.range.end.character == at.character + len("'krakn'")
    assert d.severity == T.DiagnosticSeverity.Error
    assert "did you mean 'kraken'?" in d.message
    # the same words as rulebook validate
    words = [x for x in check_text(text, "x.yaml")[0] if "'krakn'" in x.message][0]
    assert d.message == f"{words.message}\nhint: {words.hint}"
    # the copied modeline points at no file: said, with a fix
    modeline = [x for x in diags if "modeline" in x.message]
    assert modeline and modeline[0].range.start.line == 0
    actions = lsp.run(lsp.client.text_document_code_action_async(T.CodeActionParams(
        T.TextDocumentIdentifier(uri), d.range, T.CodeActionContext(diagnostics=[d]))))
    assert len(actions) == 1 and actions[0].kind == T.CodeActionKind.QuickFix
    (edit,) = actions[0].edit.changes[uri]
    assert edit.new_text == "kraken"
    assert (edit.range.start.line, edit.range.start.character) == (at.line, at.character + 1)
    assert edit.range.end.character == at.character + 1 + len("krakn")


def _complete(lsp, uri, position) -> list:
    result = lsp.run(lsp.client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), position)))
    return [i.label for i in result.items]


def test_completion_after_c_dot_lists_the_card_attributes(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    labels = _complete(lsp, uri, _position(text, "numbered(c): \"c.kind", len("numbered(c): \"c.")))
    for attr in ("kind", "suit", "rank", "ability", "name", "played_by"):
        assert attr in labels
    assert labels.index("kind") < labels.index("score")  # card attributes first, then player variables


def test_completion_of_a_kind_value_lists_the_kinds(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    labels = _complete(lsp, uri, _position(text, "numbered(c): \"c.kind == '", len("numbered(c): \"c.kind == '")))
    assert {"pirate", "mermaid", "king", "escape", "numbered", "tigress"} <= set(labels)
    assert "black" not in labels  # a suit, not a kind


def test_completion_of_a_name_offers_definitions_zones_and_built_ins(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    result = lsp.run(lsp.client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), _position(text, "highest(cards): \"", len("highest(cards): \"")))))
    by_label = {i.label: i for i in result.items}
    assert by_label["may_play"].insert_text == "may_play(${1:c}, ${2:p})"
    assert "trick" in by_label and "cards_dealt" in by_label and "num_players" in by_label
    assert by_label["argmax"].detail == "argmax(xs, key, ties='first')"


def test_hover_on_a_definition_shows_its_text(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    result = lsp.run(lsp.client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri), _position(text, "where numbered(c)", len("where num")))))
    assert "numbered(c): c.kind == 'numbered'" in result.contents.value
    card = lsp.run(lsp.client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri), _position(text, "name: skull-king", len("name: sk")))))
    assert "kind: king" in card.contents.value
    option = lsp.run(lsp.client.text_document_hover_async(T.HoverParams(
        T.TextDocumentIdentifier(uri), _position(text, "when: options.kraken", len("when: options.k")))))
    assert "bool (default false)" in option.contents.value and "add the Kraken" in option.contents.value


def test_definition_and_references_of_a_zone(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    use = _position(text, "shuffle: deck", len("shuffle: "))
    (decl,) = lsp.run(lsp.client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), use)))
    assert decl.range.start == _position(text, "deck: {visibility")
    refs = lsp.run(lsp.client.text_document_references_async(T.ReferenceParams(
        text_document=T.TextDocumentIdentifier(uri), position=use,
        context=T.ReferenceContext(include_declaration=False))))
    lines = text.split("\n")
    assert all(lines[r.range.start.line][r.range.start.character:r.range.end.character] == "deck" for r in refs)
    assert use in [r.range.start for r in refs]
    assert _position(text, "count(deck) // hands", len("count(")) in [r.range.start for r in refs]


def test_rename_of_a_definition_changes_every_use(lsp, spec):
    uri, text = spec
    lsp.diagnostics_of(uri, 1)
    edit = lsp.run(lsp.client.text_document_rename_async(T.RenameParams(
        T.TextDocumentIdentifier(uri), _position(text, "where numbered(c)", len("where ")), "is_numbered")))
    lines = text.split("\n")
    edits = sorted(edit.changes[uri], key=lambda e: (e.range.start.line, -e.range.start.character))
    for e in reversed(edits):
        assert e.range.start.line == e.range.end.line
        ln = lines[e.range.start.line]
        assert ln[e.range.start.character:e.range.end.character] == "numbered"
        lines[e.range.start.line] = ln[:e.range.start.character] + e.new_text + ln[e.range.end.character:]
    renamed = "\n".join(lines)
    import re
    assert not re.search(r"\bnumbered\(", renamed)  # no call and no key left
    assert "is_numbered(c): \"c.kind == 'numbered'\"" in renamed  # the card kind itself is untouched
    assert "attributes: {kind: numbered}" in renamed
    for where, name in ((_position(text, "shuffle: deck", len("shuffle: ")), "pile"),   # a zone
                        (_position(text, "where numbered(c)", len("where ")), "highest")):  # a name taken
        with pytest.raises(Exception, match="only a definition|already a name"):
            lsp.run(lsp.client.text_document_rename_async(T.RenameParams(T.TextDocumentIdentifier(uri), where, name)))
    fixed = renamed.replace("'krakn'", "'kraken'")
    assert [d for d in check_text(fixed, "x.yaml")[0] if d.severity == "error"] == []


def test_half_typed_yaml_is_a_diagnostic_and_the_server_keeps_answering(lsp, tmp_path):
    path = tmp_path / "draft.yaml"
    text = "name: Draft\nplayers: {min: 2, max: 4\ncards:\n  - name: a\n"
    uri = path.as_uri()
    lsp.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "yaml", 1, text)))
    (d,) = lsp.diagnostics_of(uri, 1)
    assert d.message.startswith("YAML syntax error")
    assert d.range.start.line == 1
    # typed on: a new step's keys come from the schema, each with its own description
    text2 = "name: Draft\nflow:\n  - shuf"
    lsp.client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [T.TextDocumentContentChangeWholeDocument(text=text2)]))
    diags = lsp.diagnostics_of(uri, 2)
    assert diags and all(x.source == "rulebook" for x in diags)
    result = lsp.run(lsp.client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(2, 8))))
    shuffle = [i for i in result.items if i.label == "shuffle"]
    assert shuffle and "shuffle" in shuffle[0].detail
    assert len({i.detail for i in result.items}) > 10  # not all the same label
    # in a step whose kind is written, that kind's other keys
    text3 = "name: Draft\nflow:\n  - for: p\n    "
    lsp.client.text_document_did_change(T.DidChangeTextDocumentParams(
        T.VersionedTextDocumentIdentifier(uri=uri, version=3),
        [T.TextDocumentContentChangeWholeDocument(text=text3)]))
    lsp.diagnostics_of(uri, 3)
    labels = [i.label for i in lsp.run(lsp.client.text_document_completion_async(T.CompletionParams(
        T.TextDocumentIdentifier(uri), T.Position(3, 4)))).items]
    assert {"in", "do"} <= set(labels) and "for" not in labels and "shuffle" not in labels


def test_a_scenario_file_gets_the_scenario_schema(lsp, tmp_path):
    path = tmp_path / "a_rule.yaml"
    text = "rule: the highest card wins\ngame: skull_king\nplayers: 3\nexpectt: {}\n"
    uri = path.as_uri()
    lsp.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "yaml", 1, text)))
    diags = lsp.diagnostics_of(uri, 1)
    assert any("expectt" in d.message for d in diags)
    assert all(d.range.start.line == 3 for d in diags if "expectt" in d.message)


def test_other_yaml_files_are_left_alone(lsp, tmp_path):
    path = tmp_path / "ci.yaml"
    uri = path.as_uri()
    lsp.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(
        uri, "yaml", 1, "on: [push]\njobs:\n  test: {runs-on: ubuntu-latest}\n")))
    assert list(lsp.diagnostics_of(uri, 1)) == []


def test_half_typed_text_never_breaks_an_answer():
    """Cut, deleted and stray characters anywhere (the text being typed), answered from its own
    analysis and from the last one that compiled (as the server does): completion, hover, references, rename and quick fixes
    never raise. Found two faults (an empty quote test, comments read from the wrong text)."""
    import random

    from interpreter.lsp import document as D
    full = (ROOT / "specs" / "skull_king.yaml").read_text()
    good = D.analyse(full, "/elsewhere/sk.yaml")
    rng = random.Random(1)
    for trial in range(6):
        cut = rng.randrange(len(full))
        text = (full[:cut], full[:cut] + full[cut + rng.randrange(1, 40):],
                full[:cut] + rng.choice(["'", "{", "- ", "c.", "options."]) + full[cut:])[trial % 3]
        a = D.analyse(text, "/elsewhere/sk.yaml")
        assert a.diagnostics or a.compiler is not None
        lines = text.split("\n")
        for _ in range(40):
            line = rng.randrange(len(lines))
            col = rng.randrange(len(lines[line]) + 1)
            for use in {id(a): a, id(good): good}.values():  # its own, and the last that compiled
                D.completions(use, lines, line, col)
                D.hover(use, lines, line, col)
                D.occurrences_of(use, line, col)
                D.rename_edits(use, lines, line, col, "zz")
        for d in a.diagnostics:
            D.quick_fix(lines, d)


def test_a_spec_the_schema_refuses_still_completes_its_own_names():
    from interpreter.lsp import document as D
    text = (ROOT / "specs" / "skull_king.yaml").read_text().replace("    - shuffle: deck", "    - shufle: deck", 1)
    a = D.analyse(text, "/elsewhere/sk.yaml")
    assert a.compiler is None and any("did you mean 'shuffle'?" in d.hint for d in a.diagnostics)
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if "numbered(c): " in ln)
    at = lines[i].index("c.kind == '") + len("c.kind == '")
    assert {"pirate", "mermaid"} <= {x.label for x in D.completions(a, lines, i, at)}
    names = {x.label for x in D.completions(a, lines, i, lines[i].index('"') + 1)}
    assert {"may_play", "cards_dealt", "trick", "argmax"} <= names


@pytest.mark.parametrize("old, new", [
    ("    - shuffle: deck", "    - shufle: deck"),  # a misspelt step key: the schema refuses the spec
    ("- add: {round: 1}", "- add: {round: 1"),  # a YAML syntax error
    ("      then:\n        - move: {from: deck, to: ghost", "      then:\n    - move: {from: deck, to: ghost"),  # empty then:
])
def test_navigation_and_hover_work_in_a_spec_that_does_not_check(old, new):
    from interpreter.lsp import document as D
    full = (ROOT / "specs" / "skull_king.yaml").read_text()
    assert old in full
    text = full.replace(old, new, 1)
    a = D.analyse(text, "/elsewhere/sk.yaml")
    assert a.compiler is None and a.diagnostics
    lines = text.split("\n")
    use = next(k for k, ln in enumerate(lines) if 'current_lead: "lead_suit_of(trick)"' in ln)
    at = lines[use].index("lead_suit_of") + 2
    found = D.occurrences_of(a, use, at)
    decl = next(k for k, ln in enumerate(lines) if ln.startswith("  lead_suit_of(cards):"))
    assert found and found[0].declaration and (found[0].line, found[0].col) == (decl, 2)
    shown = D.hover(a, lines, use, at)
    assert "lead_suit_of(cards):" in shown and "§5 lead suit" in shown  # the comment above it


def test_hover_reads_a_name_as_go_to_definition_does():
    # `phase: trick` names the phase trick, though a zone is named trick too
    from interpreter.lsp import document as D
    text = (ROOT / "specs" / "skull_king.yaml").read_text()
    a = D.analyse(text, "/elsewhere/sk.yaml")
    lines = text.split("\n")
    use = next(k for k, ln in enumerate(lines) if ln.strip() == "- phase: trick")
    at = lines[use].index("trick") + 1
    (decl, *_) = D.occurrences_of(a, use, at)
    assert decl.kind == "phase" and lines[decl.line].startswith("  trick:")
    shown = D.hover(a, lines, use, at)
    assert shown.startswith("**phase trick**") and "zone" not in shown
    zone_use = next(k for k, ln in enumerate(lines) if "lead_suit_of(trick)" in ln)
    assert D.hover(a, lines, zone_use, lines[zone_use].index("(trick)") + 2).startswith("**zone trick**")


def test_go_to_definition_over_stdio_in_a_spec_the_schema_refuses(lsp, tmp_path):
    text = (ROOT / "specs" / "skull_king.yaml").read_text().replace("    - shuffle: deck", "    - shufle: deck", 1)
    uri = (tmp_path / "refused.yaml").as_uri()
    lsp.client.text_document_did_open(T.DidOpenTextDocumentParams(T.TextDocumentItem(uri, "yaml", 1, text)))
    assert any("did you mean 'shuffle'?" in d.message for d in lsp.diagnostics_of(uri, 1))
    use = _position(text, 'current_lead: "lead_suit_of(trick)"', len('current_lead: "lead'))
    (decl,) = lsp.run(lsp.client.text_document_definition_async(T.DefinitionParams(T.TextDocumentIdentifier(uri), use)))
    assert decl.range.start == _position(text, "lead_suit_of(cards):")
