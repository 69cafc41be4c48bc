"""The runtime half imports downward only: no CLI, MCP or serving code in the library, nothing from
mlsleuth in the child side (it runs in the user's interpreter with the standard library and torch)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from import_graph import find_cycles

SERVER = Path(__file__).resolve().parents[2] / "server" / "mlsleuth"
RUNTIME = SERVER / "runtime"
CHILD = RUNTIME / "child"
LIBRARY = sorted([*(p for p in RUNTIME.rglob("*.py") if CHILD not in p.parents), SERVER / "process_runner.py"])
UPWARD = ("mlsleuth.cli", "mlsleuth.commands", "mlsleuth.serving", "mlsleuth.mcp_server", "mcp")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(SERVER)))
def test_library_does_not_import_upward(path):
    upward = [n for n in _imports(path) if any(n == u or n.startswith(u + ".") for u in UPWARD)]
    assert not upward, f"{path.relative_to(SERVER)} imports {upward}: usage errors and protocols belong to commands/ and serving/"


def test_child_side_needs_only_the_standard_library_and_torch():
    siblings = {p.stem for p in CHILD.glob("*.py")}
    allowed = set(sys.stdlib_module_names) | siblings | {"torch", "numpy"}  # numpy: optional, imported under try
    for path in sorted(CHILD.glob("*.py")):
        roots = {n.split(".")[0] for n in _imports(path)}
        assert not roots - allowed, f"{path.name} imports {sorted(roots - allowed)}"
        assert "mlsleuth" not in roots, f"{path.name} imports mlsleuth: the child side must stand alone"


def _module_name(path: Path) -> str:
    rel = path.relative_to(SERVER.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: Path) -> set[str]:
    """Modules imported when ``path`` is imported (statements at module level, not inside functions)."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def test_no_import_cycle_in_the_runtime_library():
    modules = {_module_name(p): p for p in LIBRARY}
    graph = {name: {m for m in _top_level_imports(path) if m in modules and m != name} for name, path in modules.items()}
    cycles = find_cycles(graph)
    assert not cycles, f"import cycle(s): {cycles}"
