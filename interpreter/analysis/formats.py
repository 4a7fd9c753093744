"""The diagram output formats (a module of its own: the CLI lists them without importing the
drawing code, networkx or matplotlib, so commands that draw nothing start fast)."""

FORMATS = ("svg", "png", "dot", "mermaid", "html")
