"""Design measures from simulated play (``rulebook analyze``): does the game play well, and why.

Three parts, each usable alone:

* :func:`record_game` plays one game with the step API and returns its **record**: plain data
  (JSON-serialisable, small) with what the measures need: the seats' bots, the winners, the first
  player, the seat, number of legal options and phase of every decision, the scores sampled at
  POINTS + 1 evenly spaced points of the game (``0%, 10%, ... 100%`` of its decisions), the lead
  changes, how often each spec step ran (the engine's trace) and each phase was entered, and the
  cards that game variables took as values (the card that won a trick, when the spec keeps it in a
  variable).
* Pure functions of a list of records (``fairness``, ``skill``, ``drama``, ``branching``,
  ``duration``, ``rule_usage``, ``card_shares``, ``trends``; and :func:`changed` for two paired
  lists): each measure a dict with its ``value``, its 95% interval ``low``/``high``, the number of
  ``games`` it rests on and a one-line ``reading``. They take synthetic records as well (tests).
* :func:`analyze` plays the games (random play, then a ladder of bots, see LADDER) and returns the
  report (a dict), on this process, ``jobs`` worker processes or Dask.

docs/analysis.md defines every measure with its formula and the source it follows.
"""
from __future__ import annotations

import math
import random
import time

from ..sim.stats import wilson_interval

POINTS = 10               # the game is cut into this many equal parts of its decisions
MAX_DECISIONS = 5000      # a game still running after this many decisions is stopped and counted as stalled
LADDER = ("random", "greedy:8", "ismcts:10", "ismcts:40")  # each rung is tested against the one below
Z95 = 1.959963984540054
BOOTSTRAP = 400           # resamples of the bootstrap intervals (seeded: the same report every run)
PILOT_RANDOM = 5          # analyze's plan: random games played before choosing how many
RANDOM_SHARE = 0.25       # the share of the CPU budget random play may take
PILOT_DECISIONS = 12      # decisions of each rung's pilot game (its cost per decision)
PILOT_SHARE = 0.04        # a pilot stops after this share of the budget
MIN_LADDER_GAMES = 20     # fewer games a rung than this: the search budgets are cut, then the top rung left out
SCALES = (1, 2, 4)        # the cuts of the search bots' iteration budgets tried when the ladder does not fit
SECURE = 0.9              # "the winner is known": the leader wins this often from that point on
EDGE = 0.15               # skill: "no better" is claimed only when the interval excludes this edge over 1/N


# -- one game -------------------------------------------------------------------------------------------
def record_game(game, num_players: int, seed: int, kinds: dict, max_decisions: int = MAX_DECISIONS,
                schedule: str = "round-robin", speeds: dict | None = None, cpu_limit: float | None = None,
                timings: list | None = None) -> dict:
    """Play game ``seed`` of ``game`` (a compiled Game) with the bots ``kinds`` (seat -> ``KIND[:budget]``,
    others random; the same bots as ``rulebook simulate --seed`` and ``--bot`` give) and return its
    record (see the module doc and :func:`summarise`). Stops after ``max_decisions`` decisions, or
    (a pilot) at the first decision after ``cpu_limit`` seconds of CPU (``stalled`` either way);
    ``timings``, when given, gets ``(seat, CPU seconds, phase)`` of each decision. Raises RuleError naming
    the seed when the rules fail."""
    from ..agents.basic import step
    from ..agents.registry import bots_for
    from ..agents.schedule import Scheduler
    from ..errors import RulebookError, RuleError
    from ..model.cards import Card
    cpu = time.process_time()
    trace: dict = {}
    state = game.new_state(num_players, seed, trace=trace)
    agents = bots_for(seed, num_players, kinds)
    for agent in dict.fromkeys(agents):
        agent.reset()
    scheduler = Scheduler(schedule, seed, speeds)
    seats, options, phases, scores = [], [], [], []
    first = None
    picks: dict = {}
    last: dict = {}
    stalled = False
    try:
        while not state.is_terminal():
            if len(seats) >= max_decisions or cpu_limit is not None and time.process_time() - cpu > cpu_limit:
                stalled = True
                break
            t0 = time.process_time()
            p = scheduler.next_player(state)
            if first is None and not (state.pending or {}).get("simultaneous") and len(state.current_players()) == 1:
                first = p
            seats.append(p)
            options.append(len(state.legal_actions(p)))
            phases.append(state.stack[-1][0] if state.stack else "flow")
            scores.append(_scores(state))
            step(state, agents, p)
            scheduler.acted(p)
            if timings is not None:
                timings.append((p, time.process_time() - t0, phases[-1]))
            for name, value in state.vars.items():
                if isinstance(value, Card) and last.get(name) is not value:
                    picks.setdefault(name, {}).setdefault(value.name, 0)
                    picks[name][value.name] += 1
                last[name] = value
    except RulebookError as exc:
        raise RuleError(f"{exc}\n    in the game of seed {seed} (bots: "
                        + ", ".join(f"seat {p} {k}" for p, k in sorted(kinds.items())) + ")") from None
    final = _scores(state)
    scores.append(final)
    best = (min if game.winner_rule == "lowest" else max)(final) if None not in final else None
    winners = [p for p, s in enumerate(final) if s == best] if not stalled else []
    raw = {"seed": seed, "players": num_players, "bots": [kinds.get(p, "random") for p in range(num_players)],
           "lowest": game.winner_rule == "lowest", "winners": winners, "stalled": stalled, "first": first,
           "seats": seats, "options": options, "phases": phases, "scores": scores,
           "steps": trace, "entries": phase_entries(game, trace), "picks": picks}
    record = summarise(raw)
    record["cpu"] = time.process_time() - cpu
    return record


def _scores(state) -> list:
    """The spec's scores now (None for a seat whose score cannot be computed yet)."""
    from ..errors import RulebookError
    try:
        return [s if isinstance(s, (int, float)) and not isinstance(s, bool) else None for s in state.scores()]
    except RulebookError:
        return [None] * state.num_players


def phase_entries(game, trace: dict) -> dict:
    """How often each phase was entered, from a trace ``{step_id: count}``: the counts of the
    ``phase:`` steps that call it (``{phase name: count}``)."""
    calls = getattr(game, "_design_calls", None)
    if calls is None:
        calls = {}
        for prog in game.programs.values():
            for instr in prog:
                if getattr(instr, "kind", None) == "phase" and instr.step_id is not None:
                    calls[instr.step_id] = instr.phase
        game._design_calls = calls
    out: dict = {}
    for sid, phase in calls.items():
        if trace.get(sid):
            out[phase] = out.get(phase, 0) + trace[sid]
    return out


def _leaders(row, lowest: bool) -> list:
    known = [s for s in row if s is not None]
    if not known:
        return []
    best = min(known) if lowest else max(known)
    return [p for p, s in enumerate(row) if s == best]


def summarise(raw: dict, points: int = POINTS) -> dict:
    """The record of a game from its raw data: ``raw`` has ``players``, ``bots`` (kind per seat),
    ``lowest`` (winner: lowest score), ``winners`` (seats), ``stalled``, ``first`` (the seat of the
    first turn-based decision, or None), per decision ``seats``, ``options`` (number of legal
    actions) and ``phases``, ``scores`` (one row per decision, taken before it, then the final
    row: ``len(seats) + 1`` rows), ``steps`` ({step_id: count}), ``entries`` ({phase: count}),
    ``picks`` ({variable: {card name: count}}). Returns the record the measures read: the same
    counts and, instead of the per-decision lists, ``decisions``, ``points`` (scores at
    ``points + 1`` evenly spaced points), ``leaders`` (the sole leader at each point but the last,
    or None on a tie), ``lead_changes``, ``options_by_point`` (mean options in each tenth, or
    None), ``options_by_phase`` ({phase: [sum, count]}), ``forced`` (decisions with one option)."""
    n = raw["players"]
    d = len(raw["seats"])
    rows = raw["scores"]
    lowest = raw.get("lowest", False)
    at = [rows[min(len(rows) - 1, round(k * d / points))] for k in range(points + 1)]
    leaders = []
    for row in at[:-1]:
        lead = _leaders(row, lowest)
        leaders.append(lead[0] if len(lead) == 1 else None)
    changes, current = 0, None
    for row in rows:
        lead = _leaders(row, lowest)
        if len(lead) == 1:
            if current is not None and lead[0] != current:
                changes += 1
            current = lead[0]
    by_point = []
    for k in range(points):
        part = raw["options"][k * d // points:(k + 1) * d // points]
        by_point.append(sum(part) / len(part) if part else None)
    by_phase: dict = {}
    for o, ph in zip(raw["options"], raw["phases"]):
        acc = by_phase.setdefault(ph, [0, 0])
        acc[0] += o
        acc[1] += 1
    return {"seed": raw.get("seed"), "players": n, "bots": list(raw["bots"]), "lowest": lowest,
            "winners": list(raw["winners"]), "stalled": bool(raw["stalled"]), "first": raw["first"],
            "decisions": d, "points": [list(r) for r in at], "leaders": leaders, "lead_changes": changes,
            "options_by_point": by_point, "options_by_phase": by_phase,
            "forced": sum(1 for o in raw["options"] if o == 1), "options_total": sum(raw["options"]),
            "steps": dict(raw.get("steps", {})), "entries": dict(raw.get("entries", {})),
            "picks": {k: dict(v) for k, v in raw.get("picks", {}).items()}}


# -- statistics --------------------------------------------------------------------------------------------
def _share(record, seat) -> float:
    w = record["winners"]
    return 1 / len(w) if seat in w else 0.0


def _mean_interval(xs) -> tuple:
    """``(mean, low, high)``: the mean of ``xs`` and its 95% normal interval (mean ± 1.96·sd/√n)."""
    n = len(xs)
    if not n:
        return (0.0, 0.0, 0.0)
    m = sum(xs) / n
    if n < 2:
        return (m, m, m)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = Z95 * sd / math.sqrt(n)
    return (m, m - h, m + h)


def _bootstrap(records, f, reps: int = BOOTSTRAP, seed: int = 0) -> tuple:
    """The 95% percentile bootstrap interval ``(low, high)`` of ``f(records)`` (resampling games)."""
    if len(records) < 2:
        v = f(records) if records else 0.0
        return (v, v)
    rng = random.Random(seed)
    n = len(records)
    vals = sorted(f([records[rng.randrange(n)] for _ in range(n)]) for _ in range(reps))
    return (vals[int(0.025 * (reps - 1))], vals[int(math.ceil(0.975 * (reps - 1)))])


def _measure(name, value, low, high, games, reading, **more) -> dict:
    return dict({"measure": name, "value": value, "low": low, "high": high, "games": games,
                 "reading": reading}, **more)


def _unmeasured(name, records) -> dict:
    """The row of a measure that no finished game of ``records`` (all stalled) can give."""
    return _measure(name, None, None, None, 0, f"not measured: none of the {len(records)} games finished within "
                    f"{MAX_DECISIONS} decisions", not_measured=True)


def _pct(x) -> str:
    return f"{100 * x:.0f}%"


def _rate_words(value, low, high, expected) -> str:
    if low > expected:
        return "more than"
    if high < expected:
        return "less than"
    return "within the interval of"


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
            first = next((m for m in deeper if status[(m["lower"], m["upper"])] != "better"), None)
            st = status[(first["lower"], first["upper"])] if first else None
            if first is None:
                reading += "; more search keeps helping" + (f" up to {deeper[-1]['upper']}" if missing else "")
            elif st == "equal":
                reading += (f"; more search stops helping after {first['lower']} ({show(first)}: "
                            f"an edge of {edge} or more is excluded)")
            elif st == "worse":
                reading += f"; more search does worse after {first['lower']} ({show(first)})"
            else:
                reading += (f"; not enough games to tell whether more search than {first['lower']} helps "
                            f"({show(first)})")
    if missing:
        reading += "; not measured: " + ", ".join(missing) + " (see their rows)"
    # a verdict over the rungs above, not a measure of its own: its value is the number of rungs
    # whose upper bot wins more than an equal player (no interval: each rung has its own)
    return _measure("strategy", len(better), len(better), len(better), sum(m["games"] for m in rungs),
                    reading, rungs=len(verdicts), verdict=True)


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
        a, b, c = _mean_interval(xs)
        curve.append({"point": k / k_all, "value": a, "low": b, "high": c, "games": len(xs)})
    start, end = curve[0]["value"], curve[-1]["value"]
    trend = ("choices narrow through the game" if end < 0.8 * start else
             "choices widen through the game" if end > 1.25 * start else "choices stay about as wide")
    out.append(_measure("options per decision", m, lo, hi, len(games),
                        f"{m:.1f} legal options per decision on average; {trend} "
                        f"({start:.1f} in the first tenth, {end:.1f} in the last)", curve=curve))
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


# -- playing the games ---------------------------------------------------------------------------------------
def _record_chunk(file, text, options, fingerprint, num_players, tasks, schedule="round-robin", speeds=None):
    """Worker of a parallel run (a process of ``jobs`` or a Dask worker): the records of ``tasks``
    (``[(seed, kinds), ...]``) of the game sent as text (see interpreter.sim.simulate._worker_game)."""
    from ..sim.simulate import _worker_game
    game = _worker_game(file, text, options, fingerprint)
    return [record_game(game, num_players, s, k, schedule=schedule, speeds=speeds) for s, k in tasks]


class _Player:
    """Plays lists of games (``[(seed, kinds), ...]``) here, on ``jobs`` worker processes, or on Dask
    (the pools of interpreter.sim.simulate / dask_backend), returning their records in order."""

    def __init__(self, game, num_players, jobs=1, backend="process", address=None, schedule="round-robin",
                 speeds=None):
        self.game, self.n, self.jobs, self.backend, self.address = game, num_players, jobs, backend, address
        self.schedule, self.speeds = schedule, speeds
        self.pool = None
        self._ctx = None

    def __enter__(self):
        if self.jobs > 1 or self.backend == "dask":
            import os
            from ..errors import RulebookError
            from ..sim import simulate as sim
            from ..spec.compile import fingerprint
            from ..spec.loader import read_text
            text = read_text(self.game.file)
            if fingerprint(text, self.game.options) != self.game.fingerprint:
                raise RulebookError(f"{self.game.file} changed since it was loaded: load it again to analyse it")
            self.args = (self.game.file, text, self.game.options, self.game.fingerprint, self.n)
            sim._FORKED.update(pid=os.getpid(), games={self.game.fingerprint: self.game})
            if self.backend == "dask":
                from ..sim.dask_backend import dask_pool
                self._ctx = dask_pool(self.address, self.jobs)
                self.pool = self._ctx.__enter__()
            else:
                from concurrent.futures import ProcessPoolExecutor
                self._ctx = ProcessPoolExecutor(max_workers=self.jobs)
                self.pool = sim._Pool(self._ctx.__enter__(), self.jobs)
        return self

    def __exit__(self, *exc):
        if self._ctx is not None:
            return self._ctx.__exit__(*exc)
        return False

    def play(self, tasks, done=None) -> list:
        """The records of ``tasks`` in order; ``done(k)`` is called with the number of games finished."""
        if self.pool is None:
            out = []
            for t in tasks:
                out.append(record_game(self.game, self.n, *t, schedule=self.schedule, speeds=self.speeds))
                if done is not None:
                    done(1)
            return out
        size = max(1, min(10, len(tasks) // (self.pool.workers * 3) or 1))
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        futures = {self.pool.submit(_record_chunk, *self.args, c, self.schedule, self.speeds): k
                   for k, c in enumerate(chunks)}
        results: dict = {}
        pending = set(futures)
        while pending:
            finished, pending = self.pool.wait(pending)
            for fut in finished:
                results[futures[fut]] = fut.result()
                if done is not None:
                    done(len(results[futures[fut]]))
        return [r for k in range(len(chunks)) for r in results[k]]


def ladder_tasks(ladder, num_players: int, seed: int, start: int, count: int) -> list:
    """The games ``start .. start + count - 1`` of each rung of ``ladder`` (``[(lower, upper, [(seed,
    kinds), ...]), ...]``): game ``i`` has seed ``seed + i`` (the same deals for every rung) and
    ``upper`` at seat ``i mod N``, ``lower`` at the others."""
    out = []
    for lower, upper in zip(ladder, ladder[1:]):
        tasks = []
        for i in range(start, start + count):
            kinds = {p: lower for p in range(num_players) if lower != "random"}
            kinds[i % num_players] = upper
            tasks.append((seed + i, kinds))
        out.append((lower, upper, tasks))
    return out


def deck_counts(game, num_players: int) -> dict:
    """Copies of each card name in a game of ``num_players`` (the deck the shares are compared with)."""
    out: dict = {}
    for cid in game.cards_in_play(num_players):
        name = game.cards[cid].name
        out[name] = out.get(name, 0) + 1
    return out


def step_labels(game) -> dict:
    """Step id -> ``{"label", "line", "kind", "inactive"}`` of every step of the rule-flow graph (rule
    usage names steps by these; the graph's start, phase-entry and game-over nodes are not steps)."""
    from .graph import flow_graph
    G = flow_graph(game)
    return {nid: {"label": d.get("label", nid), "line": d.get("line", 0), "kind": d.get("kind"),
                  "inactive": bool(d.get("inactive"))}
            for nid, d in G.nodes(data=True) if d.get("kind") not in ("start", "game_over", "phase")}


def play_all(game, num_players: int, seed: int = 0, games: int | None = None, ladder=LADDER,
             ladder_games: int | None = None, cpu_budget: float = 360.0, max_ladder_games: int = 200,
             jobs: int = 1, backend: str = "process", address: str | None = None, fast: bool = True,
             fast_games: int = 4000, progress=None, schedule: str = "round-robin", speeds: dict | None = None,
             max_games: int = 200) -> dict:
    """Play what :func:`measures` needs within ``cpu_budget`` seconds of CPU for all the games (measured
    by the games themselves, on every process), choosing how many games each part gets from what its
    first games cost (the plan; see docs/analysis.md "How many games"):

    * random play: ``games`` games, or (None) a pilot of PILOT_RANDOM games, then as many as fit in
      RANDOM_SHARE of the budget, at most ``max_games``;
    * the kernel's ``fast_games`` random games for fairness by seat, when ``fast`` and the kernel runs the
      spec (a few seconds);
    * the ladder's games: ``ladder_games`` games per rung, or (None) a pilot of each rung (its first
      PILOT_DECISIONS decisions, at most PILOT_SHARE of the budget), which with the random games'
      decisions per game estimates a game's CPU; every rung gets the same number of games (the same
      deals), as many as fit in what is left (at most ``max_ladder_games``); when that is below
      MIN_LADDER_GAMES the search bots' iteration budgets are cut (SCALES: the smallest cut at which
      every rung fits), and when no cut lets every rung fit the top rungs are left out at full budgets,
      each with its reason in the plan. The games are played in rounds of
      one game per rung (``jobs`` with worker processes); a round is not started when it would pass the
      budget, and within the first round a rung is not started once the budget is passed.

    ``progress(stage, done, total)`` reports. Returns ``{"random": [records], "kernel": [minimal
    records] or None, "kernel_note", "ladder": [(lower, upper, [records])], "cpu": seconds, "plan":
    {"budget", "random": {...}, "rungs": [{"rung", "games", "why", ...}], "decisions_per_game"}}``."""
    report = progress or (lambda *a: None)
    cpu = 0.0
    plan: dict = {"budget": cpu_budget, "rungs": []}
    with _Player(game, num_players, jobs, backend, address, schedule, speeds) as player:
        done = [0]

        def tick(stage, total, start=0):
            def f(k):
                done[0] += k
                report(stage, done[0], total)
            done[0] = start
            return f
        if games is None:
            first = player.play([(seed + i, {}) for i in range(min(PILOT_RANDOM, max_games))],
                                tick("random play", max_games))
            each = sum(r["cpu"] for r in first) / len(first)
            fit = int(RANDOM_SHARE * cpu_budget / max(each, 1e-9))
            count = max(len(first), min(max_games, fit))
            rand = first + player.play([(seed + i, {}) for i in range(len(first), count)],
                                       tick("random play", count, len(first)))
            plan["random"] = {"games": count, "cpu_per_game": each, "why": (
                f"{count} games: at most {max_games}" + (f"; {fit} fit in {_pct(RANDOM_SHARE)} of the budget"
                                                         if fit < max_games else "")
                + f" ({each:.3g} s CPU a game in the first {len(first)})")}
        else:
            rand = player.play([(seed + i, {}) for i in range(games)], tick("random play", games))
            plan["random"] = {"games": games, "cpu_per_game": sum(r["cpu"] for r in rand) / max(1, len(rand)),
                              "why": f"{games} games, as asked (-n)"}
        cpu += sum(r["cpu"] for r in rand)
        kernel, note = None, ""
        if fast:
            from ..fast.kernel import why_not
            from ..sim.simulate import simulate
            note = why_not(game, num_players, {}, None, speeds, (seed, fast_games)) or ""
            if not note:
                kernel = []
                t = time.process_time()
                simulate(game, fast_games, num_players, seed, fast=True,
                         progress=lambda i: report("kernel games", i, fast_games),
                         on_game=lambda i, s, w, length: kernel.append(
                             {"players": num_players, "winners": list(w), "stalled": False, "first": None}))
                cpu += time.process_time() - t
        rungs = [(lo, up, []) for lo, up in zip(ladder, ladder[1:])]
        kept = len(rungs)
        limit = ladder_games if ladder_games is not None else max_ladder_games
        spent = 0.0
        if rungs and ladder_games is None:
            decisions = sum(r["decisions"] for r in rand) / len(rand)
            stalled = sum(1 for r in rand if r["stalled"])
            plan["decisions_per_game"] = decisions
            plan["decisions_note"] = (f"{decisions:.0f} decisions a game (random play)"
                                      + (f"; {stalled} of {len(rand)} random games stalled at {MAX_DECISIONS}: a "
                                         "lower bound" if stalled else ""))
            costs = []
            t = time.process_time()
            _ready_search(game, num_players)  # (compiled or loaded now, not in a pilot's first search decision)
            spent += time.process_time() - t
            for k, (_, _, tasks) in enumerate(ladder_tasks(ladder, num_players, seed, 0, 1)):
                s, kinds = tasks[0]
                timings: list = []
                t = time.process_time()
                record_game(game, num_players, s, kinds, max_decisions=PILOT_DECISIONS, schedule=schedule,
                            speeds=speeds, cpu_limit=PILOT_SHARE * cpu_budget, timings=timings)
                spent += time.process_time() - t
                costs.append(_per_decision(timings, rand))
                report("ladder pilots", k + 1, len(rungs))
            full = [math.inf if c is None else c * decisions for c in costs]
            left = cpu_budget - cpu - spent
            choices = []
            for div in SCALES:  # the smallest cut of the search budgets at which every rung fits
                scaled = tuple(_scaled(k, div) for k in ladder)
                if div > 1 and (scaled == tuple(ladder) or len(set(scaled)) < len(scaled)):
                    continue
                est = [c / div for c in full]
                kept, limit = len(rungs), 0
                while kept:
                    limit = min(max_ladder_games, int(left / max(sum(est[:kept]), 1e-9)))
                    if limit >= MIN_LADDER_GAMES:
                        break
                    kept -= 1
                choices.append((kept, -div, div, scaled, est, limit))
                if kept == len(rungs):
                    break
            kept, _, div, scaled, est, limit = max(choices)  # else the cut that keeps the most rungs
            if div > 1 and kept:
                plan["scaled"] = (f"the search bots' budgets were cut to 1/{div} ({', '.join(scaled[1:])} for "
                                  f"{', '.join(ladder[1:])}): at full budgets 20 games a rung did not fit")
                ladder = scaled
                rungs = [(lo, up, []) for lo, up in zip(ladder, ladder[1:])]
            else:
                est = full
            for k, (lo, up, _) in enumerate(rungs):
                row = {"rung": f"{up} vs {lo}", "cpu_per_decision": None if costs[k] is None else costs[k] / div,
                       "cpu_per_game": est[k] if costs[k] is not None else None}
                costs[k] = row["cpu_per_decision"]
                if k < kept:
                    row["why"] = (f"{limit} games (every rung the same): "
                                  + (f"at most {max_ladder_games}" if limit == max_ladder_games else
                                     f"{left:.0f} s CPU left / {sum(est[:kept]):.3g} s a round of the "
                                     f"{kept} rung{'s' if kept > 1 else ''}")
                                  + f"; a game ≈ {est[k]:.3g} s CPU ({costs[k]:.3g} s a decision)")
                else:
                    need = MIN_LADDER_GAMES * sum(est[:k + 1])
                    row["why"] = ("not played: " + (
                        f"a game ≈ {est[k]:.3g} s CPU ({costs[k]:.3g} s a decision × {decisions:.0f} decisions); "
                        f"{MIN_LADDER_GAMES} games of this rung and the ones below need ≈ {need:.0f} s CPU, "
                        if costs[k] is not None and need < math.inf else
                        "its cost is unknown (its pilot had no CPU time for a decision); ")
                        + f"{max(0.0, left):.0f} s were left of the {cpu_budget:.0f} s budget"
                        + (f"; 1/{SCALES[-1]} of the search budgets would not fit either" if div == 1 and len(choices) > 1
                           else "") + " (raise --cpu-budget or set --ladder-games)")
                    row["not_played"] = True
                plan["rungs"].append(row)
        elif rungs:
            plan["rungs"] = [{"rung": f"{up} vs {lo}", "why": f"{ladder_games} games, as asked (--ladder-games)"}
                             for lo, up, _ in rungs]
        if kept:
            per_round = max(1, jobs) if ladder_games is None else limit
            start = 0
            played_rounds = 0.0
            total = limit * kept
            tick_l = tick("ladder games", total)
            while start < limit:
                count = min(per_round, limit - start)
                whole = True
                for k, (_, _, tasks) in enumerate(ladder_tasks(ladder[:kept + 1], num_players, seed, start, count)):
                    # a rung whose games would start past the budget is not played (a slow game's
                    # first round stops there: the budget is passed by one rung's games at most)
                    if ladder_games is None and k and cpu + spent > cpu_budget:
                        whole = False
                        break
                    recs = player.play(tasks, tick_l)
                    rungs[k][2].extend(recs)
                    spent += sum(r["cpu"] for r in recs)
                    played_rounds += sum(r["cpu"] for r in recs)
                start += count
                # stop before the round that would pass the budget (by the mean cost of a round so far)
                if not whole or ladder_games is None and cpu + spent + played_rounds / start * per_round > cpu_budget:
                    break
            for k, row in enumerate(plan["rungs"][:kept]):
                if ladder_games is None and len(rungs[k][2]) < limit:
                    row["why"] += (f"; {len(rungs[k][2])} played: the games cost more than estimated and the "
                                   "budget was spent")
        cpu += spent
    plan["ladder"] = list(ladder)
    return {"random": rand, "kernel": kernel, "kernel_note": note, "ladder": rungs, "cpu": cpu, "plan": plan}


def _scaled(kind: str, div: int) -> str:
    """``KIND:N`` with an iteration budget ``N`` cut to ``N / div`` (rounded, at least 1); any other
    kind (random, a seconds budget) as it is."""
    name, _, budget = kind.partition(":")
    if budget.isdigit() and int(budget) > 1:
        return f"{name}:{max(1, round(int(budget) / div))}"
    return kind


def _per_decision(timings, records=()) -> float | None:
    """CPU seconds a decision costs, from a pilot's ``timings`` (``[(seat, seconds, phase), ...]``):
    the mean of each phase's decisions in the pilot, weighted by that phase's share of the decisions
    of ``records`` (random games; a phase the pilot did not reach counts at the pilot's mean), so a
    costly first phase (bidding, placing) counts as often as it comes in a game; without records,
    the plain mean. The kernel's search is readied before the pilots (:func:`_ready_search`). None
    when the pilot made no decision (its CPU limit was 0)."""
    if not timings:
        return None
    mean = sum(t[1] for t in timings) / len(timings)
    counts: dict = {}
    for r in records:
        for ph, (_, c) in r["options_by_phase"].items():
            counts[ph] = counts.get(ph, 0) + c
    total = sum(counts.values())
    if not total:
        return mean
    by_phase: dict = {}
    for t in timings:
        by_phase.setdefault(t[2], []).append(t[1])
    return sum(c / total * (sum(by_phase[ph]) / len(by_phase[ph]) if ph in by_phase else mean)
               for ph, c in counts.items())


def _ready_search(game, num_players: int) -> None:
    """Compile or load the kernel's search module for ``game`` and its step kernel (both cached on
    disk; a search bot copies a State's actions into a kernel state), so that a pilot's first search
    decision does not pay for them; nothing when the spec or numba does not allow it."""
    try:
        from ..fast.search import search_kernel_for
        from ..fast.typepass import NotTyped
    except ImportError:  # (numba is the `fast` extra)
        return
    try:
        search_kernel_for(game)
        game.new_state(num_players, seed=0, fast=True)
    except NotTyped:
        pass


def measures(game, num_players: int, played: dict) -> dict:
    """The report (plain data) of what :func:`play_all` played: ``sections`` (list of ``{title, about,
    measures}``), ``rules`` (rule usage under random and good play), ``cards`` (card shares),
    ``trends`` (mean score through the game by seat and by bot), and the game counts."""
    rand = played["random"]
    rungs = played["ladder"]
    played_rungs = [r for r in rungs if r[2]]  # a rung past the CPU budget may have no games
    good = played_rungs[-1][2] if played_rungs else []
    top = played_rungs[-1][1] if played_rungs else None
    below = played_rungs[-1][0] if played_rungs else None
    plan = played.get("plan") or {}
    why_not = {r["rung"]: r["why"] for r in plan.get("rungs", []) if r.get("not_played")}
    fair = fairness(rand)
    if played.get("kernel"):
        k = played["kernel"]
        by_kernel = fairness(k)[:1]
        if by_kernel:
            by_kernel[0]["measure"] = "fairness (by seat, kernel games)"
            fair = by_kernel + [m for m in fair if m["measure"] != "fairness (by seat)"]
    sections = [
        {"title": "Fairness", "about": "random bots at every seat", "measures": fair},
        {"title": "Skill", "about": "in each game one seat plays the upper bot and the others the lower one "
                                    "(the seat rotates)", "measures": skill(rungs, why_not)},
        {"title": "Decisiveness and drama", "about": "random play", "measures": drama(rand)},
    ]
    if good:
        sections.append({"title": "Decisiveness and drama (good play)", "about": f"the games of the top rung "
                         f"({top} against {below})", "measures": drama(good)})
    elif len(rungs):
        sections.append({"title": "Good play", "about": "drama, duration, rule usage and cards under good play",
                         "measures": [_measure("good play", None, None, None, 0, "not measured: no rung of the "
                                               "ladder was played (see Skill)", not_measured=True)]})
    sections += [
        {"title": "Convergence and branching", "about": "random play", "measures": branching(rand)},
        {"title": "Duration", "about": "random play", "measures": duration(rand)},
    ]
    if good:
        sections.append({"title": "Duration (good play)", "about": f"the games of the top rung ({top})",
                         "measures": duration(good)})
    labels = step_labels(game)
    rules = {"random": rule_usage(rand, labels)}
    if good:
        rules["good"] = rule_usage(good, labels)
    deck = deck_counts(game, num_players)
    cards = {"random": card_shares(rand, deck)}
    if good:
        cards["good"] = card_shares(good, deck)
    ladder_recs = [r for _, _, rs in rungs for r in rs]
    return {"game": game.name, "file": game.file, "options": dict(game.options), "players": num_players,
            "games": {"random": len(rand), "kernel": len(played.get("kernel") or []),
                      "ladder": {f"{up} vs {lo}": len(rs) for lo, up, rs in rungs}},
            "kernel_note": played.get("kernel_note", ""), "cpu_seconds": played.get("cpu", 0.0), "plan": plan,
            "sections": sections, "rules": rules, "cards": cards,
            "trends": {"seat": trends(rand, "seat"), "bot": trends(ladder_recs, "bot") if ladder_recs else {}}}


def compare_played(a: dict, b: dict) -> list:
    """"What changed": :func:`changed` of the random-play records of A and B (the same seeds), then
    of the top rung's games (the same seeds and bots), each row's measure named by its play."""
    rows = [dict(r, measure=f"{r['measure']} (random play)") for r in changed(a["random"], b["random"])]
    if a["ladder"] and b["ladder"] and a["ladder"][-1][2] and b["ladder"][-1][2]:
        top = a["ladder"][-1][1]
        n = min(len(a["ladder"][-1][2]), len(b["ladder"][-1][2]))
        rows += [dict(r, measure=f"{r['measure']} ({top} rung)")
                 for r in changed(a["ladder"][-1][2][:n], b["ladder"][-1][2][:n])]
    for (lo, up, ra), (_, _, rb) in zip(a["ladder"], b["ladder"]):
        n = min(len(ra), len(rb))
        upper_share = lambda rs, up=up: sum(_share(r, next((p for p, k in enumerate(r["bots"]) if k == up), -1))
                                             for r in rs) / len(rs)
        rows += [dict(r, measure=f"skill: {up} vs {lo}") for r in _changed_fn(ra[:n], rb[:n], upper_share)]
    return rows


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
