"""The run loop: advance the control stack until a decision, list and apply actions.

Rule behaviour is the spec's; this module only follows the compiled program
(see :mod:`interpreter.engine.program`).
"""
from __future__ import annotations

import re

from ..errors import IllegalAction, RuleError, RulebookError, did_you_mean
from ..model.cards import Card
from ..model.state import Action
from .chance import ChanceNeeded
from .chance import pend as chance_pend
from .context import Ctx
from .program import CHOICES, ProductOptions, PICK, UNDO

MAX_STEPS = 1_000_000  # steps without a decision before the game is declared stuck
# actions in one game (its history) before the game is declared stuck: a game's default bound
# (Game.max_actions; `--max-actions N` on the command line). The longest shipped games (a real-time
# spec between 12 random bots) take up to about 63,000; turns that loop with no end (a `while` with
# a huge `max`, nested `repeat`s) stop here, after about 13 s of CPU and 180 MB (measured)
MAX_GAME_ACTIONS = 1_000_000

_PY_ERRORS = (TypeError, ValueError, ZeroDivisionError, KeyError, IndexError, AttributeError, RecursionError)


def start(state) -> None:
    """Push the ``flow`` program and run to the first decision."""
    state.stack = [["flow", 0, {}]]
    advance(state)


def advance(state) -> None:
    """Run instructions until some player must decide or the game ends.

    Raises :class:`RuleError` naming the spec step when the rules fail (a Python error
    inside an expression, a decision with no legal option, more than MAX_STEPS steps)."""
    game = state.game
    programs = game.programs
    ctx = Ctx(state)
    stack = state.stack
    trace = state.trace
    steps = 0
    state._legal_cache = {}
    chance = state.chance  # None unless the caller asked for chance nodes
    if trace is None and chance is None:
        steps = _run_plain(state, ctx, stack, programs)
    while state.pending is None and stack:
        frame = stack[-1]
        prog = programs[frame[0]]
        pc = frame[1]
        if pc >= len(prog):
            state.pop_frame()
            continue
        instr = prog[pc]
        ctx.locals = frame[2]
        if trace is not None and instr.step_id is not None:
            trace[instr.step_id] = trace.get(instr.step_id, 0) + 1
        try:
            instr.run(state, ctx, frame)
        except RuleError as exc:
            raise _located(game, instr, str(exc)) from None
        except _PY_ERRORS as exc:
            raise _located(game, instr, describe_python_error(exc)) from None
        except ChanceNeeded as need:  # the step runs again once the outcome is given
            ctx.bound.clear()
            chance_pend(state, need)
            break
        if chance is not None and chance["used"]:  # the step consumed its outcomes
            del chance["queue"][:chance["used"]]
            chance["used"] = 0
        ctx.bound.clear()
        # the work budget runs from one decision to the next (not per step): a step costs one
        # unit, and expressions spend theirs (see expr.compiler.spend) on the same ctx
        ctx.work += 1
        steps += 1
        if steps > MAX_STEPS:
            raise _located(game, instr, f"no player was asked to decide in {MAX_STEPS} steps: "
                                        "a loop with no end?")
    if state.pending is not None and "chance" not in state.pending:
        # a decision with no option is an error of the rules, reported where it is reached
        # (the lists are cached: the players' bots ask for them next)
        for seat in state.pending["players"]:
            legal_options(state, seat)


def _run_plain(state, ctx, stack, programs) -> int:
    """:func:`advance`'s loop without tracing or chance nodes (the common case), running each
    frame's instructions in an inner loop until the frame calls, returns or waits; returns the
    steps run. Same work budget, same errors."""
    steps = 0
    while state.pending is None and stack:
        frame = stack[-1]
        prog = programs[frame[0]]
        n = len(prog)
        ctx.locals = frame[2]
        while True:
            pc = frame[1]
            if pc >= n:
                state.pop_frame()
                break
            instr = prog[pc]
            try:
                instr.run(state, ctx, frame)
            except RuleError as exc:
                raise _located(state.game, instr, str(exc)) from None
            except _PY_ERRORS as exc:
                raise _located(state.game, instr, describe_python_error(exc)) from None
            bound = ctx.bound
            if bound:
                bound.clear()
            ctx.work += 1
            steps += 1
            if steps > MAX_STEPS:
                raise _located(state.game, instr, f"no player was asked to decide in {MAX_STEPS} steps: "
                                                  "a loop with no end?")
            if state.pending is not None or not stack or stack[-1] is not frame:
                break
            ctx.locals = frame[2]
    return steps


def too_long(state) -> RuleError:
    """The error of a game that has taken ``state.game.max_actions`` actions and is not over,
    at the spec line of the decision it waits for: names the bound and how to raise it."""
    game = state.game
    bound = game.max_actions
    try:
        pos = game.position(_pending_instr(state).path)
        where = f"{game.file}:{pos.line}:{pos.column}"
    except (AttributeError, IndexError, KeyError, TypeError):
        where = game.file
    return RuleError(f"{where}: error while running the rules: this game has taken {bound} actions and is not over "
                     f"(the bound on one game's length): do its turns loop with no end?\n"
                     f"    hint: if its games are really this long, raise the bound: --max-actions N (rulebook "
                     f"simulate, play, replay), or game.max_actions = N (the step API)")


def _located(game, instr, message):
    """A RuleError at the spec position of ``instr`` (a step, or anything with ``path``)."""
    if isinstance(message, str) and message.startswith(game.file + ":"):
        return RuleError(message)
    pos = game.position(instr.path)
    message = plain_words(message)
    return RuleError(f"{game.file}:{pos.line}:{pos.column}: error while running the rules: {message}\n"
                     f"    hint: the spec is valid, but this step failed in play; check the values it uses "
                     f"(rulebook play with --seed shows the game up to here)")


def _pending_instr(state):
    frame = state.stack[-1]
    return state.game.programs[frame[0]][frame[1]]


def legal_options(state, seat) -> list:
    """``[(text, value, card_id, mode), ...]`` for ``seat`` (cached until the State changes)."""
    pending = state.pending
    if pending is None or seat not in pending["players"] or str(seat) in pending["committed"]:
        return []
    cached = state._legal_cache.get(seat)
    if cached is not None:
        return cached
    instr = _pending_instr(state)
    frame = state.stack[-1]
    ctx = Ctx(state, frame[2])
    ctx.memo = {}  # the State does not change while options are listed
    try:
        opts = instr.legal(state, ctx, seat)
    except RuleError as exc:
        raise _located(state.game, instr, str(exc)) from None
    except _PY_ERRORS as exc:
        raise _located(state.game, instr, describe_python_error(exc)) from None
    if not opts:
        raise _located(state.game, instr, f"{state.player_name(seat)} has no legal option "
                                          f"(add optional: true, or make sure the options cannot be empty)")
    state._legal_cache[seat] = opts
    return opts


def legal_actions(state, player=None) -> list:
    """See :meth:`State.legal_actions`: the options of ``player`` as :class:`Action` tuples."""
    if player is None:
        cur = state.current_players()
        if not cur:
            return []
        player = cur[0]
    # a listing is cached only for a seat that must decide now (popped when it commits, cleared
    # when the State moves): a cached non-empty list needs no other check
    opts = state._legal_cache.get(player) if type(player) is int else None
    if not opts:
        opts = legal_options(state, player)
    if type(opts) is ProductOptions:
        return ActionList(player, opts)
    new = tuple.__new__  # Action(...) without its Python-level __new__: one per option
    return [new(Action, (player, opt[0], i)) for i, opt in enumerate(opts)]


class ActionList:
    """The legal actions of a product choice (see :class:`ProductOptions`): a read-only sequence
    of :class:`Action` built one at a time when read (``random.choice`` reads only one); it
    compares equal to the list of the same actions. ``len`` builds no text; :meth:`index_of`
    gives an action's index from its text without listing; iterating builds every text (for
    display only)."""

    __slots__ = ("player", "opts")

    def __init__(self, player, opts):
        self.player, self.opts = player, opts

    def __len__(self):
        return len(self.opts)

    def __getitem__(self, i):
        if type(i) is slice:
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self.opts)
        return Action(self.player, self.opts.text(i), i)

    def __iter__(self):
        for i in range(len(self.opts)):
            yield self[i]

    def index_of(self, text: str):
        """The index of the action whose text is ``text`` (ignoring case), or None."""
        return self.opts.index_of(text)

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, ActionList)) else NotImplemented

    def __repr__(self):
        return f"<{len(self)} actions of {self.player}: {self[0].text}, ...>"


def apply_action(state, action, player=None) -> None:
    """See :meth:`State.apply`. An :class:`Action` or an index is applied by its position in
    the (cached) option list, without reading its text; a text is matched case-insensitively."""
    pending = state.pending
    if pending is None:
        raise IllegalAction("the game is over")
    if player is not None and (type(player) is not int or not 0 <= player < state.num_players):
        raise IllegalAction(f"there is no seat {player!r:.40} (seats are whole numbers 0..{state.num_players - 1})")
    players, committed = pending["players"], pending["committed"]
    chosen = None
    if type(action) is Action:
        if player is not None and player != action.player:
            raise IllegalAction(f"this action is {state.player_name(action.player)}'s, not "
                                f"{state.player_name(player)}'s")
        player = action.player
        if type(player) is not int or not 0 <= player < state.num_players or type(action.text) is not str:
            raise IllegalAction(f"{action!r:.80} is not an action of this game")
        opts = state._legal_cache.get(player)  # cached only while the seat must decide (see legal_actions)
        if not opts:
            _check_turn(state, player)
            opts = legal_options(state, player)
        i = action.index
        if type(opts) is ProductOptions:  # checked by its words: no option's text is built
            if type(i) is int and opts.index_of(action.text, exact=True) == i:
                chosen = (action.text, opts.value(i), None, None) if i < opts.n else opts.tail[i - opts.n]
            else:
                text = action.text
        elif type(i) is int and 0 <= i < len(opts) and opts[i][0] == action.text:
            chosen = opts[i]
        else:  # an Action of an older list: find it by its text
            text = action.text
    elif isinstance(action, int) and not isinstance(action, bool):
        if player is None:
            if len(players) - len(committed) != 1:
                raise IllegalAction("say which player acts: several players are choosing at once")
            player = state.current_players()[0]
        _check_turn(state, player)
        opts = legal_options(state, player)
        if not 0 <= action < len(opts):
            raise IllegalAction(f"action index {action} is out of range 0..{len(opts) - 1}")
        chosen = opts[action]
    elif isinstance(action, str):
        text = " ".join(action.split())
        if player is None:
            # Several seats may act: guessing the seat from who holds the option would apply a
            # choice for the wrong player, and reveal who holds which card.
            current = state.current_players()
            if len(current) != 1:
                raise IllegalAction("say which player acts: several players are choosing at once "
                                    "(give the seat: apply(action, seat))")
            player = current[0]
        _check_turn(state, player)
        opts = legal_options(state, player)
    else:
        raise IllegalAction(f"an action is an Action, its text or its index, not {type(action).__name__}")
    if chosen is None and type(opts) is ProductOptions:  # found by its words, not by listing
        chosen = opts.find(text)
        if chosen is None:
            raise IllegalAction(_why_illegal(state, player, text, opts))
    if chosen is None:
        chosen = next((o for o in opts if o[0] == text), None)
    if chosen is None:  # case does not matter, unless two options differ only by it
        low = text.lower()
        fits = [o for o in opts if o[0].lower() == low]
        if len(fits) == 1:
            chosen = fits[0]
        if chosen is None:
            instr = _pending_instr(state)
            if getattr(instr, "is_set", False) and low.startswith(instr.action + " "):
                chosen = _direct_set(state, player, instr, low)  # the whole set typed at once
            else:
                raise IllegalAction(_why_illegal(state, player, text, opts))
    instr = _pending_instr(state)
    decision = instr.alts[chosen[4]] if pending.get("realtime") else instr
    secret = None
    if decision.visible is not None:  # evaluated before any change: an error leaves the State as it was
        try:
            secret = decision.privacy(state, Ctx(state, state.stack[-1][2]), player, chosen)
        except RuleError as exc:
            raise _located(state.game, decision, str(exc)) from None
        except _PY_ERRORS as exc:
            raise _located(state.game, decision, describe_python_error(exc)) from None
        state.private[str(len(state.history))] = secret
    if pending.get("realtime"):  # first come, first served: run this action's body now
        frame = state.stack[-1]
        state.record(player, chosen[0])
        if state.events is not None:
            state.emit("action", player=player, text=chosen[0], hidden=False,
                       to=secret[0] if secret else None, other=secret[1] if secret else None)
        frame[2]["$choice"] = (player, chosen[1], chosen[2], chosen[3])  # never changed: clones share it
        frame[1] = instr.entries[chosen[4]]
        state.pending = None
        advance(state)  # the others' options are listed again (advance clears the cache)
        return
    if chosen[3] == PICK or chosen[3] == UNDO:  # building a set: the decision is still open
        picked = pending.setdefault("picked", {}).setdefault(str(player), [])
        if chosen[3] == PICK:
            picked.append(chosen[2])
        else:
            picked.pop()
        # a card picked (or put back) is still in the hand: only the chooser reads which
        state.private[str(len(state.history))] = [[player], f"{state.player_name(player)} is choosing a set"]
        state.record(player, chosen[0])
        state.emit("action", player=player, text=chosen[0], hidden=True)
        state._legal_cache.pop(player, None)
        return
    if "picked" in pending:
        pending["picked"].pop(str(player), None)
    state.record(player, chosen[0])
    if state.events is not None:
        state.emit("action", player=player, text=chosen[0], hidden=pending["simultaneous"],
                   to=secret[0] if secret else None, other=secret[1] if secret else None)
    committed[str(player)] = (player, chosen[1], chosen[2], chosen[3])  # never changed: clones share it
    # a commit changes nothing the others' options depend on: keep their cached lists
    state._legal_cache.pop(player, None)
    if len(committed) < len(players):
        return
    frame = state.stack[-1]
    frame[2][CHOICES] = [committed[str(p)] for p in players]
    frame[1] += 1
    state.pending = None
    if pending["simultaneous"] and state.events is not None:
        index = last_entries(state.history, players)  # each chooser's commit
        for p in players:
            secret = state.private.get(str(index[p]))
            state.emit("reveal", player=p, text=state.history[index[p]][1],
                       to=secret[0] if secret else None, other=secret[1] if secret else None)
    advance(state)


def last_entries(history, players) -> dict:
    """``{seat: index of its last entry in history}`` for each of ``players`` found (a
    simultaneous decision's commits are its choosers' last entries)."""
    index = {}
    wanted = set(players)
    for i in range(len(history) - 1, -1, -1):
        seat = history[i][0]
        if seat in wanted and seat not in index:
            index[seat] = i
            if len(index) == len(wanted):
                break
    return index


def _direct_set(state, player, instr, text):
    """The option of a set typed whole (``meld seven seven joker``), or IllegalAction."""
    ctx = _ctx_for(state, player, instr)
    names = text[len(instr.action):].split()
    lower = {n.lower(): n for n in state.game.card_names}
    names = [lower.get(n, n) for n in names]
    try:
        got = instr.direct_set(state, ctx, player, names)
    except RuleError as exc:
        raise _located(state.game, instr, str(exc)) from None
    except _PY_ERRORS as exc:
        raise _located(state.game, instr, describe_python_error(exc)) from None
    finally:
        ctx.bound.clear()
    if isinstance(got, str):
        rule = _step_text(state.game, instr.path, "valid")
        because = f" (the rule here is `{rule}`)" if rule and "valid set" in got else ""
        raise IllegalAction(f"{text!r} is not a legal set for {state.player_name(player)}: {got}{because}")
    return got


def _check_turn(state, player) -> None:
    """Raise IllegalAction unless ``player`` must decide now."""
    pending = state.pending
    if player in pending["players"] and str(player) not in pending["committed"]:
        return
    if pending.get("realtime") and isinstance(player, int) and 0 <= player < state.num_players:
        raise IllegalAction(f"{state.player_name(player)} has no legal action now")
    if str(player) in pending["committed"]:
        raise IllegalAction(f"{state.player_name(player)} has already chosen")
    who = ", ".join(state.player_name(p) for p in state.current_players())
    raise IllegalAction(f"it is not {state.player_name(player)}'s turn (waiting for {who})")


def _why_illegal(state, player, text, opts) -> str:
    """A reason a player can act on: what was asked, and what is allowed."""
    # a product choice's options are not listed for a refusal: its first dozen are shown
    allowed = [o[0] for o in (opts[:13] if type(opts) is ProductOptions else opts)]
    verb = text.split(" ")[0] if text else ""
    sample = ", ".join(allowed[:12]) + (" ..." if len(allowed) > 12 else "")
    instr = _pending_instr(state)
    if getattr(instr, "alts", None):  # a real-time block: the action of that verb, if any
        instr = next((a for a in instr.alts if a.action.lower() == verb.lower()), instr)
    if getattr(instr, "is_set", False) and verb == "pick":
        name = text[4:].strip()
        if name not in state.game.card_names:
            return (f"there is no card named {name!r} in this game "
                    f"({did_you_mean(name, state.game.card_names)}legal: {sample})")
        return f"{name} cannot be added to this set now: either not held, or no valid set could include it (legal: {sample})"
    if getattr(instr, "is_set", False) and verb == "undo":
        return f"no card has been picked yet (legal: {sample})"
    if instr.cards is not None and verb.lower() == instr.action.lower():
        verb = instr.action
        rest = text[len(verb):].strip()
        onto_set = None
        if getattr(instr, "onto", None) is not None and " " in rest:  # CARD I: a card and the set it goes on
            rest, onto_set = rest.rsplit(" ", 1)
        card_name = rest.split(" as ")[0]
        known = state.game.card_names
        if card_name not in known:  # names keep their capitals; a match in another case is meant
            same = [n for n in known if n.lower() == card_name.lower()]
            if len(same) == 1:
                card_name = same[0]
        if card_name not in known:
            return (f"there is no card named {card_name!r} in this game "
                    f"({did_you_mean(card_name, state.game.card_names)}legal: {sample})")
        zone_cards = {state.game.cards[i].name for i in instr.cards.cards(state, _ctx_for(state, player, instr))}
        if card_name not in zone_cards:
            where = f"their {instr.cards.name}" if instr.cards.owner is not None else instr.cards.name
            return f"{state.player_name(player)} has no {card_name} in {where} (legal: {sample})"
        if " as " in rest:
            return f"{card_name} cannot be played as {rest.split(' as ', 1)[1]!r} (legal: {sample})"
        if onto_set is not None:
            rule = _step_text(state.game, instr.path, "where")
            return (f"{card_name} cannot go on set {onto_set} of {instr.onto.text} now: the card must lay off on "
                    f"that set (lay_offs)" + (f" and `{rule}` must hold" if rule else "") + f" (legal: {sample})")
        if any(a.startswith(f"{verb} {card_name} as ") for a in allowed):
            return f"say how {card_name} is played, e.g. {next(a for a in allowed if a.startswith(verb + ' ' + card_name))!r}"
        rule = _step_text(state.game, instr.path, "where")
        because = f": the rule here is `{rule}`" if rule else " by the rules of this step"
        return f"{card_name} may not be played now{because} (legal: {sample})"
    if instr.cards is None and getattr(instr, "where", None) is not None and verb.lower() == str(instr.action).lower():
        # an option of this choice that its `where` rules out now: say which rule
        import copy
        unfiltered = copy.copy(instr)
        unfiltered.where, unfiltered.optional = None, None
        try:
            every = [o[0].lower() for o in unfiltered.legal(state, _ctx_for(state, player, instr), player)]
        except (RulebookError,) + _PY_ERRORS:
            every = []
        if text.lower() in every:
            rule = _step_text(state.game, instr.path, "where")
            because = f": the rule here is `{rule}`" if rule else " by the rules of this step"
            return f"{text!r} may not be done now{because} (legal: {sample})"
    return f"{text!r} is not a legal action for {state.player_name(player)} now (legal: {sample})"


def _step_text(game, path, key):
    """The text of ``key`` in the choose step at ``path`` of the spec, or None."""
    node = game.spec
    try:
        for part in path:
            node = node[part]
        return str(node["choose"][key]).strip()
    except (KeyError, IndexError, TypeError):
        return None


def _ctx_for(state, player, instr):
    ctx = Ctx(state, state.stack[-1][2])
    ctx.bound[instr.by_name] = player
    return ctx


def final_scores(state) -> list:
    game = state.game
    ctx = Ctx(state)
    out = []
    for p in range(state.num_players):
        ctx.bound["p"] = p
        try:
            value = game.score_fn(ctx)
        except RuleError as exc:
            raise _located(game, _ScorePath, str(exc)) from None
        except _PY_ERRORS as exc:
            raise _located(game, _ScorePath, describe_python_error(exc)) from None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            shown = "null" if value is None else repr(value)
            raise _located(game, _ScorePath, f"the score of {state.player_name(p)} is {shown}, not a number")
        out.append(value)
    return out


class _ScorePath:
    """Where the score expression is written, for error messages."""
    path = ("score",)


_PY_WORDING = [  # (pattern of a Python error text, the spec author's wording); {0}, {1}: kinds
    (r"'(\S+)' not supported between instances of '(\w+)' and '(\w+)'",
     lambda m: f"cannot compare {_a(m[2])} with {_a(m[3])} using {m[1]}"),
    (r"unsupported operand type\(s\) for (\S+): '(\w+)' and '(\w+)'",
     lambda m: f"cannot apply {m[1]} to {_a(m[2])} and {_a(m[3])}"),
    (r'can only concatenate (\w+) \(not "(\w+)"\) to', lambda m: f"cannot add {_a(m[2])} to {_a(m[1])}"),
    (r"object of type '(\w+)' has no len\(\)", lambda m: f"{_a(m[1])} is not a list: it has no length"),
    (r"'(\w+)' object is not iterable", lambda m: f"{_a(m[1])} is not a list: it cannot be gone through"),
    (r"'(\w+)' object is not subscriptable", lambda m: f"{_a(m[1])} has no entries to read with [ ]"),
    (r"bad operand type for unary (\S+): '(\w+)'", lambda m: f"cannot apply {m[1]} to {_a(m[2])}"),
    (r"unhashable type: '(\w+)'", lambda m: f"{_a(m[1])} cannot be a map key"),
    (r"can't multiply sequence by non-int of type '(\w+)'",
     lambda m: f"a text or list can be repeated only a whole number of times, not a {_kind(m[1])}"),
    (r"'(\w+)' object has no attribute '(\w+)'", lambda m: f"{_a(m[1])} cannot be used here"),
    (r"'(\w+)' object cannot be interpreted as an integer", lambda m: f"a whole number is needed, not a {_kind(m[1])}"),
]


def describe_python_error(exc) -> str:
    """A rule author's wording of a Python error met while evaluating an expression: the
    message never shows Python's words (``NoneType``, ``'int' object is not subscriptable``)."""
    text = str(exc)
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, RecursionError):
        return "the expression is nested too deeply"
    for pattern, wording in _PY_WORDING:
        m = re.search(pattern, text)
        if m:
            return wording(m)
    if isinstance(exc, IndexError):
        return "there is no entry at that position"
    if isinstance(exc, KeyError):
        return f"there is no entry {spec_text(exc.args[0]) if exc.args else ''}".rstrip()
    return "a value of the wrong type for this operation"


def spec_text(value) -> str:
    """``value`` written as the spec language writes it (``null``, ``true``, ``'text'``)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(spec_text(v) for v in value[:10]) + (", ..." if len(value) > 10 else "") + "]"
    if isinstance(value, dict):
        items = list(value.items())[:10]
        return "{" + ", ".join(f"{spec_text(k)}: {spec_text(v)}" for k, v in items) + \
            (", ..." if len(value) > 10 else "") + "}"
    return str(value)


_PY_LITERALS = re.compile(r"(?<![\w'\"])(None|True|False)(?![\w'\"])")


def plain_words(message: str) -> str:
    """Python's ``None``/``True``/``False`` in a rule error, written as the spec writes them."""
    return _PY_LITERALS.sub(lambda m: {"None": "null", "True": "true", "False": "false"}[m[1]], message)


def _a(py_type: str) -> str:
    """``'int'`` -> ``'a number'``, ``'NoneType'`` -> ``'null'``."""
    kind = _kind(py_type)
    return kind if kind == "null" else f"a {kind}"


def _kind(py_type: str) -> str:
    return {"NoneType": "null", "int": "number", "float": "number", "str": "text", "list": "list",
            "dict": "map", "bool": "boolean", "Card": "card"}.get(py_type, py_type)


def observe(state, player: int) -> dict:
    """See :meth:`State.observation`."""
    game = state.game
    zones = {}
    for name, zdef in game.zones.items():
        z = state.zones[name]
        show = _show_sets if zdef.sets else _show
        if zdef.per_player:
            zones[name] = [show(state, ids, zdef.visibility == "public" or (zdef.visibility == "owner" and seat == player),
                                player) for seat, ids in enumerate(z)]
        else:
            zones[name] = show(state, z, zdef.visibility == "public", player)
    pending = None
    if state.pending is not None:
        mine = None
        if str(player) in state.pending["committed"]:  # one's own secret choice is no secret to oneself
            mine = next(text for seat, text in reversed(state.history) if seat == player)
        pending = {"players": list(state.pending["players"]),
                   "chosen": sorted(int(p) for p in state.pending["committed"]),
                   "my_options": [o[0] for o in legal_options(state, player)],
                   "my_choice": mine}
        if state.pending.get("realtime"):  # several may act at once; the first to act gets the spot
            pending["realtime"] = True
        if getattr(_pending_instr(state), "is_set", False):  # the cards this player has picked so far (nobody else sees them)
            picked = (state.pending.get("picked") or {}).get(str(player), [])
            pending["my_picked"] = [game.cards[i].name for i in picked]
    return {
        "player": player,
        "phase": [f[0] for f in state.stack],
        "vars": _plainify(state.vars),
        "player_vars": [_plainify(pv) for pv in state.pvars],
        "zones": zones,
        "pending": pending,
        "terminal": state.is_terminal(),
    }


def _show_sets(state, sets, visible, player):
    """A zone of sets as seen: a list of sets (lists of cards), or the counts of cards per set."""
    if not visible:
        return {"sets": [len(s) for s in sets]}
    return [_show(state, s, True, player) for s in sets]


def _show(state, ids, visible, player):
    cards = state.game.cards
    if not visible:
        shown = state.shown
        if shown:
            # cards a `show` step let this player see, by card-table order: their places in the
            # zone (changed by shuffles the player did not see) stay unknown
            seen = sorted(i for i in ids if player in shown.get(i, ()))
            if seen:
                return {"count": len(ids), "seen": [cards[i].name for i in seen]}
        return {"count": len(ids)}
    out = []
    for i in ids:
        mark = state.marks.get(i)
        if mark:
            entry = {"card": cards[i].name, "played_by": mark[0]}
            if mark[1] is not None:
                entry["mode"] = mark[1]
            out.append(entry)
        else:
            out.append(cards[i].name)
    return out


def _plainify(v):
    if type(v) is Card:
        return v.name
    if type(v) is dict:
        return {k: _plainify(x) for k, x in v.items()}
    if type(v) is list:
        return [_plainify(x) for x in v]
    return v


__all__ = ["start", "advance", "legal_options", "legal_actions", "apply_action", "final_scores", "observe", "RulebookError"]
