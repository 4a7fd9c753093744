"""Analysis of a compiled game: the rule-flow graph, static checks, diagrams and a rules document.

Everything here reads the same compiled :class:`~interpreter.engine.game.Game` the engine runs:
its step tree (``game.spec``), source positions (``game.positions``) and names (``game.names``).

- :func:`interpreter.analysis.graph.flow_graph` — the rule-flow graph (networkx.DiGraph)
- :func:`interpreter.analysis.checks.static_checks` — warnings located as file:line:col
- :mod:`interpreter.analysis.export` (with :mod:`~interpreter.analysis.layout`) — SVG/PNG (matplotlib), DOT,
  Mermaid and HTML exports
- :func:`interpreter.analysis.rulesdoc.rules_markdown` — a readable rules summary
"""
