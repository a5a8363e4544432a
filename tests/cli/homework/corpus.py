"""Homework exercises with verdicts a careful teacher would give (``tape check``).

Each row: ``(expression, answer, options, correct, kind)``; ``options`` are ``check``'s keyword
arguments (``wrt``, ``order``, ``implicit``); ``kind`` is the diagnosis kind expected for a wrong
answer (None: no classic mistake explains it, so no diagnosis may be given).
"""
from __future__ import annotations

ONE = {}

#: right answers in other forms than SymPy's
RIGHT = [
    ("x^2*e^x", "x*(x+2)*exp(x)", ONE),                         # factored
    ("(x^2-1)/(x-1)", "1", ONE),                                 # removable singularity
    ("(x+1)^3", "3*(x^2+2*x+1)", ONE),                           # expanded
    ("sin(x)^2", "sin(2*x)", ONE),                               # trig identity
    ("sin(x)*cos(x)", "cos(2*x)", ONE),
    ("cos(x)^2", "-sin(2*x)", ONE),
    ("tan(x)", "sec(x)^2", ONE),                                 # sec/csc
    ("tan(x)", "1/cos(x)^2", ONE),
    ("cot(x)", "-csc(x)^2", ONE),
    ("csc(x)", "-cos(x)/sin(x)^2", ONE),
    ("sec(x)", "tan(x)/cos(x)", ONE),
    ("sinh(x)", "(exp(x)+exp(-x))/2", ONE),                      # exponential forms
    ("cosh(2*x)", "exp(2*x)-exp(-2*x)", ONE),
    ("tanh(x)", "4/(exp(x)+exp(-x))^2", ONE),
    ("abs(x)", "x/abs(x)", ONE),                                 # |x| and sgn forms
    ("abs(x)", "abs(x)/x", ONE),
    ("x*abs(x)", "2*abs(x)", ONE),
    ("abs(x^2-4)", "2*x*(x^2-4)/abs(x^2-4)", ONE),               # singular at x = 2
    ("abs(2*x+1)", "2*(2*x+1)/abs(2*x+1)", ONE),                 # singular at -0.5
    ("sqrt(x^2)", "x/sqrt(x^2)", ONE),                           # principal roots
    ("sqrt(x)", "1/(2*sqrt(x))", ONE),
    ("sqrt(x)", "0.5*x^(-0.5)", ONE),
    ("cbrt(x)", "1/(3*cbrt(x)^2)", ONE),
    ("x^(3/2)", "1.5*sqrt(x)", ONE),
    ("asin(2*x)", "1/sqrt(1/4 - x^2)", ONE),                     # infinite at the edges
    ("asin(x/3)", "1/sqrt(9-x^2)", ONE),
    ("acos(x)", "-1/sqrt(1-x^2)", ONE),
    ("atan(1/x)", "-1/(1+x^2)", ONE),
    ("acosh(x)", "1/sqrt(x^2-1)", ONE),
    ("ln(x)", "1/abs(x)", ONE),                                  # agrees on ln's domain
    ("ln(abs(x))", "1/x", ONE),
    ("log10(x)", "1/(x*ln(10))", ONE),
    ("2^x", "2^x*ln(2)", ONE),
    ("x^x", "x^x*(ln(x)+1)", ONE),
    ("exp(x)/x", "exp(x)*(x-1)/x^2", ONE),
    ("x/(x+1)", "1/(x+1)^2", ONE),
    ("x^4", "12*x^2", {"order": 2}),
    ("sin(x)", "-cos(x)", {"order": 3}),
    ("exp(2*x)", "16*exp(2*x)", {"order": 4}),
    ("x^2*y", "2*x*y", {"wrt": "x"}),                            # partial
    ("x^2*y^3", "6*x*y^2", {"wrt": "x,y"}),                      # mixed partial
    ("x^2*y^3", "6*x*y^2", {"wrt": "y,x"}),
    ("sin(x*y)", "cos(x*y) - x*y*sin(x*y)", {"wrt": "x,y"}),
    ("x^2*y^3", "2*y^3", {"wrt": "x", "order": 2}),
    ("x^2 + y^2 = 1", "-x/y", {"implicit": True}),               # implicit
    ("x*y = 1", "-1/x^2", {"implicit": True}),                   # right on the curve only
    ("x^3 + y^3 = 6*x*y", "(2*y - x^2)/(y^2 - 2*x)", {"implicit": True}),
    ("x^2 + y^2 = 1", "-1/y^3", {"implicit": True, "order": 2}),
    ("t^2 + y^2 = 4", "-t/y", {"implicit": True}),
]

#: wrong answers, each from one classic mistake (or wrong only far away: no diagnosis)
WRONG = [
    ("sin(3*x)", "cos(3*x)", ONE, "chain rule"),
    ("exp(x^2)", "exp(x^2)", ONE, "chain rule"),
    ("(2*x+1)^3", "3*(2*x+1)^2", ONE, "chain rule"),
    ("sqrt(x^2+1)", "1/(2*sqrt(x^2+1))", ONE, "chain rule"),
    ("x^2*sin(x)", "2*x*cos(x)", ONE, "product rule"),
    ("x*exp(x)", "exp(x)", ONE, "product rule"),
    ("x/(x+1)", "-1/(x+1)^2", ONE, "quotient rule"),            # numerator reversed
    ("x/(x+1)", "1/(x+1)", ONE, "quotient rule"),               # denominator not squared
    ("sin(x)/x", "(sin(x) - x*cos(x))/x^2", ONE, "quotient rule"),
    ("2^x", "x*2^(x-1)", ONE, "exponential"),
    ("3^x", "3^x", ONE, "exponential"),
    ("ln(x^2+1)", "1/(x^2+1)", ONE, "logarithm"),
    ("cos(x)", "sin(x)", ONE, "sign"),
    ("1/x", "1/x^2", ONE, "sign"),
    ("tan(x)", "sec(x)*tan(x)", ONE, "trigonometric"),
    ("atan(x)", "1/sqrt(1+x^2)", ONE, "inverse trigonometric"),
    ("asin(x)", "-1/sqrt(1-x^2)", ONE, "inverse trigonometric"),
    ("x^4", "4*x^4", ONE, "power rule"),
    ("x^x", "x*x^(x-1)", ONE, "power rule"),
    ("x^-2", "-2*x^-1", ONE, "power rule"),
    ("x^3 + 5", "3*x^2 + 5", ONE, "extra term"),
    ("tan(x)", "sec(x)^2 + 1e-3", ONE, "extra term"),
    ("x^3 + sin(x)", "3*x^2", ONE, "missing term"),
    ("7*x^2", "2*x", ONE, "constant factor"),
    ("x^2/5", "2*x", ONE, "constant factor"),
    ("x^2", "2*x + relu(x-20)", ONE, None),                    # wrong only far away
    ("x^2", "2*x + relu(x-5000)", ONE, None),
    ("x^2", "2*x + relu(-x-300)", ONE, None),
    ("x^x^x^x^x^x", "1", ONE, None),                           # SymPy runs out; numbers decide
    ("sin(x)", "cos(x) + 1e-9*x", ONE, None),                  # beyond float resolution
    ("x^4", "12*x", {"order": 2}, None),
    ("sin(x)", "cos(x)", {"order": 3}, "sign"),
    ("x^2*y", "2*x", {"wrt": "x"}, "constant factor"),        # the factor y dropped
    ("x^2*y^3", "6*x*y", {"wrt": "x,y"}, None),
    ("x^2*y^3", "2*y^2", {"wrt": "x", "order": 2}, None),
    ("x^2 + y^2 = 1", "x/y", {"implicit": True}, "sign"),
    ("x^2 + y^2 = 1", "-2*x/y", {"implicit": True}, "constant factor"),
    ("x^2 + y^2 = 1", "-x/sqrt(1-x^2)", {"implicit": True}, None),  # the upper branch only
]
