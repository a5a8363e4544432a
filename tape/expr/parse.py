"""The expression language: text -> Python syntax -> whitelisted ``ast`` -> expression tree.

Steps (``read``; ``parse`` returns just the tree):

1. limits: length and bracket nesting are checked first, so abuse fails fast with a message
   naming the limit;
2. LaTeX (text holding a backslash) is turned into plain notation by ``latex.py``;
3. ``reading.py`` reads the notation of SPEC section 4 (implicit products, split letters,
   functions without brackets, ``sin^2 x``, ``|x|``, ``x²``, ``√x``, ...) and writes Python
   syntax, with a map from its columns back to the text as typed (error carets point at what
   the user typed) and notes on readings that had another plausible meaning; labels
   (``y =``, ``f(x) =``, ``d/dx``) are dropped here, other equations become a ``Relation``;
4. ``ast.parse(mode="eval")`` (retried on a thread with a large stack when a long flat chain
   such as ``x+x+...+x`` is deeper than the default recursion limit allows);
5. an iterative walk that accepts only the node types below and builds the tree. User text is
   never passed to ``eval``/``exec`` or to SymPy's string parser.

The result is a tree of ``tree.py`` nodes (re-exported here: ``expr.Number``, ``expr.fold``,
...); ``printer.read_as(tree)`` writes it back in SymPy syntax; reading that gives the same tree.
The reader also owns variable names (the last section): the one spelling of a name
(``normalize``), applied to the names a command declares too, and the refusal of look-alike
names (``check_look_alikes``), so ``read`` returns a checked ``Reading``.
"""
from __future__ import annotations

import ast
import re
import sys
import threading
from typing import Iterable

from . import notation as R
from .errors import ExprError
from .functions import CONSTANTS, FUNCTIONS, allowed_summary
from .printer import read_as
from .record import Record
from .tree import (
    Binary,
    Call,
    Constant,
    Expr,
    Index,
    Number,
    Relation,
    Unary,
    Variable,
    build,
    children,
    fold,
    free_variables,
    postorder,
)

__all__ = ["read", "parse", "parse_list", "rewrite", "Reading", "normalize",
           "check_look_alikes", "LOOK_ALIKES", "MAX_LENGTH",
           "MAX_NESTING", "Expr", "Number", "Constant", "Variable", "Unary", "Binary", "Call",
           "Index", "Relation", "children", "fold", "free_variables"]

#: Longest expression accepted, in characters (SPEC: at least 100,000).
MAX_LENGTH = 250_000
#: Deepest bracket nesting accepted (SPEC: at least 100; Python's parser stops at 200).
MAX_NESTING = 150
#: most components of one vector variable (x=[...])
MAX_VECTOR_LENGTH = 10_000

ALLOWED = ("expressions may use numbers, variable names, + - * / ** ^, parentheses, pi, e, "
           "x[0] on vectors, and functions")


# --------------------------------------------------------------------------- reading

class Reading(Record):
    """What a text was read as: the tree, its canonical spelling ``read_as`` (SymPy syntax),
    the ``notes`` on readings with another plausible meaning, and ``wrt`` when the text
    said ``d/dx`` (or ``dy/dx = ...``). ``variables``: the tree's free names in the order
    they first appear, left to right.

    ``derivative_order``: the order of derivative the text names, or None. With ``asks``
    an operator in front asks for it (``d²/dx² x^3``, ``d/dx d/dx x^3``: the 2nd
    derivative of the tree); without, a label states it (``y'' = 6x``, ``f^{(4)}(x) =
    360x^2``: the tree is the 4th derivative of the function). ``order`` is not a
    derivative's order: it is the tree's postorder list, when the reader has it."""

    _fields = ("tree", "notes", "wrt")

    def __init__(self, tree, notes: list, wrt: str | None = None,
                 variables: list[str] | None = None, order: list | None = None,
                 derivative_order: int | None = None, asks: bool = False) -> None:
        self.tree = tree
        self.notes = notes
        self.wrt = wrt
        self.variables = _in_order_of_appearance(tree, order) if variables is None else variables
        self.order = order      # the tree's ``postorder`` list, when the reader has it
        self.derivative_order = derivative_order
        self.asks = asks

    @property
    def read_as(self) -> str:
        """Written when asked for: a long text's reading costs a walk of its tree."""
        return read_as(self.tree)


def read(text: str, *, names=(), relation: bool = False, label: str | None = None
         ) -> Reading:
    """Read one expression (SPEC sections 3, 4 and 8) or raise ``ExprError`` (``ReadError``).

    ``names`` are names the caller knows (a command's ``--at``, ``--wrt``, ...), never split
    into letters (spelled here as ``normalize`` spells them; look-alike names are refused here
    too); with ``relation`` an equation that is not a label is returned as a ``Relation``
    tree, otherwise it is an error. ``label`` names the text in errors (``--answer``).

    >>> reading = read("x^2 sin x")
    >>> reading.read_as, reading.variables
    ('x**2*sin(x)', ['x'])
    """
    declared = _declared(names)
    try:
        try:
            reading = _read(text, declared, relation)
        except ExprError:
            if isinstance(text, str):
                check_look_alikes(declared, text)   # a misspelt name is the error to report
            raise
        # the text's runs of letters and every name, once the reading has found its names
        check_look_alikes([*reading.variables, *declared], text)
        return reading
    except ExprError as err:
        if label and not err.label:
            err.label = label
        raise


def _in_order_of_appearance(tree, order=None) -> list[str]:
    nodes = order if order is not None else postorder(tree)
    return list(dict.fromkeys(node.name for node, _ in nodes if isinstance(node, Variable)))


def _declared(declared) -> tuple[str, ...]:
    """The names a command declared, each in its one spelling (``normalize``); what is not a
    name after that is dropped."""
    return tuple(n for n in map(normalize, declared) if n.isidentifier())


def _read(text, declared, relation) -> Reading:
    _check_text(text)
    read = R.read_text(text, declared)
    if read.equation is None:
        ((source, notes),) = read.pieces
        tree, _, order = _tree(source)
        return Reading(tree, notes, read.wrt, order=order, derivative_order=read.order,
                       asks=read.asks)
    (left, notes), (right, more) = read.pieces
    lhs, _, _ = _tree(left)
    rhs, _, _ = _tree(right)
    equals, whole = read.equation
    tree = Relation(lhs, rhs, whole)
    notes += [n for n in more if n not in notes]
    if not relation:
        raise ExprError(f"{text.strip()} is an equation, read as an implicit "
                        f"relation; this command takes an expression (implicit "
                        f"derivatives: --implicit)", text, *equals)
    return Reading(tree, notes, read.wrt, derivative_order=read.order, asks=read.asks)


def _check_text(text) -> None:
    if not isinstance(text, str):
        raise ExprError("an expression must be text")
    _check_limits(text)


def _tree(source: R.Source):
    node = _ast_of(source)
    if isinstance(node.body, ast.List):
        raise _Walker(source).error(node.body, "a bracketed list is only allowed as the "
                                               "whole target of tape jacobian")
    walker = _Walker(source)
    return walker.convert(node.body), walker.variables, walker.order


def rewrite(text: str, declared=()) -> tuple[str, list[int]]:
    """The Python syntax ``text`` is read as, and ``origin``: ``origin[i]`` is the column in
    ``text`` of column ``i`` of the result (one extra entry for the end).

    >>> rewrite("2x^2")[0]
    '2*x**2'
    >>> rewrite("3(x+1)·π")[0]
    '3*(x+1)*pi'
    """
    _check_text(text)
    tokens, fold, typed = R.scan(text, _declared(declared))
    source, _ = R.translate(typed, tokens, fold)
    return source.python, source.origin





# --------------------------------------------------------------------------- parsing

def parse(text: str, declared=()) -> Expr:
    """Parse one scalar-or-vector expression into a tree, or raise ``ExprError``."""
    return read(text, names=declared).tree


def parse_list(text: str, declared=()) -> list[tuple[str, Expr]]:
    """Parse ``"[f1, f2, ...]"`` (or one expression) into (source text, tree) pairs."""
    return [(t, r.tree) for t, r in read_list(text, declared=declared)]


def read_list(text: str, label: str | None = None, declared=()) -> list[tuple[str, Reading]]:
    """Like ``read`` for ``"[f1, f2, ...]"``: (source text, reading) for each item."""
    if not (isinstance(text, str) and text.strip().startswith("[")):
        return [(text.strip(), read(text, names=declared, label=label))]
    declared = _declared(declared)
    try:
        check_look_alikes(declared, text)
        _check_text(text)
        tokens, fold, typed = R.scan(text, declared)
        source, notes = R.translate(typed, tokens, fold)
        node = _ast_of(source)
        walker = _Walker(source)
        if not isinstance(node.body, ast.List):
            tree = walker.convert(node.body)
            return [(text.strip(), Reading(tree, notes, order=walker.order))]
        if not node.body.elts:
            raise walker.error(node.body, "the list of expressions is empty")
        items = []
        for elt in node.body.elts:
            start, end = walker.span(elt)
            tree = walker.convert(elt)
            items.append((text[start:end].strip(), Reading(tree, notes, order=walker.order)))
            notes = []
        check_look_alikes([n for _, r in items for n in r.variables])
        return items
    except ExprError as err:
        if label and not err.label:
            err.label = label
        raise


def _ast_of(source: R.Source) -> ast.Expression:
    try:
        return _ast_parse(source.python)
    except SyntaxError as exc:
        raise _syntax_error(exc, source) from None
    except (MemoryError, RecursionError):
        raise ExprError("expression is nested too deeply for the parser (limit: "
                        f"{MAX_NESTING} levels of brackets, a few thousand chained "
                        "operators such as ** or unary minus)") from None
    except ValueError as exc:  # e.g. null bytes, caught earlier, but be safe
        raise ExprError(f"cannot parse the expression: {exc}") from None


def _check_limits(text: str) -> None:
    if len(text) > MAX_LENGTH:
        raise ExprError(f"expression is {len(text)} characters long; the limit is "
                        f"{MAX_LENGTH} characters")
    if not text.strip():
        raise ExprError("empty expression")
    if not text.isascii():   # unicodedata only for non-ASCII text (not at every start)
        from unicodedata import category
    depth = 0
    for col, ch in enumerate(text):
        if ch in "([{":
            depth += 1
            if depth > MAX_NESTING:
                raise ExprError(f"brackets nested more than {MAX_NESTING} levels deep "
                                f"(the nesting limit)", text, col, col + 1)
        elif ch in ")]}":
            depth -= 1
        elif ((ch < " " or ch == "\x7f" or ch > "\x7f" and category(ch) in ("Cc", "Cs"))
              and not ch.isspace()):   # control characters (Cc; in ASCII: below " " and DEL)
            raise ExprError(f"control character {ch!r} is not allowed", text, col, col + 1)
        elif ch == "#":  # Python would read the rest as a comment and silently drop it
            raise ExprError("'#' is not allowed", text, col, col + 1)
        elif ch in "\n\r" and text[:col].strip() and text[col:].strip():
            # two lines side by side would read as a product of the two
            raise ExprError("the text holds a line break; write the expression on one line",
                            text, col, col + 1)


def _ast_parse(python: str) -> ast.Expression:
    try:
        return ast.parse(python, mode="eval")
    except RecursionError:
        pass
    # A long flat chain (x+x+...+x) is a deep tree; building its Python AST recurses in C.
    # Retry on a thread with a large stack and a raised recursion limit.
    outcome: dict = {}

    def work() -> None:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 4 * MAX_LENGTH))
        try:
            outcome["tree"] = ast.parse(python, mode="eval")
        except BaseException as exc:  # re-raised on the calling thread
            outcome["error"] = exc
        finally:
            sys.setrecursionlimit(old)

    old_size = threading.stack_size(512 * 1024 * 1024)
    try:
        worker = threading.Thread(target=work, name="tape-parse")
        worker.start()
        worker.join()
    finally:
        threading.stack_size(old_size)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["tree"]


def _syntax_error(exc: SyntaxError, source: R.Source) -> ExprError:
    msg = exc.msg or "invalid syntax"
    if "unterminated string" in msg or "EOL" in msg:
        msg = "strings are not allowed"
    elif "never closed" in msg or "unmatched" in msg or "does not match" in msg:
        pass
    elif msg.startswith("invalid syntax"):
        msg = "invalid syntax"
    start = (exc.offset or 1) - 1
    end = (exc.end_offset - 1) if exc.end_offset and exc.end_offset > exc.offset else start + 1
    long_number = re.search(r"\d{4301,}", source.python)
    if "Exceeds the limit" in msg and long_number:  # Python's int_max_str_digits (4300)
        start, end = long_number.span()
        msg = f"a number of {end - start} digits is too long (the limit is 4300 digits)"
    elif not exc.offset and msg == "invalid syntax":
        # Python gives offset 0 when the text stops mid-expression ("x^", "2*")
        msg = "the expression ends unexpectedly"
        start, end = len(source.python), len(source.python) + 1
    if exc.lineno and exc.lineno > 1:   # cannot happen: whitespace was flattened; stay safe
        start, end = len(source.python), len(source.python) + 1
    o_start = source.original(start)
    o_end = max(o_start + 1, source.original(end))
    return ExprError(f"cannot parse the expression: {msg}", source.text, o_start, o_end)


_DISALLOWED = {
    ast.Attribute: "attributes are not allowed",
    ast.Lambda: "lambda is not allowed",
    ast.ListComp: "comprehensions are not allowed",
    ast.SetComp: "comprehensions are not allowed",
    ast.DictComp: "comprehensions are not allowed",
    ast.GeneratorExp: "comprehensions are not allowed",
    ast.IfExp: "conditional expressions are not allowed",
    ast.Compare: "comparisons are not allowed",
    ast.BoolOp: "'and' / 'or' are not allowed",
    ast.Dict: "dictionaries are not allowed",
    ast.Set: "sets are not allowed",
    ast.Tuple: "tuples are not allowed (several expressions: tape jacobian \"[f, g]\")",
    ast.List: "lists are not allowed inside an expression",
    ast.Starred: "starred arguments are not allowed",
    ast.JoinedStr: "strings are not allowed",
    ast.NamedExpr: "assignments (:=) are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.Slice: "slices are not allowed; index with one integer like x[0]",
}

_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_OTHER_BINARY = {ast.Mod: "%", ast.FloorDiv: "//", ast.MatMult: "@", ast.BitXor: "^",
                 ast.BitAnd: "&", ast.BitOr: "|", ast.LShift: "<<", ast.RShift: ">>"}
_UNARY = {ast.USub: "-", ast.UAdd: "+"}


class _Walker:
    """Checks a Python AST against the whitelist and converts it, without recursion."""

    def __init__(self, source: R.Source):
        self.source = source
        self.variables: set[str] = set()    # the free names of the trees built so far
        self.order: list | None = None      # the last tree's ``postorder`` list

    def span(self, node: ast.AST) -> tuple[int, int]:
        """The node's (start, end) columns in the text as typed."""
        src = self.source
        first, last = node.col_offset, node.end_col_offset
        if src.byte_to_char is not None:
            first, last = src.from_bytes(first), src.from_bytes(last)
        origin = src.origin
        start = origin[min(first, len(origin) - 1)]
        end = origin[min(last, len(origin) - 1)]
        return start, max(end, start + 1)

    def error(self, node: ast.AST, message: str, hint: bool = False) -> ExprError:
        start, end = self.span(node)
        err = ExprError(message, self.source.text, start, end)
        if hint:
            err.hint = f"{ALLOWED}: " + " ".join(FUNCTIONS)
        return err

    def convert(self, root: ast.AST) -> Expr:
        """The tree of ``root``, checked; its ``postorder`` list is left in ``self.order``."""
        items: list = []          # what ``tree.build`` makes the nodes from, in postorder
        arity: dict[int, int] = {}
        stack: list = [(root, False)]
        while stack:
            node, expanded = stack.pop()
            if not expanded:
                kids = self._check(node)
                stack.append((node, True))
                for kid in reversed(kids):
                    stack.append((kid, False))
                arity[id(node)] = len(kids)
            else:
                items.append(self._item(node, arity.pop(id(node))))
        tree, self.order, names = build(items)
        self.variables |= names
        return tree

    def _check(self, node: ast.AST) -> list:
        """Validate one node; return the children to convert."""
        if isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                op = _OTHER_BINARY.get(type(node.op), type(node.op).__name__)
                raise self.error(node, f"operator {op} is not allowed; use + - * / ** ^")
            return [node.left, node.right]
        if isinstance(node, ast.UnaryOp):
            if type(node.op) not in _UNARY:
                raise self.error(node, "only unary minus and plus are allowed")
            return [node.operand]
        if isinstance(node, ast.Call):
            return self._check_call(node)
        if isinstance(node, ast.Subscript):
            self._index_value(node)
            return [node.value]
        if isinstance(node, ast.Name):
            self._check_name(node)
            return []
        if isinstance(node, ast.Constant):
            self._number_value(node)
            return []
        if isinstance(node, ast.Tuple) and re.search(r"\d,\d", self.source.text):
            raise self.error(node, "a comma between digits: write decimals with a point "
                                   "(2.5, not 2,5); several expressions go in tape jacobian "
                                   "\"[f, g]\"")
        message = _DISALLOWED.get(type(node), f"{type(node).__name__} is not allowed")
        raise self.error(node, message, hint=True)

    def _check_name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("_"):
            kind = "dunder names" if name.startswith("__") else "names starting with _"
            raise self.error(node, f"{kind} are not allowed: {name!r}", hint=True)
        if name in FUNCTIONS:
            err = self.error(node, f"{name!r} is a function; call it like {name}(x)")
            err.hint = f"or without brackets on one factor: {name} x, {name} 2x, {name}^2 x"
            raise err

    def _check_call(self, node: ast.Call) -> list:
        func = node.func
        if not isinstance(func, ast.Name):
            what = ("attributes are not allowed" if isinstance(func, ast.Attribute)
                    else "only named functions can be called")
            raise self.error(func, what, hint=True)
        name = func.id
        if name.startswith("_"):
            kind = "dunder names" if name.startswith("__") else "names starting with _"
            raise self.error(func, f"{kind} are not allowed: {name!r}", hint=True)
        if name not in FUNCTIONS:
            err = self.error(func, f"unknown function {name!r}")
            err.hint = R.suggest_function(name) or allowed_summary()
            raise err
        if node.keywords:
            raise self.error(node.keywords[0], "keyword arguments are not allowed")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, "starred arguments are not allowed")
        low, high = FUNCTIONS[name].arity, FUNCTIONS[name].max_arity
        if not low <= len(node.args) <= high:
            plural = "argument" if high == 1 else "arguments"
            count = str(low) if low == high else f"{low} or {high}"
            raise self.error(node, f"{name} takes {count} {plural}, got {len(node.args)}")
        return list(node.args)

    def _index_value(self, node: ast.Subscript) -> int:
        index = node.slice
        sign = 1
        if isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.USub, ast.UAdd)):
            sign = -1 if isinstance(index.op, ast.USub) else 1
            index = index.operand
        if (isinstance(index, ast.Constant) and isinstance(index.value, int)
                and not isinstance(index.value, bool)):
            if abs(index.value) > 10**9:
                raise self.error(node.slice, "index out of range")
            return sign * index.value
        if isinstance(index, ast.Slice):
            raise self.error(node.slice, _DISALLOWED[ast.Slice])
        raise self.error(node.slice, "an index must be an integer literal like x[0]")

    def _number_value(self, node: ast.Constant) -> float:
        value = node.value
        if isinstance(value, bool) or value is None or value is Ellipsis:
            raise self.error(node, f"{value!r} is not allowed", hint=True)
        if isinstance(value, (str, bytes)):
            raise self.error(node, "strings are not allowed", hint=True)
        if isinstance(value, complex):
            raise self.error(node, "complex numbers are not allowed")
        try:
            return float(value)
        except OverflowError:
            return float("inf")

    def _item(self, node: ast.AST, children: int) -> tuple:
        """``node`` as an item of ``tree.build``: (class, value, span, number of children)."""
        span = self.span(node)
        if isinstance(node, ast.BinOp):
            return Binary, _BINARY[type(node.op)], span, children
        if isinstance(node, ast.UnaryOp):
            return Unary, _UNARY[type(node.op)], span, children
        if isinstance(node, ast.Call):
            return Call, node.func.id, span, children
        if isinstance(node, ast.Subscript):
            return Index, self._index_value(node), span, children
        if isinstance(node, ast.Name):
            return (Constant if node.id in CONSTANTS else Variable), node.id, span, 0
        return Number, self._number_value(node), span, 0

# --------------------------------------------------------------------------- names
# Variable names as the user typed them: one normal form everywhere, and no look-alikes.
# ``normalize`` is the one spelling rule for a name, wherever it comes from (the expression,
# ``--at``, ``--wrt``, a ``--points`` header): NFKC, as Python itself applies to identifiers,
# so a fullwidth ``ｘ`` is ``x`` in every place or in none. ``check_look_alikes`` refuses names
# that would silently become different variables although they look the same: Latin ``x``
# beside Cyrillic ``х``, Greek ``ο`` beside Latin ``o``, or one name that mixes scripts
# through such a letter (``cоs`` with a Cyrillic ``о`` is not ``cos``). A name wholly in one
# script (Greek ``θ``, a Cyrillic word) is fine on its own. The table lists the letters of
# Greek and Cyrillic that are drawn like a Latin letter in common fonts; letters that are
# merely similar (Greek ``ν``, ``ρ``, ``χ``), and common in formulas, are left out.

#: a Greek or Cyrillic letter -> the Latin letter it is drawn like
LOOK_ALIKES = {
    # Cyrillic lower case
    "а": "a", "в": "b", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
    # Cyrillic upper case
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "Х": "X", "У": "Y", "І": "I", "Ј": "J", "Ѕ": "S", "Ԁ": "D",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "I",
    # Greek
    "ο": "o", "ϳ": "j",
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M",
    "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}


def normalize(name: str) -> str:
    """The one spelling of a variable name (NFKC, like Python identifiers); surrounding
    spaces are not part of it."""
    name = name.strip()
    if name.isascii():
        return name
    import unicodedata   # only for non-ASCII names: not at every start

    return unicodedata.normalize("NFKC", name)


def _script(ch: str) -> str:
    """The script of a letter as its Unicode name begins (LATIN, GREEK, CYRILLIC, ...)."""
    from unicodedata import name

    return name(ch, "UNKNOWN").split()[0]


def _describe(ch: str) -> str:
    from unicodedata import name

    return f"{ch!r} is {name(ch, 'an unnamed character')}"


def _skeleton(name: str) -> str:
    return "".join(LOOK_ALIKES.get(ch, ch) for ch in name)


def check_look_alikes(names: Iterable[str], text: str = "") -> None:
    """Refuse (ExprError, exit 2) a name, or a run of letters in ``text`` (an expression as
    typed, before the reader splits ``xy`` into x·y), that mixes scripts through a look-alike
    letter, and two different names that look the same; say which characters and scripts
    they are."""
    names = list(dict.fromkeys(names))
    if text.isascii() and all(name.isascii() for name in names):
        return
    runs = [(m.group(), m.span()) for m in re.finditer(r"[^\W\d_]+", text)]
    for word, span in [*runs, *((name, None) for name in names)]:
        scripts = {_script(ch) for ch in word if ch.isalpha()}
        tricky = [ch for ch in word if ch in LOOK_ALIKES]
        if len(scripts) > 1 and tricky:
            ch = tricky[0]
            raise ExprError(f"{word!r} mixes {' and '.join(sorted(scripts)).lower()} letters: "
                            f"{_describe(ch)}, which looks like the Latin "
                            f"{LOOK_ALIKES[ch]!r}; type the name in one script",
                            *((text, *span) if span else ()))
    by_skeleton: dict[str, str] = {}
    for name in names:
        other = by_skeleton.setdefault(_skeleton(name), name)
        if other != name:
            a, b = next((p, q) for p, q in zip(other, name) if p != q)
            raise ExprError(f"{other!r} and {name!r} look alike but are different names "
                           f"({_describe(a)}, {_describe(b)}); type them the same way")
