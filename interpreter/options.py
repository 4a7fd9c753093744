"""Game options as a user types them (``--option KEY=VALUE``, the web table's options box).

Below every front end: the command line, the analysis commands and the web server all read
options through :func:`parse_options`, so none of them imports another to do so.
"""
from __future__ import annotations

from .errors import RulebookError


def parse_options(pairs) -> dict:
    """``["k=v", ...]`` -> ``{"k": "v"}``; raises RulebookError on a pair without a name or '='."""
    out = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            example = f"{key.strip() or 'NAME'}={value.strip() or 'true'}" if sep else f"{pair.strip() or 'NAME'}=true"
            raise RulebookError(f"--option takes KEY=VALUE, e.g. --option {example} (got {pair!r})")
        out[key.strip()] = value.strip()
    return out
