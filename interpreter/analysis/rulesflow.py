"""The flow of the game in the rules document: the set-up and every phase as numbered prose
(one sentence a step), and what each decision allows.

Part of the rules document: :class:`FlowProseMixin` is mixed into
:class:`~interpreter.analysis.rulesdoc._Doc`.
"""
from __future__ import annotations

from .refs import closure, refs
from .rulestext import _anchor, _code, _join, _md
from .steptext import clean, optional_text, set_size
from .steptree import START, children


class FlowProseMixin:
    """The flow sections of :class:`~interpreter.analysis.rulesdoc._Doc` (``self`` is one)."""

    def flow(self):
        self.w("## How a game goes")
        self.w()
        self.block(children(self.G, START))
        self.w()
        phases = [n for n, d in self.G.nodes(data=True) if d["kind"] == "phase" and not d.get("inactive")]
        for p in phases:
            d = self.G.nodes[p]
            self.w(f"### Phase {d['label']}")
            if d.get("text") and d["text"][0] != d["label"]:  # its arguments: trick(leader)
                self.w()
                self.w(f"Arguments: `{d['text'][0]}`, given by each call.")
            self.w()
            note = self.src.note(d["path"], key=True)
            if note:
                self.w(f"*{note}*")
                self.w()
            calls = [u for u in self.G.predecessors(p) if self.G.edges[u, p]["kind"] == "call"]
            if not calls:
                self.w("*(No step enters this phase.)*")
                self.w()
            if not children(self.G, p):
                self.w("*(This phase has no steps.)*")
            self.block(children(self.G, p))
            self.w()
        self.w("When the flow above is over, the game ends.")
        self.w()

    def shown(self, ids) -> list:
        """The steps of ``ids`` that run with the options chosen: inactive steps are left out, and
        an ``if`` whose then-branch the options turn off is replaced by its else-branch."""
        out = []
        for n in ids:
            d = self.G.nodes[n]
            if d.get("inactive"):
                continue
            if d["kind"] == "if" and d.get("then_off"):
                out.extend(self.shown(children(self.G, n, "else")))
                continue
            out.append(n)
        return out

    def block(self, ids, pad=""):
        """Numbered items at indentation ``pad``; the steps inside an item are indented by the width
        of its marker (``"1. "``: 3 spaces, ``"10. "``: 4), which is where CommonMark (and GitHub)
        put the item's content: with less, the sub-steps of item 10 and up would become siblings.
        Steps the chosen options turn off are left out (see :meth:`shown`)."""
        ids = self.shown(ids)
        for i, n in enumerate(ids, 1):
            d = self.G.nodes[n]
            text = self.sentence(n, d)
            note = self.src.note(d["path"])
            extra = " ".join(x for x in (d.get("doc") or "", note) if x)
            if extra:  # the author's words lead; what the step does in the spec's terms follows
                text = f"**{_md(extra.rstrip('.'))}.** — {text}"
            marker = f"{i}. "
            self.w(f"{pad}{marker}{text}")
            inner = pad + " " * len(marker)
            kind = d["kind"]
            if kind == "if":
                self.block(children(self.G, n, "then"), inner)
                other = [] if d.get("else_off") else self.shown(children(self.G, n, "else"))
                if other:
                    self.w(f"{inner}- Otherwise:")
                    self.block(other, inner + "  ")
            elif kind == "climb":
                self.block(children(self.G, n), inner)
                clear = self.shown(children(self.G, n, "then"))
                if clear:
                    last = str((d["step"]["climb"] or {}).get("last", "last_player"))
                    self.w(f"{inner}- When all the others still in have passed (the pile clears; `{last}` "
                           f"played last, `{d.get('var')}` leads next):")
                    self.block(clear, inner + "  ")
            else:
                for role in ("do", "then"):
                    sub = children(self.G, n, role)
                    if sub:
                        self.block(sub, inner)

    def sentence(self, n, d) -> str:
        kind = d["kind"]
        step = d["step"]
        body = step.get(kind if kind != "call" else "phase")
        if kind == "call":
            args = step.get("args") if isinstance(step.get("args"), dict) else {}
            given = (" with " + ", ".join(f"`{k}` = {_code(v)}" for k, v in args.items())) if args else ""
            return f"Play the phase **{d['phase']}**{given} (see *Phase {d['phase']}* below)."
        if kind == "for":
            until = f", stopping as soon as {_code(d['until'])}" if d.get("until") else ""
            if clean(d["items"]) == "players":
                return f"For each player `{d['var']}`{until}:"
            return f"For each `{d['var']}` in {_code(d['items'])}{until}:"
        if kind == "repeat":
            count = d["count"]
            times = "once" if count == "1" else f"{_code(count)} times"
            return f"Repeat {times}" + (f" (counting with `{d['var']}`)" if d.get("var") else "") + ":"
        if kind == "while":
            return f"As long as {_code(d['condition'])}" + (f" (at most {d['max']} times)" if d.get("max") else "") + ":"
        if kind == "if":
            return f"If {_code(d['condition'])}:"
        if kind in ("set", "add", "random") and isinstance(body, dict):
            if kind == "set":
                items = [f"`{t}` to {_code(v)}" for t, v in body.items()]
                return "Set " + _join(items) + "."
            if kind == "add":
                items = [f"{_code(v)} to `{t}`" for t, v in body.items()]
                return "Add " + _join(items) + "."
            items = [f"`{t}` to an item of {_code(v)} drawn at random" for t, v in body.items()]
            return "Set " + _join(items) + "."
        if kind == "shuffle":
            return f"Shuffle `{body}`."
        if kind == "gather":
            target = body.get("to") if isinstance(body, dict) else body
            return f"Gather every card into `{target}`."
        if kind == "deal" and isinstance(body, dict):
            if body.get("count") == "all":
                text = f"Deal every card of `{body.get('from')}` to the players' `{body.get('to')}`, one at a time"
                if "start" in body:
                    text += f", starting with {_code(body['start'])}"
                return text + " (the first seats may get one more)."
            count = _code(body["count"]) if "count" in body else "as many"
            text = f"Deal {count} cards to each player's `{body.get('to')}` from `{body.get('from')}`, one at a time"
            if "start" in body:
                text += f", starting with {_code(body['start'])}"
            if "players" in body:
                text += f", to {_code(body['players'])}"
            return text + "."
        if kind == "move" and isinstance(body, dict):
            to = f"`{body.get('to')}`" + (" (at the bottom)" if body.get("at") == "bottom" else "")
            if "cards" in body:
                src = f" from `{body['from']}`" if "from" in body else ""
                return f"Move {_code(body['cards'])}{src} to {to}."
            if "count" in body:
                return f"Move {_code(body['count'])} card(s) from the top of `{body.get('from')}` to {to}."
            return f"Move every card of `{body.get('from')}` to {to}."
        if kind == "choose":
            return self.decision_sentence(d)
        if kind == "realtime":
            who = "every player" if not isinstance(body, dict) or "players" not in body \
                else f"every player in {_code(body['players'])}"
            until = (f"until {_code(body['until'])} (checked after every action), or until nobody can act"
                     if isinstance(body, dict) and "until" in body else "until nobody can act")
            return (f"**Real time — everyone plays at once:** {who} may take any of these actions at any "
                    f"moment, without waiting for a turn; the first to act gets the spot, and the others' "
                    f"options change with it. This goes on {until}:")
        if kind == "climb" and isinstance(body, dict):
            who = _code(body["players"]) if "players" in body else "every seat from 0, clockwise"
            lead = f", {_code(body['lead'])} first" if "lead" in body else ""
            name = d.get("var") or "player"
            last = str(body.get("last", "last_player"))
            out = (f" A player for whom {_code(body['in'])} no longer holds is out and skipped." if "in" in body
                   else "")
            until = f" when {_code(body['until'])}," if "until" in body else ""
            spoken = " and each of them has had a turn (everyone speaks)" if body.get("all_speak") is True else ""
            return (f"**Climbing turns — take turns until all the others pass:** players take turns in this "
                    f"order: {who}{lead} "
                    f"(the player whose turn it is is `{name}`; `{last}` is the last player who played since "
                    f"the pile last cleared, none while leading).{out} When every other player still in has "
                    f"passed since the last play, the pile clears and the last to play leads (or the next player "
                    f"still in after them, if they went out). This ends{until} when fewer than two players are "
                    f"in{spoken}, or when everyone still in passes with nothing played. Each turn:")
        if kind == "log":
            text = body.get("text", "") if isinstance(body, dict) else body
            table = isinstance(body, dict) and body.get("table")
            if isinstance(body, dict) and "visible_to" in body:
                other = f" (the others read “{_md(body['hidden_text'])}”)" if body.get("hidden_text") else ""
                return f"Tell only {_code(body['visible_to'])}: “{_md(text)}”{other}" + \
                    (" and show the score table." if table else ".")
            return f"Announce “{_md(text)}”" + (" and show the score table." if table else ".")
        if kind == "show" and isinstance(body, dict):
            return (f"Let {_code(body.get('to'))} see {_code(body.get('cards'))} (in secret, until these "
                    "cards move).")
        if kind == "assert":
            return f"The rules require {_code(body)}" + (f": “{_md(step['message'])}”." if step.get("message") else ".")
        if kind == "end":
            return "**The game ends**" + (f": “{_md(body)}”." if body else ".")
        return f"{kind}: {_md(body)}"

    def decision_sentence(self, d) -> str:
        c = d["step"]["choose"]
        who = _code(d["who"])
        if d.get("realtime"):
            text = f"**{d['action']}:** any player, whenever they can,"
            if "cards" in c:
                text += f" plays a card of `{c['cards']}`" + (f" such that {_code(c['where'])}" if "where" in c else "")
                if "to" in c:
                    text += f" to `{c['to']}`"
            elif "options" in c:
                text += f" chooses one of {_code(c['options'])}" + (
                    f" such that {_code(c['where'])}" if "where" in c else "")
            else:
                text += f" when {_code(c['where'])}" if "where" in c else ""
            if c.get("as"):
                text += f" (called `{c['as']}`)"
            return text + "." + (" Then:" if c.get("then") else "")
        if d["simultaneous"]:
            everyone = "every player" if clean(d["who"]) == "players" else f"every player in {who}"
            text = f"**Decision — {d['action']}:** {everyone} chooses at the same time, in secret"
            text += " (the choices are revealed together)"
        else:
            text = f"**Decision — {d['action']}:** {who} chooses"
        if "cards" in c and ("min" in c or "max" in c):
            text += f" a set of {set_size(c)} cards of `{c['cards']}`, building it card by card"
            if "where" in c:
                text += f" (a card may join when {_code(c['where'])})"
            if "valid" in c:
                text += f", complete when {_code(c['valid'])}"
            if "to" in c:
                text += f", and puts it in `{c['to']}`"
        elif "cards" in c:
            text += f" a card of `{c['cards']}`"
            if "where" in c:
                text += f" such that {_code(c['where'])}"
            if "to" in c:
                text += f" and plays it to `{c['to']}`"
            if "onto" in c:
                text += (f" and a set of `{c['onto']}` it can be laid off on (the set's place from 0 is "
                         f"`{c.get('at', 'at')}`), and puts the card on that set")
        else:
            text += f" one of {_code(c.get('options'))}"
            if "where" in c:
                text += f" such that {_code(c['where'])}"
        if c.get("as"):
            text += f" (called `{c['as']}`)"
        if c.get("optional"):
            text += ("; they may pass instead" if not isinstance(c["optional"], dict)
                     else f"; instead they may `{optional_text(c['optional'])}`")
        if "visible_to" in c:
            text += f"; only {_code(c['visible_to'])} (and the chooser) see what was chosen"
            if c.get("hidden_text"):
                text += f", the others read “{_md(c['hidden_text'])}”"
        text += "."
        if c.get("then"):
            text += " Then" + (", for each chooser:" if d["simultaneous"] else ":")
        return text

    def decisions(self):
        ids = [n for n, d in self.G.nodes(data=True) if d["kind"] == "choose" and not d.get("inactive")]
        if not ids:
            return
        self.w("## Decisions")
        self.w()
        self.w("Every decision is a choice from a finite list of options; these are all of them.")
        self.w()
        for n in ids:
            d = self.G.nodes[n]
            c = d["step"]["choose"]
            where = "the main flow" if d["cluster"] == "flow" else f"phase {d['cluster']}"
            self.w(f"### {d['action']} ({where}, line {d['line']})")
            self.w()
            timing = ("all at once: every chooser picks without seeing the others' choices, then they are revealed"
                      if d["simultaneous"] else "in real time: whoever acts first" if d.get("realtime")
                      else "in turn")
            self.w(f"- **Who:** {_code(d['who'])}, {timing}.")
            if "cards" in c:
                self.w(f"- **Options:** the cards of `{c['cards']}`" + (
                    f" (a card with modes is played as one of them)" if any(
                        (e or {}).get("modes") for e in self.spec.get("cards") or [] if isinstance(e, dict)) else "")
                    + ".")
            elif "options" in c:
                self.w(f"- **Options:** {_code(c.get('options'))}.")
            else:
                self.w(f"- **Options:** the action `{d['action']}` itself.")
            if "where" in c:
                self.w(f"- **Allowed when:** {_code(c['where'])}.")
            if "to" in c:
                self.w(f"- **The card goes to:** `{c['to']}`.")
            if "min" in c or "max" in c:
                self.w(f"- **A set of {set_size(c)} cards:** picked one at a time (`pick NAME`, `undo`), "
                       f"or typed whole (`{d['action']} NAME NAME ...`)" + (f"; complete when {_code(c['valid'])}"
                                                                           if "valid" in c else "") + ".")
            if c.get("optional"):
                self.w("- **May pass.**" if not isinstance(c["optional"], dict)
                       else f"- **Instead:** `{optional_text(c['optional'])}`.")
            if d.get("doc"):
                self.w(f"- {_md(d['doc'])}")
            used = sorted(closure(refs(c.get("where", "true")), self.defines).calls & self.defines.keys()) + \
                sorted(closure(refs(c.get("options", "true")), self.defines).calls & self.defines.keys())
            if used:
                self.w("- **Uses:** " + ", ".join(f"[`{u}`](#{_anchor(u)})" for u in dict.fromkeys(used)) + ".")
            if d.get("options"):
                self.w("- **Depends on the options:** " + ", ".join(f"`{o}`" for o in d["options"]) + ".")
            self.w()
