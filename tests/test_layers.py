"""Issue 20 §1: the layers of the package, kept by a tool rather than by a sentence in a design
document.  pyproject.toml states them as import-linter contracts, top to bottom: the program
(dicebase.main); the web server (it serves the CLI's commands and the figures); the command
line; the plots and what the CLI and the API share (dicebase.present); the read API and the
builder, which never import each other; the schema; the storage layouts; the rules; the
errors; location, checksum and version.  A module imports only from layers below its own,
and no module of dicebase imports itself back through others.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_lint_imports_keeps_every_contract():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    if not lint_imports.exists():
        pytest.fail(f"no {lint_imports}: install the test extra (pip install -e '.[test]'), which has import-linter")
    proc = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _cycles(graph, modules: set[str]) -> list[list[str]]:
    """The strongly connected components of more than one module (each is an import cycle),
    by Tarjan's algorithm over the direct imports among ``modules``."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    imports = {m: sorted(graph.find_modules_directly_imported_by(m) & modules) for m in modules}

    def visit(root: str) -> None:
        # iterative, so that a long chain of imports cannot exhaust the recursion limit
        work = [(root, iter(imports[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(imports[child])))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
            if low[module] == index[module]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == module:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_dicebase_imports_itself_back():
    """No import cycle among the modules of dicebase, the package's own __init__ modules
    included; imports inside functions count (import-linter's graph, grimp, sees them).
    Imports under ``if TYPE_CHECKING:`` do not: they never run, they only name a type for a
    reader and a type checker (``rules/ten_thousand/scoring.py`` annotates with ``RuleSet``)."""
    import grimp

    graph = grimp.build_graph("dicebase", cache_dir=None, exclude_type_checking_imports=True)
    cycles = _cycles(graph, set(graph.modules))
    described = []
    for cycle in cycles:
        members = set(cycle)
        edges = [f"{m} -> {n}" for m in cycle for n in sorted(graph.find_modules_directly_imported_by(m) & members)]
        described.append("; ".join(edges))
    assert not cycles, "import cycles:\n" + "\n".join(described)


def test_the_cycle_finder_finds_a_cycle():
    class Graph:
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module):
            return set(self.edges.get(module, ()))

    assert _cycles(Graph(), set("abcd")) == [["a", "b", "c"]]
