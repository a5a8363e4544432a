"""``tape.grading.check_work`` (SPEC section 12): a derivation judged line by line.

The corpus (``work_corpus.py``) holds derivations after worked examples of OpenStax
*Calculus Volume 1*, Active Calculus and Guichard's *Calculus* (all CC BY-NC-SA), and copies
with one planted mistake each: every right line must be called ``follows``, every planted
mistake found at its line with the diagnosis kind planted, and every line after it called
``follows from a wrong line``.
"""
import pytest

from tape.grading import WorkVerdict, check_work
from tape.expr.errors import CLIError

from .work_corpus import MUTANTS, RIGHT, mutated

_BY_NAME = {name: text for name, _, text in RIGHT}


@pytest.mark.parametrize("name,source,text", RIGHT, ids=[r[0] for r in RIGHT])
def test_right_work_follows_line_by_line(name, source, text):
    work = check_work(text)
    assert isinstance(work, WorkVerdict)
    assert [line.verdict for line in work.lines] == ["follows"] * len(work.lines), \
        [(line.number, line.verdict, line.reason) for line in work.lines]
    assert work.status == "correct" and work.answers is True and work.first_wrong is None


@pytest.mark.parametrize("name,at,lines,kind", MUTANTS,
                         ids=[f"{m[0]}@{m[1]}:{m[3]}" for m in MUTANTS])
def test_planted_mistake_is_found_at_its_line(name, at, lines, kind):
    work = check_work(mutated(_BY_NAME[name], at, lines))
    got = {line.number: line for line in work.lines}
    assert work.first_wrong == at
    wrong = got[at]
    assert wrong.verdict == "wrong"
    assert wrong.diagnosis is not None and wrong.diagnosis["kind"] == kind, wrong.diagnosis
    assert wrong.counterexample is not None
    # the counterexample is a point where the two lines really differ
    assert abs(wrong.counterexample["line"] - wrong.counterexample["before"]) > 1e-9
    for number, line in got.items():
        want = "follows" if number < at else "wrong" if number == at else \
            "follows from a wrong line"
        assert line.verdict == want, (number, line.verdict, line.reason)
    assert work.status == "wrong"


def test_corpus_score_is_every_line():
    """The score the report quotes: lines judged as meant over all lines of the corpus."""
    total = meant = 0
    for name, _, text in RIGHT:
        for line in check_work(text).lines:
            total += 1
            meant += line.verdict == "follows"
    for name, at, lines, kind in MUTANTS:
        for line in check_work(mutated(_BY_NAME[name], at, lines)).lines:
            total += 1
            if line.number < at:
                meant += line.verdict == "follows"
            elif line.number == at:
                meant += line.verdict == "wrong" and (line.diagnosis or {}).get("kind") == kind
            else:
                meant += line.verdict == "follows from a wrong line"
    assert len(MUTANTS) >= 25 and total >= 120
    assert meant == total, f"{meant}/{total}"


def test_a_line_right_only_where_the_line_before_is_defined_follows():
    # ln(x^2) = 2 ln x only for x > 0: equal on the common domain
    work = check_work("d/dx ln(x^2)\n= d/dx[2 ln x]\n= 2/x")
    assert [line.verdict for line in work.lines] == ["follows", "follows"]
    work = check_work("f(x) = (x^2 - 1)/(x - 1)\n= d/dx[x + 1]\n= 1")
    assert work.status == "correct"


def test_an_algebra_slip_is_named_with_its_counterexample():
    work = check_work("d/dx (x - (x^2 + x))\n= 1 - (2x + 1)\n= 1 - 2x + 1\n= 2 - 2x")
    line = work.lines[1]
    assert line.verdict == "wrong" and line.diagnosis["kind"] == "sign"
    assert "distributing" in line.diagnosis["detail"]
    c = line.counterexample
    x = c["at"]["x"]
    assert c["line"] == pytest.approx(1 - 2 * x + 1) and c["before"] == pytest.approx(-2 * x)
    assert work.lines[2].verdict == "follows from a wrong line"


def test_the_part_differentiated_is_named():
    work = check_work("d/dx (x^2 sin(3x))\n= d/dx[x^2] sin(3x) + x^2 d/dx[sin(3x)]\n"
                      "= 2x sin(3x) + x^2 cos(3x)")
    line = work.lines[1]
    assert line.verdict == "wrong" and line.diagnosis["kind"] == "chain rule"
    assert line.diagnosis["part"] == "sin(3*x)"


def test_forms_of_the_task_and_of_the_steps():
    for text in ["d/dx (x^3)\n= 3x^2", "f(x) = x^3\nf'(x) = 3x^2", "y = x^3, find dy/dx\n"
                 "dy/dx = 3x^2", "y = x^3, dy/dx\ny' = 3x^2", "find dy/dx if y = x^3\n= 3x^2",
                 "d/dx (x^3) = 3x^2", "\\frac{d}{dx}\\left(x^3\\right) &= 3x^2",
                 "d/dt (t^3)\n= (t^3)'\n= 3t^2", "∫ 3x^2 dx\n= x^3 + C",
                 "# a comment\nd/dx (x^3)\n\n= 3x^2 % typeset comment"]:
        work = check_work(text)
        assert work.status == "correct", (text, [(l.verdict, l.reason) for l in work.lines])


def test_unreadable_and_unfinished_lines():
    work = check_work("d/dx (x^3)\n= 3x^^2\n= 3x^2")
    assert [line.verdict for line in work.lines] == ["unreadable", "follows"]
    assert work.status == "unreadable" and "line 2" in work.lines[0].reason
    work = check_work("d/dx (x^3)\n= 3 z^2")
    assert work.lines[0].verdict == "unreadable" and "'z'" in work.lines[0].reason
    work = check_work("d/dx (x^2 sin x)\n= d/dx[x^2] sin x + x^2 d/dx[sin x]")
    assert work.lines[0].verdict == "follows" and work.status == "wrong"
    assert "not finished" in work.final_reason


@pytest.mark.parametrize("text,says", [
    ("", "empty"), ("d/dx (x^3)", "no steps"), ("hello there\n= 2", "first line"),
    ("x^2 + 1\n= 2x", "first line")])
def test_bad_derivations_are_errors(text, says):
    with pytest.raises(CLIError) as err:
        check_work(text)
    assert says in str(err.value.message) and err.value.code == 2


def test_the_last_line_is_graded_as_tape_check_grades_it():
    from tape.grading import check

    work = check_work("d/dx (x^2 sin x)\n= 2x sin x + x^2 cos x")
    assert work.final.to_dict() == check("d/dx (x^2 sin x)", "2x sin x + x^2 cos x").to_dict()
    doc = work.to_dict()
    assert doc["status"] == "correct" and doc["credit"] == {
        "steps": 1, "follows": 1, "carried": 0, "wrong": 0, "other": 0}


@pytest.mark.parametrize("text", [
    "d/dx (x^2)\n=", "d/dx (x^2)\n= d/dx[]", "d/dx (x^2)\n= ()'", "d/dx (x^2)\n'",
    "d/dx (x^2)\n= \\frac{d}{dx} x^2", "d/dx (x^2)\n= d/dy[x^2]", "∫ x dx\n= ∫ x dx",
    "d/dx (x^2)\n= nan", "d/dx(x^2)\n= (x^2)''", "f(x) = sin x\nf''(x) = -sin x",
    "d/dx (x^2)\n= d/dx[x^2 sin x"])
def test_lines_that_cannot_be_read_say_why(text):
    work = check_work(text)
    assert work.lines[-1].verdict == "unreadable" and work.lines[-1].reason
    assert work.status == "unreadable"


def test_a_y_in_the_steps_is_the_function():
    work = check_work("y = e^x, find dy/dx\ny' = y")
    assert work.status == "correct"
    work = check_work("y = x^2, find dy/dx\n= 2y")
    assert work.lines[0].verdict == "wrong"


@pytest.mark.parametrize("text", ["d/dx (θ^2)\n= 2θ", "∫ dx\n= x", "f(x,y) = x y\n= y"])
def test_tasks_that_cannot_be_checked_are_errors(text):
    with pytest.raises(CLIError) as err:
        check_work(text)
    assert err.value.code == 2


def test_a_line_read_two_ways_with_two_verdicts_is_ambiguous():
    work = check_work("d/dx (e^(2x))\n= 2e^2x")
    line = work.lines[0]
    assert line.verdict == "undecided" and line.ambiguous and "e^2x" in line.reason
    assert work.status == "ambiguous"
    # both readings wrong: simply wrong
    assert check_work("d/dx (ln(2x))\n= 1/2x").status == "wrong"


def test_a_cell_of_steps_with_the_task_given_apart():
    work = check_work("= d/dx[x^2] d/dx[sin x]\n= 2x cos x", task="x^2 sin x")
    assert [line.verdict for line in work.lines] == ["wrong", "follows from a wrong line"]
    assert work.score() == 0.0 and work.score(carried=0.5) == pytest.approx(0.25)
    assert check_work("x sin x + cos x + C", task="x cos x", antiderivative=True).score() == 1
    assert check_work("2x y", task="x^2 y", wrt="x").status == "correct"


def test_the_function_itself_is_a_rewriting_only_where_the_task_states_a_function():
    # h(x) = …: a line equal to h rewrites it; the next one is differentiated from that form
    work = check_work("h(x) = 1/(3x^2 + 1)^2\n= (3x^2 + 1)^(-2)\nh'(x) = -12x (3x^2 + 1)^(-3)")
    assert work.status == "correct"
    # d/dx (…) asks for the derivative at once: the function itself is the wrong order
    work = check_work("d/dx e^(x^2)\n= e^(x^2)")
    assert work.lines[0].verdict == "wrong"
    # a label says the line is the derivative
    work = check_work("f(x) = e^(x^2)\nf'(x) = e^(x^2)")
    assert work.lines[0].verdict == "wrong" and work.lines[0].diagnosis["kind"] == "chain rule"


@pytest.mark.parametrize("text", [
    "\\begin{align*}\nf(x) &= \\frac{\\sin x}{x} \\\\\nf'(x) &= \\frac{x\\cos x - \\sin x \\cdot 1}"
    "{x^2} \\\\\n&= \\frac{x\\cos x - \\sin x}{x^2}\n\\end{align*}",
    "\\frac{d}{dx}\\left[\\sqrt{x^2+1}\\right] = \\frac{1}{2\\sqrt{x^2+1}}\\cdot\\frac{d}{dx}"
    "\\left[x^2+1\\right] = \\frac{x}{\\sqrt{x^2+1}}",
    "y = (2x+1)^5 (x^3 - x + 1)^4, find dy/dx\nln y = 5 ln(2x + 1) + 4 ln(x^3 - x + 1)\n"
    "y'/y = 10/(2x + 1) + 4(3x^2 - 1)/(x^3 - x + 1)\n"
    "y' = (2x+1)^5 (x^3 - x + 1)^4 (10/(2x + 1) + 4(3x^2 - 1)/(x^3 - x + 1))",
    "d/dx (x e^(-x^2))\n= e^(-x^2) + x e^(-x^2) (-2x)\n= e^(-x^2) (1 - 2x^2)",
    "d/dx (ln(sqrt(x)))\n= d/dx[(1/2) ln x]\n= 1/(2x)",
    "d/dx(arctan(x^2))\n= 1/(1 + (x^2)^2) · 2x\n= 2x/(1 + x^4)",
    "f(x) = 3^x\nf'(x) = 3^x ln 3",
    "y = sqrt(x) + 1/x, dy/dx\ndy/dx = \\frac{1}{2\\sqrt{x}} - \\frac{1}{x^2}",
], ids=range(8))
def test_more_right_work_in_textbook_notation(text):
    work = check_work(text)
    assert work.status == "correct", [(line.verdict, line.reason) for line in work.lines]


def test_unfinished_work_whose_lines_all_follow_is_not_full_credit():
    work = check_work("= d/dx[x^2] sin x + x^2 d/dx[sin x]", task="x^2 sin x")
    assert [line.verdict for line in work.lines] == ["follows"]
    assert work.status == "wrong" and work.answers is not True
    # one step follows, the answer (one step more) is missing
    assert work.score() == pytest.approx(0.5)
    finished = check_work("= d/dx[x^2] sin x + x^2 d/dx[sin x]\n= 2x sin x + x^2 cos x",
                          task="x^2 sin x")
    assert finished.status == "correct" and finished.score() == 1.0
