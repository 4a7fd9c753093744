"""The HTML report of ``rulebook analyze`` (one file: tables, and plots as PNG images inlined) and its
plain-text lines. Reads the report dict of :func:`interpreter.analysis.design.measures`."""
from __future__ import annotations

import base64
import html
import io


def fmt(m: dict) -> str:
    """A measure's value with its 95% interval: percentages for shares, else 3 significant digits."""
    if m.get("not_measured"):
        return "not measured"
    if m.get("verdict"):
        return f"{m['value']} of {m['rungs']} rungs"
    if _is_share(m["measure"]):
        return f"{100 * m['value']:.1f}% ({100 * m['low']:.1f}–{100 * m['high']:.1f})"
    return f"{m['value']:.3g} ({m['low']:.3g}–{m['high']:.3g})"


def _is_share(name: str) -> bool:
    return any(w in name for w in ("wins", "skill", "behind", "forced", "stalled", "known", "share"))


def _text(value) -> str:
    """An option's value as a user types it (true/false, not Python's True/False)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png", dpi=90)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _find(report, title):
    return next((s for s in report["sections"] if s["title"] == title), None)


def plots(report: dict) -> list:
    """``[(title, data URL of a PNG)]``: win shares by seat, the skill ladder, the leader-wins curve,
    options through the game, mean score through the game per seat and per bot, card shares."""
    from matplotlib.figure import Figure
    out = []
    fair = _find(report, "Fairness")
    seat_rows = next((m.get("seats") for m in (fair or {}).get("measures", []) if m.get("seats")), None)
    if seat_rows:
        fig = Figure(figsize=(5, 3.2))
        ax = fig.subplots()
        xs = [f"seat {s['seat']}" for s in seat_rows]
        vals = [100 * s["value"] for s in seat_rows]
        ax.bar(xs, vals, yerr=[[v - 100 * s["low"] for v, s in zip(vals, seat_rows)],
                               [100 * s["high"] - v for v, s in zip(vals, seat_rows)]], capsize=3, color="tab:blue")
        ax.axhline(100 / report["players"], color="grey", ls="--", lw=1, label="equal share")
        ax.set_ylabel("% of games won")
        ax.set_title("win share by seat (random play, 95% interval)", fontsize=9)
        ax.legend(fontsize="small")
        out.append(("Win share by seat", _png(fig)))
    skill = [m for m in (_find(report, "Skill") or {}).get("measures", []) if "upper" in m]
    if skill:
        fig = Figure(figsize=(5, 3.2))
        ax = fig.subplots()
        ys = list(range(len(skill)))
        for y, m in zip(ys, skill):
            ax.errorbar(100 * m["value"], y, xerr=[[100 * (m["value"] - m["low"])], [100 * (m["high"] - m["value"])]],
                        fmt="o", capsize=3, color="#c0392b" if m["low"] > m["expected"] else "#555555")
        ax.axvline(100 * skill[0]["expected"], color="grey", ls="--", lw=1)
        ax.set_yticks(ys, [f"{m['upper']} vs {m['lower']}" for m in skill])
        ax.set_xlim(0, 100)
        ax.set_xlabel("% won by the upper bot (dashed: equal)")
        ax.set_title("skill ladder (95% interval)", fontsize=9)
        out.append(("Skill ladder", _png(fig)))
    curves = [(s["about"], m["curve"]) for s in report["sections"] for m in s["measures"]
              if m["measure"] == "leader at half time wins" and m.get("curve")]
    if curves:
        fig = Figure(figsize=(5, 3.2))
        ax = fig.subplots()
        for label, curve in curves:
            pts = [c for c in curve if c["value"] is not None]
            xs = [100 * c["point"] for c in pts]
            ax.plot(xs, [100 * c["value"] for c in pts], marker="o", label=label[:40])
            ax.fill_between(xs, [100 * c["low"] for c in pts], [100 * c["high"] for c in pts], alpha=0.15)
        ax.axhline(90, color="grey", ls=":", lw=1)
        ax.axhline(100 / report["players"], color="grey", ls="--", lw=1)
        ax.set_xlabel("% of the game's decisions played")
        ax.set_ylabel("% the sole leader wins")
        ax.set_ylim(0, 100)
        ax.set_title("how often the leader at each point wins", fontsize=9)
        ax.legend(fontsize="x-small")
        out.append(("Decisiveness", _png(fig)))
    br = next((m for m in (_find(report, "Convergence and branching") or {}).get("measures", []) if m.get("curve")), None)
    if br:
        fig = Figure(figsize=(5, 3.2))
        ax = fig.subplots()
        pts = [c for c in br["curve"] if c["value"] is not None]
        xs = [100 * c["point"] for c in pts]
        ax.plot(xs, [c["value"] for c in pts], marker="o")
        ax.fill_between(xs, [c["low"] for c in pts], [c["high"] for c in pts], alpha=0.2)
        ax.set_xlabel("% of the game's decisions played")
        ax.set_ylabel("legal options per decision")
        ax.set_ylim(bottom=0)
        ax.set_title("branching through the game (random play)", fontsize=9)
        out.append(("Branching", _png(fig)))
    for by, title in (("seat", "Mean score through the game, per seat (random play)"),
                      ("bot", "Mean score through the game, per bot (ladder games)")):
        lines = report["trends"].get(by) or {}
        if not lines:
            continue
        fig = Figure(figsize=(5, 3.2))
        ax = fig.subplots()
        for label, ys in lines.items():
            pts = [(100 * k / (len(ys) - 1), y) for k, y in enumerate(ys) if y is not None]
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=label)
        ax.set_xlabel("% of the game's decisions played")
        ax.set_ylabel("mean score")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize="x-small")
        out.append((title, _png(fig)))
    for play, rows in (report.get("cards") or {}).items():
        for var in rows:
            top = var["cards"][:15]
            if not top:
                continue
            fig = Figure(figsize=(5, 0.25 * len(top) + 1.2))
            ax = fig.subplots()
            ys = list(range(len(top)))[::-1]
            ax.barh(ys, [100 * c["value"] for c in top], color=["#c0392b" if c["over"] else "tab:blue" for c in top],
                    xerr=[[100 * (c["value"] - c["low"]) for c in top], [100 * (c["high"] - c["value"]) for c in top]])
            ax.scatter([100 * c["deck"] for c in top], ys, marker="|", s=200, color="black", label="share of the deck")
            ax.set_yticks(ys, [c["card"] for c in top], fontsize=7)
            ax.set_xlabel(f"% of the values of {var['variable']}")
            ax.set_title(f"{var['variable']}: cards ({'good' if play == 'good' else 'random'} play)", fontsize=9)
            ax.legend(fontsize="x-small")
            out.append((f"Cards of {var['variable']} ({play} play)", _png(fig)))
    return out


def _table(rows, cols) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def to_html(report: dict) -> str:
    """The whole report as one HTML page (no outside files: the plots are inlined PNGs)."""
    e = html.escape
    g = report["games"]
    parts = [f"<h1>{e(report['game'])}: design analysis</h1>",
             f"<p class=meta>{e(report['file'])} · {report['players']} players · options: "
             f"{e(', '.join(f'{k}={_text(v)}' for k, v in report['options'].items()) or 'none')}<br>"
             f"{g['random']} games of random play"
             + (f", {g['kernel']} kernel games (fairness by seat)" if g["kernel"] else "")
             + "; ladder: " + e(", ".join(f"{k}: {v} game{'s' if v != 1 else ''}" for k, v in g["ladder"].items()))
             + f" · {report['cpu_seconds']:.0f} s of CPU in the games. Every interval is 95%."
             + (" How many games, and why: at the end of the tables." if (report.get("plan") or {}).get("random")
                else "") + "</p>"]
    for s in report["sections"]:
        if not s["measures"]:
            continue
        parts.append(f"<h2>{e(s['title'])}</h2><p class=about>{e(s['about'])}</p>")
        parts.append(_table([(m["measure"], fmt(m), m["games"], m["reading"]) for m in s["measures"]],
                            ("measure", "value (95% interval)", "games", "reading")))
        for m in s["measures"]:
            if m.get("phases"):
                parts.append("<h3>options per decision, by phase</h3>" + _table(
                    [(p["phase"], f"{p['value']:.2f} ({p['low']:.2f}–{p['high']:.2f})", p["games"]) for p in m["phases"]],
                    ("phase", "mean options (95% interval)", "games")))
    plan = report.get("plan") or {}
    if plan.get("random"):
        parts.append(f"<h2>How many games</h2><p class=about>a budget of {plan['budget']:.0f} s of CPU for the "
                     "games; each part's count was chosen from what its first games cost</p>")
        parts.append(_table([("random play", plan["random"]["why"])]
                            + ([("ladder", plan["decisions_note"])] if plan.get("decisions_note") else [])
                            + ([("search budgets", plan["scaled"])] if plan.get("scaled") else [])
                            + [(r["rung"], r["why"]) for r in plan.get("rungs", [])], ("games", "chosen because")))
    if report.get("changed"):
        parts.append("<h2>What changed (B − A)</h2><p class=about>A = " + e(report["compare"]["a"]) + "<br>B = "
                     + e(report["compare"]["b"]) + "<br>the same seeds and bots; paired bootstrap interval</p>")
        parts.append(_table([(r["measure"], f"{r['a']:.3g}", f"{r['b']:.3g}", f"{r['diff']:+.3g}",
                              f"{r['low']:+.3g} … {r['high']:+.3g}", r["games"], r["reading"])
                             for r in report["changed"]], ("measure", "A", "B", "B − A", "95% interval", "games", "reading")))
    parts.append("<h2>Plots</h2><div class=plots>" + "".join(
        f"<figure><img alt='{e(t)}' src='{src}'><figcaption>{e(t)}</figcaption></figure>" for t, src in plots(report))
        + "</div>")
    for play, label in (("good", "good play (the top rung's games)"), ("random", "random play")):
        cards = (report.get("cards") or {}).get(play) or []
        if cards:
            parts.append(f"<h2>Cards that decide ({e(label)})</h2>")
            for var in cards:
                parts.append(f"<p>{e(var['reading'])} ({var['values']} values in {var['games']} games)</p>")
    for play, label in (("good", "good play (the top rung's games)"), ("random", "random play")):
        rules = (report.get("rules") or {}).get(play)
        if not rules:
            continue
        never = rules["never"]
        parts.append(f"<h2>Rule usage: {e(label)}, {rules['games']} games</h2>")
        parts.append(f"<p>{len(never)} of {len(rules['steps'])} steps never ran"
                     + (": " + e("; ".join(f"line {x['line']} {x['label']}" for x in never[:30])) if never else "")
                     + "</p>")
        parts.append(_table([(x["line"], x["label"], f"{x['fires']:.2f} ({x['low']:.2f}–{x['high']:.2f})",
                              f"{100 * x['share']:.0f}%") for x in rules["steps"]],
                            ("line", "step", "runs per game (95% interval)", "games it ran in")))
    style = ("body{font-family:system-ui,sans-serif;max-width:1100px;margin:1.5em auto;padding:0 1em;color:#222}"
             "table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}"
             "td,th{border-bottom:1px solid #ddd;padding:.25em .6em;text-align:left;vertical-align:top}"
             "th{background:#f3f3f3}.meta,.about{color:#555;font-size:.9em}"
             ".plots{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}figcaption{font-size:.8em;color:#555}"
             "img{max-width:520px}")
    return (f"<!doctype html><html lang=en><head><meta charset=utf-8><title>{e(report['game'])}: analysis</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>\n")
