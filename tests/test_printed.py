"""printed(c, 'NAME'): a card's printed attribute beside a derived one (docs/spec-language.md,
Derived attributes), in the interpreter and in the kernel."""
from __future__ import annotations

from pathlib import Path

import pytest

from interpreter import load_game
from interpreter.errors import RuleError, SpecError
from interpreter.fast.kernel import kernel_for
from interpreter.scenario import evaluate
from interpreter.sim.simulate import _play_one

ROOT = Path(__file__).resolve().parents[1]
EUCHRE = (ROOT / "specs" / "euchre.yaml").read_text()
OLD = """trump_rank(c): "(100 if c.name == trump + 'J' else 99) if c.rank == 11 else c.rank\""""
NEW = """trump_rank(c): "(100 if printed(c, 'suit') == trump else 99) if c.rank == 11 else c.rank\""""


def _euchre(tmp_path, text=None):
    path = tmp_path / "euchre.yaml"
    path.write_text(text if text is not None else EUCHRE.replace(OLD, NEW))
    return load_game(path)


def test_printed_reads_the_printed_suit_beside_the_derived_one(tmp_path):
    assert OLD in EUCHRE
    st = _euchre(tmp_path).new_state(4, seed=1)
    st.vars["trump"] = "H"
    left = "first([c in deck + flatten([p.hand for p in players]) + upcard where c.name == 'DJ'])"
    assert evaluate(st, f"{left}.suit") == "H"                 # derived: the left bower follows trump
    assert evaluate(st, f"printed({left}, 'suit')") == "D"     # printed
    assert evaluate(st, f"trump_rank({left})") == 99


def test_printed_mistakes_are_named(tmp_path):
    with pytest.raises(SpecError, match="printed: no card has an attribute 'siut'"):
        _euchre(tmp_path, EUCHRE.replace(OLD, NEW.replace("'suit'", "'siut'")))
    st = _euchre(tmp_path).new_state(4, seed=1)
    with pytest.raises(RuleError, match="printed takes a card"):
        evaluate(st, "printed(3, 'suit')")


def test_the_kernel_plays_the_step_apis_games_with_printed(tmp_path):
    """Euchre with its right bower told by printed(c, 'suit') (the same rule as its name test):
    the same scores and lengths as the step API."""
    game = _euchre(tmp_path)
    scores, lengths, errors = kernel_for(game).run(4, 100, 12)
    for i in range(12):
        want, _, length = _play_one(game, 4, 100, i, None)
        assert errors[i] == 0 and list(scores[i]) == list(want) and lengths[i] == length, 100 + i
