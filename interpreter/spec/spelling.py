"""How names are spelt in a spec: identifiers, ``define``/phase keys (``name`` or ``name(a, b)``),
``{...}`` holes in name templates, and the did-you-mean hint for a misspelt name.

Shared by the parts of the spec compiler (:mod:`interpreter.spec.compile`).
"""
from __future__ import annotations

import difflib
import re


_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_DEFINE_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*\))?\s*$")
_TEMPLATE = re.compile(r"\{([^{}]*)\}")


def _did_you_mean(name: str, known) -> str:
    """``"did you mean 'x'? "`` for the names of ``known`` close to ``name`` (a typo), else ``""``."""
    # (str: a YAML key may be a number, and a number is nobody's typo to compare)
    close = difflib.get_close_matches(str(name), sorted(map(str, known)), n=3, cutoff=0.7)
    return f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
