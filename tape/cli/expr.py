"""The expression language: text -> whitelisted Python ``ast`` -> a small expression tree.

Steps (``parse``):

1. limits: length and bracket nesting are checked first, so abuse fails fast with a message
   naming the limit;
2. ``rewrite``: ``^`` becomes ``**``; ``π − × · ÷`` become ``pi - * * /``; a ``*`` is inserted
   between a number and a directly following name or ``(`` (``2x``, ``3(x+1)``, ``4sin(x)``),
   so implicit multiplication binds exactly like ``*``. A map from rewritten to original
   columns keeps error carets pointing at what the user typed;
3. ``ast.parse(mode="eval")`` (retried on a thread with a large stack when a long flat chain
   such as ``x+x+...+x`` is deeper than the default recursion limit allows);
4. an iterative walk that accepts only the node types below and builds the tree. User text is
   never passed to ``eval``/``exec`` or to SymPy's string parser.

The result is a tree of ``tree.py`` nodes (re-exported here: ``expr.Number``, ``expr.fold``,
...).
"""
from __future__ import annotations

import ast
import re
import sys
import threading

from .errors import ExprError
from .functions import CONSTANTS, FUNCTIONS, allowed_summary
from .record import Record
from .tree import (Binary, Call, Constant, Expr, Index, Number, Unary, Variable, children,
                   fold, free_variables)

__all__ = ["parse", "parse_list", "rewrite", "MAX_LENGTH", "MAX_NESTING", "Expr", "Number",
           "Constant", "Variable", "Unary", "Binary", "Call", "Index", "children", "fold",
           "free_variables"]

#: Longest expression accepted, in characters (SPEC: at least 100,000).
MAX_LENGTH = 250_000
#: Deepest bracket nesting accepted (SPEC: at least 100; Python's parser stops at 200).
MAX_NESTING = 150

ALLOWED = ("expressions may use numbers, variable names, + - * / ** ^, parentheses, pi, e, "
           "x[0] on vectors, and functions")


# --------------------------------------------------------------------------- rewriting

_UNICODE = {"π": "pi", "−": "-", "×": "*", "·": "*", "⋅": "*", "÷": "/"}
_NUMBER = re.compile(r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[^\W\d]\w*")


def rewrite(text: str) -> tuple[str, list[int]]:
    """Rewrite the language's extras into Python syntax.

    Returns the Python text and ``origin``, where ``origin[i]`` is the column in ``text`` of
    column ``i`` of the result (one extra entry for the end).

    >>> rewrite("2x^2")[0]
    '2*x**2'
    >>> rewrite("3(x+1)·π")[0]
    '3*(x+1)*pi'
    """
    out: list[str] = []
    origin: list[int] = []

    def emit(s: str, col: int) -> None:
        out.append(s)
        origin.extend([col] * len(s))

    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        number = _NUMBER.match(text, i) if (ch.isdigit() or ch == ".") else None
        if number:
            for k, c in enumerate(number.group()):
                emit(c, i + k)
            i = number.end()
            if i < n and (text[i] == "(" or text[i] == "π" or _NAME.match(text, i)):
                emit("*", i)
            continue
        name = _NAME.match(text, i) if ch != "π" else None
        if name:
            for k, c in enumerate(name.group()):
                emit(c, i + k)
            i = name.end()
        elif ch == "^":
            emit("**", i)
            i += 1
        elif ch in _UNICODE:
            emit(_UNICODE[ch], i)
            i += 1
        elif ch.isspace():
            if out:  # leading blanks would be an "unexpected indent" to Python
                emit(" ", i)
            i += 1
        else:
            emit(ch, i)
            i += 1
    origin.append(n)
    return "".join(out), origin


# --------------------------------------------------------------------------- parsing

def parse(text: str) -> Expr:
    """Parse one scalar-or-vector expression into a tree, or raise ``ExprError``."""
    node, source = _parse_python(text)
    if isinstance(node.body, ast.List):
        raise _Walker(source).error(node.body, "a bracketed list is only allowed as the "
                                               "whole target of tape jacobian")
    return _Walker(source).convert(node.body)


def parse_list(text: str) -> list[tuple[str, Expr]]:
    """Parse ``"[f1, f2, ...]"`` (or one expression) into (source text, tree) pairs."""
    node, source = _parse_python(text)
    walker = _Walker(source)
    if not isinstance(node.body, ast.List):
        return [(text.strip(), walker.convert(node.body))]
    if not node.body.elts:
        raise walker.error(node.body, "the list of expressions is empty")
    items = []
    for elt in node.body.elts:
        start, end = walker.span(elt)
        items.append((text[start:end], walker.convert(elt)))
    return items


class _Source(Record):
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


def _parse_python(text: str) -> tuple[ast.Expression, _Source]:
    if not isinstance(text, str):
        raise ExprError("an expression must be text")
    _check_limits(text)
    python, origin = rewrite(text)
    byte_to_char = None
    if not python.isascii():
        byte_to_char = []
        for col, ch in enumerate(python):
            byte_to_char.extend([col] * len(ch.encode("utf-8")))
        byte_to_char.append(len(python))
    source = _Source(text, python, origin, byte_to_char)
    try:
        return _ast_parse(python), source
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


def _syntax_error(exc: SyntaxError, source: _Source) -> ExprError:
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

    def __init__(self, source: _Source):
        self.source = source

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
        results: list = []
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
                k = arity.pop(id(node))
                args = results[len(results) - k:] if k else []
                if k:
                    del results[len(results) - k:]
                results.append(self._build(node, args))
        return results[0]

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
        message = _DISALLOWED.get(type(node), f"{type(node).__name__} is not allowed")
        raise self.error(node, message, hint=True)

    def _check_name(self, node: ast.Name) -> None:
        name = node.id
        if name.startswith("_"):
            kind = "dunder names" if name.startswith("__") else "names starting with _"
            raise self.error(node, f"{kind} are not allowed: {name!r}", hint=True)
        if name in FUNCTIONS:
            raise self.error(node, f"{name!r} is a function; call it like {name}(x)")

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
            err.hint = allowed_summary()
            raise err
        if node.keywords:
            raise self.error(node.keywords[0], "keyword arguments are not allowed")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.error(arg, "starred arguments are not allowed")
        arity = FUNCTIONS[name].arity
        if len(node.args) != arity:
            plural = "argument" if arity == 1 else "arguments"
            raise self.error(node, f"{name} takes {arity} {plural}, got {len(node.args)}")
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

    def _build(self, node: ast.AST, args: list) -> Expr:
        span = self.span(node)
        if isinstance(node, ast.BinOp):
            return Binary(_BINARY[type(node.op)], args[0], args[1], span)
        if isinstance(node, ast.UnaryOp):
            return Unary(_UNARY[type(node.op)], args[0], span)
        if isinstance(node, ast.Call):
            return Call(node.func.id, tuple(args), span)
        if isinstance(node, ast.Subscript):
            return Index(args[0], self._index_value(node), span)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return Constant(node.id, span)
            return Variable(node.id, span)
        return Number(self._number_value(node), span)
