"""The design measures (:mod:`.design`): pure functions of a list of game records (``fairness``,
``skill``, ``drama``, ``branching``, ``duration``, ``rule_usage``, ``card_shares``, ``trends``, and
:func:`changed` for two paired lists). Each measure is a dict with its ``value``, its 95% interval
``low``/``high``, the number of ``games`` it rests on and a one-line ``reading``; docs/analysis.md
defines every one.

Split out of :mod:`.design` (issue 34); :mod:`.design` re-exports every name.
"""
from __future__ import annotations

import math
import random

from ..sim.stats import wilson_interval
from .design_stats import (BOOTSTRAP, EDGE, MAX_DECISIONS, POINTS, SECURE, _bootstrap, _leaders, _mean_interval,
                           _measure, _pct, _rate_words, _share, _unmeasured)


# -- fairness ----------------------------------------------------------------------------------------------
def fairness_index(records) -> float:
    """1 − (½ Σ_seat |w_seat − 1/N|) / (1 − 1/N), ``w_seat`` each seat's share of the wins: 1 when every
    seat wins as often, 0 when one seat wins every game."""
    if not records:
        return 1.0
    n = records[0]["players"]
    if n < 2:
        return 1.0
    w = [sum(_share(r, p) for r in records) / len(records) for p in range(n)]
    return round(1 - 0.5 * sum(abs(x - 1 / n) for x in w) / (1 - 1 / n), 12)  # no 1e-16 for 0


def _first_rate(records) -> float:
    counted = [r for r in records if r["first"] is not None]
    return sum(_share(r, r["first"]) for r in counted) / len(counted) if counted else 0.0


def fairness(records) -> list:
    """Fairness by seat and first player, over games of equal bots: the fairness index (bootstrap
    interval), each seat's win share (Wilson interval) against the expected 1/N, the first player's
    win share and the first-player advantage (w_first − 1/N) / (1 − 1/N) (1: the first player always
    wins, 0: no advantage, negative: a disadvantage)."""
    games = [r for r in records if not r["stalled"]]
    if not games:
        return [_unmeasured("fairness (by seat)", records)] if records else []
    n = games[0]["players"]
    g = len(games)
    expected = 1 / n
    out = []
    f = fairness_index(games)
    lo, hi = _bootstrap(games, fairness_index)
    seats = []
    for p in range(n):
        w = sum(_share(r, p) for r in games)
        a, b = wilson_interval(w, g)
        seats.append({"seat": p, "value": w / g, "low": a, "high": b})
    off = [s for s in seats if s["low"] > expected or s["high"] < expected]
    if off:
        reading = "unfair: " + "; ".join(f"seat {s['seat']} wins {_pct(s['value'])} "
                                         f"({_pct(s['low'])}–{_pct(s['high'])}), not {_pct(expected)}" for s in off)
    else:
        reading = f"fair: every seat wins its share ({_pct(expected)} with {n} players) within the interval"
    out.append(_measure("fairness (by seat)", f, lo, hi, g, reading, expected=expected, seats=seats))
    counted = [r for r in games if r["first"] is not None]
    if counted:
        w = sum(_share(r, r["first"]) for r in counted)
        a, b = wilson_interval(w, len(counted))
        rate = w / len(counted)
        words = _rate_words(rate, a, b, expected)
        out.append(_measure("first player wins", rate, a, b, len(counted),
                            f"the first player (first to decide alone) wins {_pct(rate)}: {words} the "
                            f"{_pct(expected)} share of {n} players", expected=expected))
        scale = 1 - expected
        adv = (rate - expected) / scale
        reading = ("no first-player advantage within the interval" if a <= expected <= b else
                   ("a first-player advantage" if a > expected else "a first-player disadvantage")
                   + f" of {adv:+.2f} (1 = the first player always wins)")
        out.append(_measure("first-player advantage", adv, (a - expected) / scale, (b - expected) / scale,
                            len(counted), reading))
    else:
        why = ("not measured: no game has a first player (no decision was taken by one seat alone: every "
               "decision was in a real-time or simultaneous block)")
        out += [_measure(name, None, None, None, 0, why, not_measured=True)
                for name in ("first player wins", "first-player advantage")]
    return out


# -- skill -------------------------------------------------------------------------------------------------
def skill(pairs: list, why_not: dict | None = None) -> list:
    """For each rung of the ladder ``pairs`` (``[(lower, upper, records), ...]``, in each game one seat
    plays ``upper`` and the others ``lower``): the upper bot's win share (Wilson interval) against
    the 1/N it would have if it played no better, and a last row with the verdict: is there
    strategy (does a better bot win more), and does more search keep helping. A rung without
    finished games gives a row with value None (``not_measured``) whose reading says why: from
    ``why_not`` (``"UPPER vs LOWER"`` -> reason), else that no game finished."""
    out = []
    verdicts = []
    for lower, upper, records in pairs:
        games = [r for r in records if not r["stalled"]]
        if not games:
            why = (why_not or {}).get(f"{upper} vs {lower}") or (
                f"all {len(records)} games stalled at {MAX_DECISIONS} decisions" if records else
                "no game was played: the CPU budget was spent before this rung's first game")
            out.append(_measure(f"skill: {upper} vs {lower}", None, None, None, 0, f"not measured: {why}",
                                not_measured=True))
            continue
        n = games[0]["players"]
        expected = 1 / n
        w = 0.0
        for r in games:
            seat = next((p for p, b in enumerate(r["bots"]) if b == upper), None)
            w += _share(r, seat) if seat is not None else 0.0
        a, b = wilson_interval(w, len(games))
        rate = w / len(games)
        if a > expected:
            reading = f"{upper} beats {lower}: it wins {_pct(rate)} against the {_pct(expected)} of an equal player"
        elif b < expected:
            reading = f"{upper} does worse than {lower} ({_pct(rate)} against {_pct(expected)})"
        elif b < expected + EDGE:
            reading = (f"{upper} is no better than {lower} within the interval ({_pct(rate)}; {_pct(expected)} "
                       f"if equal; an edge of {100 * EDGE:.0f} points or more is excluded)")
        else:
            reading = (f"not enough games to tell whether {upper} beats {lower} ({_pct(rate)}, {_pct(a)}–{_pct(b)}; "
                       f"{_pct(expected)} if equal)")
        verdicts.append((lower, upper, a > expected, b < expected))
        out.append(_measure(f"skill: {upper} vs {lower}", rate, a, b, len(games), reading, expected=expected,
                            lower=lower, upper=upper))
    if verdicts:
        out.append(_verdict(out, verdicts))
    elif out:
        out.append(_measure("strategy", None, None, None, 0, "not measured: no rung of the ladder was played "
                            "(see the rows above)", not_measured=True))
    return out


def _rung_status(m) -> str:
    """What a rung's interval (``m``: a skill row) shows: ``better`` (it lies above the equal share
    1/N), ``worse`` (below), ``equal`` (it holds 1/N and excludes an edge of EDGE or more), or
    ``unknown`` (it holds 1/N but is too wide to exclude an edge of EDGE: not enough games)."""
    e = m["expected"]
    if m["low"] > e:
        return "better"
    if m["high"] < e:
        return "worse"
    return "equal" if m["high"] < e + EDGE else "unknown"


def _verdict(rows, verdicts) -> dict:
    """The ``strategy`` row over the rung rows: a claim only where the intervals support it (see
    :func:`_rung_status`); where they do not, it says there are not enough games to tell."""
    missing = [m["measure"][len("skill: "):] for m in rows if m.get("not_measured")]
    rungs = [m for m in rows if "upper" in m]
    status = {(m["lower"], m["upper"]): _rung_status(m) for m in rungs}
    better = [m for m in rungs if status[(m["lower"], m["upper"])] == "better"]
    unknown = [m for m in rungs if status[(m["lower"], m["upper"])] == "unknown"]

    def show(m):
        return f"{m['upper']} vs {m['lower']} {_pct(m['value'])} ({_pct(m['low'])}–{_pct(m['high'])})"
    edge = f"{100 * EDGE:.0f} points"
    if not better and unknown:
        reading = ("not enough games to tell whether there is strategy: no rung wins more than an equal player "
                   "within its interval, but " + "; ".join(show(m) for m in unknown)
                   + f" cannot exclude an edge of {edge} (play more ladder games)")
    elif not better:
        reading = (f"no strategy: no bot of the ladder wins more than an equal player, and each interval "
                   f"excludes an edge of {edge} or more")
    else:
        reading = "there is strategy (" + ", ".join(f"{m['upper']} > {m['lower']}" for m in better) + ")"
        deeper = [m for m in rungs if m["lower"] != "random"]  # more search than the rung below
        if deeper:
            reading += _deeper_search(deeper, status, show, edge, missing)
    if missing:
        reading += "; not measured: " + ", ".join(missing) + " (see their rows)"
    # a verdict over the rungs above, not a measure of its own: its value is the number of rungs
    # whose upper bot wins more than an equal player (no interval: each rung has its own)
    return _measure("strategy", len(better), len(better), len(better), sum(m["games"] for m in rungs),
                    reading, rungs=len(verdicts), verdict=True)


def _deeper_search(deeper, status, show, edge, missing) -> str:
    """The verdict's clause on more search (``deeper``: the skill rows whose lower bot is not random,
    weakest first; ``status``: (lower, upper) -> :func:`_rung_status`). It agrees with every rung:
    "keeps helping" when each beats the one below; "stops helping after L" (or "does worse after
    L") only when no rung above L beats the one below it nor is too wide to tell; when a rung
    above one that did not help does beat its lower bot, both are named ("does not help at every
    rung")."""
    def st(m):
        return status[(m["lower"], m["upper"])]
    i = next((k for k, m in enumerate(deeper) if st(m) != "better"), None)
    if i is None:
        return "; more search keeps helping" + (f" up to {deeper[-1]['upper']}" if missing else "")
    first, later = deeper[i], deeper[i + 1:]
    helps = [m for m in later if st(m) == "better"]
    unsure = next((m for m in [first] + later if st(m) == "unknown"), None)
    if helps:
        said = {"equal": f"{first['upper']} is no better than {first['lower']}",
                "worse": f"{first['upper']} does worse than {first['lower']}",
                "unknown": f"not enough games to tell whether {first['upper']} beats {first['lower']}"}[st(first)]
        return (f"; more search does not help at every rung: {said} ({show(first)}), but "
                + ", ".join(f"{m['upper']} > {m['lower']} ({show(m)})" for m in helps))
    if unsure is first:
        return f"; not enough games to tell whether more search than {first['lower']} helps ({show(first)})"
    if unsure is not None:
        said = "is no better than" if st(first) == "equal" else "does worse than"
        return (f"; {first['upper']} {said} {first['lower']} ({show(first)}); not enough games to tell "
                f"whether more search than {unsure['lower']} helps ({show(unsure)})")
    if st(first) == "equal":
        return (f"; more search stops helping after {first['lower']} ({show(first)}: "
                f"an edge of {edge} or more is excluded)")
    return f"; more search does worse after {first['lower']} ({show(first)})"


# -- decisiveness and drama --------------------------------------------------------------------------------
def _leader_won(records, k) -> list:
    """1/0 per game with a sole leader at point ``k``: did that leader win (a shared win counts its share)."""
    return [_share(r, r["leaders"][k]) for r in records if r["leaders"][k] is not None]


def _secure_point(records) -> float:
    """The first point (fraction of the game) from which the leader wins at least SECURE of the time at
    every later point (1.0: only at the end)."""
    k_all = len(records[0]["leaders"]) if records else POINTS
    point = k_all
    for k in range(k_all - 1, -1, -1):
        xs = _leader_won(records, k)
        if xs and sum(xs) / len(xs) >= SECURE:
            point = k
        else:
            break
    return point / k_all


def _behind_at(record, k) -> float:
    """1 when every winner was strictly behind the best score at point ``k``, else 0."""
    row = record["points"][k]
    lead = _leaders(row, record["lowest"])
    return 1.0 if record["winners"] and not set(record["winners"]) & set(lead) else 0.0


def drama(records) -> list:
    """Decisiveness and drama over finished games: how often the leader at each tenth of the game wins
    (Wilson intervals); how often the eventual winner was behind at half time (Wilson); lead changes
    per game (normal interval); the point after which the leader wins with SECURE confidence
    (bootstrap interval)."""
    games = [r for r in records if not r["stalled"] and r["winners"]]
    if not games:
        return [_unmeasured("leader at half time wins", records)] if records else []
    out = []
    k_all = len(games[0]["leaders"])
    curve = []
    for k in range(k_all):
        xs = _leader_won(games, k)
        w = sum(xs)
        a, b = wilson_interval(w, len(xs)) if xs else (0.0, 1.0)
        curve.append({"point": k / k_all, "value": w / len(xs) if xs else None, "low": a, "high": b,
                      "games": len(xs)})
    half = curve[k_all // 2]
    if half["value"] is not None:
        out.append(_measure("leader at half time wins", half["value"], half["low"], half["high"], half["games"],
                            f"the sole leader half-way through wins {_pct(half['value'])} of games "
                            f"(an equal chance is {_pct(1 / games[0]['players'])})", curve=curve))
    else:
        out.append(_measure("leader at half time wins", None, None, None, 0, "not measured: no game had a sole "
                            "leader half-way through (scores tied or not computable then)", not_measured=True,
                            curve=curve))
    xs = [_behind_at(r, k_all // 2) for r in games]
    a, b = wilson_interval(sum(xs), len(xs))
    v = sum(xs) / len(xs)
    out.append(_measure("winner was behind at half time", v, a, b, len(xs),
                        f"the winner trailed half-way through in {_pct(v)} of games"
                        + (" (comebacks are common)" if v >= 0.3 else " (comebacks are rare)" if v < 0.1 else "")))
    m, lo, hi = _mean_interval([r["lead_changes"] for r in games])
    out.append(_measure("lead changes per game", m, lo, hi, len(games),
                        f"the sole lead changes hands {m:.1f} times a game"))
    p = _secure_point(games)
    lo, hi = _bootstrap(games, _secure_point)
    reading = ("the winner is not known with 90% confidence before the end" if p >= 1 else
               f"from {_pct(p)} of the game on, the leader wins at least 90% of the time")
    out.append(_measure("winner known (90%) from", p, lo, hi, len(games), reading))
    return out


# -- convergence and branching -----------------------------------------------------------------------------
def branching(records) -> list:
    """Legal options per decision: over the whole game, per tenth of the game and per phase (each the
    mean over games of the game's mean, normal interval), and the share of forced decisions."""
    games = [r for r in records if r["decisions"]]
    if not games:
        return []
    out = []
    m, lo, hi = _mean_interval([r["options_total"] / r["decisions"] for r in games])
    curve = []
    k_all = len(games[0]["options_by_point"])
    for k in range(k_all):
        xs = [r["options_by_point"][k] for r in games if r["options_by_point"][k] is not None]
        a, b, c = _mean_interval(xs) if xs else (None, None, None)  # a game of < 10 decisions skips tenths
        curve.append({"point": k / k_all, "value": a, "low": b, "high": c, "games": len(xs)})
    held = [c for c in curve if c["games"]]
    start, end = held[0]["value"], held[-1]["value"]
    trend = ("choices narrow through the game" if end < 0.8 * start else
             "choices widen through the game" if end > 1.25 * start else "choices stay about as wide")
    first, last = ("first tenth", "last") if held[0] is curve[0] and held[-1] is curve[-1] else (
        f"first tenth with a decision ({_pct(held[0]['point'])})", f"last ({_pct(held[-1]['point'])})")
    out.append(_measure("options per decision", m, lo, hi, len(games),
                        f"{m:.1f} legal options per decision on average; {trend} "
                        f"({start:.1f} in the {first}, {end:.1f} in the {last})", curve=curve))
    phases: dict = {}
    for r in games:
        for ph, (s, c) in r["options_by_phase"].items():
            phases.setdefault(ph, []).append(s / c)
    rows = []
    for ph, xs in sorted(phases.items()):
        a, b, c = _mean_interval(xs)
        rows.append({"phase": ph, "value": a, "low": b, "high": c, "games": len(xs)})
    out[-1]["phases"] = rows
    forced = sum(r["forced"] for r in games)
    total = sum(r["decisions"] for r in games)
    a, b = wilson_interval(forced, total)
    out.append(_measure("forced decisions", forced / total, a, b, len(games),
                        f"{_pct(forced / total)} of decisions have a single legal option "
                        f"(interval over {total} decisions)"))
    return out


# -- duration ----------------------------------------------------------------------------------------------
def duration(records) -> list:
    """Decisions per game, entries of each phase per game (rounds, tricks: named by the spec's phases;
    normal intervals), and the share of games stopped at MAX_DECISIONS (Wilson)."""
    if not records:
        return []
    out = []
    g = len(records)
    m, lo, hi = _mean_interval([r["decisions"] for r in records])
    out.append(_measure("decisions per game", m, lo, hi, g, f"a game takes {m:.0f} decisions"))
    phases = sorted({ph for r in records for ph in r["entries"]})
    for ph in phases:
        m, lo, hi = _mean_interval([r["entries"].get(ph, 0) for r in records])
        out.append(_measure(f"'{ph}' per game", m, lo, hi, g, f"the phase {ph} runs {m:.1f} times a game"))
    stalled = sum(1 for r in records if r["stalled"])
    a, b = wilson_interval(stalled, g)
    out.append(_measure("games stalled", stalled / g, a, b, g,
                        f"{stalled} of {g} games were still running after {MAX_DECISIONS} decisions"
                        if stalled else "every game ended before the cap"))
    return out


# -- rule usage --------------------------------------------------------------------------------------------
def rule_usage(records, steps: dict | None = None) -> dict:
    """How often each spec step ran: ``{"steps": [{step, fires (mean per game), low, high, share (of
    games it ran in)}...], "never": [step ids that never ran], "games": n}``; ``steps`` (step id ->
    ``{"label", "line", "inactive"}``, from the rule-flow graph) adds labels and lists in ``never``
    the active steps that never ran (else only the traced ones are known)."""
    g = len(records)
    ids = set(steps or {}) | {s for r in records for s in r["steps"]}
    rows = []
    for sid in ids:
        info = (steps or {}).get(sid, {})
        if info.get("inactive"):
            continue
        m, lo, hi = _mean_interval([r["steps"].get(sid, 0) for r in records])
        share = sum(1 for r in records if r["steps"].get(sid)) / g if g else 0.0
        rows.append({"step": sid, "label": info.get("label", sid), "line": info.get("line", 0), "kind": info.get("kind"),
                     "fires": m, "low": lo, "high": hi, "share": share})
    rows.sort(key=lambda x: (x["line"], x["step"]))
    never = [x for x in rows if x["fires"] == 0]
    return {"steps": rows, "never": never, "games": g}


def step_counts(records) -> dict:
    """``{step_id: runs}`` summed over ``records``: a trace as ``rulebook diagram --trace`` reads it."""
    out: dict = {}
    for r in records:
        for sid, k in r["steps"].items():
            out[sid] = out.get(sid, 0) + k
    return out


def card_shares(records, deck: dict) -> list:
    """For each game variable that held cards (e.g. the card that won the trick): each card name's share
    of the values it took (Wilson interval) against its share of the deck (``deck``: name -> copies),
    and ``ratio`` = share / deck share; a card is ``over`` when its interval lies above twice its deck
    share."""
    total_deck = sum(deck.values()) or 1
    out = []
    names = sorted({v for r in records for v in r["picks"]})
    for var in names:
        counts: dict = {}
        for r in records:
            for c, k in r["picks"].get(var, {}).items():
                counts[c] = counts.get(c, 0) + k
        total = sum(counts.values())
        rows = []
        for c, k in sorted(counts.items(), key=lambda x: -x[1]):
            a, b = wilson_interval(k, total)
            base = deck.get(c, 0) / total_deck
            rows.append({"card": c, "count": k, "value": k / total, "low": a, "high": b, "deck": base,
                         "ratio": (k / total) / base if base else None, "over": bool(base and a > 2 * base)})
        over = [x for x in rows if x["over"]]
        reading = (f"{var}: " + ", ".join(f"{x['card']} {_pct(x['value'])} (deck {_pct(x['deck'])})" for x in over[:5])
                   + " — far more than their share of the deck" if over else
                   f"{var}: no card takes far more than its share of the deck")
        out.append({"variable": var, "values": total, "games": len(records), "cards": rows, "reading": reading})
    return out


# -- trends --------------------------------------------------------------------------------------------------
def trends(records, by: str = "seat") -> dict:
    """Mean score at each of the POINTS + 1 points of the game: ``{label: [mean or None, ...]}``, per seat
    (``by="seat"``) or per bot (``by="bot"``: every seat's score under the bot it was played by)."""
    sums: dict = {}
    for r in records:
        for k, row in enumerate(r["points"]):
            for p, s in enumerate(row):
                if s is None:
                    continue
                label = f"seat {p}" if by == "seat" else r["bots"][p]
                acc = sums.setdefault(label, [[0.0, 0] for _ in r["points"]])
                acc[k][0] += s
                acc[k][1] += 1
    return {label: [s / c if c else None for s, c in acc] for label, acc in sorted(sums.items())}


# -- what changed ----------------------------------------------------------------------------------------
def scalars(records, cards: int = 12) -> dict:
    """The measures :func:`changed` compares: name -> ``f(records)`` (a number); of the cards each
    card-valued variable took, the ``cards`` taken most often in ``records``."""
    out = {"fairness index": fairness_index, "first player wins": _first_rate,
           "decisions per game": lambda rs: sum(r["decisions"] for r in rs) / len(rs),
           "lead changes per game": lambda rs: sum(r["lead_changes"] for r in rs) / len(rs),
           "winner behind at half time": lambda rs: sum(_behind_at(r, len(r["leaders"]) // 2) for r in rs) / len(rs),
           "options per decision": lambda rs: sum(r["options_total"] for r in rs) / max(1, sum(r["decisions"] for r in rs))}
    n = records[0]["players"] if records else 0
    for p in range(n):
        out[f"seat {p} win share"] = (lambda p: lambda rs: sum(_share(r, p) for r in rs) / len(rs))(p)
    for ph in sorted({ph for r in records for ph in r["entries"]}):
        out[f"'{ph}' per game"] = (lambda ph: lambda rs: sum(r["entries"].get(ph, 0) for r in rs) / len(rs))(ph)
    for var in sorted({v for r in records for v in r["picks"]}):
        totals: dict = {}
        for r in records:
            for c, k in r["picks"].get(var, {}).items():
                totals[c] = totals.get(c, 0) + k
        for c in sorted(sorted(totals, key=lambda c: -totals[c])[:cards]):  # the cards taken most often
            def share(rs, var=var, c=c):
                tot = sum(sum(r["picks"].get(var, {}).values()) for r in rs)
                return sum(r["picks"].get(var, {}).get(c, 0) for r in rs) / tot if tot else 0.0
            out[f"{var} = {c} (share)"] = share
    return out


def changed(records_a, records_b, reps: int = BOOTSTRAP, seed: int = 0) -> list:
    """Each measure of :func:`scalars` under A and B (records of the same seeds, in the same order) with
    the difference B − A and its 95% paired bootstrap interval (games resampled as pairs). Rows:
    ``{measure, a, b, diff, low, high, games, reading}``."""
    pairs = [(a, b) for a, b in zip(records_a, records_b) if not a["stalled"] and not b["stalled"]]
    if not pairs:
        return []
    ra = [a for a, _ in pairs]
    rb = [b for _, b in pairs]
    measured = scalars(ra + rb)  # the same measures for both (phases and cards of A or B)
    return [dict(row, measure=name) for name, f in measured.items() for row in _changed_fn(ra, rb, f, reps, seed)]


def _changed_fn(ra, rb, f, reps: int = BOOTSTRAP, seed: int = 0) -> list:
    if not ra:
        return []
    rng = random.Random(seed)
    n = len(ra)
    diffs = sorted(f([rb[i] for i in s]) - f([ra[i] for i in s])
                   for s in ([rng.randrange(n) for _ in range(n)] for _ in range(reps)))
    va, vb = f(ra), f(rb)
    lo, hi = diffs[int(0.025 * (reps - 1))], diffs[int(math.ceil(0.975 * (reps - 1)))]
    sig = lo > 0 or hi < 0
    return [{"measure": "", "a": va, "b": vb, "diff": vb - va, "low": lo, "high": hi, "games": n,
             "reading": f"{'up' if vb > va else 'down'} from {va:.3g} to {vb:.3g}" if sig else
             "no change within the interval", "changed": sig}]
