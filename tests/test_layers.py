"""The rooms of the package import only downwards, never in a circle, never a private name.

The floor (report schema, catalog, configuration, rendering, the process
runner) imports only the floor. A capability (``scan``, ``runtime``,
``sweep``) imports the floor and itself, never another capability and never a
face. The faces (``cli``, ``commands``, ``serving``, ``mcp_server``,
``docgen``) may import anything below them; the MCP side never imports the
CLI. The child side (``runtime/child``) runs in the user's interpreter and
imports nothing of mlsleuth outside itself. Finer rules inside ``scan`` live
in ``tests/scan/test_layers.py``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mlsleuth
from import_graph import find_cycles

PACKAGE_DIR = Path(mlsleuth.__file__).parent
FLOOR = {"", "report", "catalog", "config", "render", "process_runner", "process_cgroup", "child_launcher", "version"}
CAPABILITIES = {"scan", "runtime", "sweep"}
FACES = {"cli", "commands", "serving", "mcp_server", "docgen", "__main__", "integrations"}
CHILD = "runtime.child"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE_DIR).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(["mlsleuth", *parts])] = path
    return found


MODULES = _modules()


def _under_type_checking(tree: ast.Module) -> set[int]:
    return {
        id(node)
        for stmt in ast.walk(tree)
        if isinstance(stmt, ast.If) and "TYPE_CHECKING" in ast.unparse(stmt.test)
        for node in ast.walk(stmt)
    }


def _imports(name: str, path: Path) -> list[tuple[str, list[str], bool]]:
    """(module imported, names taken from it, whether at import time) for each mlsleuth import of a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    typing_only = _under_type_checking(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(a.name, [], id(node) in top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in MODULES:
                    found.append((sub, [], id(node) in top))
                else:
                    found.append((base, [alias.name], id(node) in top))
    return [(m, n, t) for m, n, t in found if m == "mlsleuth" or m.startswith("mlsleuth.")]


def _room(module: str) -> str:
    rest = module[len("mlsleuth."):] if module != "mlsleuth" else ""
    if rest == CHILD or rest.startswith(CHILD + "."):
        return CHILD
    return rest.split(".")[0]


def _kind(room: str) -> str:
    if room in FLOOR:
        return "floor"
    if room in CAPABILITIES or room == CHILD:
        return "capability"
    if room in FACES:
        return "face"
    raise AssertionError(f"mlsleuth.{room} belongs to no layer: add it to FLOOR, CAPABILITIES or FACES")


def test_every_module_belongs_to_a_layer():
    assert len(MODULES) > 100
    for name in MODULES:
        _kind(_room(name))


def test_imports_only_go_down():
    bad = []
    for name, path in MODULES.items():
        room = _room(name)
        for target, _names, _now in _imports(name, path):
            other = _room(target)
            if other == room:
                continue
            kind, other_kind = _kind(room), _kind(other)
            if room == CHILD:
                bad.append(f"{name} (child side) imports {target}")
            elif kind == "floor" and other_kind != "floor":
                bad.append(f"{name} (floor) imports {target}")
            elif kind == "capability" and (other_kind == "face" or (other_kind == "capability" and other != CHILD)):
                bad.append(f"{name} ({room}) imports {target}")
            elif room in ("serving", "mcp_server") and other in ("cli", "commands"):
                bad.append(f"{name} (MCP side) imports the CLI module {target}")
    assert not bad, "\n".join(bad)


def test_no_private_name_is_imported_from_another_module():
    bad = [
        f"{name} imports {target}.{n}"
        for name, path in MODULES.items()
        for target, names, _now in _imports(name, path)
        for n in names
        if n.startswith("_") and not n.startswith("__")
    ]
    assert not bad, "\n".join(bad)


def test_no_import_cycle_at_import_time():
    graph = {
        name: {t for t, _n, now in _imports(name, path) if now and t in MODULES and t != name}
        for name, path in MODULES.items()
    }
    cycles = find_cycles(graph)
    assert not cycles, "\n".join(cycles)


def test_the_cycle_finder_sees_a_cycle_and_only_a_cycle():
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a -> b -> c -> a"]
    assert find_cycles({"a": {"b", "c"}, "b": {"c"}, "c": set()}) == []


def test_the_checker_sees_a_planted_upward_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("from mlsleuth.cli import main\nfrom mlsleuth.scan.engine import _plan\n")
    found = _imports("mlsleuth.sweep.planted", planted)
    assert ("mlsleuth.cli", ["main"], True) in found
    assert _kind(_room("mlsleuth.cli")) == "face" and _kind(_room("mlsleuth.sweep.planted")) == "capability"
    assert any(n == ["_plan"] for _t, n, _now in found)
