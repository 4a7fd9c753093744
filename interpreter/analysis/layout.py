"""A structured top-down layout of a rule-flow graph, drawn with matplotlib (no Graphviz).

The layout follows the step tree stored in the graph (``G.graph["blocks"]``): a block is a
vertical column of boxes joined by arrows (a run of plain steps, which cannot branch, is one stack
of cells without arrows between them, read top to bottom); a loop is a shaded frame whose header
names the count or condition, with its back edge drawn as an arrow up the frame's left side; an ``if``
splits into side-by-side columns that merge below; a phase is a titled frame drawn where it is
first called, so sub-phases nest inside their caller. Phases nobody calls are drawn on the right.

:func:`draw` returns a matplotlib Figure; :func:`save` writes SVG or PNG.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .graph import GAME_OVER, LOOP_KINDS, START, children, roots

FONT = "DejaVu Sans"
SIZE = 8.5
SMALL = 7.2
LINE_H = 11
PAD_X, PAD_Y = 8, 4
GAP = 14          # vertical space for an arrow between two items
LANE = 18         # left lane of a loop frame, for its back edge
FPAD = 7          # padding inside frames
TITLE_H = 16      # title band of a phase frame
BGAP = 14         # horizontal gap between the columns of a branch
DROP = 16         # from a branch's condition to its columns
MERGE = 10
BYPASS = 26       # width of the lane of a missing then/else
MAX_TEXT = 250    # longest line of text in a box, in points
LOG_TEXT = 140    # ... of a message (log) box,
LOG_LINES = 3     # ... cut after this many lines
MARGIN = 18

STYLE = {  # category -> (fill, edge)
    "start": ("#3b3b3b", "#3b3b3b"), "end": ("#f6d2cf", "#c0392b"), "decision": ("#ffe1bd", "#d9821b"),
    "chance": ("#e8dcf6", "#8457c0"), "branch": ("#fff4c2", "#c19d00"), "loop": ("#d5e5f6", "#4a7db5"),
    "effect": ("#ffffff", "#9a9a9a"), "log": ("#fafafa", "#c8c8c8"), "call": ("#e1eedb", "#5f8a4c"),
    "group": ("#f7f7f7", "#8e8e8e"), "phase": ("#e1eedb", "#5f8a4c"), "realtime": ("#cdeeea", "#1f8a7a"),
    "climb": ("#f3dff0", "#9c4a8c"),
}
REALTIME_FILL = ("#eaf8f6", "#5bb5a8")  # the frame around a real-time block
CLIMB_FILL = ("#fbf1f9", "#b877a9", "#7d3a70")  # the frame around a climb (fill, edge, lane text)
PHASE_FILLS = [("#eef5ea", "#7ea568"), ("#f7f1e3", "#bf9d57"), ("#eceff8", "#7b86b8"), ("#f6ecf0", "#b9738f")]
LOOP_FILL = ("#eaf2fb", "#86a9d0")
VARIANT = "#b0268a"
GROUP_COLORS = {"◆": "#a35400", "⚄": "#6a3fa0", "↻": "#2d5d8f", "?": "#7a6500", "■": "#b03a2e", "⚡": "#16695d"}
ARROW = "#4d4d4d"
MUTED = "#777777"


# -- text ------------------------------------------------------------------------------------
_MEASURE: dict = {}


def text_width(s: str, size: float = SIZE, bold: bool = False) -> float:
    key = (s, size, bold)
    w = _MEASURE.get(key)
    if w is None:
        from matplotlib.font_manager import FontProperties
        from matplotlib.textpath import TextToPath
        global _T2P
        try:
            t2p = _T2P
        except NameError:
            t2p = _T2P = TextToPath()
        prop = FontProperties(family=FONT, size=size, weight="bold" if bold else "normal")
        w = t2p.get_text_width_height_descent(s, prop, ismath=False)[0] if s else 0.0
        _MEASURE[key] = w
    return w


def wrap(s: str, width: float = MAX_TEXT, size: float = SIZE, bold: bool = False, max_lines: int = 0) -> list:
    """Greedy word wrap of ``s`` to ``width`` points (long words are cut)."""
    words = s.split(" ")
    lines, cur = [], ""
    for w in words:
        trial = (cur + " " + w) if cur else w
        if text_width(trial, size, bold) <= width:
            cur = trial
            continue
        if cur:
            lines.append(cur)
        cur = w
        while text_width(cur, size, bold) > width and len(cur) > 8:
            cut = max(8, int(len(cur) * width / text_width(cur, size, bold)) - 1)
            lines.append(cur[:cut])
            cur = "  " + cur[cut:]
    if cur:
        lines.append(cur)
    if max_lines and len(lines) > max_lines:
        lines = lines[:max_lines]
        lines[-1] = lines[-1][: max(0, len(lines[-1]) - 1)] + "…"
    return lines or [""]


@dataclass
class Line:
    text: str
    size: float = SIZE
    bold: bool = False
    italic: bool = False
    color: str = "#1a1a1a"


# -- heat ------------------------------------------------------------------------------------
@dataclass
class Heat:
    """How often each step ran: ``counts`` (step_id -> count), over ``games`` games if known."""

    counts: dict
    games: int | None = None

    def get(self, nid) -> float:
        return self.counts.get(nid, 0)

    def text(self, n) -> str:
        if self.games:
            v = n / self.games
            return "never ran" if n == 0 else f"ran {v:.3g}× per game"
        return "never ran" if n == 0 else f"ran {n:,}×"

    @property
    def peak(self) -> float:
        return max([v for v in self.counts.values() if isinstance(v, (int, float))] or [1])

    def color(self, n):
        from matplotlib import colormaps
        if n <= 0:
            return "#ececec"
        frac = math.log1p(n) / math.log1p(self.peak)
        r, g, b, _ = colormaps["YlOrRd"](0.02 + 0.45 * frac)
        return (r, g, b)


# -- items -------------------------------------------------------------------------------------
@dataclass
class Item:
    left: float = 0.0
    right: float = 0.0
    h: float = 0.0
    ends: bool = False  # the game always ends inside: no arrow out


@dataclass
class Leaf(Item):
    nid: str = ""
    lines: list = field(default_factory=list)
    shape: str = "box"          # box, hex, pill
    fill: object = "#ffffff"
    edge: str = "#999999"
    dashed: bool = False
    align: str = "center"
    joins: bool = False         # a plain step: may share a stack with the plain steps next to it
    stacked: str = ""           # in a stack: "first", "middle" or "last"


@dataclass
class Stack(Item):
    """Plain steps in a row, drawn as one outlined column of cells (no arrows between them)."""

    leaves: list = field(default_factory=list)


@dataclass
class Seq(Item):
    items: list = field(default_factory=list)
    labels: list = field(default_factory=list)  # label of the arrow into each item


@dataclass
class Loop(Item):
    nid: str = ""
    header: Leaf = None
    body: Seq = None
    lane_label: str = "again"


@dataclass
class Branch(Item):
    nid: str = ""
    header: Leaf = None
    then: Seq = None
    other: Seq = None
    labels: tuple = ("yes", "no")
    t_off: float = 0.0
    e_off: float = 0.0


@dataclass
class Fan(Item):
    """A real-time block: a frame whose header says who plays and until when, and its actions
    side by side (alternatives: any player takes any of them at any moment), each leading back
    to the header for the next action."""

    nid: str = ""
    header: Leaf = None
    cols: list = field(default_factory=list)
    offs: list = field(default_factory=list)
    lane_label: str = "next action"
    fill: tuple = REALTIME_FILL + ("#16695d",)  # the frame's fill, edge and lane text colour


@dataclass
class Frame(Item):
    nid: str = ""
    title: str = ""
    note: str = ""
    body: Seq = None
    depth: int = 0
    title_color: str = "#1a1a1a"
    dashed: bool = False


class Layout:
    """Builds, measures and places the items of one graph; ``prims`` are the drawing primitives."""

    def __init__(self, G, heat: Heat | None = None, title: str = "", subtitle: str = ""):
        self.G = G
        self.heat = heat
        self.title = title
        self.subtitle = subtitle
        self.inlined: set = set()
        self.prims: list = []

    # -- building ----------------------------------------------------------------------------
    def leaf(self, nid, extra=None) -> Leaf:
        d = self.G.nodes[nid]
        cat = d["category"]
        kind = d["kind"]
        if kind == "log":
            cat = "log"
        fill, edge = STYLE.get(cat, STYLE["effect"])
        lines = []
        raw = list(extra or d["text"])
        caption = d.get("doc") or d.get("note")  # the step's doc:, or the comment above it
        if caption and not extra and kind not in ("group", "start", "game_over"):
            for w in wrap(caption, MAX_TEXT, SMALL, max_lines=2):
                lines.append(Line(w, SMALL, False, True, "#1f4e79"))
        for i, t in enumerate(raw):
            bold = i == 0 and cat in ("decision", "branch", "loop", "end", "call", "start", "realtime", "climb")
            italic = kind == "log" or t.startswith("“")
            color = "#ffffff" if cat == "start" else (MUTED if italic else "#1a1a1a")
            size = SIZE if i == 0 or cat not in ("decision",) else SIZE - 0.4
            if kind == "log":
                size = SIZE - 0.6
            if kind == "group":
                mark = "?" if t.strip() == "else:" else t.strip()[:1]  # the other way of the ? above
                color = GROUP_COLORS.get(mark, "#1a1a1a" if not t.startswith("+") else MUTED)
                bold = mark in GROUP_COLORS
            pad = " " * (len(t) - len(t.lstrip()))
            width = LOG_TEXT if italic else MAX_TEXT
            hang = "   " if kind == "group" else ""  # left-aligned lines: a wrapped line is indented
            for j, w in enumerate(wrap(t.strip(), width, size, bold, max_lines=LOG_LINES if kind == "log" else 0)):
                lines.append(Line(pad + (hang if j else "") + w, size, bold, italic, color))
        if d.get("variant"):
            lines.append(Line("variant: " + ", ".join(d["variant"]), SMALL, True, False, VARIANT))
        elif d.get("options") and kind not in ("start", "game_over"):
            for w in wrap("⚙ depends on option " + ", ".join(d["options"]), MAX_TEXT, SMALL):
                lines.append(Line(w, SMALL, False, False, VARIANT))
        if self.heat is not None and kind not in ("start", "game_over", "phase"):
            n = self.heat.get(nid)
            lines.append(Line(self.heat.text(n), SMALL, False, True, "#333333" if n else MUTED))
            fill = self.heat.color(n)
        shape = "hex" if cat == "branch" else "pill" if cat == "start" or kind == "game_over" else "box"
        if kind == "game_over":
            fill, edge = STYLE["start"]
            for ln in lines:
                ln.color = "#ffffff"
        w = max(text_width(ln.text, ln.size, ln.bold) for ln in lines) + 2 * PAD_X
        w = max(w, 64) + (18 if shape == "hex" else 10 if shape == "pill" else 0)
        h = len(lines) * LINE_H + 2 * PAD_Y
        return Leaf(left=w / 2, right=w / 2, h=h, nid=nid, lines=lines, shape=shape, fill=fill, edge=edge,
                    dashed=bool(d.get("variant")), ends=kind == "end" or bool(d.get("ends")),
                    align="left" if kind == "group" and len(lines) > 1 else "center",
                    joins=cat in ("effect", "log") and kind != "group" and shape == "box" and not d.get("variant"))

    def seq(self, ids, stack=()) -> Seq:
        items, labels = [], []
        for nid in ids:
            it = self.item(nid, stack)
            prev = items[-1] if items else None
            if isinstance(it, Leaf) and it.joins and (isinstance(prev, Stack) or isinstance(prev, Leaf) and prev.joins):
                items[-1] = Stack(leaves=(prev.leaves if isinstance(prev, Stack) else [prev]) + [it])
                continue
            items.append(it)
            labels.append("")
        return Seq(items=items, labels=labels)

    def item(self, nid, stack=()):
        G = self.G
        d = G.nodes[nid]
        kind = d["kind"]
        if kind in LOOP_KINDS or (kind == "group" and d.get("loop")):
            body = self.seq(children(G, nid), stack)
            lane = {"for": f"next {d.get('var')}", "repeat": "again", "while": "check again"}.get(kind, "again")
            if self.heat is not None and body.items:
                entered = self.heat.get(nid)
                first = self.heat.get(children(G, nid)[0])
                if entered:
                    passes = first / entered
                    lane = f"{passes:.3g} pass" + ("" if abs(passes - 1) < 1e-9 else "es")
            return Loop(nid=nid, header=self.leaf(nid), body=body if body.items else None, lane_label=lane)
        if kind == "if":
            then_ids, else_ids = children(G, nid, "then"), children(G, nid, "else")
            labels = ["yes", "no"]
            if self.heat is not None:
                total = self.heat.get(nid)
                if total:
                    yes = self.heat.get(then_ids[0]) if then_ids else (
                        total - self.heat.get(else_ids[0]) if else_ids else 0)
                    labels = [f"yes {100 * yes / total:.0f}%", f"no {100 * (total - yes) / total:.0f}%"]
            return Branch(nid=nid, header=self.leaf(nid), then=self.seq(then_ids, stack) if then_ids else None,
                          other=self.seq(else_ids, stack) if else_ids else None, labels=tuple(labels))
        if kind == "realtime":
            cols = [self.item(a, stack) for a in children(G, nid)]
            cols = [c if isinstance(c, Seq) else Seq(items=[c], labels=[""]) for c in cols]
            return Fan(nid=nid, header=self.leaf(nid), cols=cols)
        if kind == "climb":  # the turn and the clearing of the pile side by side, each back to the next turn
            cols = [self.item(t, stack) for t in children(G, nid)]
            cols = [c if isinstance(c, Seq) else Seq(items=[c], labels=[""]) for c in cols]
            if children(G, nid, "then"):
                cols.append(self.seq(children(G, nid, "then"), stack))
            return Fan(nid=nid, header=self.leaf(nid), cols=cols, lane_label="next turn", fill=CLIMB_FILL)
        if kind == "choose" and children(G, nid, "then"):
            head = self.leaf(nid)
            rest = self.seq(children(G, nid, "then"), stack)
            s = Seq(items=[head] + rest.items, labels=[""] + ["each chooser" if d.get("simultaneous") else ""]
                    + rest.labels[1:])
            return s
        if kind == "call":
            target = "phases/" + d["phase"]
            if target in G and target not in self.inlined and target not in stack:
                self.inlined.add(target)
                return self.frame(target, stack + (target,), call=nid)
            return self.leaf(nid, [f"▶ phase {d['phase']}", "(drawn above)" if target in self.inlined
                                   else "(calls itself)"])
        return self.leaf(nid)

    def frame(self, phase, stack, call=None, never=False) -> Frame:
        d = self.G.nodes[phase]
        depth = sum(1 for s in stack[:-1] if s.startswith("phases/"))
        note = ""
        if self.heat is not None and call is not None:
            note = self.heat.text(self.heat.get(call)).replace("ran ", "entered ")
        title = f"phase {d['label']}" + ("  — never entered" if never else "")
        body = self.seq(children(self.G, phase), stack)
        return Frame(nid=phase, title=title, note=note, body=body, depth=depth,
                     title_color="#b03a2e" if never else "#1a1a1a", dashed=never)

    # -- measuring ---------------------------------------------------------------------------
    def measure(self, it):
        if isinstance(it, Leaf):
            return it
        if isinstance(it, Stack):  # one width for all its cells
            half = max(x.left for x in it.leaves)
            for k, x in enumerate(it.leaves):
                x.left = x.right = half
                x.stacked = "first" if k == 0 else "last" if k == len(it.leaves) - 1 else "middle"
            it.left = it.right = half
            it.h = sum(x.h for x in it.leaves)
            return it
        if isinstance(it, Seq):
            for x in it.items:
                self.measure(x)
            it.left = max([x.left for x in it.items] or [0])
            it.right = max([x.right for x in it.items] or [0])
            it.h = sum(x.h for x in it.items) + GAP * max(0, len(it.items) - 1)
            it.ends = any(x.ends for x in it.items)
            return it
        if isinstance(it, Loop):
            hd = it.header
            if it.body is None:
                it.left, it.right, it.h = hd.left + FPAD + LANE, hd.right + FPAD, hd.h + 2 * FPAD
                return it
            self.measure(it.body)
            it.left = max(hd.left, it.body.left) + FPAD + LANE
            it.right = max(hd.right, it.body.right) + FPAD
            it.h = FPAD + hd.h + GAP + it.body.h + GAP * 0.8 + FPAD
            return it
        if isinstance(it, Branch):
            hd = it.header
            t, e = it.then, it.other
            for x in (t, e):
                if x is not None:
                    self.measure(x)
            if t is not None and e is not None:  # side by side, merging below
                it.t_off = -(BGAP / 2 + t.right)
                it.e_off = BGAP / 2 + e.left
                it.left = max(hd.left, -it.t_off + t.left)
                it.right = max(hd.right, it.e_off + e.right)
                cols = max(t.h, e.h)
                it.ends = t.ends and e.ends
            else:  # one column below the condition, the other way round it on the right
                col = t if t is not None else e
                it.t_off = 0.0
                it.left = max(hd.left, col.left if col else 0)
                it.e_off = max(hd.right, col.right if col else 0) + BYPASS * 0.6
                it.right = it.e_off + 6
                cols = col.h if col else 0
            it.h = hd.h + DROP + cols + MERGE
            return it
        if isinstance(it, Fan):
            hd = it.header
            for c in it.cols:
                self.measure(c)
            total = sum(c.left + c.right for c in it.cols) + BGAP * max(0, len(it.cols) - 1)
            x = -total / 2
            it.offs = []
            for c in it.cols:
                it.offs.append(x + c.left)
                x += c.left + c.right + BGAP
            half = total / 2
            it.left = max(hd.left, half) + FPAD + LANE
            it.right = max(hd.right, half) + FPAD
            cols = max([c.h for c in it.cols] or [0])
            it.h = FPAD + hd.h + DROP + cols + MERGE + GAP * 0.45 + FPAD
            return it
        if isinstance(it, Frame):
            self.measure(it.body)
            b = it.body
            tw = text_width(it.title, SIZE + 0.5, True) + (text_width(it.note, SMALL) + 14 if it.note else 0) + 16
            it.left = max(b.left, 40) + FPAD
            it.right = max(b.right + FPAD, tw - it.left)
            it.h = TITLE_H + FPAD * 0.7 + b.h + FPAD
            it.ends = b.ends
            return it
        raise TypeError(it)

    # -- placing -----------------------------------------------------------------------------
    def line(self, pts, arrow=True, color=ARROW, lw=1.0, dashed=False):
        self.prims.append(("line", pts, arrow, color, lw, dashed))

    def text(self, x, y, s, size=SMALL, color=MUTED, ha="left", va="center", bold=False, italic=False,
             rotation=0):
        self.prims.append(("text", x, y, s, size, color, ha, va, bold, italic, rotation))

    def place(self, it, cx, top):
        if isinstance(it, Leaf):
            self.prims.append(("box", cx - it.left, top, it.left + it.right, it.h, it))
            return
        if isinstance(it, Stack):
            self.prims.append(("stack", cx - it.left, top, it.left + it.right, it.h))
            y = top
            for x in it.leaves:
                self.place(x, cx, y)
                y += x.h
            return
        if isinstance(it, Seq):
            y = top
            prev = None
            for x, label in zip(it.items, it.labels):
                if prev is not None:
                    if not prev.ends:
                        self.line([(cx, y - GAP), (cx, y)])
                        if label:
                            self.text(cx + 5, y - GAP / 2, label)
                self.place(x, cx, y)
                y += x.h + GAP
                prev = x
            return
        if isinstance(it, Loop):
            x0, x1 = cx - it.left, cx + it.right
            self.prims.append(("frame", x0, top, x1 - x0, it.h, LOOP_FILL[0], LOOP_FILL[1], False, 5))
            hd = it.header
            htop = top + FPAD
            self.place(hd, cx, htop)
            if it.body is None:
                return
            btop = htop + hd.h + GAP
            self.line([(cx, htop + hd.h), (cx, btop)])
            self.place(it.body, cx, btop)
            if not it.body.ends:
                bb = btop + it.body.h
                yb = bb + GAP * 0.45
                xl = x0 + LANE * 0.5
                yh = htop + hd.h / 2
                self.line([(cx, bb), (cx, yb), (xl, yb), (xl, yh), (cx - hd.left, yh)], color=LOOP_FILL[1],
                          lw=1.4)
                self.text(xl - 3.5, (yb + yh) / 2, it.lane_label, size=SMALL, color="#44688f", ha="center",
                          rotation=90, italic=True)
            return
        if isinstance(it, Branch):
            hd = it.header
            self.place(hd, cx, top)
            hb = top + hd.h
            ys = hb + DROP * 0.45
            ctop = hb + DROP
            t, e = it.then, it.other
            cols = max(t.h if t else 0, e.h if e else 0)
            ym = ctop + cols + MERGE * 0.5
            continues = False
            yes, no = it.labels
            if t is not None and e is not None:
                for col, off, label in ((t, it.t_off, yes), (e, it.e_off, no)):
                    colx = cx + off
                    self.line([(cx, hb), (cx, ys), (colx, ys), (colx, ctop)])
                    self.place(col, colx, ctop)
                    if not col.ends:
                        self.line([(colx, ctop + col.h), (colx, ym), (cx, ym)], arrow=False)
                        continues = True
                    self.text(colx + (4 if off > 0 else -4), ys + 6.5, label, size=SMALL, color="#6b5a00",
                              ha="left" if off > 0 else "right", italic=True)
            else:
                col = t if t is not None else e
                down, around = (yes, no) if t is not None else (no, yes)
                self.line([(cx, hb), (cx, ctop)], arrow=col is not None)
                self.text(cx + 4, (hb + ctop) / 2, down, size=SMALL, color="#6b5a00", italic=True)
                if col is not None:
                    self.place(col, cx, ctop)
                    if not col.ends:
                        self.line([(cx, ctop + col.h), (cx, ym)], arrow=False)
                else:
                    self.line([(cx, ctop), (cx, ym)], arrow=False)
                bx = cx + it.e_off
                yh = top + hd.h / 2
                self.line([(cx + hd.right, yh), (bx, yh), (bx, ym), (cx, ym)], arrow=False)
                self.text(cx + hd.right + 3, yh - 6, around, size=SMALL, color="#6b5a00", italic=True)
                continues = True
            if continues:
                self.prims.append(("dot", cx, ym))
                self.line([(cx, ym), (cx, top + it.h)], arrow=False)
            return
        if isinstance(it, Fan):
            x0, x1 = cx - it.left, cx + it.right
            self.prims.append(("frame", x0, top, x1 - x0, it.h, it.fill[0], it.fill[1], False, 5))
            hd = it.header
            htop = top + FPAD
            self.place(hd, cx, htop)
            hb = htop + hd.h
            ys = hb + DROP * 0.45
            ctop = hb + DROP
            cols = max([c.h for c in it.cols] or [0])
            ym = ctop + cols + MERGE * 0.5
            back = False
            for col, off in zip(it.cols, it.offs):
                colx = cx + off
                self.line([(cx, hb), (cx, ys), (colx, ys), (colx, ctop)])
                self.place(col, colx, ctop)
                if not col.ends:
                    self.line([(colx, ctop + col.h), (colx, ym)], arrow=False)
                    back = True
            if back:  # every action leads back to the header: the next action, by anyone
                xs = [cx + off for col, off in zip(it.cols, it.offs) if not col.ends]
                xl = x0 + LANE * 0.5
                yh = htop + hd.h / 2
                self.line([(max(xs + [cx]), ym), (xl, ym), (xl, yh), (cx - hd.left, yh)],
                          color=it.fill[1], lw=1.4)
                self.text(xl - 3.5, (ym + yh) / 2, it.lane_label, size=SMALL, color=it.fill[2], ha="center",
                          rotation=90, italic=True)
            return
        if isinstance(it, Frame):
            fill, edge = PHASE_FILLS[it.depth % len(PHASE_FILLS)]
            x0 = cx - it.left
            w = it.left + it.right
            self.prims.append(("frame", x0, top, w, it.h, fill, edge, it.dashed, 7))
            self.prims.append(("band", x0, top, w, TITLE_H, edge))
            self.text(x0 + 8, top + TITLE_H / 2 + 0.5, it.title, size=SIZE + 0.5, color=it.title_color, bold=True)
            if it.note:
                self.text(x0 + w - 8, top + TITLE_H / 2 + 0.5, it.note, size=SMALL, color="#333333", ha="right",
                          italic=True)
            self.place(it.body, cx, top + TITLE_H + FPAD * 0.7)
            return
        raise TypeError(it)

    # -- the whole diagram --------------------------------------------------------------------
    def build(self):
        G = self.G
        main_ids = [START] + children(G, START) + [GAME_OVER]
        main = self.seq(main_ids)
        self.measure(main)
        others = []
        for r in roots(G):
            if G.nodes[r]["kind"] == "phase" and r not in self.inlined:
                self.inlined.add(r)
                others.append(self.measure(self.frame(r, (r,), never=True)))
        # a phase first reached inside a never-entered phase is drawn there: fine
        title_h = 0
        if self.title:
            title_h += 22
        if self.subtitle:
            title_h += 14
        legend_h = 26
        top = MARGIN + title_h + legend_h
        x = MARGIN + main.left
        self.place(main, x, top)
        width = x + main.right
        height = top + main.h
        ox = width + 40
        oy = top
        for f in others:
            self.place(f, ox + f.left, oy)
            oy += f.h + GAP
            width = max(width, ox + f.left + f.right)
        height = max(height, oy)
        self.legend(MARGIN, MARGIN + title_h)
        width = max(width, MARGIN + self.legend_w, MARGIN + text_width(self.title, 13, True)) + MARGIN
        self.width, self.height = width, height + MARGIN
        if self.title:
            self.text(MARGIN, MARGIN + 8, self.title, size=13, color="#111111", bold=True)
        if self.subtitle:
            self.text(MARGIN, MARGIN + 24, self.subtitle, size=SMALL + 0.3, color=MUTED)
        return self

    def legend(self, x0, y0):
        entries = [("decision", "decision (who chooses)"), ("chance", "chance (shuffle, deal, draw)"),
                   ("branch", "branch"), ("loop", "loop"), ("effect", "step")]
        x = x0
        y = y0 + 8
        for cat, text in entries:
            fill, edge = STYLE[cat]
            self.prims.append(("swatch", x, y - 5, 14, 10, fill, edge, cat == "branch", False))
            self.text(x + 18, y, text, size=SMALL, color="#333333")
            x += 18 + text_width(text, SMALL) + 14
        if any(d.get("kind") == "realtime" for _, d in self.G.nodes(data=True)):
            fill, edge = STYLE["realtime"]
            self.prims.append(("swatch", x, y - 5, 14, 10, fill, edge, False, False))
            text = "real time (anyone may act)"
            self.text(x + 18, y, text, size=SMALL, color="#333333")
            x += 18 + text_width(text, SMALL) + 14
        if any(d.get("kind") == "climb" for _, d in self.G.nodes(data=True)):
            fill, edge = STYLE["climb"]
            self.prims.append(("swatch", x, y - 5, 14, 10, fill, edge, False, False))
            text = "climb (turns until all others pass)"
            self.text(x + 18, y, text, size=SMALL, color="#333333")
            x += 18 + text_width(text, SMALL) + 14
        self.prims.append(("swatch", x, y - 5, 14, 10, "#ffffff", VARIANT, False, True))
        self.text(x + 18, y, "variant only", size=SMALL, color=VARIANT)
        x += 18 + text_width("variant only", SMALL) + 14
        if self.heat is not None:
            self.text(x, y, "fill: how often it ran (darker = more)", size=SMALL, color="#333333")
            x += text_width("fill: how often it ran (darker = more)", SMALL) + 14
        self.legend_w = x - x0


# -- drawing ------------------------------------------------------------------------------------
def draw(G, heat: Heat | None = None, title: str = "", subtitle: str = "", link=None):
    """A matplotlib Figure of the graph (1 unit = 1 point). ``link(line)`` (optional) gives the URL
    each step's box links to (its spec line), written into SVG output as a hyperlink."""
    from matplotlib.figure import Figure
    from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch, Polygon, Rectangle
    from matplotlib.path import Path as MPath

    lay = Layout(G, heat, title, subtitle).build()
    W, H = lay.width, lay.height
    fig = Figure(figsize=(W / 72, H / 72))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, W)
    ax.set_ylim(H, 0)
    ax.axis("off")
    fig.patch.set_facecolor("white")
    z_frame = 1
    outline = None  # the outline of the stack being drawn: its cells are clipped to it
    for p in lay.prims:
        kind = p[0]
        if kind == "frame":
            _, x, y, w, h, fill, edge, dashed, r = p
            ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle=f"round,pad=0,rounding_size={r}", fc=fill, ec=edge,
                                        lw=1.0, ls=(0, (4, 3)) if dashed else "-", zorder=z_frame))
            z_frame += 0.001
        elif kind == "band":
            _, x, y, w, h, edge = p
            ax.add_patch(Rectangle((x + 1, y + h - 0.5), w - 2, 0.8, fc=edge, ec="none", zorder=z_frame, alpha=0.6))
        elif kind == "swatch":
            _, x, y, w, h, fill, edge, hexa, dashed = p
            ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=2", fc=fill, ec=edge,
                                        lw=1.2, ls=(0, (2, 1.5)) if dashed else "-", zorder=5))
    for p in lay.prims:
        kind = p[0]
        if kind == "stack":
            _, x, y, w, h = p
            outline = FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=4", fc="none",
                                     ec=STYLE["effect"][1], lw=1.2, zorder=10.5)
            ax.add_patch(outline)
        elif kind == "box":
            _, x, y, w, h, leaf = p
            url = None
            if link is not None and leaf.nid in G and G.nodes[leaf.nid].get("line"):
                url = link(G.nodes[leaf.nid]["line"])
            n_patches, n_texts = len(ax.patches), len(ax.texts)
            ls = (0, (4, 2.5)) if leaf.dashed else "-"
            ec = VARIANT if leaf.dashed else leaf.edge
            if leaf.stacked:  # a cell of the stack: its fill, clipped to the outline, and a rule above it
                cell = Rectangle((x, y), w, h, fc=leaf.fill, ec="none", zorder=10)
                ax.add_patch(cell)
                cell.set_clip_path(outline)
                if leaf.stacked != "first":
                    ax.plot([x, x + w], [y, y], color="#c8c8c8", lw=0.8, zorder=10.4)
            elif leaf.shape == "hex":
                ind = 9
                pts = [(x + ind, y), (x + w - ind, y), (x + w, y + h / 2), (x + w - ind, y + h), (x + ind, y + h),
                       (x, y + h / 2)]
                ax.add_patch(Polygon(pts, closed=True, fc=leaf.fill, ec=ec, lw=1.2, ls=ls, zorder=10))
            else:
                r = h / 2 if leaf.shape == "pill" else 4
                ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle=f"round,pad=0,rounding_size={r}", fc=leaf.fill,
                                            ec=ec, lw=1.2, ls=ls, zorder=10))
            ty = y + PAD_Y + LINE_H / 2
            left = leaf.align == "left"
            for ln in leaf.lines:
                ax.text(x + PAD_X if left else x + w / 2, ty + 0.5, ln.text, ha="left" if left else "center",
                        va="center", fontsize=ln.size, family=FONT,
                        fontweight="bold" if ln.bold else "normal", fontstyle="italic" if ln.italic else "normal",
                        color=ln.color, zorder=11)
                ty += LINE_H
            if url:
                for artist in ax.patches[n_patches:] + ax.texts[n_texts:]:
                    artist.set_url(url)
        elif kind == "line":
            _, pts, arrow, color, lw, dashed = p
            pts = _dedupe(pts)
            if len(pts) < 2:
                continue
            codes = [MPath.MOVETO] + [MPath.LINETO] * (len(pts) - 1)
            path = MPath(pts, codes)
            if arrow:
                ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>,head_length=5,head_width=2.6", color=color,
                                             lw=lw, zorder=6, ls="--" if dashed else "-", joinstyle="round",
                                             capstyle="round", shrinkA=0, shrinkB=0))
            else:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, color=color, lw=lw, zorder=6, solid_joinstyle="round")
        elif kind == "dot":
            ax.add_patch(Circle((p[1], p[2]), 2.2, color=ARROW, zorder=7))
        elif kind == "text":
            _, x, y, s, size, color, ha, va, bold, italic, rot = p
            ax.text(x, y, s, ha=ha, va=va, fontsize=size, family=FONT, color=color, rotation=rot,
                    fontweight="bold" if bold else "normal", fontstyle="italic" if italic else "normal", zorder=12,
                    bbox=dict(fc="white", ec="none", pad=0.6, alpha=0.85) if rot == 0 and va == "center"
                    and size <= SMALL else None)
    return fig


def _dedupe(pts):
    out = []
    for p in pts:
        if not out or abs(out[-1][0] - p[0]) > 0.01 or abs(out[-1][1] - p[1]) > 0.01:
            out.append(p)
    return out


def save(fig, path, fmt: str, dpi: int = 110) -> None:
    """Write ``fig`` as ``svg`` or ``png`` to ``path`` (a file path or a binary file object)."""
    import matplotlib
    w, h = fig.get_size_inches()
    dpi = min(dpi, int(30000 / max(w, h, 1)))  # stay within the size a PNG can have
    # svg.fonttype none: the SVG keeps its text as text (searchable, selectable, links readable)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rulebook"}):
        kwargs = {"metadata": {"Date": None}} if fmt == "svg" else {"metadata": {"Software": None}}
        fig.savefig(path, format=fmt, dpi=dpi if fmt == "png" else 72, facecolor="white", **kwargs)
