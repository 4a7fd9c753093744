"""Fuzzing Rulebook from outside: mutated specs, tampered States and game logs, junk API actions.

Every case is generated from (seed, index), so any case can be run again alone. Cases run in
worker processes with a memory limit (1 GB address space) and a time limit (10 s per case); a
worker that dies is replaced. Each case ends as one of:

- ``ok``: ran, or was refused with a RulebookError (a user's error, located and readable);
- ``traceback``: any other exception (a Python error reaching the user);
- ``slow``: over the time limit (CPU seconds); ``memory``: over the memory limit (or the worker died);
- ``wrong``: a silently wrong result: a loaded State that breaks an invariant (a card lost or
  twice), a refused action that changed the State, a replay that differs.

Usage::

    python tools/fuzz.py -n 12000 -j 2 --seed 1            # the full corpus, figures at the end
    python tools/fuzz.py --case 4711 --seed 1 --show        # one case again, with its input
    python tools/fuzz.py -n 300 --json                      # figures as JSON
    nice -n 19 python tools/fuzz.py -n 10000 --kinds spec,expr -j 2 --minutes 80 \
        --log cases.jsonl --resume --summary summary.json    # resumable: run it again to go on
    python tools/fuzz.py -n 10000 --kinds spec,expr --log cases.jsonl --report   # figures of the log so far

Each case's line in the log holds its outcome, ``seconds`` (CPU time, user + system: the time
limit is judged by it, so a busy shared machine does not make a case "slow"), ``wall`` (its
wall-clock seconds) and ``peak_mb`` (the worker's peak resident memory so far, a high-water mark).

The test suite runs a bounded slice (tests/test_fuzz.py).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SPECS = sorted((ROOT / "specs").glob("*.yaml"))
KINDS = ("spec", "spec", "spec", "spec", "expr", "expr", "state", "save", "api")  # by index
TIME_LIMIT = 10      # CPU seconds per case
WALL_GUARD = 600     # wall seconds before a silent worker is killed
MEMORY_LIMIT = 1 << 30
MAX_ACTIONS = 40  # actions played per mutated spec


# -- generating cases -------------------------------------------------------------------------
JUNK_VALUES = [None, True, 0, -1, 7, 2 ** 70, 10 ** 59, 1.5, float("1e300"), "", "x", "deck", "p.hand",
               "0.hand", "[]", "{}", "1/0", "range(0, 100000)", "[c for c in deck]", "'%s' % 1",
               "\u202e\u0000", "é" * 3, [], {}, [1, [2, [3]]], {"a": 1}, {1: 2}, "turn_order(9)",
               "product(range(0, 400), range(0, 400))", "x" * 300, "{x}", "-" * 50, "null", "true"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "==", "!=", "<", ">", "and", "or", "not", "in", " if ", " else ",
             "=>", "[", "]", "(", ")", ",", ".", "{", "}", ":", "'", '"']


def _paths(data, path=()):
    """Every (path, value) of a nested YAML structure."""
    out = [(path, data)]
    if isinstance(data, dict):
        for k, v in data.items():
            out.extend(_paths(v, path + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out.extend(_paths(v, path + (i,)))
    return out


def _get(data, path):
    for p in path:
        data = data[p]
    return data


def _set(data, path, value):
    _get(data, path[:-1])[path[-1]] = value


def _identifiers(data) -> list:
    import re
    words = set()
    for _, v in _paths(data):
        if isinstance(v, str):
            words.update(re.findall(r"[A-Za-z_]\w*", v))
    return sorted(words) or ["x"]


def mutate_yaml(rng, data):
    """One structural mutation of spec data (in place)."""
    paths = [p for p, _ in _paths(data) if p]
    path = rng.choice(paths)
    parent = _get(data, path[:-1])
    kind = rng.randrange(7)
    if kind == 0:  # delete
        del parent[path[-1]]
    elif kind == 1:  # junk value
        _set(data, path, rng.choice(JUNK_VALUES))
    elif kind == 2:  # copy another subtree here
        other = rng.choice(paths)
        try:
            _set(data, path, json.loads(json.dumps(_get(data, other), default=str)))
        except (KeyError, IndexError, TypeError):
            pass
    elif kind == 3 and isinstance(parent, list) and len(parent) > 1:  # swap list items
        i, j = rng.randrange(len(parent)), rng.randrange(len(parent))
        parent[i], parent[j] = parent[j], parent[i]
    elif kind == 4:  # a number nudged
        v = _get(data, path)
        if isinstance(v, int) and not isinstance(v, bool):
            _set(data, path, rng.choice([v + 1, v - 1, 0, -v, v * 1000, 10 ** 6]))
    elif kind == 5 and isinstance(parent, list):  # duplicate an item (steps run twice)
        parent.insert(path[-1], json.loads(json.dumps(parent[path[-1]], default=str)))
    elif kind == 6 and isinstance(parent, dict):  # rename a key
        v = parent.pop(path[-1])
        parent[rng.choice(_identifiers(data))] = v


def mutate_expr(rng, data):
    """One textual mutation of an expression or template (a string value) of the spec."""
    strings = [(p, v) for p, v in _paths(data) if isinstance(v, str) and p]
    if not strings:
        return
    path, text = rng.choice(strings)
    words = _identifiers(data)
    kind = rng.randrange(6)
    i = rng.randrange(len(text) + 1)
    if kind == 0:
        text = text[:i] + rng.choice(OPERATORS) + text[i:]
    elif kind == 1:
        text = text[:i] + " " + rng.choice(words) + " " + text[i:]
    elif kind == 2:
        text = text[:i]
    elif kind == 3:
        j = rng.randrange(len(text) + 1)
        text = text[:min(i, j)] + text[max(i, j):]
    elif kind == 4:
        import re
        names = re.findall(r"[A-Za-z_]\w*", text)
        if names:
            text = text.replace(rng.choice(names), rng.choice(words), 1)
    else:
        text = f"[{text}, {text}]" if rng.random() < 0.5 else f"({text}) {rng.choice(OPERATORS)} ({text})"
    _set(data, path, text)


_SPEC_DATA: dict = {}


def _spec_data(spec: Path):
    """A fresh copy of a shipped spec's YAML data (read once per process: the same data as reading
    it every time, without the cost)."""
    import copy
    if spec not in _SPEC_DATA:
        import yaml
        _SPEC_DATA[spec] = yaml.safe_load(spec.read_text())
    return copy.deepcopy(_SPEC_DATA[spec])


def spec_case(rng, expr: bool) -> dict:
    import yaml
    spec = rng.choice(SPECS)
    data = _spec_data(spec)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        try:
            (mutate_expr if expr else mutate_yaml)(rng, data)
        except (KeyError, IndexError, TypeError):
            pass
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if rng.random() < 0.05:  # text-level damage: a byte, a control character, a cut
        i = rng.randrange(len(text) + 1)
        text = text[:i] + rng.choice(["\x07", "\t", "\u0085", "\ufeff", ": :", "\n  -", "*a", "&a "]) + text[i:]
    return {"kind": "expr" if expr else "spec", "base": spec.name, "text": text,
            "seed": rng.randrange(1000), "players": rng.choice([2, 3, 4]), "checks": rng.random() < 0.25}


def json_mutate(rng, data, depth=0):
    """One random change somewhere in JSON data (in place where possible); returns the data."""
    paths = [p for p, _ in _paths(data) if p]
    if not paths:
        return rng.choice(JUNK_VALUES)
    path = rng.choice(paths)
    parent = _get(data, path[:-1])
    kind = rng.randrange(6)
    if kind == 0:
        del parent[path[-1]]
    elif kind == 1:
        value = rng.choice(JUNK_VALUES)
        _set(data, path, json.loads(json.dumps(value, default=str)) if not isinstance(value, dict) else {"x": 1})
    elif kind == 2:
        v = _get(data, path)
        if isinstance(v, int) and not isinstance(v, bool):
            _set(data, path, rng.choice([v + 1, v - 1, -1, 0, 10 ** 30, 10 ** 45]))
        elif isinstance(v, str):
            _set(data, path, v.upper() if rng.random() < 0.5 else v + "x")
    elif kind == 3 and isinstance(parent, list) and len(parent) > 1:
        i, j = rng.randrange(len(parent)), rng.randrange(len(parent))
        parent[i], parent[j] = parent[j], parent[i]
    elif kind == 4 and isinstance(parent, list):
        parent.append(parent[path[-1]])
    elif kind == 5:
        _set(data, path, [_get(data, path)])
    return data


_BASES: dict = {}


def base_state(spec_path, seed=3, actions=12):
    """A State of a shipped spec after some seeded random actions (cached per worker)."""
    key = (spec_path.name, seed, actions)
    if key not in _BASES:
        from interpreter import load_game
        game = load_game(spec_path)
        state = game.new_state(game.min_players, seed)
        rng = random.Random(seed)
        for _ in range(actions):
            if state.is_terminal():
                break
            p = rng.choice(state.current_players())
            state.apply(rng.choice(state.legal_actions(p)).text, p)
        _BASES[key] = (game, state)
    return _BASES[key]


def make_case(seed: int, index: int) -> dict:
    rng = random.Random(f"{seed}/{index}")
    kind = KINDS[index % len(KINDS)]
    if kind in ("spec", "expr"):
        return spec_case(rng, kind == "expr")
    spec = rng.choice(SPECS)
    if kind == "state":
        _, state = base_state(spec, actions=rng.choice([0, 5, 12, 30]))
        data = json.loads(state.to_json())
        for _ in range(rng.choice([1, 1, 2])):
            data = json_mutate(rng, data)
        text = json.dumps(data)
        if rng.random() < 0.05:
            text = text[:rng.randrange(len(text) + 1)]
        return {"kind": "state", "base": spec.name, "actions": 0, "text": text}
    if kind == "save":
        game, state = base_state(spec, actions=rng.choice([5, 12]))
        log = {"spec": str(spec), "fingerprint": game.fingerprint, "options": game.options,
               "num_players": state.num_players, "seed": state.seed, "player_names": state.player_names,
               "history": state.history, "scores": None}
        log = json.loads(json.dumps(log))  # a copy: the mutations must not reach the cached State
        for _ in range(rng.choice([1, 1, 2])):
            log = json_mutate(rng, log)
        return {"kind": "save", "base": spec.name, "text": json.dumps(log)}
    junk = [rng.choice(JUNK_VALUES + ["bid 1", "BID 1", "play", "pass", "pick 0", 0, 1, -1, 10 ** 9])
            for _ in range(20)]
    seats = [rng.choice([None, 0, 1, 2, 3, True, False, -1, 9, 1.0, "0", [0]]) for _ in range(20)]
    return {"kind": "api", "base": spec.name, "actions": rng.choice([0, 3, 12]),
            "junk": json.loads(json.dumps(junk, default=str)), "seats": json.loads(json.dumps(seats, default=str))}


# -- running a case ---------------------------------------------------------------------------
class Wrong(Exception):
    """A silently wrong result."""


def cards_once(state) -> None:
    """Raise Wrong unless every card in play is in exactly one place."""
    seen = []
    for name, zone in state.zones.items():
        lists = zone if state.game.zones[name].per_player else [zone]
        for z in lists:
            for item in z:
                seen.extend(item if isinstance(item, list) else [item])
    want = sorted(state.game.cards_in_play(state.num_players))
    if sorted(seen) != want:
        raise Wrong(f"cards: {len(seen)} placed, {len(want)} in play, {len(set(seen))} distinct")


def play_some(state, rng, limit) -> None:
    for _ in range(limit):
        if state.is_terminal():
            state.scores()
            return
        p = rng.choice(state.current_players())
        actions = state.legal_actions(p)
        state.apply(rng.choice(actions), p)
    cards_once(state)


def run_case(case: dict) -> None:
    """Run one case; raises RulebookError (fine), Wrong, or anything else (a traceback)."""
    from interpreter import RulebookError, State, load_game
    from interpreter.errors import IllegalAction
    kind = case["kind"]
    if kind in ("spec", "expr"):
        import tempfile
        from interpreter.spec.loader import check_spec
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / case["base"]
            path.write_text(case["text"], encoding="utf-8", errors="surrogatepass")
            if case.get("checks", True):  # the static checks (validate) too
                check_spec(path)
            try:
                game = load_game(path)
            except RulebookError:
                return
            n = min(max(case["players"], game.min_players), game.max_players)
            state = game.new_state(n, case["seed"])
            rng = random.Random(case["seed"])
            play_some(state, rng, MAX_ACTIONS // 2)
            again = State.from_json(game, state.to_json())
            cards_once(again)
            if again.to_json() != state.to_json():
                raise Wrong("to_json after from_json differs")
            play_some(state, rng, MAX_ACTIONS // 2)
            if game.replay(n, case["seed"], state.history).to_json() != state.to_json():
                raise Wrong("replay differs")
        return
    spec = ROOT / "specs" / case["base"]
    if kind == "state":
        game, _ = base_state(spec, actions=0)
        state = State.from_json(game, case["text"])
        cards_once(state)
        play_some(state, random.Random(1), 10)
        return
    if kind == "save":
        import contextlib
        import io
        import tempfile
        from interpreter.cli import main
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "game.json"
            path.write_text(case["text"])
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["replay", str(path)])
            if code not in (0, 1):
                raise Wrong(f"replay exit status {code}")
            if "Traceback" in err.getvalue():
                raise Wrong("a traceback was printed")
        return
    game, base = base_state(spec, actions=case["actions"])
    state = base.clone()
    from interpreter import Action
    for action, seat in zip(case["junk"], case["seats"]):
        if state.is_terminal():
            break
        before = state.to_json()
        if isinstance(action, list) and len(action) == 3:
            action = Action(*action)
        try:
            state.apply(action, seat)
        except IllegalAction:
            if state.to_json() != before:
                raise Wrong("a refused action changed the State") from None
        cards_once(state)
    if game.replay(state.num_players, state.seed, state.history).to_json() != state.to_json():
        raise Wrong("history does not replay")


def classify(case) -> tuple[str, str]:
    """``(outcome, detail)`` of one case, run here (the caller sets the limits)."""
    from interpreter import RulebookError
    try:
        run_case(case)
    except RulebookError:
        return "ok", ""
    except Wrong as exc:
        return "wrong", str(exc)
    except MemoryError:
        return "memory", "MemoryError"
    except _Timeout:
        return "slow", f"over {TIME_LIMIT} s"
    except RecursionError as exc:
        return "traceback", f"RecursionError: {exc}"[:300] + "\n" + traceback.format_exc()[-1500:]
    except Exception as exc:  # noqa: BLE001 - that is what we count
        return "traceback", f"{type(exc).__name__}: {exc}"[:300] + "\n" + traceback.format_exc()[-1500:]
    return "ok", ""


class _Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def _warm_up() -> None:
    """Load one shipped spec (the expression parser's tables, the schema), then cache nothing more:
    each mutated spec would otherwise leave its parsed data in the user's cache."""
    from interpreter import load_game
    from interpreter.cache import turn_off
    load_game(SPECS[0])
    turn_off()


def worker(seed: int) -> None:
    """Read case indices on stdin, answer one JSON line each: outcome, detail, ``seconds`` (CPU
    time of the case, user + system), ``wall`` (its wall-clock seconds) and ``peak_mb`` (the
    worker's peak resident memory so far, MB: a high-water mark, so a case's own peak is at most
    this)."""
    import resource
    import signal
    _warm_up()
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    # the time limit is CPU time of this worker (user + system), not wall time: the machine may
    # be shared, and a busy machine must not turn a fast case into a slow one
    signal.signal(signal.SIGPROF, _alarm)
    for line in sys.stdin:
        index = int(line)
        t0, w0 = time.process_time(), time.perf_counter()
        try:
            signal.setitimer(signal.ITIMER_PROF, TIME_LIMIT)
            try:
                case = make_case(seed, index)
            except Exception as exc:  # noqa: BLE001 - a fault of this tool, not of Rulebook
                outcome, detail = "tool", f"cannot make the case: {type(exc).__name__}: {exc}"
            else:
                outcome, detail = classify(case)
        except _Timeout:
            outcome, detail = "slow", f"over {TIME_LIMIT} s"
        except MemoryError:
            outcome, detail = "memory", "MemoryError"
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        print(json.dumps({"index": index, "outcome": outcome, "detail": detail,
                          "seconds": round(time.process_time() - t0, 3),
                          "wall": round(time.perf_counter() - w0, 3),
                          "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}),
              flush=True)


def summarise(results: list, seed: int = 1, start: int = 0, stopped: int = 0, seconds: float = 0.0) -> dict:
    """The figures of a list of case results (the worker's JSON lines): counts by outcome and by
    kind, the slowest case by CPU and by wall time (seconds, with its index), the highest peak
    resident memory (MB) and the faulty cases (index, kind, outcome, detail)."""
    counts = {"ok": 0, "traceback": 0, "slow": 0, "memory": 0, "wrong": 0, "tool": 0}
    kinds: dict = {}
    faults = []
    slowest = {"seconds": 0.0, "index": None}
    slowest_wall = {"wall": 0.0, "index": None}
    peak = {"peak_mb": 0.0, "index": None}
    for r in results:
        kind = KINDS[r["index"] % len(KINDS)]
        kinds[kind] = kinds.get(kind, 0) + 1
        counts[r["outcome"]] += 1
        if r.get("seconds", 0) > slowest["seconds"]:
            slowest = {"seconds": r["seconds"], "index": r["index"]}
        if r.get("wall", 0) > slowest_wall["wall"]:
            slowest_wall = {"wall": r["wall"], "index": r["index"]}
        if r.get("peak_mb", 0) > peak["peak_mb"]:
            peak = {"peak_mb": r["peak_mb"], "index": r["index"]}
        if r["outcome"] != "ok":
            faults.append({"index": r["index"], "kind": kind, **{k: r[k] for k in ("outcome", "detail")}})
    return {"cases": len(results), "stopped": stopped, "seed": seed, "start": start, "by_kind": kinds, **counts,
            "slowest_case_seconds": slowest["seconds"], "slowest_case_index": slowest["index"],
            "slowest_case_wall": slowest_wall["wall"], "slowest_wall_index": slowest_wall["index"],
            "peak_mb": peak["peak_mb"], "peak_mb_index": peak["index"],
            "seconds": seconds, "faults": faults}


def read_log(path) -> list:
    """The case results written to a ``--log`` file (a line cut short by an interrupted run is
    skipped); a case found twice counts once (its last line)."""
    results: dict = {}
    try:
        lines = Path(path).read_text().splitlines()
    except FileNotFoundError:
        return []
    for line in lines:
        try:
            r = json.loads(line)
        except ValueError:
            continue
        results[r["index"]] = r
    return list(results.values())


def run_corpus(n: int, seed: int = 1, jobs: int = 2, start: int = 0, progress=None, indices=None,
               log=None, until: float | None = None) -> dict:
    """Run cases ``start..start+n-1`` (or the given ``indices``) in ``jobs`` worker processes;
    returns :func:`summarise` of their results. ``until``: a ``time.time()`` after which no case
    is started (the figures count the cases run; ``"stopped"`` how many were left). ``log``: an
    open file that gets each result as one JSON line as the case ends."""
    todo = list(indices) if indices is not None else list(range(start, start + n))
    n = len(todo)
    results: list = []
    idle: list = []

    def spawn():
        env = dict(os.environ, PYTHONHASHSEED="0")
        return subprocess.Popen([sys.executable, __file__, "--worker", "--seed", str(seed)], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, cwd=ROOT, env=env, bufsize=1)

    busy: dict = {}  # pid -> (proc, index, started)
    t0 = time.time()
    stopped = 0
    while todo or busy:
        if todo and until is not None and time.time() > until:
            stopped, todo = len(todo), []
        while todo and len(busy) < jobs:
            proc = idle.pop() if idle else spawn()
            index = todo.pop(0)
            proc.stdin.write(f"{index}\n")
            proc.stdin.flush()
            busy[proc.pid] = (proc, index, time.time())
        ready, _, _ = select.select([p.stdout for p, _, _ in busy.values()], [], [], 1.0)
        for pid, (proc, index, started) in list(busy.items()):
            result = None
            if proc.stdout in ready:
                line = proc.stdout.readline()
                if line:
                    result = json.loads(line)
                else:  # the worker died (killed for memory, or a crash of the interpreter)
                    result = {"index": index, "outcome": "memory", "detail": "the worker died", "seconds": 0,
                              "wall": round(time.time() - started, 3)}
                    proc.wait()
                    proc = None
            elif time.time() - started > WALL_GUARD:  # stuck outside Python (the CPU timer did not fire)
                proc.kill()
                proc.wait()
                result = {"index": index, "outcome": "slow", "detail": f"no answer in {WALL_GUARD} s", "seconds": 0,
                          "wall": round(time.time() - started, 3)}
                proc = None
            if result is None:
                continue
            del busy[pid]
            results.append(result)
            if log is not None:  # one line per case as it ends: figures survive an interrupted run
                log.write(json.dumps(result) + "\n")
                log.flush()
            if proc is not None:
                idle.append(proc)
            if progress:
                progress(len(results), n)
    for p in idle:
        p.stdin.close()
        p.wait()
    return summarise(results, seed, start, stopped, round(time.time() - t0, 1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=12_000, help="number of cases (default 12,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="first case index")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--case", type=int, help="run one case here and print its outcome")
    ap.add_argument("--show", action="store_true", help="with --case: print the case's input too")
    ap.add_argument("--log", metavar="FILE.jsonl", help="also write each case's outcome as it ends")
    ap.add_argument("--kinds", metavar="K,K", help="only cases of these kinds (spec, expr, state, save, api): "
                    "-n counts those, e.g. -n 10000 --kinds spec,expr for 10,000 mutated specs")
    ap.add_argument("--minutes", type=float, help="start no case after this many minutes (the figures are of "
                    "the cases run)")
    ap.add_argument("--resume", action="store_true", help="with --log: skip the cases already in the log; the "
                    "figures are of all the requested cases in it")
    ap.add_argument("--report", action="store_true", help="with --log: run nothing, give the figures of the log")
    ap.add_argument("--summary", metavar="FILE.json", help="also write the figures (and faults) to this file")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.seed)
        return 0
    if args.case is not None:
        case = make_case(args.seed, args.case)
        if args.show:
            print(json.dumps(case, indent=1, ensure_ascii=False) if case["kind"] not in ("spec", "expr")
                  else case["text"])
        outcome, detail = classify(case)
        print(outcome, detail)
        return 0 if outcome == "ok" else 1

    def progress(done, total):
        if not args.json and (done % 500 == 0 or done == total):
            print(f"  {done}/{total}", file=sys.stderr, flush=True)

    indices = list(range(args.start, args.start + args.n))
    if args.kinds:
        wanted = set(args.kinds.split(","))
        if not wanted <= set(KINDS):
            ap.error(f"--kinds: choose among {', '.join(sorted(set(KINDS)))}")
        indices, i = [], args.start
        while len(indices) < args.n:
            if KINDS[i % len(KINDS)] in wanted:
                indices.append(i)
            i += 1
    if (args.resume or args.report) and not args.log:
        ap.error("--resume and --report read the --log file: name it")
    asked = set(indices)
    earlier = [r for r in read_log(args.log) if r["index"] in asked] if args.resume or args.report else []
    if args.report:  # the figures of the log alone (a run stopped or killed half-way)
        result = summarise(earlier, args.seed, args.start, stopped=len(asked) - len(earlier))
    else:
        done = {r["index"] for r in earlier}
        if done:
            print(f"resuming: {len(done)} case(s) already in {args.log}", file=sys.stderr)
        log = open(args.log, "a") if args.log else None
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # `kill PID`: stop as Ctrl-C does
        interrupted = False
        until = time.time() + args.minutes * 60 if args.minutes else None
        try:
            result = run_corpus(0, args.seed, args.jobs, args.start, progress,
                                indices=[i for i in indices if i not in done], log=log, until=until)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            if log is not None:
                log.close()
        if interrupted and not args.log:
            print("interrupted (no --log: nothing recorded)", file=sys.stderr)
            return 130
        if args.log:  # the figures of every requested case in the log (this run, and earlier ones resumed)
            mine = [r for r in read_log(args.log) if r["index"] in asked]
            seconds = 0.0 if interrupted else result["seconds"]
            result = summarise(mine, args.seed, args.start, stopped=len(asked) - len(mine), seconds=seconds)
    if args.summary:
        Path(args.summary).write_text(json.dumps(result, indent=1) + "\n")
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        if result["stopped"]:
            print(f"not run (time limit, interruption): {result['stopped']} case(s)")
        print(f"{result['cases']} cases (seed {result['seed']}, {result['seconds']} s; by kind {result['by_kind']}): "
              f"{result['traceback']} tracebacks, {result['slow']} over {TIME_LIMIT} s CPU, {result['memory']} over "
              f"1 GB, {result['wrong']} silently wrong; slowest case {result['slowest_case_seconds']} s CPU "
              f"(case {result['slowest_case_index']}), slowest wall {result['slowest_case_wall']} s (case "
              f"{result['slowest_wall_index']}); peak resident memory {result['peak_mb']} MB")
        for f in result["faults"][:50]:
            print(f"  case {f['index']} ({f['kind']}): {f['outcome']}: {f['detail'].splitlines()[0] if f['detail'] else ''}")
    bad = result["traceback"] + result["slow"] + result["memory"] + result["wrong"] + result["tool"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
