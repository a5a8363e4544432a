"""The function table: both sides of every entry (tape op and SymPy) agree."""
from __future__ import annotations

import numpy as np
import pytest

from tape.expr import parse as E
from tape.expr import lower
from tape.expr.functions import CONSTANTS, FUNCTIONS, call_sympy

POINT = {"acosh": 1.5, "asec": 1.5, "acsc": 1.5, "acoth": 1.5}          # inside each function's domain; 0.4 otherwise
VECTOR = [0.3, 0.7, -0.2]


def tape_value(text: str, sizes: dict, values: dict) -> np.ndarray:
    import tape

    tree = E.parse(text)
    names = sorted(sizes)
    lower.check_shapes(tree, sizes, text)
    inputs = [tape.constant(np.reshape(np.asarray(values[n], dtype=float), (1, -1)))
              for n in names]
    return np.asarray(lower.to_tape(tree, names)(*inputs)).reshape(-1)


@pytest.mark.parametrize("name", list(FUNCTIONS))
def test_tape_and_sympy_sides_agree(name):
    sp = pytest.importorskip("sympy")
    fn = FUNCTIONS[name]
    if fn.kind == "elementwise":
        x0 = POINT.get(name, 0.4)
        args = ["x"] * fn.arity if fn.arity == 1 else ["x", "y"]
        got = tape_value(f"{name}({', '.join(args)})", {a: None for a in args},
                         {"x": x0, "y": 0.9})
        symbols = {"x": sp.Float(x0), "y": sp.Float(0.9)}
        expected = call_sympy(sp, name, [symbols[a] for a in args])
    else:
        args = ["v"] * fn.arity
        got = tape_value(f"{name}({', '.join(args)})", {"v": len(VECTOR)}, {"v": VECTOR})
        vector = [sp.Float(c) for c in VECTOR]
        expected = call_sympy(sp, name, [vector] * fn.arity)
    assert got.shape == (1,)
    assert float(got[0]) == pytest.approx(float(sp.N(expected)), rel=1e-12)


def test_constants_match_sympy():
    sp = pytest.importorskip("sympy")
    for name, (value, sympy_name) in CONSTANTS.items():
        assert float(getattr(sp, sympy_name)) == value


def test_the_table_is_documented():
    for fn in FUNCTIONS.values():
        assert fn.summary and fn.kind in ("elementwise", "reduce", "dot")
