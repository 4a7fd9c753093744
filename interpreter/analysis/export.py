"""Exports of a rule-flow graph: DOT and Mermaid (text), SVG and PNG (matplotlib), HTML.

Every format is drawn from the same graph (:func:`interpreter.analysis.graph.flow_graph`, or
its phase view :func:`~interpreter.analysis.graph.phase_graph`). Nothing here needs the
Graphviz program: DOT is written as text for whoever wants to run ``dot`` on it.
"""
from __future__ import annotations

import html
import io
from pathlib import Path

from .formats import FORMATS  # noqa: F401  (re-exported)
from .graph import roots
from .layout import PHASE_FILLS, STYLE, Heat, draw, save

TEXT_FORMATS = ("dot", "mermaid", "html", "svg")


def _lines(G, n, heat: Heat | None, keep_indent=False) -> list:
    """The lines of node ``n``, stripped (``keep_indent``: the leading spaces of a phase view's
    summary are kept, they show what is inside a loop or in which way of a branch)."""
    d = G.nodes[n]
    lines = list(d["text"])
    if d.get("variant"):
        lines.append("variant: " + ", ".join(d["variant"]))
    elif d.get("options") and d["kind"] not in ("start", "game_over"):
        lines.append("depends on option " + ", ".join(d["options"]))
    if heat is not None and d["kind"] not in ("start", "game_over", "phase"):
        lines.append(heat.text(heat.get(n)))
    if keep_indent and d["kind"] == "group":
        return [s.rstrip() for s in lines]
    return [s.strip() for s in lines]


def _phase_tree(G):
    """``{phase name: [sub-phase names]}`` and the top-level phases, for nested clusters."""
    subs, top = {}, []
    for r in roots(G):
        d = G.nodes[r]
        if d["kind"] != "phase":
            continue
        parent = d.get("parent_phase")
        if parent and parent != "flow" and f"phases/{parent}" in G:
            subs.setdefault(parent, []).append(d["label"])
        else:
            top.append(d["label"])
    return subs, top


def _members(G):
    out = {}
    for n, d in G.nodes(data=True):
        out.setdefault(d.get("cluster") or "flow", []).append(n)
    return out


# -- DOT ----------------------------------------------------------------------------------------
def _q(s) -> str:
    return '"' + str(s).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_DOT_SHAPE = {"decision": "hexagon", "branch": "diamond", "chance": "parallelogram", "loop": "box",
              "start": "oval", "end": "octagon", "call": "component", "phase": "tab", "group": "note",
              "realtime": "doubleoctagon", "climb": "doubleoctagon"}


def to_dot(G, heat: Heat | None = None, title: str = "") -> str:
    """The graph as Graphviz DOT text: phases are (nested) clusters; back edges are dashed."""
    out = [f"digraph {_q(G.graph.get('name', 'game'))} {{",
           f"  graph [rankdir=TB, fontname=\"DejaVu Sans\", labelloc=t, label={_q(title or G.graph.get('name', ''))}];",
           "  node [shape=box, style=\"rounded,filled\", fontname=\"DejaVu Sans\", fontsize=10, fillcolor=white];",
           "  edge [fontname=\"DejaVu Sans\", fontsize=9, color=\"#4d4d4d\"];"]
    members = _members(G)
    subs, top = _phase_tree(G)

    def node_line(n, indent):
        d = G.nodes[n]
        cat = "log" if d["kind"] == "log" else d["category"]
        fill, edge = STYLE.get(cat, STYLE["effect"])
        lines = _lines(G, n, heat, keep_indent=True)
        attrs = {"label": "\n".join(lines), "shape": _DOT_SHAPE.get(cat, "box"), "color": edge}
        if heat is not None and d["kind"] not in ("start", "game_over", "phase"):
            c = heat.color(heat.get(n))
            fill = c if isinstance(c, str) else "#%02x%02x%02x" % tuple(int(255 * v) for v in c)
        attrs["fillcolor"] = fill
        if cat == "start" or d["kind"] == "game_over":
            attrs["fontcolor"] = "white"
        if d.get("variant"):
            attrs["style"] = "rounded,filled,dashed"
            attrs["color"] = "#b0268a"
        if d.get("line"):
            attrs["tooltip"] = f"{G.graph.get('file', '')}:{d['line']}"
        quoted = {k: _q(v) for k, v in attrs.items()}
        if d["kind"] == "group":  # left-justified lines (each ends in \l), so the indentation shows nesting
            quoted["label"] = '"' + "".join(_q(x)[1:-1] + "\\l" for x in lines) + '"'
        return indent + _q(n) + " [" + ", ".join(f"{k}={v}" for k, v in quoted.items()) + "];"

    def cluster(name, indent, depth):
        fill, edge = PHASE_FILLS[depth % len(PHASE_FILLS)]
        out.append(f"{indent}subgraph {_q('cluster_' + name)} {{")
        out.append(f"{indent}  label={_q('phase ' + name)}; style=\"rounded,filled\"; fillcolor={_q(fill)}; "
                   f"color={_q(edge)};")
        for n in members.get(name, []):
            out.append(node_line(n, indent + "  "))
        for sub in subs.get(name, []):
            cluster(sub, indent + "  ", depth + 1)
        out.append(f"{indent}}}")

    for n in members.get("flow", []):
        out.append(node_line(n, "  "))
    for name in top:
        cluster(name, "  ", 0)
    for u, v, d in G.edges(data=True):
        attrs = {}
        label = d.get("label") or ""
        if heat is not None and d.get("kind") == "branch":
            label = _branch_heat(G, heat, u, d, label)
        if label:
            attrs["label"] = label
        kind = d.get("kind")
        if kind == "back":
            attrs.update(style="dashed", constraint="false", color="#4a7db5")
        elif kind == "call":
            attrs.update(style="bold", color="#5f8a4c")
        elif kind == "end":
            attrs.update(color="#c0392b")
        out.append(f"  {_q(u)} -> {_q(v)}" + (" [" + ", ".join(f"{k}={_q(x)}" for k, x in attrs.items()) + "]"
                                              if attrs else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"


def _branch_heat(G, heat, u, d, label):
    total = heat.get(u)
    if not total:
        return label
    then_ids = G.graph["blocks"].get((u, "then"), [])
    else_ids = G.graph["blocks"].get((u, "else"), [])
    if then_ids:
        yes = heat.get(then_ids[0])
    elif else_ids:
        yes = total - heat.get(else_ids[0])
    else:
        return label
    share = yes if d.get("branch") == "then" else total - yes
    return f"{label} ({100 * share / total:.0f}%)"


# -- Mermaid ------------------------------------------------------------------------------------
def _m(s) -> str:
    s = str(s).replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
    return s


_M_SHAPE = {"decision": ("{{", "}}"), "branch": ("{", "}"), "chance": ("[/", "/]"), "loop": (">", "]"),
            "start": ("([", "])"), "end": ("([", "])"), "call": ("[[", "]]"), "phase": ("[[", "]]"),
            "realtime": ("[\\", "/]"), "climb": ("[\\", "/]")}


def to_mermaid(G, heat: Heat | None = None, title: str = "") -> str:
    """The graph as a Mermaid flowchart: phases are (nested) subgraphs; back edges are dotted."""
    ids = {n: f"n{i}" for i, n in enumerate(G.nodes)}
    out = []
    if title:
        out += ["---", f"title: {_m(title)}", "---"]
    out.append("flowchart TD")
    members = _members(G)
    subs, top = _phase_tree(G)
    classes = {}

    def node_line(n, indent):
        d = G.nodes[n]
        cat = "log" if d["kind"] == "log" else d["category"]
        if d["kind"] == "game_over":
            cat = "start"
        a, b = _M_SHAPE.get(cat, ("[", "]"))
        classes.setdefault(_class(cat), []).append(ids[n])
        if d.get("variant"):
            classes.setdefault(_class("variant"), []).append(ids[n])
        label = "<br/>".join(_m(x) for x in _lines(G, n, heat))
        return f'{indent}{ids[n]}{a}"{label}"{b}'

    def cluster(name, indent):
        out.append(f'{indent}subgraph ph_{_safe(name)}["phase {_m(name)}"]')
        out.append(f"{indent}  direction TB")
        for n in members.get(name, []):
            out.append(node_line(n, indent + "  "))
        for sub in subs.get(name, []):
            cluster(sub, indent + "  ")
        out.append(f"{indent}end")

    for n in members.get("flow", []):
        out.append(node_line(n, "  "))
    for name in top:
        cluster(name, "  ")
    for u, v, d in G.edges(data=True):
        label = d.get("label") or ""
        if heat is not None and d.get("kind") == "branch":
            label = _branch_heat(G, heat, u, d, label)
        kind = d.get("kind")
        arrow = "-.->" if kind == "back" else "==>" if kind == "call" else "-->"
        text = f'|"{_m(label)}"|' if label else ""
        out.append(f"  {ids[u]} {arrow}{text} {ids[v]}")
    for cat, (fill, edge) in list(STYLE.items()) + [("variant", ("#ffffff", "#b0268a"))]:
        color = ",color:#ffffff" if cat == "start" else ""
        dash = ",stroke-dasharray:5 3" if cat == "variant" else ""
        if cat == "variant":
            out.append(f"  classDef {_class(cat)} stroke:{edge},stroke-width:2px{dash}")
        else:
            out.append(f"  classDef {_class(cat)} fill:{fill},stroke:{edge}{color}")
    for cat, members_ in classes.items():
        out.append(f"  class {','.join(members_)} {cat}")
    return "\n".join(out) + "\n"


def _class(category: str) -> str:
    """The Mermaid class of a box category. Prefixed, because categories such as ``end`` and
    ``call`` are Mermaid keywords, and a class named ``end`` stops Mermaid 11's parser."""
    return "k_" + _safe(category)


def _safe(name) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in str(name))


# -- SVG, PNG, HTML -----------------------------------------------------------------------------
def to_image(G, fmt: str, heat: Heat | None = None, title: str = "", subtitle: str = "", dpi: int = 110,
             link=None) -> bytes:
    """The diagram drawn with matplotlib, as ``svg`` or ``png`` bytes; ``link(line)`` gives the
    URL of each box's spec line (SVG only)."""
    fig = draw(G, heat, title, subtitle, link if fmt == "svg" else None)
    buf = io.BytesIO()
    save(fig, buf, fmt, dpi)
    return buf.getvalue()


_PAN_ZOOM = """
(function () {
  const box = document.querySelector('.diagram');
  const svg = box.querySelector('svg');
  const w = svg.viewBox.baseVal.width, h = svg.viewBox.baseVal.height;
  let view = {x: 0, y: 0, w: w, h: h};
  svg.removeAttribute('width'); svg.removeAttribute('height');
  function show() { svg.setAttribute('viewBox', `${view.x} ${view.y} ${view.w} ${view.h}`); }
  function fit() { view = {x: 0, y: 0, w: w, h: h}; show(); }
  box.addEventListener('wheel', function (e) {
    e.preventDefault();
    const r = svg.getBoundingClientRect();
    const mx = view.x + (e.clientX - r.left) / r.width * view.w;
    const my = view.y + (e.clientY - r.top) / r.height * view.h;
    const k = e.deltaY < 0 ? 0.85 : 1 / 0.85;
    view = {x: mx - (mx - view.x) * k, y: my - (my - view.y) * k, w: view.w * k, h: view.h * k};
    show();
  }, {passive: false});
  let drag = null;
  box.addEventListener('mousedown', function (e) { drag = {x: e.clientX, y: e.clientY, v: Object.assign({}, view)}; });
  window.addEventListener('mouseup', function () { drag = null; });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    const r = svg.getBoundingClientRect();
    view.x = drag.v.x - (e.clientX - drag.x) / r.width * view.w;
    view.y = drag.v.y - (e.clientY - drag.y) / r.height * view.h;
    show();
  });
  document.getElementById('fit').addEventListener('click', fit);
  document.getElementById('zoom-in').addEventListener('click', function () {
    view = {x: view.x + view.w * 0.1, y: view.y + view.h * 0.1, w: view.w * 0.8, h: view.h * 0.8}; show(); });
  document.getElementById('zoom-out').addEventListener('click', function () {
    view = {x: view.x - view.w * 0.125, y: view.y - view.h * 0.125, w: view.w * 1.25, h: view.h * 1.25}; show(); });
  show();
})();
"""


def to_html(G, heat: Heat | None = None, title: str = "", subtitle: str = "", game=None) -> str:
    """A self-contained page: the SVG drawing inline (drag to pan, wheel or buttons to zoom), the
    spec's rule tables, the spec source with numbered lines (each box of the drawing links to its
    line), and the Mermaid and DOT text. ``game``: the compiled game, for the tables and source."""
    source_lines = []
    if game is not None:
        try:
            source_lines = Path(game.file).read_text(encoding="utf-8").split("\n")
        except (OSError, UnicodeDecodeError, TypeError):
            source_lines = []
    link = (lambda line: f"#L{line}") if source_lines else None
    svg = to_image(G, "svg", heat, title, subtitle, link=link).decode("utf-8")
    svg = svg[svg.index("<svg"):]
    mermaid = to_mermaid(G, heat)
    dot = to_dot(G, heat, title)
    t = html.escape(title or G.graph.get("name", ""))
    tables = ""
    if game is not None:
        from .tables import compute_tables, table_html
        computed = compute_tables(game)
        if computed:
            tables = ("<section class='tables'><h2>Rule tables</h2><p class='sub'>Computed from the spec's own "
                      "rules with these options: when a rule changes, so do they.</p>"
                      + "".join(table_html(x) for x in computed) + "</section>")
    source = ""
    if source_lines:
        numbered = "\n".join(f"<span id='L{i}' class='line'><a href='#L{i}' class='no'>{i:4d}</a> "
                              f"{html.escape(text)}</span>" for i, text in enumerate(source_lines, 1))
        source = (f"<details open><summary>Spec source ({html.escape(str(game.file))}): each box above links "
                  f"to its line</summary><pre class='source'>{numbered}</pre></details>")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{t}</title>
<style>
  body {{ font-family: "DejaVu Sans", Verdana, sans-serif; margin: 2em; color: #222; }}
  .diagram {{ border: 1px solid #ddd; height: 80vh; overflow: hidden; cursor: grab; background: white; }}
  .diagram svg {{ width: 100%; height: 100%; }}
  .tools button {{ margin-right: .5em; }}
  pre {{ background: #f6f6f6; padding: 1em; overflow: auto; font-size: 12px; }}
  pre.source {{ max-height: 60vh; }}
  .line:target {{ background: #fff3b0; display: inline-block; width: 100%; }}
  .no {{ color: #999; text-decoration: none; }}
  p.sub {{ color: #666; }}
  table.rules {{ border-collapse: collapse; font-size: 12px; margin-bottom: 1.5em; }}
  table.rules th, table.rules td {{ border: 1px solid #ccc; padding: 2px 6px; text-align: center; }}
  table.rules thead th, table.rules tbody th {{ background: #f0f0f0; }}
</style>
</head>
<body>
<h1>{t}</h1>
<p class="sub">{html.escape(subtitle)}</p>
<p class="tools"><button id="zoom-in">zoom in</button><button id="zoom-out">zoom out</button><button id="fit">fit</button>
<span class="sub">drag to move, mouse wheel to zoom; click a box to see its spec line</span></p>
<div class="diagram">
{svg}
</div>
{tables}
{source}
<details><summary>Mermaid source</summary>
<pre>{html.escape(mermaid)}</pre>
</details>
<details><summary>Graphviz DOT source</summary>
<pre>{html.escape(dot)}</pre>
</details>
<script>{_PAN_ZOOM}</script>
</body>
</html>
"""


def render(G, fmt: str, heat: Heat | None = None, title: str = "", subtitle: str = "", game=None,
           link=None) -> bytes:
    """The diagram in ``fmt`` (one of :data:`FORMATS`) as bytes. ``game`` (the compiled game) adds
    the rule tables and the spec source to HTML; ``link(line)`` links SVG boxes to spec lines."""
    if fmt == "dot":
        return to_dot(G, heat, title).encode("utf-8")
    if fmt == "mermaid":
        return to_mermaid(G, heat, title).encode("utf-8")
    if fmt == "html":
        return to_html(G, heat, title, subtitle, game).encode("utf-8")
    if fmt in ("svg", "png"):
        return to_image(G, fmt, heat, title, subtitle, link=link)
    raise ValueError(f"unknown format {fmt!r}")
