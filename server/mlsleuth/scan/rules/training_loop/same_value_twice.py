"""The ``same-value-twice`` rule: one value used on both sides where two different values belong (a copy-paste slip)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, call_method, dotted, same_tree
from mlsleuth.scan.registry import Rule, register_rule

_CHAINS = frozenset({"itertools.chain", "chain"})
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})


def _operand(expr: ast.AST) -> bool:
    """A value worth comparing: a variable, attribute, subscript or call (not a literal, where repeats are deliberate)."""
    return isinstance(expr, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))


def _has_parameters_call(expr: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and call_method(n) in _PARAMETER_METHODS for n in ast.walk(expr))


def _repeated(items: list[ast.expr]) -> ast.expr | None:
    """The first item that repeats an earlier one, where the items are parameter collections."""
    for i, item in enumerate(items):
        if _has_parameters_call(item) and any(same_tree(item, earlier) for earlier in items[:i]):
            return item
    return None


def _group_params(group: ast.expr) -> ast.expr | None:
    if isinstance(group, ast.Dict):
        for key, value in zip(group.keys, group.values):
            if isinstance(key, ast.Constant) and key.value == "params":
                return value
    return None


@register_rule
class SameValueTwice(Rule):
    """One value used twice where two different values belong: `x += x` after `x` was rebound, a module's parameters listed twice.

    What it finds: a statement that doubles an argument of its function after the function rebound it
    (`x = self.bn2(self.conv2(x))` ... `x += x`, where the input `x` was meant), and a collection of parameters
    for an optimizer that repeats the same module's parameters (`list(d1.parameters()) + list(d1.parameters())`,
    `itertools.chain(d1.parameters(), d1.parameters())`, two parameter groups with the same `params`). Other
    doublings are left alone: `x + x`, `loss -= loss` (a reset) and `ids + ids` (a list repeated) are common on
    purpose, and so is `torch.cat([x, x])` (doubling a batch for guidance).
    Why it matters: the second operand was meant to be another value, usually its neighbour: the residual input
    (`x += x` after the name `x` was reused for the branch output, so the block has no identity path), the second
    discriminator or encoder (which then never trains, while its loss still moves), the other statistic. The code
    runs, the shapes match, and the model trains worse or a component stays at its initialisation.
    How to confirm: print both operands' identities (`id(a) == id(b)`), or for a parameter list compare
    `len({id(p) for p in params})` with the parameter counts of every module that should be in it.
    What to do instead: keep the input under its own name (`identity = x` before the branch, then
    `x = x + identity`), and list each module once (`list(d1.parameters()) + list(d2.parameters())`).
    """

    id = "same-value-twice"
    category = "training-loop"
    severity = "warning"
    triggers = ("+", "chain", "params")

    def check(self, ctx: FileContext):
        for node in ctx.all_nodes:
            doubled = _doubled_name(node)
            if doubled is not None:
                if _shadowed_parameter(ctx, node, doubled):
                    yield self.finding(ctx, node, f"`{ctx.segment(node, 50)}` doubles `{doubled}`, but the argument `{doubled}` "
                                                  f"was rebound earlier in this function: the other operand was meant to be "
                                                  f"the original input (a skip connection's identity path?)")
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _operand(node.left) \
                    and same_tree(node.left, node.right) and _has_parameters_call(node.left):
                yield self.finding(ctx, node, f"the same parameters are listed twice (`{ctx.segment(node.left, 50)}`): "
                                              "a second module meant to be in this list never trains")
            elif isinstance(node, ast.Call) and (dotted(node.func) or "") in _CHAINS:
                repeat = _repeated(list(node.args))
                if repeat is not None:
                    yield self.finding(ctx, node, f"`{ctx.segment(repeat, 50)}` is chained twice: a second module meant "
                                                  "to be in this parameter list never trains")
            elif isinstance(node, ast.List) and len(node.elts) >= 2:
                groups = [_group_params(g) for g in node.elts]
                if all(g is not None for g in groups):
                    repeat = _repeated(groups)
                    if repeat is not None:
                        yield self.finding(ctx, node, f"two parameter groups hold the same `{ctx.segment(repeat, 50)}`: "
                                                      "a module meant for one of them never trains")


def _doubled_name(node: ast.AST) -> str | None:
    """``x`` for the statements ``x += x`` and ``x = x + x``."""
    if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and isinstance(node.target, ast.Name) \
            and isinstance(node.value, ast.Name) and node.value.id == node.target.id:
        return node.target.id
    if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
            and isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Add):
        name = node.targets[0].id
        left, right = node.value.left, node.value.right
        if isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id == right.id == name:
            return name
    return None


def _shadowed_parameter(ctx: FileContext, node: ast.stmt, name: str) -> bool:
    """``name`` is an argument of the enclosing function and some statement before ``node`` rebinds it."""
    func = ctx.enclosing_function(node)
    if func is None:
        return False
    params = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs}
    if name not in params:
        return False
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
               and (n.lineno, n.col_offset) < (node.lineno, node.col_offset) for n in ast.walk(func))
