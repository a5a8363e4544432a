"""``--format json`` streams the points a block at a time and prints exactly the text the
whole-document ``json.dumps`` printed (json_reference.py keeps that construction)."""
from __future__ import annotations

import io
import json
import math
import sys

import numpy as np
import pytest

import json_reference as REF
from cli_helpers import tape_cli
from tape.calculus import derivatives
from tape.cli import jsonstream, output
from tape.cli.jsonstream import Column, Document


def first_difference(got: str, want: str) -> str:
    i = next((k for k, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    where = slice(max(i - 80, 0), i + 80)
    return f"at char {i} of {len(got)}/{len(want)}: {got[where]!r} vs {want[where]!r}"


def assert_same(got: str, want: str) -> None:
    assert got == want, first_difference(got, want)   # not a 5 MB pytest diff


def run_json(command, targets, at=None, points=None, wrt=None, order=1, check=False,
             stdin=None):
    args = [command, *targets, "--format", "json"]
    for a in at or []:
        args += ["--at", a]
    if points:
        args += ["--points", points]
    if wrt:
        args += ["--wrt", wrt]
    if order != 1:
        args += ["--order", str(order)]
    if check:
        args.append("--check")
    result = tape_cli(*args, input=stdin)
    assert result.exit_code == 0, result.stderr
    want = REF.text(command, targets, at, points, wrt, order, check, stdin)
    assert_same(result.stdout, want)
    assert json.loads(result.stdout) == json.loads(want)
    return result.stdout


# --------------------------------------------------------------------------- exact text

def test_the_spec_example_exactly():
    result = tape_cli("grad", "x**2*y", "--at", "x=1,y=2", "--format", "json")
    assert result.stdout == (
        '{"expression": "x**2*y", "read_as": "x**2*y", "variables": ["x", "y"], '
        '"wrt": ["x", "y"], "order": 1, '
        '"points": [{"at": {"x": 1.0, "y": 2.0}, "value": 2.0, '
        '"gradient": {"x": 4.0, "y": 1.0}}]}\n')


def test_non_finite_values_are_strings_and_warned_exactly():
    result = tape_cli("grad", "log(x)+1/x", "--at", "0", "--at", "-1", "--at", "2", "-f", "json")
    assert result.stdout == (
        '{"expression": "log(x)+1/x", "read_as": "log(x) + 1/x", "variables": ["x"], '
        '"wrt": ["x"], "order": 1, '
        '"points": [{"at": {"x": 0.0}, "value": "nan", "gradient": {"x": "nan"}}, '
        '{"at": {"x": -1.0}, "value": "nan", "gradient": {"x": -2.0}}, '
        '{"at": {"x": 2.0}, "value": 1.1931471805599454, "gradient": {"x": 0.25}}], '
        '"warnings": ["non-finite result (inf or nan) at 2 points, first at x=0.0"]}\n')


def test_jacobian_text_keeps_unicode_signed_zero_and_subnormals():
    result = tape_cli("jacobian", "[x·y, 1/x]", "--at", "x=0,y=2", "--at", "x=-0.0,y=1e-320",
                      "-f", "json")
    assert result.stdout == (
        '{"expression": ["x·y", "1/x"], "read_as": ["x*y", "1/x"], "variables": ["x", "y"], '
        '"wrt": ["x", "y"], '
        '"points": [{"at": {"x": 0.0, "y": 2.0}, "value": [0.0, "inf"], '
        '"jacobian": [[2.0, 0.0], ["-inf", 0.0]]}, {"at": {"x": -0.0, "y": 1e-320}, '
        '"value": [-0.0, "-inf"], "jacobian": [[1e-320, 0.0], ["-inf", 0.0]]}], '
        '"warnings": ["non-finite result (inf or nan) at 2 points, first at x=0.0, y=2.0"]}\n')


def test_check_text_exactly():
    result = tape_cli("grad", "x*y", "--at", "1,2", "--at", "0,0", "--check", "-f", "json")
    assert result.stdout == (
        '{"expression": "x*y", "read_as": "x*y", "variables": ["x", "y"], "wrt": ["x", "y"], '
        '"order": 1, '
        '"points": [{"at": {"x": 1.0, "y": 2.0}, "value": 2.0, "gradient": {"x": 2.0, "y": 1.0}, '
        '"check": {"method": "sympy", "expected": {"x": 2.0, "y": 1.0}, "max_abs_error": 0.0, '
        '"agree": true}}, {"at": {"x": 0.0, "y": 0.0}, "value": 0.0, '
        '"gradient": {"x": 0.0, "y": 0.0}, "check": {"method": "sympy", '
        '"expected": {"x": 0.0, "y": 0.0}, "max_abs_error": 0.0, "agree": true}}], '
        '"symbolic": {"x": "y", "y": "x"}}\n')


def test_vector_hessian_text_exactly():
    result = tape_cli("hessian", "x^2*w[1]", "--at", "w=[1,2],x=3", "-f", "json")
    assert result.stdout == (
        '{"expression": "x^2*w[1]", "read_as": "x**2*w[1]", "variables": ["w", "x"], '
        '"wrt": ["w", "x"], '
        '"points": [{"at": {"w": [1.0, 2.0], "x": 3.0}, "value": 18.0, '
        '"hessian": [[0.0, 0.0, 0.0], [0.0, 0.0, 6.0], [0.0, 6.0, 4.0]]}]}\n')


# --------------------------------------------------------------------------- same as before

SMALL = [
    ("grad", ["x**2*y"], ["x=1,y=2", "x=-0.5,y=3e-300"], None, 1),
    ("grad", ["log(x)+1/x+y"], ["0,1", "-1,2", "2,-0.0"], None, 1),
    ("grad", ["x**2*y"], ["1,2", "3,4"], "y", 1),
    ("grad", ["sum(w^2)*y"], ["w=[1,2],y=2", "w=[0,-3],y=0.5"], None, 1),
    ("grad", ["sum(w^2)*y"], ["w=[1,2],y=2", "w=[0,-3],y=0.5"], "y,w", 2),
    ("grad", ["sin(x)/x"], ["0", "0.5", "1e10"], None, 3),
    ("grad", ["x^3*y+1/y"], ["1,0", "2,3"], None, 2),
    ("grad", ["2+3"], None, None, 1),
    ("grad", ["2+3"], None, None, 2),
    ("hessian", ["x^2*y+y^3"], ["1,2", "0,0", "-1,0.25"], None, 1),
    ("hessian", ["log(x)*w[0]*w[1]"], ["w=[1,2],x=0", "w=[3,4],x=2"], "x,w", 1),
    ("jacobian", ["[x*y, x+y, 1/x]"], ["1,2", "0,3"], None, 1),
    ("jacobian", ["x*y"], ["1,2"], None, 1),
    ("jacobian", ["x*y", "sqrt(x)", "sum(w)"], ["w=[1,-1],x=-1,y=2", "w=[0,0],x=4,y=1"], "y,w",
     1),
]


@pytest.mark.parametrize("command, targets, at, wrt, order", SMALL)
def test_small_documents_are_unchanged(command, targets, at, wrt, order):
    run_json(command, targets, at=at, wrt=wrt, order=order)


def test_points_from_standard_input_are_unchanged():
    run_json("grad", ["x*exp(y)"], at=["-"], stdin="1 2\n0 -1\n# comment\n3,4\n")


@pytest.mark.parametrize("command, targets, at", [
    ("grad", ["x*y + 1/x"], ["1,2", "0,3"]),
    ("hessian", ["x^2*y"], ["1,2", "3,-4"]),
    ("jacobian", ["[x*y, x/y]"], ["1,2", "3,0"]),
])
def test_checked_documents_are_unchanged(command, targets, at):
    run_json(command, targets, at=at, check=True)


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    """65,537 points: one past a whole evaluation chunk, with zeros for inf/nan results."""
    n = derivatives.CHUNK + 1
    assert n == 65_537
    data = np.random.default_rng(3).uniform(-2, 2, size=(n, 2))
    data[::997, 0] = 0.0
    data[-1] = [0.0, -0.0]
    path = tmp_path_factory.mktemp("json") / "points.csv"
    with open(path, "w") as f:
        f.write("x,y\n")
        np.savetxt(f, data, delimiter=",", fmt="%.17g")
    return str(path)


@pytest.mark.parametrize("command, targets, order, check", [
    ("grad", ["x^2*sin(y)+1/x"], 1, False),
    ("grad", ["x^3*y+log(x)"], 2, False),
    ("hessian", ["x^3*y+sqrt(x)"], 1, False),
    ("jacobian", ["[x*y, sqrt(x), x/y]"], 1, False),
    ("grad", ["x*y+y^2"], 1, True),
])
def test_many_points_across_chunks_are_unchanged(big_csv, command, targets, order, check):
    text = run_json(command, targets, points=big_csv, order=order, check=check)
    doc = json.loads(text)
    assert len(doc["points"]) == 65_537
    assert doc["points"][-1]["at"] == {"x": 0.0, "y": -0.0}
    assert math.copysign(1, doc["points"][-1]["at"]["y"]) == -1


# --------------------------------------------------------------------------- the writer itself

SPECIALS = [np.inf, -np.inf, np.nan, -0.0, 0.0, 1e16, 1e-5, 123456789.0, 5e-324, 0.1, -2.5e-310]


def whole(doc: Document) -> dict:
    """The document as the dicts it stands for (Columns filled in, non-finite -> "inf",
    "-inf", "nan")."""
    def fill(obj, i):
        if isinstance(obj, Column):
            v = obj.values[i].item()
            return repr(v) if isinstance(v, float) and not math.isfinite(v) else v
        if isinstance(obj, dict):
            return {k: fill(v, i) for k, v in obj.items()}
        if isinstance(obj, list):
            return [fill(v, i) for v in obj]
        return obj

    return REF._finite_only({**doc.head, "points": [fill(doc.entry, i) for i in range(doc.count)],
                             **doc.tail})


def written(doc: Document, cells: int) -> str:
    out = io.StringIO()
    jsonstream.write(doc, out, cells=cells)
    return out.getvalue()


def sample(n: int) -> Document:
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, 4)) * 10.0 ** rng.integers(-320, 300, (n, 4))
    a.flat[:min(a.size, len(SPECIALS))] = SPECIALS[:a.size]
    entry = {"at": {"x": Column(a[:, 0]), "w": [Column(a[:, 1]), Column(a[:, 2])]},
             "value": Column(a[:, 3]), "100%": "%s %d %%", "é\"\\": [[], {}, None, True, 3],
             "ok": Column(a[:, 3] > 0)}
    return Document({"expression": "x·w %s", "order": 1, "range": [math.inf, 0.5]}, entry, n,
                    {"warnings": ["50% \n done"]})


@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
@pytest.mark.parametrize("cells", [1, 5, 6, 7, 64, jsonstream.BLOCK_CELLS])
def test_writer_is_json_dumps_of_the_whole_document(n, cells):
    doc = sample(n)
    want = json.dumps(whole(doc), ensure_ascii=False, allow_nan=False) + "\n"
    assert_same(written(doc, cells), want)


def test_entry_without_columns_and_empty_parts():
    doc = Document({}, {"at": {}}, 3)
    assert written(doc, 2) == '{"points": [{"at": {}}, {"at": {}}, {"at": {}}]}\n'
    assert written(Document({}, {}, 0), 2) == '{"points": []}\n'


def test_json_output_memory_does_not_grow_with_the_points(tmp_path):
    """tracemalloc peak while writing 100,000 vs 200,000 points (the old whole document grew
    by hundreds of bytes per point; streamed, only by the block)."""
    import tracemalloc

    def peak_for(n):
        rng = np.random.default_rng(1)
        at, value, grad = (rng.normal(size=(n, 1)) for _ in range(3))
        doc = Document({"expression": "f", "variables": ["x"]},
                       {"at": {"x": Column(at[:, 0])}, "value": Column(value[:, 0]),
                        "gradient": {"x": Column(grad[:, 0])}}, n)
        report = output.Report(title="t", at_labels=["x"], at=at, value_labels=["value"],
                               value=value, derivative_labels=["df/dx"], table_labels=["df/dx"],
                               derivatives=grad, document=lambda: doc)
        out = tmp_path / f"out{n}.json"
        with open(out, "w") as handle:   # a file, not a capture buffer (that would be traced)
            saved, sys.stdout = sys.stdout, handle
            tracemalloc.start()
            try:
                output.render(report, output.Format.json)
                peak = tracemalloc.get_traced_memory()[1] / 2**20
            finally:
                tracemalloc.stop()
                sys.stdout = saved
        assert len(json.loads(out.read_text())["points"]) == n
        return peak

    small, large = peak_for(100_000), peak_for(200_000)
    assert large - small < 4, f"{small:.1f} MB -> {large:.1f} MB traced"
