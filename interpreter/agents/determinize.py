"""Determinisation: a full State that a seat could be in, drawn from what that seat may see.

A search bot of seat ``s`` must not read hidden information. :class:`Determiniser` turns the true
State into a *determinisation*: a clone in which every card ``s`` cannot see has been dealt again at
random among the places ``s`` cannot see, keeping

- every zone ``s`` sees (``public`` zones, ``s``'s own ``owner`` zones) exactly as it is;
- the number of cards in each zone hidden from ``s`` (counts are public);
- every card named by a game or player variable, or by a name the rules have bound (those were shown:
  the trump card drawn into a hand, the card that won the last trick), and every card a ``show``
  step let ``s`` see, where it is;
- what each other player has **shown they lack** (below);

and, since future chance must not be read either, a fresh seed for the clone's generator. Choices the
other players have already committed in a simultaneous step are secret: they are withdrawn in the
determinisation (those players choose again inside the search).

**Shown lacking.** Before each action of another player the driver calls :meth:`Determiniser.observe`.
When the action plays a card from a zone hidden from ``s`` (a hand), the determiniser asks, for each
card ``h`` that ``s`` cannot see: *with a hand of just the played card, is the action legal, and with
the played card and ``h``, is it not?* If so the player cannot have held ``h`` (a hand holding ``h``
would have made the play illegal, as failing to follow suit shows no card of the suit led). The probe
runs on a determinisation, so it reads nothing hidden. Only actions everyone reads count: a secret
(simultaneous) choice and a choice with ``visible_to`` teach nothing here. The inference assumes that adding a card to a
hand only ever removes options from it (true of follow-suit and must-trump rules); it is dropped for a
zone as soon as cards enter it that the plays seen since do not account for (a refill or a new deal).

Limits: cards are dealt uniformly among the hidden places that fit the constraints (no opponent
model); if the constraints cannot be met in ``MAX_TRIES`` random fills, the last fill is used.
"""
from __future__ import annotations

import random

from ..errors import RuleError
from ..model.cards import Card

MAX_TRIES = 50


def _cards_in(value, out: set) -> None:
    t = type(value)
    if t is Card:
        out.add(value.id)
    elif t is list or t is tuple:
        for v in value:
            _cards_in(v, out)
    elif t is dict:
        for v in value.values():
            _cards_in(v, out)


class Determiniser:
    """Samples determinisations of a State for ``seat`` (see the module doc).

    ``observe(state, player, text)`` must be called before each action of the game is applied (the
    drivers in :mod:`interpreter.agents.basic` do); ``sample(state, rng)`` returns a new State.
    """

    def __init__(self, game, seat: int):
        self.game = game
        self.seat = seat
        # (zone name, owner) -> [count when recorded, set of card ids played from it since, excluded ids]
        self.lacking = {}

    # -- what the seat may see --------------------------------------------------------------
    def hidden_places(self, state) -> list:
        """``[(zone name, owner or None), ...]`` of the zones ``seat`` cannot see, in a fixed order."""
        out = []
        seat = self.seat
        for name, zdef in self.game.zones.items():
            if zdef.per_player:
                for owner in range(state.num_players):
                    if zdef.visibility == "hidden" or (zdef.visibility == "owner" and owner != seat):
                        out.append((name, owner))
            elif zdef.visibility == "hidden":
                out.append((name, None))
        return out

    @staticmethod
    def _zone(state, place, write=False) -> list:
        """The live list of ``place``; ``write``: ready to be changed (``State.zone_for_write``)."""
        name, owner = place
        if write:
            return state.zone_for_write(name, owner)
        z = state.zones[name]
        return z if owner is None else z[owner]

    def _lists(self, state, place, write=False) -> list:
        """The live card lists of ``place``: the zone itself, or its sets for a zone of sets."""
        z = self._zone(state, place, write)
        return z if self.game.zones[place[0]].sets else [z]

    def pinned(self, state) -> set:
        """Card ids the seat knows where they are although they lie in hidden zones: the ones a
        ``show`` step showed it, and the ones named by variables or bound names (they were shown)."""
        out = {cid for cid, seats in state.shown.items() if self.seat in seats}
        _cards_in(state.vars, out)
        for pv in state.pvars:
            _cards_in(pv, out)
        for frame in state.stack:
            _cards_in(frame[2], out)
        return out

    # -- shown lacking ------------------------------------------------------------------------
    def _valid(self, state, place) -> bool:
        """Whether the record of ``place`` still holds: no card entered it unexplained since."""
        rec = self.lacking.get(place)
        if rec is None:
            return False
        count0, played, _ = rec
        hidden = set(self.hidden_places(state))
        gone = 0
        for cid in played:
            if state.zone_of(cid) not in hidden:  # the played card is now in sight, out of the zone
                gone += 1
        if sum(map(len, self._lists(state, place))) > count0 - gone:
            del self.lacking[place]
            return False
        return True

    def observe(self, state, player: int, text: str, rng: random.Random | None = None) -> None:
        """Learn from ``player`` taking the action ``text`` in ``state`` (before it is applied)."""
        for place in list(self.lacking):
            self._valid(state, place)
        if player == self.seat or state.pending is None or state.pending.get("simultaneous"):
            return  # a secret choice teaches nothing until it is revealed (not used: see the doc)
        from ..engine.program import ProductOptions
        from ..engine.run import legal_options, _pending_instr
        instr = _pending_instr(state)
        opts = legal_options(state, player)
        if type(opts) is ProductOptions:
            return  # values, not cards: nothing to learn about a hand (and no listing of its texts)
        chosen = next((o for o in opts if o[0].lower() == text.lower()), None)
        if chosen is None or chosen[2] is None:
            return
        if state.pending.get("realtime"):
            instr = instr.alts[chosen[4]]
        if getattr(instr, "cards", None) is None or getattr(instr, "visible", None) is not None:
            return  # not a card played from a zone, or an action others may not read
        cid = chosen[2]
        hidden = self.hidden_places(state)
        place = state.zone_of(cid)
        if place not in hidden or self.game.zones[place[0]].sets:
            return  # in sight, or laid from a set (the probe below reasons about one plain hand)
        rec = self.lacking.get(place)
        if rec is not None:
            rec[1].add(cid)
        # probe on a determinisation: the answer may depend on nothing the seat cannot see
        rng = rng or random.Random(len(state.history))
        probe = self.sample(state, rng, keep_commits=True)
        zone = self._zone(probe, place, True)
        # park the probe hand's other cards where they cannot matter: another hidden list
        park = next((lst for other in hidden if other != place for lst in self._lists(probe, other, True)), None)
        if park is None:
            return
        park.extend(zone)
        zone.clear()
        src = probe.find_zone(cid)
        src.remove(cid)
        zone.append(cid)
        if not self._legal_in(probe, player, chosen[0]):
            return  # the play's legality depends on more than the hand: infer nothing
        excluded = set()
        pinned = self.pinned(state)
        for h in self._hidden_ids(state, hidden, pinned):
            if h == cid or self.game.cards[h].name == self.game.cards[cid].name:
                continue
            holder = probe.find_zone(h)
            holder.remove(h)
            zone.append(h)
            if not self._legal_in(probe, player, chosen[0]):
                excluded.add(h)
            zone.remove(h)
            holder.append(h)
        if not excluded:
            return
        if rec is None:
            self.lacking[place] = [len(self._zone(state, place)), {cid}, excluded]
        else:
            rec[2] |= excluded

    @staticmethod
    def _legal_in(probe, player, text) -> bool:
        from ..engine.run import legal_options
        probe._legal_cache = {}
        try:
            return any(o[0] == text for o in legal_options(probe, player))
        except RuleError:  # no option at all with the probe hand (a set choice needs more cards)
            return False

    def _hidden_ids(self, state, hidden, pinned) -> list:
        """The ids of hidden, unpinned cards, in card-table order (so nothing depends on where they
        really are)."""
        ids = []
        for place in hidden:
            for cards in self._lists(state, place):
                ids.extend(cards)
        return sorted(i for i in ids if i not in pinned)

    # -- sampling -----------------------------------------------------------------------------
    def sample(self, state, rng: random.Random, keep_commits: bool = False):
        """A determinisation of ``state`` for ``seat`` (a new State; ``state`` is unchanged)."""
        det = state.clone()
        det.trace = None  # a bot's imagined play is not the game's: it must not count in a step trace
        hidden = self.hidden_places(state)
        pinned = self.pinned(state)
        slots = []  # (place, number of free slots, excluded ids)
        for place in hidden:
            cards = [c for lst in self._lists(det, place) for c in lst]
            free = sum(1 for c in cards if c not in pinned)
            rec = self.lacking.get(place)
            slots.append((place, free, rec[2] if rec is not None else ()))
        pool = self._hidden_ids(state, hidden, pinned)
        order = sorted(range(len(slots)), key=lambda k: -len(slots[k][2]))  # most constrained first
        fill = None
        for _ in range(MAX_TRIES):
            rest = list(pool)
            rng.shuffle(rest)
            fill = {}
            ok = True
            for k in order:
                place, free, excluded = slots[k]
                if excluded:
                    allowed = [c for c in rest if c not in excluded]
                    if len(allowed) < free:
                        ok = False
                        allowed = allowed + [c for c in rest if c in excluded]
                    take = allowed[:free]
                    taken = set(take)
                    rest = [c for c in rest if c not in taken]
                else:
                    take, rest = rest[:free], rest[free:]
                fill[place] = take
            if ok:
                break
        for place, _, _ in slots:
            # pinned cards keep their position; the others are dealt again in their slots (a zone
            # of sets keeps the number and sizes of its sets)
            new = iter(fill[place])
            for lst in self._lists(det, place, True):
                lst[:] = [c if c in pinned else next(new) for c in lst]
        det.seed = rng.getrandbits(62)
        det.rng_count = 0
        if not keep_commits and det.pending is not None and det.pending.get("simultaneous"):
            committed = det.pending["committed"]
            for key in [k for k in committed if k != str(self.seat)]:
                del committed[key]
        det._legal_cache = {}
        return det
