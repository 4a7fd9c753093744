"""Built-in calls and generated helper functions in the typed kernel (:mod:`interpreter.fast.typepass`):
``count``, ``sum``, ``first``, ``argmax``, ``min``... (``call_NAME``), the helpers (``hN``) an
expression's loops become, and the rewrites of their calls (hoisted out of loops, memoised in ``MEMO``).

A mixin of :class:`~interpreter.fast.typepass.Lowering`."""
from __future__ import annotations

import re

from .lowtypes import BOOL, CARD, INT, TEXT, ListT, NJIT, NUL, NULL, NotTyped, STATE_ARGS, UNSET, _indent, _join, _names
from . import bestmelds, compound, derived, flatlists, groupmaps, groups, hoist, listops, meldkind, meldlist, melds, setlists, setzones, tablemaps, turnorder, turnrecord
from . import meldsfor, ragged, textsets


_CALL = re.compile(r"\bh[0-9]+\([^()]*\)")


def _hoist(lines, bound, fresh):
    """Loop-invariant helper calls out of ``lines``: a call none of whose arguments is in
    ``bound`` (names set inside the loop) is computed once before it. Helpers are pure and safe on
    any input (no writes; null guarded), so computing one that a short-circuit would skip changes
    no result; one given ``RI`` (it may flag an error: an index out of range, see teams.py) stays
    where it is. Returns (lines before, the lines rewritten)."""
    pre, done = [], {}
    out = []
    for ln in lines:
        def swap(m):
            call = m.group(0)
            args = set(re.findall(r"\b[vti][0-9]+\b", call))
            if args & bound or re.search(r"\bRI\b", call):  # (given RI: it may flag an error, see teams.py)
                return call
            if call not in done:
                done[call] = fresh("t")
                pre.append(f"{done[call]} = {call}")
            return done[call]
        out.append(_CALL.sub(swap, ln))
    return pre, hoist.hoist_pure(out, bound, fresh, pre, done)  # (and invariant attribute reads: fast/hoist.py)



def _one_loop(lines) -> bool:
    """Whether ``lines`` are one ``for``/``while`` loop (after set-up lines) whose block holds every
    line after it and the only ``break``: a list made of a loop and single items (``xs + [y]``)
    would leave the loop early and then overwrite the match, or break outside a loop."""
    heads = [i for i, ln in enumerate(lines) if re.match(r"\s*(for|while) ", ln)]
    breaks = [i for i, ln in enumerate(lines) if ln.strip() == "break"]
    if len(heads) != 1 or len(breaks) != 1 or breaks[0] < heads[0]:
        return False
    depth = len(lines[heads[0]]) - len(lines[heads[0]].lstrip())
    return all(len(ln) - len(ln.lstrip()) > depth for ln in lines[heads[0] + 1:] if ln.strip())

# calls that read the state without changing it: a line calling nothing else can share the values
# of its repeated helper calls (the state cannot change between them)
_PURE_CALLS = frozenset({"attr_get", "attr_mode", "card_get", "add_null", "if_null", "min2", "max2", "truthy",
                         "abs", "min", "max"})


def _memo(lines, slot):
    """Each helper call made more than once in one line (the trick-winner rules of a spec ask the
    same `count(...)` many times in one nested `if ... else`) computed at most once there: its
    value is kept in ``MEMO[k]`` (``k = slot()``), reset to UNSET just before the line, and the
    ``if ... else`` laziness is kept (a call a short-circuit skips is still not made). A line
    calling anything that changes the state, and a `while` head (evaluated again each time
    round), are left as they are. A helper's value that happens to equal UNSET is just computed
    again: the result is the same."""
    out = []
    for ln in lines:
        body = ln.lstrip()
        calls = _CALL.findall(body)
        repeated = sorted({c for c in calls if calls.count(c) > 1}, key=calls.index)
        others = set(re.findall(r"\b([A-Za-z_]\w*)\(", body)) - _PURE_CALLS
        if not repeated or body.startswith("while ") or any(not re.fullmatch(r"h[0-9]+", n) for n in others):
            out.append(ln)
            continue
        pad = ln[:len(ln) - len(body)]
        for call in repeated:
            k = slot()
            out.append(f"{pad}MEMO[{k}] = {UNSET}")
            body = body.replace(call, f"(MEMO[{k}] if MEMO[{k}] != {UNSET} else memo(MEMO, {k}, {call}))")
        out.append(pad + body)
    return out


def _bound_in(lines):
    """The generated names assigned (or looped over) in ``lines``."""
    text = "\n".join(lines)
    return set(re.findall(r"\b([vti][0-9]+) (?:=|\+=)", text)) | set(re.findall(r"for ([vti][0-9]+) in", text))


class Calls:
    """Built-ins and helpers lowered (methods of :class:`~interpreter.fast.typepass.Lowering`)."""

    def helper(self, env, body_lines, ret):
        """A generated function of the state and every local in scope that runs ``body_lines``
        and returns ``ret``; returns the code calling it."""
        pre, body_lines = _hoist(body_lines, _bound_in(body_lines), self.fresh)
        body_lines = pre + body_lines
        text = "\n".join(body_lines + [ret])
        used = set(re.findall(r"\b[A-Z]+\b", text))
        # only the state arrays it reads, and the locals it reads (fewer arguments: faster to compile)
        state = tuple(a for a in STATE_ARGS if a in used)
        locs = sorted(n for n in self.scope_names(env) if re.search(rf"\b{n}\b", text))
        params = ", ".join(state + tuple(locs))
        body = _indent(body_lines + [f"return {ret}"])
        # (only `run` is cached by numba, with everything it calls compiled into it: one cache entry
        # to load at start-up, and a shorter compile)
        # the same function up to the names of its locals is made once (definitions used twice)
        order = {}
        # (the helpers it calls keep their names: two helpers calling different ones differ)
        canon = re.sub(r"\b[vti][0-9]+\b", lambda m: order.setdefault(m.group(0), f"c{len(order)}"),
                       params + "\n" + "\n".join(body))
        known = self.helper_names.get(canon)
        if known is None:
            name = self.fresh("h")
            body = _memo(body, self.memo_slot)
            known = self.helper_names[canon] = (name, "MEMO" not in state and any("MEMO[" in ln for ln in body))
            if known[1]:
                params = ", ".join(("MEMO",) + state + tuple(locs))
            self.helpers += [NJIT, f"def {name}({params}):"] + body + [""]
            return f"{name}({params})"
        name, needs_memo = known
        return f"{name}({'MEMO, ' if needs_memo else ''}{params})"

    def memo_slot(self) -> int:
        """A new slot of MEMO (see _memo)."""
        self.memo_slots += 1
        return self.memo_slots - 1

    def scope_names(self, env):
        """The generated local names the values and lists of ``env`` read."""
        out = set()
        for v in env.values():
            out |= v.refs if isinstance(v, (ListT, compound.TupleV, compound.MapV, groupmaps.GroupV)) else _names(v[0])
        return out

    def call_count(self, args, env):
        arg = args[0]
        if getattr(arg, "data", None) == "name" and len(args) == 1:  # a chosen option kept as its parts (ragged.py)
            found = ragged.count_parts(env.get(str(arg.children[0])), compound.TupleV)
            if found is not None:
                return found
        lst = bestmelds.meld_list(self, args[0], env)  # (or one meld's cards)
        if lst.length is not None and len(args) == 1:
            return f"({lst.length})", INT
        v, acc = self.fresh("v"), self.fresh("t")
        return self.helper(env, [f"{acc} = 0"] + lst.loop(v, [f"{acc} += 1"]), acc), INT

    def call_sum(self, args, env):
        lst = self.lst(args[0], env)
        if lst.elem not in (INT, BOOL):
            raise NotTyped(f"sum of {lst.elem}s", self.path)
        v, acc = self.fresh("v"), self.fresh("t")
        return self.helper(env, [f"{acc} = 0"] + lst.loop(v, [f"{acc} += {v}"]), acc), INT

    def _first_last(self, args, env, last):
        lst = self.lst(args[0], env)
        compound.require_scalar_items(self, lst, "first/last")
        if len(args) > 1 and not (len(args) == 2 and getattr(args[1], "data", None) == "null"):
            raise NotTyped("first/last with a default", self.path)  # (a null default: as without one)
        if lst.zone is not None:
            r = lst.zone
            idx = f"ZN[{r}] - 1" if last else "0"
            return f"(Z[{r}, {idx}] if ZN[{r}] > 0 else NULL)", lst.elem
        v, acc, got = self.fresh("v"), self.fresh("t"), self.fresh("t")
        loop = None if last else lst.loop(v, [f"{acc} = {v}", "break"])  # (one loop: stop at the first)
        if loop is None or not _one_loop(loop):
            keep = [f"{acc} = {v}"] if last else [f"if not {got}:", f"    {acc} = {v}", f"    {got} = True"]
            loop = lst.loop(v, keep)
        return self.helper(env, [f"{acc} = NULL", f"{got} = False"] + loop, acc), lst.elem

    def call_first(self, args, env):
        return self._first_last(args, env, False)

    def call_top(self, args, env):
        return self._first_last(args, env, True)

    def call_last(self, args, env):
        return self._first_last(args, env, True)

    def _arg_best(self, args, env, better):
        if len(args) == 3:  # ties: 'first' (the default) or 'last' (see teams.py)
            better, args = self.ties_op(args[2], env, better), args[:2]
        if len(args) != 2 or getattr(args[1], "data", None) != "lambda_":
            raise NotTyped("argmax/argmin with ties= or without a lambda", self.path)
        lst = self.lst(args[0], env)
        compound.require_scalar_items(self, lst, "argmax/argmin")
        lam_var, lam_body = args[1].children
        v, best, bkey = self.fresh("v"), self.fresh("t"), self.fresh("t")
        env2 = dict(env)
        env2[str(lam_var)] = (v, lst.elem)
        kcode, kt = self.scalar(lam_body, env2)
        if kt not in (INT, BOOL):
            raise NotTyped(f"argmax/argmin by a {kt}", self.path)
        k = self.fresh("t")
        body = [f"{k} = {kcode}", f"if {k} != NULL and ({best} == NULL or {k} {better} {bkey}):",
                f"    {best} = {v}", f"    {bkey} = {k}"]
        return self.helper(env, [f"{best} = NULL", f"{bkey} = NULL"] + lst.loop(v, body), best), lst.elem

    def call_argmax(self, args, env):
        return self._arg_best(args, env, ">")

    def call_argmin(self, args, env):
        return self._arg_best(args, env, "<")

    def _any_all(self, args, env, want_all):
        lst = self.lst(args[0], env)
        setzones.refuse_item(self, lst.elem, "any/all")
        v, acc = self.fresh("v"), self.fresh("t")
        test = f"not truthy({v})" if want_all else f"truthy({v})"
        return self.helper(env, [f"{acc} = {'True' if want_all else 'False'}"] +
                           lst.loop(v, [f"if {test}:", f"    {acc} = {'False' if want_all else 'True'}"]), acc), BOOL

    def call_any(self, args, env):
        return self._any_all(args, env, False)

    def call_all(self, args, env):
        return self._any_all(args, env, True)

    def call_index_of(self, args, env):
        """``index_of(xs, x)``: the place of the first item equal to x, or null."""
        if len(args) != 2:
            raise NotTyped("index_of without its two arguments", self.path)
        lst = self.lst(args[0], env)
        compound.require_scalar_items(self, lst, "index_of")
        cx, tx = self.scalar(args[1], env)
        if _join(lst.elem, tx) is None:
            raise NotTyped(f"index_of a {tx} in a list of {lst.elem}s", self.path)
        v, acc, x, i = self.fresh("v"), self.fresh("t"), self.fresh("t"), self.fresh("t")
        body = [f"if {acc} == NULL and {v} == {x}:", f"    {acc} = {i}", f"{i} += 1"]
        return self.helper(env, [f"{x} = {cx}", f"{acc} = NULL", f"{i} = 0"] + lst.loop(v, body), acc), INT

    def reduce_in(self, cx, lst, env):
        compound.require_scalar_items(self, lst, "in")
        v, acc, x = self.fresh("v"), self.fresh("t"), self.fresh("t")
        return self.helper(env, [f"{x} = {cx}", f"{acc} = False"] +
                           lst.loop(v, [f"if {v} == {x}:", f"    {acc} = True"]), acc)

    def _minmax(self, args, env, op):
        if len(args) == 1:
            lst = self.lst(args[0], env)
            if lst.elem not in (INT, BOOL):
                raise NotTyped(f"min/max of {lst.elem}s", self.path)
            v, acc = self.fresh("v"), self.fresh("t")
            body = [f"if {v} != NULL and ({acc} == NULL or {v} {op} {acc}):", f"    {acc} = {v}"]
            return self.helper(env, [f"{acc} = NULL"] + lst.loop(v, body), acc), INT
        codes = []
        for a in args:
            c, ty = self.scalar(a, env)
            if ty not in (INT, BOOL, NUL):
                raise NotTyped(f"min/max of a {ty}", self.path)
            codes.append(c)
        out = codes[0]
        fn = "min2" if op == "<" else "max2"
        for c in codes[1:]:
            out = f"{fn}({out}, {c})"
        return out, INT

    def call_min(self, args, env):
        return self._minmax(args, env, "<")

    def call_max(self, args, env):
        return self._minmax(args, env, ">")

    def call_abs(self, args, env):
        c, ty = self.scalar(args[0], env)
        if ty not in (INT, BOOL):
            raise NotTyped(f"abs of a {ty}", self.path)
        return f"abs({c})", INT

    def call_if_null(self, args, env):
        found = groupmaps.if_null_list(self, args, env) if len(args) == 2 else None  # if_null(m[k], [])
        if found is not None:
            return found
        a, ta = self.scalar(args[0], env)
        b, tb = self.scalar(args[1], env)
        ty = _join(ta, tb)
        if ty is None:
            raise NotTyped("if_null of values of different kinds", self.path)
        return f"if_null({a}, {b})", ty

    def call_range(self, args, env):
        codes = []
        for a in args:
            c, ty = self.scalar(a, env)
            if ty not in (INT, BOOL):
                raise NotTyped(f"range of a {ty}", self.path)
            codes.append(c)
        if len(codes) == 1:
            codes = ["0"] + codes
        if len(codes) != 2:
            raise NotTyped("range with a step", self.path)
        return self.range_list(codes[0], codes[1])

    def call_next_player(self, args, env):
        found = turnorder.next_player(self, args, env)  # seats sitting out (turnorder.py)
        if found is not None:
            return found
        c, _ = self.scalar(args[0], env)
        if len(args) == 2:
            s, _ = self.scalar(args[1], env)
            return f"(({c} + {s}) % NP)", INT
        return f"(({c} + 1) % NP)", INT

    def call_prev_player(self, args, env):
        found = turnorder.prev_player(self, args, env)
        if found is not None:
            return found
        c, _ = self.scalar(args[0], env)
        return f"(({c} - 1) % NP)", INT

    def call_str(self, args, env):
        return compound.call_str(self, args, env)

    def call_name(self, args, env):
        """``name(x)`` of a card (its name, as ``str``) or a text (itself); a seat's name (a
        player's name, known only to the step API) does not type."""
        if len(args) != 1:
            raise NotTyped("name with other than one argument", self.path)
        c, ty = self.scalar(args[0], env)
        if ty == TEXT:
            return c, TEXT
        if ty != CARD:
            raise NotTyped(f"name() of a {ty} (a seat's name is the player's, not known to the kernel)", self.path)
        x = self.fresh("t")
        code = self.helper(env, [f"{x} = {c}"],
                           f"(attr_get(ATTR, {self.attr_index['name']}, {x}) if {x} != NULL else {self.text('none')})")
        textsets.note(self, code, [card.name for card in self.game.cards] + ["none"])  # (joins: textsets.py)
        return code, TEXT

    def call_without(self, args, env):
        return listops.call_without(self, args, env)

    def call_product(self, args, env):
        return compound.product(self, args, env)

    def call_is_meld(self, args, env):
        if len(args) == 2 and meldsfor.kind_at_run_time(self, args[1], env):  # a kind known at run time
            return meldsfor.call_is_meld(self, args, env)
        return melds.call_is_meld(self, args, env)

    def call_melds_in(self, args, env):
        if len(args) < 2 or getattr(args[1], "data", None) == "null":  # no kind: listed (meldlist.py)
            return meldlist.melds_in(self, args, env)
        try:
            return melds.melds_in(self, args, env)  # (counted; listed: meldlist.py)
        except NotTyped:
            return meldlist.melds_in(self, args, env)

    def call_meld_kind(self, args, env):
        return meldkind.call_meld_kind(self, args, env)

    def call_best_melds(self, args, env):
        return bestmelds.call_best_melds(self, args, env)

    def call_printed(self, args, env):
        return derived.call_printed(self, args, env)

    def call_lay_offs(self, args, env):
        return melds.lay_offs(self, args, env)

    def call_group_by(self, args, env):
        return groupmaps.call_group_by(self, args, env)

    def call_melds_for(self, args, env):
        return meldsfor.call_melds_for(self, args, env)

    def call_values(self, args, env):
        return groups.call_values(self, args, env)

    def call_flatten(self, args, env):
        found = flatlists.flatten_comprehension(self, args, env)  # of a comprehension of lists
        if found is not None:
            return found
        return setlists.call_flatten(self, args, env)

    def call_moved_this_turn(self, args, env):
        return turnrecord.call(self, args, env)

    def call_sort_by(self, args, env):
        return listops.sort_by(self, args, env)

    def call_keys(self, args, env):
        return tablemaps.keys(self, args, env)

    def call_turn_order(self, args, env):
        start, _ = self.scalar(args[0], env)
        if turnorder.skip_of(self) is not None:
            return turnorder.turn_order(self, start)

        def loop(var, body):
            i, s = self.fresh("i"), self.fresh("t")
            return [f"{s} = {start}", f"for {i} in range(NP):", f"    {var} = ({s} + {i}) % NP"] + _indent(body)
        return ListT(INT, loop, length="NP", refs=_names(start))
