"""Derivations for ``tape check-work`` (SPEC section 12): right work and planted mistakes.

The functions and the routes taken are those of worked examples in openly licensed
textbooks, each named beside its derivation: OpenStax, *Calculus Volume 1* (Strang, Herman et
al., CC BY-NC-SA 4.0), Active Calculus (Boelkins, CC BY-NC-SA 4.0) and Guichard's *Calculus*
(CC BY-NC-SA). The lines are typed here in tape's notation (or LaTeX) from the examples, not
copied. Each derivation is right; each mutant replaces its lines from ``at`` on (line 1 is the
task) with ``lines``: the first of them holds one planted mistake of kind ``kind`` (the
diagnosis kind tape must name), the rest carry the slip forward correctly.
"""

#: (name, source, text)
RIGHT = [
    ("product x^2 sin x", "Active Calculus, 2.3, product rule example",
     """d/dx (x^2 sin x)
= d/dx[x^2] sin x + x^2 d/dx[sin x]
= 2x sin x + x^2 cos x
= x(2 sin x + x cos x)"""),
    ("product 2x^5(4x^2+x)", "OpenStax Calculus Vol. 1, 3.3, product rule example",
     """f(x) = 2x^5 (4x^2 + x)
f'(x) = d/dx[2x^5] (4x^2 + x) + 2x^5 d/dx[4x^2 + x]
= 10x^4 (4x^2 + x) + 2x^5 (8x + 1)
= 40x^6 + 10x^5 + 16x^6 + 2x^5
= 56x^6 + 12x^5"""),
    ("quotient 5x^2/(4x+3)", "OpenStax Calculus Vol. 1, 3.3, quotient rule example",
     """d/dx (5x^2/(4x + 3))
= (d/dx[5x^2] (4x + 3) - 5x^2 d/dx[4x + 3])/(4x + 3)^2
= (10x (4x + 3) - 5x^2 · 4)/(4x + 3)^2
= (40x^2 + 30x - 20x^2)/(4x + 3)^2
= (20x^2 + 30x)/(4x + 3)^2"""),
    ("quotient as a product", "Active Calculus, 2.3, a quotient rewritten as a product",
     """d/dx (x/(x^2 + 1))
= d/dx[x (x^2 + 1)^(-1)]
= (x^2 + 1)^(-1) + x · (-1)(x^2 + 1)^(-2) · 2x
= 1/(x^2 + 1) - 2x^2/(x^2 + 1)^2
= (x^2 + 1 - 2x^2)/(x^2 + 1)^2
= (1 - x^2)/(x^2 + 1)^2"""),
    ("chain (3x^2+1)^3", "OpenStax Calculus Vol. 1, 3.6, chain and power rules",
     """h(x) = (3x^2 + 1)^3
h'(x) = 3(3x^2 + 1)^2 d/dx[3x^2 + 1]
= 3(3x^2 + 1)^2 (6x)
= 18x (3x^2 + 1)^2"""),
    ("chain 1/(3x^2+1)^2", "OpenStax Calculus Vol. 1, 3.6, chain rule on a reciprocal power",
     """h(x) = 1/(3x^2 + 1)^2
= (3x^2 + 1)^(-2)
h'(x) = -2(3x^2 + 1)^(-3) · 6x
= -12x (3x^2 + 1)^(-3)
= -12x/(3x^2 + 1)^3"""),
    ("chain sin^3 x", "OpenStax Calculus Vol. 1, 3.6, chain rule with a trigonometric inside",
     """y = sin^3 x, find dy/dx
dy/dx = 3 sin^2 x · d/dx[sin x]
= 3 sin^2 x cos x"""),
    ("chain sqrt(1-x^2)", "Guichard, Calculus, 3.5 (the chain rule), sqrt(625 - x^2) type",
     """d/dx sqrt(625 - x^2)
= 1/(2 sqrt(625 - x^2)) · d/dx[625 - x^2]
= 1/(2 sqrt(625 - x^2)) · (-2x)
= -x/sqrt(625 - x^2)"""),
    ("trig x^2 cos x", "OpenStax Calculus Vol. 1, 3.5, derivatives of trigonometric functions",
     """f(x) = x^2 cos x
f'(x) = 2x cos x + x^2 d/dx[cos x]
= 2x cos x + x^2 (-sin x)
= 2x cos x - x^2 sin x"""),
    ("trig tan via quotient", "OpenStax Calculus Vol. 1, 3.5, the derivative of tan x",
     """d/dx (sin x/cos x)
= (cos x cos x - sin x (-sin x))/cos^2 x
= (cos^2 x + sin^2 x)/cos^2 x
= 1/cos^2 x
= sec^2 x"""),
    ("exp x^2 e^x", "Active Calculus, 2.3, product of a power and e^x",
     """d/dx (x^2 e^x)
= 2x e^x + x^2 e^x
= x e^x (2 + x)"""),
    ("log differentiation x^x", "OpenStax Calculus Vol. 1, 3.9, logarithmic differentiation",
     """y = x^x, find dy/dx
ln y = x ln x
y'/y = ln x + x · 1/x
y'/y = ln x + 1
y' = y (ln x + 1)
= x^x (ln x + 1)"""),
    ("log differentiation product", "OpenStax Calculus Vol. 1, 3.9, logarithmic differentiation of a quotient of products",
     """y = x sqrt(2x + 1)/e^x, find dy/dx
ln y = ln x + (1/2) ln(2x + 1) - x
y'/y = 1/x + 1/(2x + 1) - 1
y' = y (1/x + 1/(2x + 1) - 1)
= x sqrt(2x + 1)/e^x (1/x + 1/(2x + 1) - 1)"""),
    ("simplify a cubic first", "Active Calculus, 2.3, simplifying before differentiating",
     """d/dx ((x^3 + x)/x)
= d/dx[x^2 + 1]
= 2x"""),
    ("simplify first", "Active Calculus, 2.3, simplifying before differentiating",
     """d/dx ((x^2 + x)/x)
= d/dx[x + 1]
= 1"""),
    ("ln chain", "Guichard, Calculus, 4.7 (derivatives of the logarithm), ln of a polynomial",
     """f(x) = ln(x^2 + 3)
f'(x) = 1/(x^2 + 3) · d/dx[x^2 + 3]
= 2x/(x^2 + 3)"""),
    ("power rule polynomial", "OpenStax Calculus Vol. 1, 3.3, the power and sum rules",
     """f(x) = 2x^5 + 7x^3 - x
f'(x) = 10x^4 + 21x^2 - 1"""),
    ("distribute a minus", "Guichard, Calculus, 3.2 (linearity), a difference of sums",
     """d/dx (x^3 - (x^2 + 4x))
= 3x^2 - (2x + 4)
= 3x^2 - 2x - 4"""),
    ("latex product", "Active Calculus, 2.3, the product rule typeset",
     r"""\begin{align*}
\frac{d}{dx}\left(x^3 \cos x\right) &= \frac{d}{dx}\left(x^3\right)\cos x + x^3 \frac{d}{dx}(\cos x) \\
&= 3x^2 \cos x - x^3 \sin x \\
&= x^2\left(3\cos x - x \sin x\right)
\end{align*}"""),
    ("antiderivative", "OpenStax Calculus Vol. 1, 4.10, an antiderivative checked by differentiating",
     """∫ (3x^2 + 2x) dx
= x^3 + x^2 + C"""),
    ("chain e^(x^2)", "OpenStax Calculus Vol. 1, 3.9, the derivative of an exponential composite",
     """f(x) = e^(x^2)
f'(x) = e^(x^2) d/dx[x^2]
= 2x e^(x^2)"""),
    ("chain sin(x^2)", "Active Calculus, 2.5, the chain rule with a trigonometric outside",
     """d/dx sin(x^2)
= cos(x^2) · d/dx[x^2]
= 2x cos(x^2)"""),
    ("power of a power", "Guichard, Calculus, 3.1, simplifying a power before the power rule",
     """d/dx ((x^2)^3)
= d/dx[x^6]
= 6x^5"""),
    ("exponent rules", "OpenStax Calculus Vol. 1, 3.3, rewriting a root as a power first",
     """d/dx (x^2 sqrt(x))
= d/dx[x^(5/2)]
= (5/2) x^(3/2)"""),
]

#: (name of a RIGHT derivation, at, lines, kind)
MUTANTS = [
    ("product x^2 sin x", 2, ["= d/dx[x^2] d/dx[sin x]", "= 2x cos x"], "product rule"),
    ("product x^2 sin x", 3, ["= 2x sin x - x^2 cos x", "= x(2 sin x - x cos x)"], "sign"),
    ("product x^2 sin x", 3, ["= x sin x + x^2 cos x", "= x(sin x + x cos x)"], "power rule"),
    ("product 2x^5(4x^2+x)", 3, ["= 10x^4 (4x^2 + x) + 2x^5 (8x)", "= 40x^6 + 10x^5 + 16x^6",
                                 "= 56x^6 + 10x^5"], "missing term"),
    ("product 2x^5(4x^2+x)", 4, ["= 40x^8 + 10x^5 + 16x^6 + 2x^5", "= 40x^8 + 16x^6 + 12x^5"],
     "exponent rule"),
    ("quotient 5x^2/(4x+3)", 2, ["= (5x^2 d/dx[4x + 3] - d/dx[5x^2] (4x + 3))/(4x + 3)^2",
                                 "= (20x^2 - 10x (4x + 3))/(4x + 3)^2",
                                 "= (20x^2 - 40x^2 - 30x)/(4x + 3)^2",
                                 "= (-20x^2 - 30x)/(4x + 3)^2"], "quotient rule"),
    ("quotient 5x^2/(4x+3)", 2, ["= (d/dx[5x^2] (4x + 3) - 5x^2 d/dx[4x + 3])/(4x + 3)",
                                 "= (10x (4x + 3) - 20x^2)/(4x + 3)"], "quotient rule"),
    ("quotient 5x^2/(4x+3)", 4, ["= (40x^2 + 30x + 20x^2)/(4x + 3)^2",
                                 "= (60x^2 + 30x)/(4x + 3)^2"], "sign"),
    ("quotient as a product", 3, ["= (x^2 + 1)^(-1) + x · (-1)(x^2 + 1)^(-2)",
                                  "= 1/(x^2 + 1) - x/(x^2 + 1)^2"], "chain rule"),
    ("quotient as a product", 5, ["= (x^2 + 1 + 2x^2)/(x^2 + 1)^2",
                                  "= (3x^2 + 1)/(x^2 + 1)^2"], "sign"),
    ("chain (3x^2+1)^3", 2, ["h'(x) = 3(3x^2 + 1)^2", "= 27x^4 + 18x^2 + 3"], "chain rule"),
    ("chain (3x^2+1)^3", 2, ["h'(x) = 3(3x^2 + 1)^3 d/dx[3x^2 + 1]", "= 18x (3x^2 + 1)^3"],
     "power rule"),
    ("chain 1/(3x^2+1)^2", 3, ["h'(x) = -2(3x^2 + 1)^(-1) · 6x", "= -12x/(3x^2 + 1)"],
     "power rule"),
    ("chain 1/(3x^2+1)^2", 5, ["= -12x (3x^2 + 1)^3"], "exponent rule"),
    ("chain sin^3 x", 2, ["dy/dx = 3 sin^2 x", "= 3 sin^2 x"], "chain rule"),
    ("chain sqrt(1-x^2)", 3, ["= 1/(2 sqrt(625 - x^2)) · (2x)", "= x/sqrt(625 - x^2)"],
     "sign"),
    ("chain sqrt(1-x^2)", 2, ["= 1/(2 sqrt(625 - x^2))", "= 1/(2 sqrt(625 - x^2))"],
     "chain rule"),
    ("trig x^2 cos x", 3, ["= 2x cos x + x^2 sin x"], "sign"),
    ("trig x^2 cos x", 2, ["f'(x) = 2x d/dx[cos x]", "= -2x sin x"], "product rule"),
    ("trig tan via quotient", 2, ["= (cos x cos x - sin x sin x)/cos^2 x",
                                  "= (cos^2 x - sin^2 x)/cos^2 x"], "sign"),
    ("trig tan via quotient", 4, ["= 1 + sin^2 x"], "cancellation"),
    ("exp x^2 e^x", 2, ["= 2x e^x + x^2 x e^(x - 1)", "= 2x e^x + x^3 e^(x - 1)"],
     "exponential"),
    ("log differentiation x^x", 3, ["y'/y = ln x", "y'/y = ln x", "y' = y ln x",
                                    "= x^x ln x"], "product rule"),
    ("ln chain", 2, ["f'(x) = 1/(x^2 + 3)", "= 1/(x^2 + 3)"], "logarithm"),
    ("simplify a cubic first", 2, ["= d/dx[x^3 + 1]", "= 3x^2"], "cancellation"),
    ("power rule polynomial", 2, ["f'(x) = 10x^5 + 21x^2 - 1"], "power rule"),
    ("distribute a minus", 3, ["= 3x^2 - 2x + 4"], "sign"),
    ("simplify first", 2, ["= d/dx[x^2 + 1]", "= 2x"], "cancellation"),
    ("latex product", 3, [r"&= 3x^2 \cos x + x^3 \sin x \\",
                          r"&= x^2\left(3\cos x + x \sin x\right)"], "sign"),
    ("exponent rules", 2, ["= d/dx[x^(2/2)]", "= 1"], "exponent rule"),
    ("chain e^(x^2)", 2, ["f'(x) = e^(x^2)", "= e^(x^2)"], "chain rule"),
    ("chain sin(x^2)", 2, ["= cos(x^2)"], "chain rule"),
    ("power of a power", 2, ["= d/dx[x^5]", "= 5x^4"], "exponent rule"),
    ("chain (3x^2+1)^3", 4, ["= 9x (3x^2 + 1)^2"], "constant factor"),
]


def mutated(text: str, at: int, lines: list) -> str:
    """``text`` with its lines from ``at`` (1-based) on replaced by ``lines``; a LaTeX
    environment's closing line is kept."""
    rows = text.splitlines()
    closing = [rows[-1]] if rows[-1].startswith("\\end{") else []
    return "\n".join(rows[:at - 1] + list(lines) + closing)
