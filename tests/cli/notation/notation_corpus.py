"""Notation as people type it, each with its intended meaning in plain Python syntax.

Sources: the derivative exercise lists of first-year calculus textbooks (power, product,
quotient and chain rules; trigonometric, exponential, logarithmic, inverse trigonometric and
hyperbolic functions), and the input conventions of online derivative calculators and
calculator apps (spaces as products, functions without brackets, ``sin^2 x``, ``|x|``,
unicode superscripts and roots, LaTeX pasted from a document).

``READINGS``: (typed, meaning) - the typed text must read as the same tree as the meaning,
written in SPEC section 3's explicit syntax.
"""
from __future__ import annotations

# --- implicit multiplication (SPEC 4, first bullet) -------------------------------------
PRODUCTS = [
    ("2x", "2*x"), ("x y", "x*y"), ("x sin x", "x*sin(x)"), ("2sin(x)cos(x)", "2*sin(x)*cos(x)"),
    ("(x+1)(x-1)", "(x+1)*(x-1)"), ("(x+1)x", "(x+1)*x"), ("x(x+1)", "x*(x+1)"),
    ("3x^2y", "3*x**2*y"), ("e^x(x+1)", "e**x*(x+1)"), ("2ln(3)3^(2x)", "2*log(3)*3**(2*x)"),
    ("x^2 sin x", "x**2*sin(x)"), ("x e^x", "x*e**x"), ("1.5 sqrt(x)", "1.5*sqrt(x)"),
    ("x^2 y^3", "x**2*y**3"), ("x(x^2+1)^3", "x*(x**2+1)**3"), ("1/2x", "1/2*x"),
    ("2x^2", "2*x**2"), ("4x^3 - 3x^2 + 2x - 1", "4*x**3 - 3*x**2 + 2*x - 1"),
    ("5x^4", "5*x**4"), ("-3x^-2", "-3*x**-2"), ("x^(1/2)", "x**(1/2)"),
    ("(2x+1)^5", "(2*x+1)**5"), ("(x^2+1)(x^3-2)", "(x**2+1)*(x**3-2)"),
    ("3(x+1)", "3*(x+1)"), ("4sin(x)", "4*sin(x)"), ("2 x", "2*x"), ("x 2", "x*2"),
    ("(x)(y)(z)", "(x)*(y)*(z)"), ("2(x+1)(x-1)", "2*(x+1)*(x-1)"), ("x^2(x+1)", "x**2*(x+1)"),
    ("(x+1)^2(x-1)^3", "(x+1)**2*(x-1)**3"), ("e^(2x)", "e**(2*x)"), ("e^(-x^2)", "e**(-x**2)"),
    ("x e^(-x)", "x*e**(-x)"), ("2^x ln 2", "2**x*log(2)"), ("10^x", "10**x"),
    ("0.5x^2", "0.5*x**2"), (".5x", ".5*x"), ("1e-3x", "1e-3*x"), ("3.14x", "3.14*x"),
    ("x(1-x)", "x*(1-x)"), ("t^2 e^t", "t**2*e**t"), ("a x^2 + b x + c", "a*x**2 + b*x + c"),
    ("(x+1)/(x-1)", "(x+1)/(x-1)"), ("(1+x^2)^(-1)", "(1+x**2)**(-1)"),
    ("x^3 (2x+1)^4", "x**3*(2*x+1)**4"), ("sqrt(x) e^x", "sqrt(x)*e**x"),
    ("x^2 ln x", "x**2*log(x)"), ("x ln x - x", "x*log(x) - x"),
    ("e^x sin x", "e**x*sin(x)"), ("e^x cos x", "e**x*cos(x)"), ("x^2 e^x", "x**2*e**x"),
    ("2e", "2*e"), ("2pi", "2*pi"), ("2π", "2*pi"), ("πr^2", "pi*r**2"),
]

# --- runs of letters (SPEC 4, second bullet) ---------------------------------------------
LETTERS = [
    ("xy", "x*y"), ("2xy", "2*x*y"), ("xsinx", "x*sin(x)"), ("πx", "pi*x"), ("sinx", "sin(x)"),
    ("lnx", "log(x)"), ("cosx", "cos(x)"), ("tanx", "tan(x)"), ("xyz", "x*y*z"),
    ("3xy^2", "3*x*y**2"), ("x^2y^2", "x**2*y**2"), ("xe^x", "x*e**x"), ("pix", "pi*x"),
    ("sin2x", "sin(2*x)"), ("cos3x", "cos(3*x)"), ("e^xsinx", "e**x*sin(x)"),
    ("xcosx", "x*cos(x)"), ("xlnx", "x*log(x)"), ("sinxcosx", "sin(x)*cos(x)"),
    ("2xsinx", "2*x*sin(x)"), ("ab", "a*b"), ("exp(x)", "exp(x)"), ("sinh x", "sinh(x)"),
    ("sechx", "sech(x)"), ("arcsinx", "asin(x)"), ("theta^2", "theta**2"),
    ("2theta", "2*theta"), ("θx", "θ*x"), ("sin θ", "sin(θ)"), ("x1 + x_1", "x1 + x_1"),
    ("rate_1*t", "rate_1*t"), ("x2^2", "x2**2"), ("y_0 x", "y_0*x"),
    ("alpha beta", "alpha*beta"), ("2alpha", "2*alpha"), ("lambda_1 x", "lambda_1*x"),
]

# --- functions without brackets (third bullet) -------------------------------------------
BARE_FUNCTIONS = [
    ("sin x", "sin(x)"), ("ln x + 1", "log(x) + 1"), ("3 cos 3x", "3*cos(3*x)"),
    ("sin 2x", "sin(2*x)"), ("sec^2 x", "sec(x)**2"), ("sin x cos x", "sin(x)*cos(x)"),
    ("sin x^2", "sin(x**2)"), ("ln x/x", "log(x)/x"), ("sin x + cos x", "sin(x) + cos(x)"),
    ("cos x - sin x", "cos(x) - sin(x)"), ("tan x", "tan(x)"), ("e^x + ln x", "e**x + log(x)"),
    ("ln sin x", "log(sin(x))"), ("sin cos x", "sin(cos(x))"), ("sqrt x", "sqrt(x)"),
    ("sqrt x + 1", "sqrt(x) + 1"), ("exp x", "exp(x)"), ("exp -x", None),
    ("ln 2x", "log(2*x)"), ("ln(x) x", "log(x)*x"), ("x ln x", "x*log(x)"),
    ("sin x/2", "sin(x)/2"), ("cos 2x + sin 2x", "cos(2*x) + sin(2*x)"),
    ("2 sin x cos x", "2*sin(x)*cos(x)"), ("sin(x) cos(x)", "sin(x)*cos(x)"),
    ("tan 3x^2", "tan(3*x**2)"), ("ln|x|", "log(abs(x))"), ("ln x^2", "log(x**2)"),
    ("ln(x^2+1)", "log(x**2+1)"), ("sin(2x+1)", "sin(2*x+1)"), ("cos (x^2)", "cos(x**2)"),
    ("sin x * cos x", "sin(x)*cos(x)"), ("sin x, ", None), ("log x", "log(x)"),
    ("ln(ln x)", "log(log(x))"), ("sin(x)^2", "sin(x)**2"), ("e^sin x", "e**sin(x)"),
    ("sinh x cosh x", "sinh(x)*cosh(x)"), ("atan x", "atan(x)"), ("sqrt 2x", "sqrt(2*x)"),
    ("x^2 + sin x^2", "x**2 + sin(x**2)"), ("sin πx", "sin(pi*x)"), ("cos(πx)", "cos(pi*x)"),
]

# --- powers and inverses on function names (fourth bullet) --------------------------------
FUNCTION_POWERS = [
    ("sin^2(x)", "sin(x)**2"), ("sin^2 x", "sin(x)**2"), ("sin²x", "sin(x)**2"),
    ("ln^2 x", "log(x)**2"), ("sin^-1 x", "asin(x)"), ("sin^(-1)(x)", "asin(x)"),
    ("sin⁻¹x", "asin(x)"), ("tan^-1(x^2)", "atan(x**2)"), ("cos²(√x)", "cos(sqrt(x))**2"),
    ("sech^2(x)", "sech(x)**2"), ("cos^3 x", "cos(x)**3"), ("tan^2 x + 1", "tan(x)**2 + 1"),
    ("sin^2 x + cos^2 x", "sin(x)**2 + cos(x)**2"), ("cos^-1 x", "acos(x)"),
    ("tan⁻¹ x", "atan(x)"), ("sinh^-1 x", "asinh(x)"), ("cosh^-1(x)", "acosh(x)"),
    ("tanh^-1 x", "atanh(x)"), ("sec^-1 x", "asec(x)"), ("csc^-1 x", "acsc(x)"),
    ("cot^-1 x", "acot(x)"), ("sech^-1 x", "asech(x)"), ("csch^-1 x", "acsch(x)"),
    ("coth^-1 x", "acoth(x)"), ("sin^2(3x)", "sin(3*x)**2"), ("cos^2 2x", "cos(2*x)**2"),
    ("sin³x", "sin(x)**3"), ("tan^(2)(x)", "tan(x)**2"), ("sec²x", "sec(x)**2"),
    ("csc^2 x", "csc(x)**2"), ("cot^2 x", "cot(x)**2"), ("sin^2x", "sin(x)**2"),
]

# --- names (fifth bullet) ----------------------------------------------------------------
NAMES = [
    ("arcsin(x)", "asin(x)"), ("arccos(x)", "acos(x)"), ("arctan(x)", "atan(x)"),
    ("arcsec(x)", "asec(x)"), ("arccsc(x)", "acsc(x)"), ("arccot(x)", "acot(x)"),
    ("asec(x)", "asec(x)"), ("acsc(x)", "acsc(x)"), ("acot(x)", "acot(x)"),
    ("sech(x)", "sech(x)"), ("csch(x)", "csch(x)"), ("coth(x)", "coth(x)"),
    ("arsinh(x)", "asinh(x)"), ("arcsinh(x)", "asinh(x)"), ("arcosh(x)", "acosh(x)"),
    ("arccosh(x)", "acosh(x)"), ("artanh(x)", "atanh(x)"), ("arctanh(x)", "atanh(x)"),
    ("arsech(x)", "asech(x)"), ("arcsech(x)", "asech(x)"), ("arcsch(x)", "acsch(x)"),
    ("arccsch(x)", "acsch(x)"), ("arcoth(x)", "acoth(x)"), ("arccoth(x)", "acoth(x)"),
    ("asech(x)", "asech(x)"), ("acsch(x)", "acsch(x)"), ("acoth(x)", "acoth(x)"),
    ("sgn(x)", "sign(x)"), ("sign(x)", "sign(x)"), ("floor(x)", "floor(x)"),
    ("ceil(x)", "ceil(x)"), ("ceiling(x)", "ceil(x)"), ("max(x, y)", "max(x, y)"),
    ("min(x, 1)", "min(x, 1)"), ("log(x, 2)", "log(x, 2)"), ("log_2(x)", "log(x, 2)"),
    ("log_2 x", "log(x, 2)"), ("log_b(x)", "log(x, b)"), ("log_10 x", "log(x, 10)"),
    ("log_3(x^2)", "log(x**2, 3)"), ("log_{10} x", "log(x, 10)"), ("log_(2)(x^2)", "log(x**2, 2)"),
    ("log_{b}(x)", "log(x, b)"), ("root(x, 3)", "root(x, 3)"), ("root(x, n)", "root(x, n)"),
    ("log(x)", "log(x)"), ("ln(x)", "log(x)"), ("log2(x)", "log2(x)"), ("log10(x)", "log10(x)"),
    ("arctan x", "atan(x)"), ("arcsin 2x", "asin(2*x)"), ("sgn x", "sign(x)"),
    ("Abs(x)", "abs(x)"), ("abs(x)", "abs(x)"), ("Max(x, y)", "max(x, y)"),
]

# --- symbols (sixth bullet) ----------------------------------------------------------------
SYMBOLS = [
    ("|x|", "abs(x)"), ("||x|-1|", "abs(abs(x)-1)"), ("x|x|", "x*abs(x)"),
    ("ln|x|", "log(abs(x))"), ("|x-1|", "abs(x-1)"), ("|2x+1|^3", "abs(2*x+1)**3"),
    ("1/|x|", "1/abs(x)"), ("|x||y|", "abs(x)*abs(y)"), ("|sin x|", "abs(sin(x))"),
    ("x²", "x**2"), ("x³", "x**3"), ("x⁻¹", "x**-1"), ("x¹⁰", "x**10"), ("5x⁴", "5*x**4"),
    ("(x+1)²", "(x+1)**2"), ("x² + 2x + 1", "x**2 + 2*x + 1"), ("e^x²", "e**x**2"),
    ("√x", "sqrt(x)"), ("√(x+1)", "sqrt(x+1)"), ("2√x", "2*sqrt(x)"), ("∛x", "cbrt(x)"),
    ("∜x", "root(x, 4)"), ("∛(x^2)", "cbrt(x**2)"), ("x√x", "x*sqrt(x)"),
    ("1/√x", "1/sqrt(x)"), ("√x²", "sqrt(x**2)"), ("√(1-x²)", "sqrt(1-x**2)"),
    ("2·x", "2*x"), ("x × y", "x*y"), ("x ÷ 2", "x/2"), ("x − 1", "x-1"), ("π/2", "pi/2"),
    ("θ^2", "θ**2"), ("ℯ^x", "e**x"), ("sin θ cos θ", "sin(θ)*cos(θ)"), ("α x", "α*x"),
    ("ｘ^２", "x**2"), ("３ｘ＋１", "3*x+1"), ("ｓｉｎ(ｘ)", "sin(x)"), ("x⋅y", "x*y"),
    ("e^{-x}", "e**(-x)"), ("x^{2}", "x**(2)"), ("{x+1}^2", "(x+1)**2"),
]

# --- labels and equations (seventh bullet) ---------------------------------------------------
LABELS = [
    ("y = x^2", "x**2"), ("f(x) = x^2", "x**2"), ("d/dx (x^2)", "x**2"), ("d/dx x^2", "x**2"),
    ("y = 3x^2 + 2x", "3*x**2 + 2*x"), ("f(x) = sin x", "sin(x)"), ("g(t) = t e^t", "t*e**t"),
    ("y' = 2x", "2*x"), ("f'(x) = 2x", "2*x"), ("dy/dx = 2x", "2*x"), ("d/dt (t^3)", "t**3"),
    ("d/dx[x^2]", "x**2"), ("h(x)=ln x", "log(x)"),
    ("y'' = 6x", "6*x"), ("d^2y/dx^2 = 6x", "6*x"), ("d2y/dx2 = 6x", "6*x"),
    ("d²y/dx² = 6x", "6*x"), ("y′ = 2x", "2*x"), ("f′(x) = 2x", "2*x"), ("y″ = 6x", "6*x"),
    ("y’ = 2x", "2*x"),
]

# --- LaTeX (eighth bullet) -----------------------------------------------------------------
LATEX = [
    (r"\frac{1}{x}", "((1)/(x))"), (r"\dfrac{x^2}{2}", "((x**2)/(2))"), (r"\sqrt{x}", "sqrt(x)"),
    (r"\sqrt[3]{x}", "cbrt(x)"), (r"\sqrt[4]{x+1}", "root(x+1, 4)"), (r"\sin x", "sin(x)"),
    (r"\sin^2 x", "sin(x)**2"), (r"\ln x", "log(x)"), (r"\ln(x)", "log(x)"),
    (r"\log_{2} x", "log(x, 2)"), (r"\log_{10}(x)", "log(x, 10)"), (r"\exp(x)", "exp(x)"),
    (r"\arctan x", "atan(x)"), (r"x^{2}", "x**2"), (r"e^{-x}", "e**(-x)"),
    (r"2\cdot x", "2*x"), (r"x \times y", "x*y"), (r"\left( x+1 \right)^2", "(x+1)**2"),
    (r"\left| x \right|", "abs(x)"), (r"\pi x", "pi*x"), (r"2\pi", "2*pi"),
    (r"\theta^2", "theta**2"), (r"\cos\theta", "cos(theta)"), (r"\frac{d}{dx}\left(x^3\right)", "x**3"),
    (r"\sin^{2}(x)\cos x", "sin(x)**2*cos(x)"), (r"\frac12 x", "(1/2)*x"),
    (r"x^{10}\sin x", "x**10*sin(x)"), (r"\sqrt x", "sqrt(x)"), (r"$x^2\sin x$", "x**2*sin(x)"),
    (r"\frac{x+1}{x-1}", "(x+1)/(x-1)"), (r"e^{x}\cos{x}", "e**x*cos(x)"),
    (r"\frac{\sin x}{x}", "sin(x)/x"), (r"\tan^{-1} x", "atan(x)"),
    (r"3x^{2} + \frac{2}{x^{3}}", "3*x**2 + 2/x**3"), (r"\sqrt{1 - x^{2}}", "sqrt(1 - x**2)"),
    (r"\ln\left|x\right|", "log(abs(x))"), (r"\cosh x \, \sinh x", "cosh(x)*sinh(x)"),
    (r"\operatorname{sgn}(x)", "sign(x)"), (r"\alpha x + \beta", "alpha*x + beta"),
]

# --- precedence of section 3, unchanged ------------------------------------------------------
SECTION_3 = [
    ("-x^2", "-(x**2)"), ("x^3^2", "x**(3**2)"), ("2x^2", "2*(x**2)"), ("1/2x", "(1/2)*x"),
    ("x**2*y + sin(z[1])", "x**2*y + sin(z[1])"), ("-x**2", "-(x**2)"), ("2**-1", "2**(-1)"),
    ("x - y - z", "(x - y) - z"), ("x / y / z", "(x / y) / z"), ("x^-1", "x**(-1)"),
    ("atan2(y, x)", "atan2(y, x)"), ("sum(v)", "sum(v)"), ("dot(v, w)", "dot(v, w)"),
    ("v[0]*v[1]", "v[0]*v[1]"), ("+x", "+x"), ("--x", "-(-x)"), ("pi*e*x", "pi*e*x"),
]

READINGS = (PRODUCTS + LETTERS + BARE_FUNCTIONS + FUNCTION_POWERS + NAMES + SYMBOLS + LABELS
            + LATEX + SECTION_3)

# Readings with a plausible other meaning: (typed, meaning, a fragment of the note)
NOTED = [
    ("1/2x", "(1/2)*x", "read 1/2x as (1/2)*x"),
    ("e^2x", "(e**2)*x", "read e^2x as (e**2)*x"),
    ("x^1/2", "(x**1)/2", "read x^1/2 as (x**1)/2"),
    ("sin x/2", "sin(x)/2", "read sin x/2 as sin(x)/2"),
    ("log(2, x)", "log(2, x)", "read log(2, x) as log(2, x)"),
    ("log(x, 2)", "log(x, 2)", "WolframAlpha reads log(b, x)"),
    ("xy", "x*y", "read xy as x*y"),
    ("sin 2x", "sin(2*x)", "read sin 2x as sin(2*x)"),
    ("sin^-1 x", "asin(x)", "read sin^-1 as asin"),
    ("tan⁻¹x", "atan(x)", "read tan⁻¹ as atan"),
    ("3/4x^2", "(3/4)*x**2", "read 3/4x as (3/4)*x"),
    ("e^3t", "e**3*t", "read e^3t as (e**3)*t"),
    ("xsinx", "x*sin(x)", "read xsinx as x sin x"),
    ("x^3/2", "(x**3)/2", "read x^3/2 as (x**3)/2"),
    ("e^-2x", "(e**-2)*x", "read e^-2x as (e**-2)*x"),
    ("x^-1/2", "(x**-1)/2", "read x^-1/2 as (x**-1)/2"),
    ("(x+1)^2x", "((x+1)**2)*x", "read (x+1)^2x as ((x+1)**2)*x (write (x+1)^(2x)"),
    ("sin(x)^2x", "(sin(x)**2)*x", "read sin(x)^2x as (sin(x)**2)*x"),
    ("|x|^1/2", "abs(x)**1/2", "read |x|^1/2 as (|x|**1)/2 (write |x|^(1/2)"),
    ("x^2(x+1)", "x**2*(x+1)", "(write x^(2(x+1)) for the other reading)"),
    ("sin x^1/2", "sin(x**1)/2", "read x^1/2 as (x**1)/2"),
    ("√x^1/2", "sqrt(x**1)/2", "read x^1/2 as (x**1)/2"),
    ("ln(x)/2x", "(log(x)/2)*x", "read ln(x)/2x as (ln(x)/2)*x (write ln(x)/(2x)"),
    ("1/2(x+1)", "(1/2)*(x+1)", "read 1/2(x+1) as (1/2)*(x+1)"),
    ("√2x", "sqrt(2)*x", "read √2x as sqrt(2)*x (write √(2x) for the other reading)"),
    ("∛8x", "cbrt(8)*x", "read ∛8x as cbrt(8)*x"),
    ("√2(x+1)", "sqrt(2)*(x+1)", "read √2(x+1) as sqrt(2)*(x+1)"),
]

# Readings that are not notes: no note line may be printed for these
UNNOTED = ["√2 x", "√2sin x", "2√x", "x^2/4", "x^2", "sin(x)", "2x", "x^2 + 1", "sin x", "e^(2x)", "x^(1/2)", "1/(2x)", "(1/2)x",
           "log_2(x)", "sin(x)/2", "2*x*y", "x y"]

# Errors: (typed, fragment of the message or of a hint)
ERRORS = [
    ("2 3", "two numbers side by side"),
    ("sin^2", "did you mean sin(x)^2?"),
    ("sin² + 1", "did you mean sin(x)^2?"),
    ("log_2", "log_2 needs an argument"),
    ("sin^-2 x", "write 1/sin(x)^2"),
    ("sin^-3(x)", "write 1/sin(x)^3"),
    ("ln^-1 x", "write 1/ln(x)"),
    ("arcsn(x)", "did you mean arcsin?"),
    ("sinn(x)", "did you mean sin?"),
    ("|x", "never closed"),
    ("x^2 + y^2 = 1", "--implicit"),
    ("x = y = 1", "only one ="),
    ("y =", "both sides"),
    ("√", "a root needs"),
    ("sin^ x", "put a number"),
    ("d/dx", "needs an expression"),
    (r"\foo x", "unknown LaTeX command"),
    (r"\frac{1}{x", "never closed"),
    ("sin", "call it like sin(x)"),
    ("foo(x)", "unknown function 'foo'"),
    ("x $ y", "invalid syntax"),
    ("xy(x+1)", "unknown function 'xy'"),
    ("2.5.3", "two numbers side by side"),
    ("2,5x", "write decimals with a point (2.5, not 2,5)"),
    ("lambda x", "write λ, or another name such as lam"),
    ("2 lambda^2", "the Greek letter lambda cannot be spelled out"),
    ("x^2 + 1,5", "write decimals with a point"),
]

# Names the command declared are never split: (typed, declared, meaning)
DECLARED = [
    ("rate*time", ("rate", "time"), "rate*time"),
    ("xy^2", ("xy",), "xy**2"),
    ("2xy", ("xy",), "2*xy"),
    ("k t", ("k", "t"), "k*t"),
    ("rate(1+t)", ("rate", "t"), "rate*(1+t)"),
    ("sin(omega t)", ("omega", "t"), "sin(omega*t)"),
    ("speed^2", ("speed",), "speed**2"),
    ("speed^2", (), "s*p*e*e*d**2"),
]

# tape check verdicts: (expression, a right answer, a wrong answer) as students type them
VERDICTS = [
    ("x^2 sin x", "2x sin x + x^2 cos x", "2x cos x"),
    ("sin x^2", "2x cos x^2", "cos x^2"),
    ("sin^2 x", "2 sin x cos x", "2 sin x"),
    ("cos(πx)", "-π sin(πx)", "-sin(πx)"),
    ("e^x(x+1)", "e^x(x+2)", "e^x"),
    ("(x+1)(x-1)", "2x", "2"),
    ("x(x^2+1)^3", "(x^2+1)^3 + 6x^2(x^2+1)^2", "3(x^2+1)^2"),
    ("ln|x|", "1/x", "1/|x|"),
    ("x|x|", "2|x|", "|x|"),
    ("sin^-1 x", "1/√(1-x²)", "1/(1+x^2)"),
    ("tan^-1(x^2)", "2x/(1+x^4)", "1/(1+x^4)"),
    ("√x", "1/(2√x)", "1/√x"),
    ("∛x", "1/(3∛(x^2))", "1/(3x)"),
    ("log_2 x", "1/(x ln 2)", "1/x"),
    ("log(x, 2)", "1/(x ln(2))", "ln(2)/x"),
    ("sech x", "-sech x tanh x", "sech x tanh x"),
    ("arcsinh x", "1/√(x²+1)", "1/√(x²-1)"),
    ("3 cos 3x", "-9 sin 3x", "-3 sin 3x"),
    ("2sin(x)cos(x)", "2cos(2x)", "2cos(x)^2"),
    ("x²", "2x", "x"),
    (r"\frac{1}{x}", r"-\frac{1}{x^{2}}", r"\frac{1}{x^{2}}"),
    (r"\sin^2 x", "sin(2x)", "2 sin x"),
    (r"\sqrt[3]{x}", r"\frac{1}{3}x^{-2/3}", r"\frac{1}{3}x^{-1/3}"),
    ("y = x^3", "3x^2", "3x"),
    ("f(x) = e^{2x}", "2e^{2x}", "e^{2x}"),
    ("d/dx (x^4)", "4x^3", "4x^4"),
    ("2ln(3)3^(2x)", "4 ln(3)^2 3^(2x)", "2ln(3)3^(2x)"),
    ("e^x sin x", "e^x(sin x + cos x)", "e^x cos x"),
    ("xe^x", "e^x + xe^x", "xe^x"),
    ("sec^2 x", "2sec^2 x tan x", "2 sec x"),
    ("arctan x", "1/(1+x^2)", "1/(1-x^2)"),
    ("ln x/x", "(1 - ln x)/x^2", "1/x^2"),
    ("floor(x) + x", "1", "0"),
    ("sgn(x) x", "sgn(x)", "1"),
]
