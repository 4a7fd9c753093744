"""Player variables holding a map with fixed keys in the typed kernel (:mod:`interpreter.fast.typepass`).

A player variable whose default is a map of single values with number or text keys
(``marks: {red: 3, blue: 3}``) keeps one column of ``PV`` per key (after the player
variables' columns), in the default's key order; its values share one type. What types:

- ``p.m[k]``: the entry (null for a key the map does not hold, as the step API's map);
- ``set``/``add`` of ``p.m[k]``: that entry (``add`` counts a null entry as 0); a key the map
  does not hold would make the map grow: written out, it does not type; known only at run time,
  the game is flagged (``RI_ERROR`` 7, replayed by the step API);
- ``set`` of ``p.m`` to a map literal whose keys are the map's: every entry at once (a key the
  literal leaves out is null, as the step API's map has no such key then).

Reading the whole map (``p.m`` alone, ``for k in p.m``) does not type. Every line comes from the
fixed templates below, whose holes are generated names and integers.
"""
from __future__ import annotations

from ..expr.compiler import parse
from . import lowtypes as tp
from .teams import RI_INDEX_ERROR

MAP = "player map"  # the type marker of such a variable in ``ptypes``


class PlayerMaps:
    """Lowering of player variables holding maps with fixed keys (see the module's doc)."""

    def player_map(self, v, path: str):
        """MAP when ``v`` (the default of ``player_variables.NAME``) is such a map, its keys and
        columns then kept in ``self.pmaps``; else None."""
        if not (path.startswith("player_variables.") and isinstance(v, dict) and v):
            return None
        name = path[len("player_variables."):]
        keys, ty = [], tp.NUL
        for k, x in v.items():
            if isinstance(k, bool) or not isinstance(k, (int, str)) or \
                    not (x is None or isinstance(x, (bool, int, str))):
                raise tp.NotTyped(f"player variable {name} holds a map whose keys are not numbers or texts, or "
                                  f"whose values are not single values", path)
            ty = tp._join(ty, self.type_of_value(x))
            if ty is None:
                raise tp.NotTyped(f"player variable {name} holds a map of values of several kinds", path)
            col = len(self.game.pvar_defaults) + len(self.pmap_defaults)
            keys.append((self.value(k, f"a key of player variable {name}"), col))
            self.pmap_defaults.append(self.value(x, f"an entry of player variable {name}"))
        self.pmaps[name] = keys
        self.pmap_types[name] = ty
        return MAP

    def map_defaults(self) -> list:
        """The start values of the maps' columns of ``PV`` (after the player variables')."""
        return list(self.pmap_defaults)

    def is_player_map(self, tree) -> bool:
        """Whether ``tree`` is ``X.m`` for such a map ``m``."""
        return (getattr(tree, "data", None) == "attr" and str(tree.children[1]) in self.pmaps
                and not (tree.children[0].data == "name" and str(tree.children[0].children[0]) == "options"))

    def map_read_whole(self, name: str):
        raise tp.NotTyped(f"player variable {name!r} (a map) read whole: the kernel reads its entries, "
                          f"p.{name}[key]", self.path)

    def _map_key(self, name: str, key_tree, env):
        """``(key code, column or None)``: the column when the key is a constant (None: a key
        known at run time), -1 for a constant the map does not hold."""
        kc, _ = self.scalar(key_tree, env)
        known = tp._fold(kc)
        if known is None or isinstance(known, bool):
            return kc, None
        for k, col in self.pmaps[name]:
            if k == known:
                return kc, col
        return kc, -1

    def map_entry(self, t, env):
        """``X.m[k]`` read: ``(code, type)``."""
        obj, key = t.children
        name = str(obj.children[1])
        seat, _ = self.scalar(obj.children[0], env)
        ty = tp._known(self.pmap_types[name])
        kc, col = self._map_key(name, key, env)
        if col is not None:
            return ("NULL", ty) if col < 0 else (f"PV[{seat}, {col}]", ty)
        s, k = self.fresh("t"), self.fresh("t")
        chain = "NULL"
        for kv, c in reversed(self.pmaps[name]):
            chain = f"(PV[{s}, {c}] if {k} == {kv} else {chain})"
        return self.helper(env, [f"{s} = {seat}", f"{k} = {kc}"], chain), ty

    def map_entry_target(self, tree, env):
        """``(store code, which)`` of the target ``X.m[k]`` of a set/add/random step."""
        obj, key = tree.children
        name = str(obj.children[1])
        seat, _ = self.scalar(obj.children[0], env)
        kc, col = self._map_key(name, key, env)
        if col is not None and col < 0:
            raise tp.NotTyped(f"setting a key that player variable {name!r} (a map) does not start with", self.path)
        if col is not None:
            return f"PV[{seat}, {col}]", ("m", name)
        store = f"PV[{seat}, {len(self.map_targets)} + map_entry({kc})]"  # (a key; never written out as is)
        self.map_targets[store] = (seat, name, kc)
        return store, ("m", name)

    def map_store(self, store: str, value: str, add: bool) -> list:
        """Lines storing ``value`` at a map entry whose key is known at run time."""
        seat, name, kc = self.map_targets[store]
        s, k, col = self.fresh("t"), self.fresh("t"), self.fresh("t")
        lines = [f"{s} = {seat}", f"{k} = {kc}", f"{col} = -1"]
        for kv, c in self.pmaps[name]:
            lines += [f"if {k} == {kv}:", f"    {col} = {c}"]
        put = f"add_null(PV[{s}, {col}], {value})" if add else value
        return lines + [f"if {col} < 0:", f"    RI[{tp.RI_ERROR}] = {RI_INDEX_ERROR}", "else:",
                        f"    PV[{s}, {col}] = {put}"]

    def map_assign(self, seat: str, name: str, value, env, path: str, add: bool):
        """``set: {X.m: "{k: v, ...}"}``: ``(lines, stores)`` as :meth:`s_set` keeps them (every
        entry's value computed first; the stores run after every target's value is known)."""
        tree = parse(str(value)) if isinstance(value, str) else None
        if add or tree is None or tree.data != "dict_":
            raise tp.NotTyped(f"player variable {name!r} (a map) {'added to' if add else 'set'} other than to a "
                              f"map literal", path)
        given = {}
        for pair in (c for c in tree.children if c is not None):
            kc, col = self._map_key(name, pair.children[0], env)
            if col is None or col < 0:
                raise tp.NotTyped(f"player variable {name!r} (a map) set to a map with a key it does not start "
                                  f"with, or one known only at run time", path)
            code, ty = self.scalar(pair.children[1], env)
            self.check_type(("m", name), ty)
            tmp = self.fresh("t")
            given[col] = (f"{tmp} = {code}", tmp)
        lines = [ln for ln, _ in given.values()]
        stores = [(f"PV[{seat}, {col}]", given[col][1] if col in given else "NULL") for _, col in self.pmaps[name]]
        return lines, stores
