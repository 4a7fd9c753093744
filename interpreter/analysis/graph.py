"""The rule-flow graph of a compiled game.

:func:`flow_graph` walks the step tree the engine compiled (``game.spec["flow"]`` and
``game.spec["phases"]``) and returns a ``networkx.DiGraph`` whose node ids are the same
``step_id`` strings the compiled instructions carry (``"flow/0"``, ``"phases/trick/0/do/0"``),
so a trace of a run (``{step_id: count}``) maps straight onto the nodes.

Extra nodes: ``"flow"`` (the start), ``"phases/NAME"`` (the entry of each phase) and
``"game-over"``.

Node attributes
    ``kind``      start, phase, call, for, repeat, while, if, choose, realtime, climb, shuffle, deal, gather,
                  move, set, add, log, end, game_over (and ``group`` in :func:`phase_graph`)
    ``category``  loop, branch, decision, realtime, climb, chance, effect, call, phase, end, start, group
    ``label``     one line of text; ``text`` the lines drawn in a diagram
    ``line``/``column``  where the step is in the spec (1-based; 0 for ``game-over``)
    ``cluster``   the phase the step belongs to (``"flow"`` for the top level)
    ``options``   the options the step depends on (read by its expressions, directly or
                  through ``define`` entries, or by the ``when:`` of a card it names)
    ``variant``   the options guarding it (it only runs in some variants): the options read by
                  the conjuncts of an enclosing ``if`` that read nothing but options (and the
                  player count), and those of every call site of its phase; a guard on the player
                  count alone is named by its text (``ghost_game``) or ``player count``
    ``inactive``  True when the options the game was compiled with turn the step off (an
                  enclosing option-only guard is false, or every call of its phase is inactive);
                  ``rulebook doc`` leaves such steps out
    ``parent``/``role``/``index``  its place in the step tree (``role`` is do, then or else)
    loops: ``count`` (repeat), ``condition`` (while), ``var``/``items`` (for), ``max`` (while)
    ``if``: ``condition``, ``then_off``/``else_off`` (that branch cannot run with these options);
    ``choose``: ``action``, ``who``, ``simultaneous``, ``choices``,
    ``optional`` (and ``realtime`` for an action of a realtime block); ``realtime``: ``until``,
    ``who`` (its actions are its ``do`` children, alternatives: a ``branch`` edge to each, a
    ``back`` edge from the end of each); ``climb``: ``who``, ``in``, ``until``, ``all_speak`` (its turn, a
    choose with ``climb_turn``, is its ``do`` child, its ``clear`` steps its ``then`` children;
    a ``body`` edge to the turn and a ``branch`` edge to the clear steps, each leading back);
    ``call``: ``phase``

Edge attributes: ``kind`` (seq, body, back, exit, branch, then, call, end), ``label``, and for
branches ``branch`` (then or else). Back edges (``kind == "back"``) close loops; without
them the graph is acyclic unless phases call each other in a cycle.

The step tree itself is kept in ``G.graph["blocks"]``: ``{(parent id, role): [child ids]}``.
"""
from __future__ import annotations

from pathlib import Path

import networkx as nx

from ..expr.compiler import Compiler, ExprSyntaxError, parse
from .phasegraph import phase_graph
from .refs import Refs, closure, define_refs, refs, template_refs, tree_refs
from .steptext import (MELD_BUILTINS, _count_text, card_options, clean, comment_above, meld_text, optional_text,
                       set_size, step_kind)
from .steptree import (CATEGORY, GAME_OVER, LOOP_KINDS, SET_LIKE, START, _phase_parents, calls_phase, children, connect,
                       descendants_in_tree, roots)

# re-exported: the analyses, the web table and tests import these from here
__all__ = ["CATEGORY", "GAME_OVER", "LOOP_KINDS", "SET_LIKE", "START", "calls_phase", "card_options", "children",
           "clean", "comment_above", "connect", "descendants_in_tree", "flow_graph", "meld_text", "optional_text",
           "phase_graph", "roots", "set_size", "step_kind"]


class _Builder:
    def __init__(self, game, G):
        self.game = game
        self.G = G
        self.spec = game.spec
        self.defines = define_refs(self.spec)
        self.blocks = G.graph["blocks"]
        names = getattr(game, "names", None)
        self.hidden_zones = {z for z, zd in (getattr(game, "zones", None) or {}).items()
                             if getattr(zd, "visibility", "") == "hidden"}
        self.player_zones = set(getattr(names, "player_zones", ()) or ())
        self.team_zones = {z for z, zd in (getattr(game, "zones", None) or {}).items() if getattr(zd, "team", False)}
        self.card_options = card_options(self.spec)
        self.options = dict(getattr(game, "options", None) or {})
        try:
            self.source = Path(game.file).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError, TypeError):
            self.source = []

    def guard(self, text):
        """``(labels, then_off, else_off)`` of an ``if`` condition. Its top-level ``and`` conjuncts
        that read only options and the player count (directly or through ``define`` entries)
        guard the branch: ``labels`` names them (the options read; for a player-count test, its
        define's name or ``player count``). ``then_off``: an option-only conjunct is false with
        the game's options; ``else_off``: the whole condition is option-only and true."""
        try:
            tree = parse(text)
        except ExprSyntaxError:
            return set(), False, False
        conjuncts, todo = [], [tree]
        while todo:
            t = todo.pop()
            if getattr(t, "data", None) == "and_":
                todo.extend(reversed(t.children))
            else:
                conjuncts.append(t)
        labels, then_off, all_true = set(), False, True
        for c in conjuncts:
            r = tree_refs(c)
            full = closure(r, self.defines)
            # a test of the game's state (p.score, q.hand) is no guard, even when it names players
            if (full.names - set(self.defines)) - {"num_players", "players"} or full.attrs:
                all_true = False
                continue
            if full.options and not (full.names - set(self.defines)) & {"num_players", "players"}:
                labels |= full.options
                value = self.evaluate(c)
                if value is None:
                    all_true = False
                elif not value:
                    then_off = True
            else:
                all_true = False
                if full.options:
                    labels |= full.options
                elif getattr(c, "data", None) == "name":
                    labels.add(str(c.children[0]))
                else:
                    labels.add("player count")
        return labels, then_off, (all_true and not then_off)

    def evaluate(self, tree):
        """The truth of an option-only expression with the game's options, or None when it cannot be
        evaluated here."""
        names = getattr(self.game, "names", None)
        if names is None:
            return None
        try:
            fn = Compiler(names).compile(tree)
            return bool(fn(_OptionsOnly(self.game)))
        except Exception:  # noqa: BLE001 - an analysis never fails on what it cannot evaluate
            return None

    def pos(self, path):
        p = self.game.position(path)
        return p.line, p.column

    def add_root(self, nid, kind, label, path, cluster, text=None, key_pos=False):
        p = self.game.position(path)
        line, col = ((p.key_line, p.key_column) if key_pos and p.key_line else (p.line, p.column))
        self.G.add_node(nid, kind=kind, category=kind, label=label, text=text or [label], line=line, column=col,
                        path=path, cluster=cluster, options=[], variant=[], parent=None, role=None, index=0,
                        doc="")

    def program(self, steps, path, root, cluster):
        self.block(steps, path, root, "do", cluster, [])

    def block(self, steps, path, parent, role, cluster, variant):
        ids = []
        if isinstance(steps, list):
            for i, step in enumerate(steps):
                nid = self.step(step, path + (i,), parent, role, i, cluster, variant)
                if nid is not None:
                    ids.append(nid)
        self.blocks[(parent, role)] = ids

    # -- one step ----------------------------------------------------------------------------
    def step(self, step, path, parent, role, index, cluster, variant):
        kind = step_kind(step)
        if kind is None:
            return None
        nid = "/".join(str(p) for p in path)
        line, col = self.pos(path)
        r = self.own_refs(kind, step)
        full = closure(r, self.defines)
        opts = set(full.options)
        for name in (full.names | full.attrs | full.strings):
            opts |= self.card_options.get(name, set())
        attrs = dict(kind=kind, category=CATEGORY.get(kind, "effect"), line=line, column=col, path=path, cluster=cluster,
                     options=sorted(opts), variant=sorted(set(variant)), parent=parent, role=role, index=index,
                     doc=clean(step.get("doc")) if step.get("doc") else "", step=step,
                     note=comment_above(self.source, line))
        getattr(self, "s_" + kind, self.s_other)(nid, step, path, attrs, cluster, variant)
        return nid

    def own_refs(self, kind, step) -> Refs:
        body = step[kind]
        out = Refs()
        if kind in ("for",):
            out.update(refs(step.get("in", "[]")))
        elif kind in ("repeat", "while", "if"):
            out.update(refs(body))
        elif kind in SET_LIKE and isinstance(body, dict):
            for t, v in body.items():
                out.update(refs(str(t)))
                out.update(refs(v))
        elif kind in ("shuffle", "gather"):
            target = body.get("to") if isinstance(body, dict) else body
            out.update(refs(str(target)))
        elif kind in ("realtime", "climb") and isinstance(body, dict):  # its actions are steps of their own
            for k in ("players", "until", "lead", "in"):
                if k in body:
                    out.update(refs(body[k]))
        elif kind in ("move", "deal", "choose") and isinstance(body, dict):
            for k, v in body.items():
                if k not in ("then", "action", "label", "as", "by", "optional", "at", "hidden_text") \
                        and not isinstance(v, (dict, list)):
                    out.update(refs(v))
            if kind == "choose" and "hidden_text" in body:
                out.update(template_refs(body["hidden_text"]))
        elif kind in ("log", "end"):
            text = body.get("text", "") if isinstance(body, dict) else body
            out.update(template_refs(text))
            if kind == "log" and isinstance(body, dict):
                out.update(template_refs(body.get("hidden_text", "")))
                if "visible_to" in body:
                    out.update(refs(body["visible_to"]))
        elif kind == "show" and isinstance(body, dict):
            for k in ("cards", "to"):
                if k in body:
                    out.update(refs(body[k]))
        elif isinstance(body, dict):  # a kind of step this module does not know yet
            for v in body.values():
                if not isinstance(v, (dict, list)):
                    out.update(refs(v))
        elif not isinstance(body, list):
            out.update(refs(body))
        return out

    def add(self, nid, attrs, label, text):
        self.G.add_node(nid, label=label, text=text, **attrs)

    def s_phase(self, nid, step, path, attrs, cluster, variant):
        name = str(step["phase"])
        attrs["kind"] = "call"
        args = step.get("args") if isinstance(step.get("args"), dict) else {}
        shown = name + ("(" + ", ".join(f"{k} = {clean(v)}" for k, v in args.items()) + ")" if args else "")
        self.add(nid, attrs, f"phase {shown}", [f"▶ {shown}"])
        self.G.nodes[nid]["phase"] = name

    def s_for(self, nid, step, path, attrs, cluster, variant):
        var, items = str(step["for"]), clean(step.get("in"))
        label = f"for {var} in {items}"
        until = clean(step["until"]) if "until" in step else None
        if until is not None:
            label += f" until {until}"
        self.add(nid, attrs, label, ["↻ " + label])
        self.G.nodes[nid].update(var=var, items=items, until=until)
        self.block(step.get("do"), path + ("do",), nid, "do", cluster, variant)

    def s_repeat(self, nid, step, path, attrs, cluster, variant):
        count = clean(step["repeat"])
        label = "repeat " + _count_text(step["repeat"])
        if step.get("as"):
            label += f" (as {step['as']})"
        self.add(nid, attrs, label, ["↻ " + label])
        self.G.nodes[nid].update(count=count, var=step.get("as"))
        self.block(step.get("do"), path + ("do",), nid, "do", cluster, variant)

    def s_while(self, nid, step, path, attrs, cluster, variant):
        cond = clean(step["while"])
        label = f"while {cond}"
        text = ["↻ " + label] + ([f"(at most {step['max']} times)"] if step.get("max") else [])
        self.add(nid, attrs, label, text)
        self.G.nodes[nid].update(condition=cond, max=step.get("max"))
        self.block(step.get("do"), path + ("do",), nid, "do", cluster, variant)

    def s_if(self, nid, step, path, attrs, cluster, variant):
        cond = clean(step["if"])
        self.add(nid, attrs, f"if {cond}", [f"if {cond}"])
        self.G.nodes[nid]["condition"] = cond
        guard, then_off, else_off = self.guard(step["if"])  # the option-only part: a variant
        self.G.nodes[nid].update(then_off=then_off, else_off=else_off)
        inner = variant + sorted(set(guard) - set(variant))
        self.block(step.get("then"), path + ("then",), nid, "then", cluster, inner)
        if "else" in step:
            self.block(step.get("else"), path + ("else",), nid, "else", cluster, inner)

    def s_set(self, nid, step, path, attrs, cluster, variant, add=False):
        body = step["add" if add else "set"]
        lines = []
        if isinstance(body, dict):
            for t, v in body.items():
                lines.append(f"add {clean(v)} to {t}" if add else f"{t} = {clean(v)}")
        label = "; ".join(lines)
        self.add(nid, attrs, label, [("" if add else "set ") + x for x in lines])

    def s_add(self, nid, step, path, attrs, cluster, variant):
        self.s_set(nid, step, path, attrs, cluster, variant, add=True)

    def s_random(self, nid, step, path, attrs, cluster, variant):
        body = step["random"]
        lines = [f"{t} = a random one of {clean(v)}" for t, v in body.items()] if isinstance(body, dict) else []
        self.add(nid, attrs, "; ".join(lines), ["⚄ " + x for x in lines] or ["⚄ random"])

    def s_other(self, nid, step, path, attrs, cluster, variant):
        kind = attrs["kind"]
        body = step[kind]
        if isinstance(body, dict):
            text = ", ".join(f"{k}: {clean(v)}" for k, v in body.items() if not isinstance(v, (dict, list)))
        else:
            text = clean(body)
        label = f"{kind} {text}".strip()
        self.add(nid, attrs, label, [label])
        for role in ("do", "then", "else"):
            if isinstance(step.get(role), list):
                self.block(step[role], path + (role,), nid, role, cluster, variant)
            elif isinstance(body, dict) and isinstance(body.get(role), list):
                self.block(body[role], path + (kind, role), nid, role, cluster, variant)

    def s_shuffle(self, nid, step, path, attrs, cluster, variant):
        label = f"shuffle {step['shuffle']}"
        self.add(nid, attrs, label, ["⚄ " + label])

    def s_gather(self, nid, step, path, attrs, cluster, variant):
        body = step["gather"]
        target = body.get("to") if isinstance(body, dict) else body
        label = f"gather every card into {target}"
        self.add(nid, attrs, label, [label])

    def s_deal(self, nid, step, path, attrs, cluster, variant):
        d = step["deal"] if isinstance(step["deal"], dict) else {}
        if d.get("count") == "all":
            label = f"deal out all: {d.get('from')} → {d.get('to')}"
        else:
            count = clean(d["count"]) if "count" in d else "evenly"
            label = f"deal {count} each: {d.get('from')} → {d.get('to')}"
        text = ["⚄ " + label]
        if "start" in d:
            text.append(f"one at a time from {clean(d['start'])}")
        if "players" in d:
            text.append(f"to {clean(d['players'])}")
        self.add(nid, attrs, label, text)

    def s_move(self, nid, step, path, attrs, cluster, variant):
        m = step["move"] if isinstance(step["move"], dict) else {}
        to = m.get("to")
        if "cards" in m:
            src = f" from {m['from']}" if "from" in m else ""
            label = f"move {clean(m['cards'])}{src} → {to}"
        elif "count" in m:
            label = f"move {clean(m['count'])} from {m.get('from')} → {to}"
        else:
            label = f"move all of {m.get('from')} → {to}"
        if m.get("at") == "bottom":
            label += " (bottom)"
        if str(to).split("[")[0].split(".")[-1] in self.team_zones:  # a zone per team: the mover's team's
            label += " (the team's)"
        src_zone = str(m.get("from", "")).split(".")[-1]
        if src_zone in self.hidden_zones:  # drawing from a hidden pile reveals a random card
            attrs["category"] = "chance"
            self.add(nid, attrs, label, ["⚄ " + label])
        else:
            self.add(nid, attrs, label, [label])

    def s_log(self, nid, step, path, attrs, cluster, variant):
        body = step["log"]
        text = body.get("text", "") if isinstance(body, dict) else body
        table = isinstance(body, dict) and body.get("table")
        label = f"“{clean(text)}”"
        private = []
        if isinstance(body, dict) and "visible_to" in body:
            label += f" (only to {clean(body['visible_to'])})"
            private = [f"private: only to {clean(body['visible_to'])}"]
            if body.get("hidden_text"):
                private.append(f"others: “{clean(body['hidden_text'])}”")
        self.add(nid, attrs, f"“{clean(text)}”" if not private else label,
                 [f"“{clean(text)}”"] + private + (["+ score table"] if table else []))
        self.G.nodes[nid]["visible_to"] = clean(body["visible_to"]) if private else None

    def s_show(self, nid, step, path, attrs, cluster, variant):
        body = step["show"] if isinstance(step["show"], dict) else {}
        label = f"show {clean(body.get('cards'))} to {clean(body.get('to'))}"
        self.add(nid, attrs, label, ["◉ " + label, "(until the cards move)"])

    def s_end(self, nid, step, path, attrs, cluster, variant):
        text = clean(step["end"]) if step.get("end") else ""
        label = "END" + (f": “{text}”" if text else "")
        self.add(nid, attrs, label, ["■ END OF GAME"] + ([f"“{text}”"] if text else []))

    def s_assert(self, nid, step, path, attrs, cluster, variant):
        label = f"the rules require {clean(step['assert'])}"
        self.add(nid, attrs, label, ["✔ " + label] + ([f"“{clean(step['message'])}”"] if step.get("message") else []))

    def s_realtime(self, nid, step, path, attrs, cluster, variant):
        r = step["realtime"] if isinstance(step["realtime"], dict) else {}
        until = clean(r["until"]) if "until" in r else None
        who = clean(r["players"]) if "players" in r else "players"
        label = str(r.get("label") or "everyone plays at once") + (f" until {until}" if until else "")
        text = ["⚡ REAL TIME: " + str(r.get("label") or "everyone plays at once"),
                f"any of {who}, first come first served",
                (f"until {until}" if until else "until") + (" (or nobody can act)" if until else " nobody can act")]
        self.add(nid, attrs, label, text)
        self.G.nodes[nid].update(until=until, who=who)
        actions = r.get("actions") if isinstance(r.get("actions"), list) else []
        ids = []
        for i, a in enumerate(actions):
            if step_kind(a) != "choose":
                continue
            aid = self.step(a, path + ("realtime", "actions", i), nid, "do", i, cluster, variant)
            if aid is not None:
                self.G.nodes[aid]["realtime"] = True
                ids.append(aid)
        self.blocks[(nid, "do")] = ids

    def s_climb(self, nid, step, path, attrs, cluster, variant):
        r = step["climb"] if isinstance(step["climb"], dict) else {}
        who = clean(r["players"]) if "players" in r else "players"
        name = str(r.get("as", "player"))
        inside = clean(r["in"]) if "in" in r else None
        until = clean(r["until"]) if "until" in r else None
        title = str(r.get("label") or "take turns until all the others pass")
        if r.get("doc") and not attrs["doc"]:
            attrs["doc"] = clean(r["doc"])
        text = ["↗ CLIMB: " + title, f"{name}: each of {who} in turn" + (f", from {clean(r['lead'])}" if "lead" in r else ""),
                f"in while {inside}" if inside else "nobody goes out",
                "pile clears when all the others pass; last to play leads",
                "ends " + (f"when {until}, or " if until else "") + "when fewer than 2 are in"
                + (", each having had a turn" if r.get("all_speak") is True else "")]
        self.add(nid, attrs, title + (f" while {inside}" if inside else ""), text)
        self.G.nodes[nid].update(who=who, until=until, var=name, all_speak=r.get("all_speak") is True,
                                 **{"in": inside})
        turn = r.get("turn")
        tp = path + ("climb", "turn")
        if isinstance(turn, dict):
            c = {**turn, "player": name}
            tid = self.step({"choose": c}, tp, nid, "do", 0, cluster, variant)
            if tid is not None:
                self.G.nodes[tid]["climb_turn"] = True
            self.blocks[(nid, "do")] = [tid] if tid is not None else []
        self.block(r.get("clear"), path + ("climb", "clear"), nid, "then", cluster, variant)

    def choice_refs(self, c: dict) -> Refs:
        """What a choice's expressions (where, valid, options, cards) read, directly or through
        definitions."""
        found = Refs()
        for key in ("where", "valid", "options", "cards"):
            if key in c:
                found.update(closure(refs(c[key]), self.defines))
        return found

    def derived_read(self, c: dict) -> dict:
        """The derived card attributes (``derived:`` name -> expression) a choice's expressions
        read, directly or through definitions."""
        decl = self.game.spec.get("derived") or {}
        if not decl:
            return {}
        found = self.choice_refs(c)
        return {str(k): v for k, v in decl.items() if str(k) in found.attrs}

    def meld_kinds(self, c: dict) -> dict:
        """The meld kinds (name -> declaration) a choice's expressions test through the meld
        built-ins, directly or through definitions: all of them unless a kind is named."""
        decl = self.game.spec.get("melds") or {}
        if not decl:
            return {}
        found = self.choice_refs(c)
        if not found.calls & MELD_BUILTINS:
            return {}
        named = {k: d for k, d in decl.items() if k in found.strings and isinstance(d, dict)}
        return named or {k: d for k, d in decl.items() if isinstance(d, dict)}

    def s_choose(self, nid, step, path, attrs, cluster, variant):
        c = step["choose"] if isinstance(step["choose"], dict) else {}
        action = str(c.get("label") or c.get("action", "choose"))
        simultaneous = "players" in c
        realtime = "player" not in c and not simultaneous  # an action of a realtime block
        who = "any player" if realtime else clean(c.get("players") if simultaneous else c.get("player"))
        who_text = ("whoever is first, at any moment" if realtime
                    else f"{who}, all at once (hidden until everyone chose)" if simultaneous
                    else f"{who}, in turn")
        if "cards" not in c and "options" not in c:
            choices = "no value" + (f", when {clean(c['where'])}" if "where" in c else "")
            label = f"{action}: {who_text}"
            self.add(nid, attrs, label, [f"◆ {action.upper()}" if realtime else f"◆ DECISION: {action}",
                                         "by " + who_text, choices])
            self.G.nodes[nid].update(action=action, who=who, simultaneous=False, choices=choices, optional=False)
            self.block(c.get("then"), path + ("choose", "then"), nid, "then", cluster, variant)
            return
        if "cards" in c and ("min" in c or "max" in c):  # a set choice: several cards at once
            choices = f"a set of {set_size(c)} cards of {c['cards']}"
            if "where" in c:
                choices += f", each card where {clean(c['where'])}"
            if "valid" in c:
                choices += f", the set where {clean(c['valid'])}"
            if "to" in c:
                choices += f" → {c['to']}"
        elif "cards" in c:
            choices = f"a card of {c['cards']}"
            if "onto" in c:  # a card and the set it is laid off on
                choices += f" and a set {c.get('at', 'at')} of {c['onto']} it lays off on"
            if "where" in c:
                choices += f" where {clean(c['where'])}"
            if "to" in c:
                choices += f" → {c['to']}"
            if "onto" in c:
                choices += f" → {c['onto']}[{c.get('at', 'at')}]"
            whens = [e["mode_when"] for e in self.spec.get("cards") or [] if isinstance(e, dict) and "mode_when" in e]
            if whens and "onto" not in c:  # mode_when: a mode may be declared only while it holds
                choices += "; a mode declared only while " + " / ".join(clean(w) for w in whens)
        else:
            choices = f"one of {clean(c.get('options'))}"
            if "where" in c:
                choices += f" where {clean(c['where'])}"
        if c.get("optional"):
            choices += ", or " + optional_text(c["optional"])
        label = f"{action}: {who_text}"
        text = [f"◆ {action.upper()}" if realtime else f"◆ DECISION: {action}", "by " + who_text, choices]
        visible_to = clean(c["visible_to"]) if "visible_to" in c else None
        if visible_to is not None:
            label += f" (seen only by {visible_to})"
            text.append(f"private: seen only by {visible_to}")
        derived = self.derived_read(c)
        if derived:
            text.append("derived: " + "; ".join(f"c.{k} = {clean(v)}" for k, v in derived.items()))
        kinds = self.meld_kinds(c)
        if kinds:
            text.append("melds: " + "; ".join(f"{k} = {meld_text(d)}" for k, d in kinds.items()).replace("`", ""))
        self.add(nid, attrs, label, text)
        self.G.nodes[nid].update(action=action, who=who, simultaneous=simultaneous, choices=choices,
                                 optional=bool(c.get("optional")), visible_to=visible_to)
        # a climb's turn is the choose mapping itself: its then steps are at path + (then,)
        then_path = path + ("then",) if path[-2:] == ("climb", "turn") else path + ("choose", "then")
        self.block(c.get("then"), then_path, nid, "then", cluster, variant)


class _OptionsOnly:
    """The context an option-only guard is evaluated in: the options, nothing of a State."""

    def __init__(self, game):
        self.options = game.options
        self.game = game
        self.state = None
        self.bound = {}
        self.locals = {}
        self.memo = None
        self.hoisted = None
        self.work = 0


# -- the graph --------------------------------------------------------------------------------
def flow_graph(game) -> nx.DiGraph:
    """The rule-flow graph of ``game`` (a compiled :class:`~interpreter.engine.game.Game`)."""
    spec = game.spec
    G = nx.DiGraph(name=game.name, file=game.file, blocks={}, detail="steps")
    b = _Builder(game, G)
    b.add_root(START, "start", "start", ("flow",), "flow", text=["start"], key_pos=True)
    b.program(spec.get("flow") or [], ("flow",), START, "flow")
    turns = spec.get("turns") if isinstance(spec.get("turns"), dict) else {}
    for name, steps in (spec.get("phases") or {}).items():
        bare = str(name).split("(", 1)[0].strip()  # trick(leader): the phase trick, argument leader
        nid = f"phases/{bare}"
        turn = bare == turns.get("phase")  # turns: {phase: NAME}: each run of it is a turn (moved_this_turn)
        b.add_root(nid, "phase", bare, ("phases", name), bare, key_pos=True,
                   text=[str(name).strip()] + (["one turn: moved_this_turn() counts from its start"] if turn else []))
        G.nodes[nid]["turn"] = turn
        b.program(steps or [], ("phases", name), nid, bare)
    rule = "lowest" if spec.get("winner") == "lowest" else "highest"
    G.add_node(GAME_OVER, kind="game_over", category="end", label="game over",
               text=["game over", f"{rule} score wins"], line=0, column=0, path=(), cluster="flow",
               options=[], variant=[], parent=None, role=None, index=0, doc="")
    connect(G)
    _phase_parents(G)
    _variants_and_inactive(G)
    return G


def _variants_and_inactive(G) -> None:
    """Mark ``inactive`` steps (in a branch the options turn off) and pass guards on to called
    phases: a phase whose every call site is guarded by an option gets that variant, and one whose
    every call site is inactive is inactive (``inactive`` on its phase node too)."""
    def walk(nid, off, extra):
        d = G.nodes[nid]
        for role in ("do", "then", "else"):
            child_off = off or (d["kind"] == "if" and bool(d.get(f"{role}_off")))
            for c in children(G, nid, role):
                cd = G.nodes[c]
                cd["inactive"] = child_off
                if extra:
                    cd["variant"] = sorted(set(cd["variant"]) | extra)
                walk(c, child_off, extra)

    G.nodes[START]["inactive"] = False
    walk(START, False, set())
    phases = [n for n, d in G.nodes(data=True) if d["kind"] == "phase"]
    done = set()
    for _ in range(len(phases) + 1):  # callers first: phases may call phases
        progress = False
        for p in phases:
            if p in done:
                continue
            sites = [u for u in G.predecessors(p) if G.edges[u, p]["kind"] == "call"]
            if any("inactive" not in G.nodes[u] for u in sites):
                continue  # a caller not marked yet
            off = bool(sites) and all(G.nodes[u]["inactive"] for u in sites)
            inherited = set.intersection(*[set(G.nodes[u]["variant"]) for u in sites]) if sites else set()
            G.nodes[p]["inactive"] = off
            G.nodes[p]["variant"] = sorted(inherited)
            walk(p, off, inherited)
            done.add(p)
            progress = True
        if not progress:
            break
    for p in phases:  # phases only reached through a cycle of calls
        if p not in done:
            G.nodes[p]["inactive"] = False
            walk(p, False, set())

