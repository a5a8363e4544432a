"""The ``tape`` command: a Typer app whose every error ends as ``error: ...`` and an exit code.

Adding a command is one line in ``COMMANDS``. A command's module is imported, and its Typer
command built, only when that command runs or help lists it (``LazyCommands``): ``tape grad``
never loads the modules of ``trace``, ``plot``, ``diff`` or ``check``. Commands stop with
``output.abort`` (a ``CLIError``); ``TapeGroup.main`` is the one place that turns errors into
messages and exit codes, for the console script, ``python -m tape`` and test runners alike:

* ``CLIError`` -> its lines, its code (2 bad input, 1 check failed, 3 undecided);
* usage errors (unknown option, missing argument, bad value) -> plain lines, exit 2;
* anything else is a bug in tape: one line naming it, exit 70 (``--debug``: the traceback).

Option values are converted by ``PlainValues`` rather than Typer's pydantic adapters: the
options here are strings, numbers with bounds, flags and choices, and importing pydantic and
building its validators cost ~0.2 s on every call.
"""

# (no ``from __future__ import annotations`` here: Typer reads this module's command
# signatures at every start, and string annotations would be evaluated each time)
import gc
import math
import sys
import traceback
from collections.abc import Mapping
from enum import Enum
from importlib import import_module
from typing import Annotated, get_args, get_origin

import typer
from typer.core import TyperCommand, TyperGroup
from typer.main import get_command_from_info

from ..expr import notes
from ..expr.errors import BAD_INPUT, INTERNAL_ERROR, INTERRUPTED, CLIError, OutputClosed
from .output import note, print_error
from .process import run as run_process

#: (module in tape.cli.commands, name) of every command, in help order; the module's function
#: of that name is the command and its docstring the help text
COMMANDS = [
    ("grad", "grad"),
    ("jacobian", "jacobian"),
    ("hessian", "hessian"),
    ("diff", "diff"),
    ("check", "check"),
    ("check_work", "check-work"),
    ("grade", "grade"),
    ("tangent", "tangent"),
    ("taylor", "taylor"),
    ("trace", "trace"),
    ("plot", "plot"),
]

DEBUG_FLAG = "--debug"

#: click's usage error (a bad option, a missing argument), reached through Typer's public
#: ``BadParameter``, its subclass
UsageError = typer.BadParameter.__base__


#: command name -> its module
COMMAND_MODULES = {name: module for module, name in COMMANDS}


def command_function(name: str):
    """The function behind command ``name`` (imports its module)."""
    # a command named with a hyphen (check-work) is the function with an underscore
    return getattr(import_module(f"{__package__}.commands.{COMMAND_MODULES[name]}"),
                   name.replace("-", "_"))


class PlainValues:
    """Converts one parameter's command-line text to its annotation's type: ``str``, ``int``
    and ``float`` (with the option's ``min``/``max``), ``bool``, an ``Enum`` of choices, and
    lists or optionals of those. Anything else is left to Typer."""

    SCALARS = (str, int, float, bool)

    def __init__(self, annotation, info) -> None:
        self.annotation = annotation
        self.info = info

    @classmethod
    def handles(cls, annotation) -> bool:
        if get_origin(annotation) is list:
            (annotation,) = get_args(annotation)
        return annotation in cls.SCALARS or (isinstance(annotation, type)
                                             and issubclass(annotation, Enum))

    def coerce(self, value, param, ctx):
        if value is None:
            return () if param.multiple or param.nargs == -1 else None
        if get_origin(self.annotation) is list:
            (kind,) = get_args(self.annotation)
            return [self._one(kind, v, param, ctx) for v in value]
        return self._one(self.annotation, value, param, ctx)

    def _one(self, kind, value, param, ctx):
        if isinstance(value, kind) and not (kind is int and isinstance(value, bool)):
            converted = value
        elif issubclass(kind, Enum):
            converted = self._choice(kind, value, param, ctx)
        elif kind is bool:
            converted = str(value).strip().lower() in ("1", "true", "yes", "y", "on", "t")
        else:
            try:
                converted = kind(value)
            except ValueError:
                raise typer.BadParameter(f"{value!r} is not a valid {self._type_name(kind)}.",
                                         ctx=ctx, param=param) from None
        if kind is float and not math.isfinite(converted):
            # nan passes every range check and inf sleeps forever: no option means either
            raise typer.BadParameter(f"{value!r} is not a finite number.", ctx=ctx, param=param)
        low, high = self.info.min, self.info.max
        if kind in (int, float) and ((low is not None and converted < low)
                                     or (high is not None and converted > high)):
            bounds = (f"x<={high}" if low is None else f"x>={low}" if high is None
                      else f"{low}<=x<={high}")
            raise typer.BadParameter(f"{converted} is not in the range {bounds}.",
                                     ctx=ctx, param=param)
        return converted

    def _type_name(self, kind) -> str:
        """The words click uses for a number type, with or without bounds."""
        ranged = self.info.min is not None or self.info.max is not None
        return {int: "int range" if ranged else "integer",
                float: "float range" if ranged else "float"}.get(kind, kind.__name__)

    def _choice(self, kind, value, param, ctx):
        fold = (lambda s: s) if self.info.case_sensitive else str.casefold
        for choice in kind:
            if fold(str(choice.value)) == fold(str(value)):
                return choice
        allowed = ", ".join(repr(c.value) for c in kind)
        raise typer.BadParameter(f"{value!r} is not one of {allowed}.", ctx=ctx, param=param)


def use_plain_values(params) -> None:
    """Give every parameter whose type ``PlainValues`` handles that converter."""
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        if descriptor is not None and PlainValues.handles(descriptor.annotation):
            converter = PlainValues(descriptor.annotation, descriptor.parameter_info)
            param.get_runtime_param = lambda converter=converter: converter


#: the narrowest terminal the rich help panels fit: below it they cut option names
#: ("--precisi…", "-…"), and help is written by click's plain formatter, which wraps text
#: to the width and never cuts a name
HELP_MIN_WIDTH = 64


def _help_width() -> int:
    """The columns help is written for: COLUMNS, else the terminal's, else 80 (as rich)."""
    import shutil

    return shutil.get_terminal_size((80, 24)).columns


def _format_help(command, plain_base, ctx, formatter) -> None:
    """``command``'s help: Typer's rich panels, or on a terminal narrower than
    ``HELP_MIN_WIDTH`` the plain help of ``plain_base`` (click's), ``width`` wide."""
    width = _help_width()
    if width >= HELP_MIN_WIDTH:
        return super(plain_base, command).format_help(ctx, formatter)
    from typer.core import MARKUP_MODE_KEY

    formatter.width = max(width - 1, 10)
    ctx.ensure_object(dict)
    if isinstance(ctx.obj, dict):      # Typer's plain help reads the markup mode there
        ctx.obj[MARKUP_MODE_KEY] = None
    return super(TyperGroup if isinstance(command, TyperGroup) else TyperCommand,
                 command).format_help(ctx, formatter)


class TapeCommand(TyperCommand):
    """A command whose options are read by ``PlainValues``."""

    def parse_args(self, ctx, args):
        params = self.get_params(ctx)
        use_plain_values(params)
        return super().parse_args(ctx, formulas_as_arguments(params, args))

    def format_help(self, ctx, formatter):
        return _format_help(self, TapeCommand, ctx, formatter)


def formulas_as_arguments(params, args: list[str]) -> list[str]:
    """``args`` with a formula that begins with ``-`` (``-cos x``, ``-x^2``, ``-\\frac{1}{x}``)
    taken as the argument it must be: a token that starts with one ``-``, is not one of the
    command's options (``--name``, ``--name=value``, ``-n``, ``-nVALUE``) and is not an
    option's value. The positional arguments then go after a ``--``, in their order, so click
    reads them all as arguments. Unchanged when the command takes no arguments, or when
    ``--`` is already there."""
    if "--" in args or not any(p.param_type_name == "argument" for p in params):
        return args
    takes_value = {}
    for p in params:
        if p.param_type_name == "option":
            for name in [*p.opts, *p.secondary_opts]:
                takes_value[name] = not p.is_flag and not p.count
    options, positional, moved = [], [], False
    k = 0
    while k < len(args):
        token = args[k]
        long = token.startswith("--") and token.split("=", 1)[0] in takes_value
        short = not token.startswith("--") and token[:2] in takes_value
        if token in takes_value or long or short:
            options.append(token)
            whole = token in takes_value or (long and "=" not in token)
            if whole and takes_value.get(token if token in takes_value else token[:2]) \
                    and k + 1 < len(args):
                k += 1
                options.append(args[k])
        elif token.startswith("-") and token != "-" and not token.startswith("--"):
            positional.append(token)      # (an unknown --name stays an unknown option)
            moved = True
        else:
            positional.append(token)
        k += 1
    return options + ["--"] + positional if moved else args


class LazyCommands(Mapping):
    """The group's ``commands``: every name is known up front (for listing, completion and
    "did you mean"); a command's module is imported and its click command built on first
    access, exactly as ``app.command(name)(function)`` would have built it."""

    def __init__(self) -> None:
        self._built: dict = {}

    def __getitem__(self, name: str):
        if name not in self._built:
            if name not in self:
                raise KeyError(name)
            registry = typer.Typer()
            registry.command(name, cls=TapeCommand)(command_function(name))
            self._built[name] = get_command_from_info(
                registry.registered_commands[0],
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode)
        return self._built[name]

    def __contains__(self, name) -> bool:
        return name in COMMAND_MODULES

    def __iter__(self):
        return iter(COMMAND_MODULES)

    def __len__(self) -> int:
        return len(COMMANDS)


class TapeGroup(TyperGroup):
    """Typer's group, with tape's error reporting (see the module docstring) and commands
    loaded on demand (``LazyCommands``)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.commands = LazyCommands()

    def parse_args(self, ctx, args):
        use_plain_values(self.get_params(ctx))   # here: Typer adds options after __init__
        return super().parse_args(ctx, args)

    def list_commands(self, ctx) -> list[str]:
        return list(self.commands)

    def format_help(self, ctx, formatter):
        return _format_help(self, TapeGroup, ctx, formatter)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        args = list(sys.argv[1:] if args is None else args)
        debug = _take_debug_flag(args)
        # each reading note is said as its text is read, before an error it leads to; only
        # while the command runs (tape may run in-process, beside library calls)
        heard, notes.listener = notes.listener, note
        try:
            code = super().main(args or ["--help"], prog_name or "tape", complete_var,
                                standalone_mode=False, **extra)
            code = code if isinstance(code, int) else 0
        except CLIError as exc:
            if debug:
                traceback.print_exc()
            if exc.message:     # output.abort(code=...) after a result that says it all
                print_error(exc.lines())
            code = exc.code
        except UsageError as exc:
            print_error(_usage_lines(exc, args))
            code = BAD_INPUT
        except typer.TyperException as exc:
            print_error([exc.format_message()])
            code = exc.exit_code if exc.exit_code else BAD_INPUT
        except typer.Abort:
            print_error(["aborted"])
            code = INTERRUPTED
        except KeyboardInterrupt:
            print_error(["interrupted"])
            code = INTERRUPTED
        except (BrokenPipeError, OutputClosed):
            _silence_stdout()   # the reader has gone (| head): stop quietly
            code = 0
        except SystemExit as exc:
            # click (a command's EPIPE) and rich (help pages, tables) meet a closed pipe by
            # exiting 1, which would read as "a check failed": a closed pipe ends quietly
            code = 0 if exc.code == 1 and _pipe_was_closed() else exc.code
        except Exception as exc:  # a bug in tape, not the user's fault
            if debug:
                traceback.print_exc()
            print_error([f"internal error: {type(exc).__name__}: {exc}",
                         "this is a bug in tape; run again with --debug for the traceback"])
            code = INTERNAL_ERROR
        finally:
            notes.listener = heard
        if standalone_mode:
            sys.exit(code)
        return code


def _take_debug_flag(args: list[str]) -> bool:
    """Remove ``--debug`` from anywhere before ``--``; return whether it was there."""
    end = args.index("--") if "--" in args else len(args)
    found = DEBUG_FLAG in args[:end]
    if found:
        args[:] = [a for a in args[:end] if a != DEBUG_FLAG] + args[end:]
    return found


#: characters of a formula that no option has
_FORMULA_MARKS = frozenset("^*/+()[]|!²³√ ")


def _usage_lines(exc, args: list[str]) -> list[str]:
    lines = [exc.format_message()]
    formula = _formula_taken_for_an_option(exc, args)
    ctx = exc.ctx
    if formula is not None:
        command = ctx.command_path if ctx is not None else "tape"
        lines.append(f"a formula that starts with - reads as an option: write it in brackets, "
                     f"'({formula})', or last, after the options and --: "
                     f"{command} OPTIONS -- '{formula}'")
    if ctx is not None:
        lines.append(f"see: {ctx.command_path} --help")
    return lines


def _formula_taken_for_an_option(exc, args: list[str]) -> str | None:
    """The argument behind an unknown short option when it looks like a formula (``-x^2``,
    ``-sin(x)``, or a lone ``-x``), else None."""
    name = getattr(exc, "option_name", None)     # (click's NoSuchOption has both attributes)
    if not name or name.startswith("--") or not hasattr(exc, "possibilities"):
        return None
    for arg in args:
        if arg.startswith(name) and not arg.startswith("--") and (
                arg == name or _FORMULA_MARKS.intersection(arg)):
            return arg
    return None


def _pipe_was_closed() -> bool:
    """Whether click or rich has just handled a closed standard output: click wraps the
    streams in its PacifyFlushWrapper, rich points the descriptor at /dev/null."""
    import os

    if type(sys.stdout).__name__ == "PacifyFlushWrapper":
        _silence_stdout()
        return True
    try:
        out, null = os.fstat(sys.stdout.fileno()), os.stat(os.devnull)
    except (OSError, ValueError):
        return False
    return (out.st_dev, out.st_ino) == (null.st_dev, null.st_ino)


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


app = typer.Typer(
    name="tape",
    cls=TapeGroup,
    help="Derivatives on the command line: gradients, Jacobians, Hessians and higher "
         "derivatives of expressions and Python scripts, by reverse-mode autodiff.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            sys.stdout.write(f"tape {version('tape')}\n")
        except PackageNotFoundError:
            sys.stdout.write("tape (not installed)\n")
        raise typer.Exit()


@app.callback()
def _root(
    debug: Annotated[bool, typer.Option(
        "--debug", help="Show the full traceback when something fails.")] = False,
    show_version: Annotated[bool, typer.Option(
        "--version", callback=_show_version, is_eager=True,
        help="Show the version and exit.")] = False,
) -> None:
    """Derivatives on the command line (exit codes: 0 ok, 1 check failed, 2 bad input,
    3 undecided)."""


def main() -> None:
    """Entry point of the ``tape`` process (console script and ``python -m tape``): the app,
    with the process's streams, Ctrl-C and exit code handled by ``process.run``."""
    _freeze_startup_objects()
    run_process(app)


def _freeze_startup_objects() -> None:
    """Move what start-up created (NumPy, Typer, the engine: tens of thousands of objects that
    live as long as the process) out of the garbage collector's sight, once per process.
    Every collection of the run, and the full one at exit, would otherwise walk them all
    again: measured ~25 ms of CPU on a ~200 ms cold ``tape grad`` (W7). Objects created later,
    the command's own, are collected as usual."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
