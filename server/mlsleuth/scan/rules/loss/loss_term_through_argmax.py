"""The ``loss-term-through-argmax`` rule: a loss (or loss term) computed from argmax / comparisons of the predictions, so no gradient reaches them."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.analysis.training_step_model import loop_model, step_loops
from mlsleuth.scan.registry import Rule, register_rule

MAX_DEPTH = 24
# index-valued or step functions: their output has no gradient with respect to their input
_CUTS = frozenset({"argmax", "argmin", "argsort", "round", "sign", "floor", "ceil", "eq", "ne", "gt", "lt", "ge", "le"})
# leave the graph: a plain number or a detached tensor
_DETACHED = frozenset({"item", "tolist", "detach", "numpy", "numel", "size", "dim"})
# fresh tensors made from data (never require grad)
_CONSTRUCTORS = frozenset({"FloatTensor", "LongTensor", "BoolTensor", "IntTensor", "DoubleTensor", "Tensor", "tensor",
                           "as_tensor", "from_numpy", "zeros", "ones", "full", "zeros_like", "ones_like", "full_like",
                           "arange", "eye"})
# differentiable in their tensor inputs: the result is cut iff every input is
_THROUGH_METHODS = frozenset({"sum", "mean", "float", "double", "half", "to", "cuda", "cpu", "long", "int", "view",
                              "reshape", "squeeze", "unsqueeze", "flatten", "abs", "pow", "exp", "log", "type",
                              "clone", "mul", "add", "sub", "div", "clamp", "type_as", "masked_fill", "expand_as"})
_THROUGH_FUNCTIONS = frozenset({"sum", "mean", "pow", "exp", "log", "abs", "mul", "add", "sub", "div", "clamp", "stack",
                                "cat", "max", "min", "square", "sqrt"})
_NO_GRAD_DECORATORS = ("no_grad", "inference_mode")
_METRIC_WORDS = frozenset({"eval", "evaluate", "metric", "val", "valid", "validation", "test", "accuracy", "acc", "zero"})


def _torch_name(ctx: FileContext, call: ast.Call) -> str | None:
    """``sum`` for ``torch.sum(...)`` (any alias of torch), else None."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    qual = vo.normalize(ctx.qualname(call.func)) or ""
    if qual.startswith("torch.") and qual.count(".") == 1:
        return qual.split(".", 1)[1]
    return None


class _Cut:
    """Whether a value is cut from the autograd graph, and the argmax/comparison that cut the predictions."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.visiting: set[tuple[int, str]] = set()  # names being followed (`h = h * 2` refers to itself)

    def all_of(self, nodes, func, depth) -> tuple[bool, ast.AST | None]:
        evidence = None
        for node in nodes:
            cut, ev = self.of(node, func, depth + 1)
            if not cut:
                return False, None
            evidence = evidence or ev
        return True, evidence

    def of(self, expr: ast.AST | None, func: ast.AST | None, depth: int = 0) -> tuple[bool, ast.AST | None]:
        if expr is None or depth > MAX_DEPTH:
            return False, None
        if isinstance(expr, ast.Constant):
            return True, None
        if isinstance(expr, ast.Compare):
            for side in (expr.left, *expr.comparators):  # point at the argmax when a side is one
                cut, ev = self.of(side, func, depth + 1)
                if cut and ev is not None:
                    return True, ev
            return True, expr
        if isinstance(expr, ast.BinOp):
            return self.all_of([expr.left, expr.right], func, depth)
        if isinstance(expr, ast.UnaryOp):
            return self.of(expr.operand, func, depth + 1)
        if isinstance(expr, ast.IfExp):
            return self.all_of([expr.body, expr.orelse], func, depth)
        if isinstance(expr, ast.Name):
            return self._name(expr, func, depth)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return self._self_attribute(expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, func, depth)
        return False, None

    def _name(self, name: ast.Name, func, depth) -> tuple[bool, ast.AST | None]:
        if func is None:
            return False, None
        values = []
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name.id for t in node.targets):
                values.append(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name.id:
                values.append(node.value)
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) and node.target.id == name.id:
                it = node.iter
                if not (isinstance(it, ast.Call) and dotted(it.func) == "range"):
                    return False, None
                values.append(ast.Constant(0))
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.With, ast.For, ast.NamedExpr)) and any(
                isinstance(n, ast.Name) and n.id == name.id and isinstance(n.ctx, ast.Store) for n in ast.walk(node)
            ) and not (isinstance(node, ast.For) and isinstance(node.target, ast.Name)):
                if not (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name.id for t in node.targets)):
                    return False, None  # bound by unpacking, `with` or a loop over data: not followed
        if not values:
            default = vo.parameter_default(func, name.id) if name.id in vo.function_params(func) else None
            if isinstance(default, ast.Constant) and isinstance(default.value, (int, float)):
                return True, None  # a numeric hyperparameter (`eps=1.0`, `lam=0.1`)
            return False, None  # a parameter or a global: unknown
        key = (id(func), name.id)
        if key in self.visiting:
            return True, None  # the name's other bindings decide
        self.visiting.add(key)
        try:
            return self.all_of(values, func, depth)
        finally:
            self.visiting.discard(key)

    def _self_attribute(self, attr: ast.Attribute, depth) -> tuple[bool, ast.AST | None]:
        """``self.beta``: a number or a hyperparameter passed to ``__init__`` (not a Parameter or module)."""
        ctx = self.ctx
        cls = ctx.enclosing_class(attr)
        bound = ctx.self_attributes(cls).get(attr.attr, []) if cls is not None else []
        if not bound:
            return False, None
        for value in bound:
            if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
                continue
            init = ctx.enclosing_function(value)
            if isinstance(value, ast.Name) and init is not None and value.id in vo.function_params(init):
                default = vo.parameter_default(init, value.id)
                if default is None or isinstance(default, ast.Constant) and isinstance(default.value, (int, float)):
                    continue
            return False, None
        return True, None

    def _call(self, call: ast.Call, func, depth) -> tuple[bool, ast.AST | None]:
        ctx = self.ctx
        method = call_method(call)
        tname = _torch_name(ctx, call)
        if tname in _CUTS or (tname is None and method in _CUTS):
            return True, call
        if method in _DETACHED:
            return True, None
        if tname in _CONSTRUCTORS:
            return True, None
        if tname == "where" and len(call.args) == 3:
            return self.all_of(call.args[1:], func, depth)
        if tname in _THROUGH_FUNCTIONS:
            return self.all_of([*call.args, *(kw.value for kw in call.keywords if kw.arg not in ("dim", "keepdim", "dtype"))], func, depth)
        if tname is None and method in _THROUGH_METHODS and isinstance(call.func, ast.Attribute):
            tensor_args = [a for a in call.args if not isinstance(a, (ast.Constant, ast.Attribute, ast.Name)) or method in ("pow", "mul", "add", "sub", "div")]
            return self.all_of([call.func.value, *tensor_args], func, depth)
        helper = vo.callee(ctx, call)
        if helper is not None and helper is not func:
            rets = vo.returns(helper)
            if not rets:
                return False, None
            inner = _Cut(ctx)
            cut, ev = inner.all_of(rets, helper, depth)
            if not cut:
                return False, None
            # evidence from what the caller passes in (the argmax of the predictions)
            for arg in call.args:
                acut, aev = self.of(arg, func, depth + 1)
                if acut and aev is not None:
                    return True, aev
            return True, ev
        return False, None


def _is_loss_function(ctx: FileContext, func: ast.AST) -> bool:
    name = getattr(func, "name", "")
    if _METRIC_WORDS & set(vo.words(name)):
        return False  # `zero_one_loss_metric`, `eval_loss`: a reported number, not a training objective
    if any(w.endswith("loss") or w == "penalty" for w in vo.words(name)):  # dice_loss, calculate_dloss, penalty
        return True
    cls = ctx.enclosing_class(func)
    return name in ("forward", "__call__") and cls is not None and any(w in cls.name.lower() for w in ("loss", "criterion"))


def _no_grad(func: ast.AST) -> bool:
    for dec in getattr(func, "decorator_list", []):
        target = dec.func if isinstance(dec, ast.Call) else dec
        if any(w in (dotted(target) or "") for w in _NO_GRAD_DECORATORS):
            return True
    return False


def _sum_terms(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        return _sum_terms(node.left) + _sum_terms(node.right)
    return [node]


@register_rule
class LossTermThroughArgmax(Rule):
    """A loss, or a term of the training loss, computed from `argmax` or comparisons of the predictions.

    What it finds: a loss function (a function or method named like a loss, or the `forward` of a `*Loss`
    module) whose returned value, or a term of a backpropagated loss sum, is built only from values with no
    autograd path to the predictions: `argmax`/`argmin`/`round`/`sign` of the outputs, comparisons such as
    `pred == target`, fresh `torch.FloatTensor(...)`/`torch.tensor(...)` tensors and constants, combined by
    arithmetic, `torch.where`, `torch.sum`/`mean`/`pow` and same-class helper methods. Names are followed
    through every assignment in the function (including `+=` accumulators in loops). Silent when any input
    might carry a gradient (a parameter, an unknown call, a soft probability), and for `@torch.no_grad` metrics.
    Why it matters: argmax and comparisons are piecewise constant, so the term's gradient is zero (or it has
    no graph at all). Added to a differentiable loss, backward runs and the logged value moves, but the
    penalty never trains anything: its weight changes nothing, and the constraint it stands for is never
    enforced.
    How to confirm: print `term.requires_grad` (False) or `term.grad_fn` (None) for the term; compare
    parameter gradients of one step with and without it: identical.
    What to do instead: compute the term from soft probabilities (`softmax` outputs, expected values, or
    `probs.gather(1, target)`), or use a straight-through / Gumbel-softmax estimator when a hard choice is
    needed.
    """

    id = "loss-term-through-argmax"
    category = "loss"
    severity = "warning"
    triggers = ("argmax", "argmin", "==", "!=", ".eq(", ".round(", ".sign(")

    def check(self, ctx: FileContext):
        reported: set[int] = set()
        for func in ctx.functions:
            if not _is_loss_function(ctx, func) or _no_grad(func):
                continue
            params = [p for p in vo.function_params(func) if p not in ("self", "cls")]
            if not params:
                continue
            for ret in vo.returns(func):
                cut, evidence = _Cut(ctx).of(ret, func)
                if cut and evidence is not None and id(evidence) not in reported:
                    reported.add(id(evidence))
                    yield self._finding(ctx, evidence, f"the value returned by `{func.name}`")
        yield from self._loop_terms(ctx, reported)

    def _loop_terms(self, ctx: FileContext, reported: set[int]):
        if "backward" not in ctx.source:
            return
        for trace in loop_model(ctx).traces:
            for loop in step_loops(trace):
                for event in trace.in_loop(loop):
                    if event.kind != "backward" or not isinstance(event.loss, ast.Name):
                        continue
                    func = ctx.enclosing_function(event.loss)
                    value = vo.local_value(ctx, event.loss)
                    terms = _sum_terms(value) if value is not None else []
                    if len(terms) < 2:
                        continue
                    for term in terms:
                        cut, evidence = _Cut(ctx).of(term, func)
                        if cut and evidence is not None and id(evidence) not in reported:
                            reported.add(id(evidence))
                            yield self._finding(ctx, evidence, f"the loss term `{ctx.segment(term, 50)}`")

    def _finding(self, ctx: FileContext, evidence: ast.AST, what: str):
        return self.finding(
            ctx,
            evidence,
            f"{what} is built from `{ctx.segment(evidence, 50)}`, which has no gradient: the term adds to the "
            "logged loss but trains nothing",
            observation=ctx.segment(evidence, 100),
            fix="compute the term from soft probabilities (softmax, gather) instead of argmax/comparisons",
        )
