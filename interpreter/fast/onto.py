"""A choice of a card and the set it goes on (``choose`` with ``cards:`` and ``onto:``) in the typed
kernel (:mod:`interpreter.fast.typepass`), as the step API lists and plays it
(:meth:`interpreter.engine.program.Choose.onto_legal`, :class:`~interpreter.engine.program.BindChoice`):

- the options: for each set of the ``onto`` zone of sets, in order (its 0-based place ``k``), each
  card of ``cards`` that lays off on it, in card-table order, one per name (the first card of each
  name in the zone is the one tried: identical cards give one option), for which ``where`` holds
  (the card bound to ``as``, ``k`` to ``at``). A card lays off on a set as ``lay_offs(set, cards)``
  says (:func:`interpreter.fast.melds.lay_offs`: the set with the card is still a meld of a kind
  the set is). An option is ``(card, k)`` in the rows of ``OPT`` (the value and the mode); its text
  is ``ACTION NAME K`` (:mod:`interpreter.fast.steps`); the optional action is ``(NULL, NULL)``;
- the choice: the card moves onto set ``k`` (marked as played by the seat, with no mode), a set
  left empty drops out (:func:`~interpreter.fast.setzones.after_move`); ``at`` reads ``k`` in
  ``then`` (null after the optional action). A set ``k`` that is gone by then flags the game
  (``RI_ERROR`` 7: the step API replays it and raises its error).

The candidates (the first card of each name) are copied into a row of ``TMP`` while the options
are listed; more options than the rows of ``OPT`` hold flag the game (error 6, replayed by the
step API). Every line comes from the fixed templates below, whose holes are generated names and
integers (``check_source`` still checks the module).
"""
from __future__ import annotations

from ..expr.compiler import parse
from ..expr.syntax import Tree
from .calls import _hoist
from .lowtypes import CARD, INT, RI_ERROR, RI_LISTING, ListT, NotTyped, _indent
from . import melds, setzones

# names bound only in the environments of the trees this module builds (the set, the candidates and
# the set's place handed to lay_offs and to the set's row; never written into the module): the
# spec's own expressions (where, the meld kinds) are lowered without them
_SET, _CARDS, _AT = "__onto_set_", "__onto_cards_", "__onto_at_"


def _sets(low, c, env, cp):
    """``(zone name, owner code or None)`` of the choice's ``onto`` zone of sets."""
    low.path = cp + ".onto"
    found = setzones._found(low, parse(str(c["onto"])), env)
    if found is None:
        raise NotTyped("onto: a zone that the kernel does not read as a zone of sets", cp + ".onto")
    return found


def options(low, c, env_opt, value, cp):
    """``(listing lines, count name)``: the lines that write the choice's options into ``OPT``
    (``value``: the generated name the card is bound to; ``env_opt``: the names in scope, the
    chooser bound)."""
    as_name, at_name = str(c.get("as", "choice")), str(c.get("at", "at"))
    row = low.zone_row_code(c["cards"], env_opt, cp + ".cards")
    name, owner = _sets(low, c, env_opt, cp)
    sets = setzones.sets_list(low, name, owner, env_opt)
    crow = low.depth  # the candidates: one card per name, in card-table order
    low.depth += 1
    low.max_depth = max(low.max_depth, low.depth)
    r, i, n = low.fresh("t"), low.fresh("t"), low.fresh("t")
    m, k, srow = low.fresh("v"), low.fresh("v"), low.fresh("v")
    lines = [f"{r} = {row}", f"sort_row(Z[{r}], ZN[{r}], SK)", f"{m} = 0"]
    if low.names_unique:
        lines += [f"for {i} in range(ZN[{r}]):", f"    TMP[{crow}, {i}] = SK[{i}]", f"{m} = ZN[{r}]"]
    else:  # (SEEN[name] holds the number of the listing that took that name: see lowsteps.s_choose)
        stamp = low.fresh("t")
        lines += [f"{stamp} = RI[{RI_LISTING}] + 1", f"RI[{RI_LISTING}] = {stamp}", f"for {i} in range(ZN[{r}]):",
                  f"    if SEEN[ATTR[{low.name_id_row}, SK[{i}]]] != {stamp}:",
                  f"        SEEN[ATTR[{low.name_id_row}, SK[{i}]]] = {stamp}",
                  f"        TMP[{crow}, {m}] = SK[{i}]", f"        {m} += 1"]

    def candidates(var, body):
        a = low.fresh("i")
        return [f"for {a} in range({m}):", f"    {var} = TMP[{crow}, {a}]"] + _indent(body)
    env_w = dict(env_opt)
    env_w[as_name] = (value, CARD)
    env_w[at_name] = (k, INT)
    low.path = cp + ".where"
    where = low.truth(parse(str(c["where"])), env_w) if "where" in c else "True"
    hoisted, (where,) = _hoist([where], {value, k}, low.fresh)  # what reads neither the card nor the set: once
    env_l = dict(env_opt)
    env_l[_SET] = low.zone_list(srow)
    env_l[_CARDS] = ListT(CARD, candidates, length=m, refs={m})
    low.path = cp + ".onto"
    lay = melds.lay_offs(low, [parse(_SET), parse(_CARDS)], env_l)
    store = [f"if {where}:", f"    if {n} >= len(OPT[0]):", f"        RI[{RI_ERROR}] = 6", "        return",
             f"    OPT[0, {n}] = {value}", f"    OPT[1, {n}] = {k}", f"    {n} += 1"]
    listing = hoisted + lines + [f"{n} = 0", f"{k} = 0"] + sets.loop(srow, lay.loop(value, store) + [f"{k} += 1"])
    low.depth -= 1
    return listing, n


def bind_at(c, env_then: dict, mode: str) -> None:
    """Bind the choice's ``at`` name in ``env_then`` (its ``then`` steps) to the set's place, the
    chosen option's mode (NULL after the optional action)."""
    env_then[str(c.get("at", "at"))] = (mode, INT)


def played(low, c, env_then, value, seat, mode, optional: bool, cp: str) -> list:
    """The lines that put the chosen card ``value`` onto set ``mode`` of the ``onto`` zone (as the
    step API's BindChoice: marked as played by ``seat``, no mode; a set emptied drops out)."""
    env = dict(env_then)
    env[_AT] = (mode, INT)
    low.path = cp + ".onto"
    row = setzones.set_row(low, Tree("index", [parse(str(c["onto"])), parse(_AT)]), env)
    if row is None:
        raise NotTyped("onto: a zone that the kernel does not read as a zone of sets", low.path)
    play = [f"play_card(Z, ZN, PB, MD, LOC, {value}, {row}, {seat}, NULL)"] + setzones.after_move(low, env)
    return [f"if {value} != NULL:"] + _indent(play) if optional else play
