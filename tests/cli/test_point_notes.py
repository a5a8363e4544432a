"""A point value read one of two plausible ways says which (as a target does), and a script with
more than one value per point is refused naming how many it returns."""
import math
import textwrap

from tests.cli.cli_helpers import numbers, tape_process

NOTE = "read sin pi/2 as sin(pi)/2"


def test_a_point_value_read_with_a_note_says_so():
    done = tape_process("grad", "x^2", "--at", "x=sin pi/2", "--format", "plain")
    assert done.returncode == 0
    assert numbers(done.stdout)[0][0] == 2 * (math.sin(math.pi) / 2)     # d/dx x^2 = 2x
    assert f"note: --at x: {NOTE}" in done.stderr, done.stderr


def test_a_stream_of_such_values_notes_it_once():
    done = tape_process("grad", "x^2", "--at", "-", "--format", "plain",
                        input="sin pi/2\n" * 50 + "(sin pi)/2\n")
    assert done.returncode == 0 and len(done.stdout.split()) == 51
    assert done.stderr.count(NOTE) == 1, done.stderr


def test_no_note_for_a_value_read_one_way():
    done = tape_process("grad", "x^2", "--at", "x=sin(pi/2)")
    assert done.returncode == 0 and "note:" not in done.stderr
    assert numbers(done.stdout)[0][0] == 2.0


def test_a_matrix_valued_script_is_refused_with_its_count(tmp_path):
    script = tmp_path / "matrix.py"
    script.write_text(textwrap.dedent("""
        import tape
        def f(x):
            return tape.stack([tape.stack([x, 2 * x, 3 * x]), tape.stack([x, x, x])])
    """))
    done = tape_process("grad", str(script), "--at", "x=1")
    assert done.returncode == 2
    assert "returns 6 values per point (use tape jacobian)" in done.stderr, done.stderr
