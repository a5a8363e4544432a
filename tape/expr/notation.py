"""Reading math as people write it (SPEC section 4): tokens -> Python syntax with a column map.

``expr.parse`` hands the text here first, and ``read_text`` reads it whole in one call: folded
characters, tokens, a ``d/dx`` prefix and a label such as ``y =`` dropped, and each side to
parse translated. ``translate`` turns one side of an expression into Python syntax that
``ast`` parses with Python's precedence, and records how every column of the
result maps back to the text as typed (error carets point at what the user wrote):

* tokens: numbers, names, superscripts (``x²``), roots (``√``), bars (``|x|``), operators;
  fullwidth forms are folded to ASCII (NFKC, per character so ``²`` stays a superscript);
* runs of letters that are not a known name are split into known names and single letters
  (``xsinx`` -> ``x sin x``); names the command declared, names with a digit or ``_``, Python
  keywords and attribute names after ``.`` are never split;
* a ``*`` is inserted between two factors side by side (``2x``, ``x(x+1)``, ``)(``);
* a function name without ``(`` takes the factor product that follows as its argument
  (``sin 2x`` -> ``sin(2*x)``), up to a bracket after a name or ``e^`` (``sec x(1+x)`` ->
  ``sec(x)*(1+x)``); ``sin^2 x`` and ``sin²x`` are powers of the value, ``sin^-1 x`` the
  inverse function;
* square brackets and braces group (``[x^2+3]^2``); a list is a whole text in one bracket
  holding a comma, an index a number glued to a name or a bracket (``x[0]``);
* superscripts are exponents, letters too (``x²``, ``2ˣ``, ``x⁽ⁿ⁺¹⁾``);
* ``|...|`` becomes ``abs(...)``, ``√x`` ``sqrt(x)``, ``log_2 x`` ``log(x, 2)``.

``read_text`` also finds the order of derivative a text names (operators in front such as
``d²/dx²``, labels such as ``y'' =`` and ``f^{(4)}(x) =``), and refuses a sentence pasted
instead of a formula.

Nothing here evaluates text: the result only ever reaches ``ast.parse`` and the whitelisting
walker in ``expr.py``. Readings with a plausible other meaning add a note (``notes``).
"""
from __future__ import annotations

import re

from .errors import ExprError
from .functions import CONSTANTS, FUNCTIONS
from .record import Record

#: other spellings of the table's functions (tree names are the table's)
ALIASES = {
    "ln": "log", "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsec": "asec",
    "arccsc": "acsc", "arccot": "acot", "arsinh": "asinh", "arcsinh": "asinh",
    "arcosh": "acosh", "arccosh": "acosh", "artanh": "atanh", "arctanh": "atanh",
    "arsech": "asech", "arcsech": "asech", "arcsch": "acsch", "arccsch": "acsch",
    "arcoth": "acoth", "arccoth": "acoth", "sgn": "sign", "ceiling": "ceil", "Abs": "abs",
    "Max": "max", "Min": "min", "arctg": "atan", "tg": "tan", "ctg": "cot", "cosec": "csc",
    # British textbooks, STACK and Maxima's cosech family
    "acosec": "acsc", "arccosec": "acsc", "cosech": "csch", "acosech": "acsch",
    "arcosech": "acsch", "arccosech": "acsch",
}
#: ``f^-1``: the inverse function's table name
INVERSES = {
    "sin": "asin", "cos": "acos", "tan": "atan", "sec": "asec", "csc": "acsc", "cot": "acot",
    "sinh": "asinh", "cosh": "acosh", "tanh": "atanh", "sech": "asech", "csch": "acsch",
    "coth": "acoth",
}
GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron "
         "rho sigma tau upsilon phi chi psi omega").split()
#: Python's keywords: never split, left for the whitelist to reject (``lambda``, ``import``)
KEYWORDS = frozenset("""False None True and as assert async await break class continue def del
elif else except finally for from global if import in is lambda nonlocal not or pass raise
return try while with yield""".split())

_SYMBOLS = {"π": "pi", "ℯ": "e", "−": "-", "–": "-", "×": "*", "·": "*", "⋅": "*", "∙": "*",
            "÷": "/", "√": "√", "∛": "∛", "∜": "∜"}
#: primes as typeset or typed on a phone: ``y′``, ``f″(x)``, ``y’``
_PRIMES = {"′": "'", "″": "''", "‴": "'''", "’": "'"}
#: braces group like brackets (``e^{-x}``, as in LaTeX)
_BRACES = {"{": "(", "}": ")"}
#: superscript digits, signs, brackets and letters: an exponent (``x²``, ``2ˣ``, ``x⁽ⁿ⁺¹⁾``),
#: kept apart from NFKC, which would fold ``ˣ`` to a plain ``x`` (2ˣ read as 2x)
_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ",
                        "0123456789-+()abcdefghijklmnoprstuvwxyz"))
_NUMBER = re.compile(r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: a run of letters (and digits/_ after the first); superscripts, π and ℯ, which ``\w``
#: also matches, are cut off (``_name_end``)
_NAME = re.compile(r"[^\W\d]\w*")
_NOT_IN_NAME = frozenset(_SUPERSCRIPT) | frozenset("πℯ")
#: ``log_2``, ``log_b`` (a plain string: compiled on first use, by ``re``'s cache)
_LOG_BASE = r"log_(?:(\d+(?:\.\d+)?)|([^\W\d_][^\W_]*)$)"
#: the base of ``log_`` in a bracket group, ``log_{10} x`` and ``log_(b)(x)``
_LOG_GROUP = re.compile(r"\s*[({]\s*(\d+(?:\.\d+)?|[^\W\d_][^\W_]*)\s*[)}]")

NUM, NAME, FUNC, CONST, SUP, ROOT, BAR, OP, KEYWORD, OTHER = (
    "num", "name", "func", "const", "sup", "root", "bar", "op", "keyword", "other")


class Token:
    __slots__ = ("kind", "text", "start", "end", "space", "value", "split", "typed_text")

    def __init__(self, kind, text, start, end, space, value=None):
        self.split = None     # the first piece of a split run holds the run
        self.typed_text = text
        self.kind = kind      # one of the kinds above
        self.text = text      # the Python spelling
        self.start = start    # columns in the text as typed
        self.end = end
        self.space = space    # whether blank space comes before it
        self.value = value    # FUNC: (name, base token or None); BAR: "open"/"close"

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.start})"


def greek_twin(name: str) -> str | None:
    """The other spelling of a Greek letter: ``θ`` for ``theta`` and ``theta`` for ``θ``."""
    import unicodedata

    if name in GREEK:
        spelled = "lamda" if name == "lambda" else name     # Unicode's spelling
        return unicodedata.lookup(f"GREEK SMALL LETTER {spelled.upper()}")
    if len(name) == 1 and unicodedata.name(name, "").startswith("GREEK SMALL LETTER "):
        word = unicodedata.name(name)[len("GREEK SMALL LETTER "):].lower()
        word = "lambda" if word == "lamda" else word
        return word if word in GREEK else None
    return None


def known_names(declared=()) -> frozenset:
    return frozenset(FUNCTIONS) | frozenset(ALIASES) | frozenset(CONSTANTS) | \
        frozenset(GREEK) | frozenset(declared)


def function_name(name: str) -> str | None:
    """The table name for a function spelling, or None."""
    name = ALIASES.get(name, name)
    return name if name in FUNCTIONS else None


# --------------------------------------------------------------------------- characters

def fold_characters(text: str) -> tuple[str, list[int]]:
    """Fullwidth and compatibility forms to ASCII, one character at a time (NFKC), keeping
    superscripts and the language's symbols; with the original column of each character."""
    if text.isascii():
        return text, list(range(len(text) + 1))
    from unicodedata import normalize

    out, origin = [], []
    for col, ch in enumerate(text):
        if ch.isascii() or ch in _SUPERSCRIPT or ch in _SYMBOLS:
            out.append(ch)
            origin.append(col)
            continue
        if ch in _PRIMES:
            out.extend(_PRIMES[ch])
            origin.extend([col] * len(_PRIMES[ch]))
            continue
        folded = normalize("NFKC", ch)
        if folded != ch and folded.isascii() and folded.strip():
            out.extend(folded)
            origin.extend([col] * len(folded))
        else:
            out.append(ch)
            origin.append(col)
    origin.append(len(text))
    return "".join(out), origin


# --------------------------------------------------------------------------- tokens

def tokenize(text: str, declared=(), latex: bool = False) -> list[Token]:
    """Tokens of ``text`` (already folded), names split and classified; columns index
    ``text``. In LaTeX, letters then digits then ``^`` are a product (``x5^x``: a name
    with digits is typed ``x_5`` there)."""
    known = known_names(declared)
    declared = frozenset(declared)
    tokens: list[Token] = []
    i, n = 0, len(text)
    space = False
    while i < n:
        ch = text[i]
        if ch.isspace():
            space = True
            i += 1
            continue
        if "0" <= ch <= "9" or (ch == "." and i + 1 < n and "0" <= text[i + 1] <= "9"):
            m = _NUMBER.match(text, i)
            tokens.append(Token(NUM, m.group(), i, m.end(), space))
            i = m.end()
        elif ch in _SUPERSCRIPT:
            j = i
            while j < n and text[j] in _SUPERSCRIPT:
                j += 1
            sup = "".join(_SUPERSCRIPT[c] for c in text[i:j])
            tokens.append(Token(SUP, sup, i, j, space))
            i = j
        elif ch in "√∛∜":
            tokens.append(Token(ROOT, ch, i, i + 1, space))
            i += 1
        elif ch == "π" or ch == "ℯ":
            tokens.append(Token(CONST, _SYMBOLS[ch], i, i + 1, space))
            i += 1
        elif ch in "+-/()[],=^{}":
            tokens.append(Token(OP, _BRACES.get(ch, ch), i, i + 1, space,
                                "brace" if ch in "{}" else None))
            i += 1
        elif (ch.isalpha() or ch == "_") and ch not in _NOT_IN_NAME:
            end = _name_end(text, _NAME.match(text, i))
            group = _LOG_GROUP.match(text, end) if text[i:end] == "log_" else None
            if group and "log_" not in declared:
                tokens.append(Token(FUNC, "log", i, group.end(), space,
                                    (text[i:group.end()], group.group(1))))
                i, space = group.end(), False
                continue
            after_dot = bool(tokens) and tokens[-1].text == "." and not space
            glued = re.fullmatch(r"([^\W\d_]+)(\d+)", text[i:end]) if latex else None
            if glued and text.startswith("^", end) and text[i:end] not in declared:
                tokens.extend(_name_tokens(glued.group(1), i, space, known, declared,
                                           after_dot, False))
                digits = i + len(glued.group(1))
                tokens.append(Token(NUM, glued.group(2), digits, end, False, "glued"))
                i, space = end, False
                continue
            before_paren = end < n and text[end] == "("
            tokens.extend(_name_tokens(text[i:end], i, space, known, declared, after_dot,
                                       before_paren))
            i = end
        elif ch == "*" and text.startswith("**", i):
            tokens.append(Token(OP, "**", i, i + 2, space))
            i += 2
        elif ch == "|":
            tokens.append(Token(BAR, "|", i, i + 1, space))
            i += 1
        elif ch in "+-*/^()[],={}" or ch in _SYMBOLS:
            tokens.append(Token(OP, _SYMBOLS.get(ch, _BRACES.get(ch, ch)), i, i + 1, space))
            i += 1
        else:
            tokens.append(Token(OTHER, ch, i, i + 1, space))
            i += 1
        space = False
    return tokens


def _name_end(text: str, match) -> int:
    word = match.group()
    if not word.isascii():
        for k, ch in enumerate(word):
            if ch in _NOT_IN_NAME:
                return match.start() + k
    return match.end()


def _name_tokens(name, start, space, known, declared, after_dot, before_paren):
    """One run of letters as tokens: split into known names and single letters unless the
    run is a known name, holds a digit or ``_``, or follows ``.``."""
    end = start + len(name)
    if after_dot or name in KEYWORDS:
        return [Token(KEYWORD if name in KEYWORDS else OTHER, name, start, end, space)]
    if name not in declared and re.fullmatch(r"e[0-9]+[^\W\d_]\w*", name):
        # e2x: the ^ left out, likelier than a variable named e2x
        return [Token(NAME, name, start, end, space, ("lost power", name))]
    base = re.match(_LOG_BASE, name) if name.startswith("log_") else None
    if base and name not in declared:
        value = base.group(1) or base.group(2)
        log = Token(FUNC, "log", start, base.end(), space, (name[:base.end()], value))
        rest = name[base.end():]
        return [log] + (_name_tokens(rest, base.end() + start, False, known, declared,
                                     False, before_paren) if rest else [])
    glued = _glued_function(name, declared)
    if glued:
        # ``sin2x``: the function, then what follows it read on its own
        rest = tokenize(name[len(glued):], declared)
        for tok in rest:
            tok.start += start + len(glued)
            tok.end += start + len(glued)
        first = _classify(glued, start, start + len(glued), space, declared)
        first.split = name
        return [first] + rest
    if before_paren and len(name) > 1 and name not in known and not name.isalpha():
        return [Token(NAME, name, start, end, space, ("call", name))]
    if name in known or not name.isalpha() or len(name) == 1:
        return [_classify(name, start, end, space, declared)]
    pieces = _split(name, known)
    if before_paren and not function_name(pieces[-1]):
        # ``foo(x)``: an unknown function is likelier than the product f*o*o*(x)
        return [Token(NAME, name, start, end, space, ("call", name))]
    tokens, col = [], start
    for k, piece in enumerate(pieces):
        tokens.append(_classify(piece, col, col + len(piece), space if k == 0 else False,
                                declared))
        col += len(piece)
    tokens[0].split = name
    return tokens


def _glued_function(name: str, declared) -> str | None:
    """``sin2x``, ``log10x``: the function name a run starts with when a digit follows it
    (a name holding a digit is otherwise never split), or None."""
    if name in declared or name.isalpha() or function_name(name):
        return None
    best = None
    for size in range(2, len(name)):
        head = name[:size]
        if function_name(head) and (name[size].isdigit() or not head.isalpha()):
            best = head
    return best


def _split(name: str, known) -> list[str]:
    """Left to right, the longest known name at each position, else one letter."""
    pieces, i = [], 0
    longest = max(len(k) for k in known)
    while i < len(name):
        for size in range(min(longest, len(name) - i), 1, -1):
            if name[i:i + size] in known:
                pieces.append(name[i:i + size])
                i += size
                break
        else:
            pieces.append(name[i])
            i += 1
    return pieces


def _classify(name, start, end, space, declared):
    if name not in declared:
        func = function_name(name)
        if func is not None:
            return Token(FUNC, func, start, end, space, (name, None))
        if name in CONSTANTS:
            return Token(CONST, name, start, end, space)
    return Token(NAME, name, start, end, space)


# --------------------------------------------------------------------------- translation

_OPERAND_START = (NUM, NAME, FUNC, CONST, ROOT)


class Translation:
    """Python text for one expression side, ``origin`` mapping its columns to the text as
    typed, and the notes on readings that had a plausible other meaning."""

    def __init__(self, text: str, tokens: list[Token], folded_origin: list[int],
                 declared=(), latex: bool = False):
        self.text = text
        self.tokens = tokens
        self.fold = folded_origin
        self.declared = declared
        self.latex = latex          # LaTeX: an exponent is one character or a {group}
        self.parts: list[str] = []
        self.origin: list[int] = []
        self.notes: list[str] = []
        self.match = _pair_brackets(tokens, self)
        _square_brackets(tokens, self.match)

    # -- output
    def emit(self, s: str, col: int) -> None:
        self.parts.append(s)
        self.origin.extend([self.fold[col]] * len(s))

    def python(self) -> str:
        return "".join(self.parts)

    def error(self, message: str, token: Token, end: Token | None = None) -> ExprError:
        last = end or token
        return ExprError(message, self.text, self.fold[token.start],
                         max(self.fold[token.start] + 1, self.fold[last.end]))

    def typed(self, lo: int, hi: int) -> str:
        """The text as typed for tokens lo..hi-1."""
        return self.text[self.fold[self.tokens[lo].start]:self.fold[self.tokens[hi - 1].end]]

    def note(self, lo: int, hi: int, reading: str, other: str = "") -> None:
        typed = self.typed(lo, hi)
        line = f"read {typed} as {reading}"
        if other:
            line += f" ({other})"
        if line not in self.notes:
            self.notes.append(line)

    # -- the walk
    def run(self) -> None:
        self.sequence(0, len(self.tokens))

    def sequence(self, lo: int, hi: int) -> None:
        """Emit tokens lo..hi-1, inserting implicit products."""
        toks = self.tokens
        i = lo
        last: Token | None = None      # the last token emitted at this level
        exponent = False               # whether ``last`` is a number after ^ (x^2 3)
        while i < hi:
            tok = toks[i]
            if tok.space and self.parts and (tok.kind in (KEYWORD, OTHER) or (
                    last is not None and last.kind in (KEYWORD, OTHER))):
                self.emit(" ", tok.start)
            if _starts_operand(tok) and _ends_operand(last) and not (
                    tok.text == "(" and last.value and last.value[0] == "call"):
                if last.kind == NUM and tok.kind == NUM and not exponent:
                    raise self.error("two numbers side by side; put an operator (or a "
                                     "decimal point) between them", last, tok)
                self.emit("*", tok.start)
            elif tok.kind == BAR and tok.value == "open" and _ends_operand(last):
                self.emit("*", tok.start)
            exponent = last is not None and last.kind == OP and last.text in ("^", "**")
            i, last = self.item(i, hi)
        return None

    def item(self, i: int, hi: int) -> tuple[int, Token]:
        """Emit the item starting at token i; return the next index and the item's last
        token (what the implicit-product test looks at)."""
        toks = self.tokens
        tok = toks[i]
        if tok.kind == FUNC:
            return self.function(i, hi)
        if tok.kind == NAME and tok.value and tok.value[0] == "lost power":
            power = tok.text[1:]
            err = self.error(f"{tok.text} would be one variable named {tok.text}; did you "
                             f"mean e^({power})?", tok)
            err.hint = (f"write e^({power}) for the exponential, or declare the name with "
                        f"--wrt {tok.text} or --at {tok.text}=...")
            raise err
        if tok.kind == KEYWORD and tok.text == "lambda" and ":" not in self.text:
            # a Greek letter meant, not a Python lambda (those the walker refuses by name)
            raise self.error("the Greek letter lambda cannot be spelled out (lambda is a "
                             "Python keyword); write λ, or another name such as lam", tok)
        if tok.kind == ROOT:
            end = self.factor_end(i + 1, hi)
            if end == i + 1:
                raise self.error("a root needs something to apply to, like √x or √(x+1)",
                                 tok)
            name = {"√": "sqrt", "∛": "cbrt", "∜": "root"}[tok.text]
            self.emit(name + "(", tok.start)
            self.sequence(i + 1, end)
            if name == "root":
                self.emit(", 4", tok.start)
            self.emit(")", toks[end - 1].end - 1)
            after = self.operand_end(end, hi)
            if (toks[i + 1].kind == NUM and end == i + 2 and after and not toks[end].space
                    and toks[end].kind != FUNC):
                # √2x: the root of 2 times x, or of 2x?
                shown = "".join(self.parts[-4 if name == "root" else -3:])
                factor = self.typed(end, after)
                self.note(i, after, f"{shown}*{factor}",
                          f"write {tok.text}({toks[i + 1].text}{factor}) for the other reading")
            return end, toks[end - 1]
        if tok.kind == BAR:
            close = self.match.get(i)
            if tok.value != "open" or close is None or close >= hi:
                raise self.error("this | has no partner; write |x| for an absolute value", tok)
            self.emit("abs(", tok.start)
            self.sequence(i + 1, close)
            self.emit(")", toks[close].start)
            return close + 1, toks[close]
        if tok.kind == SUP:
            self.emit("**" + self.superscript(tok), tok.start)
            return i + 1, tok
        if tok.kind == OP and tok.text == "^":
            self.exponent_notes(i, hi)
            self.emit("**", tok.start)
            return i + 1, tok
        if tok.kind == OP and tok.text == "**":
            self.exponent_notes(i, hi)
        if tok.kind == OP and tok.text == "/":
            self.division_notes(i, hi)
        if tok.split:
            self.split_note(i)
        if tok.kind == NUM and tok.value == "glued":
            name, end = self.typed(i - 1, i), self.powers_end(i + 1, hi)
            self.note(i - 1, end, f"{name}*{tok.text}^{self.typed(i + 2, end)}",
                      f"a letter then digits then ^ is a product; write {name}_{tok.text} "
                      f"for a name")
        if tok.kind == OP and tok.text == "(" and self.match.get(i) is not None \
                and self.match[i] < hi:
            # a group: translated as a unit, so implicit products inside stay inside
            close = self.match[i]
            self.emit("(", tok.start)
            self.sequence(i + 1, close)
            self.emit(")", toks[close].start)
            return close + 1, toks[close]
        self.emit(", " if tok.text == "," else tok.text, tok.start)
        return i + 1, tok

    def superscript(self, tok: Token) -> str:
        """A superscript exponent in Python syntax: ``²`` is ``2``, ``ˣ`` ``(x)``,
        ``⁽ⁿ⁺¹⁾`` ``((n+1))``; letters are read by the same rules as the text."""
        text = tok.text
        if re.fullmatch(r"[-+]?[0-9]+", text):
            return text
        inner = Translation(text, tokenize(text, self.declared), list(range(len(text) + 1)),
                            self.declared)
        inner.run()
        self.notes.extend(n for n in inner.notes if n not in self.notes)
        return "(" + inner.python() + ")"

    def split_note(self, i: int) -> None:
        toks = self.tokens
        name = toks[i].split
        j, size = i, 0
        pieces, functions = [], []
        while j < len(toks) and size < len(name):
            function = toks[j].kind == FUNC
            pieces.append(toks[j].value[0] if function else toks[j].typed_text)
            functions.append(function)
            size += toks[j].end - toks[j].start
            j += 1
        if "".join(pieces) == name:
            shown = pieces[0]
            for k in range(1, len(pieces)):
                shown += (" " if functions[k - 1] or functions[k] else "*") + pieces[k]
            line = f"read {name} as {shown} (letters split; name a variable with --at " \
                   f"{name}=... or --wrt {name} to keep it whole)"
            if line not in self.notes:
                self.notes.append(line)

    def exponent_notes(self, i: int, hi: int) -> None:
        """``e^2x`` (e^2 * x) and ``x^1/2`` ((x^1)/2); the base may be a bracket or bars
        (``(x+1)^2x``), and ``/2`` is looked for past the end of a function's argument too
        (``sin x^1/2`` is sin(x^1)/2)."""
        toks = self.tokens
        if self.latex:      # an exponent is one character or a {group}: e^2x shows as e²x
            return
        k = i + 1                  # the number, after a sign if there is one (e^-2x)
        if k + 1 < hi and toks[k].text in ("-", "+") and not toks[k + 1].space:
            k += 1
        lo = self.operand_start(i - 1)
        if k >= hi or toks[k].kind != NUM or lo is None:
            return
        power = "".join(t.text for t in toks[i + 1:k + 1])
        base = self.typed(lo, i)
        after = self.operand_end(k + 1, hi)
        n = len(toks)
        if after is not None and not toks[k + 1].space and toks[k + 1].kind != CONST:
            factor = self.typed(k + 1, after)
            self.note(lo, after, f"({base}**{power})*{factor}",
                      f"write {base}^({power}{factor}) for the other reading")
        elif (k + 2 < n and toks[k + 1].text == "/" and toks[k + 2].kind == NUM
              and not toks[k + 1].space and _reads_as_exponent(toks[k].text, toks[k + 2].text)):
            self.note(lo, k + 3, f"({base}**{power})/{toks[k + 2].text}",
                      f"write {base}^({power}/{toks[k + 2].text}) for the power "
                      f"{power}/{toks[k + 2].text}")

    def division_notes(self, i: int, hi: int) -> None:
        """A product after ``/`` without brackets: ``1/2x`` is (1/2)*x, as in Python, and
        1/(2x) the other reading; likewise ``1/x(x+1)``, ``1/(x+1)(x-1)``, ``1/xy``, after a
        bracket (``ln(x)/2x``) and before one (``1/2(x+1)``)."""
        toks = self.tokens
        lo = self.operand_start(i - 1) if i >= 1 else None
        if lo is None or i + 1 >= hi:
            return
        first = toks[i + 1]
        if first.kind not in (NUM, NAME, CONST) and first.text != "(":
            return
        end = self.factor_end(i + 1, hi)
        if end == i + 1 or end >= hi or toks[end].space:
            return
        after = self.operand_end(end, hi)
        if after is None:
            return
        a, b, c = self.typed(lo, i), self.typed(i + 1, end), self.typed(end, after)
        self.note(lo, after, f"({a}/{b})*{c}", f"write {a}/({b}{c}) to divide by {b}{c}")

    def operand_start(self, last: int) -> int | None:
        """The first token of the operand that ends at token ``last`` (a number, a name, a
        bracket group with the function it belongs to, an absolute value), or None."""
        toks = self.tokens
        tok = toks[last]
        if tok.kind in (NUM, NAME, CONST):
            return last
        if tok.text == ")" or (tok.kind == BAR and tok.value == "close"):
            first = self.match.get(last)
            if first is None:
                return None
            return first - 1 if first >= 1 and toks[first - 1].kind == FUNC else first
        return None

    def operand_end(self, first: int, hi: int) -> int | None:
        """Just past the factor that starts at token ``first`` (a name, a constant, a
        function name, a bracket group), or None when no such factor starts there."""
        toks = self.tokens
        if first >= hi:
            return None
        tok = toks[first]
        if tok.kind in (NAME, CONST, FUNC):
            return first + 1
        if tok.text == "(" and self.match.get(first) is not None and self.match[first] < hi:
            return self.match[first] + 1
        return None

    # -- functions
    def function(self, i: int, hi: int) -> tuple[int, Token]:
        toks = self.tokens
        tok = toks[i]
        name = tok.text
        base = tok.value[1] if tok.value else None
        j = i + 1
        power = None               # the exponent's tokens (lo, hi) on the function name
        sup = None
        if j < hi and toks[j].kind == SUP:
            sup = toks[j].text
            j += 1
        elif j < hi and toks[j].text in ("^", "**") and base is None:
            lo, k = j + 1, self.name_exponent_end(j, hi)
            if k is None:
                raise self.error(f"after {tok.text}^ put a number, like {tok.text}^2 x",
                                 toks[j])
            power = (lo, k)
            sup = "".join(t.text for t in toks[lo:k])   # 2, -1, (-1)
            j = k
        if sup is not None and sup.strip("()+").startswith("-"):
            name = self.inverse_name(i, j, sup)
            sup = power = None
        # the argument; in LaTeX a {group} with a power after it is not a bracket (braces
        # are not shown: \sin{x}^2 is typeset sin x², like \sin x^2)
        shown_braces = (self.latex and j < hi and toks[j].value == "brace"
                        and self.match.get(j) is not None and self.match[j] + 1 < hi
                        and toks[self.match[j] + 1].text in ("^", "**"))
        if shown_braces:
            end = self.powers_end(self.match[j] + 1, hi)
            spelled = self.text[self.fold[tok.start]:self.fold[toks[j].start]].strip()
            self.note(i, end, f"{tok.value[0]}({self.typed(j + 1, self.match[j])}"
                              f"^{self.typed(self.match[j] + 2, end)}), as it is typeset",
                      f"write ({spelled}{self.typed(j, self.match[j] + 1)})"
                      f"^{self.typed(self.match[j] + 2, end)} for the other reading")
        if not shown_braces and j < hi and toks[j].text == "(" \
                and self.match.get(j) is not None and self.match[j] < hi:
            close = self.match[j]
            arg_lo, arg_hi, parenthesised = j + 1, close, True
            end = close + 1
        else:
            arg_lo = j
            arg_hi = self.product_end(j, hi)
            parenthesised = False
            end = arg_hi
            if arg_hi == arg_lo:
                if power is None and sup is None and base is None:
                    # a bare function name: the walker explains how to call it
                    self.emit(tok.text, tok.start)
                    return i + 1, tok
                spelled = tok.value[0]
                if sup is not None:
                    err = self.error(f"{spelled}^{sup.strip('()')} needs an argument", tok,
                                     toks[j - 1])
                    err.hint = f"did you mean {spelled}(x)^{sup.strip('()')}?"
                    raise err
                raise self.error(f"{spelled} needs an argument, like {spelled}(x)", tok)
        start = len(self.parts)
        self.emit(name + "(", tok.start)
        args_start = len(self.parts)
        self.sequence(arg_lo, arg_hi)
        if base is not None:
            self.emit(", " + base, tok.start)
        self.emit(")", toks[end - 1].end - 1)
        if sup is not None or power is not None:
            self.emit("**", toks[i + 1].start)
            if power is not None:
                self.sequence(*power)
            else:
                self.emit(self.superscript(toks[i + 1]), toks[i + 1].start)
        if not parenthesised:
            shown = "".join(self.parts[start:])
            factors = _count_factors(self, arg_lo, arg_hi)
            if arg_hi > arg_lo and arg_hi < hi and toks[arg_hi].kind != FUNC \
                    and self.ends_argument(self.last_factor(arg_lo, arg_hi), arg_hi, hi):
                after = self.factor_end(arg_hi, hi)
                before = "before e^" if toks[arg_hi].kind == CONST else "at the bracket"
                spelled = tok.value[0]
                self.note(i, after, f"{shown}*{self.typed(arg_hi, after)}",
                          f"the argument of {spelled} ends {before}; write "
                          f"{spelled}({self.typed(arg_lo, after)}) to include it")
            elif factors > 1:
                self.note(i, arg_hi, shown, f"the argument of {tok.value[0]} is the "
                          f"product that follows; write {tok.value[0]}(...) to be explicit")
            elif end + 1 < hi and toks[end].text == "/":
                self.note(i, end + 2, f"{shown}/{toks[end + 1].text}",
                          "a function without brackets takes the next factor only")
        elif name == "log" and base is None and ", " in self.parts[args_start:]:
            self.note(i, end, "".join(self.parts[start:]),
                      "log(x, b) is log of x to the base b, as in SymPy; WolframAlpha "
                      "reads log(b, x)")
        return end, toks[end - 1]

    def inverse_name(self, i: int, j: int, sup: str) -> str:
        """``sin^-1``: the inverse function's name; other negative powers are errors."""
        toks = self.tokens
        tok = toks[i]
        spelled = tok.value[0]
        if sup.strip("()+") != "-1":
            raise self.error(f"{spelled}^{sup} is ambiguous; write 1/{spelled}(x)^"
                             f"{sup.strip('()+-')}", tok, toks[j - 1])
        if tok.text not in INVERSES:
            raise self.error(f"{spelled}^-1 is ambiguous; write 1/{spelled}(x) for the "
                             f"reciprocal", tok, toks[j - 1])
        inverse = INVERSES[tok.text]
        self.note(i, j, f"{inverse}, the inverse function",
                  f"write 1/{spelled}(x) for the reciprocal")
        return inverse

    # -- extents
    def factor_end(self, i: int, hi: int) -> int:
        """The end of the factor starting at i (an atom with its powers), or i if none."""
        toks = self.tokens
        if i >= hi:
            return i
        tok = toks[i]
        if tok.kind in (NUM, CONST):
            j = i + 1
        elif tok.kind == NAME:
            j = i + 1
            if j < hi and toks[j].text == "[" and self.match.get(j) is not None:
                j = self.match[j] + 1
        elif tok.text == "(" and self.match.get(i) is not None:
            j = self.match[i] + 1
        elif tok.kind == BAR and tok.value == "open" and self.match.get(i) is not None:
            j = self.match[i] + 1
        elif tok.kind == ROOT:
            j = self.factor_end(i + 1, hi)
            return j if j > i + 1 else i
        elif tok.kind == FUNC:
            return self.application_end(i, hi)
        else:
            return i
        return self.powers_end(j, hi)

    def powers_end(self, j: int, hi: int) -> int:
        toks = self.tokens
        while j < hi:
            if toks[j].kind == SUP:
                j += 1
            elif toks[j].text in ("^", "**"):
                k = j + 1
                while k < hi and toks[k].text in ("-", "+"):
                    k += 1
                end = self.factor_end(k, hi)
                if end == k:
                    return j
                j = end
            else:
                break
        return j

    def name_exponent_end(self, j: int, hi: int) -> int | None:
        """The end of the exponent after the ``^`` at j on a function name (a bracketed
        group or a signed number: ``sin^2``, ``sin^-1``, ``sin^(-1)``), or None."""
        toks = self.tokens
        k = j + 1
        if k < hi and toks[k].text == "(" and self.match.get(k) is not None:
            return self.match[k] + 1
        while k < hi and toks[k].text in ("-", "+"):
            k += 1
        return k + 1 if k < hi and toks[k].kind == NUM else None

    def application_end(self, i: int, hi: int) -> int:
        """The end of a function application starting at token i (a FUNC)."""
        toks = self.tokens
        j = i + 1
        if j < hi and toks[j].kind == SUP:
            j += 1
        elif j < hi and toks[j].text in ("^", "**"):
            j = self.name_exponent_end(j, hi) or j + 1
        if j < hi and toks[j].text == "(" and self.match.get(j) is not None:
            return self.powers_end(self.match[j] + 1, hi)
        end = self.product_end(j, hi)
        return end if end > j else i + 1

    def product_end(self, i: int, hi: int) -> int:
        """The end of the factor product starting at i: factors side by side, up to an
        operator, a comma, a closing bracket or the next function name (which starts the
        argument only when nothing comes before it: ``ln sin x``), and before ``e^`` or a
        bracket that follows a name (``sec x(sec x + tan x)``, ``cos x e^(sin x)``)."""
        toks = self.tokens
        j = i
        previous = None
        while j < hi:
            if j > i and (toks[j].kind == FUNC or self.ends_argument(previous, j, hi)):
                break
            end = self.factor_end(j, hi)
            if end == j:
                break
            previous, j = j, end
        return j

    def last_factor(self, lo: int, hi: int) -> int:
        """The first token of the last factor in lo..hi-1 (a product of factors)."""
        j = last = lo
        while j < hi:
            end = self.factor_end(j, hi)
            if end == j:
                break
            last, j = j, end
        return last

    def ends_argument(self, previous: int | None, j: int, hi: int) -> bool:
        """Whether a bracketless argument stops before token j: at a bracket group after a
        name (after a number it stays: ``sin 2(x+1)``), or at ``e^``."""
        toks = self.tokens
        tok = toks[j]
        if tok.text == "(" and self.match.get(j) is not None and self.match[j] < hi:
            return previous is not None and toks[previous].kind == NAME
        return (tok.kind == CONST and tok.text == "e" and j + 1 < hi
                and (toks[j + 1].text in ("^", "**") or toks[j + 1].kind == SUP))


def _reads_as_exponent(top: str, bottom: str) -> bool:
    """Whether ``top/bottom`` after ``^`` looks like a fractional power (``x^1/2``,
    ``x^3/2``: whole numbers, in lowest terms, not a whole ratio), not a quotient (``x^2/4``)."""
    if not (top.isdigit() and bottom.isdigit()) or int(bottom) < 2:
        return False
    from math import gcd

    return gcd(int(top), int(bottom)) == 1


def _count_factors(tr: Translation, lo: int, hi: int) -> int:
    count, j = 0, lo
    while j < hi:
        end = tr.factor_end(j, hi)
        if end == j:
            return count + 1
        count += 1
        j = end
    return count


def _starts_operand(tok: Token) -> bool:
    return tok.kind in _OPERAND_START or (tok.kind == OP and tok.text == "(")


def _ends_operand(last: Token | None) -> bool:
    if last is None:
        return False
    if last.kind in (NUM, NAME, CONST, SUP):
        return True
    if last.kind == BAR:
        return last.value == "close"
    if last.kind == FUNC:
        return False
    return last.kind == OP and last.text in (")", "]")


def _square_brackets(tokens: list[Token], match: dict[int, int]) -> None:
    """Square brackets group like parentheses (``[x^2+3]^2``, ``2[(2x+1)^{10}+1]``), except
    an index glued to a name (``x[0]``, ``x[-1]``, ``x[i]``) or a whole number glued to a
    bracket (``(x+y)[0]``), and a list: the whole text in
    one bracket holding a comma (``[x*y, x+y]``) or nothing."""
    for k, tok in enumerate(tokens):
        if tok.kind != OP or tok.text != "[" or match.get(k) is None:
            continue
        close = match[k]
        inner = tokens[k + 1:close]
        kinds = [t.kind for t in inner]
        number = kinds == [NUM] or (kinds == [OP, NUM] and inner[0].text in "+-")
        before = tokens[k - 1] if k > 0 else None
        if before is not None and not tok.space and (
                (before.kind == NAME and (number or kinds == [NAME] or any(
                    t.kind == OTHER and t.text == ":" for t in inner)))
                or (before.kind == OP and before.text in ")]" and number)):
            continue        # an index (x[0], (x+y)[-1]), or a slice refused by name
        if k == 0 and close == len(tokens) - 1 and (not inner or _top_level(inner, ",")):
            continue        # a list (an empty one: the jacobian says so)
        tok.text, tokens[close].text = "(", ")"


def _pair_brackets(tokens: list[Token], tr: Translation) -> dict[int, int]:
    """Matching brackets and bars, both ways. A bar opens where an operand is expected
    (at the start, after an operator, a bracket, another opening bar or a function name)
    and closes an open bar otherwise; ``x|x|`` opens after an operand when no bar is open."""
    match: dict[int, int] = {}
    stack: list[int] = []
    prev: Token | None = None
    for k, tok in enumerate(tokens):
        if tok.kind == OP and tok.text in "([":
            stack.append(k)
        elif tok.kind == OP and tok.text in ")]":
            if stack and tokens[stack[-1]].kind == OP:
                opening = stack.pop()
                match[opening] = k
                match[k] = opening
            elif stack:   # an open bar inside: leave the brackets to Python's messages
                break
        elif tok.kind == BAR:
            expects_operand = (prev is None or prev.kind in (FUNC, ROOT, OTHER, KEYWORD)
                               or (prev.kind == OP and prev.text not in (")", "]"))
                               or (prev.kind == BAR and prev.value == "open"))
            bar_open = bool(stack) and tokens[stack[-1]].kind == BAR
            if not expects_operand and bar_open:
                opening = stack.pop()
                tok.value = "close"
                match[opening] = k
                match[k] = opening
            else:
                tok.value = "open"
                stack.append(k)
        prev = tok
    for k in stack:
        if tokens[k].kind == BAR:
            raise tr.error("this | is never closed; write |x| for an absolute value",
                           tokens[k])
    return match


# --------------------------------------------------------------------------- whole texts
# The two patterns below are plain strings, compiled (and cached by ``re``) on first use: a
# text without ``/`` or ``=`` never needs them, and compiling both costs ~0.4 ms of every start.
#: ``d/dx`` before an expression (one letter, or a declared name), and its higher orders
#: ``d^2/dx^2``, ``d²/dx²`` (also what LaTeX's ``\frac{d^2}{dx^2}`` becomes)
_DERIVATIVE = (r"\s*d\s*(?P<top>\^\s*\(?\s*\d+\s*\)?|[²³⁴⁵⁶⁷⁸⁹])?\s*/\s*"
               r"d(?P<var>[^\W\d_]\w*?)\s*(?P<bottom>\^\s*\(?\s*\d+\s*\)?|[²³⁴⁵⁶⁷⁸⁹])?"
               r"(?=[\s(\[|]|$)")
#: a label on the left of ``=``: ``y``, ``f(x)``, ``f'(x)``, ``y'``, ``dy/dx``
#: and the higher orders ``y''``, ``f^{(4)}(x)``, ``f⁽⁴⁾(x)``, ``d^2y/dx^2``, ``d²y/dx²``,
#: ``d2y/dx2`` (LaTeX's braces are brackets here: ``f^((4))(x)``)
_LABEL = (r"\s*(?:[^\W\d]\w*\s*(?P<primes>'*)\s*"
          r"(?P<power>\^\s*[({]\s*\(\s*\d+\s*\)\s*[)}]|\^\s*\(\s*\d+\s*\)(?=\s*\()|⁽[⁰¹²³⁴⁵⁶⁷⁸⁹]+⁾)?"
          r"\s*(?:\(\s*[^\W\d]\w*(?:\s*,\s*[^\W\d]\w*)*\s*\))?"
          r"|d\s*(?P<top>\^\s*\d+|[²³⁴⁵⁶⁷⁸⁹]|\d+)?\s*(?:[^\W\d]\w*?)?\s*/\s*"
          r"d\s*(?P<wrt>[^\W\d]\w*?)\s*(?P<bottom>\^\s*\d+|[²³⁴⁵⁶⁷⁸⁹]|\d+)?)\s*")


class Source(Record):
    """One side of a text in Python syntax: ``origin`` maps each of its columns to the text
    as typed (``byte_to_char``: UTF-8 byte offsets, as ``ast`` gives them, to columns)."""

    _fields = ("text", "python", "origin", "byte_to_char")

    def __init__(self, text: str, python: str, origin: list[int],
                 byte_to_char: list[int] | None) -> None:
        self.text = text                    # as typed
        self.python = python                # rewritten
        self.origin = origin                # rewritten column -> original column
        self.byte_to_char = byte_to_char    # UTF-8 byte offset -> char offset in ``python``

    def original(self, python_col: int) -> int:
        return self.origin[max(0, min(python_col, len(self.origin) - 1))]

    def from_bytes(self, byte_col: int) -> int:
        if self.byte_to_char is None:
            return byte_col
        return self.byte_to_char[max(0, min(byte_col, len(self.byte_to_char) - 1))]


class Text(Record):
    """A text read whole (``read_text``): ``pieces``, a ``(Source, notes)`` per side to parse
    (one; two for an equation); ``wrt``, the variable a ``d/dx`` or ``dy/dx =`` named; and
    for an equation that is not a label, ``equation``: the (start, end) columns of its ``=``
    and of the whole relation in the text as typed (None otherwise). ``order``: the order of
    derivative the text names, or None: asked for by an operator in front (``asks``:
    ``d²/dx² x^3``, ``d/dx d/dx x^3``) or stated by a label (``y'' = 6x``, ``f^{(4)}(x) =``,
    ``dy/dx =``)."""

    _fields = ("pieces", "wrt", "equation", "order", "asks")

    def __init__(self, pieces: list, wrt: str | None, equation: tuple | None,
                 order: int | None = None, asks: bool = False) -> None:
        self.pieces = pieces
        self.wrt = wrt
        self.equation = equation
        self.order = order
        self.asks = asks


class Typed(Record):
    _fields = ("text", "folded", "latex", "declared")

    def __init__(self, text: str, folded: str, latex: bool = False, declared=()) -> None:
        self.text = text        # as typed
        self.folded = folded    # after LaTeX and character folding
        self.latex = latex      # whether the text was read as LaTeX
        self.declared = declared


#: words that make a text a sentence about math rather than a formula
_PROSE = frozenset("""find the of derivative derivatives differentiate respect compute calculate
evaluate determine what is with and to wrt please first second third fourth fifth order""".split())
#: the question forms a refusal can answer with the options to use
_QUESTION = (r"(?i)\s*(?:please\s+)?(?:find|compute|calculate|determine|what\s+is|give)?\s*"
             r"(?:the\s+)?(?P<order>first|second|third|fourth|fifth|\d+(?:st|nd|rd|th))?\s*"
             r"(?:order\s+)?(?:derivative\s+of|differentiate)\s+(?P<formula>.+?)"
             r"(?:,?\s+(?:with\s+respect\s+to|wrt|by)\s+(?P<wrt>[^\W\d]\w*))?\s*[.?!]?\s*")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5}


def refuse_prose(typed: Typed) -> None:
    """A question or a sentence pasted whole (``Find the third derivative of 3j^4.``) is
    refused, saying that tape reads formulas, and which options ask the question."""
    words = re.findall(r"[^\W\d_]{2,}", typed.folded)
    found = [w for w in words if w.lower() in _PROSE and w not in typed.declared]
    if len(found) < 2 and not any(w.lower() in ("derivative", "differentiate", "respect")
                                  for w in found):
        return
    where = typed.text.find(found[0])
    said = ", ".join(repr(w) for w in found[:3])
    err = ExprError(f"this is a sentence, not a formula (it says {said}); tape reads "
                    f"formulas, such as 3x^2 sin x", typed.text, max(where, 0),
                    max(where, 0) + len(found[0]))
    asked = re.fullmatch(_QUESTION, typed.folded)
    if asked:
        order = asked.group("order")
        options = [f"--wrt {asked.group('wrt')}"] if asked.group("wrt") else []
        if order and order.lower() != "first":
            options.append(f"--order {_ORDINALS.get(order.lower()) or int(order[:-2])}")
        err.hint = (f"give the formula alone: '{asked.group('formula')}'"
                    + (f" with {' '.join(options)}" if options else ""))
    else:
        err.hint = "give the formula alone; --wrt names the variable and --order the order"
    raise err


def read_text(text: str, declared=()) -> Text:
    """Read a whole text in one pass: characters folded, tokens, the ``d/dx`` prefix and a
    label on the left of ``=`` dropped, each side to parse written in Python syntax."""
    tokens, fold, typed = scan(text, declared)
    refuse_prose(typed)
    wrt = order = None
    operators = _derivative_operators(typed, fold, declared)
    if operators:
        wrt, order, end = operators
        spoken = re.match(r"\s*of\s", typed.folded[end:])
        if spoken and "of" not in declared:
            end += spoken.end()             # d/dx of x^2, as said aloud
        tokens = [t for t in tokens if t.start >= end]
        if not tokens:
            raise ExprError(f"d/d{wrt} needs an expression after it, like d/d{wrt} {wrt}^2",
                            text, fold[0], fold[end])
    equals = _top_level(tokens, "=")
    if len(equals) > 1:
        second = tokens[equals[1]]
        raise ExprError("only one = is allowed (y = f(x), or one equation)", text,
                        fold[second.start], fold[second.end])
    if not equals:
        return Text([translate(typed, tokens, fold)], wrt, None, order, order is not None)
    k = equals[0]
    left, right = tokens[:k], tokens[k + 1:]
    if not left or not right:
        raise ExprError("an equation needs an expression on both sides of =", text,
                        fold[tokens[k].start], fold[tokens[k].end])
    left_text = typed.folded[left[0].start:left[-1].end]
    is_label = re.fullmatch(_LABEL, left_text)
    if is_label and not is_label.group("wrt") and not _names_a_function(left_text, declared):
        is_label = None
    if is_label:
        if order is None:
            order = _label_order(is_label, text, fold[left[0].start], fold[left[-1].end])
        return Text([translate(typed, right, fold)], is_label.group("wrt") or wrt, None,
                    order, operators is not None)
    return Text([translate(typed, left, fold), translate(typed, right, fold)], wrt,
                ((fold[tokens[k].start], fold[tokens[k].end]),
                 (fold[left[0].start], fold[right[-1].end])), order, operators is not None)


def _order_number(piece: str | None) -> int | None:
    """The number in ``^2``, ``^(2)``, ``²``, ``2``, ``⁽⁴⁾``; None for no piece."""
    if not piece:
        return None
    digits = "".join(_SUPERSCRIPT.get(c, c) for c in piece if c.isdigit() or
                     _SUPERSCRIPT.get(c, "").isdigit())
    return int(digits)


def _derivative_operators(typed: Typed, fold, declared):
    """``(wrt, order, end)`` for the operators in front of a text (``d/dx``, ``d/dx d/dx``,
    ``d^2/dx^2``, ``d²/dx²``), ``end`` the folded column after them; None when there are
    none. Operators along different variables, or with orders that differ above and below,
    are errors."""
    folded = typed.folded
    if "/" not in folded:
        return None
    wrt, order, end = None, 0, 0
    while True:
        found = _derivative_prefix(folded[end:], declared)
        if not found:
            break
        top, bottom = _order_number(found.group("top")), _order_number(found.group("bottom"))
        where = (typed.text, fold[end + found.start()], fold[end + found.end()])
        if top != bottom and (top or 1) != (bottom or 1):
            raise ExprError(f"the operator says order {top or 1} above and {bottom or 1} "
                            f"below; write d^2/d{found.group('var')}^2 for the second "
                            f"derivative", *where)
        if wrt is not None and found.group("var") != wrt:
            raise ExprError(f"d/d{wrt} and d/d{found.group('var')} in one text: for a mixed "
                            f"partial derivative give --wrt {wrt},{found.group('var')}",
                            *where)
        wrt, order, end = found.group("var"), order + (top or 1), end + found.end()
    return (wrt, order, end) if wrt is not None else None


def _label_order(label, text: str, start: int, end: int) -> int | None:
    """The order of derivative a label states: ``y''`` 2, ``f^{(4)}(x)`` 4, ``dy/dx`` 1,
    ``d^2y/dx^2`` 2; None for a plain ``y`` or ``f(x)``."""
    if label.group("wrt"):
        top = _order_number(label.group("top")) or 1
        bottom = _order_number(label.group("bottom")) or 1
        if top != bottom:
            raise ExprError(f"the label says order {top} above and {bottom} below; write "
                            f"d^2y/d{label.group('wrt')}^2 for the second derivative",
                            text, start, end)
        return top
    primes = len(label.group("primes") or "")
    power = _order_number(label.group("power"))
    if primes and power:
        raise ExprError("a label takes primes or an order in brackets, not both (f''(x) or "
                        "f^{(2)}(x))", text, start, end)
    return power or primes or None


def _derivative_prefix(folded: str, declared):
    """The match of a leading ``d/dx`` (``d/dt`` for a declared ``t``...) in folded text."""
    start = re.match(_DERIVATIVE, folded) if "/" in folded else None
    if start and (len(start.group("var")) == 1 or start.group("var") in declared):
        return start
    return None


def asks_for_derivative(text: str, declared=()) -> bool:
    """Does ``text`` start with ``d/dx`` (or LaTeX's ``\\frac{d}{dx}``), asking for a
    derivative rather than being one?"""
    return _derivative_prefix(scan(text, declared)[2].folded, declared) is not None


def _names_a_function(left_text: str, declared) -> bool:
    """Whether the left side of ``=`` names a function being defined (``y``, ``f(x)``,
    ``y'``): one name that is not a known function (``tan(y) = x^2`` is an equation) and that
    the reader would not split into a product (``xy = 1`` is x·y = 1)."""
    name = re.match(r"\s*([^\W\d]\w*)", left_text).group(1)
    if function_name(name) is not None and name not in declared:
        return False
    if any(c.isdigit() or c == "_" for c in name):      # never split
        return True
    return _split(name, known_names(declared)) == [name]


def scan(text: str, declared=()) -> tuple[list[Token], list[int], Typed]:
    """The tokens of ``text`` (LaTeX read first), the map from folded columns to the text as
    typed, and both texts."""
    working, base = text, None
    if "\\" in text or "{,}" in text:   # LaTeX: only then is its reader imported
        from .latex import from_latex

        working, base = from_latex(text)
    folded, fold = fold_characters(working)
    if base is not None:
        fold = [base[c] for c in fold]
    latex = base is not None
    return tokenize(folded, declared, latex), fold, Typed(text, folded, latex, tuple(declared))


def _top_level(tokens, text: str) -> list[int]:
    depth, found = 0, []
    for k, tok in enumerate(tokens):
        if tok.kind == OP and tok.text in "([":
            depth += 1
        elif tok.kind == OP and tok.text in ")]":
            depth -= 1
        elif depth == 0 and tok.kind == OP and tok.text == text:
            found.append(k)
    return found


def translate(typed: Typed, tokens: list[Token], fold: list[int]) -> tuple[Source, list]:
    """One side's tokens in Python syntax, and the notes on its readings."""
    if not tokens:
        raise ExprError("empty expression")
    translation = Translation(typed.text, tokens, fold, typed.declared, typed.latex)
    translation.run()
    python = translation.python()
    origin = translation.origin + [fold[tokens[-1].end]]
    return _source(typed.text, python, origin), translation.notes


def _source(text: str, python: str, origin: list[int]) -> Source:
    byte_to_char = None
    if not python.isascii():
        byte_to_char = []
        for col, ch in enumerate(python):
            byte_to_char.extend([col] * len(ch.encode("utf-8")))
        byte_to_char.append(len(python))
    return Source(text, python, origin, byte_to_char)


def suggest_function(name: str) -> str | None:
    """``did you mean arcsin?`` for a misspelt function name, or None."""
    from difflib import get_close_matches   # only on this error path

    spellings = sorted(set(FUNCTIONS) | set(ALIASES))
    close = get_close_matches(name, spellings, n=1, cutoff=0.8)
    return f"did you mean {close[0]}?" if close else None


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """Split at ``sep`` outside brackets: ``"w=[1,2],y=2"`` -> ``["w=[1,2]", "y=2"]``."""
    parts, depth, current = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts]
