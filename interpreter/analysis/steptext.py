"""Steps as text: the one-line labels of a rule-flow graph's nodes, and the phrases the rules
document (:mod:`interpreter.analysis.rulesdoc`) and the spec diff reuse (an expression cleaned
up, a comment above a step, a meld kind, a set's size, an optional choice).
"""
from __future__ import annotations

from ..spec.compile import STEP_KINDS  # the engine's own list: a new kind of step shows up here too
from .refs import refs


def clean(text) -> str:
    """An expression or text on one line (folded YAML keeps its line breaks)."""
    if text is None:
        return "null"
    if isinstance(text, bool):
        return "true" if text else "false"
    return " ".join(str(text).split())


def comment_above(lines: list, line: int) -> str:
    """The ``#`` comment block right above 1-based ``line`` of a spec's source lines (no blank line
    between), joined into one sentence: what the author wrote about the step below it."""
    out = []
    i = line - 2
    while 0 <= i < len(lines) and lines[i].strip().startswith("#"):
        out.append(lines[i].strip().lstrip("#").strip())
        i -= 1
    return " ".join(reversed(out))


def step_kind(step) -> str | None:
    if not isinstance(step, dict):
        return None
    kinds = [k for k in step if k in STEP_KINDS]
    return kinds[0] if len(kinds) == 1 else None


def card_options(spec) -> dict:
    """Options that cards depend on through their ``when:``, keyed by card name and by the string
    attribute values only those cards have (``{'extra-card': {'variant_x'}}``)."""
    out, common = {}, set()
    for entry in spec.get("cards") or []:
        if not isinstance(entry, dict):
            continue
        values = {v for v in (entry.get("attributes") or {}).values() if isinstance(v, str)}
        opts = refs(entry["when"]).options if "when" in entry else set()
        if not opts:
            common |= values
            continue
        for key in values | {str(entry.get("name"))}:
            out.setdefault(key, set()).update(opts)
    return {k: v for k, v in out.items() if k not in common}


def _plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


MELD_BUILTINS = frozenset({"is_meld", "meld_kind", "melds_in", "melds_for", "best_melds", "lay_offs"})


def meld_text(d: dict) -> str:
    """What makes a meld of the kind declared by ``d`` (one entry of ``melds:``), in words."""
    lo, hi = d.get("min", 3), d.get("max")
    size = f"{lo} or more cards" if hi is None else f"{lo} cards" if hi == lo else f"{lo} to {hi} cards"
    if d.get("form") == "run":
        ace = {"high": "; the ace (rank {r}) ranks above the highest",
               "both": "; the ace (rank {r}) ranks low or high, never both"}.get(d.get("ace", "low"), "")
        what = (f"a run: {size} of one suit (`{d.get('suit', 'c.suit')}`) with consecutive ranks "
                f"(`{d.get('rank', 'c.rank')}`){ace.format(r=d.get('ace_rank', 1))}")
    else:
        what = f"a set: {size} that match (equal `{d.get('key', 'c.rank')}`)"
    if "wild" in d:
        most = d.get("max_wild")
        what += (f"; wild cards (`{d['wild']}`) stand in for any card"
                 + (f", at most {most} per meld" if most is not None else "")
                 + f", with at least {d.get('min_natural', 1)} card(s) that are not wild")
    return what


def _count_text(expr) -> str:
    t = clean(expr)
    return "once" if t == "1" else f"{t} times"


def set_size(c: dict) -> str:
    """The size of a set choice in words: ``3+``, ``exactly 3``, ``1 to 4``."""
    lo, hi = c.get("min"), c.get("max")
    if hi is None:
        return f"{clean(lo if lo is not None else 1)}+"
    if lo is not None and str(lo) == str(hi):
        return f"exactly {clean(lo)}"
    return f"{clean(lo if lo is not None else 1)} to {clean(hi)}"


def optional_text(optional) -> str:
    """What the optional no-choice action of a choose reads as: ``pass``, or ``draw (when ...)``."""
    if isinstance(optional, dict):
        text = str(optional.get("action", "pass"))
        if "when" in optional:
            text += f" (when {clean(optional['when'])})"
        return text
    return "pass"
