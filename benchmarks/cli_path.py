"""How far one CLI request travels through tape's own code: calls, files and file transitions.

    python benchmarks/cli_path.py                      # tape grad "x^2" --at 3
    python benchmarks/cli_path.py grad "x*y" --at 1,2  # any other command line
    python benchmarks/cli_path.py --by-file            # also the calls per file
    python benchmarks/cli_path.py --path               # also the path: one line per stay in a file
    python benchmarks/cli_path.py --path --cli         # the path outside the engine alone
    python benchmarks/cli_path.py --layers             # also the path as layers: cli > grading > ...

Counts Python function calls (``sys.setprofile`` "call" events) whose code lives under the
``tape`` package, while ``tape.cli.app.main`` runs the command (modules already imported, so
import-time code is not counted). A *transition* is a call whose file differs from the previous
counted call's: the number of times a reader following the request changes files. Each layer
(``cli``, ``grading``, ``calculus``, ``expr``, ``engine``; the public API's files count as
``engine``) gets its own counts, and a *layer crossing* is a call in another layer than the
previous one's.
"""
from __future__ import annotations

import contextlib
import io
import itertools
import os
import sys
from collections import Counter


def trace(argv: list[str], names: bool = False) -> list:
    """The files (relative to the package) of every tape call made while running ``argv``;
    with ``names``, (file, function name) pairs."""
    import tape
    from tape.cli import app

    root = os.path.dirname(tape.__file__) + os.sep
    app.LazyCommands()[argv[0]]            # import the command's module before counting
    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            name = frame.f_code.co_filename
            if name.startswith(root):
                where = name[len(root):]
                seen.append((where, frame.f_code.co_name) if names else where)

    sys.argv = ["tape"] + argv
    sys.stdout.flush()
    saved = os.dup(1)           # tape writes its results to the file descriptor itself
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            sys.setprofile(profile)
            try:
                app.main()
            except SystemExit:
                pass
            finally:
                sys.setprofile(None)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(quiet)
    return seen


LAYERS = ("cli", "grading", "calculus", "expr")


def layer(where: str) -> str:
    top = where.split(os.sep, 1)[0]
    return top if top in LAYERS else "engine"


def summary(files: list[str]) -> dict:
    transitions = sum(1 for a, b in zip(files, files[1:]) if a != b)
    return {"calls": len(files), "files": len(set(files)), "transitions": transitions}


def stays(calls: list[tuple[str, str]]) -> list[tuple[str, list[str]]]:
    """Consecutive calls in one file grouped: (file, the functions called there, in order)."""
    out: list[tuple[str, list[str]]] = []
    for where, function in calls:
        if out and out[-1][0] == where:
            out[-1][1].append(function)
        else:
            out.append((where, [function]))
    return out


def main() -> None:
    args = sys.argv[1:]
    by_file = "--by-file" in args
    path = "--path" in args
    cli_only = "--cli" in args
    by_layer = "--layers" in args
    argv = [a for a in args if a not in ("--by-file", "--path", "--cli", "--layers")] or \
        ["grad", "x^2", "--at", "3"]
    calls = trace(argv, names=True)
    files = [where for where, _ in calls]
    whole = summary(files)
    print(f"tape {' '.join(argv)}")
    print(f"  all of tape/: {whole['calls']} calls, {whole['files']} files, "
          f"{whole['transitions']} transitions")
    above = summary([f for f in files if layer(f) != "engine"])
    print(f"  above the engine: {above['calls']} calls, {above['files']} files, "
          f"{above['transitions']} transitions")
    for name in LAYERS:
        part = summary([f for f in files if layer(f) == name])
        print(f"  tape/{name}: {part['calls']} calls, {part['files']} files, "
              f"{part['transitions']} transitions")
    layers = [layer(f) for f in files]
    crossings = sum(1 for a, b in zip(layers, layers[1:]) if a != b)
    runs = [k for k, _ in itertools.groupby(layers)]
    print(f"  layer crossings: {crossings}")
    if by_layer:
        print("  " + " > ".join(runs))
    if by_file:
        for name, count in Counter(files).most_common():
            print(f"  {count:5d}  {name}")
    if path:
        shown_calls = [c for c in calls if layer(c[0]) != "engine"] if cli_only else calls
        for where, functions in stays(shown_calls):
            shown = " ".join(functions)
            print(f"  {where:28s} {len(functions):4d}  "
                  f"{shown if len(shown) <= 70 else shown[:67] + '...'}")


if __name__ == "__main__":
    main()
