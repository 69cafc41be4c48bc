"""The ``loss-rewrapped-after-graph-cut`` rule: the loss is cut from the graph and re-wrapped with `requires_grad=True` so `backward()` runs."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import gradient_paths
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.training_step_model import dedupe, loop_model, step_loops
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_CUT_CALLS = {"float", "int"}

_TENSOR_FACTORIES = {"torch.tensor", "torch.as_tensor", "torch.Tensor", "torch.FloatTensor", "torch.autograd.Variable", "Variable"}


def _cut_in(ctx: FileContext, node: ast.AST, depth: int = 0) -> ast.AST | None:
    """The first `.item()` / `.detach()` / `.data` / `.numpy()` / `.tolist()` / `float()` found in ``node``."""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            method = sub.func.attr if isinstance(sub.func, ast.Attribute) else None
            if method in {"item", "detach", "numpy", "tolist"} or (ctx.qualname(sub) or "") in _CUT_CALLS:
                return sub
            callee = ctx.callee_definition(sub) if depth < 2 else None
            if callee is not None:
                # a helper that returns a Python/NumPy number (a metric): look at what it returns
                for ret in ast.walk(callee):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        found = _cut_in(ctx, ret.value, depth + 1)
                        if found is not None:
                            return found
        if isinstance(sub, ast.Attribute) and sub.attr == "data" and isinstance(sub.ctx, ast.Load):
            return sub
        if isinstance(sub, ast.Name) and depth < 3:
            value = ctx.value_of(sub)
            if value is not None and value is not sub:
                found = _cut_in(ctx, value, depth + 1)
                if found is not None:
                    return found
    return None


@register_rule
class LossRewrappedAfterGraphCut(Rule):
    """The loss is cut from the graph and re-wrapped with `requires_grad=True` so `backward()` runs.

    What it finds: a backpropagated loss built as `torch.tensor(x.item(), requires_grad=True)`
    (or from `.detach()`, `.data`, `.numpy()`, `.tolist()`, `float()`), or a loss on which
    `loss.requires_grad = True` / `loss.requires_grad_()` is set before `backward()`, in a loop that
    steps an optimizer.
    Why it matters: this is the usual "fix" for "element 0 of tensors does not require grad". The
    new tensor is a leaf with no history, so `backward()` succeeds but no gradient reaches any
    model parameter: the optimizer steps on zero or None gradients and the loss never improves.
    How to confirm: after `backward()`, check `all(p.grad is None for p in model.parameters())`: it is
    True.
    What to do instead: compute the loss with tensor operations from the model output, never through
    Python numbers or NumPy; if backward complains that the loss does not require grad, find the
    `.detach()`, `.item()` or `torch.no_grad()` that cut the graph and remove it.
    """

    id = "loss-rewrapped-after-graph-cut"
    category = "training-loop"
    severity = "error"
    reach = "project"
    triggers = ("requires_grad",)
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        found = []
        for trace in model.traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or not isinstance(event.loss, ast.Name):
                        continue
                    hit = self._rewrap(ctx, event.loss)
                    if hit is not None:
                        found.append(self.finding(ctx, hit[0], hit[1].format(where=event.where()),
                                                  next_test="after backward(), check `all(p.grad is None for p in model.parameters())`: it is True"))
        yield from dedupe(iter(found))

    def _rewrap(self, ctx: FileContext, loss: ast.Name):
        scope = ctx.enclosing_function(loss) or ctx.tree
        entries = ctx.assignments(scope).get(loss.id, [])
        for line, stmt, value in entries:
            if line > loss.lineno or not isinstance(value, ast.Call):
                continue
            qn = ctx.qualname(value) or ""
            rg = next((kw.value for kw in value.keywords if kw.arg == "requires_grad"), None)
            if qn in _TENSOR_FACTORIES and isinstance(rg, ast.Constant) and rg.value is True and value.args:
                cut = _cut_in(ctx, value.args[0])
                text = f"`{ctx.segment(cut, 60)}`" if cut is not None else None
                if cut is None:
                    # a number computed through a helper of another module (a NumPy metric): follow the value there
                    f = gradient_paths.flow(ctx, value.args[0])
                    if f.severed and f.where_ctx is not None and isinstance(f.where, ast.expr):
                        text = f"`{f.where_ctx.segment(f.where, 60)}` ({f.where_ctx.display_path} line {f.where.lineno})"
                if text is not None:
                    return stmt, (
                        f"`{loss.id}` is rebuilt at line {line} as a new leaf tensor from {text}, which has no"
                        " autograd history: backward at {where} runs but no gradient reaches the model"
                    )
        for node in ctx.walk_scope(scope):
            if getattr(node, "lineno", 10**9) > loss.lineno:
                continue
            target = None
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "requires_grad" and isinstance(t.value, ast.Name) and t.value.id == loss.id:
                        if isinstance(node.value, ast.Constant) and node.value.value is True:
                            target = node
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
                if isinstance(node.func.value, ast.Name) and node.func.value.id == loss.id:
                    flag = node.args[0] if node.args else None
                    if flag is None or (isinstance(flag, ast.Constant) and flag.value is True):
                        target = node
            if target is not None:
                return target, (
                    f"`{loss.id}` needs requires_grad set by hand at line {target.lineno}: it was not produced by the model's"
                    " graph, so backward at {where} runs but no gradient reaches the model"
                )
        return None
