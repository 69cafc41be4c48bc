"""Rules about floating-point pitfalls: NaN checks, masking NaN, unstable compositions."""

from __future__ import annotations

import ast
import math

from mlsleuth.scan import flow_a
from mlsleuth.scan.context import (
    FileContext,
    argument,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.registry import (
    Rule,
    any_case,
    call_to,
    case_variants,
    register_rule,
    word,
)

_NAN_NAMES = {"math.nan", "numpy.nan", "numpy.NaN", "numpy.NAN", "torch.nan", "float.nan"}


def _is_nan_literal(ctx: FileContext, node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and ctx.qualname(node) == "float" and len(node.args) == 1:
        arg = node.args[0]
        return isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip().lower() == "nan"
    if isinstance(node, (ast.Attribute, ast.Name)):
        return ctx.qualname(node) in _NAN_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return math.isnan(node.value)
    return False


def _inside_assertion_helper(ctx: FileContext, node: ast.AST) -> bool:
    """True for ``self.assertFalse(x == nan)``, ``assert_array_equal(a == np.nan, ...)``: a test of the
    comparison's own semantics (test suites check that it is always False on purpose)."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Call):
            name = dotted(anc.func) or ""
            if name.rsplit(".", 1)[-1].lower().startswith("assert"):
                return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _fresh_nan(ctx: FileContext, node: ast.AST) -> bool:
    """``float('nan')`` builds a new object each time, so ``x is float('nan')`` is always False."""
    return isinstance(node, ast.Call) and _is_nan_literal(ctx, node)


@register_rule
class NanEqualityCheck(Rule):
    """A value compared with NaN using `==` or `!=`.

    What it finds: comparisons such as `loss == float('nan')`, `x != np.nan` or `t == torch.nan`, and
    `x is float('nan')` (a new object, never identical). `x is np.nan` is left alone: it tests identity
    with the shared NaN object, which can legitimately be True.
    Why it matters: NaN is unequal to everything, itself included, so `== nan` is always False and
    `!= nan` always True. The guard never fires and the NaN it was meant to catch flows on into the
    optimizer and the weights.
    How to confirm: evaluate `float('nan') == float('nan')` in a shell: it prints False.
    What to do instead: use `math.isnan(x)`, `np.isnan(a)` or `torch.isnan(t)`; to stop on any
    non-finite value use `torch.isfinite(t).all()`.
    """

    id = "nan-equality-check"
    category = "numerical"
    severity = "error"
    triggers = case_variants("nan")  # float("NaN") in any case, math.nan, np.NaN, ...
    # a NaN literal is a float(...) call or a name spelled nan/NaN/NAN (imported under another name, the
    # import spells it)
    requires = (("==", "!=", word("is")), (word("nan"), word("NaN"), word("NAN"), call_to("float")))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Compare):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    continue
                left, right = operands[i], operands[i + 1]
                if isinstance(op, (ast.Is, ast.IsNot)) and not (_fresh_nan(ctx, left) or _fresh_nan(ctx, right)):
                    continue  # `x is np.nan` tests identity with the shared NaN object, which can be True
                if _is_nan_literal(ctx, left) or _is_nan_literal(ctx, right):
                    if _inside_assertion_helper(ctx, node):
                        break
                    always = "False" if isinstance(op, (ast.Eq, ast.Is)) else "True"
                    yield self.finding(
                        ctx,
                        node,
                        f"comparison with NaN is always {always}: this check can never detect a NaN",
                        observation=ctx.segment(node),
                    )
                    break


# -- compositions that lose precision --------------------------------------------------------

_LOG_FUNCS = {"torch.log", "numpy.log", "torch.special.log"}
_LOG_FIX = {flow_a.SOFTMAX: "log_softmax", flow_a.SIGMOID: "logsigmoid"}


def _log_operand(ctx: FileContext, call: ast.Call) -> ast.expr | None:
    """``p`` for ``torch.log(p)``, ``np.log(p)`` and ``p.log()``; else None."""
    if flow_a.normalize(ctx.qualname(call)) in _LOG_FUNCS and len(call.args) == 1:
        return call.args[0]
    if call_method(call) in ("log", "log_") and not call.args and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        head = dotted(receiver)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(receiver) != head:
            return None  # torch.log / np.log spelled as an attribute of a module, handled above
        return receiver
    return None


def _reference_formula(ctx: FileContext, node: ast.AST) -> bool:
    """True inside a test oracle: ``f(reference_fn=lambda i: ...)`` or ``def xxx_reference(...)``.

    Test suites (PyTorch's own among them) spell out the textbook two-step
    formula on purpose, as the reference an optimised kernel is checked
    against; training code neither passes its loss as a keyword lambda nor
    names it a reference.
    """
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Lambda) and isinstance(ctx.parent(anc), ast.keyword):
            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and {"reference", "ref"} & set(flow_a.words(anc.name)):
            return True
    return False


@register_rule
class LogOfSoftmax(Rule):
    """`log(softmax(x))` or `log(sigmoid(x))` computed in two steps.

    What it finds: `torch.log`, `np.log` or `.log()` applied directly to a softmax or sigmoid output
    (including one assigned to a name earlier, or returned by a model whose last layer is `nn.Softmax`).
    A log of a clamped or epsilon-shifted probability is not flagged.
    Why it matters: softmax underflows to exactly 0 for classes far below the maximum (a logit gap of
    about 104 in float32, far less in float16), and `log(0)` is `-inf`; the loss or its gradient becomes
    inf/NaN and the run dies, often thousands of steps in. Even before that, the two-step version loses
    precision that the fused `log_softmax` (computed as `x - logsumexp(x)`) keeps.
    How to confirm: feed logits with a large spread, e.g. `torch.tensor([[0., 200.]])`, through both
    versions: the two-step version returns `-inf` where `log_softmax` returns `-200`.
    What to do instead: use `F.log_softmax(x, dim=...)` (or `nn.LogSoftmax`), `F.logsigmoid(x)` for
    sigmoid, or hand the logits to `cross_entropy`/`binary_cross_entropy_with_logits` directly.
    """

    id = "log-of-softmax"
    category = "numerical"
    severity = "warning"
    triggers = ("softmax", "Softmax", "sigmoid", "Sigmoid", "expit")
    # torch.log / np.log / .log() of what a softmax or sigmoid call made
    requires = ((word("log"), word("log_")), (call_to("log", "log_"),), (call_to(*flow_a.origin_callees(*_LOG_FIX)),))

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("log", "log_"):
            operand = _log_operand(ctx, call)
            if operand is None:
                continue
            found = flow_a.origin(ctx, operand)
            if found is None or found.kind not in _LOG_FIX:
                continue
            if _reference_formula(ctx, call):
                continue
            fused = _LOG_FIX[found.kind]
            made = found.label or ctx.segment(found.node, 70)
            yield self.finding(
                ctx,
                call,
                f"log of a {found.kind} output: the {found.kind} can underflow to 0 and the log becomes -inf; "
                f"the fused `{fused}` is exact where this is not",
                observation=f"{ctx.segment(call, 100)} takes the log of {made} (line {found.node.lineno})",
                next_test=f"Run both versions on logits with a large spread (e.g. [[0., 200.]]): this one returns -inf, `{fused}` does not.",
            )


_SOFTMAX_FUNCS = {
    "torch.nn.functional.softmax": "softmax",
    "torch.nn.functional.log_softmax": "log_softmax",
    "torch.nn.functional.softmin": "softmin",
}
_SOFTMAX_MODULES = {"torch.nn.Softmax": "Softmax", "torch.nn.LogSoftmax": "LogSoftmax", "torch.nn.Softmin": "Softmin"}
_SOFTMAX_NAMES = {q.rpartition(".")[2] for q in (*_SOFTMAX_FUNCS, *_SOFTMAX_MODULES)}


@register_rule
class SoftmaxImplicitDim(Rule):
    """`softmax`/`log_softmax` called without a `dim`.

    What it finds: `F.softmax(x)`, `F.log_softmax(x)`, `F.softmin(x)` with no `dim` argument, and the
    modules `nn.Softmax()`, `nn.LogSoftmax()`, `nn.Softmin()` built without one.
    Why it matters: without `dim` PyTorch guesses from the number of dimensions (dim 0 for 0-, 1- and
    3-D input, dim 1 otherwise) and only emits a deprecation warning. For a 3-D `(batch, seq, classes)`
    tensor the guess normalises across the batch, silently mixing examples; the same line is right or
    wrong depending on the input's rank.
    How to confirm: check that the output sums to 1 along the class axis:
    `out.sum(dim=-1)` should be all ones; with the wrong guess it is not.
    What to do instead: always pass the axis explicitly, usually `dim=-1` (the class axis).
    """

    id = "softmax-implicit-dim"
    category = "architecture"
    severity = "warning"
    triggers = ("softmax", "Softmax", "softmin", "Softmin")
    requires = ((call_to(*_SOFTMAX_NAMES),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named(*_SOFTMAX_NAMES):
            qual = flow_a.normalize(ctx.qualname(call))
            if qual in _SOFTMAX_FUNCS:
                if any(isinstance(a, ast.Starred) for a in call.args) or any(kw.arg is None for kw in call.keywords):
                    continue
                dim = argument(call, 1, "dim")
                if dim is not None and constant(dim) is not None:
                    continue
                name = _SOFTMAX_FUNCS[qual]
            elif qual in _SOFTMAX_MODULES:
                if call.args or call.keywords:
                    continue
                name = f"nn.{_SOFTMAX_MODULES[qual]}()"
            else:
                continue
            yield self.finding(
                ctx,
                call,
                f"{name} without `dim`: PyTorch guesses the axis from the input's rank (dim 0 for 1-D and 3-D "
                f"input), which normalises across the batch for (batch, seq, classes) tensors",
                observation=ctx.segment(call),
                next_test="Check `out.sum(dim=-1)` on one batch: it should be all ones if the class axis was normalised.",
            )


def _dim_constant(ctx: FileContext, call: ast.Call) -> object:
    """The constant ``dim`` of a softmax-like call (function, method or module call), or ``...``."""
    qual = flow_a.normalize(ctx.qualname(call))
    if qual in ("torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.softmax", "torch.log_softmax"):
        return constant(argument(call, 1, "dim"))
    if call_method(call) in ("softmax", "log_softmax") and isinstance(call.func, ast.Attribute):
        head = dotted(call.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(call.func.value) != head:
            return ...
        return constant(argument(call, 0, "dim"))
    return ...


def _class_axis_evidence(ctx: FileContext, call: ast.Call) -> str | None:
    """Why we believe the softmax input is a (batch, classes) tensor, or None."""
    for lc in flow_a.loss_calls(ctx):
        found = flow_a.origin(ctx, lc.input)
        if found is not None and found.node is call:
            return f"its output is the prediction of {ctx.segment(lc.call.func, 50)}(...) at line {lc.call.lineno}"
    func = ctx.enclosing_function(call)
    scope = func if func is not None else ctx.tree
    source = call.args[0] if call.args else None
    source_dump = ast.dump(source) if source is not None else None
    for lc in flow_a.loss_calls(ctx):
        if (
            lc.name in ("cross_entropy", "nll_loss")
            and lc.input is not None
            and source_dump is not None
            and ctx.enclosing_function(lc.call) is func
            and ast.dump(lc.input) == source_dump
        ):
            return f"the same `{ctx.segment(source, 40)}` is the (batch, classes) input of {ctx.segment(lc.call.func, 50)}(...) at line {lc.call.lineno}"
    for node in ctx.walk_scope(scope):
        if not isinstance(node, ast.Call) or call_method(node) not in ("argmax", "max", "topk"):
            continue
        receiver = node.func.value  # type: ignore[attr-defined]
        found = flow_a.origin(ctx, receiver)
        axis = constant(argument(node, 1 if call_method(node) == "topk" else 0, "dim"))
        if found is not None and found.node is call and axis in (1, -1):
            return f"{ctx.segment(node, 50)} at line {node.lineno} reads classes along dim {axis}"
    return None


@register_rule
class SoftmaxOverBatchDim(Rule):
    """Softmax taken over dim 0 of a (batch, classes) tensor.

    What it finds: `softmax`/`log_softmax` with `dim=0` whose output is the prediction of a
    classification loss, is read with `argmax(dim=1)`, or whose input is also passed to
    `cross_entropy`/`nll_loss` as a (batch, classes) tensor. A `dim=0` softmax on a 1-D vector or over a
    sequence axis is not flagged.
    Why it matters: normalising over the batch makes each example's scores depend on the other examples
    in the batch; class scores no longer sum to one per example, predictions change with batch size
    and composition, and evaluation with a different batch size gives different answers.
    How to confirm: `probs.sum(dim=1)` should be all ones; compare predictions for one example scored
    alone and inside a batch.
    What to do instead: normalise over the class axis: `dim=1` or `dim=-1`.
    """

    id = "softmax-over-batch-dim"
    category = "loss"
    severity = "warning"
    triggers = ("softmax",)
    requires = ((call_to("softmax", "log_softmax"),),)  # what _dim_constant reads

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("softmax", "log_softmax"):  # what _dim_constant knows
            if _dim_constant(ctx, call) != 0:
                continue
            why = _class_axis_evidence(ctx, call)
            if why is None:
                continue
            yield self.finding(
                ctx,
                call,
                "softmax over dim 0, the batch axis of a (batch, classes) tensor: every example's scores are "
                "normalised against the rest of the batch",
                observation=f"{ctx.segment(call, 80)}; {why}",
                next_test="Print `probs.sum(dim=1)` for one batch: values other than 1 confirm the batch axis was normalised.",
            )


# -- hiding NaN ----------------------------------------------------------------------------

_NAN_TO_NUM = {"torch.nan_to_num", "numpy.nan_to_num"}
_LOSSY_WORDS = {"loss", "losses", "logits", "logit", "grad", "grads", "gradient", "gradients"}


def _training_value(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> str | None:
    """A short description when ``expr`` is a loss, logits or a gradient; else None."""
    if expr is None or depth > 4:
        return None
    for node in ast.walk(expr):
        if isinstance(node, ast.Attribute) and node.attr == "grad":
            return f"the gradient `{ctx.segment(node, 40)}`"
    for lc in flow_a.loss_calls(ctx):
        if lc.call is expr:
            return "a loss value"
    name = flow_a.root_name(expr)
    if name is None:
        return None
    # "gradient" also names image gradients in NumPy code: names count only in torch files
    if _LOSSY_WORDS & set(flow_a.words(name)) and ctx.imports_any("torch"):
        return f"`{name}`"
    if isinstance(expr, ast.Name):
        bound = flow_a.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _training_value(ctx, bound, depth + 1)
    return None


@register_rule
class NanToNumMasking(Rule):
    """`nan_to_num` applied to a loss, logits or gradients.

    What it finds: `torch.nan_to_num(...)`, `np.nan_to_num(...)`, `.nan_to_num()` or `.nan_to_num_()`
    on a loss, on logits, or on parameter gradients (`p.grad`). Cleaning input features is not flagged.
    Why it matters: a NaN in the loss or the gradients is a symptom (an overflowing `exp`, a `log(0)`, a
    division by zero, a bad batch, too high a learning rate). Replacing it with a number hides the
    symptom while the cause keeps corrupting the run: replaced gradients push weights in arbitrary
    directions, and a model can "train" for days on garbage without a visible error.
    How to confirm: remove the call and run with `torch.autograd.set_detect_anomaly(True)` (or
    `mlsleuth nan`) to find the first operation that produces the NaN.
    What to do instead: find and fix the producer (use `log_softmax`, clamp denominators, lower the
    learning rate, clip gradients, skip corrupt samples in the data pipeline); fail loudly with
    `torch.isfinite(loss).all()` checks rather than patching values.
    """

    id = "nan-to-num-masking"
    category = "numerical"
    severity = "warning"
    triggers = ("nan_to_num",)
    requires = ((call_to("nan_to_num", "nan_to_num_"),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("nan_to_num", "nan_to_num_"):
            qual = flow_a.normalize(ctx.qualname(call))
            if qual in _NAN_TO_NUM:
                subject = argument(call, 0, "input") if qual.startswith("torch") else argument(call, 0, "x")
                extra = keyword(call, "out")
            elif call_method(call) in ("nan_to_num", "nan_to_num_") and isinstance(call.func, ast.Attribute):
                subject, extra = call.func.value, None
            else:
                continue
            what = _training_value(ctx, subject) or (_training_value(ctx, extra) if extra is not None else None)
            stmt = ctx.parent(call)
            if what is None and isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                name = dotted(stmt.targets[0])
                if name is not None and {"loss", "logits"} & set(flow_a.words(name.split(".")[-1])):
                    what = f"the value stored in `{name}`"
            if what is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"nan_to_num on {what} hides a NaN/Inf instead of fixing where it comes from",
                observation=ctx.segment(call),
                next_test="Remove the call and run with torch.autograd.set_detect_anomaly(True) (or `mlsleuth nan`) to find the first op that makes the NaN.",
            )


_NONFINITE_TESTS = {"isnan", "isinf", "isfinite", "isneginf", "isposinf"}


def _nonfinite_subject(ctx: FileContext, test: ast.AST) -> ast.AST | None:
    for node in ast.walk(test):
        if not isinstance(node, ast.Call):
            continue
        qual = ctx.qualname(node) or ""
        method = call_method(node)
        if qual.split(".")[-1] in _NONFINITE_TESTS and node.args and qual.split(".")[0] in ("torch", "math", "numpy"):
            return node.args[0]
        if method in _NONFINITE_TESTS and not node.args and isinstance(node.func, ast.Attribute):
            return node.func.value
    return None


@register_rule
class NanLossSkip(Rule):
    """A training loop that silently skips batches whose loss is NaN or Inf.

    What it finds: `if torch.isnan(loss): continue` (also `isinf`, `not isfinite`, `math.isnan(loss.item())`)
    inside a loop, where the body does nothing but log and `continue`.
    Why it matters: skipping the step keeps the run alive but discards the evidence. NaN losses rarely
    come alone: the same cause (a corrupt sample, an overflow, a too-large learning rate) strikes again,
    and a run can end up skipping a large share of its batches, or training on weights already damaged
    before the loss itself turned NaN.
    How to confirm: count how often the branch is taken; log the batch indices and rerun one of them
    with anomaly detection (`mlsleuth nan`).
    What to do instead: stop (raise) on the first non-finite loss during development and fix the cause;
    if skipping is a deliberate safeguard for mixed precision, keep a counter and fail when it exceeds
    a small budget (this is what `GradScaler` does for you).
    """

    id = "nan-loss-skip"
    category = "numerical"
    severity = "info"
    triggers = ("isnan", "isinf", "isfinite", "isneginf", "isposinf")
    requires = (("continue",), (any_case("loss"),), (call_to(*_NONFINITE_TESTS),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.If):
            if not ctx.enclosing_loops(node):
                continue
            body = node.body
            if not body or not isinstance(body[-1], ast.Continue):
                continue
            if not all(isinstance(s, (ast.Expr, ast.AugAssign, ast.Pass)) for s in body[:-1]):
                continue
            subject = _nonfinite_subject(ctx, node.test)
            if subject is None:
                continue
            name = flow_a.root_name(subject)
            if name is None or not ({"loss", "losses"} & set(flow_a.words(name))):
                continue
            yield self.finding(
                ctx,
                node,
                f"batches with a non-finite `{name}` are skipped silently: the cause of the NaN stays in place",
                observation=f"if {ctx.segment(node.test, 80)}: ... continue (line {node.lineno})",
                next_test="Count how often this branch runs; rerun one skipped batch under anomaly detection (`mlsleuth nan`).",
            )


# -- hand-written softmax -----------------------------------------------------------------

_EXP_FUNCS = {"torch.exp", "numpy.exp", "math.exp"}
_SUM_FUNCS = {"torch.sum", "numpy.sum"}


def _exp_call(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The ``exp(...)`` call behind ``expr`` (directly or through a local name)."""
    if expr is None or depth > 3:
        return None
    if isinstance(expr, ast.Name):
        bound = flow_a.value(ctx, expr)
        return _exp_call(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
    if isinstance(expr, ast.Call):
        if flow_a.normalize(ctx.qualname(expr)) in _EXP_FUNCS and len(expr.args) == 1:
            return expr
        if call_method(expr) == "exp" and not expr.args and isinstance(expr.func, ast.Attribute):
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports:
                return expr
    return None


def _exp_argument(call: ast.Call) -> ast.AST:
    return call.args[0] if call.args else call.func.value  # type: ignore[attr-defined]


def _summed(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``e`` for ``e.sum(...)`` or ``torch.sum(e, ...)``."""
    if isinstance(expr, ast.Call):
        if call_method(expr) == "sum" and isinstance(expr.func, ast.Attribute):
            head = dotted(expr.func.value)
            if head is None or head.split(".")[0] not in ctx.imports or ctx.qualname(expr.func.value) == head:
                return expr.func.value
        if flow_a.normalize(ctx.qualname(expr)) in _SUM_FUNCS and expr.args:
            return expr.args[0]
    return None


def _stabilised(ctx: FileContext, arg: ast.AST) -> bool:
    """``exp(x - m)``, ``exp(-d)``, ``exp(-0.5 * x**2 / s)``: a subtraction or negation bounds the exponent."""
    if isinstance(arg, ast.Name):
        bound = flow_a.value(ctx, arg)
        if bound is not None and bound is not arg:
            arg = bound
    for node in ast.walk(arg):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return True
    return False


@register_rule
class NaiveSoftmaxExp(Rule):
    """A hand-written softmax `exp(x) / exp(x).sum()` without subtracting the maximum.

    What it finds: a division whose numerator is `exp(x)` and whose denominator is the sum of the same
    `exp(x)` (torch or NumPy, inline or through a local name), where nothing is subtracted from `x`
    first.
    Why it matters: `exp` overflows to `inf` for inputs above about 88 in float32 (about 11 in float16),
    and `inf / inf` is NaN. Logits that grow during training cross that line suddenly, and the NaN
    appears many steps after the cause.
    How to confirm: call the function on `torch.tensor([[0., 100.]])`: it returns NaN where
    `torch.softmax` returns `[0., 1.]`.
    What to do instead: use `torch.softmax`/`F.softmax` (or `scipy.special.softmax`), or subtract the
    row maximum first: `e = torch.exp(x - x.amax(dim, keepdim=True))`.
    """

    id = "naive-softmax-exp"
    category = "numerical"
    severity = "warning"
    triggers = ("exp",)
    requires = ((word("exp"),), (word("sum"),), ("/",), (call_to("exp"),), (call_to("sum"),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Div):
                continue
            summed = _summed(ctx, node.right)  # the cheap test first: following names to an exp() is not
            if summed is None:
                continue
            top = _exp_call(ctx, node.left)
            bottom = _exp_call(ctx, summed) if top is not None else None
            if top is None or bottom is None:
                continue
            if top is not bottom and ast.dump(_exp_argument(top)) != ast.dump(_exp_argument(bottom)):
                continue
            if _stabilised(ctx, _exp_argument(top)):
                continue
            yield self.finding(
                ctx,
                node,
                "softmax written as exp(x) / sum(exp(x)) without subtracting the maximum: exp overflows to inf "
                "for large inputs and the division gives NaN",
                observation=f"{ctx.segment(node, 100)} (exp at line {top.lineno})",
                next_test="Call this code on logits like [[0., 100.]]: it returns NaN where torch.softmax does not.",
            )


# -- standardising by a standard deviation ---------------------------------------------------------

_STD_FUNCS = {"torch.std", "numpy.std", "numpy.nanstd"}
_ML_FRAMEWORKS = ("torch", "tensorflow", "jax", "keras", "sklearn", "lightning", "pytorch_lightning")


def _patched_in_place(ctx: FileContext, name: ast.Name) -> bool:
    """``s[s == 0] = 1`` or ``s += eps`` or ``s.clamp_(...)`` anywhere in the scope: the zeros are handled."""
    scope = ctx.enclosing_function(name) or ctx.tree
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name.id for t in node.targets
        ):
            return True
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name.id:
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr.endswith("_")
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == name.id
        ):
            return True
    return False


def _axis_std(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The ``std`` call behind ``expr`` when it reduces along an axis (per feature, per sample, per row)."""
    if expr is None or depth > 3:
        return None
    if isinstance(expr, ast.Name):
        bound = flow_a.value(ctx, expr)
        found = _axis_std(ctx, bound, depth + 1) if bound is not None and bound is not expr else None
        # checked second: scanning the scope for a patch is dear, and only matters for a std
        return None if found is None or _patched_in_place(ctx, expr) else found
    if not isinstance(expr, ast.Call):
        return None
    qual = flow_a.normalize(ctx.qualname(expr))
    if qual in _STD_FUNCS:
        axis = argument(expr, 1, "dim") if qual.startswith("torch") else argument(expr, 1, "axis")
        return expr if _is_axis(axis) else None
    if call_method(expr) == "std" and isinstance(expr.func, ast.Attribute):
        head = dotted(expr.func.value)
        if head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(expr.func.value) != head:
            return None
        axis = keyword(expr, "dim") or keyword(expr, "axis") or (expr.args[0] if expr.args else None)
        return expr if _is_axis(axis) else None
    return None


def _is_axis(node: ast.AST | None) -> bool:
    """An integer literal or a tuple of them: ``0``, ``-1``, ``(1, 2)``."""
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(isinstance(constant(e), int) for e in node.elts)
    return isinstance(constant(node), int) and not isinstance(constant(node), bool)


@register_rule
class StdDivisionWithoutEps(Rule):
    """Standardisation that divides by a per-axis standard deviation with no epsilon.

    What it finds: `x / x.std(dim)`, `(x - m) / torch.std(x, 0)`, `X / np.std(X, axis=0)` and the same
    through a local name (`s = x.std(0)` ... `/ s`), where the standard deviation is taken along an
    axis and nothing guards it (`+ eps`, `.clamp(min=eps)` and `max(s, eps)` are not flagged).
    Why it matters: a feature that is constant in the data or in one batch (a stuck sensor, a padding
    channel, an all-zero column after filtering) has standard deviation 0, and `0 / 0` is NaN; with
    PyTorch's default unbiased estimator a single-sample batch gives NaN too. The NaN enters the
    inputs and reaches the loss a few steps later, far from this line.
    How to confirm: print `(s == 0).sum()` (or `torch.isnan(s).sum()`) for the standard deviation on a
    few batches or on the whole training set.
    What to do instead: divide by `s + eps` or `s.clamp(min=eps)` (eps around 1e-6 to 1e-8), drop
    constant features, or compute the statistics once on the training set and reuse them.
    """

    id = "std-division-without-eps"
    category = "numerical"
    severity = "warning"
    triggers = ("std",)  # torch.std, np.std, np.nanstd, .std()
    requires = (("/",), (call_to("std", "nanstd"),))

    def check(self, ctx: FileContext):
        if not ctx.imports_any(*_ML_FRAMEWORKS):
            return  # statistics libraries divide by a sample std on purpose; this is about model inputs
        for node in ctx.nodes_of(ast.BinOp):
            if not isinstance(node.op, ast.Div):
                continue
            std = _axis_std(ctx, node.right)
            if std is None:
                continue
            via = "" if node.right is std else f" (`{ctx.segment(node.right, 30)}` = {ctx.segment(std, 50)} at line {std.lineno})"
            yield self.finding(
                ctx,
                node,
                "division by a per-axis standard deviation with no epsilon: a constant feature (or a one-sample "
                "batch) gives 0/0 = NaN",
                observation=f"{ctx.segment(node, 100)}{via}",
                next_test="Print (std == 0).sum() and torch.isnan(std).sum() for this standard deviation on a few batches.",
            )
