"""The layers of mlsleuth.scan, checked on the import statements of its modules.

* ``analysis/`` (what a rule may ask about code) imports only ``analysis/``;
* a rule module imports only ``analysis/``, ``registry``, ``prefilter`` and
  ``rules/loop_rule_base``;
* the pipeline never imports a rule module (the registry finds them by walking
  the package);
* no module imports another module's underscore-private name;
* there is no import cycle among the modules of ``mlsleuth.scan``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mlsleuth.scan
from import_graph import find_cycles

SCAN = Path(mlsleuth.scan.__file__).parent
PACKAGE = "mlsleuth.scan"


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(SCAN.rglob("*.py")):
        parts = list(path.relative_to(SCAN).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join([PACKAGE, *parts])] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[str, list[str], bool]]:
    """(imported module, names taken from it, at module level) for every import of a scan module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = {id(n) for n in tree.body}
    type_checking = {id(n) for st in tree.body if isinstance(st, ast.If) and "TYPE_CHECKING" in ast.unparse(st.test) for n in ast.walk(st)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.append((alias.name, [], id(node) in top))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [a.name for a in node.names]
            submodules = [f"{node.module}.{n}" for n in names if f"{node.module}.{n}" in MODULES]
            for sub in submodules:
                found.append((sub, [], id(node) in top and id(node) not in type_checking))
            rest = [n for n in names if f"{node.module}.{n}" not in MODULES]
            if rest or not submodules:
                found.append((node.module, rest, id(node) in top and id(node) not in type_checking))
    return [f for f in found if f[0].startswith(PACKAGE + ".") or f[0] == PACKAGE]


def _layer(module: str) -> str:
    rest = module[len(PACKAGE) + 1 :] if module != PACKAGE else ""
    if rest.startswith("analysis"):
        return "analysis"
    if rest == "rules.loop_rule_base":
        return "rule-base"
    if rest.startswith("rules"):
        return "rules"
    return "pipeline"


def test_the_modules_were_found():
    assert len(MODULES) > 60
    assert f"{PACKAGE}.analysis.context" in MODULES and f"{PACKAGE}.rules.loop_rule_base" in MODULES


def test_no_upward_import():
    allowed = {
        "analysis": {"analysis"},
        "rule-base": {"analysis", "registry", "prefilter"},
        "rules": {"analysis", "registry", "prefilter", "rule-base"},
    }
    bad = []
    for name, path in MODULES.items():
        layer = _layer(name)
        if layer == "pipeline" or name.endswith(".rules") and layer == "rules":
            continue
        for target, _names, _top in _imports(name, path):
            kind = _layer(target)
            if kind == "pipeline":
                kind = target.rsplit(".", 1)[-1]
            if kind not in allowed[layer]:
                bad.append(f"{name} imports {target}")
    assert not bad, bad


def test_the_pipeline_imports_no_rule_module():
    bad = [
        f"{name} imports {target}"
        for name, path in MODULES.items()
        if _layer(name) == "pipeline"
        for target, _names, _top in _imports(name, path)
        if _layer(target) in ("rules", "rule-base")
    ]
    assert not bad, bad


def test_no_module_imports_a_private_name_of_another():
    bad = [
        f"{name} imports {target}.{n}"
        for name, path in MODULES.items()
        for target, names, _top in _imports(name, path)
        for n in names
        if n.startswith("_")
    ]
    assert not bad, bad


def test_no_import_cycle():
    graph = {name: {t for t, _n, top in _imports(name, path) if top and t in MODULES and t != name} for name, path in MODULES.items()}
    cycles = find_cycles(graph)
    assert not cycles, cycles
