"""The step tree under a rule-flow graph (:mod:`interpreter.analysis.graph`): its fixed nodes
(start, game over), the category of each kind of step, walks of the tree (``G.graph["blocks"]``),
and the control-flow edges drawn from it (:func:`connect`).
"""
from __future__ import annotations


LOOP_KINDS = ("for", "repeat", "while")
CATEGORY = {"phase": "call", "for": "loop", "repeat": "loop", "while": "loop", "if": "branch",
            "choose": "decision", "shuffle": "chance", "deal": "chance", "random": "chance", "set": "effect",
            "add": "effect", "move": "effect", "gather": "effect", "log": "effect", "end": "end",
            "show": "effect", "assert": "effect", "realtime": "realtime", "climb": "climb"}
SET_LIKE = ("set", "add", "random")  # steps whose body maps targets to expressions
GAME_OVER = "game-over"
START = "flow"


# -- edges --------------------------------------------------------------------------------------
def children(G, nid, role="do") -> list:
    """The ordered child steps of ``nid`` in block ``role`` (do, then, else)."""
    return G.graph["blocks"].get((nid, role), [])


def roots(G) -> list:
    """The start node and the phase entry nodes, in spec order."""
    return [n for n, d in G.nodes(data=True) if d["kind"] in ("start", "phase")]


def descendants_in_tree(G, nid) -> list:
    """Every step under ``nid`` in the step tree (not following phase calls), depth first."""
    out = []
    for role in ("do", "then", "else"):
        for c in children(G, nid, role):
            out.append(c)
            out.extend(descendants_in_tree(G, c))
    return out


def calls_phase(G, nid, _memo=None) -> bool:
    """True when ``nid`` is a phase call or contains one."""
    if G.nodes[nid]["kind"] == "call":
        return True
    return any(G.nodes[c]["kind"] == "call" for c in descendants_in_tree(G, nid))


def connect(G) -> None:
    """Add the control-flow edges of every program, from the step tree in ``G.graph["blocks"]``."""
    for root in roots(G):
        entry, exits = _seq(G, children(G, root))
        if entry is not None:
            G.add_edge(root, entry, kind="seq", label="")
        if G.nodes[root]["kind"] == "start":
            _link(G, exits if entry is not None else [(root, "seq", "", None)], GAME_OVER)


def _link(G, exits, target):
    for src, kind, label, branch in exits:
        attrs = {"kind": kind, "label": label}
        if branch:
            attrs["branch"] = branch
        G.add_edge(src, target, **attrs)


def _seq(G, ids):
    entry, pending = None, []
    for nid in ids:
        if entry is None:
            entry = nid
        else:
            _link(G, pending, nid)
        pending = _item(G, nid)
    return entry, pending


def _item(G, nid):
    d = G.nodes[nid]
    kind = d["kind"]
    if kind in LOOP_KINDS or (kind == "group" and d.get("loop")):
        entry, exits = _seq(G, children(G, nid))
        if entry is not None:
            label = {"for": f"each {d.get('var')}", "repeat": "each time", "while": "while true"}.get(kind, "")
            G.add_edge(nid, entry, kind="body", label=label)
            _link(G, [(s, "back", "again" if kind != "while" else "check again", None) for s, *_ in exits],
                  nid)
        return [(nid, "exit", "done", None)]
    if kind == "if":
        t_entry, t_exits = _seq(G, children(G, nid, "then"))
        e_entry, e_exits = _seq(G, children(G, nid, "else"))
        exits = []
        cond = d.get("condition", "")
        if t_entry is not None:
            G.add_edge(nid, t_entry, kind="branch", label=cond, branch="then")
            exits += t_exits
        else:
            exits.append((nid, "branch", cond, "then"))
        if e_entry is not None:
            G.add_edge(nid, e_entry, kind="branch", label="else", branch="else")
            exits += e_exits
        else:
            exits.append((nid, "branch", "else", "else"))
        return exits
    if kind == "realtime":  # the actions are alternatives: each leads back for the next action
        for alt in children(G, nid):
            G.add_edge(nid, alt, kind="branch", label="any player, any time", branch="action")
            _link(G, [(s, "back", "next action", None) for s, *_ in _item(G, alt)], nid)
        until = d.get("until")
        return [(nid, "exit", f"until {until}" if until else "nobody can act", None)]
    if kind == "climb":  # a turn after another, and the pile clearing: each leads back to the next turn
        for t in children(G, nid):
            G.add_edge(nid, t, kind="body", label="next player still in")
            _link(G, [(s, "back", "next turn", None) for s, *_ in _item(G, t)], nid)
        entry, exits = _seq(G, children(G, nid, "then"))
        if entry is not None:
            G.add_edge(nid, entry, kind="branch", label="all the others passed", branch="clear")
            _link(G, [(s, "back", "new lead", None) for s, *_ in exits], nid)
        until = d.get("until")
        return [(nid, "exit", (f"{until}, or " if until else "") + "fewer than 2 in", None)]
    if kind == "choose":
        entry, exits = _seq(G, children(G, nid, "then"))
        if entry is not None:
            G.add_edge(nid, entry, kind="then", label="each chooser" if d.get("simultaneous") else "")
            return exits
        return [(nid, "seq", "", None)]
    if kind == "call":
        target = "phases/" + d["phase"]
        if target in G:
            G.add_edge(nid, target, kind="call", label="")
        return [(nid, "seq", "", None)]
    if kind == "end" or (kind == "group" and d.get("ends")):
        G.add_edge(nid, GAME_OVER, kind="end", label="")
        return []
    return [(nid, "seq", "", None)]


def _phase_parents(G) -> None:
    """``parent_phase`` of each phase: the phase that calls it when it is called from exactly one
    other phase (a sub-phase, drawn nested), else None; ``callers``: how many call sites it has."""
    for n, d in G.nodes(data=True):
        if d["kind"] == "phase":
            sites = [p for p in G.predecessors(n) if G.edges[p, n]["kind"] == "call"]
            progs = {G.nodes[p]["cluster"] for p in sites}
            d["callers"] = len(sites)
            parent = next(iter(progs)) if len(progs) == 1 else None
            d["parent_phase"] = parent if parent not in (None, "flow", d["label"]) else None
