"""Leak tests: for every spec in ``specs/`` (and the privacy test spec), every seat and every
channel a person sees — the observation, the per-seat lines (log lines, others' actions), the
per-seat export and the ``rulebook play`` transcript — nothing appears that the seat may not
know: a card it cannot see (in another's hand, in a hidden zone; unless a ``show`` let it see
it), another player's choice before it is revealed, or the seed before the game is over.

A card name is "known" to a seat during the running of one action (the *window*: from the
position before the action to the next decision) if a card of that name is in a zone the seat
sees, or was shown to it, at some moment of the window: a card played face up and then put
away in the same window may be named. A name that stays hidden from the seat through the
whole window must not appear in what the seat reads from that window.

New specs are covered automatically (the list is ``specs/*.yaml``). Bounded: one game per spec
at its smallest player count, a few seeds for the test spec.
"""
from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from interpreter.cli import main
from interpreter.spec.loader import load_game
from interpreter.view import event_for, history_for, line_for

ROOT = Path(__file__).resolve().parents[1]
SPECS = sorted((ROOT / "specs").glob("*.yaml")) + [ROOT / "tests" / "specs" / n for n in ("private_pass.yaml", "secret_sets.yaml")]
MAX_ACTIONS = 400  # per game: enough to cover every kind of step of the shipped games


def _ids(paths):
    return [p.stem for p in paths]


# -- what a seat may see now ---------------------------------------------------------------
def visible_ids(state, seat) -> set:
    """Card ids ``seat`` sees now: visible zones, plus cards a `show` let it see."""
    out = set()
    for name, zdef in state.game.zones.items():
        zone = state.zones[name]
        if zdef.per_player:
            for owner, ids in enumerate(zone):
                if zdef.visibility == "public" or zdef.visibility == "owner" and owner == seat:
                    out.update(_flat(ids))
        elif zdef.visibility == "public":
            out.update(_flat(zone))
    out.update(cid for cid, seats in state.shown.items() if seat in seats)
    return out


def _flat(ids) -> list:
    """The card ids of a zone (a zone of sets holds lists of ids)."""
    return [i for x in ids for i in (x if isinstance(x, list) else [x])]


class Window:
    """Card names each seat has seen so far in the game (``seen``, carried from window to window:
    a card once shown face up may be named later, e.g. "the winning card was black-3"), and names
    hidden from it at some moment of this window."""

    def __init__(self, state, before=None):
        self.state = state
        self.seen = before.seen if before is not None else {s: set() for s in range(state.num_players)}
        self.hidden = {s: set() for s in range(state.num_players)}
        self.snap()

    def snap(self):
        cards = self.state.game.cards
        every = set(range(len(cards)))
        for s in self.seen:
            vis = visible_ids(self.state, s)
            self.seen[s].update(cards[i].name for i in vis)
            self.hidden[s].update(cards[i].name for i in every - vis)

    def secret_names(self, seat) -> set:
        """Names hidden from ``seat`` through the whole window, and never seen before."""
        return self.hidden[seat] - self.seen[seat] - mode_words(self.state.game)


class SnapshotEvents(list):
    """The State's event list: each event also snapshots what every seat sees at that moment."""

    def __init__(self, state):
        super().__init__()
        self.state = state
        self.window = None

    def append(self, event):
        if self.window is not None:
            self.window.snap()
        super().append(event)


def mode_words(game) -> set:
    """Card names that are also the name of a mode ("play tigress as escape"): an option's
    text names them without naming a card."""
    return {m for c in game.cards for m in (c.modes or ())}


def mentions(text, names) -> list:
    """The card names of ``names`` that appear as whole words in ``text``."""
    found = []
    for name in names:
        if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
            found.append(name)
    return found


def leaves(value):
    """Every string in a JSON-like value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(k)
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)


def _now_secret(state, seat) -> set:
    cards = state.game.cards
    vis = visible_ids(state, seat)
    seen = {cards[i].name for i in vis}
    return {c.name for c in cards if c.id not in vis} - seen


def check_observation(state, seat, where, seen=frozenset()):
    """The observation names no card hidden from ``seat`` now (and never ``seen`` by it before),
    and does not change when the hidden cards are shuffled among their hidden places."""
    obs = state.observation(seat)
    secret = _now_secret(state, seat) - seen - mode_words(state.game)
    my_choice = (obs["pending"] or {}).get("my_choice")
    for text in leaves(obs):
        if text == my_choice:
            continue  # one's own committed choice
        bad = [n for n in secret if text == n] or mentions(text, secret)
        assert not bad, f"{where}: seat {seat}'s observation names {bad} ({text!r})"
    # indistinguishability: move the hidden cards among the hidden places; nothing changes
    alt = state.clone()
    vis = visible_ids(alt, seat)
    places = []
    for name, zdef in alt.game.zones.items():
        # written in place below: each list through zone_for_write (the clone shares them until then)
        zones = ([alt.zone_for_write(name, s) for s in range(alt.num_players)] if zdef.per_player
                 else [alt.zone_for_write(name)])
        if zdef.sets:
            zones = [one for sets in zones for one in sets]
        for ids in zones:
            places.extend((ids, i) for i, cid in enumerate(ids) if cid not in vis)
    hidden = [ids[i] for ids, i in places]
    random.Random(len(hidden)).shuffle(hidden)
    for (ids, i), cid in zip(places, hidden):
        ids[i] = cid
    alt._legal_cache = {}
    assert alt.observation(seat) == obs, f"{where}: seat {seat}'s observation depends on hidden cards"


def play_and_check(game, num_players, seed):
    """Play one game with random bots and check every channel of every seat at every step."""
    events = SnapshotEvents(None)
    state = game.new_state(num_players, seed, events=events)
    events.state = state
    rng = random.Random(seed)
    read = {s: [] for s in range(num_players)}  # per seat: the lines read so far
    # the set-up's lines (before the first decision): checked against the first position
    window = Window(state)
    for ev in list(events):
        for s in range(num_players):
            shown = event_for(state, ev, s)
            if shown is not None:
                line = line_for(state, shown)
                bad = mentions(line, window.secret_names(s))
                assert not bad, f"{game.name}, set-up: seat {s} reads {line!r}, which names {bad}, hidden from it"
                read[s].append(line)
    events.clear()
    steps = 0
    while not state.is_terminal() and steps < MAX_ACTIONS:
        for s in range(num_players):
            check_observation(state, s, f"{game.name}, action {steps}", window.seen[s])
        window = Window(state, window)
        events.window = window
        p = state.current_players()[0]
        action = rng.choice(state.legal_actions(p))
        state.apply(action, p)
        window.snap()
        events.window = None
        for ev in list(events):
            for s in range(num_players):
                shown = event_for(state, ev, s)
                if shown is None:
                    continue
                line = line_for(state, shown)
                bad = mentions(line, window.secret_names(s))
                assert not bad, (f"{game.name}, action {steps} ({state.history[-1]}): seat {s} reads "
                                 f"{line!r}, which names {bad}, hidden from it")
                read[s].append(line)
        events.clear()
        steps += 1
        # the per-seat history: another's action text names only what the seat could know then
        for s in range(num_players):
            entry = history_for(state, s)[-1]
            if "action" in entry and entry["player"] != s:
                bad = mentions(entry["action"], window.secret_names(s))
                assert not bad, f"{game.name}: seat {s}'s history shows {entry['action']!r} ({bad} hidden)"
        # a simultaneous decision in progress: the others' commits are not in any seat's channel
        pending = state.pending
        if pending is not None and pending["simultaneous"] and pending["committed"]:
            for s in range(num_players):
                view = state.export(s)
                for other in pending["committed"]:
                    last = [e for e in view["history"] if e["player"] == int(other)][-1]
                    if int(other) != s:
                        assert "hidden" in last, f"{game.name}: seat {s} reads an unrevealed choice: {last}"
                    else:
                        assert view["observation"]["pending"]["my_choice"] == last["action"]
    for s in range(num_players):
        check_observation(state, s, f"{game.name}, end", window.seen[s])
        view = state.export(s)
        assert "seed" not in view and '"seed"' not in json.dumps(view)
        assert view["observation"] == state.observation(s)
        # the export's log is exactly the lines the seat read (checked above, window by window)
        assert view["log"] == read[s], f"{game.name}: seat {s}'s exported log differs from what it read"
    return state, read


def _table(game) -> int:
    """Three players where the game allows it: with two, a card passed or shown to "the other"
    player is known to everyone, and nothing private can leak."""
    return min(max(game.min_players, 3), game.max_players)


def _all_modules(spec) -> dict:
    """Every yes/no option of a spec turned on (its optional modules, variants and powers)."""
    from interpreter.spec.loader import load_spec
    data = load_spec(spec)[0]
    return {k: "true" for k, v in (data.get("options") or {}).items()
            if isinstance(v, dict) and (v.get("type") == "bool" or isinstance(v.get("default"), bool))}


# A whole game of some specs is thousands of actions (Ligretto to 99 points): one round here.
QUICK = {"ligretto_classic": {"rounds": 1}, "president": {"rounds": 1}, "contract_rummy": {"deals": 1},
         "canasta": {"max_hands": 1}}


def _quick(spec) -> dict:
    return dict(QUICK.get(Path(spec).stem, {}))


@pytest.mark.parametrize("spec", SPECS, ids=_ids(SPECS))
def test_no_channel_of_any_seat_shows_what_it_may_not_know(spec):
    game = load_game(spec, _quick(spec))
    play_and_check(game, game.min_players, 11)


@pytest.mark.parametrize("spec", SPECS, ids=_ids(SPECS))
def test_no_channel_leaks_with_every_module_on(spec):
    """The optional modules (private looks, face-down discards...) are where hidden information
    is most often shown: every yes/no option on at once, at the smallest and a larger table."""
    options = {**_quick(spec), **_all_modules(spec)}
    game = load_game(spec, options)
    state, read = play_and_check(game, game.min_players, 5)
    if "visible_to:" in Path(spec).read_text():
        # the spec has private lines: this game must have met some, or it checked nothing of them
        differ = len({tuple(lines) for lines in read.values()}) > 1  # seats read different lines
        assert state.private or differ, f"{game.name}: no private line or choice in this game: choose another seed"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_private_spec_at_three_and_four_players(seed):
    game = load_game(ROOT / "tests" / "specs" / "private_pass.yaml")
    play_and_check(game, 3 + seed % 2, seed)


def test_the_checker_finds_a_leak(tmp_path):
    """Without visible_to, the card passed is named to a player who cannot see it: the checker
    must say so (a check that cannot fail is no check)."""
    text = (ROOT / "tests" / "specs" / "private_pass.yaml").read_text()
    text = text.replace('          visible_to: "[player, (player + 1) % num_players]"\n', "")
    text = text.replace('          hidden_text: "{name(player)} passes a card to {name((player + 1) % num_players)}"\n', "")
    path = tmp_path / "leaky.yaml"
    path.write_text(text)
    with pytest.raises(AssertionError, match="hidden from it"):
        play_and_check(load_game(path), 3, 1)


# -- the play transcript of each seat ----------------------------------------------------------
def _play_transcript(spec, players, seat, seed, monkeypatch, capsys, tmp_path):
    """``rulebook play`` with one human at ``seat`` (always the first option), its output split
    at each of the human's prompts; and the saved game."""
    chunks = []

    def fake_input(prompt=""):
        chunks.append(capsys.readouterr().out + prompt)
        return "0"

    monkeypatch.setattr("builtins.input", fake_input)
    log = tmp_path / f"{Path(spec).stem}-{seat}.json"
    quick = [x for k, v in _quick(spec).items() for x in ("--option", f"{k}={v}")]
    assert main(["play", str(spec), "-p", str(players), "--human", str(seat), "--seed", str(seed),
                 "--save", str(log)] + quick) == 0
    chunks.append(capsys.readouterr().out)
    return chunks, json.loads(log.read_text())


@pytest.mark.parametrize("spec", SPECS, ids=_ids(SPECS))
def test_the_play_transcript_shows_a_human_only_what_they_may_know(spec, monkeypatch, capsys, tmp_path):
    game = load_game(spec, _quick(spec))
    n = _table(game)
    seed = 9_876_543
    for seat in range(n):
        chunks, saved = _play_transcript(spec, n, seat, seed, monkeypatch, capsys, tmp_path)
        out = "".join(chunks)
        before_end = out.split("Game over")[0]
        assert str(seed) not in before_end, f"{game.name}: the seed shows before the game is over"
        assert f"seed {seed}" in out.split("Game over")[-1]
        # replay the saved game; at each of the human's decisions the chunk printed since the
        # previous one names no card that stayed hidden from the human in between
        state = game.new_state(n, seed)
        events = SnapshotEvents(state)
        state.events = events
        window = Window(state)
        events.window = window
        asked = 0
        for player, text in saved["history"]:
            if player == seat:
                window.snap()
                bad = mentions(chunks[asked], window.secret_names(seat))
                assert not bad, f"{game.name}: seat {seat} was shown {bad} before decision {asked}"
                asked += 1
                window = Window(state, window)
                events.window = window
            state.apply(text, player)
        assert asked == len(chunks) - 1
        window.snap()
        bad = mentions(chunks[-1], window.secret_names(seat))
        assert not bad, f"{game.name}: seat {seat} was shown {bad} after its last decision"


# -- seed -------------------------------------------------------------------------------------
def test_the_seed_is_shown_only_at_the_end_unless_asked(monkeypatch, capsys):
    spec = ROOT / "tests" / "specs" / "private_pass.yaml"
    assert main(["play", str(spec), "-p", "3", "--seed", "4711"]) == 0
    out = capsys.readouterr().out
    head, tail = out.split("Game over")
    assert "4711" not in head and "seed shown at the end" in head
    assert "seed 4711 — replay with --seed 4711" in tail
    assert main(["play", str(spec), "-p", "3", "--seed", "4711", "--show-seed"]) == 0
    assert "seed 4711" in capsys.readouterr().out.split("Game over")[0]


def test_a_player_who_quits_sees_the_seed(monkeypatch, capsys):
    spec = ROOT / "tests" / "specs" / "private_pass.yaml"
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", str(spec), "-p", "3", "--human", "0", "--seed", "4711"]) == 0
    out = capsys.readouterr().out
    head, tail = out.split("Game left")
    assert "4711" not in head and "seed 4711" in tail
    assert "now that the game is left" in tail and "game is over" not in tail


# -- hot seat: every seat a human on one terminal ---------------------------------------------
CLEARED = "the screen is cleared here"


@pytest.mark.parametrize("spec", SPECS, ids=_ids(SPECS))
def test_hot_seat_screens_show_each_human_only_what_they_may_know(spec, monkeypatch, capsys, tmp_path):
    """Every seat human: each screen (between two clears) belongs to the human it was passed to,
    shows that human's own zones only, and names no card hidden from them from their previous
    decision to their next one."""
    game = load_game(spec)
    n = _table(game)

    def fake_input(prompt=""):
        print(prompt)
        return "" if "press Enter" in prompt else "0"

    monkeypatch.setattr("builtins.input", fake_input)
    log = tmp_path / "hot.json"
    humans = [a for p in range(n) for a in ("--human", str(p))]
    assert main(["play", str(spec), "-p", str(n), "--seed", "3", "--save", str(log), *humans]) == 0
    screens = capsys.readouterr().out.split(CLEARED)[1:]
    saved = json.loads(log.read_text())
    holders = [int(re.search(r"Pass the device to Player (\d+)\.", s).group(1)) for s in screens[:-1]]
    # replay, snapshotting what each seat sees at every event and decision
    state = game.new_state(n, 3)
    snaps = []  # [(seen names per seat, hidden names per seat)]

    def snap():
        cards = game.cards
        every = set(range(len(cards)))
        seen, hidden = [], []
        for seat in range(n):
            vis = visible_ids(state, seat)
            seen.append({cards[i].name for i in vis})
            hidden.append({cards[i].name for i in every - vis})
        snaps.append((seen, hidden))

    class Events(list):
        def append(self, event):
            snap()
            super().append(event)

    state.events = Events()
    starts = []  # (seat, its own zones, the snapshot index where its screen starts)
    holder = None
    for player, text in saved["history"]:
        snap()
        if player != holder:  # a new screen: the device passes to this player
            own = {name: sorted(game.cards[i].name for i in _flat(state.zones[name][player]))
                   for name, zdef in game.zones.items() if zdef.per_player and zdef.visibility == "owner"}
            starts.append((player, own, len(snaps) - 1))
            holder = player
        state.apply(text, player)
    snap()
    assert [seat for seat, _, _ in starts] == holders
    for k, (screen, (seat, own, start)) in enumerate(zip(screens, starts)):
        for name, cards in own.items():
            line = re.search(rf"Your {re.escape(name)}: (.*)", screen)
            if line:
                # a zone of sets lists each set numbered: "[1] a, b  [2] c"
                shown = sorted(c for c in re.split(r",\s*|\s*\[\d+\]\s*", line.group(1)) if c)
                assert shown == cards, f"{game.name}: seat {seat}'s screen shows another {name}"
        # the window of this screen: from the seat's previous screen to the next pass of the device
        prev = max((st for s2, _, st in starts[:k] if s2 == seat), default=0)
        end = starts[k + 1][2] if k + 1 < len(starts) else len(snaps) - 1
        seen = set().union(*(snaps[i][0][seat] for i in range(0, end + 1)))
        hidden = set().union(*(snaps[i][1][seat] for i in range(prev, end + 1)))
        bad = mentions(screen, hidden - seen - mode_words(game))
        assert not bad, f"{game.name}: the screen passed to seat {seat} names {bad}, hidden from it"
