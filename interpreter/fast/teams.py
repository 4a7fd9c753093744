"""Teams, indexing and seats of cards in the typed kernel (:mod:`interpreter.fast.typepass`).

A mixin of :class:`~interpreter.fast.typepass.Lowering`; every line it writes comes from the fixed
templates below, whose holes are generated names and integers only (``check_source`` still checks
the module).

- **Teams** (``teams: {of: EXPR}``, ``team_variables``): a seat's team is the ``of`` expression
  written with ``p`` bound to the seat (an expression of ``p``, ``num_players`` and options, so
  the module serves every player count). A team variable is a player variable every member of the
  team holds (as the step API keeps it): reading one reads the seat's own copy; ``set``/``add``
  write the new value into every seat whose team is the seat's (``add`` adds to the seat's own
  copy first). ``team_of(p)`` and ``teammates(p)`` (the other members, clockwise from ``p``) read
  the same expression; without ``teams:`` every seat is its own team.
- **Indexing** ``xs[k]`` of a list where it is consumed (a zone, a literal, a comprehension, a
  range): ``k`` from the end when negative, as Python's; out of range (or null) the step API
  stops the game with an error, so the kernel flags the game (``RI_ERROR`` 7: it is replayed by
  the step API, which says what went wrong) and reads null.
- **Concatenation** ``xs + ys`` of two lists where it is consumed: one loop after the other.
- ``holder(c)``: the seat whose per-player zone holds the card (its row of ``Z``, from ``LOC``),
  else null; a null card flags the game as the step API stops it.
- ``argmax``/``argmin`` with ties ``'first'`` or ``'last'`` written out.
- A game variable whose default is a list of single values and that no step sets: written as
  that list literal where it is read (a step that sets it does not type).

A helper that may flag an error is given ``RI``: it is never hoisted out of the short-circuit that
guards it (``_hoist``), and the step API's generator returns at a flag before its next choice.
"""
from __future__ import annotations

from . import cardmeld
from ..expr.compiler import parse
from . import liststarts, lowtypes as tp, meldvalue

RI_INDEX_ERROR = tp.ERR_INDEX  # the code of ``RI[RI_ERROR]`` for an index out of range or a bad holder()


class TeamsAndIndexing:
    """Lowering of teams, ``xs[k]``, ``xs + ys``, ``holder(c)``, ties and constant lists (see the
    module's doc)."""

    # -- teams ----------------------------------------------------------------------------------
    def team_vars(self) -> set:
        """The names of the spec's team variables (player variables shared by a team)."""
        return set(self.spec.get("team_variables") or {})

    def team_code(self, seat_code: str) -> str:
        """Code of the team of the seat ``seat_code`` (a generated name or expression); without
        ``teams:`` the seat itself. Raises NotTyped when the ``of`` expression does not type."""
        teams = self.spec.get("teams")
        if not isinstance(teams, dict) or teams.get("of") is None:
            return seat_code
        saved = self.path
        code, ty = self.scalar(parse(str(teams["of"])), {"p": (seat_code, tp.INT)})
        self.path = saved
        if ty not in (tp.INT, tp.BOOL):
            raise tp.NotTyped(f"a team that is a {ty}", "teams.of")
        return code

    def call_team_of(self, args, env):
        if len(args) != 1:
            raise tp.NotTyped("team_of without its one argument", self.path)
        c, _ = self.scalar(args[0], env)
        return self.team_code(c), tp.INT

    def call_teammates(self, args, env):
        """``teammates(p)``: the other seats of p's team, clockwise from p."""
        if len(args) != 1:
            raise tp.NotTyped("teammates without its one argument", self.path)
        start, _ = self.scalar(args[0], env)

        def loop(var, body):
            s, ts, i = self.fresh("t"), self.fresh("t"), self.fresh("i")
            return [f"{s} = {start}", f"{ts} = {self.team_code(s)}", f"for {i} in range(1, NP):",
                    f"    {var} = ({s} + {i}) % NP", f"    if {self.team_code(var)} == {ts}:"] + tp._indent(body, 2)
        return tp.ListT(tp.INT, loop, refs=tp._names(start))

    def team_store(self, seat_code: str, slot: int, value: str, add: bool) -> list:
        """Lines that set (or add to) team variable ``slot`` of the seat's team: the value is
        computed from the seat's own copy, then written into every member's."""
        seat, new, ts, i = self.fresh("t"), self.fresh("t"), self.fresh("t"), self.fresh("i")
        return [f"{seat} = {seat_code}",
                f"{new} = add_null(PV[{seat}, {slot}], {value})" if add else f"{new} = {value}",
                f"{ts} = {self.team_code(seat)}", f"for {i} in range(NP):",
                f"    if {self.team_code(i)} == {ts}:", f"        PV[{i}, {slot}] = {new}"]

    def store_lines(self, store: str, value: str, add: bool) -> list:
        """The lines storing ``value`` (a generated name) at ``store`` (code made by ``targets``),
        a team variable into every member of the team."""
        if store in self.map_targets:  # an entry of a player's map, its key known at run time (maps.py)
            return self.map_store(store, value, add)
        team = self.team_targets.get(store)
        if team is not None:
            return self.team_store(team[0], team[1], value, add)
        return [f"{store} = add_null({store}, {value})" if add else f"{store} = {value}"]

    # -- lists ----------------------------------------------------------------------------------
    def list_concat(self, a, b):
        """``a + b`` of two lists: a's items, then b's."""
        elem = b.elem if a.length == "0" else a.elem if b.length == "0" else tp._join(a.elem, b.elem)
        if elem is None:
            raise tp.NotTyped("+ of lists of different kinds", self.path)

        def loop(var, body):
            return a.loop(var, body) + b.loop(var, body)
        length = f"({a.length} + {b.length})" if a.length is not None and b.length is not None else None
        return tp.ListT(elem if elem != tp.NUL else tp.INT, loop, length=length, refs=a.refs | b.refs)

    def list_index(self, t, env):
        """``xs[k]`` of a list (``t`` the index node): ``(code, type)``."""
        obj, key = t.children
        r = cardmeld.listed(self, self.e(obj, env))  # (a variable holding a card or a meld: cardmeld.py)
        if isinstance(r, tuple) and r[1] == meldvalue.MELDL:  # one meld of melds_in
            r = meldvalue.as_list(self, r[0])
        if not isinstance(r, tp.ListT):
            raise tp.NotTyped(f"indexing (x[k]) a {r[1]} (the kernel indexes lists only)", self.path)
        kc, kt = self.scalar(key, env)
        if kt not in (tp.INT, tp.BOOL, tp.NUL):
            raise tp.NotTyped(f"a list indexed by a {kt}", self.path)
        k, n, out = self.fresh("t"), self.fresh("t"), self.fresh("t")
        flag = [f"    RI[{tp.RI_ERROR}] = {RI_INDEX_ERROR}"]
        if r.zone is not None:
            rr = self.fresh("t")
            lines = [f"{rr} = {r.zone}", f"{k} = {kc}", f"{n} = ZN[{rr}]", f"if {k} < 0:", f"    {k} += {n}",
                     f"{out} = NULL", f"if {k} >= 0 and {k} < {n}:", f"    {out} = Z[{rr}, {k}]", "else:"] + flag
            return self.helper(env, lines, out), r.elem
        v, c = self.fresh("v"), self.fresh("t")
        if r.length is not None:
            count = [f"{n} = {r.length}"]
        else:
            w = self.fresh("v")
            count = [f"{n} = 0"] + r.loop(w, [f"{n} += 1"])
        lines = count + [f"{k} = {kc}", f"if {k} < 0:", f"    {k} += {n}", f"{out} = NULL", f"{c} = 0"] + \
            r.loop(v, [f"if {c} == {k}:", f"    {out} = {v}", f"{c} += 1"]) + \
            [f"if {k} < 0 or {k} >= {n}:"] + flag
        return self.helper(env, lines, out), r.elem

    def ties_op(self, tree, env, better: str) -> str:
        """The comparison by which ``argmax``/``argmin`` (``better``: ``>`` or ``<``) take a new
        best for ``ties`` (the tree of the third argument): the first of equal keys stays
        (``'first'``), or the last replaces it (``'last'``: ``>=``/``<=``). A value known only at
        run time does not type."""
        code, _ = self.scalar(tree, env)
        for word, op in (("first", better), ("last", better + "=")):
            if code == str(self.text(word)):
                return op
        raise tp.NotTyped("argmax/argmin with ties other than 'first' or 'last' written out", self.path)

    def constant_list(self, v, path: str):
        """The type marker of game variable ``variables.NAME`` whose default ``v`` is a non-empty
        list of numbers, texts and yes/no values (kept in ``self.const_lists``: it is written as a
        list literal where it is read, and no step may set it), else None."""
        if not (path.startswith("variables.") and isinstance(v, list) and v and
                all(x is None or isinstance(x, (bool, int, str)) for x in v)):
            return None
        if liststarts.set_by_step(self.spec, path[len("variables."):]):  # (a step sets it: liststarts.py)
            return liststarts.declare(self, path[len("variables."):], v)
        self.const_lists[path[len("variables."):]] = list(v)
        return "constant list"

    def const_list(self, name: str):
        """The ListT of constant-list variable ``name``."""
        return self.list_literal([(str(self.value(x, f"an item of variable {name}")),
                                   self.type_of_value(x)) for x in self.const_lists[name]])

    # -- seats of cards ---------------------------------------------------------------------------
    def call_holder(self, args, env):
        """``holder(c)``: the seat whose per-player zone holds card c, else null."""
        if len(args) != 1:
            raise tp.NotTyped("holder without its one argument", self.path)
        cc, ct = self.scalar(args[0], env)
        if ct not in (tp.CARD, tp.NUL):
            raise tp.NotTyped(f"holder of a {ct}", self.path)
        c, at, out = self.fresh("t"), self.fresh("t"), self.fresh("t")
        lines = [f"{c} = {cc}", f"{out} = NULL", f"if {c} == NULL:", f"    RI[{tp.RI_ERROR}] = {RI_INDEX_ERROR}",
                 "else:", f"    {at} = LOC[{c}]"]
        for name, base in self.zone_row.items():
            if self.per_player[name]:
                span = self.set_zones.get(name)  # (a zone of sets has a block of rows per seat: setzones.py)
                if span is None:
                    lines += [f"    if {at} >= {base} and {at} < {base} + NP:", f"        {out} = {at} - {base}"]
                else:
                    lines += [f"    if {at} >= {base} and {at} < {base} + NP * {span}:", f"        {out} = ({at} - {base}) // {span}"]
        return self.helper(env, lines, out), tp.INT
