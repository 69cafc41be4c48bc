"""The ``loss-accumulated-with-graph`` rule: the loss tensor itself is summed or collected across steps for logging."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import edits, value_origins
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off
from mlsleuth.scan.analysis.training_step_model import (
    Event,
    Trace,
    loop_model,
    step_loops,
)
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule
from mlsleuth.scan.rules.loop_rule_base import loop_line


def _backward_loss_names(trace: Trace, loop: ast.AST) -> dict[str, Event]:
    names: dict[str, Event] = {}
    for event in trace.in_loop(loop):
        if event.kind == "backward" and isinstance(event.loss, ast.Name):
            names.setdefault(event.loss.id, event)
    return names


_CUT_METHODS = {"item", "detach", "tolist", "numpy", "cpu"}


def _is_plain_loss_term(node: ast.AST, name: str) -> bool:
    """``loss`` or ``loss * bs`` (a tensor still attached to the graph), not ``loss.item()``."""
    if isinstance(node, ast.Name):
        return node.id == name
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _is_plain_loss_term(node.left, name) or _is_plain_loss_term(node.right, name)
    return False


def _reset_within(ctx: FileContext, loop: ast.AST, acc: str) -> bool:
    """``acc = 0`` / ``acc = []`` / ``acc.clear()`` inside the batch loop itself: the total only spans a
    window (the micro-batches of one optimizer step, a logging interval), so nothing grows over the epoch."""
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and any(ctx.segment(t) == acc for t in node.targets):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "clear" and ctx.segment(node.func.value) == acc:
            return True
    return False


@register_rule
class LossAccumulatedWithGraph(Rule):
    """The loss tensor itself is summed or collected across steps for logging.

    What it finds: `running_loss += loss` or `losses.append(loss)` inside a training loop, where
    `loss` is the tensor that is backpropagated in the same loop and the accumulator is only used for
    reporting (it is never backpropagated itself).
    Why it matters: each `+=` creates a new autograd node linking the running total to that step's
    graph, so every step's graph bookkeeping stays reachable for the whole epoch and device memory
    creeps up; the same pattern in a loop without `backward()` keeps every activation alive and ends
    in out-of-memory. The "average loss" printed is also a device tensor, which forces a sync.
    How to confirm: print `running_loss.grad_fn` (not None) and `torch.cuda.memory_allocated()` every
    100 steps: it grows steadily through the epoch.
    What to do instead: accumulate a number: `running_loss += loss.item()` (or `loss.detach()` if you
    want to avoid a sync each step). Accumulating under `torch.no_grad()` records no graph and is not
    flagged.
    """

    id = "loss-accumulated-with-graph"
    category = "training-loop"
    severity = "warning"
    triggers = ("backward",)
    requires = (("+=", "append"), (STEP_CALL,))
    fix_note = (
        "`running += loss` becomes `running += loss.item()` when every later use of `running` in the function (and of names "
        "computed from it) needs only a number: arithmetic, comparisons, `print`, `float`, `round`, `str`, f-strings; where "
        "it may be used as a tensor (a method call, returned, passed to another function) it becomes `running += "
        "loss.detach()`, which keeps the tensor and drops only the graph. `losses.append(loss)` becomes "
        "`losses.append(loss.detach())`. Safe: the values kept are the same."
    )

    def check(self, ctx):
        model = loop_model(ctx)
        done: set[int] = set()
        for trace in model.traces:
            for loop in step_loops(trace):
                if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                names = _backward_loss_names(trace, loop)
                if not names:
                    continue
                backwarded = {e.target for e in trace.events if e.kind == "backward" and e.target}
                backward_names = {
                    n.id for e in trace.events if e.kind == "backward" and e.loss is not None
                    for n in ast.walk(e.loss) if isinstance(n, ast.Name)
                }
                for node in ast.walk(loop):
                    if id(node) in done:
                        continue
                    hit = self._accumulation(ctx, node, names, backwarded, backward_names)
                    if hit is None or _reset_within(ctx, loop, hit[1]) or grad_off(ctx, node):
                        continue  # under no_grad the sum records no graph (a metric buffer filled in place)
                    done.add(id(node))
                    name, acc, how = hit
                    event = names[name]
                    yield self.finding(
                        ctx,
                        node,
                        f"`{how}` keeps the graph-attached loss tensor `{name}` (backpropagated at {event.where()}) in"
                        f" `{acc}` across iterations of the loop at line {loop_line(loop)}: memory grows step by step",
                        next_test=f"print `{acc}` once: it shows a grad_fn; log torch.cuda.memory_allocated() every 100 steps and watch it rise",
                    )

    def _accumulation(self, ctx, node, names, backwarded, backward_names):
        if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add):
            acc = ctx.segment(node.target)
            if acc in backwarded or (isinstance(node.target, ast.Name) and node.target.id in backward_names):
                return None
            for name in names:
                if _is_plain_loss_term(node.value, name) and not self._reassigned_to_number(ctx, node, name):
                    return name, acc, ctx.segment(node)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" and len(node.args) == 1:
            acc = ctx.segment(node.func.value)
            head = dotted(node.func.value)
            if head is None or head in backwarded or head.split(".")[-1] in backward_names or head in backward_names:
                return None
            arg = node.args[0]
            for name in names:
                if isinstance(arg, ast.Name) and arg.id == name and not self._reassigned_to_number(ctx, node, name):
                    return name, acc, ctx.segment(node)
        return None

    def fix(self, ctx: FileContext, finding) -> edits.Fix | None:
        return _fix(ctx, finding)

    @staticmethod
    def _reassigned_to_number(ctx: FileContext, node: ast.AST, name: str) -> bool:
        """``loss = loss.item()`` before the accumulation: the name holds a float there."""
        scope = ctx.enclosing_function(node) or ctx.tree
        value = None
        for line, _stmt, bound in ctx.assignments(scope).get(name, []):
            if line <= node.lineno:
                value = bound
        return _is_number(ctx, value, depth=0)


def _is_number(ctx: FileContext, value: ast.AST | None, depth: int) -> bool:
    """``loss.item()``, ``float(loss)``, or a call to a helper of this file whose every return is one."""
    if not isinstance(value, ast.Call) or depth > 2:
        return False
    method = value.func.attr if isinstance(value.func, ast.Attribute) else None
    if method in _CUT_METHODS or (ctx.qualname(value) or "") in {"float", "int"}:
        return True
    helper = ctx.callee_definition(value)
    if helper is None:
        return False
    returns = value_origins.returns(helper)
    return bool(returns) and all(_is_number(ctx, r, depth + 1) for r in returns)


_LOSS_NAME = re.compile(r"graph-attached loss tensor `([A-Za-z_][A-Za-z0-9_]*)`")
# calls that turn their argument into a number or text: a float works wherever the tensor did
_NUMBER_SINKS = {"print", "float", "round", "str", "format", "repr", "int", "math.isfinite", "math.isnan"}


def _fix(ctx: FileContext, finding) -> edits.Fix | None:
    named = _LOSS_NAME.search(finding.message)
    if named is None:
        return None
    loss = named.group(1)
    node = edits.node_at(ctx, finding, ast.AugAssign, ast.Call)
    if isinstance(node, ast.AugAssign):
        terms = [n for n in _loss_terms(node.value) if n.id == loss]
        cut = "item" if isinstance(node.target, ast.Name) and _only_numbers_need(ctx, node, node.target.id) else "detach"
    elif isinstance(node, ast.Call) and len(node.args) == 1:
        terms = [a for a in node.args if isinstance(a, ast.Name) and a.id == loss]
        cut = "detach"  # a list of tensors stays a list of tensors (torch.stack(losses) keeps working)
    else:
        return None
    if len(terms) != 1:
        return None
    _start, end = edits.span(ctx, terms[0])
    return edits.Fix(f"accumulate {loss}.{cut}()", (edits.Edit(end, end, f".{cut}()"),))


def _loss_terms(node: ast.AST) -> list[ast.Name]:
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return _loss_terms(node.left) + _loss_terms(node.right)
    return []


def _only_numbers_need(ctx: FileContext, stmt: ast.AugAssign, acc: str) -> bool:
    """Whether ``acc`` (and names assigned from it, two levels) is only ever used as a number in its scope,
    and starts as a number literal there: then a float can replace the tensor without any other change."""
    scope = ctx.enclosing_function(stmt) or ctx.tree
    starts = [value for _line, bound_by, value in ctx.assignments(scope).get(acc, []) if not isinstance(bound_by, ast.AugAssign)]
    if not starts or not all(isinstance(value, ast.Constant) and isinstance(value.value, (int, float)) for value in starts):
        return False
    names, checked = {acc}, set()
    for _depth in range(3):
        fresh = names - checked
        if not fresh:
            return True
        checked |= fresh
        for node in ast.walk(scope):  # nested functions too: a closure may read the total
            if isinstance(node, ast.Name) and node.id in fresh and isinstance(node.ctx, ast.Load):
                verdict = _number_use(ctx, node)
                if verdict is False:
                    return False
                if isinstance(verdict, str):
                    names.add(verdict)
            elif isinstance(node, (ast.Global, ast.Nonlocal)) and fresh & set(node.names):
                return False
    return not (names - checked)


def _number_use(ctx: FileContext, node: ast.AST) -> bool | str:
    """True: a use where a float serves as well as a tensor; a name: assigned to it (check its uses too);
    False: anything else (a method call, returned, passed on, stored in a container)."""
    child, parent = node, ctx.parent(node)
    while isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.IfExp)):
        if isinstance(parent, ast.IfExp) and parent.test is child:
            return True
        child, parent = parent, ctx.parent(parent)
    if isinstance(parent, (ast.AugAssign, ast.If, ast.While, ast.Assert, ast.FormattedValue)):
        return True  # acc += ..., total -= acc, if acc > best, f"{acc:.3f}": a float serves as well
    if isinstance(parent, ast.Assign) and parent.value is child and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        return parent.targets[0].id
    return isinstance(parent, ast.Call) and child in parent.args and (ctx.qualname(parent) or "") in _NUMBER_SINKS
