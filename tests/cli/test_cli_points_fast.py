"""The fast (NumPy) CSV path of ``--points`` must give exactly what the careful csv path gives:
the same arrays for every file it accepts, and it must step aside (so that the careful path
reports the same error) for every file it does not."""
from __future__ import annotations

import io

import numpy as np
import pytest

from tape.cli import points as P
from tape.expr.errors import CLIError

CELLS = ["1", " 1.5 ", "1_000", "1e5", "1E5", "+1", "-0", "-0.0", "inf", "-inf", "+inf",
         "Infinity", "INF", "nan", "NaN", "-nan", "1.", ".5", "1e", "e5", "0x10", "1d3", "",
         " ", "pi", "1/2", "1e500", "1e-400", "\t2\t", "١", "²", "1\u00a0", "\u20071", "1j",
         "(1)", "[1]", "'1'", "#1", "1#", "0.1e+1", "00012", "1.5.5", "infinity", "in f",
         "--1", "1e+", "True", "1 2", "+-1", "nan(1)", "1e1_0", "0." + "1" * 300,
         "4.9406564584124654e-324", "2.4703282292062328e-324", "1.7976931348623158e+308",
         "9007199254740993", "0.30000000000000004441", "\u200b1", "１", "1\u3000"]

FILES = [
    "x\n1\n2\n",
    "x\n1\n2",                          # no final newline
    "x\r\n1\r\n2\r\n",                  # Windows line ends
    "x\r1\r2\r",                        # old Mac line ends
    " x , y \n1,2\n3,4\n",              # spaces around names
    "note,y,x\nfirst,2,1\nsecond,4,3\n",  # extra text column
    "x,y\n1,2,3\n4,5,6\n",              # rows longer than the header
    "x,y\n1\n2\n",                      # rows shorter than the header
    "x,y\n1,2\n3\n",                    # ragged
    "x\n1\n\n2\n",                      # blank line
    "x\n1\n2\n\n\n",                    # trailing blank lines
    "\nx\n1\n",                         # blank line before the header
    "x,y\n1,2\n,\n3,4\n",               # a row of empty cells
    "x\n",                              # header only
    "",                                 # empty
    "y\n1\n",                           # no column for x
    '"x"\n1\n',                         # quoted header
    'x\n"1"\n',                         # quoted cell
    'x,y\n"1,5",2\n',                   # quoted comma
    "\ufeffx\n1\n",                     # byte order mark
    "x,x\n1,2\n",                       # duplicate column: the first one counts
    "x\n1\n#2\n",                       # not a comment
    "x\n[1,2]\n",                       # a vector cell
    "x;y\n1;2\n",                       # not comma separated
]


def careful(text: str, names: list[str], monkeypatch):
    """What from_csv gives without the fast path: ("ok", arrays) or ("error", message)."""
    with monkeypatch.context() as m:
        m.setattr(P, "_numeric_csv", lambda text, names: None)
        return outcome(text, names)


def outcome(text: str, names: list[str]):
    try:
        pts = P.from_csv("-", names, io.StringIO(text))
    except CLIError as exc:
        return "error", exc.message
    return "ok", (pts.count, {n: pts.arrays[n] for n in names})


def assert_same(got, want):
    assert got[0] == want[0], (got, want)
    if got[0] == "error":
        assert got[1] == want[1]
        return
    assert got[1][0] == want[1][0]
    for name, a in want[1][1].items():
        b = got[1][1][name]
        assert a.shape == b.shape and a.dtype == b.dtype
        assert np.array_equal(a, b, equal_nan=True)
        assert np.array_equal(np.signbit(a), np.signbit(b))   # -0.0 stays -0.0


@pytest.mark.parametrize("cell", CELLS)
def test_every_cell_reads_as_the_careful_path_reads_it(cell, monkeypatch):
    text = f"x\n0\n{cell}\n2\n"
    assert_same(outcome(text, ["x"]), careful(text, ["x"], monkeypatch))


@pytest.mark.parametrize("text", FILES)
@pytest.mark.parametrize("names", [["x"], ["x", "y"], ["y", "x"]])
def test_every_file_shape_reads_as_the_careful_path_reads_it(text, names, monkeypatch):
    assert_same(outcome(text, names), careful(text, names, monkeypatch))


def test_plain_numeric_files_take_the_fast_path():
    pts = P._numeric_csv("a,x,y\n1,2,3\n4,5,6\n", ["y", "x"])
    assert pts is not None and pts.count == 2 and pts.names == ["y", "x"]
    assert pts.arrays["y"].tolist() == [3.0, 6.0] and pts.arrays["x"].tolist() == [2.0, 5.0]
    assert pts.arrays["x"].flags.c_contiguous


@pytest.mark.parametrize("text", ["x\n1\n\n2\n", 'x\n"1"\n', "x\npi\n", "x\n"])
def test_unusual_files_leave_the_fast_path(text):
    assert P._numeric_csv(text, ["x"]) is None


def test_many_random_rows_round_trip(tmp_path):
    xs = np.random.default_rng(3).uniform(-1e3, 1e3, (5000, 2))
    xs[::7] = np.random.default_rng(4).standard_normal((len(xs[::7]), 2)) * 1e-300
    path = tmp_path / "p.csv"
    path.write_text("x,y\n" + "\n".join(f"{a!r},{b!r}" for a, b in xs.tolist()) + "\n")
    pts = P.from_csv(str(path), ["x", "y"], io.StringIO())
    assert pts.arrays["x"].tolist() == xs[:, 0].tolist()
    assert pts.arrays["y"].tolist() == xs[:, 1].tolist()


def test_a_file_that_is_not_utf8_fails_as_before(tmp_path):
    path = tmp_path / "p.csv"
    path.write_bytes(b"x\n1\n\xff\n")
    with pytest.raises(UnicodeDecodeError) as info:
        P.from_csv(str(path), ["x"], io.StringIO())
    assert "position 4" in str(info.value)
