"""Loop-invariant reads hoisted out of generated loops (interpreter/fast/hoist.py): what moves, what
stays, and that the generated code computes the same values."""
from __future__ import annotations

import itertools

from interpreter.fast.calls import _bound_in, _hoist


def _fresh():
    n = itertools.count(900)
    return lambda prefix: f"{prefix}{next(n)}"


LOOP = ["t1 = 0", "for i2 in range(ZN[t3]):", "    v4 = Z[t3, i2]",
        "    if (attr_mode(ATTR, MD, 0, v4, 6, 2, 4) == ((t5) if (GV[9] == 7) else (attr_mode(ATTR, MD, 0, t6, 6, 2, 4)))):",
        "        t1 += 1"]


def test_an_invariant_read_in_a_filter_is_computed_once_before_the_loop():
    pre, out = _hoist(LOOP, _bound_in(LOOP), _fresh())
    assert pre == ["t900 = (t5) if (GV[9] == 7) else (attr_mode(ATTR, MD, 0, t6, 6, 2, 4))"]
    assert out[3] == "    if (attr_mode(ATTR, MD, 0, v4, 6, 2, 4) == (t900)):"
    assert out[:3] == LOOP[:3] and out[4] == LOOP[4]


def test_what_depends_on_the_item_or_may_fail_stays_in_the_loop():
    for cond, stays in [("attr_mode(ATTR, MD, 0, v4, 6, 2, 4) == 3", "attr_mode(ATTR, MD, 0, v4, 6, 2, 4)"),  # the item
                        ("(t5 // t6) == attr_get(ATTR, 0, t6)", "t5 // t6"),  # a division (a guard may keep it from 0)
                        ("attr_get(ATTR, 0, Z[t5, t6]) == 3", "attr_get(ATTR, 0, Z[t5, t6])"),  # a run-time index
                        ("attr_get(ATTR, 0, TMP[0, 0]) == 3", "attr_get(ATTR, 0, TMP[0, 0])"),  # a scratch row
                        ("move_top(Z, ZN, PB, MD, LOC, 0, 1, 1, 1, 0)", "move_top("),  # changes the state
                        ("attr_get(ATTR, 0, Z[3, 0]) == 1 and move_card(Z, ZN, PB, MD, LOC, 0, 1)",
                         "attr_get(ATTR, 0, Z[3, 0])")]:  # a row a call in the loop may rewrite
        lines = ["for i2 in range(ZN[3]):", "    v4 = Z[3, i2]", f"    if {cond}:", "        t1 += 1"]
        pre, out = _hoist(lines, _bound_in(lines), _fresh())
        assert stays in out[2] and not any(stays in p for p in pre), cond


def test_a_value_the_loop_sets_is_not_invariant():
    lines = ["for i2 in range(ZN[3]):", "    v4 = Z[3, i2]", "    if attr_get(ATTR, 0, t7) == 1:",
             "        t7 = v4"]
    assert _hoist(lines, _bound_in(lines), _fresh()) == ([], lines)


def test_a_where_expression_is_rewritten_and_statements_before_a_loop_are_not():
    where = "(attr_get(ATTR, 0, v4) == attr_get(ATTR, 0, (Z[9, 0] if ZN[9] > 0 else NULL))) or (t8 == 0)"
    pre, (out,) = _hoist([where], {"v4"}, _fresh())
    assert pre == ["t900 = attr_get(ATTR, 0, (Z[9, 0] if ZN[9] > 0 else NULL))"]
    assert out == "(attr_get(ATTR, 0, v4) == t900) or (t8 == 0)"
    before = ["t1 = attr_get(ATTR, 0, t5)", "for i2 in range(ZN[3]):", "    t1 += 1"]
    assert _hoist(before, _bound_in(before), _fresh()) == ([], before)


def test_the_hoisted_code_computes_what_the_loop_did():
    """Run both forms as Python (the templates are Python) on a small state."""
    import numpy as np
    from interpreter.fast import runtime
    NULL = runtime.NULL
    ns = dict(attr_mode=runtime.attr_mode.py_func, NULL=NULL, ATTR=np.array([[1, 2, 1, 3]] + [[0] * 4] * 9),
              MD=np.full(4, NULL), GV=np.zeros(16, dtype=np.int64), Z=np.array([[0, 1, 2, 3]]), ZN=np.array([4]))
    pre, out = _hoist(LOOP, _bound_in(LOOP), _fresh())
    for gv9, t5, t6 in [(7, 1, 3), (0, 1, 3), (0, 1, 1), (7, 2, NULL)]:
        results = []
        for code in (LOOP, pre + out):
            env = dict(ns, t3=0, t5=t5, t6=t6)
            env["GV"][9] = gv9
            exec("\n".join(code), env)  # (fixed test text, not spec text)
            results.append(env["t1"])
        assert results[0] == results[1], (gv9, t5, t6, results)


def test_first_stops_early_only_when_its_list_is_one_loop():
    """first(xs + [y]) lists a loop then a single item: stopping at the first match there broke
    outside the loop (a SyntaxError in Canasta's kernel) or let y overwrite the match."""
    from interpreter.fast.calls import _one_loop
    one = ["t1 = v0", "for i2 in range(v0):", "    v3 = TMP[2, i2]", "    if v3 > 0:", "        t4 = v3", "        break"]
    assert _one_loop(one)
    tail = one + ["v3 = Z[1, 0]", "if v3 > 0:", "    t4 = v3", "    break"]
    assert not _one_loop(tail)
    head = ["v3 = Z[1, 0]", "t4 = v3", "break"] + one[1:]
    assert not _one_loop(head)
    assert not _one_loop(one + ["for i5 in range(3):", "    t4 = i5"])
