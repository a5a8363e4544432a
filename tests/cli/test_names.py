"""Variable names: one normal form wherever a name enters, and no look-alikes from other scripts.

A Latin ``x`` and a Cyrillic ``х`` used to become two variables without a word; a fullwidth
``ｘ`` was folded in the expression but not in ``--at``. Names now pass ``names.normalize`` at
every entry (expression, ``--at``, ``--wrt``, ``--dependent``, a ``--points`` header) and
``names.check_look_alikes`` refuses mixed look-alikes (exit 2) naming both spellings.
"""
from __future__ import annotations

import json
import unicodedata

import pytest

from cli_helpers import tape_cli

from tape.expr.errors import CLIError
from tape.expr.parse import LOOK_ALIKES, check_look_alikes, normalize


# ------------------------------------------------------------------ the functions

def test_normalize_is_nfkc_and_strips():
    assert normalize(" ｘ ") == "x"
    assert normalize("ﬁ") == "fi"            # a ligature, as Python reads identifiers
    assert normalize("θ") == "θ" and normalize("скорость") == "скорость"
    assert normalize("e\u0301") == "é"       # decomposed accent: one spelling


@pytest.mark.parametrize("look_alike, latin", sorted(LOOK_ALIKES.items()))
def test_every_look_alike_in_the_table_is_refused_beside_its_latin_letter(look_alike, latin):
    # the table's letters are not Latin and survive NFKC: normalising would not merge them
    assert not unicodedata.name(look_alike).startswith("LATIN")
    assert normalize(look_alike) == look_alike and latin.isascii()
    with pytest.raises(CLIError) as err:
        check_look_alikes([latin, look_alike])
    message = err.value.message
    assert unicodedata.name(look_alike) in message and unicodedata.name(latin) in message
    with pytest.raises(CLIError, match="mixes"):
        check_look_alikes([], f"{latin}{look_alike}")   # one word of two scripts
    with pytest.raises(CLIError, match="mixes"):
        check_look_alikes([f"k{look_alike}"])
    check_look_alikes([look_alike])             # alone, in its own script, it is a name


@pytest.mark.parametrize("names", [["x", "y"], ["θ", "x"], ["xθ"], ["скорость", "t"],
                                   ["α", "a"], ["ν", "v"], ["x1", "x_2"]])
def test_names_of_one_script_or_not_look_alike_pass(names):
    check_look_alikes(names, "+".join(names))


def test_greek_and_cyrillic_look_alikes_of_each_other_are_refused():
    with pytest.raises(CLIError, match="GREEK SMALL LETTER OMICRON.*CYRILLIC SMALL LETTER O"):
        check_look_alikes(["ο", "о"])


# ------------------------------------------------------------------ every place names enter

def refused(*args: str, input: str | None = None) -> str:
    result = tape_cli(*args, input=input)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: ")
    return first


LATIN_CYRILLIC = ("LATIN SMALL LETTER X", "CYRILLIC SMALL LETTER HA")


@pytest.mark.parametrize("args", [
    ("grad", "x^2 + х", "--at", "1,2"),                    # both in the expression
    ("grad", "х^2", "--at", "x=1"),                        # expression vs --at
    ("grad", "x^2", "--at", "х=1"),                        # --at vs expression
    ("grad", "x*y", "--wrt", "х", "--at", "1,2"),          # --wrt
    ("diff", "x*х"),
    ("diff", "x*y", "--wrt", "х"),
    ("tangent", "х^2", "--at", "x=1"),
    ("taylor", "sin(х)", "--at", "x=0"),
    ("check", "х^2", "--answer", "2x"),
    ("check", "х^2", "--answer", "2х", "--wrt", "x"),
    ("jacobian", "[x, х]", "--at", "1,2"),
    ("jacobian", "x", "2*х", "--at", "1,2"),
    ("plot", "x + х"),
])
def test_latin_and_cyrillic_x_are_refused_everywhere(args):
    first = refused(*args)
    assert "look alike" in first and all(name in first for name in LATIN_CYRILLIC)
    assert "'x'" in first and "'х'" in first


def test_points_header_with_a_look_alike_is_refused(tmp_path):
    path = tmp_path / "points.csv"
    path.write_text("х,y\n1,2\n", encoding="utf-8")
    first = refused("grad", "x*y", "--points", str(path))
    assert all(name in first for name in LATIN_CYRILLIC)
    first = refused("grad", "x*y", "--points", "-", input="х,y\n1,2\n")
    assert all(name in first for name in LATIN_CYRILLIC)


def test_a_word_mixing_scripts_is_refused_with_the_column():
    result = tape_cli("grad", "2*cоs(x)", "--at", "1")
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert "'cоs' mixes cyrillic and latin letters" in lines[0]
    assert "CYRILLIC SMALL LETTER O" in lines[0] and "(column 3)" in lines[0]
    assert lines[2] == "error:     ^^^"
    assert "mixes" in refused("grad", "xу", "--at", "1,2")


def grad(*args: str, input: str | None = None):
    result = tape_cli("grad", *args, "--format", "json", input=input)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_fullwidth_names_are_the_same_names_everywhere(tmp_path):
    expected = grad("x^2*y", "--at", "x=3,y=2")["points"][0]["gradient"]
    assert expected == {"x": 12.0, "y": 9.0}
    assert grad("ｘ^2*y", "--at", "ｘ=3,y=2")["points"][0]["gradient"] == expected
    assert grad("x^2*y", "--at", "ｘ=3,ｙ=2")["points"][0]["gradient"] == expected
    assert grad("x^2*y", "--at", "x=3,y=2", "--wrt", "ｙ")["points"][0]["gradient"] == \
        {"y": 9.0}
    path = tmp_path / "points.csv"
    path.write_text("ｘ,ｙ\n3,2\n", encoding="utf-8")
    assert grad("x^2*y", "--points", str(path))["points"][0]["gradient"] == expected
    assert grad("x^2*y", "--points", "-", input="ｘ, y\n3,2\n")["points"][0]["gradient"] \
        == expected
    result = tape_cli("check", "x^2*y", "--answer", "2x*y", "--wrt", "ｘ")
    assert result.exit_code == 0 and result.stdout.startswith("correct")
    result = tape_cli("diff", "x^2 + y^2 = 1", "--implicit", "--dependent", "ｙ")
    assert result.exit_code == 0 and result.stdout.strip() == "-x/y"
    # the same spelling rule where the curve is read, for every command that reads one
    doc = grad("x^2 + y^2 = 1", "--implicit", "--dependent", "ｙ", "--at", "x=0.6,y=0.8")
    assert doc["dependent"] == "y" and doc["points"][0]["derivative"] == pytest.approx(-0.75)
    result = tape_cli("check", "x^2 + y^2 = 1", "--answer", "-x/y", "--implicit",
                      "--dependent", "ｙ", "--wrt", "ｘ")
    assert result.exit_code == 0 and result.stdout.startswith("correct")


def test_names_wholly_in_one_script_still_work():
    doc = grad("скорость^2 + θ", "--at", "скорость=3,θ=1")
    assert doc["points"][0]["gradient"] == {"θ": 1.0, "скорость": 6.0}
    doc = grad("х^2", "--at", "5")                       # a Cyrillic х on its own
    assert doc["variables"] == ["х"] and doc["points"][0]["gradient"] == {"х": 10.0}
