"""A spec's ``options:`` and ``presets:``: the values a game is played with, from the defaults,
a preset and the values given (``--option KEY=VALUE``), each checked against its declaration.

Part of the spec compiler: :class:`OptionsMixin` is mixed into
:class:`~interpreter.spec.compile.SpecCompiler`. (``interpreter/options.py`` parses the command
line's ``KEY=VALUE`` texts; this module checks them against the spec.)
"""
from __future__ import annotations


def _option_type(decl: dict) -> str:
    typ = decl.get("type") or ("choice" if decl.get("values") is not None else None)
    if typ is None:
        d = decl.get("default")
        typ = "bool" if isinstance(d, bool) else "int" if isinstance(d, int) else "choice"
    return {"bool": "boolean (true/false)", "int": "whole number"}.get(typ, "choice" if decl.get("values") else "value")


def _fits(decl: dict, value) -> bool:
    """Whether ``value`` is of the option's declared type (and among its values)."""
    typ = decl.get("type")
    if typ == "bool" and not isinstance(value, bool):
        return False
    if typ == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return False
    values = decl.get("values")
    return values is None or value in values


def coerce_option(decl: dict, value, name: str, sc: OptionsMixin | None = None):
    """Convert a CLI option value (often a string) to the declared type."""
    typ = decl.get("type") or ("choice" if decl.get("values") is not None else None)
    if typ is None:
        d = decl.get("default")
        typ = "bool" if isinstance(d, bool) else "int" if isinstance(d, int) else "choice"
    if not isinstance(value, str):
        return value
    if typ == "bool":
        low = value.lower()
        if low in ("true", "yes", "on", "1"):
            return True
        if low in ("false", "no", "off", "0"):
            return False
    elif typ == "int":
        try:
            return int(value)
        except ValueError:
            pass
    else:
        return value
    if sc is not None:
        sc.error(("options", name), f"option {name} must be {typ}, not {value!r}",
                 f"e.g. --option {name}=" + ("true" if typ == "bool" else "3"), key=True)
    return value


class OptionsMixin:
    """Option resolution of :class:`~interpreter.spec.compile.SpecCompiler` (``self`` is one)."""

    def resolve_options(self, given: dict) -> dict:
        declared = self.data.get("options") or {}
        values = {k: (v or {}).get("default") for k, v in declared.items()}
        for k, decl in declared.items():
            decl = decl or {}
            if decl.get("type") == "choice" and decl.get("values") is None:
                self.error(("options", k), f"option {k} is a choice but lists no values", "add values: [...]", key=True)
            if not _fits(decl, decl.get("default")):
                self.error(("options", k, "default"), f"the default of option {k} ({decl.get('default')!r}) "
                           f"is not a {_option_type(decl)}", "fix the default or the type")
        for name, preset in (self.data.get("presets") or {}).items():
            for k, v in (preset or {}).items():
                if k not in declared:
                    self.error(("presets", name, k), f"preset {name} sets {k!r}, which is not an option",
                               "options: " + (", ".join(declared) or "none"), key=True)
                elif not _fits(declared[k] or {}, v):
                    self.error(("presets", name, k), f"preset {name} sets {k} to {v!r}, not a {_option_type(declared[k] or {})}",
                               key=True)
        given = dict(given)
        preset = given.pop("preset", None)
        if preset is not None:
            presets = self.data.get("presets") or {}
            if preset not in presets:
                self.error(("presets",), f"unknown preset {preset!r}",
                           "presets: " + (", ".join(presets) or "none"), key=True)
            else:
                for k, v in presets[preset].items():
                    values[k] = v
        bad = set()  # options whose value was refused: one error each, and the rest built without it
        for k, v in given.items():
            if k not in declared:
                self.error(("options",), f"unknown option {k!r}",
                           "options: " + (", ".join(declared) or "none"), key=True)
                continue
            before = len(self.diags)
            values[k] = coerce_option(declared[k] or {}, v, k, self)
            decl = declared[k] or {}
            if not isinstance(v, str) and decl.get("values") is None and not _fits(decl, values[k]):
                self.error(("options", k), f"option {k} must be a {_option_type(decl)}, not {v!r}", key=True)
            if len(self.diags) > before:
                bad.add(k)
        for k, v in values.items():
            decl = declared.get(k) or {}
            low, high = decl.get("min"), decl.get("max")
            if k in bad:
                continue
            if isinstance(v, (int, float)) and not isinstance(v, bool) and (
                    (low is not None and v < low) or (high is not None and v > high)):
                limits = " and ".join(x for x in (f"at least {low}" if low is not None else "",
                                                   f"at most {high}" if high is not None else "") if x)
                where = ("options", k, "default") if v == decl.get("default") and k not in given else ("options", k)
                self.error(where, f"option {k} must be {limits}, not {v!r}",
                           decl.get("doc") or f"e.g. --option {k}={low if low is not None else high}",
                           key=where == ("options", k))
                bad.add(k)
            elif decl.get("values") is not None and v not in decl["values"]:
                self.error(("options", k), f"option {k} cannot be {v!r}",
                           "choose one of: " + ", ".join(map(str, decl["values"])), key=True)
                bad.add(k)
        # the rest of the spec is built with the default of a refused value (when the default itself is
        # allowed), so that value's error is the only one it causes: a deck of 0 suits would otherwise
        # make every expression reading c.suit an error of its own, after the one that matters
        for k in bad:
            decl = declared.get(k) or {}
            default = decl.get("default")
            low, high = decl.get("min"), decl.get("max")
            in_range = not isinstance(default, (int, float)) or isinstance(default, bool) or (
                (low is None or default >= low) and (high is None or default <= high))
            if _fits(decl, default) and in_range:
                values[k] = default
        return values
