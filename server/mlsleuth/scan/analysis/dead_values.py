"""Dead values: a tensor computed from live values whose result nothing reads.

Two shapes, both decided inside one scope (a function body, or the body of a loop at module level):

* **overwritten unread** — ``h = self.drop(h)`` followed, in the same block and before any read of
  ``h``, by ``h = self.fc(x)``: the first result is lost (usually the second line meant ``h``). Plain
  arithmetic over variables counts here too (``total = ce + w * aux`` replaced by ``total = ce``);
* **never read** — ``aux = F.kl_div(...)`` and no expression of the scope (nested functions and
  lambdas included) ever reads ``aux``.

Only *pure transformations* count: calls of side-effect-free torch / ``torch.nn.functional``
functions, pure tensor methods, stateless layers of the enclosing module class (activations,
dropout, pooling, linear, conv, embedding, layer norm) and torch loss modules (as attributes, or
names bound in the function or at module level), and arithmetic over those, each taking at least
one variable as input; and calls of project functions, methods and module classes that
:mod:`~mlsleuth.scan.analysis.pure_functions` shows to be pure (no effect on their arguments,
attributes or globals; a value computed from their inputs returned). Factories (``torch.zeros``),
other project calls and whole models (which may have side effects: hooks, running statistics) and
anything with ``out=`` or ``inplace=True`` are never "pure", so their dead results are left alone. A scope that reads names
dynamically (``locals()``, ``vars()``, ``eval``, ``exec``) is skipped.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from mlsleuth.scan.analysis import pure_functions, pure_operations
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    keyword,
    same_tree,
)
from mlsleuth.scan.analysis.value_origins import words

_OBJECTIVE_WORDS = frozenset({"loss", "losses", "penalty", "reg", "regularizer", "regularization", "kl", "kld", "aux",
                              "objective", "cost"})
_DYNAMIC_READS = frozenset({"locals", "vars", "eval", "exec", "globals"})


@dataclass(frozen=True)
class DeadValue:
    """``name`` assigned by ``stmt`` and lost: ``overwritten_by`` is the statement that replaces it unread
    (None when nothing ever reads it)."""

    name: str
    stmt: ast.Assign | ast.AnnAssign
    value: ast.expr
    overwritten_by: ast.stmt | None


# Names that stand for modules, not values: reading them reads no variable.
MODULE_NAMES = frozenset({"torch", "F", "nn", "np"})


def _reads_a_variable(expr: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in MODULE_NAMES
               for n in ast.walk(expr))


def pure_transform(ctx: FileContext, expr: ast.AST) -> bool:
    """True when ``expr`` computes a new tensor from live values and has no other effect."""
    if isinstance(expr, ast.Call):
        if keyword(expr, "out") is not None or constant(keyword(expr, "inplace")) is True:
            return False
        tail = pure_operations.qual_tail(ctx, expr)
        if tail is not None:
            return tail in pure_operations.PURE_FUNCTIONS and _reads_a_variable(expr)
        method = call_method(expr)
        if method in pure_operations.PURE_METHODS and isinstance(expr.func, ast.Attribute):
            receiver = expr.func.value
            if isinstance(receiver, ast.Constant) or ctx.qualname(receiver) in ("torch", "numpy", "math"):
                return False
            if isinstance(receiver, ast.Call):
                return pure_transform(ctx, receiver) or _reads_a_variable(receiver) and _is_plain_access(receiver)
            return _is_plain_access(receiver)
        if pure_operations.stateless_layer(ctx, expr):
            return _reads_a_variable(expr)
        return _pure_project_call(ctx, expr)
    if isinstance(expr, ast.BinOp):
        sides = (expr.left, expr.right)
        return all(_harmless(ctx, s) for s in sides) and any(pure_transform(ctx, s) or _factory(ctx, s) for s in sides)
    if isinstance(expr, ast.UnaryOp):
        return pure_transform(ctx, expr.operand)
    return False


def _pure_project_call(ctx: FileContext, call: ast.Call) -> bool:
    """``helper(x)`` / ``self.block(h)`` running pure project code (:mod:`~mlsleuth.scan.analysis.pure_functions`)
    on arguments whose evaluation has no effect either."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    arguments = [*call.args, *(k.value for k in call.keywords)]
    if not arguments or not all(_harmless(ctx, a) for a in arguments) or not _reads_a_variable(call):
        return False
    if isinstance(call.func, ast.Attribute) and not _is_plain_access(call.func.value):
        return False
    return pure_functions.pure_call(ctx, call) is not None


def _is_plain_access(expr: ast.AST) -> bool:
    """A name, attribute chain or subscript of one: reading it has no effect."""
    while isinstance(expr, (ast.Attribute, ast.Subscript)):
        expr = expr.value
    return isinstance(expr, ast.Name)


def _factory(ctx: FileContext, expr: ast.AST) -> bool:
    """A torch tensor factory (``torch.randn_like(x)``, ``torch.ones(3)``): a tensor, made without side effects."""
    return isinstance(expr, ast.Call) and pure_operations.qual_tail(ctx, expr) in pure_operations.FACTORIES


def _harmless(ctx: FileContext, expr: ast.AST) -> bool:
    """Evaluating ``expr`` has no effect: a constant, a plain read, arithmetic over those, a pure call or a factory."""
    if isinstance(expr, ast.BinOp):
        return _harmless(ctx, expr.left) and _harmless(ctx, expr.right)
    if isinstance(expr, ast.UnaryOp):
        return _harmless(ctx, expr.operand)
    return isinstance(expr, ast.Constant) or _is_plain_access(expr) or pure_transform(ctx, expr) or _factory(ctx, expr)


def _computed_arithmetic(ctx: FileContext, expr: ast.AST) -> bool:
    """``a + w * b``: arithmetic over variables (and constants, plain reads, pure calls): no effect but its value."""
    return isinstance(expr, (ast.BinOp, ast.UnaryOp)) and _harmless(ctx, expr) and _reads_a_variable(expr)


def _target_name(stmt: ast.stmt) -> tuple[str, ast.expr] | None:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.targets[0].id, stmt.value
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return stmt.target.id, stmt.value
    return None


def _within(ctx: FileContext, node: ast.AST, root: ast.AST) -> bool:
    """``node`` is ``root`` or lies under it."""
    if root is ctx.tree:
        return True
    current: ast.AST | None = node
    while current is not None:
        if current is root:
            return True
        current = ctx.parent(current)
    return False


def _names(ctx: FileContext) -> dict[str, list[ast.Name]]:
    """The file's Name nodes by identifier (built once per file: the searches below ask about one name at a
    time, and walking each statement again for every candidate was the slowest part of a scan)."""
    index = ctx.__dict__.get("_dead_values_names")
    if index is None:
        index = {}
        for n in ctx.nodes_of(ast.Name):
            index.setdefault(n.id, []).append(n)
        ctx.__dict__["_dead_values_names"] = index
    return index


def _loads(ctx: FileContext, node: ast.AST, name: str) -> bool:
    """Something under ``node`` reads ``name`` (``out -= d`` reads it too: into a view, it writes the base)."""
    for n in _names(ctx).get(name, ()):
        if isinstance(n.ctx, ast.Store):
            owner = ctx.parent(n)
            if not (isinstance(owner, ast.AugAssign) and owner.target is n):
                continue
        if _within(ctx, n, node):
            return True
    return False


def _stores(ctx: FileContext, node: ast.AST, name: str) -> bool:
    return any(isinstance(n.ctx, ast.Store) and _within(ctx, n, node) for n in _names(ctx).get(name, ()))


def _blocks(root: ast.AST) -> Iterator[list[ast.stmt]]:
    """Every statement list under ``root``, not entering nested functions or classes."""
    stack = [root]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
                stack.extend(s for s in block if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        for handler in getattr(node, "handlers", []) or []:
            yield handler.body
            stack.extend(s for s in handler.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        for case in getattr(node, "cases", []) or []:
            yield case.body
            stack.append(case)


def _declared_shared(ctx: FileContext, scope: ast.AST) -> set[str]:
    return {name for n in ctx.nodes_of(ast.Global, ast.Nonlocal) if _within(ctx, n, scope) for name in n.names}


def _reads_dynamically(ctx: FileContext, scope: ast.AST) -> bool:
    return any(isinstance(call.func, ast.Name) and call.func.id in _DYNAMIC_READS and _within(ctx, call, scope)
               for call in ctx.calls_named(*_DYNAMIC_READS))


def objective_name(name: str) -> bool:
    """``aux_loss``, ``total``-free names such as ``kl`` or ``penalty``: a name for a term of the training objective."""
    return bool(set(words(name)) & _OBJECTIVE_WORDS)


def _replaces(dead: ast.stmt, name: str, new_value: ast.expr) -> bool:
    """The new value is a different computation, not a deliberate swap or a leftover of an edit: not the same
    expression again (a duplicated line), not a plain read (``mask = window_mask``: another prepared value takes
    over), and neither expression contains the other (``y = a[i].reshape(s)`` kept above its edited
    ``y = a[i]``). For a loss term a plain read or a part of the old value is the bug itself (``loss = ce + w * aux``
    then ``loss = ce`` drops a term), so only a new value that recomputes the whole old one (``expected_loss =
    fetch(m)`` then ``expected_loss = fetch(m)[2:]``) is excused there."""
    if same_tree(dead.value, new_value):
        return False
    if objective_name(name):
        return not any(same_tree(n, dead.value) for n in ast.walk(new_value))
    if isinstance(new_value, ast.Constant) or _is_plain_access(new_value):
        return False
    return not any(same_tree(n, new_value) for n in ast.walk(dead.value)) \
        and not any(same_tree(n, dead.value) for n in ast.walk(new_value))


def _containing_block(ctx: FileContext, stmt: ast.stmt) -> list[ast.stmt] | None:
    owner = ctx.parent(stmt)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(owner, field, None)
        if isinstance(block, list) and any(s is stmt for s in block):
            return block
    return None


def _overwriter(ctx: FileContext, stmt: ast.stmt, name: str) -> ast.stmt | None:
    """The statement after ``stmt`` that replaces ``name`` before anything reads it, or None. The search goes on
    after the end of an ``if`` / ``with`` body (``if train: h = drop(h0)`` then ``h = fc(h0)``), never past the
    end of a loop body (the next iteration may read it) or out of a ``try``."""
    current = stmt
    while True:
        block = _containing_block(ctx, current)
        if block is None:
            return None
        index = next(i for i, s in enumerate(block) if s is current)
        for later in block[index + 1:]:
            if _loads(ctx, later, name):
                return None
            target = _target_name(later)
            if target is not None and target[0] == name:
                return later if _replaces(stmt, name, target[1]) else None
            if _stores(ctx, later, name) or isinstance(later, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                return None
        owner = ctx.parent(current)
        if not isinstance(owner, (ast.If, ast.With, ast.AsyncWith)):
            return None
        current = owner


def dead_values(ctx: FileContext) -> Iterator[DeadValue]:
    """Every pure tensor result the file computes and loses (see the module docstring)."""
    for scope, module_loop in _scopes(ctx):
        if _reads_dynamically(ctx, scope):
            continue
        shared = _declared_shared(ctx, scope)
        for block in _blocks(scope):
            for index, stmt in enumerate(block):
                target = _target_name(stmt)
                if target is None or target[0].startswith("_") or target[0] in shared:
                    continue
                name, value = target
                pure = pure_transform(ctx, value)
                if not pure and not _computed_arithmetic(ctx, value):
                    continue
                replaced = _overwriter(ctx, stmt, name)
                if replaced is not None:
                    yield DeadValue(name, stmt, value, replaced)
                elif pure and not _read_anywhere(ctx, scope, name, module_loop):
                    yield DeadValue(name, stmt, value, None)


def _read_anywhere(ctx: FileContext, scope: ast.AST, name: str, module_loop: bool) -> bool:
    return _loads(ctx, ctx.tree if module_loop else scope, name)


def _scopes(ctx: FileContext) -> Iterator[tuple[ast.AST, bool]]:
    """Function bodies, and the outermost loops at module level (a script's training loop, also under
    ``if __name__ == "__main__":`` or a ``with`` block)."""
    for func in ctx.functions:
        yield func, False
    stack: list[ast.stmt] = list(ctx.tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
            yield stmt, True
        elif isinstance(stmt, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            for field in ("body", "orelse", "finalbody"):
                stack.extend(getattr(stmt, field, []) or [])
            for handler in getattr(stmt, "handlers", []) or []:
                stack.extend(handler.body)
