"""The layers of SPEC section 1: cli -> grading -> calculus -> expr -> tape (public API) -> engine.

Imports are read as text (nothing runs) and imports inside functions count: a cycle or an upward
import dodged by a local import is still one. Nothing below ``tape/cli`` imports Typer, click or
rich, or writes to a standard stream.
"""
from __future__ import annotations

import ast
import re
import sys
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
    # ``from pkg import module`` names the module; ``from module import name``, the module
    return [f"{prefix}.{a.name}" if f"{prefix}.{a.name}" in MODULES else prefix
            for a in node.names]


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


#: naming a standard stream, or calling the builtin print (a printer's ``_print(`` is not one)
STREAM_WRITES = re.compile(r"sys\.(__)?std(out|err)|(?<![\w.])print\s*\(")


def stream_writers() -> list[str]:
    """Library modules (below tape/cli) that name a standard stream or call print."""
    bad = []
    for module, path in MODULES.items():
        if layer_of(module) not in ("expr", "calculus", "grading"):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            if STREAM_WRITES.search(code):
                bad.append(f"{module}:{number}: {line.strip()}")
    return bad


def test_imports_only_go_down():
    assert upward_imports() == []


def test_no_import_cycles():
    assert cycles() == []


def test_the_library_writes_to_no_stream():
    assert stream_writers() == []


def test_the_check_finds_a_planted_upward_import_and_cycle(monkeypatch, tmp_path):
    """The checks themselves: an upward import, a terminal library below the CLI and a cycle
    through a function-level import are each reported."""
    grading = tmp_path / "tape" / "grading"
    calculus = tmp_path / "tape" / "calculus"
    for folder in (tmp_path / "tape", grading, calculus, tmp_path / "tape" / "cli"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (calculus / "steps.py").write_text("def f():\n    from ..grading import verdict\n")
    (grading / "verdict.py").write_text("import rich\nfrom ..calculus import steps\n"
                                        "print('hello')\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "tape")
    monkeypatch.setattr(sys.modules[__name__], "MODULES", _modules())
    assert upward_imports() == ["tape.calculus.steps -> tape.grading.verdict",
                                "tape.grading.verdict -> rich"]
    assert cycles() == [["tape.calculus.steps", "tape.grading.verdict"]]
    assert stream_writers() == ["tape.grading.verdict:3: print('hello')"]
