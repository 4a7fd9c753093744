"""OpenSpiel's bots and serialization on every shipped spec, each spec in its own process.

    python tools/openspiel_bots_check.py                       # every spec, 20 games each
    python tools/openspiel_bots_check.py specs/hearts.yaml --games 2 --sims 2

For each spec at its minimum player count a child process (so a crash is a failed line, not a dead
run; its exit status is printed) does, in order:

1. ``mcts``: a whole game with OpenSpiel's C++ ``pyspiel.MCTSBot`` (``--sims`` simulations,
   random-rollout evaluator) at every seat, called as ``bot.step(state)``;
2. ``cpp-ismcts``: ``pyspiel.ISMCTSBot.step`` and ``pyspiel.evaluate_bots`` with it must raise
   ``UnsupportedByOpenSpiel`` (OpenSpiel cannot resample a Python game from C++);
3. ``evaluate``: ``--games`` games of ``pyspiel.evaluate_bots`` with a C++ ``pyspiel.MCTSBot``
   (``--sims`` simulations) at seat 0 and C++ uniform random bots elsewhere; the mean return of
   seat 0 is printed (a random seat's share is 1/players);
4. ``ismcts``: ``--ismcts-games`` games of ``pyspiel.evaluate_bots`` with OpenSpiel's ISMCTS
   (``open_spiel.python.algorithms.ismcts``, ``--ismcts-sims`` simulations, sampling through the
   adapter's ``resample_from_infostate``) at seat 0 and C++ uniform random bots elsewhere;
5. ``serialize``: ``pyspiel.random_sim_test(game, 2, serialize=True)``, a mid-game state through
   ``serialize_game_and_state``/``deserialize_game_and_state`` and ``pickle``, and a sampled
   state through ``serialize``/``deserialize_state``, each compared with the original.

The action ids come from the spec; ``--discovery`` seeded random games (default 10) give only the
bound on a game's length OpenSpiel asks for (``max_game_length``). Each line gives the
CPU seconds each part took (``time.process_time`` of the child, so the machine's load does not
count); ``ok (N s wall)`` is the child's wall-clock time. The exit status is 0 when every spec passed.
"""
from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)


def min_players(spec: str) -> int:
    from interpreter import load_game
    return load_game(spec).min_players


def _done(part: str, times: dict) -> None:
    """Report a finished part on standard error at once (a run stopped by ``--timeout`` still shows
    the parts that finished)."""
    print(f"  {part} done, {times[part]:.1f}s CPU", file=sys.stderr, flush=True)


def child(spec: str, games: int, sims: int, ismcts_sims: int, ismcts_games: int, seed: int,
          discovery: int) -> None:
    import pickle

    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from interpreter.adapters.openspiel_game import UnsupportedByOpenSpiel, register

    players = min_players(spec)
    times = {}
    t = time.process_time()
    game = pyspiel.load_game(register(spec, players=players, discovery=discovery))
    times["register"] = time.process_time() - t
    _done("register", times)
    rng = np.random.RandomState(seed)

    def to_decision(state):
        while state.is_chance_node():
            outs = state.chance_outcomes()
            state.apply_action(outs[rng.randint(len(outs))][0])
        return state

    # 1. the C++ MCTS bot for a whole game
    t = time.process_time()
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims, 1000, False, seed, False)
    state = game.new_initial_state()
    moves = 0
    while not to_decision(state).is_terminal():
        action = bot.step(state)
        assert action in state.legal_actions(), action
        state.apply_action(action)
        moves += 1
    times["mcts"] = time.process_time() - t
    _done("mcts", times)
    mcts_returns = state.returns()

    # 2. the C++ ISMCTS bot: a clear error, no crash
    t = time.process_time()
    cpp = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, sims, -1,
                            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    for call in (lambda: cpp.step(to_decision(game.new_initial_state())),
                 lambda: pyspiel.evaluate_bots(game.new_initial_state(),
                                               [cpp] + [pyspiel.make_uniform_random_bot(p, seed)
                                                        for p in range(1, players)], seed)):
        try:
            call()
        except UnsupportedByOpenSpiel:
            pass
        else:
            raise AssertionError("the C++ ISMCTSBot ran on a Python game")
    times["cpp-ismcts"] = time.process_time() - t
    _done("cpp-ismcts", times)

    # 3. evaluate_bots: the C++ MCTS at seat 0, C++ random bots elsewhere
    t = time.process_time()
    total = 0.0
    for g in range(games):
        seat0 = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed + g), 2.0, sims, 1000, False,
                                seed + g, False)
        bots = [seat0] + [pyspiel.make_uniform_random_bot(p, seed + g) for p in range(1, players)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + g)
        assert abs(sum(returns) - 1.0) < 1e-9, returns
        total += returns[0]
        print(f"  evaluate game {g + 1} of {games} done, {time.process_time() - t:.1f}s CPU", file=sys.stderr,
              flush=True)
    times["evaluate"] = time.process_time() - t
    _done("evaluate", times)

    # 4. evaluate_bots: OpenSpiel's ISMCTS at seat 0, C++ random bots elsewhere
    t = time.process_time()
    ismcts_total = 0.0
    for g in range(ismcts_games):
        seat0 = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed + g)), 2.0,
                                 ismcts_sims, random_state=np.random.RandomState(seed + g))
        bots = [seat0] + [pyspiel.make_uniform_random_bot(p, seed + g) for p in range(1, players)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + g)
        assert abs(sum(returns) - 1.0) < 1e-9, returns
        ismcts_total += returns[0]
    times["ismcts"] = time.process_time() - t
    _done("ismcts", times)

    # 5. serialization
    t = time.process_time()
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)
    state = to_decision(game.new_initial_state())
    for _ in range(5):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[rng.randint(len(state.legal_actions()))])
        to_decision(state)
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(g2) == str(game) and str(s2) == str(state) and s2.history() == state.history()
    s3 = pickle.loads(pickle.dumps(state))
    assert str(s3) == str(state) and s3.history() == state.history()
    assert pickle.loads(pickle.dumps(game)).get_type().short_name == game.get_type().short_name
    if not state.is_terminal():
        seat = state.current_player()
        world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        back = game.deserialize_state(world.serialize())
        assert back.rb.zones == world.rb.zones and str(back) == str(world)
        assert world.information_state_string(seat) == state.information_state_string(seat)
    times["serialize"] = time.process_time() - t
    _done("serialize", times)

    parts = " ".join(f"{k} {v:.1f}s" for k, v in times.items())
    print(f"{os.path.basename(spec)} {players}p: {parts}; mcts game {moves} decisions, returns {mcts_returns}; "
          f"C++ MCTS seat 0 mean return {total / max(games, 1):.2f} over {games} games; "
          f"ISMCTS seat 0 mean return {ismcts_total / max(ismcts_games, 1):.2f} over {ismcts_games} games",
          flush=True)


def quick(spec: str, seed: int) -> None:
    """One decision of each bot on the first decision of a game (``--quick``; the test suite's
    check of every spec): the C++ MCTS step, the C++ ISMCTS refusal, an OpenSpiel ISMCTS step, and
    the state and a sample of it through serialization."""
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    from interpreter.adapters.openspiel_game import UnsupportedByOpenSpiel, register

    game = pyspiel.load_game(register(spec, players=min_players(spec), discovery=2))
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 1, 100, False, seed, False)
    assert bot.step(state) in state.legal_actions()
    cpp = pyspiel.ISMCTSBot(seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, 2, -1,
                            pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT, False, False)
    try:
        cpp.step(state)
        raise AssertionError("the C++ ISMCTSBot ran on a Python game")
    except UnsupportedByOpenSpiel:
        pass
    py = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed)), 2.0, 2,
                          random_state=np.random.RandomState(seed))
    assert py.step(state) in state.legal_actions()
    g2, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(s2) == str(state) and s2.history() == state.history()
    seat = state.current_player()
    world = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.information_state_string(seat) == state.information_state_string(seat)
    assert game.deserialize_state(world.serialize()).rb.zones == world.rb.zones
    print(f"{os.path.basename(spec)}: ok")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("specs", nargs="*", help="spec files (default: specs/*.yaml)")
    ap.add_argument("--games", type=int, default=20, help="evaluate_bots games per spec (default 20)")
    ap.add_argument("--sims", type=int, default=2, help="C++ MCTS simulations per decision (default 2)")
    ap.add_argument("--ismcts-sims", type=int, default=4, help="ISMCTS simulations per decision (default 4)")
    ap.add_argument("--ismcts-games", type=int, default=1,
                    help="evaluate_bots games with OpenSpiel's Python ISMCTS at seat 0 (default 1)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--discovery", type=int, default=10,
                    help="random games that bound max_game_length (default 10)")
    ap.add_argument("--timeout", type=float, default=3600, help="seconds per spec (default 3600)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="one decision per bot in this process (first spec)")
    args = ap.parse_args(argv)
    if args.quick:
        quick(args.specs[0], args.seed)
        return 0
    if args.child:
        child(args.specs[0], args.games, args.sims, args.ismcts_sims, args.ismcts_games, args.seed,
              args.discovery)
        return 0
    specs = args.specs or sorted(glob.glob(os.path.join(ROOT, "specs", "*.yaml")))
    failed = 0
    for spec in specs:
        t = time.perf_counter()
        cmd = [sys.executable, os.path.abspath(__file__), spec, "--child", "--games", str(args.games),
               "--sims", str(args.sims), "--ismcts-sims", str(args.ismcts_sims),
               "--ismcts-games", str(args.ismcts_games), "--seed", str(args.seed),
               "--discovery", str(args.discovery)]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            status, out = run.returncode, (run.stdout + run.stderr).strip()
        except subprocess.TimeoutExpired as exc:
            err = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
            status, out = "timeout", "parts finished before the timeout:\n" + err.rstrip()
        took = time.perf_counter() - t
        if status != 0:
            failed += 1
            print(f"FAIL {os.path.basename(spec)} (exit {status}, {took:.0f}s wall): {out[-2000:]}", flush=True)
        else:
            print(f"ok ({took:.0f}s wall) {run.stdout.strip()}", flush=True)
    print(f"{len(specs) - failed} of {len(specs)} specs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
