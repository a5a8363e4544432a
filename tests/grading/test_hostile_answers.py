"""Answers made to fool a verdict (issue 31): each one is wrong, undecided with its reason, or
ambiguous; never a false ``correct``, never a crash. A counterexample is checked against
SymPy's derivative evaluated by mpmath at 50 digits."""
from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import tape.expr
import tape.grading
from tape.grading import homework


def _true_gap(verdict, wrt="x", order=1) -> float:
    """|derivative - answer| at the counterexample, by SymPy and mpmath (50 digits)."""
    at = verdict.counterexample["at"]
    symbols = {n: sp.Symbol(n) for n in at}
    names = {**symbols, "relu": lambda z: sp.Max(0, z), "e": sp.E, "pi": sp.pi}
    f = sp.sympify(verdict.read_as["expression"], locals=names, rational=True)
    a = sp.sympify(verdict.read_as["answer"], locals=names, rational=True)
    d = sp.diff(f, *([symbols[w] for w in wrt.split(",")] * order))
    # floor is constant between its steps (the counterexample is never on a step)
    d = d.replace(lambda e: isinstance(e, (sp.Derivative, sp.Subs)), lambda e: sp.S.Zero)
    subs = {symbols[n]: sp.Rational(v) for n, v in at.items()}
    with mpmath.workdps(50):
        return abs(complex(sp.N(d.subs(subs) - a.subs(subs), 50)))


def _assert_wrong(verdict, wrt="x", order=1, least=1e-9):
    assert verdict.correct is False, verdict.to_dict()
    gap = _true_gap(verdict, wrt, order)
    assert gap > least, (gap, verdict.to_dict())


@pytest.mark.parametrize("expression, answer, options", [
    ("x^2 + 10^40", "2x + 1000", {}),
    ("x^2 + e^100", "2x + 1000", {}),
    ("x^2 + 10^40", "2x + 1e-20", {}),
    ("x^2 + e^100", "1002", {"order": 2}),
    ("x^2 y + 10^40", "2x y + 1000", {"wrt": "x"}),
    ("x^2 y^2 + e^100", "4 x y + 5", {"wrt": "x,y"}),
])
def test_a_huge_constant_does_not_hide_a_wrong_answer(expression, answer, options):
    verdict = tape.grading.check(expression, answer, **options)
    wrt, order = options.get("wrt", "x"), options.get("order", 1)
    _assert_wrong(verdict, wrt, order, least=1e-25)


@pytest.mark.parametrize("expression, answer", [
    ("x^2 + 10^40", "2x"), ("x^2 + e^100", "2x"), ("1e30 + sin(x)", "cos(x)"),
])
def test_a_huge_constant_does_not_make_a_right_answer_wrong(expression, answer):
    assert tape.grading.check(expression, answer).correct is True


@pytest.mark.parametrize("expression, answer", [
    ("x^2 + floor(100x)", "2x + relu(0.01-abs(x-3.7))"),
    ("x^2 + floor(1000x)", "2x + relu(0.001-abs(x+12.3456))"),
    ("x^2", "2x + e^(-10^4 (x-3.7)^2)"),
    ("x^2", "2x + e^(-10^5 (x+1.234)^2)"),
    ("sin x", "cos x + 1/(1 + 10^8 (x - 7.77)^2)"),
])
def test_a_narrow_feature_is_seen(expression, answer):
    _assert_wrong(tape.grading.check(expression, answer))


def test_many_breakpoints_a_right_answer_stays_right():
    assert tape.grading.check("x^2 + floor(100x)", "2x").correct is True


@pytest.mark.parametrize("expression, answer", [
    ("log(-1-x^2)", "2x/(1+x^2)"), ("x*(0/0)", "0"), ("sqrt(-1-x^2)", "0"),
])
def test_a_function_real_nowhere_is_undecided_with_the_reason(expression, answer):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is None
    assert "not a real number at any" in verdict.reason


@pytest.mark.parametrize("expression, answer, part", [
    ("sqrt(x)", "1/(2sqrt(x))", "x > 0"),
    ("log(1-x^2)", "-2x/(1-x^2)", "-1 < x < 1"),
    ("sqrt(x^2-4)", "x/sqrt(x^2-4)", "x < -2 or x > 2"),
])
def test_the_part_of_the_line_compared_is_said(expression, answer, part):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is True and verdict.compared_on == part
    assert verdict.to_dict()["compared_on"] == part


@pytest.mark.parametrize("expression, answer", [("1/x", "-1/x^2"), ("x^2", "2x"),
                                                ("tan x", "sec^2 x")])
def test_the_whole_line_says_nothing(expression, answer):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is True and verdict.compared_on is None
    assert "compared_on" not in verdict.to_dict()


def test_the_dense_scan_is_fine_near_the_origin_and_reaches_far():
    line = homework.dense_points(1)[:, 0]
    near = line[(line > 3) & (line < 4)]
    assert near.size >= 1000
    for lo, hi in [(4000, 6000), (-1e-4, 1e-4), (4e6, 5e6), (-6000, -4000)]:
        assert ((line > lo) & (line < hi)).sum() >= 4, (lo, hi)


@pytest.mark.parametrize("expression, answer, p, q, shift", [
    ("x^(4/3)", "(4/3)|x|^(1/3)", 4, 3, 0), ("∛x^4", "(4/3)|x|^(1/3)", 4, 3, 0),
    ("x^(5/3)", "(5/3) x |x|^(-1/3)", 5, 3, 0),
    ("(x-2)^(1/3)", "sign(x-2)/(3|x-2|^(2/3))", 1, 3, 2),
])
def test_an_odd_root_is_real_on_the_whole_line(expression, answer, p, q, shift):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is False
    x = verdict.counterexample["at"]["x"]
    assert x < shift                               # the answer is right where the base is > 0

    def real_power(t):
        return mpmath.sign(t - shift) ** p * abs(t - shift) ** (mpmath.mpf(p) / q)

    with mpmath.workdps(30):
        expected = mpmath.diff(real_power, mpmath.mpf(x))
    assert abs(verdict.counterexample["expected"] - float(expected)) <= 1e-9 * abs(expected)


@pytest.mark.parametrize("expression, answer", [
    ("x^(4/3)", "(4/3)x^(1/3)"), ("x^(1/3)", "1/(3x^(2/3))"), ("x^(2/3)", "2/(3x^(1/3))"),
    ("x^0.2", "0.2x^(-0.8)"), ("(x+1)^(2/3)", "2/(3(x+1)^(1/3))"),
])
def test_an_odd_root_right_on_the_whole_line_is_correct_there(expression, answer):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is True and verdict.compared_on is None


def test_an_even_root_says_which_part_was_compared():
    verdict = tape.grading.check("x^(1/2)", "1/(2sqrt(x))")
    assert verdict.correct is True and verdict.compared_on == "x > 0"


def _on_the_curve(verdict, relation: str) -> float:
    at = verdict.counterexample["at"]
    x, y = sp.symbols("x y")
    left, right = relation.split("=")
    residual = sp.sympify(left, rational=True) - sp.sympify(right, rational=True)
    return abs(float(residual.subs({x: sp.Rational(at["x"]), y: sp.Rational(at["y"])})))


def test_a_far_branch_of_a_curve_is_scanned():
    relation = "x**2 + (y-1250)**2 = 1250**2"
    verdict = tape.grading.check(relation, "x/sqrt(1250^2 - x^2)", implicit=True)
    assert verdict.correct is False
    at = verdict.counterexample["at"]
    assert at["y"] > 1250                 # the answer is the lower branch's slope only
    assert _on_the_curve(verdict, relation) < 1e-6
    slope = -at["x"] / (at["y"] - 1250)
    assert abs(verdict.counterexample["expected"] - slope) <= 1e-9 * abs(slope)
    assert tape.grading.check(relation, "-x/(y-1250)", implicit=True).correct is True


def test_a_vanishing_denominator_in_the_curve_is_no_crash():
    verdict = tape.grading.check(r"\displaystyle \frac{x^2+y}{x+y^2}=17",
                                 r"\frac{x^2+2 x y^2-y}{2 x^2 y-x+y^2}", implicit=True)
    x, y = sp.symbols("x y")
    F = (x ** 2 + y) / (x + y ** 2) - 17
    slope = sp.idiff(F, y, x)
    answer = (x ** 2 + 2 * x * y ** 2 - y) / (2 * x ** 2 * y - x + y ** 2)
    assert verdict.correct is (sp.simplify(sp.together(slope - answer)) == 0)


@pytest.mark.parametrize("expression, answer, meant", [
    ("log(2, x)", "1/(x ln 2)", "log_2(x)"),            # base first, as WolframAlpha
    ("ln(x)/2", "1/2x", "1/(2x)"),                     # a product after /
    ("e^(2x)", "2e^2x", "2e^(2x)"),                    # an exponent without brackets
    ("e^(-2x)", "-2e^-2x", "-2e^(-2x)"),
    ("sqrt(x)", "x^-1/2/2", None),
    ("sin(x/2)", "cos x/2/2", "cos(x/2)/2"),           # a fraction after a bare argument
    ("sqrt(2x)", "1/(√2x)", None),
])
def test_an_ambiguous_text_is_graded_under_both_readings(expression, answer, meant):
    verdict = tape.grading.check(expression, answer)
    assert verdict.correct is None and verdict.ambiguous is True, verdict.to_dict()
    assert "ambiguous" in verdict.reason
    doc = verdict.to_dict()
    assert doc["correct"] is None and doc["ambiguous"] is True
    verdicts = [r["correct"] for r in doc["readings"]]
    assert True in verdicts and False in verdicts
    for reading in doc["readings"]:
        # each reading, written out, is graded the same when checked on its own
        write = reading["write"]
        alone = tape.grading.check(write["expression"], write["answer"])
        assert alone.ambiguous is False and alone.correct is reading["correct"], write
        if reading["correct"] and meant:
            assert meant in write["answer"] + write["expression"]


def test_one_notation_in_both_texts_is_read_alike_in_both():
    """``e^2x`` typed in the expression and in the answer: the reading they share, e^(2x) in
    both, makes the answer right, e^2*x in both wrong: ``ambiguous``, with the paired
    reading listed (not only the readings varied on one side, all wrong)."""
    verdict = tape.grading.check("e^2x", "2e^2x")
    assert verdict.correct is None and verdict.ambiguous is True, verdict.to_dict()
    by_text = {(r["write"]["expression"], r["write"]["answer"]): r["correct"]
               for r in verdict.readings}
    assert by_text[("e^(2x)", "2e^(2x)")] is True
    assert by_text[("(e^2)x", "2(e^2)x")] is False
    for (expression, answer), correct in by_text.items():
        assert tape.grading.check(expression, answer).correct is correct


@pytest.mark.parametrize("integrand, answer", [("e^(2x)", "e^2x/2"), ("e^(2x)", "e^2x/2 + c"),
                                               ("1/2", "1/2x")])
def test_an_ambiguous_antiderivative_is_ambiguous(integrand, answer):
    """SPEC section 10 holds for --antiderivative too: e^2x/2 is right read as e^(2x)/2."""
    verdict = tape.grading.check(integrand, answer, antiderivative=True)
    assert verdict.correct is None and verdict.ambiguous is True, verdict.to_dict()
    doc = verdict.to_dict()
    assert doc["kind"] == "antiderivative"
    assert sorted(r["correct"] for r in doc["readings"]) == [False, True]
    for reading in doc["readings"]:
        write = reading["write"]
        alone = tape.grading.check(write["expression"], write["answer"], antiderivative=True)
        assert alone.correct is reading["correct"], write


@pytest.mark.parametrize("expression, answer", [
    ("ln(x)/2", "1/(2x)"), ("x^2", "1/2x"), ("e^(2x)", "2e^(2x)"), ("sin 2x", "2cos 2x"),
    ("xy", "y"),
])
def test_where_the_readings_agree_nothing_changes(expression, answer):
    options = {"wrt": "x"} if "y" in expression else {}
    verdict = tape.grading.check(expression, answer, **options)
    assert verdict.ambiguous is False and verdict.correct is not None
    assert "ambiguous" not in verdict.to_dict()


# ----------------------------------------------------------------------------- diagnoses

def _mistake_reproduces(verdict, answer_of_mistake: str, options) -> bool:
    """The mistake the diagnosis names, applied by hand, gives the answer (SymPy, exactly)."""
    x = sp.Symbol(options.get("wrt", "x"))
    got = sp.sympify(verdict.read_as["answer"], locals={x.name: x}, rational=True)
    return sp.simplify(got - sp.sympify(answer_of_mistake, locals={x.name: x},
                                        rational=True)) == 0


@pytest.mark.parametrize("expression, answer, options, not_said", [
    ("123456789*x**3 + x**2", "740740735", {"order": 3}, "1 times"),
    ("189906971*u**3 + 1301*u**2 + 17523*u", "1139441827", {"wrt": "u", "order": 3},
     "power rule"),
])
def test_no_diagnosis_that_is_not_true(expression, answer, options, not_said):
    verdict = tape.grading.check(expression, answer, **options)
    assert verdict.correct is False
    detail = (verdict.diagnosis or {}).get("detail", "")
    assert not_said not in detail
    if verdict.diagnosis:                      # then the one said is exact: 1 more than d'''
        assert verdict.diagnosis == {"kind": "extra term", "detail":
                                     f"the answer has an extra constant term 1: the derivative "
                                     f"is {int(answer) - 1}"}


@pytest.mark.parametrize("answer, words", [
    ("2x + 65013948", "an extra constant term 65013948:"),
    ("2x - 2/3", "an extra constant term -2/3:"),
    ("(7/3)*2x", "the answer is 7/3 times"),
    ("2x + pi", None),                         # not a rational: no number rounded to digits
])
def test_numbers_in_a_diagnosis_are_exact(answer, words):
    verdict = tape.grading.check("x^2", answer)
    assert verdict.correct is False
    if words is None:
        assert verdict.diagnosis is None or "3.14" not in verdict.diagnosis["detail"]
    else:
        assert words in verdict.diagnosis["detail"], verdict.diagnosis


@pytest.mark.parametrize("expression, answer, options, detail", [
    ("x^2 - 14x^3", "2x", {}, "the term -14*x**3 was left out: its derivative, -42*x**2, "
                              "is missing"),
    ("x^3 + sin x", "6", {"order": 3}, "the term sin(x) was left out: its third derivative, "
                                       "-cos(x), is missing"),
])
def test_a_missing_term_has_its_sign_and_the_order_asked(expression, answer, options, detail):
    verdict = tape.grading.check(expression, answer, **options)
    assert verdict.diagnosis == {"kind": "missing term", "detail": detail}


@pytest.mark.parametrize("expression, answer, options, said", [
    ("x^3", "3x^2", {"order": 2}, "the answer is the first derivative, not the second"),
    ("x^3 + x", "6x", {}, "the answer is the second derivative, not the first"),
    ("x^4", "x^4", {}, "the answer is the function itself, not the first derivative"),
    ("sin(x)", "-cos(x)", {"order": 2}, "the answer is the third derivative, not the second"),
])
def test_an_answer_of_another_order_is_named(expression, answer, options, said):
    verdict = tape.grading.check(expression, answer, **options)
    assert verdict.correct is False
    assert verdict.diagnosis["kind"] == "wrong order"
    assert verdict.diagnosis["detail"].startswith(said)


@pytest.mark.parametrize("text, note, typed, this, other", [
    ("1/x(x+1)", "read 1/x(x+1) as (1/x)*(x+1) (write 1/(x(x+1)) to divide by x(x+1))",
     "1/x(x+1)", "(1/x)(x+1)", "1/(x(x+1))"),
    ("1/xy", "read 1/xy as (1/x)*y (write 1/(xy) to divide by xy)", "1/xy", "(1/x)y",
     "1/(xy)"),
    ("e^-2x", "read e^-2x as (e**-2)*x (write e^(-2x) for the other reading)", "e^-2x",
     "(e^-2)x", "e^(-2x)"),
    ("x^1/2", "read x^1/2 as (x**1)/2 (write x^(1/2) for the power 1/2)", "x^1/2",
     "(x^1)/2", "x^(1/2)"),
    ("√2x", "read √2x as sqrt(2)*x (write √(2x) for the other reading)", "√2x", "sqrt(2)x",
     "√(2x)"),
    ("sin x/2", "read sin x/2 as sin(x)/2 (a function without brackets takes the next factor "
                "only)", "sin x/2", "sin(x)/2", "sin(x/2)"),
    ("log(10, t)", "read log(10, t) as log(10, t) (log(x, b) is log of x to the base b, as in "
                   "SymPy; WolframAlpha reads log(b, x))", "log(10, t)", "log_t(10)",
     "log_10(t)"),
])
def test_the_other_reading_comes_from_the_readers_note(text, note, typed, this, other):
    (found,) = homework.ambiguous_readings(text, [note])
    assert (found.typed, found.this, found.other) == (typed, this, other)
    # both texts read one way only: read again, they carry no note of that kind
    for written in (found.this, found.other):
        assert not homework.ambiguous_readings(written, tape.expr.read(written).notes)


@pytest.mark.parametrize("text", ["sin 2x", "xy", "sin x cos x", "2x^2"])
def test_a_teachers_reading_is_no_ambiguity(text):
    assert homework.ambiguous_readings(text, tape.expr.read(text).notes) == []
