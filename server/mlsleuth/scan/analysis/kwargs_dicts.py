"""What a keyword-argument dict holds when it is unpacked into a call.

Scripts often collect a call's options in a dict and pass it with ``**``::

    train_kwargs = {"batch_size": args.batch_size}
    if use_cuda:
        train_kwargs.update({"num_workers": 1, "shuffle": True})
    loader = DataLoader(dataset, **train_kwargs)

:func:`paths_at` follows such a dict through the statements of its function
(or the module) up to the call, branch by branch, and answers with one
*outcome* per control-flow path: for each key asked about, the value it holds
there (with the statement that set it), or ``None`` when the key is absent.
It understands dict literals (``{**base, "k": v}``), ``dict(...)``,
``.copy()``, ``.update(...)``, ``d["k"] = v``, ``.setdefault``, ``.pop``,
``del d["k"]`` and ``|=``, and follows other dicts merged in by name.

The answer is ``None`` (unknown) whenever the dict is not fully visible: a
function parameter or a global, passed to a function that might change it,
given computed keys, and so on. Callers must then stay silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from itertools import product

from mlsleuth.scan.analysis.context import FileContext

MAX_DEPTH = 4
MAX_PATHS = 64


@dataclass(frozen=True, eq=False)
class Setting:
    """A key's value on one path, and the statement (in the followed dict's own scope) that put it there."""

    value: ast.expr
    site: ast.AST


Outcome = tuple  # one entry per asked key: Setting | None
_READ_METHODS = {"copy", "get", "items", "keys", "values", "__contains__"}


class Unknown(Exception):
    """The dict cannot be followed with confidence."""


def paths_at(ctx: FileContext, name: ast.Name, keys: tuple[str, ...], depth: int = 0) -> set[Outcome] | None:
    """The outcomes of the dict ``name`` (a ``Name`` being read) at that read, or None when unknown."""
    try:
        return _Follower(ctx, name, keys, depth).run()
    except Unknown:
        return None


def merge(base: set[Outcome], extra: set[Outcome]) -> set[Outcome]:
    """``base.update(extra)`` on every pair of paths: keys ``extra`` sets win."""
    found = {tuple(e if e is not None else b for b, e in zip(old, new)) for old, new in product(base, extra)}
    if len(found) > MAX_PATHS:
        raise Unknown
    return found


class _Follower:
    def __init__(self, ctx: FileContext, name: ast.Name, keys: tuple[str, ...], depth: int) -> None:
        if depth > MAX_DEPTH:
            raise Unknown
        self.ctx = ctx
        self.name = name.id
        self.stop = name
        self.keys = keys
        self.depth = depth
        self.scope = ctx.enclosing_function(name) or ctx.tree
        self.on_path = set(ctx.ancestors(name))

    def run(self) -> set[Outcome]:
        try:
            state = self._block(self.scope.body, None)
        except _Stop as stop:
            state = stop.state
        if state is None:
            raise Unknown  # never bound in this scope: a parameter, a global, an import
        return state

    # -- statements -------------------------------------------------------------------------
    def _block(self, stmts: list[ast.stmt], state: set[Outcome] | None) -> set[Outcome] | None:
        for stmt in stmts:
            if stmt in self.on_path:
                raise _Stop(self._enter(stmt, state))
            state = self._stmt(stmt, state)
        return state

    def _enter(self, stmt: ast.stmt, state: set[Outcome] | None) -> set[Outcome] | None:
        """The state where the read happens, inside ``stmt`` (the statement that contains it)."""
        blocks = [getattr(stmt, f, None) for f in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(stmt, "handlers", [])] + [c.body for c in getattr(stmt, "cases", [])]
        for block in blocks:
            if isinstance(block, list) and any(s in self.on_path for s in block):
                try:
                    return self._block(block, state)
                except _Stop as stop:
                    return stop.state
        return state  # the read is in the statement's own expressions

    def _stmt(self, stmt: ast.stmt, state: set[Outcome] | None) -> set[Outcome] | None:
        if not self._touches(stmt):
            return state
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._own_local(stmt):
            return state  # another variable of the same name, local to the nested function
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            raise Unknown  # a nested function or class that could change the dict
        if isinstance(stmt, ast.If):
            self._reads_only(stmt.test)
            return self._union(self._branch(stmt.body, state), self._branch(stmt.orelse, state))
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            self._reads_only(stmt.iter if not isinstance(stmt, ast.While) else stmt.test)
            if not isinstance(stmt, ast.While):
                self._reads_only(stmt.target)
            looped = self._union(state, self._branch(stmt.body, state))  # the body may run zero times
            return self._branch(stmt.orelse, looped)
        if isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                self._reads_only(item)
            return self._branch(stmt.body, state)
        if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            done = self._branch(stmt.body, state)
            for handler in stmt.handlers:
                done = self._union(done, self._branch(handler.body, state))
            return self._branch(stmt.finalbody, self._branch(stmt.orelse, done))
        if isinstance(stmt, ast.Match):
            self._reads_only(stmt.subject)
            results = [self._branch(case.body, state) for case in stmt.cases]
            out = state
            for r in results:
                out = self._union(out, r)
            return out
        return self._simple(stmt, state)

    def _branch(self, stmts: list[ast.stmt], state: set[Outcome] | None) -> set[Outcome] | None:
        return self._block(stmts, state)

    @staticmethod
    def _union(a: set[Outcome] | None, b: set[Outcome] | None) -> set[Outcome] | None:
        if a is None or b is None:
            if a is None and b is None:
                return None
            raise Unknown  # bound on one path only
        found = a | b
        if len(found) > MAX_PATHS:
            raise Unknown
        return found

    def _simple(self, stmt: ast.stmt, state: set[Outcome] | None) -> set[Outcome] | None:
        """A statement that mentions the dict: a binding, a change we understand, or harmless reads."""
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if len(targets) == 1 and isinstance(targets[0], ast.Name) and targets[0].id == self.name:
                return self._relabel(self._value(stmt.value, state), stmt)
            if len(targets) == 1 and self._is_item(targets[0]):
                self._reads_only(stmt.value)
                return self._set(state, targets[0].slice, stmt.value, stmt)  # type: ignore[attr-defined]
            if any(self._touches(t) for t in targets):
                raise Unknown
            self._reads_only(stmt.value)
            return state
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == self.name:
            if not isinstance(stmt.op, ast.BitOr) or state is None:
                raise Unknown
            return merge(state, self._relabel(self._value(stmt.value, None), stmt))
        if isinstance(stmt, ast.Delete) and len(stmt.targets) == 1 and self._is_item(stmt.targets[0]):
            return self._drop(state, stmt.targets[0].slice)  # type: ignore[attr-defined]
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and self._is_own_method(stmt.value):
            return self._method(stmt.value, state, stmt)
        self._reads_only(stmt)
        return state

    def _method(self, call: ast.Call, state: set[Outcome] | None, stmt: ast.stmt) -> set[Outcome] | None:
        method = call.func.attr  # type: ignore[attr-defined]
        if state is None:
            raise Unknown
        if method == "update":
            if len(call.args) > 1:
                raise Unknown
            for arg in call.args:
                state = merge(state, self._relabel(self._value(arg, state), stmt))
            for kw in call.keywords:
                if kw.arg is None:
                    state = merge(state, self._relabel(self._value(kw.value, state), stmt))
                else:
                    state = self._set(state, ast.Constant(kw.arg), kw.value, stmt)
            return state
        if method == "setdefault" and len(call.args) == 2 and not call.keywords:
            key = self._key(call.args[0])
            if key is None:
                return state
            i = self.keys.index(key)
            return {o if o[i] is not None else o[:i] + (Setting(call.args[1], stmt),) + o[i + 1 :] for o in state}
        if method == "pop" and call.args:
            return self._drop(state, call.args[0])
        if method == "clear" and not call.args:
            return {tuple(None for _ in self.keys)}
        if method in _READ_METHODS:
            return state
        raise Unknown

    # -- values --------------------------------------------------------------------------------
    def _value(self, expr: ast.AST, state: set[Outcome] | None) -> set[Outcome]:
        """The outcomes of a dict expression."""
        empty = tuple(None for _ in self.keys)
        if isinstance(expr, ast.Dict):
            out = {empty}
            for k, v in zip(expr.keys, expr.values):
                if k is None:
                    out = merge(out, self._value(v, state))
                else:
                    out = self._set(out, k, v, v)
            return out
        if isinstance(expr, ast.Call):
            qn = self.ctx.qualname(expr) or ""
            if qn == "dict":
                if len(expr.args) > 1:
                    raise Unknown
                out = self._value(expr.args[0], state) if expr.args else {empty}
                for kw in expr.keywords:
                    if kw.arg is None:
                        out = merge(out, self._value(kw.value, state))
                    else:
                        out = self._set(out, ast.Constant(kw.arg), kw.value, kw.value)
                return out
            if qn in {"copy.copy", "copy.deepcopy"} and len(expr.args) == 1:
                return self._value(expr.args[0], state)
            if isinstance(expr.func, ast.Attribute) and expr.func.attr == "copy" and not expr.args:
                return self._value(expr.func.value, state)
            raise Unknown
        if isinstance(expr, ast.Name):
            if expr.id == self.name:
                if state is None:
                    raise Unknown
                return state
            other = paths_at(self.ctx, expr, self.keys, self.depth + 1)
            if other is None:
                raise Unknown
            return other
        raise Unknown

    def _relabel(self, outcomes: set[Outcome], site: ast.AST) -> set[Outcome]:
        """Values merged in from another expression are attributed to the statement that merged them."""
        return {tuple(None if e is None else Setting(e.value, site) for e in o) for o in outcomes}

    def _key(self, node: ast.AST) -> str | None:
        """The asked-about key ``node`` names, None for another constant key; Unknown for a computed key."""
        if isinstance(node, ast.Constant):
            return node.value if node.value in self.keys else None
        raise Unknown

    def _set(self, state: set[Outcome] | None, key_node: ast.AST, value: ast.expr, site: ast.AST) -> set[Outcome]:
        return self._put(state, key_node, Setting(value, site))

    def _drop(self, state: set[Outcome] | None, key_node: ast.AST) -> set[Outcome]:
        return self._put(state, key_node, None)

    def _put(self, state: set[Outcome] | None, key_node: ast.AST, entry: Setting | None) -> set[Outcome]:
        """Every path's outcome with the asked key ``key_node`` names set to ``entry`` (other keys pass through)."""
        if state is None:
            raise Unknown
        key = self._key(key_node)
        if key is None:
            return state
        i = self.keys.index(key)
        return {o[:i] + (entry,) + o[i + 1 :] for o in state}

    # -- uses of the name ------------------------------------------------------------------------
    def _touches(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == self.name for n in ast.walk(node))

    def _own_local(self, func: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        """``func`` has a parameter or a local binding of the same name (so it never sees the dict)."""
        args = func.args
        params = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None}
        if self.name in params:
            return True
        return any(isinstance(n, ast.Name) and n.id == self.name and isinstance(n.ctx, ast.Store) for n in ast.walk(func))

    def _is_item(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == self.name

    def _is_own_method(self, call: ast.Call) -> bool:
        func = call.func
        return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self.name

    def _reads_only(self, node: ast.AST | None) -> None:
        """Raise Unknown unless every mention of the dict under ``node`` only reads it."""
        if node is None:
            return
        for n in ast.walk(node):
            if not (isinstance(n, ast.Name) and n.id == self.name):
                continue
            parent = self.ctx.parent(n)
            if not isinstance(n.ctx, ast.Load):
                raise Unknown
            if isinstance(parent, ast.keyword) and parent.arg is None:
                continue  # f(**d): the callee gets a copy
            if isinstance(parent, ast.Subscript) and parent.value is n and isinstance(parent.ctx, ast.Load):
                continue
            if isinstance(parent, ast.Attribute) and parent.attr in _READ_METHODS:
                continue
            if isinstance(parent, (ast.Compare, ast.FormattedValue)):
                continue
            if isinstance(parent, ast.Call) and (self.ctx.qualname(parent) or "") in {"print", "len", "str", "repr"}:
                continue
            raise Unknown


class _Stop(Exception):
    """Carries the state at the read out of the nested blocks around it."""

    def __init__(self, state: set[Outcome] | None) -> None:
        super().__init__()
        self.state = state
