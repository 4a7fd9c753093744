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

This module plays and assembles the report; the measures live in :mod:`.design_measures` and their
statistics helpers in :mod:`.design_stats` (both re-exported here).
"""
from __future__ import annotations

import math
import time

from .design_measures import (_behind_at, _changed_fn, _first_rate, _leader_won, _rung_status,  # noqa: F401
                              _secure_point, _verdict, branching, card_shares, changed, drama, duration,
                              fairness, fairness_index, rule_usage, scalars, skill, step_counts, trends)
from .design_stats import (BOOTSTRAP, EDGE, MAX_DECISIONS, POINTS, SECURE, Z95, _bootstrap,  # noqa: F401
                           _leaders, _mean_interval, _measure, _pct, _rate_words, _share, _unmeasured)

LADDER = ("random", "greedy:8", "ismcts:10", "ismcts:40")  # each rung is tested against the one below
PILOT_RANDOM = 5          # analyze's plan: random games played before choosing how many
RANDOM_SHARE = 0.25       # the share of the CPU budget random play may take
PILOT_DECISIONS = 12      # decisions of each rung's pilot game (its cost per decision)
PILOT_SHARE = 0.04        # a pilot stops after this share of the budget
MIN_LADDER_GAMES = 20     # fewer games a rung than this: the search budgets are cut, then the top rung left out
SCALES = (1, 2, 4)        # the cuts of the search bots' iteration budgets tried when the ladder does not fit


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
            ready = time.process_time() - t
            spent += ready
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
                        + (f" ({ready:.0f} s of it went to compiling the search bots' module, cached now: "
                           "a second run has them)" if ready >= 1 else "")
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
        from ..fast.kernel import search_ready
        from ..fast.steps import step_kernel_for
        # compiled, not the bytecode machine's: the pilots' times plan the ladder, and workers share the compile
        sk = search_kernel_for(game, compiled=True)
        step_kernel_for(game, compiled=True)
        search_ready(sk, game, num_players)  # (a first search: numba compiles on a first call)
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
