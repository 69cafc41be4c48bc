"""What a rule can ask about one parsed file.

:class:`FileContext` wraps a module's AST with the facts rules need again and
again: the qualified name behind an alias (``fn.softmax`` is
``torch.nn.functional.softmax`` after ``import torch.nn.functional as fn``),
parent links, the enclosing function, class and loops of a node, the value a
local name held at a given line, and the values bound to ``self.attr``
anywhere in a class. It is built once per file and shared by every rule.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cached_property

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None (no alias resolution)."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def call_method(call: ast.AST) -> str | None:
    """The attribute name of a method call: ``loss.backward()`` gives ``backward``."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    """The argument passed by position or by keyword, if any."""
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return keyword(call, name)


def constant(node: ast.AST | None) -> object:
    """The Python value of a literal (including negative numbers), or ``...`` if not a literal."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        if isinstance(value, (int, float)):
            return -value
    return ...


class FileContext:
    """One parsed file, ready for rules."""

    def __init__(self, source: str, tree: ast.Module, display_path: str) -> None:
        self.source = source
        self.tree = tree
        self.display_path = display_path
        self.lines = source.splitlines()
        self._parents: dict[ast.AST, ast.AST] = {}
        # One breadth-first pass (the order of ast.walk) fills both the parent
        # links and ``all_nodes``; it is the hot path on large trees.
        nodes: list[ast.AST] = [tree]
        parents = self._parents
        node_type = ast.AST
        i = 0
        while i < len(nodes):
            parent = nodes[i]
            i += 1
            for name in parent._fields:
                value = getattr(parent, name, None)
                if isinstance(value, node_type):
                    parents[value] = parent
                    nodes.append(value)
                elif isinstance(value, list):
                    for child in value:
                        if isinstance(child, node_type):
                            parents[child] = parent
                            nodes.append(child)
        self.__dict__["all_nodes"] = nodes
        self._assignments: dict[ast.AST, dict] = {}

    @classmethod
    def from_source(cls, source: str, display_path: str = "<string>") -> FileContext:
        return cls(source, ast.parse(source, filename=display_path), display_path)

    # -- text -----------------------------------------------------------------
    def line_text(self, line: int | None) -> str:
        if line is None or not 1 <= line <= len(self.lines):
            return ""
        return self.lines[line - 1].strip()

    def segment(self, node: ast.AST, limit: int = 160) -> str:
        text = ast.get_source_segment(self.source, node) or ""
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- tree navigation -----------------------------------------------------------
    def parent(self, node: ast.AST) -> ast.AST | None:
        return self._parents.get(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def enclosing_function(self, node: ast.AST) -> FunctionNode | None:
        for anc in self.ancestors(node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return anc
        return None

    def enclosing_class(self, node: ast.AST) -> ast.ClassDef | None:
        for anc in self.ancestors(node):
            if isinstance(anc, ast.ClassDef):
                return anc
        return None

    def enclosing_function_name(self, node: ast.AST) -> str | None:
        func = self.enclosing_function(node)
        if func is None:
            return None
        names = [func.name]
        for anc in self.ancestors(func):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.append(anc.name)
        return ".".join(reversed(names))

    def enclosing_loops(self, node: ast.AST) -> list[ast.For | ast.AsyncFor | ast.While]:
        """Loops around ``node`` inside its own function (innermost first)."""
        loops: list = []
        for anc in self.ancestors(node):
            if isinstance(anc, LOOPS):
                loops.append(anc)
            elif isinstance(anc, SCOPES):
                break
        return loops

    def enclosing_withs(self, node: ast.AST) -> list[ast.With | ast.AsyncWith]:
        """``with`` blocks around ``node`` inside its own function (innermost first)."""
        found: list = []
        for anc in self.ancestors(node):
            if isinstance(anc, (ast.With, ast.AsyncWith)):
                found.append(anc)
            elif isinstance(anc, SCOPES):
                break
        return found

    def walk_scope(self, root: ast.AST) -> Iterator[ast.AST]:
        """Nodes under ``root`` in source order, not descending into nested functions or classes."""
        stack = list(reversed(list(ast.iter_child_nodes(root))))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            stack.extend(reversed(list(ast.iter_child_nodes(node))))

    # -- collections ---------------------------------------------------------------
    @cached_property
    def all_nodes(self) -> list[ast.AST]:
        return list(ast.walk(self.tree))

    def calls(self, root: ast.AST | None = None) -> list[ast.Call]:
        """Calls under ``root`` (default: the whole file), in source order."""
        nodes = self.all_nodes if root is None else ast.walk(root)
        found = [n for n in nodes if isinstance(n, ast.Call)]
        found.sort(key=lambda c: (c.lineno, c.col_offset))
        return found

    @cached_property
    def functions(self) -> list[FunctionNode]:
        return [n for n in self.all_nodes if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]

    @cached_property
    def classes(self) -> list[ast.ClassDef]:
        return [n for n in self.all_nodes if isinstance(n, ast.ClassDef)]

    # -- names and imports -------------------------------------------------------------
    @cached_property
    def imports(self) -> dict[str, str]:
        """Local alias -> fully qualified name, from every import in the file."""
        table: dict[str, str] = {}
        for node in self.all_nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        table[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        table.setdefault(head, head)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    if alias.name != "*":
                        table[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        return table

    def qualname(self, node: ast.AST) -> str | None:
        """The qualified dotted name of an expression, resolving import aliases.

        ``F.cross_entropy`` -> ``torch.nn.functional.cross_entropy`` (after
        ``import torch.nn.functional as F``); a call resolves to its callee's
        name. Unimported heads are returned as written.
        """
        if isinstance(node, ast.Call):
            node = node.func
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        target = self.imports.get(head)
        if target is None:
            return name
        return f"{target}.{rest}" if rest else target

    def imports_any(self, *prefixes: str) -> bool:
        """True when the file imports a module under any of ``prefixes`` (e.g. ``"torch"``)."""
        return any(q == p or q.startswith(p + ".") for q in self.imports.values() for p in prefixes)

    # -- values ----------------------------------------------------------------------
    def assignments(self, scope: ast.AST) -> dict[str, list[tuple[int, ast.AST, ast.expr | None]]]:
        """Name -> [(line, target-or-stmt, value)] for simple bindings in ``scope``, in order.

        Tuple unpacking records the matching element when the value is a tuple
        literal, else ``None`` as the value. ``for`` targets and ``with ... as``
        names are recorded with value ``None``.
        """
        cached = self._assignments.get(scope)
        if cached is not None:
            return cached
        table: dict[str, list[tuple[int, ast.AST, ast.expr | None]]] = {}
        self._assignments[scope] = table

        def bind(target: ast.AST, value: ast.expr | None, stmt: ast.AST) -> None:
            if isinstance(target, ast.Name):
                table.setdefault(target.id, []).append((stmt.lineno, stmt, value))
            elif isinstance(target, (ast.Tuple, ast.List)):
                values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) else None
                for i, elt in enumerate(target.elts):
                    bind(elt, values[i] if values else None, stmt)
            elif isinstance(target, ast.Starred):
                bind(target.value, None, stmt)

        for node in self.walk_scope(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    bind(target, node.value, node)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                bind(node.target, node.value if isinstance(node, ast.AnnAssign) else None, node)
            elif isinstance(node, ast.NamedExpr):
                bind(node.target, node.value, node)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                bind(node.target, None, node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        bind(item.optional_vars, None, node)
        for entries in table.values():
            entries.sort(key=lambda e: e[0])
        return table

    def value_of(self, name: ast.Name, *, depth: int = 0) -> ast.expr | None:
        """The expression last assigned to ``name`` before its use, within its function.

        Follows ``a = b`` chains a few steps. Returns None when unknown
        (a parameter, a loop variable, an assignment after the use).
        """
        if depth > 8:
            return None
        scope = self.enclosing_function(name) or self.tree
        entries = self.assignments(scope).get(name.id, [])
        use_line = name.lineno
        best = None
        for line, _stmt, value in entries:
            if line < use_line or (line == use_line and value is not None and value.col_offset > name.col_offset):
                best = value
        if best is None and scope is not self.tree:
            return None
        if isinstance(best, ast.Name):
            return self.value_of(best, depth=depth + 1) or best
        return best

    def resolve(self, expr: ast.AST | None) -> ast.AST | None:
        """Follow a local name or ``self.attr`` to the expression bound to it, if known."""
        if isinstance(expr, ast.Name):
            return self.value_of(expr) or expr
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            cls = self.enclosing_class(expr)
            if cls is not None:
                values = self.self_attributes(cls).get(expr.attr)
                if values:
                    return values[-1]
        return expr

    def self_attributes(self, cls: ast.ClassDef) -> dict[str, list[ast.expr]]:
        """``self.X = value`` bindings in every method of ``cls``, by attribute name."""
        cache = self.__dict__.setdefault("_self_attr_cache", {})
        if cls in cache:
            return cache[cls]
        table: dict[str, list[ast.expr]] = {}
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                        table.setdefault(target.attr, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                t = node.target
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    table.setdefault(t.attr, []).append(node.value)
        cache[cls] = table
        return table

    def method(self, cls: ast.ClassDef, name: str) -> FunctionNode | None:
        for node in cls.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node
        return None

    def module_function(self, name: str) -> FunctionNode | None:
        """A top-level function of this file by name."""
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
                return node
        return None

    def callee_definition(self, call: ast.Call) -> FunctionNode | None:
        """The function a call runs, when it is defined in this file.

        Handles ``helper(...)`` (a module-level function) and
        ``self.helper(...)`` (a method of the enclosing class).
        """
        func = call.func
        if isinstance(func, ast.Name):
            return self.module_function(func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = self.enclosing_class(call)
            if cls is not None:
                return self.method(cls, func.attr)
        return None
