"""The steps of a spec in the typed kernel (:mod:`interpreter.fast.typepass`): ``phase``, ``for``,
``repeat``, ``while``, ``if``, ``set``/``add``, ``random``, ``shuffle``, ``gather``, ``move``, ``deal``
and ``choose`` (with simultaneous choices), each lowered to lines of the generated module. (The
kernel's step API, which runs such a module one choice at a time, is :mod:`interpreter.fast.steps`.)

A mixin of :class:`~interpreter.fast.typepass.Lowering`."""
from __future__ import annotations

from ..expr.compiler import parse
from .lowtypes import (BOOL, CARD, EMPTY, ERR_MAX_ACTIONS, INT, ListT, NUL, NULL, NotTyped, RI_ACTIONS, RI_CHOSEN,
                       RI_ERROR, RI_LISTING, RI_MAX_ACTIONS, SEARCH_RANDOM, SEARCH_SHUFFLE, STATE_ARGS, TEXT, _fold,
                       _indent, _join)
from .calls import _hoist
from . import cardmeld
from . import climb, compound, listvars, mapvars, meldvalue, multichoice, realtime, setlists, setzones, turnorder
from . import cardoptions, modewhen, turnrecord


STEP_KINDS = ("phase", "for", "repeat", "while", "if", "set", "add", "shuffle", "move", "gather",
              "deal", "choose", "log", "end", "random", "realtime", "show", "assert", "climb")
REFUSED = {"realtime": "a realtime step (several players act at once, in an order the scheduler decides)",
           "assert": "an assert step"}


class StepLowering:
    """Steps lowered (methods of :class:`~interpreter.fast.typepass.Lowering`)."""

    # -- steps ----------------------------------------------------------------------------------
    def block(self, steps, env, path):
        out = []
        for k, step in enumerate(steps or []):
            out += self.step(step, env, f"{path}[{k}]")
        return out or ["pass"]

    def step(self, step, env, path):
        self.path = path
        if not isinstance(step, dict):
            raise NotTyped("a step that is not a mapping", path)
        kinds = [k for k in step if k in STEP_KINDS]
        if len(kinds) != 1:
            raise NotTyped("a step of no known kind", path)
        kind = kinds[0]
        fn = getattr(self, "s_" + kind, None)
        if fn is None:
            raise NotTyped(REFUSED.get(kind, f"the {kind} step"), path)
        return fn(step, env, path)

    def s_realtime(self, step, env, path):
        return realtime.lower_realtime(self, step, env, path)

    def s_climb(self, step, env, path):
        return climb.lower_climb(self, step, env, path)

    def s_end(self, step, env, path):
        return turnorder.end_step(self, step, env, path)

    def s_log(self, step, env, path):
        return []  # messages change nothing in the game

    def s_show(self, step, env, path):
        return []  # who may see a card changes nothing in the game

    def s_phase(self, step, env, path):
        name = step["phase"]
        params, _ = self.phases[name]
        given = step.get("args") or {}
        codes = []
        for p in params:
            c, ty = self.expr(given[p], env, path)
            codes.append(c)
        self.needed_phases.add(name)
        call = f"{self.phase_fn[name]}({', '.join(STATE_ARGS + tuple(codes))})"
        self.phase_calls[call] = (name, codes)
        return turnrecord.around_call(self, name, [call, f"if {turnorder.after_phase(self)}:", "    return"])

    def snapshot(self, lst, env):
        """Lines that copy the list into a row of TMP (a ``for`` step loops over the list as it
        was when the step began); returns (lines, row, length name)."""
        compound.require_scalar_items(self, lst, "a for step, random or move")
        setzones.refuse_item(self, lst.elem, "a for step, random or move")
        row = self.depth
        self.depth += 1
        self.max_depth = max(self.max_depth, self.depth)
        n, v = self.fresh("t"), self.fresh("v")
        lines = [f"{n} = 0"] + lst.loop(v, self.room_for(lst)(n) + [f"TMP[{row}, {n}] = {v}", f"{n} += 1"])
        return lines, row, n

    def for_loop(self, var_name, lst, body_steps, env, path, var_type=None):
        if isinstance(lst.elem, compound.TupT):  # a list of tuples: one row per part
            lines, row, n = compound.snapshot_parts(self, lst)
            v, i = self.fresh("v"), self.fresh("i")
            env2 = dict(env)
            if var_name is not None:
                env2[var_name] = compound.bind(v, lst.elem)
            body = self.block(body_steps, env2, path)
            self.depth -= len(lst.elem)
            return lines + [f"for {i} in range({n}):"] + \
                [f"    {p} = TMP[{row + k}, {i}]" for k, p in enumerate(compound.parts_of(v, len(lst.elem)))] + \
                _indent(body)
        lines, row, n = self.snapshot(lst, env)
        v, i = self.fresh("v"), self.fresh("i")
        env2 = dict(env)
        if var_name is not None:
            env2[var_name] = (v, var_type or lst.elem)
        body = self.block(body_steps, env2, path)
        self.depth -= 1
        return lines + [f"for {i} in range({n}):", f"    {v} = TMP[{row}, {i}]"] + _indent(body)

    def s_for(self, step, env, path):
        if "until" in step:
            return turnorder.for_until(self, step, env, path)
        lst = self.expr(step.get("in", "[]"), env, path + ".in")
        if not isinstance(lst, ListT) and lst[1] == INT:  # a number N loops over 1..N (as `repeat`)
            lst = self.range_list("1", f"({lst[0]}) + 1")
        if not isinstance(lst, ListT):
            raise NotTyped("a for step over a value that is not a list", path)
        if lst.elem == setzones.SET:  # a zone of sets, its sets copied (setlists.py)
            return setlists.for_sets(self, str(step["for"]), lst, step.get("do", []), env, path + ".do")
        return self.for_loop(str(step["for"]), lst, step.get("do", []), env, path + ".do")

    def s_repeat(self, step, env, path):
        r = self.expr(step["repeat"], env, path + ".repeat")
        if isinstance(r, ListT):
            return self.for_loop(step.get("as"), r, step.get("do", []), env, path + ".do")
        code, ty = r
        if ty not in (INT, BOOL):
            raise NotTyped(f"repeat of a {ty}", path)
        v = self.fresh("v")
        env2 = dict(env)
        if step.get("as"):
            env2[str(step["as"])] = (v, INT)
        body = self.block(step.get("do", []), env2, path + ".do")
        return [f"for {v} in range(1, {code} + 1):"] + _indent(body)

    def s_while(self, step, env, path):
        cond = self.truth(parse(str(step["while"])) if not isinstance(step["while"], bool) else
                          parse("true" if step["while"] else "false"), env)
        n = self.fresh("t")
        body = self.block(step.get("do", []), env, path + ".do")
        return [f"{n} = 0", f"while {cond}:", f"    {n} += 1", f"    if {n} > {int(step.get('max', 1000))}:",
                f"        RI[{RI_ERROR}] = 1", "        return"] + _indent(body)

    def s_if(self, step, env, path):
        cond = step["if"]
        if isinstance(cond, bool):
            c = "True" if cond else "False"
        else:
            self.path = path + ".if"
            c = self.truth(parse(str(cond)), env)
            known = _fold(c)
            if known is not None:  # on options only: the branch not taken is not lowered at all
                return self.block(step.get("then" if known else "else", []), env,
                                  path + (".then" if known else ".else"))
        out = [f"if {c}:"] + _indent(self.block(step.get("then", []), env, path + ".then"))
        if "else" in step:
            out += ["else:"] + _indent(self.block(step["else"], env, path + ".else"))
        return out

    def targets(self, step, key, env, path):
        """[(store code, type, value code)] of a set/add/random step (values not yet evaluated)."""
        out = []
        for target, value in (step[key] or {}).items():
            self.path = f"{path}.{key}.{target}"
            tree = parse(str(target))
            if tree.data == "name":
                name = str(tree.children[0])
                if name in env:
                    raise NotTyped(f"setting the step-bound name {name!r}", self.path)
                if name not in self.gvars:
                    raise NotTyped(f"{name!r} is not a variable", self.path)
                if name in self.const_lists:
                    raise NotTyped(f"variable {name!r} holds a list and a step sets it (the kernel keeps a "
                                   f"variable's list only when no step changes it)", self.path)
                if name in self.gmaps:  # the whole map (mapvars.py)
                    out.append((name, ("G", name), value))
                    continue
                out.append((f"GV[{self.gvars[name]}]", ("g", name), value))
            elif tree.data == "attr":
                obj, name = tree.children
                seat, _ = self.scalar(obj, env)
                name = str(name)
                if name not in self.pvars:
                    raise NotTyped(f"{name!r} is not a player variable", self.path)
                if name in self.pmaps:  # the whole map (maps.py)
                    out.append((seat, ("M", name), value))
                    continue
                out.append((f"PV[{seat}, {self.pvars[name]}]", ("p", name), value))
                if name in self.team_vars():
                    self.team_targets[out[-1][0]] = (seat, self.pvars[name])
            elif tree.data == "index" and self.is_player_map(tree.children[0]):
                out.append(self.map_entry_target(tree, env) + (value,))
            elif tree.data == "index" and mapvars.is_game_map(self, tree.children[0]):
                name = str(tree.children[0].children[0])
                out.append((mapvars.Target(name, tree.children[1], env), ("G", name), value))
            elif tree.data == "index" and tree.children[0].data == "name" and \
                    str(tree.children[0].children[0]) in self.gvars:
                name = str(tree.children[0].children[0])
                out.append((listvars.Entry(name, tree.children[1], env), ("g", name), value))
            else:
                raise NotTyped("setting an entry of a map or list", self.path)
        return out

    def check_type(self, which, ty):
        kind, name = which
        types = self.gtypes if kind == "g" else self.pmap_types if kind == "m" else self.ptypes
        old = types.get(name, NUL)
        new = _join(old, ty) or cardmeld.join(old, ty)  # (a card or a meld: cardmeld.py)
        if new is None:
            raise NotTyped(f"{'variable' if kind == 'g' else 'player variable'} {name!r} holds both a {old} "
                           f"and a {ty}", self.path)
        if new != old:
            types[name] = new
            self.changed = True

    def s_set(self, step, env, path, add=False):
        key = "add" if add else "set"
        lines, stores, later = [], [], []
        depth = self.depth  # (lists set here keep their items in rows of TMP until the stores: see listvars)
        for store, which, value in self.targets(step, key, env, path):
            if which[0] == "M":  # a player's whole map (maps.py)
                more, st = self.map_assign(store, which[1], value, env, f"{path}.{key}", add)
                lines += more
                stores += st
                continue
            r = self.expr(value, env, f"{path}.{key}")
            if which[0] == "G":  # a game variable's map, or one of its entries (mapvars.py)
                more, st = (mapvars.set_entry(self, store, r, add, path) if isinstance(store, mapvars.Target)
                            else mapvars.assign(self, store, r, add, path))
                lines += more
                later += st
                continue
            types = self.gtypes if which[0] == "g" else self.ptypes
            if not add and isinstance(store, listvars.Entry):
                value_lines, store_lines = listvars.set_entry(self, store, r, path)
                lines += value_lines
                later += store_lines
                continue
            if not add and isinstance(r, ListT) and (r.length != "0" or which[1] in self.list_rows):
                done = listvars.store(self, which, r, path)
                if done is not None:
                    lines += done[0]
                    later += done[1]
                    continue
            if isinstance(r, ListT) and r.length == "0" and not add and types.get(which[1]) == EMPTY:
                continue  # [] again: nothing to store
            if isinstance(r, ListT):
                raise NotTyped(f"{'variable' if which[0] == 'g' else 'player variable'} {which[1]!r} is set to "
                               f"a list (the kernel keeps numbers, texts, cards and null in variables)", path)
            code, ty = r
            if add and ty not in (INT, BOOL):
                raise NotTyped(f"add of a {ty}", path)
            self.check_type(which, INT if add else ty)
            code = cardmeld.stored(self, code, ty, types.get(which[1]), env)  # (a meld tagged: cardmeld.py)
            tmp = self.fresh("t")
            lines.append(f"{tmp} = {code}")
            stores.append((store, tmp))
        for store, tmp in stores:
            lines += self.store_lines(store, tmp, add)
        self.depth = depth
        return lines + later

    def s_add(self, step, env, path):
        return self.s_set(step, env, path, add=True)

    def s_random(self, step, env, path):
        lines, stores = [], []
        for store, which, value in self.targets(step, "random", env, path):
            lst = self.expr(value, env, f"{path}.random")
            if not isinstance(lst, ListT):
                raise NotTyped("random: from a value that is not a list", path)
            self.check_type(which, lst.elem)
            snap, row, n = self.snapshot(lst, env)
            self.depth -= 1
            tmp = self.fresh("t")
            gen = self.fresh("t")
            lines += snap + [f"if {n} == 0:", f"    RI[{RI_ERROR}] = 2", "    return"]
            if self.search:  # (search hook) the driver draws the index: see interpreter.fast.search
                lines += [f"yield {SEARCH_RANDOM} + ({n} << 16)", f"{tmp} = TMP[{row}, RI[{RI_CHOSEN}]]"]
            else:
                lines += [f"{gen} = event_gen(RG, RI, SB, SK)", f"{tmp} = TMP[{row}, randbelow_row(RG, {gen}, {n})]"]
            stores.append((store, tmp))
        for store, tmp in stores:
            lines += self.store_lines(store, tmp, False)
        return lines

    def zone_row_code(self, text, env, path):
        text = str(text)
        self.path = path
        found = setzones.zone_code(self, text, env)
        if found is not None:
            return found
        if text in self.zone_row and not self.per_player[text]:
            return str(self.zone_row[text])
        self.path = path
        tree = parse(text)
        if tree.data == "attr" and str(tree.children[1]) in self.zone_row and self.per_player[str(tree.children[1])]:
            seat, _ = self.scalar(tree.children[0], env)
            from . import teamzones
            seat = teamzones.seat(self, str(tree.children[1]), seat, env)  # (a zone per team: the team's slot)
            return f"{self.zone_row[str(tree.children[1])]} + {seat}"
        raise NotTyped(f"the zone {text!r}", path)

    def s_shuffle(self, step, env, path):
        row = self.zone_row_code(step["shuffle"], env, path)
        r = self.fresh("t")
        gen = self.fresh("t")
        if self.search:  # (search hook) the driver shuffles the row: see interpreter.fast.search
            return [f"{r} = {row}", f"yield {SEARCH_SHUFFLE} + ({r} << 16)"]
        return [f"{r} = {row}", f"{gen} = event_gen(RG, RI, SB, SK)", f"shuffle_row(RG, {gen}, Z, {r}, ZN[{r}])"]

    def s_gather(self, step, env, path):
        spec = step["gather"]
        target = spec.get("to") if isinstance(spec, dict) else spec
        row = self.zone_row_code(target, env, path)
        return mapvars.around_gather(self, listvars.around_gather(self, [f"gather(Z, ZN, PB, MD, LOC, {row}, NP)"]))

    def s_move(self, step, env, path):
        m = step["move"]
        if "cards" in m:
            return self.move_cards(m, env, path)
        src = self.zone_row_code(m["from"], env, path + ".move.from")
        dst = self.zone_row_code(m["to"], env, path + ".move.to")
        bottom = 1 if m.get("at", "top") == "bottom" else 0
        if "count" in m:
            c, ty = self.expr(m["count"], env, path + ".move.count")
            if ty not in (INT, BOOL):
                raise NotTyped(f"move count of a {ty}", path)
            has = 1
        else:
            c, has = "0", 0
        return [f"if not move_top(Z, ZN, PB, MD, LOC, {src}, {dst}, {c}, {has}, {bottom}):", f"    RI[{RI_ERROR}] = 3",
                "    return"] + setzones.after_move(self, env)

    def move_cards(self, m, env, path):
        """``move: {cards: ...}``: the given cards (one card, null, or a list, taken as it is before
        any moves), each out of ``from`` (an error if it is not there) or wherever it is, onto the
        top (or, in order, the bottom) of ``to``; their marks go."""
        r = self.expr(m["cards"], env, path + ".move.cards")
        r = meldvalue.as_list(self, r[0]) if isinstance(r, tuple) and r[1] == meldvalue.MELDL else r  # (meldlist.py)
        r = cardmeld.moved(self, r)  # (a variable holding a card or a meld: cardmeld.py)
        src = self.zone_row_code(m["from"], env, path + ".move.from") if "from" in m else "-1"
        dst = self.zone_row_code(m["to"], env, path + ".move.to")
        after = setzones.after_move(self, env)
        if after:  # (a new set is opened once, before the cards go in)
            d = self.fresh("t")
            pre, dst = [f"{d} = {dst}"], d
        else:
            pre = []
        bottom = m.get("at", "top") == "bottom"
        fail = [f"    RI[{RI_ERROR}] = 3", "    return"]
        if not isinstance(r, ListT):
            code, ty = r
            if ty not in (CARD, NUL):
                raise NotTyped(f"move: cards that are a {ty}", path)
            c = self.fresh("t")
            return pre + [f"{c} = {code}", f"if {c} != NULL:",
                          f"    if not move_card(Z, ZN, PB, MD, LOC, {c}, {src}, {dst}, {0 if bottom else -1}):"] + \
                _indent(fail) + after
        if r.elem not in (CARD, NUL):
            raise NotTyped(f"move: a list of {r.elem}s (cards are expected)", path)
        lines, row, n = self.snapshot(r, env)
        k = self.fresh("i")
        self.depth -= 1
        # a card listed twice is the step API's error (a card is moved once per step): code 3
        return lines + [f"if listed_twice(TMP[{row}], {n}):"] + fail + pre + [f"for {k} in range({n}):",
                        f"    if not move_card(Z, ZN, PB, MD, LOC, TMP[{row}, {k}], {src}, {dst}, "
                        f"{k if bottom else -1}):"] + _indent(fail, 1) + after

    def s_deal(self, step, env, path):
        m = step["deal"]
        if "players" in m:
            raise NotTyped("deal to a list of players (deal: players:)", path)
        src = self.zone_row_code(m["from"], env, path + ".deal.from")
        to = str(m.get("to"))
        if setzones.zone_code(self, str(m["from"]), env) is not None:  # (the step API keeps a set a deal empties)
            raise NotTyped("deal from a set of a zone of sets", path)
        if to in self.set_zones:
            raise NotTyped(f"deal to a zone of sets ({to})", path)
        if m.get("count") == "all":
            c, mode = "0", 2
        elif "count" in m:
            c, ty = self.expr(m["count"], env, path + ".deal.count")
            mode = 0
            if ty not in (INT, BOOL):
                raise NotTyped(f"deal count of a {ty}", path)
        else:
            c, mode = "0", 1
        start = self.expr(m["start"], env, path + ".deal.start")[0] if "start" in m else "0"
        return [f"if not deal(Z, ZN, PB, MD, LOC, {src}, {self.zone_row[to]}, {c}, {mode}, {start}, NP):",
                f"    RI[{RI_ERROR}] = 4", "    return"]

    def s_choose(self, step, env, path):
        c = step["choose"]
        cp = path + ".choose"
        if multichoice.is_set_choice(c):  # several cards as one decision, picked card by card
            return multichoice.lower_set_choice(self, c, env, cp)
        optional = c.get("optional")
        if optional is True:
            optional = {}
        elif not isinstance(optional, dict):
            optional = None
        as_name, by_name = str(c.get("as", "choice")), str(c.get("by", "player"))
        lines = []
        seat = self.fresh("v")
        if "player" in c:
            pc, _ = self.expr(c["player"], env, cp + ".player")
            seats = None
            lines.append(f"{seat} = {pc}")
        else:
            seats = self.expr(c["players"], env, cp + ".players")
            if not isinstance(seats, ListT):
                raise NotTyped("players: that is not a list", cp)
        value = self.fresh("v")
        env_opt = dict(env)
        env_opt[by_name] = (seat, INT)
        tuple_row = None
        if "onto" in c:  # a card and the set it goes on: the set's place is the option's mode (onto.py)
            from . import onto
            (listing, n), hoisted, elem, to = onto.options(self, c, env_opt, value, cp), [], CARD, None
        elif "cards" in c:
            row = self.zone_row_code(c["cards"], env_opt, cp + ".cards")
            env_opt[as_name] = (value, CARD)
            where = self.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
            hoisted, (where,) = _hoist([where], {value}, self.fresh)  # what depends not on the card: once
            r, n, i, j = (self.fresh("t") for _ in range(4))
            # options: the cards in card-table order (sorted ids), one per name, that pass where
            listing = [f"{r} = {row}", f"sort_row(Z[{r}], ZN[{r}], SK)", f"{n} = 0",
                       f"for {i} in range(ZN[{r}]):", f"    {value} = SK[{i}]"]
            if self.max_modes:  # one option per mode of a card with modes (in the card's order)
                add = [f"if ATTR[{self.nmodes_row}, {value}] == 0:", f"    OPT[0, {n}] = {value}",
                       f"    OPT[1, {n}] = NULL", f"    {n} += 1", "else:",
                       f"    for {j} in range(ATTR[{self.nmodes_row}, {value}]):",
                       f"        OPT[0, {n}] = {value}", f"        OPT[1, {n}] = ATTR[{self.nmodes_row + 1} + {j}, {value}]",
                       f"        {n} += 1"]
            else:
                add = [f"OPT[0, {n}] = {value}", f"{n} += 1"]
            add = modewhen.options_add(self, value, n, seat, env_opt, add)  # (a card entry's mode_when)
            if self.names_unique:
                listing += [f"    if {where}:"] + _indent(add, 2)
            else:  # identical cards (the same name) give one option: the first that passes where
                # SEEN[name] holds the number of the listing that gave that name an option (a new
                # number per listing, from RI: nothing to clear, one look per card)
                stamp = self.fresh("t")
                listing += [f"    if SEEN[ATTR[{self.name_id_row}, {value}]] != {stamp} and {where}:",
                            f"        SEEN[ATTR[{self.name_id_row}, {value}]] = {stamp}"] + _indent(add, 2)
                listing[2:2] = [f"{stamp} = RI[{RI_LISTING}] + 1", f"RI[{RI_LISTING}] = {stamp}"]
            elem = CARD
            to = self.zone_row_code(c["to"], env_opt, cp + ".to") if "to" in c else None
        elif "options" in c:
            lst = self.expr(c["options"], env_opt, cp + ".options")
            if not isinstance(lst, ListT):
                raise NotTyped("options: that is not a list", cp)
            if isinstance(lst.elem, compound.TupT):
                # the options' own loops may keep lists in rows of TMP: lowered again above the rows
                # their parts take (tuple_options takes them from here)
                self.depth += len(lst.elem)
                lst = self.expr(c["options"], env_opt, cp + ".options")
                self.depth -= len(lst.elem)
                # several seats: each seat's options after the others' in the rows (see sim_off)
                sim_off = self.fresh("t") if seats is not None else None

                def where_of(env_o):
                    return self.truth(parse(str(c["where"])), env_o) if "where" in c else "True"
                listing, n, tuple_row = compound.tuple_options(self, lst, value, where_of, env_opt, as_name,
                                                               sim_off, self.maxp if seats is not None else 1)
                hoisted, elem, to = [], lst.elem, None
            elif lst.elem not in (INT, BOOL, TEXT, CARD):
                raise NotTyped(f"options that are {lst.elem}s (values are numbers or texts here)", cp)
            else:
                env_opt[as_name] = (value, lst.elem)
                where = self.truth(parse(str(c["where"])), env_opt) if "where" in c else "True"
                hoisted, (where,) = _hoist([where], {value}, self.fresh)
                n, j, dup, x = (self.fresh("t") for _ in range(4))
            # options: the values in list order, one per text (a number or text reads as itself)
                listing = cardoptions.listing(self, lst, value, where, self.room_for(lst, self.maxp if seats is not None
                                                                                     else 1), n, j, dup, x) \
                    if lst.elem == CARD else \
                    [f"{n} = 0"] + lst.loop(x, [f"{value} = {x}", f"{dup} = False", f"for {j} in range({n}):",
                                                     f"    if OPT[0, {j}] == {value}:", f"        {dup} = True",
                                                     f"if not {dup} and {where}:"] +
                                                    _indent(self.room_for(lst, self.maxp if seats is not None else 1)(n) +
                                                            [f"OPT[0, {n}] = {value}", f"OPT[1, {n}] = NULL",
                                                             f"{n} += 1"]))
                elem = lst.elem
                to = None
        else:
            raise NotTyped("a choice with neither cards nor options", cp)
        listing = hoisted + listing
        if optional is not None:
            # the optional action (`pass`, or its own verb), last, while `when` holds: it chooses null
            add = [f"OPT[0, {n}] = NULL", f"OPT[1, {n}] = NULL", f"{n} += 1"]
            if "when" in optional:
                when = self.truth(parse(str(optional["when"])), env_opt)
                listing += [f"if {when}:"] + _indent(add)
            else:
                listing += add
        mode, k0 = self.fresh("v"), self.fresh("t")

        def env_then_of(seat):
            out = dict(env)
            out[by_name] = (seat, INT)
            out[as_name] = compound.bind(value, elem, chosen=True)
            if "onto" in c:
                onto.bind_at(c, out, mode)
            return out

        def played_of(value, seat, mode):
            if "onto" in c:
                return onto.played(self, c, env_then_of(seat), value, seat, mode, optional is not None, cp)
            if to is None:
                return []
            play = [f"play_card(Z, ZN, PB, MD, LOC, {value}, {to}, {seat}, {mode})"] + setzones.after_move(self, env)
            return [f"if {value} != NULL:"] + _indent(play) if optional is not None else play
        if self.steps:
            self.sites.append({"verb": str(c.get("action", "choose")), "cards": "cards" in c,
                               "elem": list(elem) if isinstance(elem, compound.TupT) else elem,
                               "tuple_row": None if "cards" in c else tuple_row,
                               "modes": "cards" in c and bool(self.max_modes) or "onto" in c,  # (else OPT[1] is not written)
                               "onto": "onto" in c,  # (OPT[1]: the set's place, onto.py)
                               "optional": None if optional is None else str(optional.get("action", "pass"))})
            if seats is not None:
                return self.simultaneous_steps(seats, listing, seat, value, mode, n, env, env_then_of(seat),
                                               c, cp, played_of(value, seat, mode),
                                               None if tuple_row is None else (sim_off, elem, tuple_row))
            # the caller reads the seat, the number of options (in OPT) and the site from the number
            # yielded (seat + options << 16 + site << 36), then writes the index chosen
            ask = [f"if RI[{RI_ERROR}] != 0:", "    return",  # (flagged by an expression: see teams.py)
                   f"yield {seat} + ({n} << 16) + ({len(self.sites) - 1} << 36)", f"{k0} = RI[{RI_CHOSEN}]"]
        else:
            ask = [f"{k0} = randbelow_row(RG, RI[4] + {seat}, {n})"]
        pick = [f"if {n} == 0:", f"    RI[{RI_ERROR}] = 5", "    return"] + ask + \
            [f"{value} = OPT[0, {k0}]", f"{mode} = OPT[1, {k0}]", f"RI[{RI_ACTIONS}] += 1"] + realtime.acted(self, seat)
        if not self.steps:  # a game past Game.max_actions: flagged, the step API raises its error
            pick += [f"if RI[{RI_ACTIONS}] > RI[{RI_MAX_ACTIONS}]:", f"    RI[{RI_ERROR}] = {ERR_MAX_ACTIONS}",
                     "    return"]
        if "cards" not in c and tuple_row is not None and seats is None:  # the chosen pair's parts, then its rows are free
            pick += compound.bind_chosen(value, elem, tuple_row)
            self.depth -= len(elem)
        env_then = env_then_of(seat)
        played = played_of(value, seat, mode)
        self.choice_value = value  # (what was chosen, NULL for the optional action: see climb.py)
        if seats is None:
            then = self.block(c.get("then", []), env_then, cp + ".then")
            return lines + listing + pick + played + then
        # simultaneous: every seat picks from the same position, then the choices run in seat-list order
        lines_s, row, cnt = self.snapshot(seats, env)
        prow = self.depth
        self.depth += 2
        self.max_depth = max(self.max_depth, self.depth)
        k = self.fresh("i")
        # options that are pairs: each seat's sit after the others' in the pairs' rows (from sim_off),
        # kept until every seat's choice has run
        pairs = tuple_row is not None and "cards" not in c
        out = lines_s + ([f"{sim_off} = 0"] if pairs else []) + \
            [f"for {k} in range({cnt}):", f"    {seat} = TMP[{row}, {k}]"] + \
            _indent(listing + pick) + [f"    TMP[{prow}, {k}] = {value}", f"    TMP[{prow + 1}, {k}] = {mode}"] + \
            ([f"    {sim_off} += {n}"] if pairs else [])
        then = self.block(c.get("then", []), env_then, cp + ".then")
        out += [f"for {k} in range({cnt}):", f"    {seat} = TMP[{row}, {k}]", f"    {value} = TMP[{prow}, {k}]",
                f"    {mode} = TMP[{prow + 1}, {k}]"] + \
            _indent((compound.bind_chosen(value, elem, tuple_row) if pairs else []) + played + then)
        self.depth -= 3 + (len(elem) if pairs else 0)
        return out

    def simultaneous_steps(self, seats, listing, seat, value, mode, n, env, env_then, c, cp, played, pairs=None):
        """A simultaneous choice in the step API's module: every listed seat's options are listed
        from the same position into rows of TMP (values, modes; each seat's first index and count),
        the generator yields once (seat field 0xFFFF: the caller reads the seats and their options
        from the rows the site names), the caller writes each seat's index chosen, and the choices
        run in seat-list order, as the step API runs them. ``pairs``: options that are pairs,
        ``(the listing's offset name, item type, first row of their parts)``: each seat's parts
        sit after the others' (the offset is the count so far), read back for each seat's ``then``."""
        lines_s, row, cnt = self.snapshot(seats, env)
        base = self.depth  # rows: value, mode (chosen); all values, all modes; first, count; index chosen
        self.depth += 7
        self.max_depth = max(self.max_depth, self.depth)
        self.sites[-1]["simultaneous"] = {"seats": row, "rows": base}
        k, q, tot = self.fresh("i"), self.fresh("i"), (self.fresh("t") if pairs is None else pairs[0])
        site = len(self.sites) - 1
        out = lines_s + [f"{tot} = 0", f"for {k} in range({cnt}):", f"    {seat} = TMP[{row}, {k}]"] + \
            _indent(listing + [f"if {n} == 0:", f"    RI[{RI_ERROR}] = 5", "    return",
                               f"if {tot} + {n} > len(TMP[0]):", f"    RI[{RI_ERROR}] = 6", "    return",
                               f"TMP[{base + 4}, {k}] = {tot}", f"TMP[{base + 5}, {k}] = {n}",
                               f"for {q} in range({n}):", f"    TMP[{base + 2}, {tot} + {q}] = OPT[0, {q}]",
                               f"    TMP[{base + 3}, {tot} + {q}] = OPT[1, {q}]", f"{tot} += {n}"])
        out += [f"if RI[{RI_ERROR}] != 0:", "    return",
                f"yield 65535 + ({cnt} << 16) + ({site} << 36)",
                f"for {k} in range({cnt}):", f"    {q} = TMP[{base + 4}, {k}] + TMP[{base + 6}, {k}]",
                f"    TMP[{base}, {k}] = TMP[{base + 2}, {q}]", f"    TMP[{base + 1}, {k}] = TMP[{base + 3}, {q}]",
                f"    RI[{RI_ACTIONS}] += 1"]
        then = self.block(c.get("then", []), env_then, cp + ".then")
        read = [] if pairs is None else compound.bind_chosen(value, pairs[1], pairs[2])
        out += [f"for {k} in range({cnt}):", f"    {seat} = TMP[{row}, {k}]", f"    {value} = TMP[{base}, {k}]",
                f"    {mode} = TMP[{base + 1}, {k}]"] + _indent(read + played + then)
        self.depth -= 8 + (0 if pairs is None else len(pairs[1]))
        return out
