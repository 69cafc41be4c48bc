"""The ``autograd-grad-without-create-graph`` rule: a derivative taken with `torch.autograd.grad` without
`create_graph=True` flows into a loss that is backpropagated (a PINN residual that trains nothing)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

GRAD = "torch.autograd.grad"
# calls a derivative may pass through and still be part of the same residual (math on tensors, not a model)
_MATH_FUNCS = {
    "torch.mean", "torch.sum", "torch.square", "torch.abs", "torch.pow", "torch.sqrt", "torch.norm", "torch.linalg.norm",
    "torch.cat", "torch.stack", "torch.mul", "torch.add", "torch.sub", "torch.div", "torch.exp", "torch.sin", "torch.cos",
    "torch.tanh", "torch.nn.functional.mse_loss", "torch.nn.functional.l1_loss", "torch.nn.functional.smooth_l1_loss",
    "torch.nn.functional.huber_loss", "sum", GRAD,
}
_MATH_METHODS = {"mean", "sum", "pow", "square", "abs", "sqrt", "norm", "reshape", "view", "squeeze", "unsqueeze",
                 "flatten", "mul", "add", "sub", "div", "exp", "sin", "cos", "tanh", "T", "t"}


def _create_graph(call: ast.Call) -> bool | None:
    """True/False when ``create_graph`` is given as a constant; False when absent; None when not a constant."""
    for kw in call.keywords:
        if kw.arg == "create_graph":
            return kw.value.value if isinstance(kw.value, ast.Constant) else None
        if kw.arg is None:
            return None  # **kwargs: unknown
    if len(call.args) >= 5:
        arg = call.args[4]
        return arg.value if isinstance(arg, ast.Constant) else None
    return False


def _inputs(call: ast.Call) -> ast.AST | None:
    for kw in call.keywords:
        if kw.arg == "inputs":
            return kw.value
    return call.args[1] if len(call.args) >= 2 else None


def _names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for elt in target.elts for n in _names(elt)]
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return []


class _Taint:
    """Does an expression carry a tainted value through arithmetic only (no call to a model or a helper)?"""

    def __init__(self, ctx: FileContext, names: set[str], calls: set[ast.Call], funcs: set[str]) -> None:
        self.ctx, self.names, self.calls, self.funcs = ctx, names, calls, funcs

    def carries(self, node: ast.AST | None) -> bool:
        if node is None:
            return False
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.Call):
            if node in self.calls:
                return True
            func = node.func
            qual = self.ctx.qualname(node) or ""
            if isinstance(func, ast.Name) and func.id in self.funcs:
                return True
            if isinstance(func, ast.Attribute) and func.attr in _MATH_METHODS and self.carries(func.value):
                return True  # x.pow(2).mean(): a method of the tensor itself (.detach() is not one of them)
            if qual in _MATH_FUNCS:
                return any(self.carries(a) for a in node.args) or any(self.carries(k.value) for k in node.keywords)
            return False
        if isinstance(node, ast.BinOp):
            return self.carries(node.left) or self.carries(node.right)
        if isinstance(node, ast.UnaryOp):
            return self.carries(node.operand)
        if isinstance(node, ast.Subscript):
            return self.carries(node.value)
        if isinstance(node, ast.Attribute):
            return node.attr in _MATH_METHODS and self.carries(node.value)
        if isinstance(node, (ast.Tuple, ast.List)):
            return any(self.carries(e) for e in node.elts)
        if isinstance(node, ast.IfExp):
            return self.carries(node.body) or self.carries(node.orelse)
        return False


@register_rule
class AutogradGradWithoutCreateGraph(Rule):
    """A derivative taken with `torch.autograd.grad` without `create_graph=True` is part of a backpropagated loss.

    What it finds: a `torch.autograd.grad(u, x, ...)` call with respect to something other than parameters,
    without `create_graph=True`, whose result flows by arithmetic only (sums, products, squares, means,
    `F.mse_loss`, another `autograd.grad`, a helper function returning it) into a value on which `.backward()`
    is called: typically the residual of a physics-informed network, `u_xx = grad(u_x, x)[0]`. A derivative that
    goes through a model call first (an adversarial example built from the input gradient) is not reported.
    Why it matters: without `create_graph` the returned derivative is a plain tensor with no history, so the
    loss term built on it contributes no gradient to the network's weights: the PDE residual trains nothing,
    while the run raises no error and the boundary terms still fall.
    How to confirm: `print(u_xx.requires_grad, u_xx.grad_fn)` after the call prints `False None`; `mlsleuth trace`
    reports `pinn-derivative-detached` and the loss terms' gradient norms.
    What to do instead: pass `create_graph=True` to every `autograd.grad` whose result enters the loss.
    """

    id = "autograd-grad-without-create-graph"
    category = "loss"
    severity = "error"
    triggers = ("grad",)
    requires = (("backward",), ("autograd",))

    def check(self, ctx: FileContext):
        sites = [c for c in ctx.calls() if ctx.qualname(c) == GRAD and _create_graph(c) is False]
        sites = [c for c in sites if not self._wrt_parameters(ctx, c)]
        if not sites:
            return
        scopes = [ctx.tree, *ctx.functions]
        for site in sites:
            if self._reaches_backward(ctx, site, scopes):
                yield self.finding(
                    ctx, site,
                    f"`{ctx.segment(site, 70)}` differentiates without create_graph=True, and its result is part of the loss "
                    "backpropagated later: that term is a constant and trains nothing",
                    next_test="print(result.requires_grad, result.grad_fn) after the call: False None; or run `mlsleuth trace` "
                              "(pinn-derivative-detached) to see the term's gradient norm",
                    fix="add create_graph=True to the torch.autograd.grad call",
                )

    @staticmethod
    def _wrt_parameters(ctx: FileContext, call: ast.Call) -> bool:
        inputs = _inputs(call)
        text = ctx.segment(inputs, 200) if inputs is not None else ""
        return "param" in text.lower() or "weight" in text.lower()

    def _reaches_backward(self, ctx: FileContext, site: ast.Call, scopes: list) -> bool:
        calls: set[ast.Call] = {site}
        funcs: set[str] = set()
        per_scope: dict[int, set[str]] = {id(s): set() for s in scopes}
        for _ in range(4):  # a few rounds: helper functions returning the tainted value, loop-carried sums
            changed = False
            for scope in scopes:
                names = per_scope[id(scope)]
                taint = _Taint(ctx, names, calls, funcs)
                for node in ctx.walk_scope(scope):
                    if isinstance(node, ast.Assign) and taint.carries(node.value):
                        for t in node.targets:
                            new = set(_names(t)) - names
                            if new:
                                names |= new
                                changed = True
                    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None and taint.carries(node.value):
                        new = set(_names(node.target)) - names
                        if new:
                            names |= new
                            changed = True
                    elif isinstance(node, ast.Return) and scope is not ctx.tree and taint.carries(node.value):
                        if scope.name not in funcs:
                            funcs.add(scope.name)
                            changed = True
                    elif isinstance(node, ast.Call) and self._backward_of(ctx, node, taint):
                        return True
            if not changed:
                return False
        return False

    @staticmethod
    def _backward_of(ctx: FileContext, call: ast.Call, taint: _Taint) -> bool:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "backward":
            return taint.carries(func.value)
        if (ctx.qualname(call) or "") == "torch.autograd.backward" and call.args:
            return taint.carries(call.args[0])
        return False
