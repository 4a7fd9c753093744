"""Differential test of Rulebook against OpenSpiel (issue 15): the same game, the same deal, the same
actions, in both engines at once.

For each game OpenSpiel also has with the same rules (hearts, spades, oh_hell, crazy_eights), N
games (default 1,000) are played with seeded random play. The deal is OpenSpiel's chance outcomes,
given to Rulebook as the outcomes of its own chance nodes (``new_state(..., chance=True)``: a
``shuffle`` takes the card order that makes the spec's ``deal`` give every seat OpenSpiel's hand, a
``random`` step takes OpenSpiel's draw); where Rulebook draws first (Crazy Eights' draws during
play), OpenSpiel is given the card Rulebook drew. At every decision the seat to act and the legal
action sets of both engines are compared, mapped to one form (``play QS``, ``bid 3``, ``draw``,
``suit H``); one legal action is picked at random and applied to both. At the end the returns are
compared (OpenSpiel's ``returns()`` against the spec's scores in OpenSpiel's terms, e.g. Hearts' 26
minus the points taken).

Rulebook plays each spec with the options that give OpenSpiel's rules (``preset=openspiel`` and the
options named after OpenSpiel's parameters); the specs' defaults stay the published rules, and each
option's doc says where OpenSpiel differs. Needs OpenSpiel (``pip install -e '.[test]'`` or
``'.[bench]'``)::

    python tools/differential.py                     # 1,000 games of each game
    python tools/differential.py -n 200 --games hearts spades --show-mismatch 5
    python tools/differential.py --seed 7            # another set of games

Prints one row per game: games played, decisions compared, legal-set mismatches (decisions where
the seat to act or the legal sets differ), return mismatches, other failures (a deal that did not
come out the same, an action one engine refused, a game that ended in one engine only) and the time.
Exit status 1 when any mismatch was found. ``run_game``/``run`` are the core, used by
tests/test_differential.py.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402
from interpreter.model.state import CHANCE  # noqa: E402

RANKS = "23456789TJQKA"


def _pyspiel():
    try:
        import pyspiel
    except ImportError:  # pragma: no cover - the test extra installs it
        return None
    return pyspiel


@lru_cache(maxsize=None)
def _our_game(spec: str, options: tuple):
    return load_game(ROOT / "specs" / spec, dict(options))


@lru_cache(maxsize=None)
def _os_game(name: str, params: tuple):
    return _pyspiel().load_game(name, dict(params))


def card_of_name(name: str) -> str:
    """Rulebook's French-style card name (``10c``, ``Qs``, ``Ah``) as ``RANK SUIT`` (``TC``, ``QS``, ``AH``)."""
    rank, suit = name[:-1], name[-1].upper()
    return ("T" if rank == "10" else rank) + suit


class Mismatch(Exception):
    """The engines disagree in a way that stops this game (a deal, a seat, a refused action)."""


@dataclass
class GameResult:
    """What one game in both engines gave: decisions compared and every disagreement found."""
    decisions: int = 0
    legal_mismatches: list = field(default_factory=list)
    return_mismatch: dict | None = None
    failure: str | None = None


class Pair:
    """One game in both engines. Subclasses know a game's deal, its action names and its returns.

    ``os`` is the OpenSpiel state, ``ours`` the Rulebook State (chance mode); ``rng`` picks every
    chance outcome and every action."""
    spec = ""
    openspiel = ""

    def __init__(self, index: int, rng: random.Random):
        self.index = index
        self.rng = rng
        self.players, params, options = self.configure(index)
        self.os_game = _os_game(self.openspiel, tuple(sorted(params.items())))
        self.game = _our_game(self.spec, tuple(sorted(options.items())))
        self.ours = self.game.new_state(self.players, index, chance=True)
        self.os = self.os_game.new_initial_state()
        self.names = {c.id: c.name for c in self.game.cards}
        self.nominations = []   # (Rulebook's, OpenSpiel's) options of a decision made inside an action

    # -- per game ---------------------------------------------------------------------------
    def configure(self, index: int):
        """(players, OpenSpiel parameters, Rulebook options) of game number ``index``."""
        raise NotImplementedError

    def start(self):
        """Run both engines' chance nodes up to the first decision with the same deal."""
        raise NotImplementedError

    def ours_common(self, text: str) -> str:
        """A Rulebook action text in the common form."""
        verb, _, rest = text.partition(" ")
        return f"{verb} {card_of_name(rest)}" if verb in ("play", "pass") else text

    def os_common(self, player: int, action: int) -> str:
        """An OpenSpiel action in the common form."""
        raise NotImplementedError

    def after(self, player: int, common: str):
        """Chance nodes that follow an action (draws); by default none is expected."""
        if self.os.is_chance_node() or self.ours.is_chance_node():
            raise Mismatch("an unexpected chance node after an action")

    def os_returns(self):
        """OpenSpiel's returns (list of float, by seat)."""
        return [float(r) for r in self.os.returns()]

    def our_returns(self):
        """Rulebook's final scores in OpenSpiel's terms."""
        return [float(s) for s in self.ours.scores()]

    # -- shared -------------------------------------------------------------------------------
    def os_chance(self):
        """A random outcome of OpenSpiel's chance node, applied; returns it. The outcome is one of
        the node's legal actions: hearts with pass_cards=false lists all four pass directions in
        chance_outcomes() but only 'no pass' in legal_actions()."""
        action = self.rng.choice(self.os.legal_actions())
        self.os.apply_action(action)
        return action

    def our_order(self, hands: list, start: int, rest_top_first: list = ()) -> str:
        """The ``order`` outcome (bottom card first) of a shuffle after which the spec's ``deal``
        (one card at a time from the top, from seat ``start``) gives each seat ``hands[seat]``
        (common card names, in the order dealt) and leaves ``rest_top_first`` on the deck."""
        by_common = {self.common_card(n): n for n in self.names.values()}
        n = self.players
        top_first = []
        for i in range(sum(len(h) for h in hands)):
            seat = (start + i) % n
            top_first.append(hands[seat][i // n])
        top_first += list(rest_top_first)
        node = self.ours.pending["chance"]
        shuffled = Counter(self.names[c] for c in node["cards"])
        named = [by_common[c] for c in top_first]
        left = shuffled - Counter(named)   # cards of the shuffle OpenSpiel did not deal: below the rest
        order = sorted(left.elements()) + named[::-1]
        return "order " + ", ".join(order)

    def common_card(self, name: str) -> str:
        return card_of_name(name)

    def our_hands(self):
        return [sorted(self.common_card(self.names[c]) for c in hand) for hand in self.ours.zones["hand"]]

    def legal(self):
        """(seat, {common: our text}, {common: OpenSpiel action}) at a decision of both engines."""
        os_player = self.os.current_player()
        seats = self.ours.current_players()
        if seats != [os_player]:
            raise Mismatch(f"seat to act: Rulebook {seats}, OpenSpiel {os_player}")
        ours = {}
        for a in self.ours.legal_actions(os_player):
            ours.setdefault(self.ours_common(a.text), []).append(a.text)
        theirs = {self.os_common(os_player, a): a for a in self.os.legal_actions()}
        return os_player, ours, theirs

    def apply(self, player: int, common: str, ours: dict, theirs: dict):
        self.os.apply_action(theirs[common])
        self.ours.apply(self.rng.choice(ours[common]), player)
        self.after(player, common)


# -- Hearts ---------------------------------------------------------------------------------------
# OpenSpiel hearts parameters tried in turn (game i uses HEARTS_PARAMS[i % 4]); the first is the default.
HEARTS_PARAMS = [
    {},
    {"jd_bonus": True, "avoid_all_tricks_bonus": True},
    {"can_lead_any_club": True, "can_lead_hearts_instead_of_qs": True, "qs_breaks_hearts": False},
    {"pass_cards": False, "must_break_hearts": False, "no_pts_on_first_trick": False},
]


class Hearts(Pair):
    """OpenSpiel ``hearts`` (4 players, one hand) against specs/hearts.yaml ``preset=openspiel``
    with the options named as OpenSpiel's parameters; game ``i`` uses ``HEARTS_PARAMS[i % 4]``."""
    spec = "hearts.yaml"
    openspiel = "hearts"

    def configure(self, index):
        params = HEARTS_PARAMS[index % len(HEARTS_PARAMS)]
        options = {"preset": "openspiel"}
        for key, value in params.items():
            if key == "pass_cards":
                options["passing"] = "random" if value else "none"
            else:
                options[key] = value
        return 4, params, options

    def start(self):
        self.pass_dir = pass_dir = self.os_chance()
        dealt = [self.os_chance() for _ in range(52)]
        hands = [[_hearts_card(c) for c in dealt[p::4]] for p in range(4)]
        if self.ours.pending["chance"]["kind"] == "random":   # passing=random: the direction
            self.ours.apply(f"outcome {pass_dir}", CHANCE)
        elif pass_dir != 0:
            raise Mismatch(f"OpenSpiel passes ({pass_dir}) and Rulebook draws no direction")
        self.ours.apply(self.our_order(hands, (self.ours.vars["dealer"] + 1) % 4), CHANCE)
        if self.our_hands() != [sorted(h) for h in hands]:
            raise Mismatch(f"deal: Rulebook {self.our_hands()}, OpenSpiel {hands}")

    def os_common(self, player, action):
        text = self.os.action_to_string(player, action)
        passing = self.pass_dir != 0 and len(self.os.history()) < 53 + 12
        return ("pass " if passing else "play ") + text

    def ours_common(self, text):
        return super().ours_common(text)

    def our_returns(self):
        return [26.0 - s for s in self.ours.scores()]


def _hearts_card(card: int) -> str:
    """OpenSpiel hearts card id (rank * 4 + suit, suits C D H S) as ``RANK SUIT``."""
    return RANKS[card // 4] + "CDHS"[card % 4]


# -- Spades ---------------------------------------------------------------------------------------
class Spades(Pair):
    """OpenSpiel ``spades`` (default parameters: one hand) against specs/spades.yaml ``preset=openspiel``."""
    spec = "spades.yaml"
    openspiel = "spades"

    def configure(self, index):
        return 4, {}, {"preset": "openspiel"}

    def start(self):
        dealt = [self.os_chance() for _ in range(52)]
        hands = [[_spades_card(c) for c in dealt[p::4]] for p in range(4)]
        self.ours.apply(self.our_order(hands, (self.ours.vars["dealer"] + 1) % 4), CHANCE)
        if self.our_hands() != [sorted(h) for h in hands]:
            raise Mismatch(f"deal: Rulebook {self.our_hands()}, OpenSpiel {hands}")

    def os_common(self, player, action):
        if action < 52:
            return "play " + _spades_card(action)
        return f"bid {action - 52}"


def _spades_card(card: int) -> str:
    """OpenSpiel spades card id (suit * 13 + rank, suits C D H S) as ``RANK SUIT``."""
    return RANKS[card % 13] + "CDHS"[card // 13]


# -- Oh Hell ----------------------------------------------------------------------------------------
# OpenSpiel oh_hell parameters tried in turn (every fifth game: game i uses OH_HELL_PARAMS[i // 5 % 4]).
OH_HELL_PARAMS = [
    {},
    {"off_bid_penalty": True, "points_per_trick": 2},
    {"num_suits": 3, "num_cards_per_suit": 9},
    {"num_tricks_fixed": 2},
]


class OhHell(Pair):
    """OpenSpiel ``oh_hell`` against specs/oh_hell.yaml (written to OpenSpiel's rules, with its
    parameters as options of the same names); game ``i`` is for 3 + i % 5 players, with
    ``OH_HELL_PARAMS[i // 5 % 4]``."""
    spec = "oh_hell.yaml"
    openspiel = "oh_hell"

    def configure(self, index):
        n = 3 + index % 5
        self.params = OH_HELL_PARAMS[index // 5 % len(OH_HELL_PARAMS)]
        return n, {"players": n, **self.params}, dict(self.params)

    def common_card(self, name):
        return name  # the spec uses OpenSpiel's names (C2 ... HA)

    def start(self):
        n = self.players
        num_tricks = self.os_chance()
        dealer = self.os_chance()
        dealt = [self.os_chance() for _ in range(n * num_tricks + 1)]
        suits = self.params.get("num_suits", 4)
        name = lambda c: "CDSH"[c % suits] + RANKS[c // suits]  # noqa: E731  (OpenSpiel's card ids)
        hands = [[name(c) for c in dealt[p:n * num_tricks:n]] for p in range(n)]
        trump = name(dealt[-1])
        # the spec's random steps: the number of tricks (unless num_tricks_fixed), then the dealer
        draws = ([] if self.params.get("num_tricks_fixed", -1) != -1 else [num_tricks - 1]) + [dealer]
        while self.ours.is_chance_node():
            node = self.ours.pending["chance"]
            if node["kind"] == "random":
                self.ours.apply(f"outcome {draws.pop(0)}", CHANCE)
            else:
                self.ours.apply(self.our_order(hands, 0, [trump]), CHANCE)
        if self.our_hands() != [sorted(h) for h in hands]:
            raise Mismatch(f"deal: Rulebook {self.our_hands()}, OpenSpiel {hands}")

    def os_common(self, player, action):
        text = self.os.action_to_string(player, action)
        return ("play " if text[0] in "CDSH" else "bid ") + text

    def ours_common(self, text):
        return text


# -- Crazy Eights ----------------------------------------------------------------------------------
class CrazyEights(Pair):
    """OpenSpiel ``crazy_eights`` against specs/crazy_eights.yaml ``preset=openspiel``; game ``i``
    is for 2 + i % 4 players, with OpenSpiel's default parameters, then max_draw_cards=2, then
    max_turns=20, then reshuffle=true in turn (every fourth game), given to the spec as options of
    the same names.

    Here Rulebook draws first: its shuffles take random orders, and OpenSpiel's chance nodes are
    given the cards Rulebook dealt, turned and drew. OpenSpiel's eight is two decisions (play it,
    then nominate a suit); Rulebook's is one action with the suit as the card's mode
    (``play 8s as hearts``): both are compared, the nomination as a decision of its own."""
    spec = "crazy_eights.yaml"
    openspiel = "crazy_eights"
    SUITS = "CDHS"

    def configure(self, index):
        n = 2 + index % 4
        extra = [{}, {"max_draw_cards": 2}, {"max_turns": 20}, {"reshuffle": True}][index // 4 % 4]
        return n, {"players": n, **extra}, {"preset": "openspiel", **extra}

    def start(self):
        n = self.players
        starters = []          # the cards turned up, in order (eights go back into the stock)
        shuffles = 0
        while self.ours.is_chance_node():
            node = self.ours.pending["chance"]
            if node["kind"] == "random":
                self.ours.apply(f"outcome {self.rng.randrange(node['n'])}", CHANCE)
                continue
            names = sorted(self.names[c] for c in node["cards"])
            self.rng.shuffle(names)               # bottom first
            top_first = names[::-1]
            dealt = n * (7 if n == 2 else 5) if shuffles == 0 else 0
            starters.append(top_first[dealt])
            shuffles += 1
            self.ours.apply("order " + ", ".join(names), CHANCE)
        dealer = self.ours.vars["dealer"]
        self.os.apply_action(52 + dealer)          # kDecideDealerActionBase + dealer
        hands = [[self.names[c] for c in hand] for hand in self.ours.zones["hand"]]
        for i in range(sum(len(h) for h in hands)):
            seat = (dealer + 1 + i) % n
            self.os.apply_action(self._os_card(hands[seat][i // n]))
        for name in starters:
            if not self.os.is_chance_node():
                raise Mismatch("OpenSpiel turned fewer starters than Rulebook")
            self.os.apply_action(self._os_card(name))
        if self.os.is_chance_node():
            raise Mismatch("OpenSpiel turned more starters than Rulebook")
        top = self.names[self.ours.zones["discard"][-1]]
        if f"Last card: {self._os_str(top)}" not in str(self.os):
            raise Mismatch(f"starter: Rulebook {top}, OpenSpiel {str(self.os).splitlines()[-7:-5]}")

    def _os_card(self, name: str) -> int:
        """OpenSpiel's card id (rank * 4 + suit, suits C D H S) of a Rulebook card name."""
        common = card_of_name(name)
        return RANKS.index(common[0]) * 4 + self.SUITS.index(common[1])

    def _os_str(self, name: str) -> str:
        common = card_of_name(name)
        return common[1] + common[0]

    def os_common(self, player, action):
        text = self.os.action_to_string(player, action)
        if text.startswith("Play "):
            return f"play {text[6]}{text[5]}"
        if text.startswith("Nominate suit "):
            return f"suit {text[-1]}"
        return text.lower()

    def ours_common(self, text):
        return text if text in ("draw", "pass") else "play " + card_of_name(text.split()[1])

    def apply(self, player, common, ours, theirs):
        before = Counter(self.ours.zones["hand"][player])
        self.os.apply_action(theirs[common])
        texts = ours[common]
        if common.startswith("play 8") and not self.os.is_terminal():
            # the nomination: OpenSpiel's next decision, the mode of Rulebook's action
            modes = {f"suit {t.split(' as ')[1][0].upper()}": t for t in texts}
            if self.os.current_player() != player:
                raise Mismatch(f"OpenSpiel nominates for seat {self.os.current_player()}, not {player}")
            named = {self.os_common(player, a): a for a in self.os.legal_actions()}
            self.nominations.append((sorted(modes), sorted(named)))
            both = sorted(set(modes) & set(named))
            if not both:
                raise Mismatch(f"nominations: Rulebook {sorted(modes)}, OpenSpiel {sorted(named)}")
            suit = self.rng.choice(both)
            self.os.apply_action(named[suit])
            texts = [modes[suit]]
        self.ours.apply(self.rng.choice(texts), player)
        if common == "draw":
            drawn = Counter(self.ours.zones["hand"][player]) - before
            if not self.os.is_chance_node() or sum(drawn.values()) != 1:
                raise Mismatch("a draw that is not one card in both engines")
            self.os.apply_action(self._os_card(self.names[next(iter(drawn))]))
        while self.ours.is_chance_node():  # reshuffle: the discard pile becomes the stock
            node = self.ours.pending["chance"]
            if node["kind"] != "shuffle":
                raise Mismatch("Rulebook draws at random during play")
            names = sorted(self.names[c] for c in node["cards"])
            self.rng.shuffle(names)
            self.ours.apply("order " + ", ".join(names), CHANCE)
        self.after(player, common)


GAMES = {"hearts": Hearts, "spades": Spades, "oh_hell": OhHell, "crazy_eights": CrazyEights}


def run_game(name: str, index: int, seed: int = 0) -> GameResult:
    """Game number ``index`` of ``name`` in both engines (random play from ``seed`` and ``index``)."""
    rng = random.Random(f"{seed}:{name}:{index}")
    pair = GAMES[name](index, rng)
    result = GameResult()
    try:
        pair.start()
        while not (pair.os.is_terminal() or pair.ours.is_terminal()):
            player, ours, theirs = pair.legal()
            result.decisions += 1
            if set(ours) != set(theirs):
                result.legal_mismatches.append({
                    "decision": result.decisions, "seat": player,
                    "only_rulebook": sorted(set(ours) - set(theirs)),
                    "only_openspiel": sorted(set(theirs) - set(ours))})
            common = sorted(set(ours) & set(theirs))
            if not common:
                raise Mismatch("no action legal in both engines")
            pair.apply(player, rng.choice(common), ours, theirs)
            for ours_set, theirs_set in pair.nominations:
                result.decisions += 1
                if ours_set != theirs_set:
                    result.legal_mismatches.append({
                        "decision": result.decisions, "seat": player,
                        "only_rulebook": sorted(set(ours_set) - set(theirs_set)),
                        "only_openspiel": sorted(set(theirs_set) - set(ours_set))})
            pair.nominations.clear()
        if pair.os.is_terminal() != pair.ours.is_terminal():
            raise Mismatch(f"game over in {'OpenSpiel' if pair.os.is_terminal() else 'Rulebook'} only")
        theirs, ours = pair.os_returns(), pair.our_returns()
        if theirs != ours:
            result.return_mismatch = {"openspiel": theirs, "rulebook": ours}
    except Mismatch as exc:
        result.failure = str(exc)
    except Exception as exc:  # an engine refused an action: report it, go on with the next game
        result.failure = f"{type(exc).__name__}: {exc}"
    return result


def run(name: str, games: int, seed: int = 0) -> dict:
    """``games`` games of ``name``: a summary dict (games, decisions, legal_mismatches,
    return_mismatches, failures, seconds, details: [(index, GameResult)] of the games that
    disagreed)."""
    t0 = time.perf_counter()
    out = {"game": name, "games": games, "decisions": 0, "legal_mismatches": 0,
           "return_mismatches": 0, "failures": 0, "details": []}
    for i in range(games):
        r = run_game(name, i, seed)
        out["decisions"] += r.decisions
        out["legal_mismatches"] += len(r.legal_mismatches)
        out["return_mismatches"] += r.return_mismatch is not None
        out["failures"] += r.failure is not None
        if r.legal_mismatches or r.return_mismatch or r.failure:
            out["details"].append((i, r))
    out["seconds"] = time.perf_counter() - t0
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--num-games", type=int, default=1000, help="games of each game (default 1000)")
    ap.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    ap.add_argument("--seed", type=int, default=0, help="seed of the random play (default 0)")
    ap.add_argument("--show-mismatch", type=int, default=0, metavar="K",
                    help="print the first K disagreements of each game")
    args = ap.parse_args(argv)
    if _pyspiel() is None:
        print("OpenSpiel is not installed: pip install -e '.[test]' (or '.[bench]')", file=sys.stderr)
        return 2
    head = f"{'game':<13} {'games':>6} {'decisions':>10} {'legal-set mismatches':>21} " \
           f"{'return mismatches':>18} {'other':>6} {'time':>8}"
    print(head)
    print("-" * len(head))
    bad = False
    for name in args.games:
        s = run(name, args.num_games, args.seed)
        bad |= bool(s["legal_mismatches"] or s["return_mismatches"] or s["failures"])
        print(f"{name:<13} {s['games']:>6} {s['decisions']:>10} {s['legal_mismatches']:>21} "
              f"{s['return_mismatches']:>18} {s['failures']:>6} {s['seconds']:>7.1f}s", flush=True)
        for i, r in s["details"][:args.show_mismatch]:
            print(f"  game {i}:")
            for m in r.legal_mismatches[:3]:
                print(f"    decision {m['decision']} seat {m['seat']}: only Rulebook {m['only_rulebook']}, "
                      f"only OpenSpiel {m['only_openspiel']}")
            if r.return_mismatch:
                print(f"    returns: OpenSpiel {r.return_mismatch['openspiel']}, "
                      f"Rulebook {r.return_mismatch['rulebook']}")
            if r.failure:
                print(f"    stopped: {r.failure}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
