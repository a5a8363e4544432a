"""LaTeX math -> the plain notation of SPEC section 4, with a map back to the columns typed.

Only the commands people use for derivative exercises are read (``\\frac``, ``\\sqrt[n]{}``,
``\\sin^2 x``, ``\\log_{2}``, ``\\left( \\right)``, ``x^{2}``, ``\\cdot``, Greek letters, ...);
braces group like brackets and stay braces (they are not shown, so ``\\sin{x}^2`` is read as
typeset, sin x²), ``\\frac{d^2}{dx^2}`` and ``\\frac{dy}{dx}`` become the plain operator and
label, and ``1{,}100`` is a number. The output goes through the same reading rules as plain
text (``notation.py``), so ``\\sin x`` and ``sin x`` are one reading. A small reader of our own
rather than SymPy's ``parse_latex``: that one needs ANTLR or Lark at run time, builds SymPy
objects (so it imports SymPy, seconds of start-up) and reads a larger language than the tree
can hold; this one only rewrites text, never evaluates it, and costs nothing unless the text
holds a backslash.
"""
from __future__ import annotations

import re

from .errors import ExprError

#: commands that are a name in the plain notation (functions, constants, Greek letters)
NAMES = frozenset("""sin cos tan sec csc cot arcsin arccos arctan arcsec arccsc arccot sinh cosh
tanh sech csch coth arsinh arcosh artanh arcsinh arccosh arctanh exp ln log lg max min sgn pi alpha beta gamma delta epsilon varepsilon
zeta eta theta vartheta iota kappa lambda mu nu xi rho sigma tau upsilon phi varphi chi psi
omega""".split())
_RENAMED = {"varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "lg": "log10"}
#: commands read as an operator or a bracket
SYMBOLS = {"cdot": "*", "times": "*", "div": "/", "ast": "*", "left": "", "right": "",
           "lvert": "|", "rvert": "|", "vert": "|", "mid": "|", "lbrace": "(", "rbrace": ")",
           "bigl": "", "bigr": "", "Bigl": "", "Bigr": "", "big": "", "Big": "",
           "cdotp": "*", "neg": "-"}
#: spacing commands
SPACES = frozenset([",", ";", ":", "!", " ", "quad", "qquad", "displaystyle", "textstyle"])
FRACTIONS = frozenset(["frac", "dfrac", "tfrac", "cfrac"])


class _Writer:
    def __init__(self, text: str):
        self.text = text
        self.out: list[str] = []
        self.origin: list[int] = []

    def emit(self, s: str, col: int) -> None:
        self.out.append(s)
        self.origin.extend([col] * len(s))

    def error(self, message: str, start: int, end: int) -> ExprError:
        return ExprError(message, self.text, start, end)

    # -- reading
    def command(self, i: int) -> tuple[str, int]:
        """The command name starting after the backslash at i, and the index after it."""
        j = i + 1
        if j < len(self.text) and self.text[j].isalpha():
            while j < len(self.text) and self.text[j].isalpha():
                j += 1
            return self.text[i + 1:j], j
        return self.text[i + 1:j + 1], j + 1

    def argument(self, i: int) -> tuple[int, int, int]:
        """A macro argument at i (blanks skipped): ``{...}`` or one character/command.
        Returns (inner start, inner end, index after)."""
        text = self.text
        while i < len(text) and text[i].isspace():
            i += 1
        if i >= len(text):
            raise self.error("a LaTeX command is missing its argument", len(text) - 1,
                             len(text))
        if text[i] == "{":
            close = self.closing(i, "{", "}")
            return i + 1, close, close + 1
        if text[i] == "\\":
            _, end = self.command(i)
            return i, end, end
        return i, i + 1, i + 1

    def closing(self, i: int, open_: str, close: str) -> int:
        depth = 0
        for j in range(i, len(self.text)):
            if self.text[j] == open_:
                depth += 1
            elif self.text[j] == close:
                depth -= 1
                if depth == 0:
                    return j
        raise self.error(f"this {open_} is never closed", i, i + 1)

    def run(self, i: int, end: int) -> None:
        text = self.text
        while i < end:
            ch = text[i]
            if ch == "\\":
                i = self.backslash(i, end)
            elif ch == "{" and text.startswith("{,}", i) and self.between_digits(i, i + 3):
                i += 3                      # 1{,}100: a digit group
            elif ch == "{":
                close = self.closing(i, "{", "}")
                if close >= end:
                    raise self.error("this { is never closed", i, i + 1)
                # kept a brace: an invisible group (``\sin{x}^2`` shows as sin x²)
                self.emit("{", i)
                self.run(i + 1, close)
                self.emit("}", close)
                i = close + 1
            elif ch == "}":
                raise self.error("this } has no opening {", i, i + 1)
            elif ch == "$":
                i += 1
            else:
                self.emit(ch, i)
                i += 1

    def between_digits(self, start: int, end: int) -> bool:
        """Whether text[start:end] stands between two digits (a thousands separator)."""
        text = self.text
        return start > 0 and text[start - 1].isdigit() and end < len(text) \
            and text[end].isdigit()

    def backslash(self, i: int, end: int) -> int:
        name, after = self.command(i)
        if name == "," and self.between_digits(i, after):
            return after                    # 1\,100: a digit group
        if name in SPACES:
            self.emit(" ", i)
            return after
        if name in FRACTIONS:
            a0, a1, after = self.argument(after)
            b0, b1, after = self.argument(after)
            for part, (start, stop) in (("numerator", (a0, a1)), ("denominator", (b0, b1))):
                if not self.text[start:stop].strip():
                    raise self.error(f"\\{name} has an empty {part}: write "
                                     f"\\{name}{{numerator}}{{denominator}}, like "
                                     f"\\{name}{{1}}{{x}}", i, after)
            derivative = _leibniz(self.text[a0:a1], self.text[b0:b1])
            if derivative:
                self.emit(f" {derivative} ", i)    # \frac{d^2}{dx^2}, \frac{dy}{dx}
                return after
            self.emit("((", i)
            self.run(a0, a1)
            self.emit(")/(", a1)
            self.run(b0, b1)
            self.emit("))", b1)
            return after
        if name == "sqrt":
            index = None
            j = after
            while j < len(self.text) and self.text[j].isspace():
                j += 1
            if j < len(self.text) and self.text[j] == "[":
                close = self.closing(j, "[", "]")
                index, after = (j + 1, close), close + 1
            a0, a1, after = self.argument(after)
            degree = self.text[index[0]:index[1]].strip() if index else ""
            if degree == "3":
                self.emit(" cbrt(", i)
            elif index:
                self.emit(" root(", i)
            else:
                self.emit(" sqrt(", i)
            self.run(a0, a1)
            if index and degree != "3":
                self.emit(", ", a1)
                self.run(*index)
            self.emit(")", a1)
            return after
        if name in ("operatorname", "mathrm", "text", "mathit", "operatorname*"):
            a0, a1, after = self.argument(after)
            self.emit(" ", i)
            self.run(a0, a1)
            self.emit(" ", a1)
            return after
        if name == "log" and self.text.startswith("_", after):
            a0, a1, after = self.argument(after + 1)    # \log_{2}: the plain log_2
            base = self.text[a0:a1].strip()
            if not base or not base.replace(".", "").isalnum():
                raise self.error("a logarithm's base is a number or a name, like "
                                 "\\log_{2} x", a0, max(a1, a0 + 1))
            self.emit(" log_" + base + " ", i)
            return after
        if name in NAMES:
            spelled = _RENAMED.get(name, name)
            # spaced apart, so a command then digits is the function of the digits (``\log10``
            # is log(10), ``\ln5`` ln(5)) and letters after a command stay apart from its name
            self.emit(" " + spelled + " ", i)
            return after
        if name in SYMBOLS:
            self.emit(SYMBOLS[name], i)
            return after
        if name in ("{", "}"):
            self.emit("(" if name == "{" else ")", i)
            return after
        if name in ("(", ")", "[", "]"):   # \( x \) and \[ x \] delimiters
            return after
        raise self.error(f"unknown LaTeX command \\{name}; tape reads \\frac \\sqrt \\sin "
                         f"\\cos \\ln \\log \\exp \\cdot \\times \\left \\right \\pi and "
                         f"Greek letters", i, after)


#: the d of a derivative as typeset: ``\mathrm{d}``, ``\operatorname{d}``, ``\dd``
_UPRIGHT_D = re.compile(r"\\(?:mathrm|operatorname)\s*\{\s*d\s*\}|\\dd(?![a-zA-Z])")


def _leibniz(top: str, bottom: str) -> str | None:
    r"""``\frac{d^2}{dx^2}`` as ``d^2/dx^2`` and ``\frac{dy}{dx}`` as ``dy/dx`` (the plain
    notation of operators and labels), or None for any other fraction."""
    def plain(part: str) -> str:
        part = _UPRIGHT_D.sub("d", part)
        return re.sub(r"\\[,!;: ]|[\s{}]", "", part)

    up = re.fullmatch(r"d(?:\^(\d+))?([a-zA-Z]\w*)?", plain(top))
    down = re.fullmatch(r"d([a-zA-Z])(?:\^(\d+))?", plain(bottom))
    if not up or not down:
        return None
    order = f"^{up.group(1)}" if up.group(1) else ""
    below = f"^{down.group(2)}" if down.group(2) else ""
    return f"d{order}{up.group(2) or ''}/d{down.group(1)}{below}"


def from_latex(text: str) -> tuple[str, list[int]]:
    """Plain notation for LaTeX ``text``, and the column in ``text`` of each character of it
    (one extra entry for the end)."""
    writer = _Writer(text)
    writer.run(0, len(text))
    plain = "".join(writer.out)
    if not plain.strip():
        raise ExprError("empty expression")
    return plain, writer.origin + [len(text)]
