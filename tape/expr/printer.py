"""Formulas written as text: the ``read as`` spelling every command shows (SymPy syntax, from
tape's tree), and SymPy expressions in each ``--notation`` (``notate``: ``math``, ``python``,
``latex``).

Reading the text this writes gives the same tree (``read_as``) or the same function
(``notate``) again.
"""
from __future__ import annotations

from collections import deque

from .tree import Binary, Call, Constant, Index, Number, Relation, Unary, Variable, fold

_PRINTED = {"ceil": "ceiling", "max": "Max", "min": "Min"}
_SUPERSCRIPTS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_LEVEL = {"+": 1, "-": 1, "*": 2, "/": 2, "**": 4}


def read_as(tree) -> str:
    """The tree in SymPy syntax, bracketed exactly where the tree's shape needs it, so that
    reading the result gives the same tree: ``2*x*y``, ``sin(x)**2``, ``log(x, 2)``."""

    def number(value: float) -> str:
        if value != value:
            return "nan"
        if value == float("inf"):
            return "1e999"
        if value.is_integer() and abs(value) < 1e16:
            return str(int(value))
        return repr(value)

    def join(left: deque, middle: str, right: deque) -> deque:
        # pieces in deques, the longer one grown in place: a 100,000-term sum is linear
        if len(left) >= len(right):
            left.append(middle)
            left.extend(right)
            return left
        right.appendleft(middle)
        right.extendleft(reversed(left))
        return right

    def bracket(parts: deque) -> deque:
        parts.appendleft("(")
        parts.append(")")
        return parts

    def visit(node, kids):
        # each result: (pieces, level); atoms are 5, unary minus 3, ** 4, * / 2, + - 1
        if isinstance(node, Number):
            return deque([number(node.value)]), 5
        if isinstance(node, (Constant, Variable)):
            return deque([node.name]), 5
        if isinstance(node, Index):
            parts, level = kids[0]
            # a number before brackets reads as a product (``3[3]`` is 3*3): keep it bracketed
            atom = level == 5 and not isinstance(node.operand, Number)
            parts = parts if atom else bracket(parts)
            parts.append(f"[{node.index}]")
            return parts, 5
        if isinstance(node, Call):
            name = _PRINTED.get(node.name, node.name)
            parts = deque([name, "("])
            for k, (kid, _) in enumerate(kids):
                parts = join(parts, ", " if k else "", kid)
            parts.append(")")
            return parts, 5
        if isinstance(node, Unary):
            parts, level = kids[0]
            parts = parts if level >= 3 else bracket(parts)
            parts.appendleft(node.op)
            return parts, 3
        if isinstance(node, Binary):
            (left, ll), (right, rl) = kids
            level = _LEVEL[node.op]
            if node.op == "**":
                left = left if ll > 4 else bracket(left)
                right = right if rl >= 3 else bracket(right)
                return join(left, "**", right), 4
            left = left if ll >= level else bracket(left)
            right = right if rl > level else bracket(right)
            return join(left, f" {node.op} " if level == 1 else node.op, right), level
        if isinstance(node, Relation):
            # a lone name before = would read back as a label (y = ...): bracketed, it stays
            # the equation's left side
            left = bracket(kids[0][0]) if isinstance(node.left, Variable) else kids[0][0]
            return join(left, " = ", kids[1][0]), 0
        raise TypeError(f"unknown expression node {node!r}")

    return "".join(fold(tree, visit)[0])


def superscript(n: int) -> str:
    """An integer in superscript digits: ``12`` -> ``¹²``, ``-1`` -> ``⁻¹``."""
    return str(n).translate(_SUPERSCRIPTS)


# --------------------------------------------------------------------------- notations

#: how a formula can be written (``--notation``): a textbook's ``math`` (``x^2 cos(x)``,
#: ``ln``, ``e^x``, ``√x``), ``python`` (SymPy syntax, ``x**2*cos(x)``) or ``latex``
NOTATIONS = ("math", "python", "latex")


def check_notation(notation: str) -> None:
    if notation not in NOTATIONS:
        raise ValueError(f"notation must be one of {', '.join(NOTATIONS)}, not {notation!r}")


def notate(expr, notation: str, ascending: bool = False) -> str:
    """A SymPy expression written in ``notation`` (``NOTATIONS``); ``ascending``: a
    polynomial's terms from the lowest power up (``x - x^3/6``). tape's reader reads every
    one of them back to the same function."""
    check_notation(notation)
    order = "rev-lex" if ascending else None
    if notation == "math":
        return _math_printer(order).doprint(expr)
    import sympy

    if notation == "latex":
        return _latex_printer(order, expr).doprint(expr)
    return sympy.sstr(expr, order=order)


def notate_terms(terms: list, notation: str) -> str:
    """A sum of exact terms ``(coefficient, {name: (a, power)})`` (SymPy numbers) in powers of
    ``(x - a)``, lowest first, each shift kept as one bracket: ``x - (x - 1)^2/2``."""
    import sympy

    def shift(name: str, a):
        symbol = sympy.Symbol(name)
        if a == 0:
            return symbol
        sign = "+" if a.is_negative else "-"
        size = -a if a.is_negative else a
        text = notate(size, notation)
        if size.is_Add:         # x - (1 - √2), never x - 1 - √2
            text = f"({text})"
        return sympy.Symbol(f"({name} {sign} {text})")

    total = sympy.Add(*[c * sympy.Mul(*[shift(n, a) ** k for n, (a, k) in powers.items()])
                        for c, powers in terms])
    return notate(total, notation, ascending=True)


_MATH: dict = {}


def _math_printer(order=None):
    """SymPy's text printer speaking a textbook's notation, built once: products by
    juxtaposition (``2x sin(x)``), ``^`` powers, ``√``, ``e^x``, ``ln``, ``|x|``, ``π``;
    a denominator bracketed unless it is one name, number, call or power, so that nothing
    reads two ways (``1/(2x)``, never ``1/2x``)."""
    if order in _MATH:
        return _MATH[order]
    import sympy as sp
    from sympy.printing.precedence import PRECEDENCE, precedence
    from sympy.printing.str import StrPrinter

    class MathPrinter(StrPrinter):
        def _atom(self, expr) -> bool:
            return bool(expr.is_Symbol or (expr.is_Integer and expr >= 0)
                        or expr in (sp.pi, sp.E) or isinstance(expr, sp.Function))

        def _group(self, expr) -> str:
            text = self._print(expr)
            return text if self._atom(expr) else f"({text})"

        def _print_Pow(self, expr, rational=False):
            base, exp = expr.base, expr.exp
            if exp.is_number and exp.is_negative:
                return "1/" + self._denominator(base ** -exp)
            if exp is sp.S.Half:
                return "√" + self._group(base)
            if base is sp.E:
                return "e^" + self._group(exp)
            return self._group(base) + "^" + self._group(exp)

        def _print_exp(self, expr):
            return "e^" + self._group(expr.args[0])

        def _print_log(self, expr):
            return "ln(" + ", ".join(self._print(a) for a in expr.args) + ")"

        def _print_Abs(self, expr):
            return "|" + self._print(expr.args[0]) + "|"

        def _print_Exp1(self, expr):
            return "e"

        def _print_Pi(self, expr):
            return "π"

        def _print_Rational(self, expr):
            return f"{expr.p}/{expr.q}"

        def _denominator(self, expr) -> str:
            text = self._print(expr)
            simple = self._atom(expr) or (expr.is_Pow and not (
                expr.exp.is_number and expr.exp.is_negative))
            return text if simple else f"({text})"

        def _product(self, factors) -> str:
            out, number = "", False
            for f in factors:
                text = self.parenthesize(f, PRECEDENCE["Mul"], strict=False) \
                    if precedence(f) < PRECEDENCE["Mul"] else self._print(f)
                if not out:
                    out = text
                elif number and (text[0] in "(√π" or text.startswith("e^") or (
                        text[0].isalpha() and text[0] != "e")):
                    # 2x, 2sin(x), 2(x + 1), 2e^x: a number before a name (but 2 eps, never
                    # a number's exponent)
                    out += text
                elif out[-1].isdigit() and text[0].isdigit():
                    out += "·" + text    # 2·3^x: two numbers side by side would be one
                else:
                    out += " " + text
                number = f.is_Number
            return out

        def _print_Mul(self, expr):
            coefficient, _ = expr.as_coeff_Mul()
            if coefficient.is_negative:
                rest = -expr
                text = self._print(rest)
                return "-" + (f"({text})" if rest.is_Add else text)
            numerator, denominator = sp.fraction(expr, exact=True)
            top = self._product(sp.Mul.make_args(numerator)) if numerator.is_Mul \
                else self._product([numerator])
            if denominator == 1:
                return top
            return f"{top}/{self._denominator(denominator)}"

    _MATH[order] = MathPrinter({"order": order})
    return _MATH[order]


def _latex_printer(order, expr):
    """SymPy's LaTeX printer, with what tape's reader reads: a name with digits or ``_`` as it
    is (``x1``, not SymPy's subscript ``x_{1}``), ``\\operatorname{floor}`` for ``⌊x⌋``,
    ``\\operatorname{atan2}``, and ``\\log^{2}`` for (ln x)^2."""
    import sympy
    from sympy.printing.latex import LatexPrinter

    class Latex(LatexPrinter):
        def _print_floor(self, e, exp=None):
            return self._named("floor", e, exp)

        def _print_ceiling(self, e, exp=None):
            return self._named("ceil", e, exp)

        def _print_atan2(self, e, exp=None):
            return self._named("atan2", e, exp)

        def _print_Pow(self, e):
            # SymPy writes (ln x)^2 as \log{\left(x \right)}^{2}, which reads as ln(x^2)
            if isinstance(e.base, sympy.log) and e.exp.is_positive:
                return rf"\log^{{{self._print(e.exp)}}}{{\left({self._print(e.base.args[0])} " \
                    r"\right)}"
            return super()._print_Pow(e)

        def _named(self, name, e, exp):
            args = ", ".join(self._print(a) for a in e.args)
            text = rf"\operatorname{{{name}}}\left({args}\right)"
            return text if exp is None else rf"{text}^{{{exp}}}"

    names = {s: s.name for s in getattr(expr, "free_symbols", ())
             if not s.name.isalpha() or s.name == "lambda"}
    return Latex({"order": order, "symbol_names": names})
