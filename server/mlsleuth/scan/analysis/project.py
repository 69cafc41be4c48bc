"""The project a file belongs to: its other modules, reached through imports and calls.

A rule reasons about one :class:`~mlsleuth.scan.analysis.context.FileContext`,
but training code is rarely one file: the model is defined in ``model.py``,
trained in ``train.py`` and wired together in ``main.py``. A
:class:`ProjectIndex` lets the analysis of one file follow a name into the
file that defines it:

* :meth:`ProjectIndex.definition` turns a name used in one file (``Net``,
  ``models.Net``, ``build_model``) into the class or function an import
  binds it to, when that lives in a scanned ``.py`` file: relative and
  absolute imports, ``import a.b as c``, ``from x import y as z``, and
  re-exports through a package's ``__init__.py``;
* :meth:`ProjectIndex.callers` finds the calls in *other* files that run a
  function or construct a class, so a parameter can be bound to the
  values its callers pass.

Module names are resolved the way a script run from its own folder or a
package under a scanned root sees them: first next to the importing file,
then in each folder above it up to the scan root, then at the roots. Only
the files the scan listed are consulted, so exclusions and confinement hold.

Every file opened on behalf of another is recorded (:meth:`ProjectIndex.track`):
a cached result is only reused while the files it looked at are unchanged.
The index never raises for bad input: an unreadable or unparsable module is
"unknown", and the analysis then stays silent rather than guessing.
"""

from __future__ import annotations

import ast
import bisect
import hashlib
import io
import os
import re
import tokenize
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mlsleuth.scan.analysis.context import FileContext, FunctionNode

MAX_PARSED = 256  # parsed modules kept at once (least recently used are released)
MAX_REEXPORT_HOPS = 4
MAX_CALLER_FILES = 40  # more candidate callers than this: the binding is left unknown
_WORD_RUN = re.compile(r"\w+")
_PLAIN_RUN = re.compile(r"[A-Za-z0-9_]+")
_RUNS_INDEX_AFTER = 8  # words searched plainly before the run index pays for itself
_EVENT_CALL = re.compile(r"\.(zero_grad|backward|manual_backward|step|train|eval)\s*\(")


@dataclass(frozen=True)
class Definition:
    """A class or function found in some file of the project."""

    ctx: FileContext
    node: ast.ClassDef | FunctionNode


def _decode(data: bytes) -> str | None:
    if b"\0" in data:
        return None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode("utf-8-sig" if encoding.startswith("utf-8") else encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


class ProjectIndex:
    """The scanned ``.py`` files, opened on demand when one file's analysis follows a name into another."""

    def __init__(self, files: dict[str, str], roots: list[str], *, max_bytes: int = 10 * 2**20) -> None:
        """``files``: absolute path -> displayed path, for every file the scan listed; ``roots``: the scan's folders."""
        self.files = {os.path.normpath(p): d for p, d in files.items() if p.endswith(".py")}
        self.roots = [os.path.normpath(r) for r in roots]
        self.max_bytes = max_bytes
        self._parsed: OrderedDict[str, FileContext | None] = OrderedDict()
        self._texts: dict[str, str | None] = {}
        self._hashes: dict[str, str] = {}
        self._pinned: dict[str, FileContext] = {}  # the files being analysed right now (not released)
        self._deps: list[dict[str, str]] = []
        # callers by (file, name), as positions: contexts are reopened on use, never held here
        self._caller_cache: dict[tuple[str, str], list[tuple[str, tuple[int, int, int, int]]]] = {}
        self._evicted: list[FileContext] = []  # released once no analysis can hold them
        self._listing_key: str | None = None

    # -- reading -------------------------------------------------------------------------
    def _text(self, path: str) -> str | None:
        if path in self._texts:
            return self._texts[path]
        text = None
        try:
            if os.path.getsize(path) <= self.max_bytes:
                with open(path, "rb") as fh:
                    data = fh.read(self.max_bytes + 1)
                self._hashes[path] = hashlib.blake2b(data, digest_size=16).hexdigest()
                text = _decode(data)
        except OSError:
            text = None
        self._texts[path] = text
        return text

    def content_hash(self, path: str) -> str | None:
        """The hash of a listed file's bytes (the same one :meth:`track` records)."""
        path = os.path.normpath(path)
        if path not in self._hashes:
            self._text(path)
        return self._hashes.get(path)

    def context(self, path: str) -> FileContext | None:
        """The parsed module at ``path`` (a listed ``.py`` file), or None when it cannot be read or parsed."""
        path = os.path.normpath(path)
        pinned = self._pinned.get(path)
        if pinned is not None:
            return pinned
        if path not in self.files:
            return None
        self._record(path)
        if path in self._parsed:
            self._parsed.move_to_end(path)
            return self._parsed[path]
        text = self._text(path)
        ctx = None
        if text is not None:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SyntaxWarning)
                    tree = ast.parse(text, filename=self.files[path])
                ctx = FileContext(text, tree, self.files[path])
                ctx.path = path
                ctx.project = self
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                ctx = None
        self._parsed[path] = ctx
        while len(self._parsed) > MAX_PARSED:
            _old, dropped = self._parsed.popitem(last=False)
            if dropped is not None:
                self._evicted.append(dropped)
        return ctx

    @contextmanager
    def analysing(self, ctx: FileContext, path: str) -> Iterator[dict[str, str]]:
        """Run one file's analysis: ``ctx`` answers for ``path``; yields the files it consulted (path -> hash)."""
        path = os.path.normpath(path)
        ctx.path = path
        ctx.project = self
        self._pinned[path] = ctx
        deps: dict[str, str] = {}
        self._deps.append(deps)
        try:
            yield deps
        finally:
            self._deps.pop()
            self._pinned.pop(path, None)
            deps.pop(path, None)
            if not self._deps:
                # contexts evicted meanwhile may have been in use until now; free their trees
                for dropped in self._evicted:
                    dropped.release()
                self._evicted.clear()

    def _record(self, path: str) -> None:
        if self._deps:
            digest = self.content_hash(path)
            if digest is not None:
                self._deps[-1][path] = digest

    def listing_key(self) -> str:
        """A hash of the set of listed files: a caller search depends on which files exist."""
        if self._listing_key is None:
            h = hashlib.blake2b(digest_size=12)
            for p in sorted(self.files):
                h.update(p.encode("utf-8", "surrogatepass") + b"\0")
            self._listing_key = h.hexdigest()
        return self._listing_key

    def suppressions(self, display: str) -> tuple[dict[int, set[str]], set[str]]:
        """The ``# mlsleuth: ignore`` comments of the listed file shown as ``display`` (see scan.analyze)."""
        cache = self.__dict__.setdefault("_suppressions", {})
        if display not in cache:
            from mlsleuth.scan.analysis.suppression import read_suppressions

            path = next((p for p, d in self.files.items() if d == display), None)
            text = self._text(path) if path is not None else None
            cache[display] = read_suppressions(text or "")
        return cache[display]

    # -- module names ---------------------------------------------------------------------
    def _bases_for(self, importer: str) -> list[str]:
        """Folders an absolute import is looked up in: the importer's folder, its parents up to a root, the roots."""
        here = os.path.dirname(importer)
        bases = [here]
        root = next((r for r in self.roots if here == r or here.startswith(r + os.sep)), None)
        if root is not None:
            current = here
            while current != root:
                current = os.path.dirname(current)
                bases.append(current)
        for r in self.roots:
            if r not in bases:
                bases.append(r)
        return bases

    def module_file(self, importer: str, module: str, level: int = 0) -> str | None:
        """The listed file of module ``module`` as imported from ``importer`` (``level``: leading dots)."""
        parts = module.split(".") if module else []
        if level:
            base = os.path.dirname(importer)
            for _ in range(level - 1):
                base = os.path.dirname(base)
            candidates = [base]
        else:
            candidates = self._bases_for(importer)
        for base in candidates:
            stem = os.path.join(base, *parts)
            for option in (stem + ".py", os.path.join(stem, "__init__.py")):
                if option in self.files and option != importer:
                    return option
        return None

    def imported_files(self, ctx: FileContext, hops: int = 3) -> set[str]:
        """The listed files ``ctx`` imports, and what they import, up to ``hops`` imports away."""
        found: set[str] = set()
        frontier = [ctx]
        for _ in range(hops):
            following = []
            for here in frontier:
                for name in here.imports:
                    bound = self._imported(here, name)
                    if bound is not None and bound[0] not in found:
                        found.add(bound[0])
                        there = self.context(bound[0])
                        if there is not None:
                            following.append(there)
            frontier = following
        return found

    def _imported(self, ctx: FileContext, name: str) -> tuple[str, str | None] | None:
        """(module file, attribute) an import in ``ctx`` binds ``name`` to; attribute None for a module."""
        table = ctx.__dict__.get("_project_imports")
        if table is None:
            table = {}
            importer = getattr(ctx, "path", None)
            if importer is not None:
                for node in ctx.tree.body:
                    for stmt in _import_statements(node):
                        _bind_import(self, importer, stmt, table)
            ctx.__dict__["_project_imports"] = table
        return table.get(name)

    # -- definitions ----------------------------------------------------------------------
    def definition(self, ctx: FileContext, expr: ast.AST, *, hops: int = 0) -> Definition | None:
        """The project class or function that ``expr`` (``Net``, ``models.Net``, ``pkg.mod.fn``) names, if any."""
        if hops > MAX_REEXPORT_HOPS:
            return None
        if isinstance(expr, ast.Name):
            local = _top_level(ctx, expr.id)
            if local is not None:
                return Definition(ctx, local)
            bound = self._imported(ctx, expr.id)
            if bound is None:
                return None
            path, attr = bound
            return self._lookup(path, attr, hops) if attr is not None else None
        if isinstance(expr, ast.Attribute):
            chain = []
            node: ast.AST = expr
            while isinstance(node, ast.Attribute):
                chain.append(node.attr)
                node = node.value
            if not isinstance(node, ast.Name):
                return None
            chain.reverse()
            bound = self._imported(ctx, node.id)
            if bound is None or bound[1] is not None:
                return None
            path = bound[0]
            for part in chain[:-1]:  # pkg.sub.Name: walk submodules
                target = self.context(path)
                if target is None:
                    return None
                nxt = self.module_file(path, part, 1) if path.endswith("__init__.py") else None
                if nxt is None:
                    sub = self._imported(target, part)
                    if sub is None or sub[1] is not None:
                        return None
                    nxt = sub[0]
                path = nxt
            return self._lookup(path, chain[-1], hops)
        return None

    def _lookup(self, path: str, name: str, hops: int) -> Definition | None:
        target = self.context(path)
        if target is None:
            return None
        local = _top_level(target, name)
        if local is not None:
            return Definition(target, local)
        bound = self._imported(target, name)  # a re-export: from .model import Net
        if bound is not None and bound[1] is not None:
            return self._lookup(bound[0], bound[1], hops + 1) if hops < MAX_REEXPORT_HOPS else None
        return None

    def module_variable(self, ctx: FileContext, name: str) -> tuple[FileContext, ast.expr] | None:
        """(file, value) of a module-level variable that an import in ``ctx`` binds ``name`` to
        (``from config import CONFIG``): the last plain assignment to it in that module."""
        bound = self._imported(ctx, name)
        if bound is None or bound[1] is None:
            return None
        target = self.context(bound[0])
        if target is None:
            return None
        value = None
        for node in target.tree.body:
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == bound[1] for t in node.targets) or isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == bound[1] and node.value is not None:
                value = node.value
        return (target, value) if value is not None else None

    # -- callers --------------------------------------------------------------------------
    def _files_with(self, word: str) -> list[str]:
        """The listed files whose text contains ``word`` (each word searched once per scan)."""
        cache = self.__dict__.setdefault("_word_files", {})
        found = cache.get(word)
        if found is None:
            core = max(_PLAIN_RUN.findall(word), key=len, default="")
            if len(cache) >= _RUNS_INDEX_AFTER and len(core) >= 3:
                # every file whose text holds ``word`` holds its word-character core, so only the
                # files the run index finds for the core are searched
                found = [p for p in self._files_with_run(core) if core == word or word in (self._text(p) or "")]
            else:
                found = []
                for other in sorted(self.files):
                    text = self._text(other)
                    if text is not None and word in text:
                        found.append(other)
            cache[word] = found
        return found

    def _files_with_run(self, core: str) -> list[str]:
        """The listed files (sorted) whose text contains ``core`` (ASCII word characters only).

        Such a string lies inside one ``\\w+`` run of a text, so it is looked for in one string that
        holds each readable file's distinct runs, built once per scan: a few times shorter than the
        texts, and one search for every file.
        """
        index = self.__dict__.get("_runs_index")
        if index is None:
            paths: list[str] = []
            starts: list[int] = []
            parts: list[str] = []
            at = 0
            for other in sorted(self.files):
                text = self._text(other)
                if text is None:
                    continue
                runs = "\n".join(set(_WORD_RUN.findall(text)))
                paths.append(other)
                starts.append(at)
                parts.append(runs)
                at += len(runs) + 1
            index = self.__dict__["_runs_index"] = (paths, starts, "\n".join(parts))
        paths, starts, joined = index
        found = []
        at = joined.find(core)
        while at >= 0:
            k = bisect.bisect_right(starts, at) - 1
            found.append(paths[k])
            if k + 1 >= len(starts):
                break
            at = joined.find(core, starts[k + 1])
        return found

    def any_file_matches(self, pattern: re.Pattern[str]) -> bool:
        """Whether the text of any listed file matches ``pattern`` (a text test, no parsing; cached per pattern)."""
        if self._deps:
            self._deps[-1]["<listing>"] = self.listing_key()
        cache = self.__dict__.setdefault("_pattern_hits", {})
        found = cache.get(pattern.pattern)
        if found is None:
            found = any(pattern.search(self._text(path) or "") for path in sorted(self.files))
            cache[pattern.pattern] = found
        return found

    def package_matches(self, ctx: FileContext, pattern: re.Pattern[str]) -> bool:
        """Whether a listed file in ``ctx``'s own folder or below it matches ``pattern``: the modules of the one
        project the file belongs to, not the other examples of a repository that holds many."""
        if self._deps:
            self._deps[-1]["<listing>"] = self.listing_key()
        here = getattr(ctx, "path", None)
        if not here:
            return False
        folder = os.path.dirname(os.path.normpath(here)) + os.sep
        return any(path.startswith(folder) and pattern.search(self._text(path) or "") for path in sorted(self.files))

    def may_define_training_helper(self, name: str) -> bool:
        """Some listed file defines ``def name(`` and also calls a training event (``.backward(``,
        ``.step(``, ``.eval(``, ...): a text test, no parsing, before a costly caller search."""
        if self._deps:
            self._deps[-1]["<listing>"] = self.listing_key()
        cache = self.__dict__.setdefault("_helper_names", {})
        found = cache.get(name)
        if found is None:
            found = any(_EVENT_CALL.search(self._text(other) or "") for other in self._files_with(f"def {name}("))
            cache[name] = found
        return found

    def any_file_mentions(self, word: str) -> bool:
        """Whether any listed file's text contains ``word`` (a project-wide guard, e.g. hooks registered anywhere)."""
        return bool(self._files_with(word))

    def files_mentioning(self, ctx: FileContext, word: str) -> list[FileContext]:
        """The other listed files whose text contains ``word`` (parsed), for a caller search by name."""
        path = getattr(ctx, "path", None)
        if self._deps:
            self._deps[-1]["<listing>"] = self.listing_key()
        found = []
        for other in self._files_with(word):
            if other == path:
                continue
            found.append(other)
            if len(found) > MAX_CALLER_FILES:
                return []  # too common a name: unknown
        return [c for c in (self.context(o) for o in found) if c is not None]

    def callers(self, ctx: FileContext, func: ast.AST) -> list[tuple[FileContext, ast.Call]]:
        """Calls in other listed files that run ``func`` (a top-level function of ``ctx``, or a class's ``__init__``)."""
        owner = func
        cls = ctx.enclosing_class(func)
        if cls is not None:
            if getattr(func, "name", None) != "__init__" or cls not in ctx.tree.body:
                return []
            owner = cls
        elif func not in ctx.tree.body:
            return []
        path = getattr(ctx, "path", None)
        if path is None:
            return []
        name = owner.name  # type: ignore[attr-defined]
        key = (path, name)
        if self._deps:
            self._deps[-1]["<listing>"] = self.listing_key()
        if key in self._caller_cache:
            return self._reopen(self._caller_cache[key])
        found: list[tuple[FileContext, ast.Call]] = []
        # a caller names the function and imports it: through its module's name or its package's
        stem = os.path.splitext(os.path.basename(path))[0]
        package = os.path.basename(os.path.dirname(path))
        hints = (stem,) if stem != "__init__" else (package,)
        hints += (package,)
        candidates = []
        for other in self._files_with(name):
            if other == path:
                continue
            text = self._text(other)
            if text is None or not any(h in text for h in hints):
                continue
            candidates.append(other)
        if len(candidates) > MAX_CALLER_FILES:
            self._caller_cache[key] = []
            return []  # too common a name to bind: unknown, so no finding rests on it
        for other in candidates:
            octx = self.context(other)
            if octx is None:
                continue
            for call in octx.calls_named(name):
                target = self.definition(octx, call.func)
                if target is not None and target.ctx is ctx and target.node is owner:
                    found.append((octx, call))
        self._caller_cache[key] = [(c.path, _span(call)) for c, call in found if c.path is not None]
        return found

    def _reopen(self, positions: list[tuple[str, tuple[int, int, int, int]]]) -> list[tuple[FileContext, ast.Call]]:
        """The calls at these spans, in freshly opened contexts (``f(x).g()`` and ``f(x)`` start alike: the span tells)."""
        found = []
        for path, span in positions:
            octx = self.context(path)
            if octx is None:
                continue
            for call in octx.calls():
                if _span(call) == span:
                    found.append((octx, call))
                    break
        return found


def _span(node: ast.AST) -> tuple[int, int, int, int]:
    return (node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0)  # type: ignore[attr-defined]


def _import_statements(node: ast.stmt) -> Iterator[ast.Import | ast.ImportFrom]:
    """Imports at module level, including those under ``if``/``try`` (optional imports)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        yield node
    elif isinstance(node, (ast.If, ast.Try)):
        for child in (*node.body, *getattr(node, "orelse", ()), *getattr(node, "finalbody", ())):
            yield from _import_statements(child)
        for handler in getattr(node, "handlers", ()):
            for child in handler.body:
                yield from _import_statements(child)


def _bind_import(index: ProjectIndex, importer: str, stmt: ast.Import | ast.ImportFrom, table: dict) -> None:
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            path = index.module_file(importer, alias.name)
            if path is None:
                continue
            if alias.asname:
                table.setdefault(alias.asname, (path, None))
            elif "." not in alias.name:
                table.setdefault(alias.name, (path, None))
        return
    module = stmt.module or ""
    for alias in stmt.names:
        if alias.name == "*":
            continue
        local = alias.asname or alias.name
        sub = index.module_file(importer, f"{module}.{alias.name}" if module else alias.name, stmt.level)
        if sub is not None:  # from pkg import submodule
            table.setdefault(local, (sub, None))
            continue
        path = index.module_file(importer, module, stmt.level) if (module or stmt.level) else None
        if path is not None:
            table.setdefault(local, (path, alias.name))


def _top_level(ctx: FileContext, name: str) -> ast.ClassDef | FunctionNode | None:
    table = ctx.__dict__.get("_project_top_level")
    if table is None:
        table = {}
        for node in ctx.tree.body:
            for item in _defs(node):
                table.setdefault(item.name, item)
        ctx.__dict__["_project_top_level"] = table
    return table.get(name)


def _defs(node: ast.stmt) -> Iterator[ast.ClassDef | FunctionNode]:
    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        yield node
    elif isinstance(node, (ast.If, ast.Try)):
        for child in (*node.body, *getattr(node, "orelse", ())):
            yield from _defs(child)


def project_of(ctx: FileContext) -> ProjectIndex | None:
    """The index ``ctx`` was opened in, if any (a file analysed alone has none)."""
    return getattr(ctx, "project", None)
