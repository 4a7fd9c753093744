"""``rulebook diff A.yaml B.yaml``: which rules two specs differ in, said in words.

:func:`spec_diff` compares two compiled games (each with its default options) part by part —
options (their type, default, values and doc, in words) and presets (the option values
each sets), cards (by name: added, removed, copies, attributes), zones, variables,
definitions, the steps of the flow and of every phase, scoring and the winner — and returns
Markdown lines. Steps are matched by their content (a step moved or renumbered is not a
change), and each changed step is named by the label the rule-flow diagram gives it, with its
line in each file.
"""
from __future__ import annotations

import difflib
import json
import re

from .graph import clean, flow_graph
from .refs import define_name


def _canon(value) -> str:
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)  # § stays §


def _cards(game) -> dict:
    """``{name: (copies, attributes)}`` of the deck built with the game's options."""
    out: dict = {}
    for c in game.cards:
        n, attrs = out.get(c.name, (0, c.attrs))
        out[c.name] = (n + 1, attrs)
    return out


def _labels(game) -> dict:
    """``{spec path of a step: (label, line)}`` from the rule-flow graph."""
    G = flow_graph(game)
    return {d["path"]: (d.get("label", ""), d.get("line", 0)) for _, d in G.nodes(data=True)
            if "step" in d and d.get("path") is not None}


class _Diff:
    def __init__(self, a, b):
        self.a, self.b = a, b
        self.la, self.lb = _labels(a), _labels(b)
        self.out: list[str] = []

    def section(self, title, lines):
        if lines:
            self.out.append(f"## {title}")
            self.out.append("")
            self.out.extend(f"- {x}" for x in lines)
            self.out.append("")

    def keyed(self, title, what, da: dict, db: dict, describe=lambda v: f"`{clean(_canon(v))}`"):
        lines = []
        for k in db.keys() - da.keys():
            lines.append(f"new {what} **{k}**: {describe(db[k])}")
        for k in da.keys() - db.keys():
            lines.append(f"{what} **{k}** removed (was {describe(da[k])})")
        for k in da.keys() & db.keys():
            if _canon(da[k]) != _canon(db[k]):
                lines.append(f"{what} **{k}** changed: {describe(da[k])} → {describe(db[k])}")
        self.section(title, sorted(lines, key=lambda s: s.split("**")[1] if "**" in s else s))

    def options(self):
        """Options added, removed or changed, in words: kind, default, allowed values or range, doc."""
        da, db = self.a.spec.get("options") or {}, self.b.spec.get("options") or {}
        lines = [f"new option **{k}**: {_option_words(db[k])}" for k in db.keys() - da.keys()]
        lines += [f"option **{k}** removed (was {_option_words(da[k])})" for k in da.keys() - db.keys()]
        for k in da.keys() & db.keys():
            if _canon(da[k]) != _canon(db[k]):
                lines.append(f"option **{k}**: " + "; ".join(_option_changes(da[k], db[k])))
        self.section("Options", sorted(lines, key=lambda s: s.split("**")[1]))

    def presets(self):
        """Presets added, removed or changed: the option values each sets."""
        da, db = self.a.spec.get("presets") or {}, self.b.spec.get("presets") or {}
        lines = [f"new preset **{k}**: {_settings(db[k])}" for k in db.keys() - da.keys()]
        lines += [f"preset **{k}** removed (was {_settings(da[k])})" for k in da.keys() - db.keys()]
        for k in da.keys() & db.keys():
            va, vb = da[k], db[k]
            if _canon(va) == _canon(vb):
                continue
            if not isinstance(va, dict) or not isinstance(vb, dict):
                lines.append(f"preset **{k}**: {_settings(va)} → {_settings(vb)}")
                continue
            changes = [f"{o}={_value(vb[o])} added" for o in vb if o not in va]
            changes += [f"{o}={_value(va[o])} removed" for o in va if o not in vb]
            changes += [f"{o} {_value(va[o])} → {_value(vb[o])}" for o in va
                        if o in vb and _canon(va[o]) != _canon(vb[o])]
            lines.append(f"preset **{k}**: " + ", ".join(changes))
        self.section("Presets", sorted(lines, key=lambda s: s.split("**")[1]))

    def cards(self):
        ca, cb = _cards(self.a), _cards(self.b)
        lines = []
        for name in sorted(cb.keys() - ca.keys()):
            n, attrs = cb[name]
            lines.append(f"new card **{name}**" + (f" ×{n}" if n > 1 else "") + f" ({_attrs(attrs)})")
        for name in sorted(ca.keys() - cb.keys()):
            lines.append(f"card **{name}** removed")
        for name in sorted(ca.keys() & cb.keys()):
            (na, aa), (nb, ab) = ca[name], cb[name]
            if na != nb:
                lines.append(f"card **{name}**: {na} → {nb} copies")
            if _canon(aa) != _canon(ab):
                changed = [f"{k} {_v(aa.get(k))} → {_v(ab.get(k))}" for k in sorted(set(aa) | set(ab))
                           if _canon(aa.get(k)) != _canon(ab.get(k))]
                lines.append(f"card **{name}**: " + ", ".join(changed))
        total = (len(self.a.cards), len(self.b.cards))
        if total[0] != total[1]:
            lines.append(f"the deck has {total[1]} cards instead of {total[0]}")
        self.section("Cards", lines)

    def defines(self):
        da = {define_name(k): (k, v) for k, v in (self.a.spec.get("define") or {}).items()}
        db = {define_name(k): (k, v) for k, v in (self.b.spec.get("define") or {}).items()}
        lines = []
        for name in sorted(db.keys() - da.keys()):
            lines.append(f"new definition **{db[name][0]}** = `{clean(db[name][1])}` "
                         f"(line {self.b.position(('define', db[name][0])).line})")
        for name in sorted(da.keys() - db.keys()):
            lines.append(f"definition **{name}** removed")
        for name in sorted(da.keys() & db.keys()):
            (ka, va), (kb, vb) = da[name], db[name]
            if clean(va) != clean(vb) or ka != kb:
                changes = "".join(f"\n  {line}" for line in _clause_diff(clean(va), clean(vb)))
                lines.append(f"definition **{kb}** changed (line {self.a.position(('define', ka)).line} → "
                             f"{self.b.position(('define', kb)).line}):{changes}")
        self.section("Definitions", lines)

    def steps(self):
        lines = self.block(("flow",), ("flow",), self.a.spec.get("flow") or [], self.b.spec.get("flow") or [])
        pa, pb = self.a.spec.get("phases") or {}, self.b.spec.get("phases") or {}
        for name in sorted(pb.keys() - pa.keys()):
            lines.append(f"new phase **{name}** (line {self.b.position(('phases', name)).line})")
        for name in sorted(pa.keys() - pb.keys()):
            lines.append(f"phase **{name}** removed")
        for name in sorted(pa.keys() & pb.keys()):
            lines.extend(self.block(("phases", name), ("phases", name), pa[name] or [], pb[name] or []))
        self.section("Rules (steps of the flow and phases)", lines)

    def block(self, path_a, path_b, sa, sb) -> list:
        """Changes between two step lists at the same place: inserted, removed and changed
        steps; the nested blocks of steps that match are compared the same way."""
        if not isinstance(sa, list) or not isinstance(sb, list):
            return []
        where = "main flow" if path_b[0] == "flow" else f"phase {path_b[1]}"
        ta, tb = [_shallow(s) for s in sa], [_shallow(s) for s in sb]
        out = []
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=ta, b=tb, autojunk=False).get_opcodes():
            pairs = []
            if op == "equal":
                pairs = list(zip(range(i1, i2), range(j1, j2)))
            elif op == "replace" and i2 - i1 == j2 - j1:
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    pa_, pb_ = path_a + (i,), path_b + (j,)
                    out.append(f"{where}: {self.label_a(pa_)} (line {self.line_a(pa_)}) became "
                               f"{self.label_b(pb_)} (line {self.line_b(pb_)})")
                    pairs.append((i, j))
            else:
                out += [f"{where}: removed {self.label_a(path_a + (i,))} (line {self.line_a(path_a + (i,))})"
                        for i in range(i1, i2)]
                out += [f"{where}: new step {self.label_b(path_b + (j,))} (line {self.line_b(path_b + (j,))})"
                        for j in range(j1, j2)]
            for i, j in pairs:
                for rel, nested_a, nested_b in _nested(sa[i], sb[j]):
                    out += self.block(path_a + (i,) + rel, path_b + (j,) + rel, nested_a, nested_b)
        return out

    def tables(self):
        """Rule tables (``tables:``) computed with each spec: the cells whose value changed."""
        from .tables import compute_tables, table_changes
        ta = {t.title: t for t in compute_tables(self.a)}
        tb = {t.title: t for t in compute_tables(self.b)}
        lines = [f"new table **{k}**" for k in tb.keys() - ta.keys()]
        lines += [f"table **{k}** removed" for k in ta.keys() - tb.keys()]
        for k in [k for k in tb if k in ta]:
            changes = table_changes(ta[k], tb[k])
            lines += changes[:40] + ([f"{k}: and {len(changes) - 40} more cells"] if len(changes) > 40 else [])
        self.section("Rule tables (computed from both specs)", lines)

    def label_a(self, path):
        return _quoted(self.la.get(path, ("a step", 0))[0])

    def label_b(self, path):
        return _quoted(self.lb.get(path, ("a step", 0))[0])

    def line_a(self, path):
        return self.a.position(path).line

    def line_b(self, path):
        return self.b.position(path).line

    def build(self) -> list[str]:
        a, b = self.a, self.b
        self.out += [f"# {a.name} ({a.file}) → {b.name} ({b.file})", ""]
        head = []
        if a.name != b.name:
            head.append(f"name: {a.name} → {b.name}")
        if (a.min_players, a.max_players) != (b.min_players, b.max_players):
            head.append(f"players: {a.min_players}–{a.max_players} → {b.min_players}–{b.max_players}")
        self.section("Game", head)
        self.options()
        self.presets()
        self.cards()
        self.keyed("Zones", "zone", a.spec.get("zones") or {}, b.spec.get("zones") or {})
        self.keyed("Variables", "variable", a.spec.get("variables") or {}, b.spec.get("variables") or {})
        self.keyed("Player variables", "player variable", a.spec.get("player_variables") or {},
                   b.spec.get("player_variables") or {})
        self.defines()
        self.steps()
        end = []
        for key, what in (("score", "a player's score"), ("winner", "the winner")):
            va, vb = a.spec.get(key), b.spec.get(key)
            if _canon(va) != _canon(vb):
                end.append(f"{what}: `{clean(va)}` → `{clean(vb)}`")
        self.section("Scoring and winning", end)
        self.tables()
        if len(self.out) == 2:
            self.out.append("The two specs have the same rules.")
        return self.out


def _shallow(step) -> str:
    """A step without its nested step lists: what the step itself says."""
    if not isinstance(step, dict):
        return _canon(step)
    flat = {}
    for k, v in step.items():
        if k in ("do", "then", "else", "actions") and isinstance(v, list):
            continue
        if isinstance(v, dict):
            v = {kk: vv for kk, vv in v.items() if not (kk in ("then", "do", "actions") and isinstance(vv, list))}
        flat[k] = v
    return _canon(flat)


def _clauses(text: str) -> list[str]:
    """An expression cut where a reader sees its parts: after ``;`` and before ``else``/``and``/``or``."""
    return [c.strip() for c in re.split(r"(?<=;)\s+|\s+(?=\belse\b)|\s+(?=\band\b)|\s+(?=\bor\b)", text)
            if c.strip()]


def _clause_diff(a: str, b: str) -> list[str]:
    """The clauses of two expressions as a unified diff with one clause of context, as the
    lines of a fenced ``diff`` block (``-`` removed, ``+`` added)."""
    body = [line for line in difflib.unified_diff(_clauses(a), _clauses(b), n=1, lineterm="")
            if not line.startswith(("---", "+++", "@@"))]
    return ["```diff"] + [f"{line[:1]} {line[1:]}" for line in body] + ["```"]


def _nested(step_a, step_b):
    """``(relative path, steps in a, steps in b)`` for every nested step list of two steps."""
    if not isinstance(step_a, dict) or not isinstance(step_b, dict):
        return
    for role in ("do", "then", "else"):
        if isinstance(step_a.get(role), list) or isinstance(step_b.get(role), list):
            yield (role,), step_a.get(role) or [], step_b.get(role) or []
    for k, v in step_b.items():
        va = step_a.get(k)
        if isinstance(v, dict) and isinstance(va, dict):
            for role in ("then", "do", "actions"):
                if isinstance(v.get(role), list) or isinstance(va.get(role), list):
                    yield (k, role), va.get(role) or [], v.get(role) or []


def _value(value) -> str:
    """An option's value as a user types it with ``--option`` (``true``, ``3``, ``rascal``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, (list, dict)):
        return clean(_canon(value))
    return str(value)


def _kind(option) -> str:
    """An option's type: as declared, else as its default's (bool, int, choice)."""
    if option.get("type"):
        return str(option["type"])
    default = option.get("default")
    return "bool" if isinstance(default, bool) else "int" if isinstance(default, int) else "choice"


def _range(option) -> str:
    """The values an option allows, in words: ``one of a, b``, ``2 to 13``, ``at least 1``, or ``""``."""
    if option.get("values") is not None:
        values = option["values"]
        return "one of " + ", ".join(map(_value, values)) if isinstance(values, list) else _value(values)
    lo, hi = option.get("min"), option.get("max")
    if lo is not None and hi is not None:
        return f"{_value(lo)} to {_value(hi)}"
    if lo is not None:
        return f"at least {_value(lo)}"
    if hi is not None:
        return f"at most {_value(hi)}"
    return ""


def _option_words(option) -> str:
    """One option's declaration in words: ``int, default 10, 0 to 50: “points for an exact bid”``."""
    if not isinstance(option, dict):
        return f"`{clean(_canon(option))}`"
    words = f"{_kind(option)}, default {_value(option.get('default'))}"
    if _range(option):
        words += f", {_range(option)}"
    return words + (f": “{option['doc']}”" if option.get("doc") else "")


def _option_changes(a, b) -> list[str]:
    """What changed in one option's declaration, each in words: ``default 13 → 10``,
    ``range 2 to 13 → 3 to 13``, ``values 1, 2 → 1, 2, 3``, ``type int → choice``,
    ``doc “...” → “...”``."""
    if not isinstance(a, dict) or not isinstance(b, dict):
        return [f"`{clean(_canon(a))}` → `{clean(_canon(b))}`"]
    out = []
    if _kind(a) != _kind(b):
        out.append(f"type {_kind(a)} → {_kind(b)}")
    if _canon(a.get("default")) != _canon(b.get("default")):
        out.append(f"default {_value(a.get('default'))} → {_value(b.get('default'))}")
    if _range(a) != _range(b):
        both_lists = a.get("values") is not None and b.get("values") is not None
        both_bounds = a.get("values") is None and b.get("values") is None and _range(a) and _range(b)
        if both_lists:  # values 1, 2, 3, 4 → 1, 2, 3, 4, 5
            out.append(f"values {_range(a)[len('one of '):]} → {_range(b)[len('one of '):]}")
        elif both_bounds:  # range 2 to 13 → 3 to 13
            out.append(f"range {_range(a)} → {_range(b)}")
        else:
            out.append(f"allowed values {_range(a) or 'any'} → {_range(b) or 'any'}")
    if a.get("doc") != b.get("doc"):
        out.append(f"doc “{a.get('doc') or ''}” → “{b.get('doc') or ''}”")
    return out or [f"`{clean(_canon(a))}` → `{clean(_canon(b))}`"]  # (a change these words miss)


def _settings(preset) -> str:
    """A preset's option values, as typed with ``--option``: ``variant=true, rounds=10``."""
    if not isinstance(preset, dict):
        return f"`{clean(_canon(preset))}`"
    return ", ".join(f"{k}={_value(v)}" for k, v in preset.items()) or "no options"


def _quoted(label: str) -> str:
    return label if label.startswith("“") else f"“{label}”"


def _v(value) -> str:
    return "none" if value is None else str(value)


def _attrs(attrs: dict) -> str:
    return ", ".join(f"{k} {_v(v)}" for k, v in attrs.items()) or "no attributes"


def spec_diff(a, b) -> str:
    """The rules in which compiled games ``a`` and ``b`` differ, as Markdown text."""
    return "\n".join(_Diff(a, b).build()).rstrip() + "\n"
