"""``tape trace``: the recorded ops, values and adjoints; JSON, plain, table and DOT output."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
from typer.testing import CliRunner

from tape.cli.app import app

POLY = "2*x**3+4*x**2+5*x+6"


def run(*args):
    return CliRunner().invoke(app, list(args))


def trace_json(*args):
    result = run("trace", *args, "--format", "json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def poly(x):
    return 2 * x ** 3 + 4 * x ** 2 + 5 * x + 6


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


# --- the polynomial from the issue -------------------------------------------------------

def test_poly_adjoint_of_x_is_the_derivative():
    doc = trace_json(POLY, "--at", "0.5")
    assert doc["gradient"] == {"x": 10.5}
    assert doc["value"] == poly(0.5) == 9.75
    assert abs(doc["gradient"]["x"] - central(poly, 0.5)) < 1e-6
    x = doc["nodes"][0]
    assert (x["kind"], x["label"], x["value"], x["adjoint"]) == ("variable", "x", 0.5, 10.5)


def test_poly_lists_the_ops_in_execution_order():
    doc = trace_json(POLY, "--at", "0.5")
    nodes = doc["nodes"]
    ops = [n for n in nodes if n["kind"] == "op"]
    names = [n["op"] for n in ops]
    # x**3 is computed first and the last op adds the constant 6
    assert names[0] == "Pow" and names[-1].startswith("Add")
    assert {"Pow", "Mul"} <= set(names)
    assert sum(name.startswith("Add") for name in names) == 3  # three + signs
    assert doc["output"] == ops[-1]["id"] and ops[-1]["value"] == 9.75
    # ids are positions, inputs always come earlier, every input is a node
    assert [n["id"] for n in nodes] == list(range(len(nodes)))
    for n in nodes:
        assert all(i < n["id"] for i in n["inputs"])
        assert (n["kind"] == "op") == bool(n["inputs"])
    constants = sorted(n["value"] for n in nodes if n["kind"] == "constant")
    assert {2.0, 3.0, 4.0, 5.0, 6.0} <= set(constants)


def test_poly_intermediate_adjoints():
    nodes = trace_json(POLY, "--at", "0.5")["nodes"]
    cube = next(n for n in nodes if n["op"] == "Pow" and nodes[n["inputs"][1]]["value"] == 3.0)
    square = next(n for n in nodes
                  if n["op"] == "Pow" and nodes[n["inputs"][1]]["value"] == 2.0)
    assert cube["value"] == 0.125 and cube["adjoint"] == 2.0     # d f / d(x^3) = 2
    assert square["value"] == 0.25 and square["adjoint"] == 4.0  # d f / d(x^2) = 4
    for n in nodes:
        if n["kind"] == "op" and n["op"].startswith("Add"):
            assert n["adjoint"] == 1.0
        if n["kind"] == "constant":
            assert n["adjoint"] is None  # constants are not watched


@pytest.mark.parametrize("expr, at, f", [
    ("sin(x)*exp(-x^2)", 0.7, lambda x: __import__("math").sin(x) * __import__("math").exp(-x * x)),
    ("log(1+x^2)/x", 1.3, lambda x: __import__("math").log(1 + x * x) / x),
])
def test_adjoint_matches_finite_differences(expr, at, f):
    doc = trace_json(expr, "--at", str(at))
    assert abs(doc["gradient"]["x"] - central(f, at)) < 1e-6


def test_two_variables_and_shared_input():
    doc = trace_json("x*y + x", "--at", "x=2,y=3")
    assert doc["variables"] == ["x", "y"]
    assert doc["gradient"] == {"x": 4.0, "y": 2.0}
    x = doc["nodes"][0]
    users = [n for n in doc["nodes"] if x["id"] in n["inputs"]]
    assert len(users) == 2  # x feeds both the product and the sum


def test_vector_variable_shows_arrays():
    doc = trace_json("dot(x,x) + x[0]", "--at", "x=[1,2,3]")
    assert doc["gradient"] == {"x": [3.0, 4.0, 6.0]}
    x = doc["nodes"][0]
    assert x["shape"] == [3] and x["value"] == [1.0, 2.0, 3.0]
    assert doc["nodes"][doc["output"]]["shape"] == []


# --- formats --------------------------------------------------------------------------------

def test_plain_layout():
    result = run("trace", POLY, "--at", "0.5", "--format", "plain")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    rows = [line.split(" ") for line in lines]
    assert all(len(r) == 6 for r in rows)
    assert rows[0] == ["0", "variable", "x", "-", "0.5", "10.5"]
    assert [r[0] for r in rows] == [str(i) for i in range(len(rows))]
    assert sum(r[1] == "output" for r in rows) == 1 and rows[-1][1] == "output"
    assert rows[-1][4] == "9.75" and rows[-1][5] == "1.0"
    for r in rows:
        if r[1] == "constant":
            assert r[3] == "-" and r[5] == "-"


def test_plain_is_the_default_when_piped_and_arrays_have_no_spaces():
    result = run("trace", "x*x", "--at", "x=[1,2]")
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0] == "0 variable x - [1.0,2.0] [2.0,4.0]"


def test_csv():
    result = run("trace", "x^2", "--at", "3", "--format", "csv")
    lines = result.stdout.splitlines()
    assert lines[0] == "id,kind,label,inputs,value,adjoint"
    assert lines[1] == "0,variable,x,-,3.0,6.0"
    assert len(lines) == 4


def test_table_has_every_node_and_the_gradient():
    result = run("trace", POLY, "--at", "0.5", "--format", "table")
    assert result.exit_code == 0
    out = result.stdout
    for i in range(15):
        assert f"#{i} " in out
    assert "x (variable)" in out and "Pow" in out and "10.5" in out
    assert "∂f/∂x = 10.5" in out


def test_long_traces_are_cut_in_the_table_only(tmp_path, monkeypatch):
    from tape.cli import output

    monkeypatch.setattr(output, "MAX_TABLE_ROWS", 5)
    table = run("trace", POLY, "--at", "0.5", "--format", "table").stdout
    assert "#3 " in table and "#5 " not in table and "#14 " in table  # the output stays
    assert "10 more nodes not shown" in table and "⋮" in table
    assert len(run("trace", POLY, "--at", "0.5", "--format", "plain").stdout.splitlines()) == 15


def test_json_structure():
    doc = trace_json(POLY, "--at", "0.5")
    assert list(doc) == ["expression", "read_as", "variables", "at", "value", "gradient",
                         "output", "nodes"]
    assert doc["expression"] == POLY and doc["read_as"] == "2*x**3 + 4*x**2 + 5*x + 6"
    assert doc["at"] == {"x": 0.5}
    for n in doc["nodes"]:
        assert set(n) == {"id", "kind", "label", "op", "inputs", "shape", "value", "adjoint",
                          "attrs"}
        assert n["kind"] in {"variable", "constant", "op"}


# --- DOT ------------------------------------------------------------------------------------

NODE = re.compile(r'^  n(\d+) \[(.*)\];$')
EDGE = re.compile(r'^  n(\d+) -> n(\d+)(?: \[(.*)\])?;$')
ATTR = re.compile(r'\s*(\w+)=("(?:[^"\\]|\\.)*"|[\w.]+)\s*(?:,|$)')


def parse_attrs(text):
    """DOT ``a=1, b="x, y"`` -> dict; fails on anything malformed."""
    attrs, pos = {}, 0
    while pos < len(text):
        m = ATTR.match(text, pos)
        assert m, f"bad attribute list at {text[pos:]!r}"
        value = m.group(2)
        attrs[m.group(1)] = value[1:-1] if value.startswith('"') else value
        pos = m.end()
    return attrs


def parse_dot(text):
    lines = text.rstrip("\n").splitlines()
    assert lines[0] == "digraph tape {" and lines[-1] == "}"
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := NODE.match(line):
            nodes[int(m.group(1))] = parse_attrs(m.group(2))
        elif m := EDGE.match(line):
            edges.append((int(m.group(1)), int(m.group(2))))
            parse_attrs(m.group(3) or "")
        else:
            assert re.match(r'^  (\w+=.*|node \[.*\]);$', line), line
    return nodes, edges


def test_dot_file_parses_and_matches_the_trace(tmp_path):
    path = tmp_path / "poly.dot"
    result = run("trace", POLY, "--at", "0.5", "--dot", str(path), "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    nodes, edges = parse_dot(path.read_text())
    assert sorted(nodes) == [n["id"] for n in doc["nodes"]]
    for a, b in edges:
        assert a in nodes and b in nodes  # every edge endpoint is declared
    expected = sorted((i, n["id"]) for n in doc["nodes"] for i in n["inputs"])
    assert sorted(edges) == expected
    x = nodes[0]
    assert x["shape"] == "ellipse" and "adjoint 10.5" in x["label"] and "value 0.5" in x["label"]
    out = nodes[doc["output"]]
    assert out.get("peripheries") == "2" and "value 9.75" in out["label"]
    assert {nodes[n["id"]]["shape"] for n in doc["nodes"] if n["kind"] == "op"} == {"box"}


def test_dot_to_stdout_prints_only_the_graph():
    result = run("trace", "sin(x)", "--at", "1", "--dot", "-")
    assert result.exit_code == 0
    nodes, edges = parse_dot(result.stdout)
    assert len(nodes) == 2 and edges == [(0, 1)]


def test_dot_unwritable_path_is_exit_2(tmp_path):
    result = run("trace", "x", "--at", "1", "--dot", str(tmp_path / "no" / "t.dot"))
    assert result.exit_code == 2 and result.stderr.startswith("error: --dot")


# --- scripts --------------------------------------------------------------------------------

def write(tmp_path, name, body):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


def test_script_target(tmp_path):
    path = write(tmp_path, "model.py", """
        import numpy as np
        import tape

        def loss(x, w):
            h = tape.tanh(x * w)
            unused = tape.sin(x)
            return np.sum(h ** 2)
    """)
    doc = trace_json(path, "--at", "x=0.5,w=[1,2]")
    assert doc["variables"] == ["x", "w"]
    import math

    def f(x, w=(1.0, 2.0)):
        return sum(math.tanh(x * wi) ** 2 for wi in w)

    assert abs(doc["gradient"]["x"] - central(f, 0.5)) < 1e-6
    assert len(doc["gradient"]["w"]) == 2
    sin = next(n for n in doc["nodes"] if n["op"] == "Sin")
    assert sin["adjoint"] is None  # the result does not depend on it
    assert doc["nodes"][doc["output"]]["op"] == "Sum"


def test_script_with_vector_output_warns_about_the_sum(tmp_path):
    path = write(tmp_path, "pair.py", """
        def pair(x):
            return [x * x, x + 1.0]
    """)
    result = run("trace", path, "--at", "2", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["gradient"] == {"x": 5.0}  # d/dx (x^2 + x + 1) at 2
    assert "sum of its elements" in result.stderr
    assert any("sum of its elements" in w for w in doc["warnings"])


def test_script_that_raises_is_exit_2_without_traceback(tmp_path):
    path = write(tmp_path, "bad.py", """
        def f(x):
            return x / 0 + undefined_name
    """)
    result = run("trace", path, "--at", "1")
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and "NameError" in result.stderr
    assert "Traceback" not in result.stderr


# --- errors and edge cases ------------------------------------------------------------------

@pytest.mark.parametrize("args, fragment", [
    (["x+y"], "--at"),
    (["x", "--at", "y=1"], "'y'"),
    (["x", "--at", "1,2"], "2 values"),
    (["x+*", "--at", "1"], "column"),
    (["x", "--at", "-"], "one point"),
])
def test_bad_input_is_exit_2(args, fragment):
    result = run("trace", *args)
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and fragment in result.stderr
    assert result.stdout == ""


def test_constant_expression_needs_no_point():
    doc = trace_json("2*pi")
    assert doc["variables"] == [] and abs(doc["value"] - 6.283185307179586) < 1e-15


def test_non_finite_values_warn_and_are_strings_in_json():
    result = run("trace", "log(x)", "--at", "0", "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["value"] == "-inf" and doc["gradient"]["x"] == "inf"
    assert result.stderr.startswith("warning:") and doc["warnings"]
