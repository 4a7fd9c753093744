"""Load, validate and compile a spec file.

``load_game(path, options)`` is the entry point; ``check_spec(path)`` returns the
diagnostics (errors and warnings) without raising, for ``rulebook validate``.
"""
from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ..cache import cache_dir, digest, has_stamp, stamp, write_json
from ..errors import Diagnostic, SpecError
from ..expr.compiler import tree_shelf
from .compile import STEP_KINDS, SpecCompiler
from .positions import Pos, position_of

# interpreter/schemas is a link to the top-level schemas/ (copied into wheels), so both checkouts
# and plain installs find them.
SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schemas"


@lru_cache(maxsize=None)
def schema_text(name: str = "game") -> str:
    """The text of the JSON Schema ``schemas/<name>.schema.json``."""
    return (SCHEMA_DIR / f"{name}.schema.json").read_text()


@lru_cache(maxsize=None)
def schema(name: str = "game") -> dict:
    """The JSON Schema ``schemas/<name>.schema.json`` (dict)."""
    return json.loads(schema_text(name))


MAX_SPEC_BYTES = 5_000_000  # a spec is a few KB; far larger files are refused before parsing


def read_text(path) -> str:
    """The file's text (UTF-8). Raises SpecError: no such file, unreadable, too large, or not
    UTF-8 (located at the line and column of the first bad byte)."""
    try:
        p = Path(path)
        if p.is_file() and p.stat().st_size > MAX_SPEC_BYTES:
            raise SpecError([Diagnostic(str(path), 0, 0, f"the file is {p.stat().st_size} bytes: more than the "
                                        f"{MAX_SPEC_BYTES} a spec may have")])
        raw = p.read_bytes()
    except FileNotFoundError:
        raise SpecError([Diagnostic(str(path), 0, 0, "no such file", "check the path")]) from None
    except (OSError, ValueError) as exc:
        raise SpecError([Diagnostic(str(path)[:300], 0, 0, f"cannot read the file: {getattr(exc, 'strerror', None) or exc}")]) from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[:exc.start]
        line = before.count(b"\n") + 1
        col = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise SpecError([Diagnostic(str(path), line, col, f"the file is not UTF-8 text: byte {raw[exc.start]:#04x} "
                                    "cannot be read here", "save the file as UTF-8")]) from None


def schema_diagnostics(data, positions, file: str, schema_name: str = "game") -> list[Diagnostic]:
    """Every JSON Schema violation of ``data`` as a located diagnostic."""
    import jsonschema  # here, not at the top: a spec checked before skips it (see load_spec)
    validator = jsonschema.Draft202012Validator(schema(schema_name))
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        for e in _specific(err):
            path = tuple(e.absolute_path)
            pos = position_of(positions, path)
            message, hint = _describe(e)
            line, col = pos.line, pos.column
            if e.validator == "additionalProperties" and isinstance(e.instance, dict):
                extra = [k for k in e.instance if k not in (e.schema.get("properties") or {})]
                if extra and (path + (extra[0],)) in positions:
                    p2 = positions[path + (extra[0],)]
                    line, col = p2.key_line or p2.line, p2.key_column or p2.column
            out.append(Diagnostic(file, line, col, message, hint))
    return out


def _specific(err):
    """For a ``oneOf`` over step kinds, report the branch whose kind key is present."""
    if err.validator != "oneOf" or not err.context or not isinstance(err.instance, dict):
        return [err]
    branches = err.schema.get("oneOf", [])
    for i, branch in enumerate(branches):
        req = branch.get("required") or []
        if req and req[0] in err.instance:
            sub = [e for e in err.context if e.schema_path and e.schema_path[0] == i]
            if sub:
                out = []
                for e in sub:
                    out.extend(_specific(e))
                return out
    if any(k in STEP_KINDS for k in err.instance) or not _is_step_choice(err):
        # not the choice between kinds of step (e.g. log: TEXT or log: {text, table}): the branch
        # that comes closest says what is wrong, not "valid under none/several of the given schemas"
        by_branch: dict = {}
        for e in err.context:
            by_branch.setdefault(e.schema_path[0] if e.schema_path else None, []).append(e)
        # a branch of another type (text where a mapping is written) is not the one meant
        fitting = [errs for errs in by_branch.values()
                   if not any(e.validator == "type" and not e.relative_path for e in errs)]
        if all(e.validator == "required" for errs in fitting for e in errs):
            return [err]  # "one of these keys" (game: or spec:): no branch is closer than another
        if fitting:
            out = []
            for e in min(fitting, key=len):
                out.extend(_specific(e))
            return out
    return [err]


def _is_step_choice(err) -> bool:
    """Whether a ``oneOf`` failure is the choice between kinds of step (its branches each
    require a different step kind)."""
    firsts = [(b.get("required") or [None])[0] for b in err.schema.get("oneOf", [])]
    return bool(firsts) and all(f in STEP_KINDS for f in firsts)


def _describe(e) -> tuple[str, str]:
    where = ".".join(str(p) for p in e.absolute_path) or "the spec"
    if e.validator == "required":
        missing = e.message.split("'")[1] if "'" in e.message else e.message
        return f"{where}: missing required key {missing!r}", f"add {missing}: ..."
    if e.validator == "additionalProperties":
        allowed = ", ".join(sorted((e.schema.get("properties") or {}).keys()))
        return f"{where}: {e.message}", (f"allowed keys here: {allowed}" if allowed else "")
    if e.validator == "oneOf" and isinstance(e.instance, dict):
        import difflib
        guesses = [g for k in e.instance for g in difflib.get_close_matches(str(k), STEP_KINDS, n=1)]
        hint = (f"did you mean {guesses[0]!r}? " if guesses else "") + "a step has one of: " + ", ".join(STEP_KINDS)
        return f"{where}: not a known step", hint
    if e.validator in ("oneOf", "anyOf"):
        words = {"string": "a text", "object": "a mapping", "array": "a list", "integer": "a whole number",
                 "number": "a number", "boolean": "true or false", "null": "null"}
        kinds = []
        for branch in e.validator_value:
            t = branch.get("type")
            for k in (t if isinstance(t, list) else [t]):
                if k in words and words[k] not in kinds:
                    kinds.append(words[k])
        if kinds:
            got = {dict: "a mapping", list: "a list"}.get(type(e.instance)) or repr(e.instance)
            return f"{where}: must be {' or '.join(kinds)}, not {got}", ""
    if e.validator == "enum":
        return f"{where}: {e.instance!r} is not allowed", "one of: " + ", ".join(map(str, e.validator_value))
    if e.validator == "type" and e.instance is None and e.absolute_path:
        # `then:` with nothing under it, usually its steps dedented to the level of the `if`
        key = e.absolute_path[-1]
        what = "its steps" if e.validator_value == "array" else "its value"
        return (f"{where}: nothing is written under {key}:",
                f"write {what} under {key}:, indented further than {key}: itself (a line indented as far as "
                f"{key}: or less ends it, so the steps after it belong to the block around), or remove {key}:")
    if e.validator == "type" and isinstance(e.instance, (list, dict)) and e.absolute_path \
            and "string" in (e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]):
        # an expression written as a YAML list or mapping (`in: [0, 1]`): quoted, it is an expression
        key = e.absolute_path[-1]
        text = _expression_text(e.instance)
        got = "a YAML list" if isinstance(e.instance, list) else "a YAML mapping"
        return (f"{where}: an expression is expected here, not {got}",
                f"quote it to make it an expression: {key}: \"{text}\"")
    if e.validator == "type":
        return f"{where}: {e.instance!r} is not of type {e.validator_value}", ""
    return f"{where}: {e.message}", ""


def _expression_text(value) -> str:
    """A YAML value (list, mapping, text, number, bool, null) written as the expression meaning it."""
    if isinstance(value, list):
        return "[" + ", ".join(_expression_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_expression_text(k)}: {_expression_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return "'" + value.replace("'", "\\'") + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def load_spec(path) -> tuple[dict, dict, str]:
    """Read and schema-check a spec. Returns ``(data, positions, text)``; raises SpecError."""
    return parse_spec(read_text(path), str(path))


def parse_spec(text: str, file: str) -> tuple[dict, dict, str]:
    """Schema-check the spec ``text`` (``file`` names it in messages). Returns ``(data,
    positions, text)``; raises SpecError."""
    data, positions = _read_yaml(text, file)
    if not isinstance(data, dict):
        raise SpecError([Diagnostic(file, 1, 1, "a spec is a YAML mapping",
                                    "start with name:, players:, cards:, zones:, flow:")])
    # The same text under the same schema passes again: a stamp of a text that passed before
    # skips the check (and the import of the schema library). The semantic checks always run.
    key = digest(schema_text("game"), text)
    if not has_stamp("schema-ok", key):
        diags = schema_diagnostics(data, positions, file)
        if diags:
            raise SpecError(diags)
        stamp("schema-ok", key)
    return data, positions, text


def _read_yaml(text: str, file: str) -> tuple:
    """``load_yaml(text, file)``, kept in the user's cache (see :mod:`interpreter.cache`) as JSON
    under the text's digest when it is plain JSON data (text keys; texts, whole and finite numbers,
    true, false, null): a start-up that reads it back neither parses the YAML nor imports its
    library. A stored file that does not read back as such data is ignored."""
    folder = cache_dir()
    stored = folder / f"spec-data-{digest(text)}.json" if folder is not None else None
    if stored is not None:
        try:
            saved = json.loads(stored.read_text())
            if type(saved["data"]) is dict and type(saved["positions"]) is list:
                return saved["data"], _StoredPositions(saved["positions"], text, file)
        except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
            pass
    from .yamlpos import load_yaml
    data, positions = load_yaml(text, file)
    if stored is not None and _plain_json(data):
        write_json(stored, {"data": data, "positions": [
            [list(path), p.line, p.column, p.style, p.key_line, p.key_column] for path, p in positions.items()]})
    return data, positions


def _plain_json(value, depth: int = 0) -> bool:
    """True when JSON gives ``value`` back exactly (same types, same keys)."""
    t = type(value)
    if t is dict:
        return depth < 200 and all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    if t is list:
        return depth < 200 and all(_plain_json(v, depth + 1) for v in value)
    if t is float:
        return value == value and value not in (float("inf"), float("-inf"))
    return value is None or t in (str, int, bool)


class _StoredPositions(Mapping):
    """The positions (path -> :class:`Pos`) of a spec whose data was read from the cache, decoded
    when first asked for: a spec that compiles without a diagnostic never asks. Rows that do not
    decode (a damaged file) give way to the positions read again from the spec's text."""

    __slots__ = ("_rows", "_text", "_file", "_map")

    def __init__(self, rows: list, text: str, file: str):
        self._rows, self._text, self._file, self._map = rows, text, file, None

    def _positions(self) -> dict:
        if self._map is None:
            try:
                self._map = _decode_positions(self._rows)
            except (ValueError, TypeError):
                from .yamlpos import load_yaml
                self._map = load_yaml(self._text, self._file)[1]
            self._rows = self._text = None
        return self._map

    def __getitem__(self, path) -> Pos:
        return self._positions()[path]

    def __contains__(self, path) -> bool:
        return path in self._positions()

    def __iter__(self):
        return iter(self._positions())

    def __len__(self) -> int:
        return len(self._positions())


def _decode_positions(rows) -> dict:
    out = {}
    for path, line, column, style, key_line, key_column in rows:
        if not (type(path) is list and all(type(k) in (str, int) for k in path)
                and all(type(x) is int for x in (line, column, key_line, key_column))
                and (style is None or type(style) is str)):
            raise ValueError("not a stored position")
        out[tuple(path)] = Pos(line, column, style, key_line, key_column)
    return out


def load_game(path, options: dict | None = None):
    """Load the spec at ``path`` with ``options`` (dict name -> value; strings are converted
    to the declared type; the key ``preset`` applies a named preset first) and return the
    compiled :class:`~interpreter.engine.game.Game`.

    Raises :class:`SpecError` listing every problem as ``file:line:col``."""
    with _collector_paused():
        data, positions, text = load_spec(path)
        with tree_shelf(text):
            return SpecCompiler(data, positions, str(path), text).build(options)


def load_game_text(text: str, file: str, options: dict | None = None):
    """:func:`load_game` of a spec given as its ``text`` (``file`` names it in messages and in
    the Game): how workers of another machine load the spec they were sent. Raises SpecError."""
    with _collector_paused():
        data, positions, text = parse_spec(text, file)
        with tree_shelf(text):
            return SpecCompiler(data, positions, file, text).build(options)


@contextmanager
def _collector_paused():
    """Python's cycle collector paused while a spec compiles: compiling makes tens of thousands of
    objects that all live on (trees, closures, cards), and the collections they set off, which
    find nothing to free, were a fifth of the time of a load."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def check_spec(path, options: dict | None = None) -> list[Diagnostic]:
    """All diagnostics of a spec (errors and warnings), never raising for the spec's faults."""
    try:
        text = read_text(path)
    except SpecError as exc:
        return exc.diagnostics
    return check_text(text, str(path), options)[0]


def check_text(text: str, file: str, options: dict | None = None) -> tuple:
    """:func:`check_spec` of a spec given as its ``text`` (``file`` names it, and locates its
    modeline's schema): ``(diagnostics, compiler, game)``, the compiler (its recorded expressions
    and names; None when the YAML or the schema check failed) and the Game (None on an error), for
    the language server. Never raises for the spec's faults."""
    compiler = None
    lines = modeline_diagnostics(text, file)
    try:
        with _collector_paused():
            data, positions, text = parse_spec(text, file)
            with tree_shelf(text):
                compiler = SpecCompiler(data, positions, file, text)
                game = compiler.build(options)
    except SpecError as exc:
        return lines + exc.diagnostics, compiler, None
    diags = lines + list(game.warnings)
    try:
        from ..analysis.checks import static_checks
    except ImportError:  # analysis not available
        return diags, compiler, game
    return diags + static_checks(game), compiler, game


MODELINE = re.compile(r"^#\s*yaml-language-server:.*?\$schema=(\S+)", re.M)


def modeline_diagnostics(text: str, file: str) -> list[Diagnostic]:
    """A warning when the ``# yaml-language-server: $schema=...`` line at the top of ``text``
    names a schema file that does not exist (a relative path is read from ``file``'s folder): the
    editor then loads no schema and checks nothing. URLs other than file:// are not looked at."""
    head = "\n".join(text.split("\n", 20)[:20])  # the modeline is one of the first lines
    m = MODELINE.search(head)
    if not m:
        return []
    target = m.group(1)
    if target.startswith("file://"):
        from urllib.parse import unquote, urlparse
        where = Path(unquote(urlparse(target).path))
    elif "://" in target:
        return []
    else:
        where = Path(os.path.normpath(Path(file).resolve().parent / target))
    if where.is_file():
        return []
    kind = "scenario" if "scenario" in where.name else "game"
    right = (SCHEMA_DIR / f"{kind}.schema.json").resolve().as_uri()
    line = head.count("\n", 0, m.start()) + 1
    return [Diagnostic(file, line, m.start(1) - m.start() + 1,
                       f"the modeline's schema {target} does not exist (from this file: {where}), so an "
                       "editor's YAML extension checks and completes nothing",
                       f"write $schema={right} (rulebook schema --path prints its path), or remove the line "
                       "and use rulebook lsp, which supplies the schema", "warning")]
