"""The layers of SPEC section 1: cli -> grading -> calculus -> expr -> tape (public API) -> engine.

Imports are read as text (nothing runs) and imports inside functions count: a cycle or an upward
import dodged by a local import is still one. Nothing below ``tape/cli`` imports Typer, click or
rich, or writes to a standard stream.
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tape"

#: rank of each layer; a module may import its own layer or a lower one
RANK = {"engine": 0, "api": 1, "expr": 2, "calculus": 3, "grading": 4, "cli": 5}
INTERFACE_ONLY = ("typer", "click", "rich")


def layer_of(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in RANK:
        return parts[1]
    if module == "tape.__main__":
        return "cli"
    return "api"           # tape/__init__, tape.math, tape.nn, tape.torch, ...


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imported(module: str, node: ast.AST) -> list[str]:
    """The names an import statement brings in, as absolute dotted names."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = module.split(".")
        if MODULES[module].name != "__init__.py":
            base = base[:-1]
        base = base[: len(base) - (node.level - 1)]
        prefix = ".".join(base + ([node.module] if node.module else []))
    else:
        prefix = node.module or ""
    return [prefix] + [f"{prefix}.{a.name}" for a in node.names]


def _tape_module(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imports() -> dict[str, list[tuple[int, str]]]:
    """Every import of every tape module, with its line: module -> [(line, imported name)]."""
    found = {}
    for module, path in MODULES.items():
        rows = found.setdefault(module, [])
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                rows.extend((node.lineno, name) for name in _imported(module, node))
    return found


def upward_imports() -> list[str]:
    """``module -> imported`` for every import that goes up a layer or, below tape/cli, to a
    terminal library."""
    bad = set()
    for module, rows in imports().items():
        here = layer_of(module)
        for _, name in rows:
            top = name.split(".")[0]
            if top in INTERFACE_ONLY:
                if here != "cli":
                    bad.add(f"{module} -> {top}")
                continue
            target = _tape_module(name)
            if target is None or module.startswith(target + ".") or target == module:
                continue
            if RANK[layer_of(target)] > RANK[here]:
                bad.add(f"{module} -> {target}")
    return sorted(bad)


def cycles() -> list[list[str]]:
    """Strongly connected components of the import graph outside the engine (imports inside
    functions included); the engine's own graph is the import_graph tool's."""
    graph = {m: set() for m in MODULES if layer_of(m) != "engine"}
    for module, rows in imports().items():
        if module not in graph:
            continue
        for _, name in rows:
            target = _tape_module(name)
            if target in graph and target != module and not module.startswith(target + "."):
                graph[module].add(target)
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(graph[start])))]
        while work:
            v, successors = work[-1]
            w = next(successors, None)
            if w is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        x = stack.pop()
                        on_stack.discard(x)
                        component.append(x)
                        if x == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif w not in index:
                index[w] = low[w] = counter
                counter += 1
                stack.append(w)
                on_stack.add(w)
                work.append((w, iter(sorted(graph[w]))))
            elif w in on_stack:
                low[v] = min(low[v], index[w])
    return found


STREAM_WRITES = ("sys.stdout", "sys.stderr", "print(", "sys.__stdout__", "sys.__stderr__")


def stream_writers() -> list[str]:
    """Library modules (below tape/cli) that name a standard stream or call print."""
    bad = []
    for module, path in MODULES.items():
        if layer_of(module) not in ("expr", "calculus", "grading"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if any(token in code for token in STREAM_WRITES):
                bad.append(f"{module}:{number}: {line.strip()}")
    return bad


#: upward imports still to be cut (each entry is removed with its cut; new ones fail the test)
ALLOWED_UPWARD: set[str] = {
    "tape.calculus.targets -> tape.cli.process",
    "tape.grading.crosscheck -> rich",
    "tape.grading.crosscheck -> tape.cli",
    "tape.grading.crosscheck -> tape.cli.jsonstream",
    "tape.grading.crosscheck -> tape.cli.options",
    "tape.grading.crosscheck -> tape.cli.output",
}
ALLOWED_CYCLES: list[list[str]] = []
ALLOWED_WRITERS: set[str] = {'tape.calculus.targets', 'tape.grading.crosscheck'}


def test_imports_only_go_down():
    assert set(upward_imports()) <= ALLOWED_UPWARD, sorted(set(upward_imports()) - ALLOWED_UPWARD)


def test_no_import_cycles():
    assert all(c in ALLOWED_CYCLES for c in cycles()), cycles()


def test_the_library_writes_to_no_stream():
    found = {line.split(":")[0] for line in stream_writers()}
    assert found <= ALLOWED_WRITERS, stream_writers()


def test_the_check_sees_what_it_should():
    """The check itself: a known upward import and a known cycle would be reported."""
    assert layer_of("tape.cli.app") == "cli" and layer_of("tape.engine.tape") == "engine"
    assert layer_of("tape.torch") == "api" and layer_of("tape.expr.tree") == "expr"
    assert _tape_module("tape.expr.tree.Binary") == "tape.expr.tree"
    assert RANK["cli"] > RANK["grading"] > RANK["calculus"] > RANK["expr"] > RANK["api"]
