"""The rules layer (issue 8 §1): each game's rules in one numpy-free place.

``dicebase.rules`` is imported by the solvers (``dicebase.builder``) and the lookups
(``dicebase.query``), which never import each other; no lookup, error paths included,
loads numpy or any ``dicebase.builder`` module.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

import dicebase

PACKAGE = Path(dicebase.__file__).parent
GAMES = ("threes", "rolled_ones", "ten_thousand")


def _modules(part: str) -> list[Path]:
    root = PACKAGE / part
    return sorted(root.rglob("*.py")) if root.is_dir() else [root.with_suffix(".py")]


def _imports(path: Path) -> set[str]:
    """Every module an import statement in ``path`` names (at any depth: inside functions too)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                out.add(f"{base}.{node.module}" if node.module else base)
            else:
                out.add(node.module)
    return out


def _game_modules(part: str) -> list[Path]:
    return [p for g in GAMES for p in _modules(f"{part}/{g}")]


def test_rules_import_nothing_heavy():
    for path in _modules("rules"):
        bad = {m for m in _imports(path) if m.split(".")[0] in ("numpy", "numba", "sqlalchemy", "duckdb")
               or m.startswith(("dicebase.builder", "dicebase.query", "dicebase.cli", "dicebase.schema",
                                "dicebase.layout"))}
        assert not bad, f"{path.name} imports {sorted(bad)}"


def test_layouts_import_only_the_standard_library_and_the_rules():
    """Each game's storage layout (dicebase/layout/) is read by the builder and the lookups: it
    imports the standard library and dicebase.rules, nothing else of dicebase and no numpy."""
    for path in _modules("layout"):
        bad = {m for m in _imports(path) if m.split(".")[0] in ("numpy", "numba", "sqlalchemy", "duckdb")
               or m.startswith("dicebase") and not m.startswith(("dicebase.rules", "dicebase.layout"))}
        assert not bad, f"layout/{path.name} imports {sorted(bad)}"


def test_solvers_and_lookups_never_import_each_other():
    for path in _game_modules("builder"):
        bad = {m for m in _imports(path) if m.startswith("dicebase.query")}
        assert not bad, f"builder/{path.name} imports {sorted(bad)}"
    for path in _modules("query") + _modules("cli"):
        bad = {m for m in _imports(path) if m.startswith("dicebase.builder")}
        if path.name in ("__init__.py", "build.py") and path.parent.name == "cli":
            # the build and export commands run the builder; no lookup does
            bad -= {"dicebase.builder.pipeline", "dicebase.builder.export"}
        assert not bad, f"{path.parent.name}/{path.name} imports {sorted(bad)}"


def _constants(path: Path) -> set[str]:
    """UPPER_CASE names bound at module level by an assignment (not by an import)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name) and t.id.isupper())
    return names


@pytest.mark.parametrize("game", GAMES)
def test_no_rule_constant_defined_twice(game):
    """A name the rules module defines is imported, never redefined, by the game's solver and lookups."""
    ruled = set().union(*(_constants(path) for path in _modules(f"rules/{game}")))
    for path in (_modules(f"builder/{game}") + _modules(f"query/{game}") + _modules(f"cli/{game}")
                 + _modules(f"layout/{game}")):
        twice = ruled & _constants(path)
        assert not twice, f"{path.relative_to(PACKAGE)} redefines {sorted(twice)} of dicebase/rules/{game}.py"


PROBE = """
import json, sys
from dicebase.main import main

report = []
for args in json.loads(sys.argv[1]):
    try:
        main(args)
    except SystemExit as exc:
        code = exc.code
    heavy = sorted(m for m in sys.modules if m == "numpy" or m.startswith("dicebase.builder"))
    report.append([args, code, heavy])
with open(sys.argv[2], "w") as out:
    json.dump(report, out)
"""


def test_no_lookup_loads_numpy_or_the_builder(built_db, tmp_path):
    """Every lookup, its bad-input and not-in-database paths, in a fresh interpreter."""
    threes = str(built_db(("threes",)))
    rolled = str(built_db(("rolled_ones",)))
    ten = str(built_db(("ten_thousand",)))
    missing = str(tmp_path / "missing.duckdb")
    state = ["--player", "1", "--score", "0", "--opponent", "0", "--turn-total", "0", "--ones", "0"]
    calls = [
        ["threes", "best", "4", "3", "1", "1", "2", "--to-beat", "7", "--players-after", "4", "--db", threes],
        ["threes", "best", "6", "5", "4", "--variant", "reroll", "--score", "2", "--json", "--db", threes],
        ["threes", "expected", "--db", threes],
        ["threes", "chances", "--ties", "strict", "--db", threes],
        ["threes", "seats", "--players", "4", "--json", "--db", threes],
        ["threes", "best", "4", "3", "--to-beat", "7", "--players-after", "9", "--db", threes],  # not in database
        ["threes", "best", "9", "--db", threes],  # bad input
        ["threes", "expected", "--variant", "nope", "--db", threes],
        ["rolled-ones", "best", *state, "--db", rolled],
        ["rolled-ones", "komi", "--db", rolled],
        ["rolled-ones", "gaps", "--json", "--db", rolled],
        ["rolled-ones", "advantage", "--db", rolled],
        ["rolled-ones", "policy", "fixed-hold-at", *state, "--db", rolled],
        ["rolled-ones", "disagreements", "keep-pace-end-race", "--limit", "2", "--db", rolled],
        ["rolled-ones", "best", "--player", "3", "--score", "0", "--opponent", "0", "--db", rolled],
        ["ten-thousand", "odds", "--dice", "3", "--triple", "2", "--db", ten],
        ["ten-thousand", "best", "1", "1", "5", "2", "3", "4", "--db", ten],
        ["ten-thousand", "best", "1", "5", "5", "--turn-total", "300", "--score", "500", "--opponent", "900", "--db", ten],
        ["ten-thousand", "state", "--score", "0", "--opponent", "0", "--turn-total", "0", "--dice", "6", "--db", ten],
        ["ten-thousand", "thresholds", "--rules", "farkle", "--db", ten],
        ["ten-thousand", "gaps", "--db", ten],
        ["ten-thousand", "thresholds", "--rules", "no-such-rules", "--db", ten],  # unknown rule set
        ["ten-thousand", "best", "7", "--db", ten],
        ["ten-thousand", "odds", "--dice", "3", "--db", threes],  # game not built
        ["info", "--db", ten],
        ["schema", "--db", ten],
        ["sql", "SELECT 1", "--db", ten],
        ["threes", "expected", "--db", missing],  # no database
        ["rules", "ten-thousand", "zilch"],
        ["rules", "threes", "nope"],
        ["rules", "--variant", "farkle", "--db", ten],
        ["rules", "--variant", "nope", "--db", ten],
        ["ten-thousand", "odds", "--dice", "6", "--variant", "zilch", "--db", ten],
    ]
    out = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(calls), str(out)], capture_output=True,
                            text=True, timeout=300)
    assert out.exists(), result.stderr[-2000:]
    report = json.loads(out.read_text())
    assert len(report) == len(calls), result.stderr[-2000:]
    for args, code, heavy in report:
        assert not heavy, f"dicebase {' '.join(args)} (exit {code}) loaded {heavy}"
    codes = [code for _, code, _ in report]
    assert codes.count(2) >= 8, codes  # the error paths above did run and fail as user errors
    assert not any(Path(missing).parent.glob("missing*")), "a lookup created the missing database"


def _python_blocks(text: str) -> list[str]:
    blocks, inside, lines = [], False, []
    for line in text.splitlines():
        if line.strip() == "```python":
            inside, lines = True, []
        elif inside and line.strip() == "```":
            inside = False
            blocks.append("\n".join(lines))
        elif inside:
            lines.append(line)
    return blocks


def test_design_examples_compile_and_the_rules_example_runs():
    """docs/DESIGN.md's examples are valid Python; the one marked "runs as written" runs against this code."""
    text = (PACKAGE.parent / "docs" / "DESIGN.md").read_text()
    blocks = _python_blocks(text)
    assert blocks
    ran = 0
    for i, block in enumerate(blocks):
        code = compile(block, f"DESIGN.md block {i}", "exec")
        if block.startswith("# runs as written"):
            exec(code, {})
            ran += 1
    assert ran >= 1
