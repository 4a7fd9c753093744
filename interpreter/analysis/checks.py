"""Static checks of a compiled spec, reported as located warnings.

``static_checks(game)`` is called by :func:`interpreter.spec.loader.check_spec` (so by
``rulebook validate``; ``--strict`` turns the warnings into errors). It reads the rule-flow
graph (:func:`interpreter.analysis.graph.flow_graph`) and the names the compiler recorded
(``game.names``). The checks:

- a phase that is never entered;
- a step that can never run (after an ``end`` in the same block);
- a ``while`` loop whose condition reads nothing its body changes (it would run to its max);
- a ``realtime`` block that may never end (its ``until`` reads nothing its actions change, and
  one of its actions is always possible);
- a ``climb`` in which nobody can go out (no ``in``), with no ``until``, and whose leader may
  not pass (its pass has a ``when``): nothing can end it;
- a decision that may have no legal option (a choice of cards from a zone no step ever puts
  cards into, ``options: "[]"``, ``where: false``) unless it is ``optional``;
- an option that no expression reads (setting it in a preset is not a use);
- a variable that is written but never read (``display.player_columns`` counts as a read),
  or declared and never used.
"""
from __future__ import annotations

import networkx as nx

from ..errors import Diagnostic
from ..expr.compiler import ExprSyntaxError, parse
from .graph import SET_LIKE, START, children, flow_graph, roots
from .refs import closure, define_refs, refs

CONSTANTS = {"players", "num_players", "options", "true", "false", "null"}


def static_checks(game, G=None) -> list:
    """Every warning about ``game`` (a compiled Game), as :class:`Diagnostic` sorted by line."""
    G = G if G is not None else flow_graph(game)
    c = _Checker(game, G)
    c.unreachable()
    c.while_loops()
    c.realtime_blocks()
    c.climb_blocks()
    c.decisions()
    c.private_choices()
    c.options()
    c.variables()
    c.unused_defines()
    return sorted(c.out, key=lambda d: (d.line, d.column, d.message))


class _Checker:
    def __init__(self, game, G):
        self.game, self.G = game, G
        self.spec = game.spec
        self.names = game.names
        self.defines = define_refs(self.spec)
        self.out: list = []
        self._writes: dict = {}

    def warn(self, path, message, hint="", key=False, severity="warning"):
        pos = self.game.position(path)
        line, col = (pos.key_line, pos.key_column) if key and pos.key_line else (pos.line, pos.column)
        self.out.append(Diagnostic(self.game.file, line, col, message, hint, severity))

    def unused_defines(self) -> None:
        """A definition no expression of the rules calls (directly, or through definitions that
        are called) is dead text: warn, so that --strict refuses it."""
        import re
        names = self.names
        roots = getattr(names, "root_defines", None)
        if roots is None:
            return
        # expressions compiled apart from the rules (cards' each/name, evaluated at load) may call
        # definitions too: a name written anywhere outside define counts as a call
        import json
        outside = json.dumps({k: v for k, v in self.spec.items() if k != "define"}, default=str)
        for key in self.spec.get("define") or {}:
            m = re.match(r"\s*([A-Za-z_]\w*)", str(key))
            if m and re.search(r"\b" + re.escape(m.group(1)) + r"\b", outside):
                roots = set(roots) | {m.group(1)}
        used, todo = set(), list(roots)
        while todo:
            name = todo.pop()
            if name not in used:
                used.add(name)
                todo.extend(names.called_defines.get(name, ()))
        for key in self.spec.get("define") or {}:
            m = re.match(r"\s*([A-Za-z_]\w*)", str(key))
            if m and m.group(1) not in used:
                self.warn(("define", key), f"definition {m.group(1)!r} is never used",
                          "remove it, or call it from the rules", key=True)

    def steps(self):
        return [(n, d) for n, d in self.G.nodes(data=True) if "step" in d]

    # -- reachability -------------------------------------------------------------------------
    def unreachable(self):
        G = self.G
        reach = nx.descendants(G, START) | {START}
        for r in roots(G):
            d = G.nodes[r]
            if d["kind"] == "phase" and r not in reach:
                name = d["label"]
                called = [p for p in G.predecessors(r) if G.edges[p, r]["kind"] == "call"]
                why = ("it is only called from steps that never run" if called
                       else f"no step says '- phase: {name}'")
                self.warn(d["path"], f"phase {name!r} is never entered: {why}",
                          f"call it with '- phase: {name}' from flow or a phase that runs, or remove it", key=True)
        for n, d in self.steps():
            if n in reach or d["parent"] not in reach:
                continue
            siblings = children(G, d["parent"], d["role"])
            i = siblings.index(n)
            if i > 0 and siblings[i - 1] not in reach:
                continue  # only the first step of an unreachable run
            before = [s for s in siblings[:i] if G.nodes[s]["kind"] == "end"]
            if before:
                why = f"it comes after the end of the game (line {G.nodes[before[-1]]['line']})"
            else:
                why = "every way to it ends the game first"
            self.warn(d["path"], f"this step can never run: {why}",
                      "remove it, or move it before the end step")

    # -- while loops ----------------------------------------------------------------------------
    def reads(self, r) -> set:
        n = self.names
        out = set()
        for name in r.names:
            if name in n.game_vars:
                out.add("var:" + name)
            elif name in n.game_zones:
                out.add("zone:" + name)
            elif name not in self.defines and name not in CONSTANTS:
                out.add("local:" + name)
        for a in r.attrs:
            if a in n.player_vars:
                out.add("pvar:" + a)
            if a in n.player_zones:
                out.add("zone:" + a)
            if a in ("played_by", "mode"):
                out.add("zone:*")  # marks change when cards move
        return out

    def zone_key(self, text) -> str:
        text = str(text)
        return "zone:" + text.rsplit(".", 1)[-1].strip()

    def target_key(self, target) -> str:
        try:
            t = parse(str(target))
        except ExprSyntaxError:
            return "*"
        while t.data == "index":
            t = t.children[0]
        if t.data == "name":
            name = str(t.children[0])
            return ("var:" if name in self.names.game_vars else "local:") + name
        if t.data == "attr":
            return "pvar:" + str(t.children[1])
        return "*"

    def writes(self, nid, seen=None) -> tuple:
        """``(keys written, ends the game)`` by the subtree of ``nid`` (following phase calls)."""
        if nid in self._writes:
            return self._writes[nid]
        seen = set() if seen is None else seen
        if nid in seen:
            return set(), False
        seen.add(nid)
        G = self.G
        d = G.nodes[nid]
        kind = d["kind"]
        step = d.get("step") or {}
        body = step.get(kind if kind != "call" else "phase")
        out, ends = set(), kind == "end"
        if kind in SET_LIKE and isinstance(body, dict):
            out |= {self.target_key(t) for t in body}
        elif kind in ("move", "deal") and isinstance(body, dict):
            for k in ("from", "to"):
                if k in body:
                    out.add(self.zone_key(body[k]))
            if kind == "move" and "from" not in body:
                out.add("zone:*")
        elif kind == "gather":
            out.add("zone:*")
        elif kind == "shuffle":
            out.add(self.zone_key(body))
        elif kind == "choose" and isinstance(body, dict):
            if "to" in body:
                out |= {self.zone_key(body["to"]), self.zone_key(body.get("cards", "*"))}
        elif kind == "call":
            target = "phases/" + d["phase"]
            if target in G:
                w, e = self.writes(target, seen)
                out |= w
                ends = ends or e
        elif kind not in ("start", "phase", "for", "repeat", "while", "if", "log", "end", "game_over", "show",
                          "realtime", "climb"):
            out.add("*")  # a kind of step unknown here: assume it may change anything
        for role in ("do", "then", "else"):
            for c in children(G, nid, role):
                w, e = self.writes(c, seen)
                out |= w
                ends = ends or e
        self._writes[nid] = (out, ends)
        return out, ends

    def while_loops(self):
        for n, d in self.steps():
            if d["kind"] != "while":
                continue
            r = closure(refs(d["step"]["while"]), self.defines)
            if not r.ok:
                continue
            reads = self.reads(r)
            writes, ends = set(), False
            for c in children(self.G, n):
                w, e = self.writes(c)
                writes |= w
                ends = ends or e
            if ends or "*" in writes or reads & writes:
                continue
            if "zone:*" in writes and any(x.startswith("zone:") for x in reads):
                continue
            if "zone:*" in reads and any(x.startswith("zone:") for x in writes):
                continue
            shown = sorted(x.split(":", 1)[1] for x in reads if x != "zone:*")
            what = ("reads " + ", ".join(shown) + " and nothing in the loop changes " +
                    ("it" if len(shown) == 1 else "them")) if shown else "reads nothing the game can change"
            self.warn(d["path"], f"this while loop's condition never changes: it {what}",
                      f"change what `{d['condition']}` reads inside do:, or end the game there; otherwise the "
                      f"loop always runs to its max ({d.get('max')})")

    # -- real-time blocks ---------------------------------------------------------------------------
    def private_choices(self):
        """A choice with ``visible_to`` whose card goes face up (``to:`` a public zone): everybody
        sees the card anyway, so the hidden text hides nothing."""
        zones = self.game.zones
        for n, d in self.steps():
            if d["kind"] != "choose":
                continue
            c = d["step"].get("choose") or {}
            if "visible_to" not in c or "to" not in c:
                continue
            zone = str(c["to"]).split(".")[-1]
            if zone in zones and zones[zone].visibility == "public":
                self.warn(d["path"] + ("choose", "visible_to"),
                          f"decision {d['action']!r} is private (visible_to), but its card goes face up to "
                          f"{c['to']}: everybody sees it there", "play it to a hidden or owner zone, or drop visible_to",
                          key=True)

    def realtime_blocks(self):
        """A real-time block ends when its ``until`` holds or when nobody can act: warn when
        neither can happen (``until`` reads nothing the actions change, and some action is
        always possible: no ``where``, no zone that can run out, constant options)."""
        for n, d in self.steps():
            if d["kind"] != "realtime":
                continue
            body = d["step"]["realtime"]
            if not isinstance(body, dict):
                continue
            writes, ends = set(), False
            for c in children(self.G, n):
                w, e = self.writes(c)
                writes |= w
                ends = ends or e
            if ends or "*" in writes:
                continue
            changing = False
            if "until" in body:
                r = closure(refs(body["until"]), self.defines)
                reads = self.reads(r)
                changing = (not r.ok or bool(reads & writes)
                            or ("zone:*" in writes and any(x.startswith("zone:") for x in reads))
                            or ("zone:*" in reads and any(x.startswith("zone:") for x in writes))
                            or any(x.startswith("local:") for x in reads))
            if changing:
                continue
            always = [self.G.nodes[c]["action"] for c in children(self.G, n)
                      if self._always_possible(self.G.nodes[c]["step"].get("choose") or {})]
            if not always:
                continue  # every action can become impossible: the block can run out of actions
            acts = ", ".join(repr(a) for a in always)
            until = body.get("until")
            # provably endless: no until, or an until that is false whatever happens
            endless = until is None or until is False or str(until).strip() == "false"
            if "until" in body:
                what = f"its until (`{' '.join(str(body['until']).split())}`) reads nothing its actions change"
            else:
                what = "it has no until"
            self.warn(d["path"] + ("realtime",), f"this real-time block {'can' if endless else 'may'} never end: "
                      f"{what}, and {acts} is always possible", "add until: EXPR that the actions' then: steps "
                      "change, or a where: that stops the action", severity="error" if endless else "warning")

    def climb_blocks(self):
        """A climb ends when ``until`` holds, when fewer than two players are in, or when
        everyone still in passes with nothing played: warn when none of these can happen
        (no ``until``, no ``in``, and a pass only allowed under a condition: the leader must play)."""
        for n, d in self.steps():
            if d["kind"] != "climb":
                continue
            body = d["step"]["climb"]
            if not isinstance(body, dict) or "in" in body or "until" in body:
                continue
            optional = (body.get("turn") or {}).get("optional") if isinstance(body.get("turn"), dict) else None
            if isinstance(optional, dict) and "when" in optional:
                self.warn(d["path"] + ("climb",), "this climb may never end: nobody goes out (no in:), it has no "
                          "until:, and its pass is allowed only when "
                          f"`{' '.join(str(optional['when']).split())}` (so a leader who must play never lets "
                          "everyone pass)", "add in: EXPR (who is still in, e.g. count(player.hand) > 0) "
                          "or until: EXPR", key=True)

    @staticmethod
    def _always_possible(c) -> bool:
        if "cards" in c:
            return False  # the zone can run out
        where = " ".join(str(c.get("where", "true")).split()).lower()
        if where != "true":
            return False
        if "options" not in c:
            return True
        return " ".join(str(c["options"]).split()) not in ("[]", "[ ]") and not refs(c["options"]).names \
            and not refs(c["options"]).calls

    # -- decisions --------------------------------------------------------------------------------
    def filled_zones(self) -> set:
        filled = {getattr(self.game, "initial_zone", None)}
        for _, d in self.steps():
            body = d["step"].get(d["kind"] if d["kind"] != "call" else "phase")
            if d["kind"] == "gather":
                filled.add(str(body.get("to") if isinstance(body, dict) else body))
            elif isinstance(body, dict) and "to" in body:
                filled.add(str(body["to"]).rsplit(".", 1)[-1].strip())
        return filled

    def decisions(self):
        filled = None
        for n, d in self.steps():
            if d["kind"] != "choose":
                continue
            c = d["step"]["choose"]
            if not isinstance(c, dict) or c.get("optional"):
                continue
            path = d["path"] + ("choose",)
            if "options" in c and " ".join(str(c["options"]).split()) in ("[]", "[ ]"):
                self.warn(path + ("options",), f"decision {d['action']!r} never has an option: options is empty",
                          "give it options, or add optional: true")
            elif "where" in c and str(c["where"]).strip().lower() == "false":
                self.warn(path + ("where",), f"decision {d['action']!r} never has an option: where is false",
                          "write the condition an option must meet, or add optional: true")
            elif "cards" in c:
                if filled is None:
                    filled = self.filled_zones()
                zone = str(c["cards"]).rsplit(".", 1)[-1].strip()
                if zone not in filled:
                    self.warn(path + ("cards",), f"decision {d['action']!r} may never have an option: no step "
                              f"ever puts cards into {zone}",
                              f"move or deal cards into {zone}, or add optional: true")

    # -- options and variables ------------------------------------------------------------------
    def options(self):
        used = set(getattr(self.names, "used_options", set()))
        presets = self.spec.get("presets") or {}
        for name in self.spec.get("options") or {}:
            if name in used:
                continue
            in_presets = [p for p, vals in presets.items() if isinstance(vals, dict) and name in vals]
            extra = f" (presets {', '.join(in_presets)} set it, but setting is not using)" if in_presets else ""
            self.warn(("options", name), f"option {name!r} is never used: no expression reads options.{name}{extra}",
                      "read it in a step, a define or a card's when:, or remove it", key=True)

    def variables(self):
        read = set(getattr(self.names, "read_vars", set()))
        display = self.spec.get("display") or {}
        columns = display.get("player_columns")
        pvars = self.spec.get("player_variables") or {}
        if columns:
            read |= {"player." + c for c in columns if isinstance(c, str)}  # {title: expr} reads via the compiler
        elif any(isinstance(d["step"].get("log"), dict) and d["step"]["log"].get("table")
                 for _, d in self.steps() if d["kind"] == "log"):
            read |= {"player." + c for c in pvars}  # the score table shows every player variable
        written: dict = {}
        for n, d in self.steps():
            body = d["step"].get(d["kind"])
            if d["kind"] in SET_LIKE and isinstance(body, dict):
                for t in body:
                    key = self.target_key(t)
                    written.setdefault(key, d["line"])
        for section, prefix, rkey in (("variables", "var:", ""), ("player_variables", "pvar:", "player.")):
            label = "variable" if prefix == "var:" else "player variable"
            for name in self.spec.get(section) or {}:
                if rkey + name in read:
                    continue
                shown = name if prefix == "var:" else f"p.{name}"
                line = written.get(prefix + name)
                if line is not None:
                    self.warn((section, name), f"{label} {name!r} is written (line {line}) but never read",
                              f"read it in an expression ({shown})" + (
                                  ", show it in display.player_columns" if prefix == "pvar:" else "")
                              + ", or remove it", key=True)
                else:
                    self.warn((section, name), f"{label} {name!r} is declared but never used",
                              "remove it, or use it", key=True)

