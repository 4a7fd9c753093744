"""How names are spelt in a spec: identifiers, ``define``/phase keys (``name`` or ``name(a, b)``),
``{...}`` holes in name templates, and the did-you-mean hint for a misspelt name.

Shared by the parts of the spec compiler (:mod:`interpreter.spec.compile`).
"""
from __future__ import annotations

import re

from ..errors import did_you_mean as _did_you_mean  # noqa: F401  (the one helper, re-exported)


_IDENT = re.compile(r"^[A-Za-z_]\w*$")
_DEFINE_KEY = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\(\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)?\s*\))?\s*$")
_TEMPLATE = re.compile(r"\{([^{}]*)\}")
