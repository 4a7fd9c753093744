"""What the language server knows about one open file, without any LSP library.

:func:`analyse` checks a spec's text with :func:`interpreter.spec.loader.check_text` (exactly
``rulebook validate``'s checks) or a scenario's with :func:`interpreter.scenario.read_scenario`,
and indexes the names written in it (:class:`Occurrence`). The functions below answer the
editor's questions from an :class:`Analysis` and the text being typed: :func:`completions`,
:func:`hover`, :func:`occurrences_of` (go to definition, references, rename) and
:func:`quick_fix`. Lines and columns here are 0-based, as in LSP; a :class:`Diagnostic`'s are
1-based.
"""
from __future__ import annotations

import difflib
import inspect
import re
from dataclasses import dataclass, field

from ..errors import Diagnostic, SpecError
from ..analysis.refs import define_params
from ..expr.syntax import Token, Tree

IDENT = re.compile(r"[A-Za-z_]\w*")
WORD = re.compile(r"[A-Za-z0-9_][\w-]*")  # a name, a card name (hearts-10) or a value
SCENARIO_KEYS = re.compile(r"^(rule|expect|actions|setup)\s*:", re.M)
SPEC_KEYS = re.compile(r"^(flow|cards|zones|phases)\s*:", re.M)
BINDING_FORMS = ("let_expr", "lambda_", "map_", "filter_", "nested_map_")
CONSTANTS = {"players": "every seat, in order", "num_players": "how many players play",
             "options": "the options chosen (options.NAME)", "true": "", "false": "", "null": "no value"}


@dataclass(frozen=True)
class Occurrence:
    """A name written in the file: ``kind`` is define, variable, player variable, zone, phase or
    option; ``line``/``col`` (0-based) where its ``length`` characters start; ``declaration``
    when it is where the name is declared (its key under define:, variables:, ...)."""

    name: str
    kind: str
    line: int
    col: int
    length: int
    declaration: bool = False


@dataclass
class Analysis:
    """One analysed text: its ``diagnostics`` (those of validate), and, when its YAML read and
    passed the schema, the ``compiler`` (:class:`~interpreter.spec.compile.SpecCompiler`: data,
    names, expressions), the ``cards`` built, ``attr_values`` (card attribute -> values) and the
    ``occurrences`` of its names. When the schema or the YAML refused it, ``raw`` is what could be
    read and ``partial`` the compiler run over it, whose cards and names fill the same fields."""

    text: str
    file: str
    scenario: bool
    diagnostics: list
    compiler: object = None
    cards: list = field(default_factory=list)
    attr_values: dict = field(default_factory=dict)
    occurrences: list = field(default_factory=list)

    raw: dict = field(default_factory=dict)  # the YAML's data when the schema check failed
    partial: object = None  # then, the compiler run over what could be read (for navigation)

    @property
    def data(self) -> dict:
        return self.compiler.data if self.compiler is not None else self.raw

    @property
    def indexed(self):
        """The compiler whose names :attr:`occurrences` indexes (the full one, else the partial)."""
        return self.compiler if self.compiler is not None else self.partial


def is_scenario(text: str) -> bool:
    """Whether ``text`` reads as a rule scenario file rather than a spec (its top-level keys)."""
    return bool(SCENARIO_KEYS.search(text)) and not SPEC_KEYS.search(text)


def is_rulebook_file(text: str, file: str) -> bool:
    """Whether ``text`` is a spec or a scenario (its top-level keys, a modeline naming one of
    Rulebook's schemas, or a folder named specs or scenarios): an editor hands the server every
    YAML file, and a CI workflow or a docker-compose file is none of its business."""
    return bool(SPEC_KEYS.search(text) or SCENARIO_KEYS.search(text)
                or re.search(r"\$schema=\S*(game|scenario)\.schema\.json", text[:2000])
                or {"specs", "scenarios"} & set(re.split(r"[\\/]", file)[:-1]))


def analyse(text: str, file: str) -> Analysis:
    """Check ``text`` (the file ``file``, as the editor holds it) and index its names. Never
    raises for the text's faults: a YAML error is a diagnostic like the others. Other YAML files
    (see :func:`is_rulebook_file`) get no diagnostics."""
    from ..spec.loader import check_text, modeline_diagnostics
    if not is_rulebook_file(text, file):
        return Analysis(text, file, False, [])
    if is_scenario(text):
        from ..scenario import read_scenario
        diags = modeline_diagnostics(text, file)
        try:
            read_scenario(file, text)
        except SpecError as exc:
            diags += exc.diagnostics
        return Analysis(text, file, True, diags)
    diags, compiler, _game = check_text(text, file)
    out = Analysis(text, file, False, diags, compiler)
    from ..spec.literals import deck_values
    if compiler is not None:
        out.cards = list(getattr(compiler, "cards", None) or [])
        out.attr_values = deck_values(compiler.data, out.cards)
        out.occurrences = _index(compiler, text.split("\n"))
    else:  # the schema or the YAML refused it: the names written are still known
        raw, positions, readable = _read_what_can_be(text, file)
        if isinstance(raw, dict):
            out.raw = raw
            out.partial = _compile_what_can_be(raw, positions, file, readable)
            if out.partial is not None:
                out.cards = list(getattr(out.partial, "cards", None) or [])
                out.occurrences = _index(out.partial, text.split("\n"))
            try:
                out.attr_values = deck_values(raw, out.cards)
            except (AttributeError, TypeError):  # a card entry not yet a mapping of lists
                pass
    return out


MAX_LINES_SKIPPED = 8  # YAML syntax errors read around before the file is taken as unreadable


def _read_what_can_be(text: str, file: str) -> tuple:
    """``(data, positions, text read)`` of a spec whose YAML may not parse: each line a syntax
    error names is read as blank (the other lines keep their places), up to
    :data:`MAX_LINES_SKIPPED` of them; ``(None, {}, text)`` when it still does not parse."""
    from ..spec.yamlpos import load_yaml
    lines = text.split("\n")
    for _ in range(MAX_LINES_SKIPPED + 1):
        read = "\n".join(lines)
        try:
            data, positions = load_yaml(read, file)
            return data, positions, read
        except SpecError as exc:
            line = exc.diagnostics[0].line if exc.diagnostics else 0
            if not 1 <= line <= len(lines) or not lines[line - 1].strip():
                break
            lines[line - 1] = ""
    return None, {}, text


def _compile_what_can_be(data: dict, positions: dict, file: str, text: str):
    """A :class:`~interpreter.spec.compile.SpecCompiler` run over data the schema refused, for
    its names and expressions (navigation and hover), or None. Its diagnostics are not shown:
    those of the real check are."""
    from ..spec.compile import SpecCompiler
    compiler = SpecCompiler(data, positions, file, text)
    try:
        compiler.build(None)
    except SpecError:
        pass  # expected: the steps the schema refused are reported and skipped
    except Exception:  # data the schema refused may hold anything where the compiler expects a shape
        if not compiler.expr_sites:
            return None
    return compiler


# -- the names written in a spec ------------------------------------------------------------
def _kinds(compiler) -> dict:
    """name -> kind, in the order expressions resolve names (variables, zones, definitions)."""
    n = compiler.names
    kinds = {}
    for names, kind in ((n.defines, "define"), (n.game_zones | n.player_zones, "zone"), (n.game_vars, "variable")):
        kinds.update(dict.fromkeys(names, kind))
    return kinds


def _index(compiler, lines: list) -> list:
    data, positions, n = compiler.data, compiler.positions, compiler.names
    out: list = []

    def add(name, kind, line1, col1, declaration=False):
        # kept only when the file shows the name there: a position worked out wrong is dropped
        if 1 <= line1 <= len(lines) and col1 >= 1 and lines[line1 - 1][col1 - 1:col1 - 1 + len(name)] == name:
            out.append(Occurrence(name, kind, line1 - 1, col1 - 1, len(name), declaration))

    for section, kind in (("define", "define"), ("variables", "variable"), ("player_variables", "player variable"),
                          ("team_variables", "player variable"), ("zones", "zone"), ("phases", "phase"),
                          ("options", "option")):
        for key in data.get(section) or {}:
            pos = positions.get((section, key))
            m = IDENT.match(str(key))
            if pos is not None and m and pos.key_line:
                quoted = lines[pos.key_line - 1][pos.key_column - 1:pos.key_column] in ("'", '"')
                add(m.group(0), kind, pos.key_line, pos.key_column + quoted, True)
    kinds = _kinds(compiler)
    player_kinds = {**dict.fromkeys(n.player_zones, "zone"), **dict.fromkeys(n.player_vars, "player variable")}
    sites = set()
    for path, text, tree, bound in compiler.expr_sites:
        sites.add(path)
        where = _site_locator(compiler, path, text)
        if where is None:
            continue
        todo = [(tree, frozenset(bound))]
        while todo:
            t, b = todo.pop()
            if not isinstance(t, Tree):
                continue
            ch = t.children
            found = None
            if t.data == "name" and str(ch[0]) not in b and str(ch[0]) in kinds:
                found = (ch[0], kinds[str(ch[0])])
            elif t.data == "call" and str(ch[0]) in n.defines:
                found = (ch[0], "define")
            elif t.data == "attr":
                obj, tok = ch
                if isinstance(obj, Tree) and obj.data == "name" and str(obj.children[0]) == "options":
                    found = (tok, "option")
                elif str(tok) in player_kinds:
                    found = (tok, player_kinds[str(tok)])
            if found is not None and isinstance(found[0], Token) and getattr(found[0], "line", None):
                line1, col1 = where(found[0].line, found[0].column)
                add(str(found[0]), found[1], line1, col1)
            inner = b | {str(c) for c in ch if isinstance(c, Token)} if t.data in BINDING_FORMS else b
            todo.extend((c, inner) for c in ch if isinstance(c, Tree))
    # plain values and keys of steps: `shuffle: deck`, `phase: trick`, `set: {leader: ...}`
    todo = [(("flow",), data.get("flow")), (("phases",), data.get("phases"))]
    while todo:
        path, value = todo.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                if path[-1] in ("set", "add", "random") and isinstance(k, str):
                    pos = positions.get(path + (k,))
                    m = re.match(r"([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?", k)
                    if pos is not None and pos.key_line and m:
                        if m.group(1) in kinds:
                            add(m.group(1), kinds[m.group(1)], pos.key_line, pos.key_column)
                        if m.group(2) in player_kinds:
                            add(m.group(2), player_kinds[m.group(2)], pos.key_line, pos.key_column + m.start(2))
                todo.append((path + (k,), v))
        elif isinstance(value, list):
            todo.extend((path + (i,), v) for i, v in enumerate(value))
        elif isinstance(value, str) and path not in sites and path in positions:
            kind = "phase" if path[-1] == "phase" else "zone" if value in (n.game_zones | n.player_zones) else None
            name = IDENT.match(value).group(0) if kind == "phase" and IDENT.match(value) else value
            if kind:
                pos = positions[path]
                add(name, kind, pos.line, pos.column + (1 if pos.style in ("'", '"') else 0))
    return out


def _site_locator(compiler, path, text):
    """A function (line, column in the expression ``text``, 1-based) -> (line, column) in the file,
    for the expression at ``path``: the whole value there, or one ``{...}`` part of a template."""
    value = _value_at(compiler.data, path)
    if not isinstance(text, str) or not isinstance(value, str):
        return None
    base = 0
    if value != text:
        base = value.find("{" + text + "}") + 1
        if base <= 0:
            return None
    starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def where(line, col):
        index = base + starts[line - 1] + col - 1
        before = value[:index]
        line_in = before.count("\n") + 1
        return compiler._expr_position(path, line_in, index - (before.rfind("\n") + 1) + 1)
    return where


def _value_at(data, path):
    for k in path:
        try:
            data = data[k]
        except (KeyError, IndexError, TypeError):
            return None
    return data


def occurrences_of(analysis: Analysis, line: int, col: int) -> list:
    """Every occurrence of the name at (line, col), declaration first; [] when no known name is there."""
    here = next((o for o in analysis.occurrences if o.line == line and o.col <= col <= o.col + o.length), None)
    if here is None:
        return []
    same = [o for o in analysis.occurrences if o.name == here.name and o.kind == here.kind]
    return sorted(same, key=lambda o: (not o.declaration, o.line, o.col))


def rename_edits(analysis: Analysis, lines: list, line: int, col: int, new_name: str) -> list | str:
    """``[(line, col, length, new_name)]`` renaming the definition at (line, col) of the text
    ``lines`` everywhere, or a text saying why it cannot be renamed (also when ``lines`` is no
    longer the analysed text where a use is: the edit would land beside it)."""
    found = occurrences_of(analysis, line, col)
    if not found or found[0].kind != "define":
        return "only a definition (a name under define:) can be renamed here"
    if not re.fullmatch(r"[A-Za-z_]\w*", new_name or ""):
        return f"{new_name!r} is not a name (letters, digits and _, not starting with a digit)"
    taken = _kinds(analysis.indexed)
    if new_name in taken or new_name in CONSTANTS or new_name in _builtins():
        return f"{new_name!r} is already a name of this spec or of the language"
    if any(o.line >= len(lines) or lines[o.line][o.col:o.col + o.length] != o.name for o in found):
        return "the file has changed since it was last checked: try again in a moment"
    return [(o.line, o.col, o.length, new_name) for o in found]


# -- diagnostics and their quick fixes ------------------------------------------------------
def diagnostic_range(lines: list, d: Diagnostic) -> tuple[int, int, int]:
    """(line, start column, end column), 0-based, of diagnostic ``d``: the quoted text, word or
    character at its position (line 0 for a diagnostic of no known place)."""
    line = max(d.line - 1, 0)
    col = max(d.column - 1, 0)
    text = lines[line] if line < len(lines) else ""
    if col >= len(text):
        return line, min(col, len(text)), len(text)
    if text[col] in "'\"":
        end = text.find(text[col], col + 1)
        return line, col, (end + 1 if end > 0 else len(text))
    m = re.compile(r"[^\s,:{}\[\]()]+").match(text, col)
    return line, col, (m.end() if m else col + 1)


DID_YOU_MEAN = re.compile(r"did you mean (['\"]?)([^'\"\s?]+)\1\?")


def quick_fix(lines: list, d: Diagnostic):
    """``(title, line, start, end, new_text)`` for a diagnostic whose hint says what to write (a
    did-you-mean, a schema for a broken modeline), or None."""
    line, start, end = diagnostic_range(lines, d)
    written = lines[line][start:end] if line < len(lines) else ""
    m = DID_YOU_MEAN.search(d.hint or "")
    unexpected = re.search(r"\('([^']+)' was unexpected\)", d.message)
    allowed = re.match(r"allowed keys here: (.+)", d.hint or "")
    if m:
        guess = m.group(2)
    elif unexpected and allowed:  # a misspelt key: the allowed key closest to it
        close = difflib.get_close_matches(unexpected.group(1), allowed.group(1).split(", "), n=1)
        guess = close[0] if close else None
    else:
        guess = None
    if guess:
        word = written.strip("'\"")
        if "." in word and "." not in guess:  # p.round_point: only the name after the dot is wrong
            word = word.rsplit(".", 1)[1]
        if not word or difflib.SequenceMatcher(None, word, guess).ratio() < 0.5:
            return None
        offset = written.rfind(word)
        return f"Change {word!r} to {guess!r}", line, start + offset, start + offset + len(word), guess
    m = re.match(r"write \$schema=(\S+)", d.hint or "")
    if m and "modeline" in d.message:
        return "Point the modeline at the installed schema", line, start, end, m.group(1)
    return None


# -- completion ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Item:
    """One completion: ``label`` shown, ``kind`` (LSP's word: Function, Variable, Field, ...),
    ``detail`` (one line), ``doc`` (markdown), ``insert`` (a snippet when ``snippet``)."""

    label: str
    kind: str
    detail: str = ""
    doc: str = ""
    insert: str | None = None
    snippet: bool = False


def _builtins() -> dict:
    from ..expr.builtins import BUILTINS
    return BUILTINS


def builtin_signature(name: str) -> str:
    """``first(xs, default=None)``: a built-in's parameters, read from its Python function."""
    fn = _builtins()[name]
    try:
        params = list(inspect.signature(fn).parameters.values())[1:]  # the first is the context
    except (TypeError, ValueError):
        return f"{name}(...)"
    shown = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            shown.append(f"{p.name}, ...")
        elif p.default is not p.empty:
            shown.append(f"{p.name}={'null' if p.default is None else p.default!r}")
        else:
            shown.append(p.name)
    return f"{name}({', '.join(shown)})"


def _comment_above(lines: list, line1: int) -> str:
    """The comment lines just above line ``line1`` (1-based), without their '#'."""
    out, i = [], min(line1 - 2, len(lines) - 1)
    while i >= 0 and lines[i].strip().startswith("#") and "yaml-language-server" not in lines[i]:
        out.append(lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(reversed(out))


def _value_text(v) -> str:
    return "true" if v is True else "false" if v is False else "null" if v is None else str(v)


def completions(analysis: Analysis, lines: list, line: int, col: int) -> list:
    """The completions at (line, col) of the text ``lines`` (the text being typed; ``analysis``
    may be of an earlier text, the last that could be read): YAML keys where a key is written,
    names, attributes and values inside an expression."""
    text = lines[line] if line < len(lines) else ""
    before = text[:col]
    if re.fullmatch(r"\s*(-\s+)*[\w.]*", before):  # only indentation, dashes and a part of a key
        return key_completions(analysis, lines, line, col)
    return expression_completions(analysis, before)


def expression_completions(analysis: Analysis, before: str) -> list:
    """Completions inside an expression, from the text of its line up to the cursor."""
    data = analysis.data
    options, zones = _mapping(data.get("options")), _mapping(data.get("zones"))
    m = re.search(r"(\w+)\.(\w+)\s*(?:==|!=|(?:not\s+)?in\s*\[[^\]]*)\s*(['\"]?)[\w-]*$", before)
    if m:
        obj, attr, quote = m.groups()
        if obj == "options":
            values = _mapping(options.get(attr)).get("values") or []
        else:
            values = analysis.attr_values.get(attr) or ()
        return [Item(_value_text(v), "Value", f"{'option ' + attr if obj == 'options' else 'card attribute ' + attr}",
                     insert=None if quote or not isinstance(v, str) else f"'{v}'")
                for v in sorted(values, key=str)]
    m = re.search(r"(\w+)\.\w*$", before)
    if m:
        if m.group(1) == "options":
            return [Item(str(k), "Property", _option_detail(v), str(_mapping(v).get("doc", "")))
                    for k, v in options.items()]
        out = [Item(a, "Field", "card attribute: " + _values_brief(analysis.attr_values.get(a)))
               for a in sorted(analysis.attr_values) if a]
        from ..expr.compiler import CARD_BUILTIN_ATTRS
        out += [Item(a, "Field", "every card has it") for a in CARD_BUILTIN_ATTRS if a not in analysis.attr_values]
        pv = {**_mapping(data.get("player_variables")), **_mapping(data.get("team_variables"))}
        out += [Item(str(v), "Variable", f"player variable (starts at {_value_text(pv[v])})") for v in pv]
        out += [Item(str(z), "Module", "per-player zone") for z, zd in zones.items() if _mapping(zd).get("per_player")]
        return out
    if _in_quotes(before):
        names_ = analysis.attr_values.get("name") or ()
        return [Item(str(v), "Constant", "card name") for v in sorted(names_, key=str)]
    out = []
    for key, body in _mapping(data.get("define")).items():
        name = IDENT.match(str(key))
        if not name:
            continue
        params = define_params(key)
        snippet = name.group(0) + ("(" + ", ".join(f"${{{i + 1}:{p}}}" for i, p in enumerate(params)) + ")"
                                   if "(" in str(key) else "")
        out.append(Item(name.group(0), "Function", f"define {key}", f"```\n{key}: {body}\n```", snippet, True))
    var = _mapping(data.get("variables"))
    out += [Item(str(v), "Variable", f"game variable (starts at {_value_text(var[v])})") for v in var]
    out += [Item(str(z), "Module", "zone" + (f": {_mapping(zd)['doc']}" if _mapping(zd).get("doc") else ""))
            for z, zd in zones.items()]
    out += [Item(k, "Constant", v) for k, v in CONSTANTS.items()]
    for b in sorted(_builtins()):
        sig = builtin_signature(b)
        out.append(Item(b, "Function", sig, insert=b + "($1)", snippet=True))
    return out


def _mapping(value) -> dict:
    """``value`` when it is a mapping, else {} (the text being typed may hold anything there)."""
    return value if isinstance(value, dict) else {}


def _in_quotes(before: str) -> bool:
    """Whether the cursor is inside a text literal of the expression (an odd number of quotes of
    one kind after the YAML value starts)."""
    value = before.split(": ", 1)[-1] if ": " in before else before
    value = value.lstrip()
    if value and value[0] in "\"'" and value.count(value[0]) % 2 == 1:
        value = value[1:]  # the YAML quote around the whole expression
    return value.count("'") % 2 == 1 or value.count('"') % 2 == 1


def _values_brief(values) -> str:
    if not values:
        return "computed values"
    shown = sorted(map(str, values))
    return ", ".join(shown[:6]) + (", ..." if len(shown) > 6 else "")


def _option_detail(decl) -> str:
    decl = _mapping(decl)
    if "values" in decl:
        return f"one of {', '.join(map(_value_text, decl['values']))} (default {_value_text(decl.get('default'))})"
    return f"{decl.get('type', 'option')} (default {_value_text(decl.get('default'))})"


# -- YAML keys from the schema --------------------------------------------------------------
def yaml_path_at(lines: list, line: int, col: int) -> tuple:
    """The path (keys, and 0 for a list item) of the mapping a key typed at (line, col) belongs to,
    read from the indentation of the lines above (the text may not parse)."""
    text = lines[line] if line < len(lines) else ""
    m = re.match(r"(\s*)((?:-\s+)*)", text[:col])
    indent = len(m.group(1)) + len(m.group(2))
    path: list = []
    if m.group(2):
        path.append(0)
        indent = len(m.group(1))
    for i in range(line - 1, -1, -1):
        raw = lines[i]
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        lm = re.match(r"(\s*)((?:-\s+)*)([^\s#:][^:#]*?)?\s*:(\s|$)", raw)
        dash = re.match(r"(\s*)((?:-\s+)*)", raw)
        key_indent = len(dash.group(1)) + len(dash.group(2))
        if key_indent < indent or (dash.group(2) and key_indent == indent):
            if dash.group(2) and key_indent == indent:  # the first key of our own list item
                path.insert(0, 0)
                indent = len(dash.group(1))
                continue
            if lm and lm.group(3) is not None and not re.search(r":\s*\S", raw[lm.end(3):].split("#")[0]):
                path.insert(0, lm.group(3).strip().strip("'\""))
            elif lm is None and not dash.group(2):
                continue
            if dash.group(2):
                path.insert(0, 0)
                indent = len(dash.group(1))
            else:
                indent = key_indent
        if indent == 0:
            break
    return tuple(path)


def _sibling_keys(lines: list, line: int, col: int) -> set:
    """The keys already written in the mapping a key typed at (line, col) belongs to."""
    def key_at(raw):
        m = re.match(r"(\s*)((?:-\s+)*)([A-Za-z_][\w.]*)\s*:", raw)
        d = re.match(r"(\s*)((?:-\s+)*)", raw)
        return len(d.group(1)) + len(d.group(2)), bool(d.group(2)), (m.group(3) if m else None)
    here, starts_item, _ = key_at(lines[line][:col] if line < len(lines) else "")
    found = set()
    for step in (-1, 1):
        if step == -1 and starts_item:
            continue  # the cursor's line begins the mapping: nothing above belongs to it
        i = line + step
        while 0 <= i < len(lines):
            raw = lines[i]
            i += step
            if not raw.strip() or raw.lstrip().startswith("#"):
                continue
            indent, dash, key = key_at(raw)
            if indent < here or (step == 1 and dash and indent == here):
                break
            if indent == here and key:
                found.add(key)
                if dash:  # the line that begins the mapping
                    break
    return found


def _resolve(schema: dict, node: dict) -> list:
    """The schemas ``node`` stands for: $ref followed, oneOf/anyOf/allOf branches spread."""
    out, todo = [], [node]
    while todo and len(out) < 200:
        s = todo.pop(0)
        if not isinstance(s, dict):
            continue
        if "$ref" in s and s["$ref"].startswith("#/"):
            target = schema
            for part in s["$ref"][2:].split("/"):
                target = target.get(part, {})
            todo.append(target)
        out.append(s)
        for k in ("oneOf", "anyOf", "allOf"):
            todo.extend(s.get(k) or [])
    return out


def key_completions(analysis: Analysis, lines: list, line: int, col: int) -> list:
    """The keys the schema allows at the mapping of (line, col), each with its description."""
    from ..spec.loader import schema
    root = schema("scenario" if analysis.scenario else "game")
    nodes = _resolve(root, root)
    for part in yaml_path_at(lines, line, col):
        nxt = []
        for s in nodes:
            if isinstance(part, int):
                if "items" in s:
                    nxt.append(s["items"])
            elif part in (s.get("properties") or {}):
                nxt.append(s["properties"][part])
            elif isinstance(s.get("additionalProperties"), dict):
                nxt.append(s["additionalProperties"])
        nodes = [r for n in nxt for r in _resolve(root, n)]
    present = _sibling_keys(lines, line, col)
    fitting = [s for s in nodes if present and present <= set(s.get("properties") or {})]
    items: dict = {}
    for s in fitting or nodes:  # a step whose kind is written: that kind's keys
        for key, sub in (s.get("properties") or {}).items():
            if key in present:
                continue
            desc = next((r.get("description") for r in _resolve(root, sub) if r.get("description")), "")
            if key not in items:
                items[key] = Item(key, "Property", desc.split(". ")[0][:120], desc, f"{key}: ")
    return list(items.values())


# -- hover ---------------------------------------------------------------------------------
def hover(analysis: Analysis, lines: list, line: int, col: int) -> str | None:
    """Markdown about the name at (line, col): a definition's text and doc, a built-in's
    signature, an option's doc, a card's attributes, a zone's, a phase's or a variable's
    declaration. A name the index knows there (:func:`occurrences_of`, as go to definition) is
    read as what it is there (``phase: trick`` is the phase, though a zone is named trick too)."""
    text = lines[line] if line < len(lines) else ""
    word = next((m for m in WORD.finditer(text) if m.start() <= col <= m.end()), None)
    if word is None:
        return None
    w = word.group(0)
    data = analysis.data
    options = _mapping(data.get("options"))
    here = occurrences_of(analysis, line, col)
    if here and here[0].name == w:
        return _declared_hover(analysis, here[0].kind, w)
    if w in options and text[:word.start()].endswith("options."):
        return _option_hover(w, options[w])
    shown = _declared_hover(analysis, "define", w)
    if shown:
        return shown
    card = next((c for c in analysis.cards if c.name == w), None)
    if card is not None:
        attrs = ", ".join(f"{k}: {_value_text(v)}" for k, v in card.attrs.items())
        modes = getattr(card, "modes", None)
        return f"**card {w}**" + (f" — {attrs}" if attrs else "") + (f"\n\nmodes: {', '.join(modes)}" if modes else "")
    if w in _builtins() and not text[:word.start()].endswith("."):
        return f"```\n{builtin_signature(w)}\n```\nbuilt-in (docs/spec-language.md#expressions)"
    for kind in ("zone", "variable", "player variable", "option"):
        shown = _declared_hover(analysis, kind, w)
        if shown:
            return shown
    return None


_SECTIONS = {"define": ("define",), "zone": ("zones",), "variable": ("variables",), "phase": ("phases",),
             "player variable": ("player_variables", "team_variables"), "option": ("options",)}


def _declared_hover(analysis: Analysis, kind: str, name: str) -> str | None:
    """Markdown for the ``kind`` (an :class:`Occurrence` kind) named ``name``: its declaration
    and the comment above it, or None when no such name is declared."""
    data = analysis.data
    own = analysis.text.split("\n")  # the analysed text (positions are its own), maybe not the one typed
    positions = analysis.indexed.positions if analysis.indexed is not None else {}
    for section in _SECTIONS.get(kind, ()):
        for key, value in _mapping(data.get(section)).items():
            m = IDENT.match(str(key))
            if not m or m.group(0) != name:
                continue
            if kind == "option":
                return _option_hover(name, value)
            pos = positions.get((section, key))
            doc = _comment_above(own, pos.key_line) if pos is not None else ""
            doc = f"\n\n{doc}" if doc else ""
            if kind == "define":
                return f"```\n{key}: {str(value).strip()}\n```" + doc
            if kind == "zone":
                shown = ", ".join(f"{k}: {_value_text(v)}" for k, v in _mapping(value).items())
                return f"**zone {name}** — {shown}" + doc
            if kind == "phase":
                steps = len(value) if isinstance(value, list) else 0
                return f"**phase {key}** — {steps} step{'s' if steps != 1 else ''}" + doc
            what = "game variable" if kind == "variable" else kind
            return f"**{what} {name}**, starts at {_value_text(value)}" + doc
    return None


def _option_hover(name: str, decl) -> str:
    doc = _mapping(decl).get("doc", "")
    return f"**option {name}**: {_option_detail(decl)}\n\n{doc}".strip()
