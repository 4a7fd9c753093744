"""The phase graph: a rule-flow graph (:func:`interpreter.analysis.graph.flow_graph`) condensed
to what a reader of a diagram needs first, with long runs of plain steps grouped into one node.
"""
from __future__ import annotations

import networkx as nx

from .steptext import _plural
from .steptree import GAME_OVER, LOOP_KINDS, _phase_parents, calls_phase, children, connect, descendants_in_tree, roots


# -- the phase view --------------------------------------------------------------------------
def phase_graph(G) -> nx.DiGraph:
    """The flow at the level of phases: phase calls and the loops and branches around them are
    kept; every run of other steps becomes one ``group`` node (id: its first step's id) whose
    ``text`` summarises its decisions, chance steps, branches and end."""
    H = nx.DiGraph(**{**G.graph, "blocks": {}, "detail": "phases"})
    for r in roots(G) + [GAME_OVER]:
        H.add_node(r, **G.nodes[r])

    def rebuild(parent, role):
        out, run = [], []
        for c in children(G, parent, role):
            if calls_phase(G, c):
                if run:
                    out.append(_group(G, H, run))
                    run = []
                H.add_node(c, **G.nodes[c])
                out.append(c)
                for r2 in ("do", "then", "else"):
                    if (c, r2) in G.graph["blocks"]:
                        H.graph["blocks"][(c, r2)] = rebuild(c, r2)
            else:
                run.append(c)
        if run:
            out.append(_group(G, H, run))
        return out

    for r in roots(G):
        H.graph["blocks"][(r, "do")] = rebuild(r, "do")
    connect(H)
    _phase_parents(H)
    return H


def _summarised(G, m, few) -> bool:
    """Whether step ``m`` gets its own line in the summary of a run of steps: decisions, chance,
    branches and ends do, and loops with any of those inside; every step does in a short run."""
    d = G.nodes[m]
    if few or d["kind"] in ("choose", "if", "end", "realtime", "climb") or d["category"] == "chance":
        return True
    return d["kind"] in LOOP_KINDS and any(_summarised(G, x, False) for x in descendants_in_tree(G, m))


def _group(G, H, run) -> str:
    nid = run[0]
    members = []  # (depth, id); (depth, None) marks where the else-branch of the `if` at depth begins

    def walk(m, depth):
        members.append((depth, m))
        for role in ("do", "then", "else"):
            sub = children(G, m, role)
            if role == "else" and sub:
                members.append((depth, None))
            for c in sub:
                walk(c, depth + 1)
    for m in run:
        walk(m, 0)
    steps = [(depth, m) for depth, m in members if m is not None]
    lines, others, kinds = [], 0, []
    few = len(steps) <= 3  # a short run is listed in full
    shown = {m for depth, m in steps if _summarised(G, m, few)}
    pending = None  # an else-branch entered, its "else:" line not written yet (only before a line in it)
    for depth, m in members:
        if m is None:
            pending = depth
            continue
        if pending is not None and depth <= pending:
            pending = None  # that else-branch is over and had nothing to show
        d = G.nodes[m]
        k = d["kind"]
        pad = "   " * min(depth, 3)
        if m not in shown:
            others += 1
            kinds.append(k)
            continue
        if pending is not None:
            lines.append("   " * min(pending, 3) + "else:")
            pending = None
        if k == "choose" and d.get("realtime"):
            lines.append(f"{pad}◆ {d['action']}: whoever is first")
        elif k == "choose":
            who = "all at once" if d["simultaneous"] else "in turn"
            lines.append(f"{pad}◆ {d['action']}: {d['who']} ({who})")
        elif k == "realtime":
            lines.append(f"{pad}⚡ {d['label']}")
        elif k == "climb":
            lines.append(f"{pad}↗ {d['label']}")
        elif k == "if":
            lines.append(f"{pad}? {d['label']}")
        elif k == "end":
            lines.append(f"{pad}■ end of game")
        else:
            lines.append(pad + d["text"][0])
    if others:
        lines.append(f"+ {_plural(others, 'other step')} ({', '.join(sorted(set(kinds)))})")
    first = G.nodes[nid]
    ids = [m for _, m in steps]
    opts = sorted({o for m in ids for o in G.nodes[m]["options"]})
    variant = sorted(set.intersection(*[set(G.nodes[m]["variant"]) for m in run])) if run else []
    H.add_node(nid, kind="group", category="group", label=lines[0] if lines else nid, text=lines,
               line=first["line"], column=first["column"], path=first["path"], cluster=first["cluster"],
               options=opts, variant=variant, parent=first["parent"], role=first["role"], index=first["index"],
               doc="", members=ids, ends=any(G.nodes[m]["kind"] == "end" for m in run))
    return nid
