"""Safe YAML loading that remembers where every value came from.

``load_yaml(text, file)`` returns ``(data, positions)``: ``data`` is plain
Python (dicts, lists, scalars, as ``yaml.safe_load`` would give) and
``positions`` maps a path tuple (keys and list indices from the root) to a
:class:`Pos` — the 1-based line and column of that value, and for scalars its
YAML style, so expression columns can be mapped back into the file.
"""
from __future__ import annotations

from dataclasses import dataclass

import yaml

from ..errors import Diagnostic, SpecError


@dataclass(frozen=True)
class Pos:
    """Where a YAML value starts: 1-based ``line`` and ``column``, and the scalar ``style``
    (``None`` plain, ``'"'``/``"'"`` quoted, ``'|'``/``'>'`` block)."""

    line: int
    column: int
    style: str | None = None
    key_line: int = 0
    key_column: int = 0


Path = tuple


def load_yaml(text: str, file: str) -> tuple[object, dict[Path, Pos]]:
    """Parse ``text`` safely (no Python tags) keeping positions.

    Raises :class:`SpecError` with the line and column of a YAML syntax error,
    or when two keys of one mapping are the same.
    """
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            _refuse_aliases(node, file)
        if node is None:
            raise SpecError([Diagnostic(file, 1, 1, "the file is empty",
                                        "a spec is a YAML mapping with name, players, cards, zones and flow")])
        data = loader.construct_document(node)
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
    except RecursionError:
        raise SpecError([Diagnostic(file, 1, 1, "the YAML is nested too deeply",
                                    "a spec needs only a few levels of nesting")]) from None
    finally:
        loader.dispose()
    positions: dict[Path, Pos] = {}
    problems: list[Diagnostic] = []
    _walk(node, (), positions, problems, file, None)
    if problems:
        raise SpecError(problems)
    return data, positions


def _refuse_aliases(root, file) -> None:
    """Refuse YAML aliases (``*name``): a spec never needs them, and they can multiply a small
    file into a huge or endless structure. Iterative, so deep nesting cannot overflow here."""
    seen = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            mark = node.start_mark
            raise SpecError([Diagnostic(file, mark.line + 1, mark.column + 1,
                                        "YAML aliases (*name) are not supported",
                                        "write the value out in full where it is used")])
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack.append(k)
                stack.append(v)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        if len(seen) > 2_000_000:
            raise SpecError([Diagnostic(file, 1, 1, "the YAML file is too large", "")])


def _walk(node, path, positions, problems, file, key_node):
    kl, kc = (key_node.start_mark.line + 1, key_node.start_mark.column + 1) if key_node is not None else (0, 0)
    style = getattr(node, "style", None) if isinstance(node, yaml.ScalarNode) else None
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
        _resolver_loader = yaml.SafeLoader("")
    return _resolver_loader.construct_object(knode)


def position_of(positions: dict[Path, Pos], path: Path) -> Pos:
    """The position of ``path``, or of its nearest ancestor that has one."""
    path = tuple(path)
    while path not in positions and path:
        path = path[:-1]
    return positions.get(path, Pos(0, 0))
