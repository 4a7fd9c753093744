"""``rulebook lsp``: the language server (pygls) for spec and scenario files, over stdio.

Every open file is checked on open and, a short pause after each change (:data:`DEBOUNCE`), again
in one worker thread (the checks share the expression parser's caches, so they run one at a
time; the editor's requests are answered meanwhile from the last analysis). The answers come from
:mod:`interpreter.lsp.document`; this module only speaks LSP. The JSON Schema is the package's own
(``schemas/``): no modeline is needed, and a copy of a spec works in any folder.
"""
from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor

from lsprotocol import types as T
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__
from . import document as D

DEBOUNCE = 0.25  # seconds without a keystroke before a changed file is checked again
KINDS = {"Function": T.CompletionItemKind.Function, "Variable": T.CompletionItemKind.Variable,
         "Field": T.CompletionItemKind.Field, "Property": T.CompletionItemKind.Property,
         "Value": T.CompletionItemKind.Value, "Constant": T.CompletionItemKind.Constant,
         "Module": T.CompletionItemKind.Module}
log = logging.getLogger(__name__)


class RulebookServer(LanguageServer):
    """The server: ``analyses`` holds, per document URI, the last analysis of its text and the
    last one whose YAML read (completion and hover fall back on it while the text is half typed)."""

    def __init__(self):
        super().__init__("rulebook", __version__)
        self.analyses: dict = {}
        self.readable: dict = {}
        self.pending: dict = {}
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rulebook-check")

    async def check(self, uri: str, delay: float = 0.0) -> None:
        """Analyse the document ``uri`` (after ``delay`` seconds, unless a newer change comes)
        and publish its diagnostics."""
        if delay:
            await asyncio.sleep(delay)
        doc = self.workspace.get_text_document(uri)
        text, version = doc.source, doc.version
        file = to_fs_path(uri) or uri
        try:
            analysis = await asyncio.get_running_loop().run_in_executor(self.worker, D.analyse, text, file)
        except Exception:  # a fault of ours, never the user's: logged, and the server keeps going
            log.exception("checking %s failed", uri)
            return
        self.analyses[uri] = analysis
        if analysis.compiler is not None or analysis.scenario:
            self.readable[uri] = analysis
        self.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
            uri=uri, version=version, diagnostics=[_diagnostic(self, analysis, d) for d in analysis.diagnostics]))

    def schedule(self, uri: str, delay: float) -> None:
        """(Re)start the check of ``uri``: a change cancels the check still waiting for its pause."""
        old = self.pending.pop(uri, None)
        if old is not None:
            old.cancel()
        self.pending[uri] = asyncio.ensure_future(self.check(uri, delay))

    def best(self, uri: str):
        """The analysis to answer from: the last readable one, else the last one."""
        return self.readable.get(uri) or self.analyses.get(uri)


def _range(ls: RulebookServer, lines: list, line: int, start: int, end: int) -> T.Range:
    """The range of characters ``start``..``end`` of ``line`` in the client's units (UTF-16 unless
    agreed otherwise: a character beyond U+FFFF counts two)."""
    return ls.workspace.position_codec.range_to_client_units(
        lines, T.Range(T.Position(line, start), T.Position(line, end)))


def _diagnostic(ls: RulebookServer, analysis, d) -> T.Diagnostic:
    lines = analysis.text.split("\n")
    line, start, end = D.diagnostic_range(lines, d)
    fix = D.quick_fix(lines, d)
    if fix:
        title, fline, fstart, fend, new = fix
        r = _range(ls, lines, fline, fstart, fend)
        fix = [title, r.start.line, r.start.character, r.end.character, new]
    return T.Diagnostic(
        range=_range(ls, lines, line, start, end),
        message=d.message + (f"\nhint: {d.hint}" if d.hint else ""),
        severity=T.DiagnosticSeverity.Error if d.severity == "error" else T.DiagnosticSeverity.Warning,
        source="rulebook",
        data={"fix": fix} if fix else None)


server = RulebookServer()


@server.feature(T.TEXT_DOCUMENT_DID_OPEN)
async def did_open(ls: RulebookServer, params: T.DidOpenTextDocumentParams):
    ls.schedule(params.text_document.uri, 0.0)


@server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
async def did_change(ls: RulebookServer, params: T.DidChangeTextDocumentParams):
    ls.schedule(params.text_document.uri, DEBOUNCE)


@server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulebookServer, params: T.DidCloseTextDocumentParams):
    uri = params.text_document.uri
    for table in (ls.analyses, ls.readable):
        table.pop(uri, None)
    ls.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def _where(ls: RulebookServer, uri: str, position: T.Position):
    """(analysis, current lines, line, column in code points) of a request, or None."""
    analysis = ls.best(uri)
    if analysis is None:
        return None
    doc = ls.workspace.get_text_document(uri)
    pos = doc.position_from_client_units(position)
    lines = [ln.rstrip("\r\n") for ln in doc.lines] or [""]
    return analysis, lines, pos.line, pos.character


@server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=[".", "'", '"']))
def completion(ls: RulebookServer, params: T.CompletionParams):
    found = _where(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    items = D.completions(*found)
    return T.CompletionList(is_incomplete=False, items=[T.CompletionItem(
        label=i.label, kind=KINDS.get(i.kind), detail=i.detail or None,
        documentation=T.MarkupContent(T.MarkupKind.Markdown, i.doc) if i.doc else None,
        insert_text=i.insert,
        insert_text_format=T.InsertTextFormat.Snippet if i.snippet else T.InsertTextFormat.PlainText)
        for i in items])


@server.feature(T.TEXT_DOCUMENT_HOVER)
def hover(ls: RulebookServer, params: T.HoverParams):
    found = _where(ls, params.text_document.uri, params.position)
    text = D.hover(*found) if found is not None else None
    return T.Hover(contents=T.MarkupContent(T.MarkupKind.Markdown, text)) if text else None


def _locations(ls, uri, position, declarations: bool | None):
    found = _where(ls, uri, position)
    if found is None:
        return []
    analysis, lines, line, col = found
    return [T.Location(uri, _range(ls, lines, o.line, o.col, o.col + o.length))
            for o in D.occurrences_of(analysis, line, col) if declarations is None or o.declaration == declarations]


@server.feature(T.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulebookServer, params: T.DefinitionParams):
    return _locations(ls, params.text_document.uri, params.position, True) or None


@server.feature(T.TEXT_DOCUMENT_REFERENCES)
def references(ls: RulebookServer, params: T.ReferenceParams):
    return _locations(ls, params.text_document.uri, params.position,
                      None if params.context.include_declaration else False)


@server.feature(T.TEXT_DOCUMENT_RENAME)
def rename(ls: RulebookServer, params: T.RenameParams):
    found = _where(ls, params.text_document.uri, params.position)
    if found is None:
        return None
    edits = D.rename_edits(*found, params.new_name)
    if isinstance(edits, str):
        from pygls.exceptions import JsonRpcInvalidRequest
        raise JsonRpcInvalidRequest(edits)
    return T.WorkspaceEdit(changes={params.text_document.uri: [
        T.TextEdit(_range(ls, found[1], ln, c, c + n), new) for ln, c, n, new in edits]})


@server.feature(T.TEXT_DOCUMENT_CODE_ACTION, T.CodeActionOptions(code_action_kinds=[T.CodeActionKind.QuickFix]))
def code_action(ls: RulebookServer, params: T.CodeActionParams):
    out = []
    for d in params.context.diagnostics:
        fix = (d.data or {}).get("fix") if isinstance(d.data, dict) else None
        if not fix:
            continue
        title, line, start, end, new = fix
        out.append(T.CodeAction(title=title, kind=T.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=True,
                                edit=T.WorkspaceEdit(changes={params.text_document.uri: [
                                    T.TextEdit(T.Range(T.Position(line, start), T.Position(line, end)), new)]})))
    return out


def main() -> int:
    """Serve LSP over stdin/stdout until the editor says exit."""
    from .. import cache
    cache.turn_off()  # every keystroke is a new text: caching each one would fill the cache folder
    server.start_io()
    return 0
