"""The ``repeated-mutable-element`` rule: ``[[]] * n`` then one element mutated, which mutates them all."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.registry import Rule, register_rule

_MUTABLE_CALLS = {"list", "dict", "set", "bytearray", "defaultdict", "collections.defaultdict", "Counter",
                  "collections.Counter", "OrderedDict", "collections.OrderedDict", "deque", "collections.deque"}
_ARRAY_FACTORIES = {"zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array",
                    "tensor", "arange"}
_ARRAY_LIBRARIES = ("numpy", "torch")
_MUTATING_METHODS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "remove", "clear",
                     "appendleft", "add_", "sub_", "mul_", "div_", "fill_", "copy_", "zero_", "clamp_"}


def _mutable(ctx: FileContext, elem: ast.AST) -> bool:
    if isinstance(elem, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(elem, ast.BinOp) and isinstance(elem.op, ast.Mult):  # [0] * k: a list
        return any(isinstance(side, ast.List) for side in (elem.left, elem.right))
    if isinstance(elem, ast.Call):
        name = ctx.qualname(elem) or ""
        if name in _MUTABLE_CALLS:
            return True
        head, _, fn = name.rpartition(".")
        return fn in _ARRAY_FACTORIES and head.split(".")[0] in _ARRAY_LIBRARIES
    return False


def _repeated_element(ctx: FileContext, value: ast.AST | None) -> ast.AST | None:
    """``[elem] * n`` or ``n * [elem]`` with one mutable ``elem``: that element."""
    if not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Mult):
        return None
    for seq, count in ((value.left, value.right), (value.right, value.left)):
        if isinstance(seq, ast.List) and len(seq.elts) == 1 and not isinstance(count, ast.List) and _mutable(ctx, seq.elts[0]):
            return seq.elts[0]
    return None


def _element_mutation(node: ast.AST, holder: str) -> bool:
    """``holder[i].append(...)``, ``holder[i][j] = ...``, ``holder[i][j] += ...``, ``holder[i] += ...`` (in place)."""
    def is_element(expr: ast.AST) -> bool:
        return isinstance(expr, ast.Subscript) and dotted(expr.value) == holder
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return call_method(node) in _MUTATING_METHODS and is_element(node.func.value)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
    for t in targets:
        if isinstance(t, ast.Subscript) and is_element(t.value):
            return True
        if isinstance(node, ast.AugAssign) and is_element(t):
            return True
    return False


@register_rule
class RepeatedMutableElement(Rule):
    """`[[]] * n` (or `[np.zeros(k)] * n`) holds one object n times; mutating one element mutates all.

    What it finds: a list made by repeating one mutable element (`[[]] * n`, `[[0] * k] * n`, `[{}] * n`,
    `[np.zeros(d)] * n`, `[torch.zeros(d)] * n`) whose elements are later changed in place through an index:
    `lists[c].append(x)`, `grid[i][j] = v`, `sums[c] += v` (arrays and tensors add in place).
    Why it matters: the multiplication copies the reference, not the object. Every per-class list, confusion-matrix
    row or per-layer buffer is the same object, so each update lands in all of them: per-class metrics all equal
    the overall one, a confusion matrix has identical rows. Nothing fails.
    How to confirm: `x = [[]] * 3; x[0].append(1); print(x)` prints `[[1], [1], [1]]`; or check
    `x[0] is x[1]`.
    What to do instead: build a new element for each slot: `[[] for _ in range(n)]`,
    `[[0] * k for _ in range(n)]`, `np.zeros((n, d))`.
    """

    id = "repeated-mutable-element"
    category = "evaluation"
    severity = "warning"
    triggers = ("] *", "* [")

    def check(self, ctx: FileContext):
        for assign in ctx.nodes_of(ast.Assign):
            if len(assign.targets) != 1 or _repeated_element(ctx, assign.value) is None:
                continue
            holder = dotted(assign.targets[0])
            if holder is None:
                continue
            scope = ctx.enclosing_class(assign) if holder.startswith("self.") else ctx.enclosing_function(assign)
            body = scope if scope is not None else ctx.tree
            for node in ast.walk(body):
                if getattr(node, "lineno", 0) > assign.lineno and _element_mutation(node, holder):
                    yield self.finding(
                        ctx, assign,
                        f"`{holder}` repeats one mutable object: the in-place change at line {node.lineno} "
                        "changes every element at once",
                        observation=f"{ctx.segment(assign)[:120]} ... line {node.lineno}: {ctx.segment(node)[:100]}",
                    )
                    break
