"""Targets: what the commands differentiate, as a batched callable plus its variable names.

A target is an expression (``"x**2*y"``), a list of expressions (``jacobian``), or a script
``path/to/script.py[:function]``. Scripts are imported as modules and run with the user's own
rights (they are the user's code, like ``python script.py``). Their variables are the function's
parameters in signature order; an expression's variables are its free names, alphabetically.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import traceback
from typing import Any, Callable

from ..expr import parse as E
from ..expr.parse import check_look_alikes, normalize
from ..expr.errors import CLIError
from ..expr.lower import check_and_lower, check_shapes, to_tape
from ..expr.notation import split_top_level
from ..expr.notes import tell
from ..expr.record import Record

#: ``path.py`` or ``path.py:function``; a plain string, compiled (and cached by ``re``) when
#: first matched: an expression target never needs it
_SCRIPT = r"^(?P<path>.+\.py)(?::(?P<function>[^\W\d]\w*))?$"


class ScriptError(CLIError):
    """A script raised while being imported or called (exit 2, with file:line)."""


class Target(Record):
    """A differentiable target.

    ``source`` is what JSON echoes as ``expression``: the text as given, or the list of
    expressions for ``jacobian``. ``trees`` holds the parsed expressions (empty for scripts),
    ``texts`` their source text; ``function`` and ``path`` describe a script.
    ``read_as`` is how an expression was read, in SymPy syntax (a list for several; None for
    scripts); ``notes`` the readings that had another plausible meaning; ``wrt_hint`` the variable a ``d/dx`` in the text named, if any.
    """

    _fields = ("source", "kind", "names", "trees", "texts", "function", "path",
               "keyword_only", "notes", "wrt_hint", "orders", "_shapes", "fence", "asks",
               "derivative_order")
    _unshown = ("orders", "_shapes", "fence")

    def __init__(self, source: Any, kind: str, names: list[str], trees: list | None = None,
                 texts: list | None = None, function: Callable | None = None,
                 path: str | None = None, keyword_only: frozenset = frozenset(),
                 notes: list | None = None, wrt_hint: str | None = None,
                 orders: list | None = None, _shapes: dict | None = None,
                 fence: Callable = contextlib.nullcontext, asks: bool = False,
                 derivative_order: int | None = None) -> None:
        self.source = source
        self.kind = kind                    # "expression" or "script"
        self.names = names                  # variables in natural order
        self.trees = [] if trees is None else trees
        self.texts = [] if texts is None else texts
        self.function = function
        self.path = path
        self.keyword_only = keyword_only    # script parameters after a bare *
        self.notes = [] if notes is None else notes
        self.wrt_hint = wrt_hint
        # each tree's ``postorder`` list (None where the reader had none), for the walkers
        self.orders = [None] * len(self.trees) if orders is None else orders
        self._shapes = {} if _shapes is None else _shapes
        self.fence = fence                  # around each run of a script's code
        self.asks = asks                    # the text asked for a derivative (d/dx in front)
        # the order of derivative the text names (``Reading.derivative_order``), or None
        self.derivative_order = derivative_order
        self.is_script = kind == "script"      # follows from ``kind``: not a field

    @property
    def read_as(self) -> str | list | None:
        """How the expression(s) were read, in SymPy syntax: a string, a list of strings for
        several expressions (``jacobian``), None for a script. Written when asked for."""
        if self.is_script:
            return None
        spelled = [E.read_as(tree) for tree in self.trees]
        return spelled if isinstance(self.source, list) else spelled[0]

    def wrt_names(self, wrt_text: str | None) -> list[str]:
        """The names ``--wrt`` gives, else the variable a ``d/dx`` in the text named, else
        none (all variables)."""
        return parse_wrt(wrt_text) or ([self.wrt_hint] if self.wrt_hint else [])

    def ordered(self, wrt: list[str] | None) -> list[str]:
        """The variable order: ``wrt`` names first as given, then the others naturally."""
        wrt = wrt or []
        unknown = [n for n in wrt if n not in self.names]
        if unknown:
            have = ", ".join(self.names) if self.names else "none"
            raise CLIError(f"--wrt: {', '.join(map(repr, unknown))} "
                           f"{'is' if len(unknown) == 1 else 'are'} not a variable of the "
                           f"target (its variables: {have})")
        if len(set(wrt)) != len(wrt):
            raise CLIError("--wrt: a variable is named twice")
        return list(wrt) + [n for n in self.names if n not in wrt]

    def output_shape(self, sizes: dict, variables: list[str] | None = None) -> int | None:
        """For expressions: None for one scalar output, else the number of output components.

        Checks every expression's shapes (exit 2 on a mismatch). Scripts: unknown (None).
        With ``variables`` (the order ``batched`` will be given them in), one expression is
        lowered in the same step when it can be once for all passes
        (``lower.check_and_lower``): ``batched`` then returns that function.
        """
        if self.is_script:
            return None
        if variables is not None and len(self.trees) == 1:
            key = _sizes_key(sizes)
            shape, lowered = check_and_lower(self.trees[0], sizes, variables, self.texts[0],
                                             self.orders[0])
            self._shapes = {"key": key, "shapes": [shape],
                            "lowered": (list(variables), lowered)}
            return shape
        shapes = self.tree_shapes(sizes)
        if len(shapes) == 1:
            return shapes[0]
        return sum(1 if s is None else s for s in shapes)

    def batched(self, variables: list[str], sizes: dict, count: int) -> Callable:
        """``f(*tensors)`` over all points at once, tensors in ``variables`` order.

        Expressions take ``(N,)`` scalars / ``(N, k)`` vectors and return ``(N,)`` for a scalar
        result or ``(N, m)`` for m outputs. Scripts get the same inputs and return what the
        script returns, normalised to a tensor (lists become the last axis).
        """
        import tape

        if self.is_script:
            return _script_caller(self, variables)
        shapes = self.tree_shapes(sizes)
        scalars_only = shapes == [None] and all(sizes[n] is None for n in variables)
        if scalars_only:
            # every value is (N,) and the result is one already (or a 0-d constant, which
            # the lowered function broadcasts), so the (N, 1) layout of vectors is skipped
            done, lowered = self._shapes.get("lowered", (None, None))
            if lowered is not None and done == list(variables):
                return lowered
            return to_tape(self.trees[0], variables, count, self.orders[0], reuse_literals=True)
        lowered = [to_tape(t, variables, order=o, reuse_literals=True)
                   for t, o in zip(self.trees, self.orders)]
        single_scalar = len(lowered) == 1 and shapes[0] is None

        def run(*tensors):
            inputs = [x if sizes[n] is not None else tape.reshape(x, (-1, 1))
                      for x, n in zip(tensors, variables)]
            outs = []
            for fn, shape in zip(lowered, shapes):
                y = fn(*inputs)
                want = (count, 1 if shape is None else shape)
                if tuple(y.shape) != want:
                    y = tape.broadcast_to(y, want)
                outs.append(y)
            y = outs[0] if len(outs) == 1 else tape.concat(outs, axis=-1)
            return tape.reshape(y, (-1,)) if single_scalar else y

        return run

    def tree_shapes(self, sizes: dict) -> list:
        """Each expression's shape (None: scalar, k: vector), checked once per ``sizes`` (the
        function ``output_shape`` lowered, if any, is kept with them)."""
        key = _sizes_key(sizes)
        if self._shapes.get("key") != key:
            shapes = [check_shapes(t, sizes, text, order)
                      for t, text, order in zip(self.trees, self.texts, self.orders)]
            self._shapes = {"key": key, "shapes": shapes}
        return self._shapes["shapes"]


def _sizes_key(sizes: dict) -> tuple:
    return tuple(sorted(sizes.items()))


def parse_wrt(text: str | None) -> list[str]:
    """``"x,y"`` -> ``["x", "y"]`` (empty or None: all variables)."""
    if text is None:
        return []
    names = [normalize(n) for n in text.split(",")]
    if not all(names):
        raise CLIError(f"--wrt: {text!r} is not a comma-separated list of names")
    return names


def is_script(text: str) -> bool:
    """Whether a TARGET argument names a script (``path.py`` or ``path.py:function``)."""
    return ".py" in text and bool(re.match(_SCRIPT, text.strip(), re.S))


def expression_target(text: str, label: str | None = None, declared=()) -> Target:
    """A target from one expression. ``label`` names the text in errors and notes
    (``--answer``); ``declared`` are the names the command was given (never split into
    letters). Notes on readings with another plausible meaning are the target's ``notes``
    (and told to ``expr.notes.listener`` as they are found)."""
    reading = E.read(text, names=declared, label=label)
    tell(reading.notes, label)
    return Target(text, "expression", sorted(reading.variables), [reading.tree], [text],
                  notes=reading.notes, wrt_hint=reading.wrt, orders=[reading.order],
                  asks=reading.asks, derivative_order=reading.derivative_order)


def expressions_target(texts: list[str], declared=()) -> Target:
    """A vector target (``jacobian``): several expressions, or one bracketed list."""
    if len(texts) == 1:
        items = E.read_list(texts[0], declared=declared)
        source = [t for t, _ in items] if texts[0].strip().startswith("[") else texts[0]
    else:
        items = [(t, E.read(t, names=declared)) for t in texts]
        source = list(texts)
    notes = [n for _, r in items for n in r.notes]
    tell(notes)
    names = sorted({n for _, r in items for n in r.variables})
    check_look_alikes(names)   # across the expressions, each read on its own
    hints = {r.wrt for _, r in items if r.wrt}
    return Target(source, "expression", names, [r.tree for _, r in items],
                  [t for t, _ in items], notes=notes,
                  wrt_hint=hints.pop() if len(hints) == 1 else None,
                  orders=[r.order for _, r in items])


def make_target(texts: list[str], vector: bool = False, declared=(),
                fence: Callable = contextlib.nullcontext) -> Target:
    """The target for a command's TARGET argument(s); ``declared``: see
    ``expression_target`` (``declared_names`` collects them from the options). ``fence``: a
    context manager around every run of a script's code (its import and each call); the
    command line's keeps a script's prints and exits away from its own output."""
    if any(is_script(t) for t in texts):
        if len(texts) != 1:
            raise CLIError("a script target must be the only TARGET")
        return script_target(texts[0].strip(), fence)
    if vector:
        return expressions_target(texts, declared)
    if len(texts) != 1:
        raise CLIError("give one TARGET expression (several: use tape jacobian)")
    return expression_target(texts[0], declared=declared)


def declared_names(at: list[str] | None = None, wrt: str | None = None,
                   points_file: str | None = None, dependent: str | None = None
                   ) -> tuple[str, ...]:
    """The names a command was given (``--at x=...``, ``--wrt``, a ``--points`` header,
    ``--dependent``), as typed: the reader spells them (``expr.normalize``) and keeps them
    whole (``rate`` is not r*a*t*e)."""
    names: list[str] = []
    for value in at or []:
        if "=" not in value:
            continue        # a point by position (``--at 1,2``) names nothing
        for part in split_top_level(value):
            if "=" in part:
                names.append(part.split("=", 1)[0].strip())
    names += [n.strip() for n in (wrt or "").split(",")]
    names += [n.strip() for n in (dependent or "").split(",")]
    if points_file and points_file != "-" and os.path.isfile(points_file):
        try:
            with open(points_file, encoding="utf-8") as handle:
                names += [n.strip() for n in handle.readline().split(",")]
        except (OSError, UnicodeDecodeError):
            pass   # the points reader reports it
    return tuple(n for n in names if n)


def script_target(text: str, fence: Callable = contextlib.nullcontext) -> Target:
    """Import ``path.py`` and pick its function (the only public one, or ``:function``);
    ``fence``: as for ``make_target``."""
    match = re.match(_SCRIPT, text, re.S)
    path, wanted = match.group("path"), match.group("function")
    if not os.path.isfile(path):
        raise CLIError(f"script not found: {path!r}")
    module = _import_script(path, fence)
    if wanted:
        function = getattr(module, wanted, None)
        if not callable(function):
            raise CLIError(f"{path} has no function {wanted!r} "
                           f"(functions: {', '.join(_public_functions(module)) or 'none'})")
    else:
        candidates = _public_functions(module)
        if len(candidates) != 1:
            listed = ", ".join(candidates) if candidates else "none"
            raise CLIError(f"{path} must have exactly one public function, or name one as "
                           f"{path}:function (candidates: {listed})")
        function = getattr(module, candidates[0])
    names, keyword_only = _parameters(function, text)
    return Target(text, "script", names, function=function, path=os.path.abspath(path),
                  keyword_only=keyword_only, fence=fence)


def _public_functions(module) -> list[str]:
    import inspect   # only script targets need it

    return [name for name, obj in vars(module).items()
            if inspect.isfunction(obj) and not name.startswith("_")
            and obj.__module__ == module.__name__]


def _parameters(function, text: str) -> tuple[list[str], frozenset]:
    """The function's parameter names in signature order, and the keyword-only ones."""
    import inspect

    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        raise CLIError(f"{text}: cannot read the function's parameters") from None
    names, keyword_only = [], set()
    for p in signature.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise CLIError(f"{text}: *args / **kwargs are not supported; name each "
                           f"variable as a parameter")
        names.append(p.name)
        if p.kind is p.KEYWORD_ONLY:
            keyword_only.add(p.name)
    return names, frozenset(keyword_only)


def _import_script(path: str, fence: Callable):
    import importlib.util

    name = "tape_script_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise CLIError(f"cannot import {path!r}")
    module = importlib.util.module_from_spec(spec)
    directory = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, directory)
    sys.modules[name] = module
    try:
        with fence():
            spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ScriptError(f"{path}:{exc.lineno}: SyntaxError: {exc.msg}") from exc
    except KeyboardInterrupt:
        raise
    except BaseException as exc:    # SystemExit and the like too: a script does not end tape
        raise script_error(exc, os.path.abspath(path)) from exc
    finally:
        if sys.path and sys.path[0] == directory:
            del sys.path[0]
    return module


def script_error(exc: BaseException, path: str) -> ScriptError:
    """``ScriptError`` naming the exception and the script's innermost file:line, followed by
    the script's own frames (the user's code; tape's and NumPy's frames are left out)."""
    where = os.path.basename(path)
    own = [f for f in traceback.extract_tb(exc.__traceback__)
           if os.path.abspath(f.filename) == path]
    if own:
        where = f"{os.path.relpath(own[-1].filename)}:{own[-1].lineno}"
    lines = [f"the script raised {type(exc).__name__}: {exc} ({where})"]
    if len(own) > 1 or (own and own[-1].line):
        lines.append("in the script (innermost last):")
        for f in own:
            lines.append(f"  {os.path.relpath(f.filename)}:{f.lineno} in {f.name}: {f.line or ''}".rstrip())
    err = ScriptError("\n".join(lines))
    err.__cause__ = exc
    return err


def _script_caller(target: Target, variables: list[str]) -> Callable:
    import tape

    order = target.names

    def run(*tensors):
        by_name = dict(zip(variables, tensors))
        keyword = target.keyword_only
        try:
            with target.fence():
                out = target.function(*[by_name[n] for n in order if n not in keyword],
                                      **{n: by_name[n] for n in order if n in keyword})
        except (CLIError, KeyboardInterrupt):
            raise
        except BaseException as exc:    # SystemExit and the like too: a script does not end tape
            raise script_error(exc, target.path) from exc
        if isinstance(out, (list, tuple)):
            out = tape.stack([tape.convert_to_tensor(o, dtype=tape.float64)
                              if not isinstance(o, tape.Tensor) else o for o in out], axis=-1)
        elif not isinstance(out, tape.Tensor):
            out = tape.convert_to_tensor(out, dtype=tape.float64)
        if out.dtype.is_complex:
            raise ScriptError(f"{os.path.relpath(target.path)} returns complex values; the "
                              f"command line differentiates real functions: return a real "
                              f"value such as tape.math.real(...) or abs(...) of it")
        return out

    return run
