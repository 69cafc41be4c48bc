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
import bisect
import operator
import re
from collections.abc import Iterator
from functools import cached_property

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
LOOPS = (ast.For, ast.AsyncFor, ast.While)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)
_NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)

_position = operator.attrgetter("lineno", "col_offset")  # source order of nodes
_LINE_BREAK = re.compile(r"\r\n?|\n")
_WIDE = re.compile(r"[^\x00-\x7f]")


def _wide_char_table(source: str, start: int, end: int) -> tuple[list[int], list[int]]:
    """For the line ``source[start:end]``: the UTF-8 byte column just after each non-ASCII
    character, and how many bytes more than characters the line has up to there.
    Both lists are empty for an ASCII line, whose byte columns are character columns."""
    after: list[int] = []
    extra: list[int] = []
    surplus = 0
    for m in _WIDE.finditer(source, start, end):
        ch = m.group()
        surplus += len(ch.encode("utf-8", "surrogatepass")) - 1
        after.append(m.end() - start + surplus)
        extra.append(surplus)
    return after, extra


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


# Fields that never hold a node worth visiting: names and numbers, and the
# shared singleton nodes for load/store context and operators (``ctx``,
# ``op``, ``ops``), which have no position and no single parent. Rules test
# those through their owner (``isinstance(node.op, ast.Div)``).
_NOT_CHILDREN = frozenset(
    {"ctx", "op", "ops", "id", "attr", "name", "asname", "arg", "module", "level", "kind", "type_comment", "is_async", "conversion", "tag", "rest", "kwd_attrs"}
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def same_tree(a: object, b: object) -> bool:
    """``a`` and ``b`` are the same expression (node types and fields, load/store context ignored). Unlike
    comparing ``ast.dump`` strings, it leaves no reference cycles behind (``ast.dump`` makes one per call)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            stack.extend((getattr(x, f, None), getattr(y, f, None)) for f in x._fields if f != "ctx")
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif x != y:
            return False
    return True


def child_fields(cls: type) -> tuple[str, ...]:
    """The fields of AST class ``cls`` that can hold child nodes, in ``_fields`` order (memoised)."""
    fields = () if cls is ast.Constant else tuple(f for f in cls._fields if f not in _NOT_CHILDREN)
    _CHILD_FIELDS[cls] = fields
    return fields


def iter_children(node: ast.AST) -> Iterator[ast.AST]:
    """Like :func:`ast.iter_child_nodes`, without the context and operator singletons."""
    fields = _CHILD_FIELDS.get(node.__class__)
    if fields is None:
        fields = child_fields(node.__class__)
    for name in fields:
        value = getattr(node, name, None)
        if value.__class__ is list:
            for child in value:
                if isinstance(child, ast.AST):
                    yield child
        elif isinstance(value, ast.AST):
            yield value


def _bind(table: dict[str, list], target: ast.AST, value: ast.expr | None, stmt: ast.AST) -> None:
    """Record the names ``target`` binds (see :meth:`FileContext.assignments`).

    A module-level function, not a closure: a recursive closure refers to itself and
    would keep the table, and the nodes in it, alive in a reference cycle.
    """
    if isinstance(target, ast.Name):
        table.setdefault(target.id, []).append((stmt.lineno, stmt, value))
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) else None
        for i, elt in enumerate(target.elts):
            _bind(table, elt, values[i] if values else None, stmt)
    elif isinstance(target, ast.Starred):
        _bind(table, target.value, None, stmt)


def called_names_containing(text: str, *parts: str, methods: bool = False) -> set[str]:
    """Identifiers that contain one of ``parts`` (any case) and are called (``name(``) in ``text``.

    A linear scan with ``str.find`` (a regex such as ``\\w*split\\w*\\(`` backtracks on every
    identifier of a large file). Method calls (``x.split(``) count only with ``methods=True``.
    """
    lower = text.lower()
    size = len(text)
    found: set[str] = set()
    for part in (p.lower() for p in parts):
        at = lower.find(part)
        while at >= 0:
            start = at
            while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
                start -= 1
            end = at + len(part)
            while end < size and (text[end].isalnum() or text[end] == "_"):
                end += 1
            after = end
            while after < size and text[after] in " \t":
                after += 1
            if after < size and text[after] == "(" and (methods or start == 0 or text[start - 1] != "."):
                name = text[start:end]
                if name and not name[0].isdigit():
                    found.add(name)
            at = lower.find(part, end)
    return found


class FileContext:
    """One parsed file, ready for rules."""

    def __init__(self, source: str, tree: ast.Module, display_path: str) -> None:
        self.source = source
        self.tree = tree
        self.display_path = display_path
        # One breadth-first pass (the order of ast.walk) fills the parent links,
        # ``all_nodes`` and the nodes by class; it is the hot path on large trees,
        # so it only looks at the fields that can hold nodes (see child_fields).
        parents: dict[ast.AST, ast.AST] = {}
        nodes: list[ast.AST] = [tree]
        append = nodes.append
        node_type = ast.AST
        seen: dict[type, tuple[tuple[str, ...], list[ast.AST]]] = {}  # class -> (child fields, its nodes)
        for parent in nodes:  # the list grows while it is walked
            entry = seen.get(parent.__class__)
            if entry is None:
                fields = _CHILD_FIELDS.get(parent.__class__)
                entry = seen[parent.__class__] = (fields if fields is not None else child_fields(parent.__class__), [])
            entry[1].append(parent)
            for name in entry[0]:
                value = getattr(parent, name, None)
                if value.__class__ is list:
                    for child in value:
                        if isinstance(child, node_type):
                            parents[child] = parent
                            append(child)
                elif isinstance(value, node_type):
                    parents[value] = parent
                    append(value)
        self._parents = parents
        self.all_nodes = nodes  # every node but the context/operator singletons, in the order of ast.walk
        self._by_class = {cls: entry[1] for cls, entry in seen.items()}
        self._assignments: dict[ast.AST, dict] = {}
        self._calls: list[ast.Call] | None = None
        self._calls_in: dict[ast.AST, list[ast.Call]] = {}  # root -> the calls under it (see calls)
        self._calls_by_name: dict[str, list[int]] | None = None
        self._methods: dict[ast.ClassDef, dict[str, FunctionNode]] = {}
        self._wide_chars: dict[int, tuple[list[int], list[int]]] = {}  # line -> see _wide_char_table
        self.path: str | None = None  # the file's absolute path, when it was read from disk
        self.project = None  # the ProjectIndex (analysis/project.py) when the scan knows the other files

    def release(self) -> None:
        """Drop every link and cache: the context must not be used afterwards.

        Helpers cache objects on the context that point back at it (a loop model, flow
        indexes), cycles that reference counting cannot free; they would keep the whole
        tree alive until a garbage collection walks it, which on a large file costs as
        much as the rules did.
        """
        self.__dict__.clear()

    @classmethod
    def from_source(cls, source: str, display_path: str = "<string>") -> FileContext:
        return cls(source, ast.parse(source, filename=display_path), display_path)

    # -- text -----------------------------------------------------------------
    @cached_property
    def lines(self) -> list[str]:
        """The source's lines (split on first use: most files yield no finding that needs them)."""
        return self.source.splitlines()

    def line_text(self, line: int | None) -> str:
        if line is None or not 1 <= line <= len(self.lines):
            return ""
        return self.lines[line - 1].strip()

    @cached_property
    def _line_starts(self) -> list[int]:
        """Offset of each line's first character, with the parser's line breaks (\\n, \\r\\n, \\r)."""
        return [0, *(m.end() for m in _LINE_BREAK.finditer(self.source))]

    def _char_offset(self, line: int, byte_col: int) -> int:
        """Offset in ``source`` of a node position (1-based line, UTF-8 byte column)."""
        start = self._line_starts[line - 1]
        shifts = self._wide_chars.get(line)
        if shifts is None:
            end = self._line_starts[line] if line < len(self._line_starts) else len(self.source)
            shifts = self._wide_chars[line] = _wide_char_table(self.source, start, end)
        if not shifts[0]:
            return start + byte_col
        k = bisect.bisect_right(shifts[0], byte_col)  # wide characters ending at or before the column
        return start + byte_col - (shifts[1][k - 1] if k else 0)

    def segment(self, node: ast.AST, limit: int = 160) -> str:
        """The source text of ``node`` on one line, whitespace collapsed, at most ``limit`` characters.

        Same text as ``ast.get_source_segment``, which re-splits the whole file on every call
        (quadratic in file size when a file has many findings); this uses a line index built once.
        """
        try:
            line, end_line = node.lineno, node.end_lineno  # type: ignore[attr-defined]
            col, end_col = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return ""
        if None in (line, end_line, col, end_col) or not 1 <= line <= end_line <= len(self._line_starts):
            return ""
        begin, end = self._char_offset(line, col), self._char_offset(end_line, end_col)
        raw = self.source[begin : min(end, begin + 16 * limit + 4096)]  # a whole-file node: only its head is shown
        text = " ".join(raw.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    # -- tree navigation -----------------------------------------------------------
    def parent(self, node: ast.AST) -> ast.AST | None:
        return self._parents.get(node)

    def ancestors(self, node: ast.AST) -> Iterator[ast.AST]:
        current = self._parents.get(node)
        while current is not None:
            yield current
            current = self._parents.get(current)

    def ancestors_below(self, node: ast.AST, stop: ast.AST) -> list[ast.AST]:
        """The ancestors of ``node`` inside ``stop``, innermost first (``stop`` itself excluded)."""
        out = []
        for anc in self.ancestors(node):
            if anc is stop:
                break
            out.append(anc)
        return out

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
        # iter_children inlined (this is a hot path): the children of each node are pushed
        # in reverse so that they pop in field order
        stack = list(iter_children(root))
        stack.reverse()
        pop, push = stack.pop, stack.append
        fields_of, node_type, nested = _CHILD_FIELDS, ast.AST, _NESTED_SCOPES
        while stack:
            node = pop()
            yield node
            if isinstance(node, nested):
                continue
            fields = fields_of.get(node.__class__)
            if fields is None:
                fields = child_fields(node.__class__)
            for name in reversed(fields):
                value = getattr(node, name, None)
                if value.__class__ is list:
                    for child in reversed(value):
                        if isinstance(child, node_type):
                            push(child)
                elif isinstance(value, node_type):
                    push(value)

    def subtree(self, root: ast.AST) -> list[ast.AST]:
        """``root`` and every node under it, in the order of :func:`ast.walk`."""
        if root is self.tree:
            return self.all_nodes
        nodes = [root]
        append = nodes.append
        fields_of, node_type = _CHILD_FIELDS, ast.AST
        for parent in nodes:  # the list grows while it is walked: breadth first (iter_children inlined)
            fields = fields_of.get(parent.__class__)
            if fields is None:
                fields = child_fields(parent.__class__)
            for name in fields:
                value = getattr(parent, name, None)
                if value.__class__ is list:
                    for child in value:
                        if isinstance(child, node_type):
                            append(child)
                elif isinstance(value, node_type):
                    append(value)
        return nodes

    # -- collections ---------------------------------------------------------------

    def nodes_of(self, *classes: type) -> list[ast.AST]:
        """Every node of exactly these AST classes (``ast.Call``, ...), in the order of :attr:`all_nodes`."""
        index = self._by_class
        if len(classes) == 1:
            return list(index.get(classes[0], ()))
        present = [c for c in set(classes) if c in index]
        if len(present) <= 1:
            return list(index[present[0]]) if present else []
        wanted = set(present)
        return [n for n in self.all_nodes if n.__class__ in wanted]

    def calls(self, root: ast.AST | None = None) -> list[ast.Call]:
        """Calls under ``root`` (default: the whole file), in source order."""
        if root is None or root is self.tree:
            if self._calls is None:
                found = self.nodes_of(ast.Call)
                found.sort(key=_position)
                self._calls = found
            return list(self._calls)
        found = self._calls_in.get(root)
        if found is None:  # several rules ask for the calls of the same function
            found = self._calls_in[root] = [n for n in self.subtree(root) if n.__class__ is ast.Call]
            found.sort(key=_position)
        return list(found)

    def calls_named(self, *names: str) -> list[ast.Call]:
        """The calls among :meth:`calls` whose callee's own name is one of ``names``, in source order.

        The callee's own name is the attribute in ``a.b.name(...)`` and the name in ``name(...)``;
        for a name bound by an import it is the imported name (``sm`` after ``from torch import
        softmax as sm`` is ``softmax``). So every call whose :meth:`qualname` or
        :func:`call_method` ends in one of ``names`` is here: a rule that only cares about such
        calls can skip the rest of the file's calls without resolving them.
        """
        index = self._calls_by_name
        if index is None:
            index = self._index_calls_by_name()
        calls = self._calls
        assert calls is not None
        if len(names) == 1:
            return [calls[i] for i in index.get(names[0], ())]
        picked = sorted(i for name in set(names) for i in index.get(name, ()))
        return [calls[i] for i in picked]

    def _index_calls_by_name(self) -> dict[str, list[int]]:
        if self._calls is None:
            self.calls()
        imports = self.imports
        index: dict[str, list[int]] = {}
        for i, call in enumerate(self._calls or ()):
            func = call.func
            if func.__class__ is ast.Attribute:
                name = func.attr
            elif func.__class__ is ast.Name:
                name = func.id
                target = imports.get(name)
                if target is not None:
                    name = target.rpartition(".")[2]
            else:
                continue
            bucket = index.get(name)
            if bucket is None:
                index[name] = bucket = []
            bucket.append(i)
        self._calls_by_name = index
        return index

    @cached_property
    def functions(self) -> list[FunctionNode]:
        return self.nodes_of(ast.FunctionDef, ast.AsyncFunctionDef)

    @cached_property
    def classes(self) -> list[ast.ClassDef]:
        return self.nodes_of(ast.ClassDef)

    # -- names and imports -------------------------------------------------------------
    @cached_property
    def imports(self) -> dict[str, str]:
        """Local alias -> fully qualified name, from every import in the file."""
        table: dict[str, str] = {}
        for node in self.nodes_of(ast.Import, ast.ImportFrom):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        table[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        table.setdefault(head, head)
            elif node.module and node.level == 0:
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
        for node in self.walk_scope(scope):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    _bind(table, target, node.value, node)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
                _bind(table, node.target, node.value if isinstance(node, ast.AnnAssign) else None, node)
            elif isinstance(node, ast.NamedExpr):
                _bind(table, node.target, node.value, node)
            elif isinstance(node, (ast.For, ast.AsyncFor)):
                _bind(table, node.target, None, node)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    if item.optional_vars is not None:
                        _bind(table, item.optional_vars, None, node)
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
        for node in self.subtree(cls):  # the nodes of ast.walk(cls), in its order, without the singletons
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                        table.setdefault(target.attr, []).append(node.value)
                    elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                            and len(target.elts) == len(node.value.elts):  # self.a, self.b = a, b
                        for t, v in zip(target.elts, node.value.elts):
                            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                                table.setdefault(t.attr, []).append(v)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                t = node.target
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
                    table.setdefault(t.attr, []).append(node.value)
        cache[cls] = table
        return table

    def method(self, cls: ast.ClassDef, name: str) -> FunctionNode | None:
        """The first method named ``name`` in the body of ``cls``."""
        table = self._methods.get(cls)
        if table is None:
            table = {}
            for node in cls.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    table.setdefault(node.name, node)
            self._methods[cls] = table
        return table.get(name)

    def nested_function(self, node: ast.AST, name: str) -> FunctionNode | None:
        """A function named ``name`` defined directly in a function around ``node`` (a local helper)."""
        for anc in self.ancestors(node):
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for stmt in anc.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and stmt.name == name:
                        return stmt
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
            return self.module_function(func.id) or self.nested_function(call, func.id)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = self.enclosing_class(call)
            if cls is not None:
                return self.method(cls, func.attr)
        return None
