"""What keeps ``tape`` quick to start: commands load their modules only when they run, and the value classes that replaced dataclasses on the start-up path behave as the
dataclasses did."""
from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from dataclasses import FrozenInstanceError

import pytest

from cli_helpers import ROOT, tape_cli
from tape.cli import app as A
from tape.expr import tree as T
from tape.calculus.derivatives import Component
from tape.grading.crosscheck import CheckSettings, Layout
from tape.calculus.derivatives import Outcome
from tape.calculus.derivatives import Points
from tape.expr.record import Frozen, Record
from tape.calculus.targets import Target

EVERY_COMMAND = ["grad", "jacobian", "hessian", "diff", "check", "check-work", "grade",
                 "tangent", "taylor", "trace", "plot"]


def modules_of(code: str) -> set[str]:
    """The modules loaded by a fresh interpreter that ran ``code``."""
    done = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                           "print(' '.join(sorted(sys.modules)))"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    return set(done.stdout.split())


def modules_after(*args: str) -> set[str]:
    """The modules loaded by a fresh interpreter that ran ``tape ARGS``."""
    code = ("import sys\n"
            f"sys.argv = ['tape'] + {list(args)!r}\n"
            "from tape.cli.app import main\n"
            "try:\n"
            "    main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "sys.stdout.flush()\n"
            "sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    line = [l for l in done.stderr.splitlines() if l.startswith("MODULES ")]
    assert line, done.stderr
    return set(line[-1].split()[1:])


def test_grad_loads_only_what_grad_needs():
    loaded = modules_after("grad", "2*x**3+4*x**2", "--at", "0.5")
    assert "tape.cli.commands.grad" in loaded
    for other in EVERY_COMMAND[1:]:
        assert f"tape.cli.commands.{other}" not in loaded
    unwanted = {"tape.grading.crosscheck", "tape.expr.symbolic", "tape.calculus.tracing",
                "tape.calculus.plotting", "tape.grading.homework", "sympy", "rich", "matplotlib",
                "plotext", "json", "csv", "dataclasses", "pydantic"}
    # what ``import numpy, typer`` loads itself (Typer 0.29 imports dataclasses) is not tape's
    loaded -= modules_of("import numpy, typer")
    assert not unwanted & {m.split(".")[0] if m.split(".")[0] != "tape" else m for m in loaded}


def test_command_names_are_known_without_loading_them():
    commands = A.LazyCommands()
    assert list(commands) == EVERY_COMMAND and len(commands) == len(EVERY_COMMAND)
    assert "grad" in commands and "frob" not in commands
    with pytest.raises(KeyError):
        commands["frob"]
    assert commands.get("frob") is None
    assert commands["trace"] is commands["trace"]          # built once
    assert commands["trace"].name == "trace"


def test_help_lists_every_command_with_its_help():
    result = tape_cli("--help")
    assert result.exit_code == 0
    for name in EVERY_COMMAND:
        assert name in result.stdout
    assert "Value and gradient of TARGET" in result.stdout
    assert "Plot EXPR and its first N derivatives" in result.stdout


@pytest.mark.parametrize("name", EVERY_COMMAND)
def test_each_command_has_its_own_help(name):
    result = tape_cli(name, "--help")
    assert result.exit_code == 0 and "Usage: tape " + name in " ".join(result.stdout.split())


def test_a_mistyped_command_is_still_suggested():
    result = tape_cli("grd", "x")
    assert result.exit_code == 2
    assert "No such command 'grd'. Did you mean 'grad', 'grade'?" in result.stderr


def test_commands_still_run_after_one_another_in_one_process():
    assert json.loads(tape_cli("grad", "x^2", "--at", "3", "-f", "json").stdout)[
        "points"][0]["gradient"] == {"x": 6.0}
    assert tape_cli("hessian", "x*y", "--at", "1,2", "-f", "plain").exit_code == 0


# ---------------------------------------------------------------- value classes (record.py)

def test_tree_nodes_compare_and_hash_without_their_span():
    a = T.Binary("+", T.Number(1.0, (0, 1)), T.Variable("x", (2, 3)), (0, 3))
    b = T.Binary("+", T.Number(1.0), T.Variable("x"))
    assert a == b and hash(a) == hash(b) and a.span == (0, 3) and b.span == (0, 0)
    assert a != T.Binary("-", T.Number(1.0), T.Variable("x"))
    assert T.Number(1.0) != T.Constant("pi") and T.Variable("x") != T.Constant("x")
    assert (T.Number(1.0) == 1.0) is False
    assert repr(a) == "Binary(op='+', left=Number(value=1.0), right=Variable(name='x'))"
    assert repr(T.Call("sin", (T.Index(T.Variable("w"), 1),))) == \
        "Call(name='sin', args=(Index(operand=Variable(name='w'), index=1),))"
    assert T.Unary(op="-", operand=T.Number(2.0), span=(1, 2)).operand == T.Number(2.0)


def test_tree_nodes_are_frozen_and_pickle():
    node = T.Binary("*", T.Number(2.0), T.Variable("x"), (0, 3))
    with pytest.raises(FrozenInstanceError):
        node.op = "+"
    with pytest.raises(FrozenInstanceError):
        del node.left
    for twin in (pickle.loads(pickle.dumps(node)), copy.deepcopy(node), copy.copy(node)):
        assert twin == node and twin.span == (0, 3)


def test_records_compare_by_fields_and_are_unhashable():
    assert Points(["x"], {}, 1) == Points(["x"], {}, 1) != Points(["y"], {}, 1)
    assert Layout("gradient", [], []) == Layout("gradient", [], [], 1)
    assert Layout("gradient", [], []).outputs == 1
    with pytest.raises(TypeError):
        hash(Points(["x"], {}, 1))
    assert repr(Points(["x"], {}, 0)) == "Points(names=['x'], arrays={}, count=0)"
    assert issubclass(Points, Record) and not issubclass(Points, Frozen)


def test_record_defaults_are_fresh_per_instance():
    a, b = Outcome(1.0), Outcome(2.0)
    a.partials["k"] = 1
    a.warnings.append("w")
    assert b.partials == {} and b.warnings == [] and b.jacobian is None
    t = Target("x", "expression", ["x"])
    t.trees.append(1)
    assert Target("x", "expression", ["x"]).trees == []
    assert "_shapes" not in repr(t) and repr(t).startswith("Target(source='x', kind='expression'")


def test_frozen_records_hash_and_refuse_assignment():
    c = Component("w", 0, 1)
    assert c == Component("w", 0, 1) and hash(c) == hash(Component("w", 0, 1))
    assert {c: 1}[Component("w", 0, 1)] == 1 and c.label == "w[1]"
    assert repr(c) == "Component(name='w', var=0, index=1)"
    with pytest.raises(FrozenInstanceError):
        c.index = 2
    s = CheckSettings(True, rtol=1e-3)
    assert (s.enabled, s.rtol, s.atol) == (True, 1e-3, CheckSettings().atol)
    assert CheckSettings().enabled is False


def test_grad_check_still_loads_the_checker():
    loaded = modules_after("grad", "x^2", "--at", "3", "--check", "--format", "plain")
    assert "tape.grading.crosscheck" in loaded
