"""Derivatives as formulas: ``tape diff`` as a library call.

Each derivative is tape's own where it can be (``treediff``: the textbook rules on tape's tree,
like terms collected, numbers folded), kept only after the engine's derivative agrees with it at
random points. SymPy takes over for what those rules do not cover (``erf``, ``max``, vector
components, trees too large) or for a derivative the engine does not confirm, and on request
(``simplify``): then the form shown is SymPy's simplest found in time, else the derivative as
SymPy differentiated it.

``style`` is ``plain`` (SymPy syntax on one line), ``pretty`` (SymPy's unicode 2-D drawing),
``math`` (a textbook's notation, ``x^2 cos(x)``) or ``latex``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..expr import tree as E
from ..expr.errors import CLIError
from ..expr.printer import read_as
from .limits import DEPENDENT, DIFF_MAX_ORDER, STEPS_MAX_ORDER, TIMEOUT
from .timelimit import SymbolicTimeout, run_limited, run_optional

if TYPE_CHECKING:
    from .implicit import Curve
    from .targets import Target

#: the most distinct partial derivatives one call writes
MAX_PARTIALS = 200
#: what a derivative can be written as (``plain`` is SymPy syntax, ``math`` a textbook's:
#: ``printer.notate``)
STYLES = ("plain", "pretty", "math", "latex")
#: what the expressions of a derivation can be written as: SymPy syntax, a textbook's notation
#: (``printer.notate``: ``ln``, ``^``, ``√``, ``e^x``, ``|x|``), LaTeX
STEP_STYLES = ("plain", "math", "latex")
#: expressions with at most this many nodes are derived step by step in this process (the
#: steps grow with the tree, and past this size a child that can be stopped in time is safer)
SMALL = 300


@dataclass
class Formulas:
    """The distinct partials of ``order`` of ``target`` along ``wrt`` (its variables' names):
    ``texts[j]`` is the partial along the components ``keys[j]`` (indices into ``components``);
    ``simplified`` is False when SymPy's simplification did not finish and the derivative is
    shown as differentiated."""

    expression: str
    target: Target
    wrt: list[str]
    order: int
    components: list
    keys: list[tuple[int, ...]]
    texts: list[str]
    simplified: bool = True


@dataclass
class Derivation:
    """The derivation of ``target`` along each of ``wrt``, rule by rule and order by order,
    each step verified by the engine: ``document`` is ``{"steps": {variable: [root step per
    order]}, "derivative": {variable: text}}``, every step a dict of ``rule``, ``expression``,
    ``result``, ``steps`` (its inner steps) and, where they apply, ``wrt`` and
    ``substitution``."""

    expression: str
    target: Target
    wrt: list[str]
    order: int
    document: dict


@dataclass
class ImplicitFormula:
    """dy/dx (``order`` 1) or d²y/dx² (2) along ``curve``, written as ``text``."""

    expression: str
    curve: Curve
    order: int
    text: str


def derivatives(expression: str, *, wrt: Optional[str] = None, order: int = 1,
                style: str = "plain", timeout: float = TIMEOUT,
                simplify: bool = False) -> Formulas:
    """Every distinct partial of ``order`` of ``expression`` along ``wrt`` (names separated by
    commas; default: the variable a ``d/dx`` in the text names, else all), written in ``style``.
    A derivative operator in the text (``d²/dx² x^3``) gives the order; ``order`` may only
    repeat it. Raises ``CLIError`` for text that cannot be read or an impossible request,
    ``SymbolicTimeout`` when SymPy's part does not finish within ``timeout`` seconds."""
    from ..expr.symbolic import infer_sizes
    from .derivatives import components, multisets, refuse_too_many_partials
    from .targets import declared_names, expression_target

    _check_style(style)
    target = expression_target(expression, declared=declared_names(wrt=wrt))
    names = target.wrt_names(wrt)
    target.names = target.names or names or ["x"]   # a constant: a function of any variable
    asked = target.derivative_order if target.asks else None
    if asked and order not in (1, asked):
        raise CLIError(f"the text asks for derivative order {asked} and --order says {order}; "
                       f"give one of them")
    order = asked or order
    if not 1 <= order <= DIFF_MAX_ORDER:
        raise CLIError(f"--order must be between 1 and {DIFF_MAX_ORDER}")
    not_real = _constant_without_real_value(target.trees[0])
    if not_real:
        raise CLIError(not_real)
    variables = target.ordered(names)
    wrt_names = names or list(variables)
    sizes = {n: None for n in variables} | infer_sizes(target.trees[0])
    # counted before the components and their multisets are listed: both can be huge
    count = sum(1 if sizes[name] is None else sizes[name] for name in wrt_names)
    refuse_too_many_partials(count, order, MAX_PARTIALS, "variables", "diff")
    comps = components(variables, wrt_names, sizes)
    keys = multisets(len(comps), order)
    if not simplify and all(sizes[name] is None for name in variables):
        started = time.monotonic()
        texts = _own(target.trees[0], variables, [[comps[i].name for i in key] for key in keys],
                     sizes, style)
        if texts is not None:
            _in_time(started, timeout, "symbolic differentiation")
            return Formulas(expression, target, wrt_names, order, comps, keys, texts)
    deadline = time.monotonic() + timeout
    job = (target.trees[0], sizes, wrt_names, keys, style)
    raw = run_limited(_differentiate, *job, False, timeout=timeout,
                      what="symbolic differentiation", consequence="")
    texts = run_optional(deadline, _differentiate, *job, True)
    return Formulas(expression, target, wrt_names, order, comps, keys, texts or raw,
                    simplified=texts is not None)


def implicit_derivative(equation: str, *, wrt: Optional[str] = None,
                        dependent: str = DEPENDENT, order: int = 1, style: str = "plain",
                        timeout: float = TIMEOUT, simplify: bool = False) -> ImplicitFormula:
    """dy/dx (``order`` 1) or d²y/dx² (2) along the curve ``equation`` (``x^2 + y^2 = 1``;
    ``dependent`` names y, ``wrt`` x): by tape's own rules, each partial confirmed by the
    engine, else (and with ``simplify``) by SymPy."""
    from .implicit import curve_from_text, slope_text
    from .targets import parse_wrt
    from .treediff import implicit_slope

    _check_style(style)
    if order not in (1, 2):
        raise CLIError("--implicit gives dy/dx (--order 1) or d2y/dx2 (--order 2)")
    names = parse_wrt(wrt)
    if len(names) > 1:
        raise CLIError("--implicit differentiates along one variable: give one name in --wrt")
    curve = curve_from_text(equation, dependent, names[0] if names else None)
    if not simplify:
        started = time.monotonic()
        slope = implicit_slope(curve.function, curve.x, curve.y, order)
        if slope is not None:
            _in_time(started, timeout, "implicit differentiation")
            text = written(slope, {curve.x: None, curve.y: None}, style)
            return ImplicitFormula(equation, curve, order, text)
    return ImplicitFormula(equation, curve, order, slope_text(curve, order, style, timeout))


def steps(expression: str, *, wrt: Optional[str] = None, order: int = 1,
          style: str = "plain", timeout: float = TIMEOUT) -> Derivation:
    """``expression`` differentiated step by step along ``wrt`` (default: every variable),
    ``order`` times, its expressions written in ``style`` (``STEP_STYLES``). Small trees are
    derived here, larger ones (and SymPy's printers) in a child stopped after ``timeout``
    seconds (``SymbolicTimeout``)."""
    from ..expr.symbolic import infer_sizes
    from .targets import declared_names, expression_target

    _check_style(style, STEP_STYLES)
    if not 1 <= order <= STEPS_MAX_ORDER:
        raise CLIError(f"--steps shows orders up to {STEPS_MAX_ORDER}; got --order {order} "
                       f"(tape diff without --steps gives any order up to {DIFF_MAX_ORDER})")
    target = expression_target(expression, declared=declared_names(wrt=wrt))
    names = target.wrt_names(wrt)
    variables = target.ordered(names)      # checks the names, too
    along = names or list(variables)
    if not along:
        raise CLIError(f"{expression!r} has no variables to differentiate by")
    tree = target.trees[0]
    infer_sizes(tree)
    what = "the step-by-step derivation"
    if style == "plain" and len(E.postorder(tree)) <= SMALL:
        # no SymPy on this path, and its work is bounded: in this process, timed
        started = time.monotonic()
        document = _derivation(tree, along, order, style)
        if time.monotonic() - started > timeout:
            raise SymbolicTimeout(timeout, what, "")
    else:
        document = run_limited(_derivation, tree, along, order, style, timeout=timeout,
                               what=what, consequence="")
    return Derivation(expression, target, along, order, document)


def shower(style: str):
    """A function from expression trees to text in ``style`` (``STEP_STYLES``): ``plain`` is
    tape's own printer (no SymPy), ``math`` and ``latex`` SymPy's printers."""
    from ..expr import symbolic as S
    from .steps import as_sympy

    if style == "latex":
        return lambda t: S.render(as_sympy(t), "latex")
    if style == "math":
        return lambda t: S.render(as_sympy(t), "math")
    return read_as


def written(tree: E.Expr, sizes: dict, style: str) -> str:
    """A derivative tree as text: SymPy syntax as tape's printer writes it (``plain``), or
    SymPy's ``pretty``/``latex`` rendering of the same tree."""
    if style == "plain":
        return read_as(tree)
    from ..expr import symbolic as S

    return S.render(S.as_scalar(S.to_sympy(tree, sizes)), style)


def _check_style(style: str, allowed: tuple = STYLES) -> None:
    if style not in allowed:
        raise ValueError(f"style must be one of {', '.join(allowed)}, not {style!r}")


def _constant_without_real_value(tree: E.Expr) -> Optional[str]:
    """Why ``tree`` has no real derivative because of a constant part of it (``sqrt(-1)``,
    ``acos(2)``, ``tan(pi/2)``), or None. tape's variables and results are real: a derivative
    such as ``2*I*x`` is not one."""
    from ..expr import highprec as H
    from .treediff import undefined_constant

    call = undefined_constant(tree)
    if call is None:
        return None
    real = H.value_at(H.compile_tree(call, []), []) is not None
    why = "is undefined (a pole)" if real else "is not real"
    return (f"the expression holds a constant with no real value: {read_as(call)} {why}; "
            f"tape works with real numbers: check the constants in the expression")


def _own(tree, variables: list[str], alongs: list[list[str]], sizes, style: str):
    """Each derivative by tape's own rules, confirmed by the engine, as text in ``style``;
    None when any of them is not (SymPy then does them all)."""
    from .treediff import checked

    trees = checked(tree, variables, alongs)
    if any(t is None for t in trees):
        return None
    return [written(t, sizes, style) for t in trees]


def _in_time(started: float, timeout: float, what: str) -> None:
    """The time limit holds for tape's own derivatives too (they are quick, but bounded all
    the same)."""
    if time.monotonic() - started > timeout:
        raise SymbolicTimeout(timeout, what, "")


def _derivation(tree, wrt, order, style):
    from .steps import derivation

    return derivation(tree, wrt, order, shower(style))


def _differentiate(tree, sizes, wrt, keys, style, tidy):
    """In a child: each distinct partial (``tidy``: in a readable form), rendered in
    ``style``."""
    from ..expr import symbolic as S

    f = S.as_scalar(S.to_sympy(tree, sizes))
    comps = S.component_symbols(wrt, sizes)
    out = []
    for key in keys:
        d = S.derivative(f, [comps[i] for i in key])
        out.append(S.render(S.tidy(d) if tidy else d, style))
    return out
