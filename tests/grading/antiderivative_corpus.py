"""Integration exercises with right answers and the wrong answers students typically give.

The exercises are from OpenStax, *Calculus Volume 1* (Strang, Herman et al., 2016), section 4.10
"Antiderivatives", section 5.5 "Substitution" and section 5.6 "Integrals Involving Exponential
and Logarithmic Functions", licensed under the Creative Commons Attribution-NonCommercial-
ShareAlike 4.0 International licence (https://creativecommons.org/licenses/by-nc-sa/4.0/);
the book: https://openstax.org/details/books/calculus-volume-1, its source:
https://github.com/openstax/osbooks-calculus-bundle (modules m53621, m53634, m53635). The
integrands and the right answers are the book's, written in tape's notation; the wrong answers
and their classification are ours.

Rows: ``(integrand, answer, options, correct, kind)``; ``options`` are ``check``'s keyword
arguments besides ``antiderivative=True``; ``kind`` is the diagnosis a wrong answer must get
(None: no classic mistake gives it, so none may be named).
"""
from __future__ import annotations

ONE: dict = {}

#: right answers, as the book gives them or in another right form
RIGHT = [
    # 4.10
    ("e^x - 3x^2 + sin x", "e^x - x^3 - cos(x) + C", ONE),
    ("x - 1 + 4 sin(2x)", "x^2/2 - x - 2cos(2x) + C", ONE),
    ("x + 12x^2", "x^2/2 + 4x^3 + C", ONE),
    ("sqrt(x)^3", "2/5 sqrt(x)^5 + C", ONE),
    ("x^(1/3)/x^(2/3)", "3/2 x^(2/3) + C", ONE),
    ("sec(x)^2 + 1", "x + tan(x) + C", ONE),
    ("sin(x)^2 cos(x)", "sin(x)^3/3 + C", ONE),
    ("1/2 csc(x)^2 + 1/x^2", "-1/2 cot(x) - 1/x + C", ONE),
    ("4 csc(x) cot(x) - sec(x) tan(x)", "-sec(x) - 4csc(x) + C", ONE),
    ("1/2 e^(-4x) + sin x", "-1/8 e^(-4x) - cos x + C", ONE),
    ("sin x", "-cos x + C", ONE),
    ("3/x^2 + 2/x^2", "-3/x - 2/x + C", ONE),
    ("x^(-1/3) - x^(2/3)", "3/2 x^(2/3) - 3/5 x^(5/3) + C", ONE),
    ("e^x + e^(-x)", "e^x - e^(-x) + C", ONE),
    ("-1", "-x + C", ONE),
    ("x^2 + 2", "1/3 x^3 + 2x", ONE),                        # no constant: a note
    ("1/(x+1)^2", "-1/(x+1) + 1", ONE),                      # a constant that is a number
    # 5.5
    ("(x+1)^4", "1/5 (x+1)^5 + C", ONE),
    ("(2x-3)^(-7)", "-1/12 (2x-3)^(-6) + C", ONE),
    ("x/sqrt(x^2+1)", "sqrt(x^2+1) + C", ONE),
    ("(x-1)(x^2-2x)^3", "1/8 (x^2-2x)^4 + C", ONE),
    ("cos(θ)^3", "sin θ - sin(θ)^3/3 + C", ONE),
    ("(11x-7)^(-3)", "-1/22 (11x-7)^(-2) + C", ONE),
    ("cos(θ)^3 sin θ", "-cos(θ)^4/4 + C", ONE),
    ("cos(π t)^2 sin(π t)", "-cos(π t)^3/(3π) + C", ONE),
    ("t sin(t^2) cos(t^2)", "-1/4 cos(t^2)^2 + C", ONE),
    ("x^2/(x^3-3)^2", "-1/(3(x^3-3)) + C", ONE),
    ("x sqrt(4x^2+9)", "1/12 (4x^2+9)^(3/2) + C", ONE),
    # 5.6
    ("e^(-3x)", "-1/3 e^(-3x) + C", ONE),
    ("3^(-x)", "-3^(-x)/ln 3 + C", ONE),
    ("2/x", "2 ln|x| + C", ONE),
    ("2/x", "ln(x^2) + C", ONE),                              # the book's other form
    ("1/sqrt(x)", "2 sqrt(x) + C", ONE),
    ("1/(x ln(x)^2)", "-1/ln(x) + C", ONE),
    ("x^2 e^(-x^3)", "-e^(-x^3)/3 + C", ONE),
    ("e^(tan x) sec(x)^2", "e^(tan x) + C", ONE),
    ("ln(cos x) tan x", "-1/2 ln(cos x)^2 + C", ONE),
    ("ln(x)/sqrt(x)", "2 sqrt(x) (ln(x) - 2) + C", ONE),
    ("x^2 ln(x^2)", "2/9 x^3 (ln(x^3) - 1) + C", ONE),
    ("1/x", "ln x + C", ONE),                                  # right on x > 0: a note
    ("x cos x", "x sin x + cos x + K", {"constant": "K"}),
    ("x y", "x^2 y/2 + C", {"wrt": "x"}),
]

#: wrong answers: the classic mistakes, and others no rule explains
WRONG = [
    ("sin x", "cos x + C", ONE, "sign"),                      # the sign of ∫ sin
    ("cos(2x)", "sin(2x) + C", ONE, "chain rule"),            # the 1/2 left out
    ("e^(-3x)", "e^(-3x) + C", ONE, "chain rule"),            # the 1/(-3) left out
    ("e^(2x)", "e^(2x) + C", ONE, "chain rule"),
    ("e^(2x)", "2e^(2x) + C", ONE, "chain rule"),             # multiplied by a, not divided
    ("(x+1)^4", "(x+1)^5 + C", ONE, "power rule"),            # no division by n + 1
    ("x^3", "x^4 + C", ONE, "power rule"),
    ("x^3", "x^4/3 + C", ONE, "power rule"),                  # divided by n, not n + 1
    ("1/x", "x^0/0 + C", ONE, "power rule"),                  # n + 1 with n = -1
    ("x cos x", "x^2/2 sin x + C", ONE, "product rule"),      # ∫ fg = ∫f ∫g
    ("x e^x", "x^2/2 e^x + C", ONE, "product rule"),
    ("x^3", "3x^2 + C", ONE, "derivative"),                   # differentiated
    ("x^2 + cos x", "x^3/3 + C", ONE, "missing term"),
    ("3x^2", "6x^3 + C", ONE, "constant factor"),
    ("x^2 + 2", "x^3/3 + 2 + C", ONE, "missing term"),        # ∫ 2 dx taken as 2
    ("x - 1 + 4 sin(2x)", "x^2/2 - x + 2cos(2x) + C", ONE, None),
    ("1/(x ln(x)^2)", "1/ln(x) + C", ONE, "sign"),
    ("x/sqrt(x^2+1)", "x sqrt(x^2+1) + C", ONE, None),
]
