"""Cycles in the spec's call graphs: ``define`` entries that call themselves, and phases that call
themselves again with no decision in between (recursion that would pile up frames for ever).

Part of the spec compiler: :class:`RecursionCheckMixin` is mixed into
:class:`~interpreter.spec.compile.SpecCompiler`.
"""
from __future__ import annotations

from ..engine import program as P


def _has_cycle(edges: dict) -> bool:
    """True when the directed graph ``edges`` (node -> list of nodes) has a cycle (iterative DFS)."""
    state = {}  # node -> 1 on the current path, 2 done
    for root in edges:
        if root in state:
            continue
        state[root] = 1
        path = [(root, iter(edges.get(root, ())))]
        while path:
            node, it = path[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                path.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state:
                state[nxt] = 1
                path.append((nxt, iter(edges.get(nxt, ()))))
    return False


def _cycles(edges: dict) -> list:
    """One cycle ``[a, b, ..., a]`` through each phase that can reach itself (each ring once)."""
    out, seen_rings = [], set()
    for start in sorted(edges):
        # breadth-first from start's callees back to start: the shortest ring through it
        parent, todo = {}, []
        for c in edges.get(start, []):
            if c not in parent:
                parent[c] = start
                todo.append(c)
        i = 0
        while i < len(todo) and start not in parent:
            node = todo[i]
            i += 1
            for nxt in edges.get(node, []):
                if nxt not in parent:
                    parent[nxt] = node
                    todo.append(nxt)
        if start not in parent:
            continue
        ring, node = [start], parent[start]
        while node != start:
            ring.append(node)
            node = parent[node]
        ring.append(start)
        ring.reverse()
        key = frozenset(ring)
        if key not in seen_rings:
            seen_rings.add(key)
            out.append(ring)
    return out


def _successors(prog, pc, skip):
    """Where control may go from ``pc`` without a decision; a decision (an instruction that
    lists options) has none, nor has an end of the game."""
    instr = prog[pc]
    if hasattr(instr, "legal") or isinstance(instr, P.End):
        return []
    if isinstance(instr, P.Call):
        return [pc + 1] if skip.get(instr.phase, True) else []
    if isinstance(instr, P.Jump):
        return [instr.target]
    out = [pc + 1]
    for attr in ("target", "end", "skip_to"):
        t = getattr(instr, attr, None)
        if isinstance(t, int):
            out.append(t)
    return out


def _walk_free(prog, skip):
    """Positions reachable from the start of ``prog`` with no decision on the way."""
    seen, todo = set(), [0]
    while todo:
        pc = todo.pop()
        if pc in seen or pc is None:
            continue
        seen.add(pc)
        if pc < len(prog):
            todo.extend(_successors(prog, pc, skip))
    return seen


def _exit_reachable(prog, skip) -> bool:
    return len(prog) in _walk_free(prog, skip)


def _calls_before_a_decision(prog, skip):
    return [(pc, prog[pc].phase) for pc in sorted(_walk_free(prog, skip))
            if pc < len(prog) and isinstance(prog[pc], P.Call)]


class RecursionCheckMixin:
    """The recursion check of :class:`~interpreter.spec.compile.SpecCompiler` (``self`` is one)."""

    def check_recursion(self, programs: dict) -> None:
        """Refuse a phase that calls itself (directly or through other phases) on a path with no
        decision in between: the game would pile up frames and never ask anyone anything. A
        static check, so such a spec is refused by validate instead of running a million steps."""
        skip = {name: False for name in programs}  # can the phase run to its end with no decision?
        changed = True
        while changed:
            changed = False
            for name, prog in programs.items():
                if not skip[name] and _exit_reachable(prog, skip):
                    skip[name] = changed = True
        edges, sites = {}, {}
        for name, prog in programs.items():
            for pc, callee in _calls_before_a_decision(prog, skip):
                edges.setdefault(name, []).append(callee)
                sites.setdefault((name, callee), prog[pc].path)
        for ring in _cycles(edges)[:5]:
            path = sites[(ring[0], ring[1])]
            self.error(path, "phase " + " -> ".join(ring) + " can call itself again with no decision in "
                       "between: recursion without a decision is refused (it could pile up frames for ever)",
                       "put a choose step before the call, or use repeat or while (with max) to do it again")
