"""The pieces of one ``tape grad`` request's path: the batched layout of scalar-only
expressions, the lowering's one walk, reading ``--wrt`` and the declared names, the single-
variable gradient, and start-up's frozen objects."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import tape
from cli_helpers import ROOT
from tape.calculus import derivatives as D
from tape.calculus import targets as T
from tape.expr.errors import CLIError
from tape.expr.lower import to_tape
from tape.expr.tree import postorder

XS = np.array([0.5, -1.25, 2.0])
YS = np.array([3.0, 0.75, -2.5])


def batched(text, sizes, count):
    target = T.expression_target(text)
    return target.batched(list(sizes), sizes, count)


def test_scalar_only_expression_keeps_one_axis_and_its_values():
    fn = batched("sin(x)*y + x^2", {"x": None, "y": None}, 3)
    y = fn(tape.constant(XS), tape.constant(YS))
    assert tuple(y.shape) == (3,)
    np.testing.assert_allclose(y.numpy(), np.sin(XS) * YS + XS ** 2, rtol=1e-15)


def test_scalar_only_constant_expression_is_broadcast_to_every_point():
    fn = batched("2*pi", {}, 4)
    y = fn()
    assert tuple(y.shape) == (4,)
    np.testing.assert_allclose(y.numpy(), np.full(4, 2 * np.pi))


def test_scalar_and_vector_variables_still_share_the_trailing_axis():
    w = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]])
    fn = batched("x*sum(w)", {"w": 2, "x": None}, 3)
    y = fn(tape.constant(w), tape.constant(XS))
    assert tuple(y.shape) == (3,)
    np.testing.assert_allclose(y.numpy(), XS * w.sum(axis=1))


def test_scalar_only_gradient_matches_finite_differences():
    comps = D.components(["x", "y"], ["x", "y"], {"x": None, "y": None})
    fn = batched("exp(x)*y^3", {"x": None, "y": None}, 3)
    value, parts = D.partials(fn, [XS, YS], comps, 1)
    h = 1e-6
    f = lambda a, b: np.exp(a) * b ** 3  # noqa: E731
    np.testing.assert_allclose(value, f(XS, YS))
    np.testing.assert_allclose(parts[(0,)], (f(XS + h, YS) - f(XS - h, YS)) / (2 * h),
                               rtol=1e-7)
    np.testing.assert_allclose(parts[(1,)], (f(XS, YS + h) - f(XS, YS - h)) / (2 * h),
                               rtol=1e-7)


def test_one_variable_of_several_is_differentiated_alone():
    """--wrt x on x^2*y: the one watched tensor is passed as itself, not in a list."""
    comps = D.components(["x", "y"], ["x"], {"x": None, "y": None})
    fn = batched("x^2*y", {"x": None, "y": None}, 3)
    value, parts = D.partials(fn, [XS, YS], comps, 2)
    assert list(parts) == [(0, 0)]
    np.testing.assert_allclose(parts[(0, 0)], 2 * YS)
    _, first = D.partials(fn, [XS, YS], comps, 1)
    np.testing.assert_allclose(first[(0,)], 2 * XS * YS)


def test_lowering_walks_the_tree_once_and_runs_it_at_every_call():
    target = T.expression_target("x*x - 3")
    order = postorder(target.trees[0])
    assert [type(n).__name__ for n, _ in order] == ["Variable", "Variable", "Binary",
                                                   "Number", "Binary"]
    assert [k for _, k in order] == [0, 0, 2, 0, 2]
    run = to_tape(target.trees[0], ["x"])
    assert float(run(tape.constant(2.0)).numpy()) == 1.0
    assert float(run(tape.constant(-4.0)).numpy()) == 13.0


def test_wrt_names_come_from_wrt_then_from_d_dx_then_none():
    plain = T.expression_target("x*y")
    assert plain.wrt_names("y, x") == ["y", "x"]
    assert plain.wrt_names(None) == []
    assert T.expression_target("d/dy x*y").wrt_names(None) == ["y"]
    assert T.expression_target("d/dy x*y").wrt_names("x") == ["x"]


@pytest.mark.parametrize("text", [",", "x,", " , y", ""])
def test_wrt_with_an_empty_name_is_refused(text):
    with pytest.raises(CLIError, match="is not a comma-separated list of names") as info:
        T.parse_wrt(text)
    assert info.value.code == 2


def test_declared_names_come_only_from_named_values():
    assert T.declared_names(["1,2"], None) == ()
    assert T.declared_names(["rate=1,w=[1,2]"], "rate") == ("rate", "w", "rate")
    assert T.declared_names(["0.5", "speed=2"]) == ("speed",)


def test_component_labels_name_vector_components():
    comps = D.components(["w", "x"], ["w", "x"], {"w": 2, "x": None})
    assert [c.label for c in comps] == ["w[0]", "w[1]", "x"]
    assert comps[0] == D.Component("w", 0, 0) and "label" not in repr(comps[0])


def test_main_freezes_start_up_objects_once_per_process():
    code = ("import gc\n"
            "from tape.cli import app, process\n"
            "app.run_process = lambda typer_app: None   # main's own steps only\n"
            "counts = []\n"
            "for _ in range(2):\n"
            "    app.main()\n"
            "    counts.append(gc.get_freeze_count())\n"
            "print(counts[0] > 0, counts[1] == counts[0])\n")   # nothing frozen twice
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.stdout.split() == ["True", "True"], done.stderr


@pytest.mark.parametrize("text", ["x*y + sin(z)", "y = a*x^2", "x^2 + y^2 = 1", "pi*e*x",
                                  "d/dx x*w", "3", "2xy", "sqrt(w[0]^2 + w[1]^2)",
                                  "f(t) = t e^t", "sin^2 x + cos^2 x"])
def test_reading_lists_the_free_variables_its_walk_found(text):
    from tape.expr import parse as E

    reading = E.read(text, relation=True)
    assert sorted(reading.variables) == E.free_variables(reading.tree)
    assert len(reading.variables) == len(set(reading.variables))


@pytest.mark.parametrize("text", ["x^2", "2^x + x/3 - 1", "sin(2)*x - 3*x", "-2*x + pi*e",
                                  "2*3*x^0.5", "2*pi", "(1 + 2)/x", "x - x + 4"])
def test_reused_literals_give_the_values_and_gradients_of_fresh_ones(text):
    """The request's lowering keeps numbers beside a variable as Python floats and builds
    the other literals once: the same numbers, to the last bit, as a tensor per literal."""
    tree = T.expression_target(text).trees[0]
    variables = ["x"]
    xs = np.array([0.5, 1.25, 2.0])
    fresh, reused = to_tape(tree, variables), to_tape(tree, variables, 3, reuse_literals=True)
    results = []
    for fn in (fresh, reused):
        x = tape.constant(xs)
        with tape.GradientTape() as t:
            t.watch(x)
            y = tape.broadcast_to(fn(x), (3,))
        results.append((y.numpy(), t.gradient(y, x, unconnected_gradients="zero").numpy()))
    assert tuple(reused(tape.constant(xs)).shape) == (3,)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize("text", ["x^2", "sin(x)*y - 3", "[x*y, x+y]", "d/dx x^3 + 2x",
                                  "y = x^2 + w[1]", "max(x, 2)*-x", "|x| + √y"])
def test_the_readers_postorder_list_is_the_trees_own(text):
    """The reader keeps the postorder list it built the tree from; the shape check and the
    lowering walk that list instead of the tree, so it must be the tree's postorder."""
    from tape.expr import parse as E

    readings = ([r for _, r in E.read_list(text)] if text.startswith("[")
                else [E.read(text, names=("w",))])
    for reading in readings:
        assert reading.order is not None
        assert [(id(n), k) for n, k in reading.order] == \
            [(id(n), k) for n, k in postorder(reading.tree)]
        # the free names, each once, in the order they first appear (SPEC section 8)
        assert sorted(reading.variables) == sorted(E.free_variables(reading.tree))
        appearance = [n.name for n, _ in postorder(reading.tree) if isinstance(n, E.Variable)]
        assert reading.variables == list(dict.fromkeys(appearance))


def test_the_reader_spells_declared_names_as_it_spells_the_text():
    from tape.expr import parse as E

    # declared as typed (fullwidth), the name stays whole: not r*a*t*e
    assert E.read("rate*x", names=["ｒａｔｅ", " x "]).variables == ["rate", "x"]
    assert E.read("rate*x").variables == ["r", "a", "t", "x"]       # e is the constant
    assert T.declared_names(["ｒａｔｅ=1"]) == ("ｒａｔｅ",)     # collected as typed


def test_declared_look_alike_names_are_refused_by_the_reader():
    from tape.expr import parse as E
    from tape.expr.errors import ExprError

    with pytest.raises(ExprError, match="look alike"):
        E.read("x + 1", names=["x", "х"])       # Latin x, Cyrillic х


class _Stream:
    def __init__(self, terminal):
        self.terminal = terminal

    def isatty(self):
        return self.terminal


@pytest.mark.parametrize("fmt, stdout_tty, stderr_tty, planned", [
    ("auto", False, True, ("plain", False)),
    ("auto", True, True, ("table", True)),
    ("auto", True, False, ("table", False)),
    ("table", False, True, ("table", True)),
    ("json", True, True, ("json", False)),
])
def test_output_plan_resolves_the_format_and_progress_at_once(monkeypatch, fmt, stdout_tty,
                                                              stderr_tty, planned):
    from tape.cli import output
    from tape.cli.options import Format

    monkeypatch.setattr(sys, "stdout", _Stream(stdout_tty))
    monkeypatch.setattr(sys, "stderr", _Stream(stderr_tty))
    fmt, progress = output.plan(Format(fmt))
    assert (fmt.value, progress) == planned


def test_points_decoded_reports_text_that_is_not_utf8(tmp_path):
    import io

    from tape.cli import points as P

    stdin = io.TextIOWrapper(io.BytesIO(b"1\n\xff\n"), encoding="utf-8")
    with pytest.raises(CLIError, match=r"^standard input: not UTF-8 text \(invalid start "
                                       r"byte at byte 2\)$") as info:
        list(P.decoded(P.stream_at(["-"], ["x"], stdin), "standard input"))
    assert info.value.code == 2
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"x\n1\n\xe9\n")
    with pytest.raises(CLIError, match=rf"^--points {path}: not UTF-8 text") as info:
        list(P.decoded(P.stream_csv(str(path), ["x"], None), f"--points {path}"))
    assert info.value.code == 2


def test_a_scalar_expression_is_lowered_once_with_its_shape_check():
    target = T.expression_target("sin(x)*y + 2")
    sizes = {"x": None, "y": None}
    assert target.output_shape(sizes, ["y", "x"]) is None
    three = target.batched(["y", "x"], sizes, 3)
    assert target.batched(["y", "x"], sizes, 5) is three       # every pass: the same function
    np.testing.assert_allclose(three(tape.constant(YS), tape.constant(XS)).numpy(),
                               np.sin(XS) * YS + 2)
    xs, ys = np.linspace(-1, 1, 5), np.linspace(2, 3, 5)
    np.testing.assert_allclose(three(tape.constant(ys), tape.constant(xs)).numpy(),
                               np.sin(xs) * ys + 2)
    other = target.batched(["x", "y"], sizes, 3)                # another order: lowered anew
    assert other is not three
    np.testing.assert_allclose(other(tape.constant(XS), tape.constant(YS)).numpy(),
                               np.sin(XS) * YS + 2)


def test_only_scalars_of_scalar_variables_are_lowered_ahead():
    from tape.expr import parse as E
    from tape.expr.lower import check_and_lower

    assert check_and_lower(E.parse("sum(w)*x"), {"w": 2, "x": None}, ["w", "x"]) == (None, None)
    assert check_and_lower(E.parse("2*w"), {"w": 3}, ["w"]) == (3, None)
    shape, fn = check_and_lower(E.parse("x^2"), {"x": None}, ["x"])
    assert shape is None
    np.testing.assert_allclose(fn(tape.constant(XS)).numpy(), XS ** 2)
    constant = T.expression_target("2*pi")                   # no variable: broadcast per count
    assert constant.output_shape({}, []) is None
    assert tuple(constant.batched([], {}, 4)().shape) == (4,)


@pytest.mark.parametrize("before", [b"", "é".encode()])
def test_the_byte_named_is_counted_from_the_start_of_the_input_past_the_first_read(tmp_path,
                                                                                  before):
    from tape.cli import points as P

    head = b"x\n" + b"1\n" * (P.READ_BYTES // 2 + 1000)     # the bad byte comes in a later read
    path = tmp_path / "late.csv"
    path.write_bytes(head + before + b"\xff\n")
    with pytest.raises(CLIError, match=rf"invalid start byte at byte {len(head) + len(before)}\)$"):
        list(P.decoded(P.stream_csv(str(path), ["x"], None), f"--points {path}"))
