"""Safe YAML loading that remembers where every value came from.

``load_yaml(text, file)`` returns ``(data, positions)``: ``data`` is plain
Python (dicts, lists, scalars, as ``yaml.safe_load`` would give) and
``positions`` maps a path tuple (keys and list indices from the root) to a
:class:`Pos` — the 1-based line and column of that value, and for scalars its
YAML style, so expression columns can be mapped back into the file.
"""
from __future__ import annotations

import yaml

from ..errors import Diagnostic, SpecError
from .positions import Path, Pos, position_of  # noqa: F401 - where they were first

MAX_NUMBER_DIGITS = 60  # a rule needs small numbers; a 5,000-digit one is a mistake or an attack
MAX_DEPTH = 100  # lists and maps inside each other: the shipped specs need 18; the walkers below recurse


class _Loader(yaml.SafeLoader):
    """The safe loader, keeping to plain JSON data: text, numbers (finite, at most
    :data:`MAX_NUMBER_DIGITS` digits), booleans, null, lists and maps. Dates, sets, binary
    values and ordered pairs are refused where they are written (they would break saving a
    game as JSON), with a hint to quote them."""

    def construct_yaml_int(self, node):
        digits = sum(ch.isdigit() for ch in str(node.value))
        if digits > MAX_NUMBER_DIGITS:
            raise yaml.constructor.ConstructorError(
                None, None, f"a number of {digits} digits (a spec's numbers have at most {MAX_NUMBER_DIGITS})",
                node.start_mark)
        return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)

    def construct_yaml_float(self, node):
        value = yaml.constructor.SafeConstructor.construct_yaml_float(self, node)
        if value != value or value in (float("inf"), float("-inf")):
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a finite number (quote it if it is text)", node.start_mark)
        return value

    def _not_plain(self, node):
        kind = node.tag.rsplit(":", 1)[-1]
        raise yaml.constructor.ConstructorError(
            None, None, f"a YAML {kind} value is not plain data (a spec holds text, numbers, true/false, null, "
            "lists and maps); quote it if it is text", node.start_mark)


for _tag in ("timestamp", "set", "binary", "omap", "pairs"):
    _Loader.add_constructor(f"tag:yaml.org,2002:{_tag}", _Loader._not_plain)
_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:float", _Loader.construct_yaml_float)


if getattr(yaml, "__with_libyaml__", False):
    class _FastLoader(yaml.CSafeLoader):
        """:class:`_Loader`'s rules on libyaml's parser (a spec reads in a seventh of the time). Only
        for text that parses: on any YAML error the file is read again with :class:`_Loader`, whose
        messages (and marks) the error reports are written for."""

    for _tag, _fn in _Loader.yaml_constructors.items():
        _FastLoader.add_constructor(_tag, _fn)
else:  # PyYAML built without libyaml
    _FastLoader = None


def load_yaml(text: str, file: str) -> tuple[object, dict[Path, Pos]]:
    """Parse ``text`` safely (no Python tags) keeping positions.

    Raises :class:`SpecError` with the line and column of a YAML syntax error,
    or when two keys of one mapping are the same.
    """
    if _FastLoader is not None:
        try:
            return _read(text, file, _FastLoader)
        except (SpecError, ValueError):  # ValueError: text libyaml cannot take (e.g. a lone surrogate)
            pass  # read again with the Python parser, whose marks and messages the report is made of
    return _read(text, file, _Loader)


def _read(text: str, file: str, loader_class) -> tuple[object, dict[Path, Pos]]:
    """:func:`load_yaml` with the given loader class."""
    try:
        loader = loader_class(text)
    except yaml.reader.ReaderError as exc:  # a control character: refused before parsing starts
        line, col = _line_col(text, exc.position)
        raise SpecError([Diagnostic(file, line, col, f"the character {exc.character:#06x} is not allowed in YAML "
                                    "(a control character)", "remove it, or write it as an escape in a "
                                    "double-quoted text, e.g. \"\\t\"")]) from None
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_aliases(node, file)
        if node is None:
            raise SpecError([Diagnostic(file, 1, 1, "the file is empty",
                                        "a spec is a YAML mapping with name, players, cards, zones and flow")])
        data = loader.construct_document(node)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise SpecError([Diagnostic(file, line, col, exc.problem or "a value YAML cannot construct",
                                    "a spec's values are plain data (like JSON)")]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or "invalid YAML"
        opened = exc.context_mark
        if (opened is not None and mark is not None and opened.line < mark.line and exc.context
                and ("quoted scalar" in exc.context or "flow" in exc.context)):
            # an unclosed quote, [ or {: the fix is where it opened, not where the parser gave up
            problem = f"{problem} (at line {mark.line + 1}, column {mark.column + 1})"
            mark = opened
        elif (quote := _runaway_quote(text, mark)) is not None:
            problem = (f"{problem} (at line {mark.line + 1}, column {mark.column + 1}); the quoted text opened "
                       f"here runs on to that line: is its closing quote missing?")
            mark = quote
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        if exc.context:
            problem = f"{exc.context}: {problem}"
        raise SpecError([Diagnostic(file, line, col, f"YAML syntax error: {problem}",
                                    "check indentation, colons and quotes around text that contains ': ' or '#'")]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Diagnostic(file, 0, 0, f"YAML error: {exc}")]) from None
    except RecursionError:  # the Python parser's composer recurses: find where the bound is passed
        raise _deep_at(text, file) from None
    finally:
        loader.dispose()
    positions: dict[Path, Pos] = {}
    problems: list[Diagnostic] = []
    _walk(node, (), positions, problems, file, None)
    _check_keys(data, (), positions, problems, file)
    if problems:
        raise SpecError(problems)
    return data, positions


def _too_deep(file, mark) -> SpecError:
    return SpecError([Diagnostic(file, mark.line + 1, mark.column + 1,
                                 f"the YAML is nested more than {MAX_DEPTH} levels deep here (lists and maps "
                                 "inside each other)", "a spec needs only a few levels of nesting: "
                                 "flatten this value, or name its parts under define")])


def _refuse_aliases(root, file) -> None:
    """Refuse YAML aliases (``*name``): a spec never needs them, and they can multiply a small
    file into a huge or endless structure; and nesting deeper than :data:`MAX_DEPTH`, where it
    passes the bound (the walkers after this one recurse). Iterative, so deep nesting cannot
    overflow here."""
    seen = set()
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            mark = node.start_mark
            raise SpecError([Diagnostic(file, mark.line + 1, mark.column + 1,
                                        "YAML aliases (*name) are not supported",
                                        "write the value out in full where it is used")])
        seen.add(id(node))
        if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)) and depth >= MAX_DEPTH:
            raise _too_deep(file, node.start_mark)
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append((k, depth + 1))
                stack.append((v, depth + 1))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((v, depth + 1) for v in node.value)
        if len(seen) > 2_000_000:
            raise SpecError([Diagnostic(file, 1, 1, "the YAML file is too large", "")])


def _walk(node, path, positions, problems, file, key_node):
    kl, kc = (key_node.start_mark.line + 1, key_node.start_mark.column + 1) if key_node is not None else (0, 0)
    style = (getattr(node, "style", None) or None) if isinstance(node, yaml.ScalarNode) else None  # libyaml: "" for plain
    positions[path] = Pos(node.start_mark.line + 1, node.start_mark.column + 1, style, kl, kc)
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for knode, vnode in node.value:
            key = _scalar_value(knode) if isinstance(knode, yaml.ScalarNode) else None
            if key in seen:
                problems.append(Diagnostic(file, knode.start_mark.line + 1, knode.start_mark.column + 1,
                                           f"duplicate key {key!r} (first at line {seen[key]})",
                                           "YAML keeps only the last one; remove or rename one of them"))
            seen[key] = knode.start_mark.line + 1
            _walk(vnode, path + (key,), positions, problems, file, knode)
    elif isinstance(node, yaml.SequenceNode):
        for i, child in enumerate(node.value):
            _walk(child, path + (i,), positions, problems, file, None)


def _deep_at(text: str, file: str) -> SpecError:
    """The located error of text nested past :data:`MAX_DEPTH`, found from the parser's events
    (the parser keeps its own stack, so this does not recurse)."""
    depth = 0
    mark = None
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    mark = event.start_mark
                    break
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        pass
    if mark is None:
        return SpecError([Diagnostic(file, 1, 1, "the YAML is nested too deeply", "a spec needs only a few levels of nesting")])
    return _too_deep(file, mark)


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of character ``index`` of ``text``."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def _check_keys(data, path, positions, problems, file):
    """Map keys are texts or whole numbers: true/false, null and decimals (YAML reads
    ``yes:``, ``on:``, ``~:``, ``1.5:`` as those) would not survive saving a game as JSON.
    Iterative, so deep nesting cannot overflow."""
    stack = [(data, path)]
    while stack:
        value, p = stack.pop()
        if isinstance(value, dict):
            for k, v in value.items():
                if type(k) is not str and type(k) is not int:
                    pos = position_of(positions, p + (k,))
                    kind = {bool: "true/false", float: "a decimal number", type(None): "null"}.get(type(k), type(k).__name__)
                    problems.append(Diagnostic(file, pos.key_line or pos.line, pos.key_column or pos.column,
                                               f"this key reads as {kind} ({k!r}), not as a text or a whole number",
                                               "quote it, e.g. \"yes\": ... or \"1.5\": ..."))
                stack.append((v, p + (k,)))
        elif isinstance(value, list):
            stack.extend((v, p + (i,)) for i, v in enumerate(value))


def _runaway_quote(text, mark):
    """The start mark of a quoted scalar that spans several lines and ends on ``mark``'s line, or
    None: an unclosed quote runs on to the next quote in the file, where parsing then fails."""
    found = None
    if mark is None:
        return None
    try:
        for tok in yaml.scan(text, Loader=yaml.SafeLoader):
            if tok.start_mark.index >= mark.index:
                break
            if isinstance(tok, yaml.ScalarToken) and tok.style in ('"', "'") \
                    and tok.start_mark.line < tok.end_mark.line == mark.line:
                found = tok.start_mark
    except yaml.YAMLError:
        pass
    return found


_resolver_loader = None


def _scalar_value(knode):
    """The Python value of a scalar key node, resolved as safe_load would."""
    global _resolver_loader
    if _resolver_loader is None:
        _resolver_loader = _Loader("")
    return _resolver_loader.construct_object(knode)
