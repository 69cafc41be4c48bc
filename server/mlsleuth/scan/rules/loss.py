"""Rules about what reaches the loss: probabilities where logits belong, unshifted LM labels."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan import flow_a
from mlsleuth.scan.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, call_to, register_rule

_LOGIT_LOSSES = {"cross_entropy": "cross-entropy", "binary_cross_entropy_with_logits": "BCE-with-logits"}
_PROB_KINDS = {flow_a.SOFTMAX: "softmax", flow_a.SIGMOID: "sigmoid"}
_OWN_ACTIVATION = {"cross_entropy": "log-softmax", "binary_cross_entropy_with_logits": "log-sigmoid"}


def _loss_label(ctx: FileContext, lc: flow_a.LossCall) -> str:
    return ctx.segment(lc.call.func, 60) + "(...)"


def _describe(ctx: FileContext, found: flow_a.Origin) -> str:
    made = f"{found.label or ctx.segment(found.node, 70)} at line {found.node.lineno}"  # type: ignore[attr-defined]
    if found.via:
        made += " (via " + "; ".join(found.via) + ")"
    return made


def _bad_inputs(ctx: FileContext, lc: flow_a.LossCall, kinds: set[str]):
    """(report_node, origin, passed_through) for every probability-like value reaching ``lc.input``.

    The value is followed inside the function; when the input is a parameter
    of a helper, each call site of that helper in the file is checked and
    the finding points at the call site that passes the wrong value.
    """
    found = flow_a.origin(ctx, lc.input)
    if found is not None:
        if found.kind in kinds:
            yield lc.call, found, None
        return
    if isinstance(lc.input, ast.Name) and flow_a.is_parameter(ctx, lc.input):
        func = ctx.enclosing_function(lc.input)
        for site in flow_a.call_sites(ctx, func):
            arg = flow_a.argument_for(site, func, lc.input.id)
            outer = flow_a.origin(ctx, arg) if arg is not None else None
            if outer is not None and outer.kind in kinds:
                yield site, outer, func


@register_rule
class SoftmaxIntoLogitLoss(Rule):
    """Probabilities (softmax or sigmoid output) passed to a loss that expects raw logits.

    What it finds: the output of `softmax`/`sigmoid` (`F.softmax`, `torch.softmax`, `x.softmax(1)`,
    `nn.Softmax()`, a model whose `forward` or final `nn.Sequential` layer applies one) used as the
    prediction argument of `nn.CrossEntropyLoss`/`F.cross_entropy` or
    `nn.BCEWithLogitsLoss`/`F.binary_cross_entropy_with_logits`. The value is followed through local
    names, `self.` attributes, model classes and helper functions defined in the same file.
    Why it matters: these losses apply log-softmax (or log-sigmoid) themselves. Fed probabilities, they
    squash values that already lie in [0, 1], so the loss can never get near zero and the gradients
    shrink as the model grows confident. Training does not crash: accuracy stalls a few points short
    and the loss plateaus well above zero, which looks like a capacity or learning-rate problem.
    How to confirm: on one batch, print `criterion(probs, y)` next to `criterion(logits, y)`; then try
    to overfit a single small batch: with probabilities the loss stays far from zero.
    What to do instead: pass the raw logits to the loss and keep `softmax`/`sigmoid` for metrics and
    inference only. If the model must return probabilities, return logits from `forward` and apply the
    activation in a separate `predict` method.
    """

    id = "softmax-into-logit-loss"
    category = "loss"
    severity = "error"
    triggers = ("softmax", "Softmax", "sigmoid", "Sigmoid", "expit")
    requires = (
        ("cross_entropy", "CrossEntropyLoss", "BCEWithLogitsLoss"),  # the check's own first test
        (call_to(*flow_a.loss_callees(*_LOGIT_LOSSES)),),
        (call_to(*flow_a.origin_callees(*_PROB_KINDS)),),
    )

    def check(self, ctx: FileContext):
        if not flow_a.mentions(ctx, "cross_entropy", "CrossEntropyLoss", "BCEWithLogitsLoss"):
            return
        seen: set[int] = set()
        for lc in flow_a.loss_calls(ctx):
            if lc.name not in _LOGIT_LOSSES or lc.input is None:
                continue
            for node, found, helper in _bad_inputs(ctx, lc, set(_PROB_KINDS)):
                if node.lineno in seen:  # type: ignore[attr-defined]
                    continue
                seen.add(node.lineno)  # type: ignore[attr-defined]
                act = _PROB_KINDS[found.kind]
                loss = _LOGIT_LOSSES[lc.name]
                where = f"{_loss_label(ctx, lc)} at line {lc.call.lineno}"
                if helper is not None:
                    where += f" inside {helper.name}()"
                if lc.via:
                    where += f" (criterion {lc.via})"
                yield self.finding(
                    ctx,
                    node,
                    f"{act} output reaches a {loss} loss, which expects raw logits and applies its own "
                    f"{_OWN_ACTIVATION[lc.name]}: it sees probabilities, so it cannot approach zero and its gradients shrink",
                    observation=f"{_describe(ctx, found)} flows into {where}",
                    next_test=(
                        f"On one batch, compare the loss on the {act} output with the loss on the logits before "
                        f"the {act}; then overfit one small batch: with probabilities the loss stays well above zero."
                    ),
                )


@register_rule
class SoftmaxIntoNllLoss(Rule):
    """Softmax probabilities passed to `NLLLoss`, which expects log-probabilities.

    What it finds: the output of a softmax (function, method, `nn.Softmax` module or a model ending in
    one) used as the prediction argument of `nn.NLLLoss`/`F.nll_loss`.
    Why it matters: `nll_loss` just picks `-input[target]`. Given probabilities instead of
    log-probabilities it minimises `-p`, a bounded objective whose gradient does not grow for wrong,
    confident predictions: the model learns slowly, the reported loss is negative, and it is not the
    cross-entropy anyone meant.
    How to confirm: print the loss on one batch: a negative value between -1 and 0 means probabilities
    went in. `F.nll_loss(torch.log_softmax(z, 1), y)` on the same logits gives the intended value.
    What to do instead: use `log_softmax` (or `nn.LogSoftmax`) before `NLLLoss`, or drop the activation
    and use `CrossEntropyLoss` on the logits.
    """

    id = "softmax-into-nll-loss"
    category = "loss"
    severity = "error"
    triggers = ("softmax", "Softmax")
    requires = (("nll_loss", "NLLLoss"), (call_to(*flow_a.loss_callees("nll_loss")),), (call_to(*flow_a.origin_callees(flow_a.SOFTMAX)),))

    def check(self, ctx: FileContext):
        if not flow_a.mentions(ctx, "nll_loss", "NLLLoss"):
            return
        seen: set[int] = set()
        for lc in flow_a.loss_calls(ctx):
            if lc.name != "nll_loss" or lc.input is None:
                continue
            for node, found, helper in _bad_inputs(ctx, lc, {flow_a.SOFTMAX}):
                if node.lineno in seen:  # type: ignore[attr-defined]
                    continue
                seen.add(node.lineno)  # type: ignore[attr-defined]
                where = f"{_loss_label(ctx, lc)} at line {lc.call.lineno}"
                if helper is not None:
                    where += f" inside {helper.name}()"
                yield self.finding(
                    ctx,
                    node,
                    "softmax probabilities reach NLLLoss, which expects log-probabilities: the loss is -p "
                    "instead of -log p, negative and weakly informative",
                    observation=f"{_describe(ctx, found)} flows into {where}",
                    next_test="Print this loss on one batch: a value between -1 and 0 means probabilities went in.",
                )


# -- causal language modelling ------------------------------------------------------------

# Words that show a file does autoregressive language modelling, not reconstruction.
_CAUSAL_HINTS = re.compile(
    r"causal|gpt|llama|mistral|tril\(|subsequent_mask|lm_head|next[_ ]token|autoregress|generate\(", re.IGNORECASE
)
_TOKEN_NAMES = re.compile(r"^(input_ids|token_ids|tokens|input_tokens|ids)$")
_SHAPE_ONLY = flow_a.PASSTHROUGH_METHODS | {"long"}


def _strip_shape(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[ast.AST | None, bool]:
    """Follow reshapes and local names to the tensor behind ``expr``; also say whether it was sliced."""
    sliced = False
    while expr is not None and depth < 8:
        depth += 1
        if isinstance(expr, ast.Call) and call_method(expr) in _SHAPE_ONLY and isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and flow_a.normalize(ctx.qualname(expr)) in flow_a.PASSTHROUGH_FUNCTIONS and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Subscript):
            if _has_slice(expr.slice):
                sliced = True
                return expr, sliced
            if isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
                return expr, sliced  # batch["input_ids"]
            expr = expr.value
        elif isinstance(expr, ast.Name):
            bound = flow_a.value(ctx, expr)
            if bound is None or bound is expr:
                return expr, sliced
            expr = bound
        else:
            return expr, sliced
    return expr, sliced


def _has_slice(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Slice) for n in ast.walk(node))


def _token_source(expr: ast.AST | None) -> str | None:
    """``input_ids`` for a name or ``batch["input_ids"]`` that holds token ids, else None."""
    if isinstance(expr, ast.Name) and _TOKEN_NAMES.match(expr.id):
        return expr.id
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value in ("input_ids", "tokens"):
        return str(expr.slice.value)
    return None


def _same_tensor(ctx: FileContext, a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a) == ast.dump(b)


def _model_call_on(ctx: FileContext, expr: ast.AST | None, tokens: ast.AST) -> ast.Call | None:
    """The model call whose output ``expr`` is, when that call receives ``tokens``."""
    if isinstance(expr, ast.Attribute) and expr.attr == "logits":
        expr, _ = _strip_shape(ctx, expr.value)
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value in (0, "logits"):
        expr, _ = _strip_shape(ctx, expr.value)
    if not isinstance(expr, ast.Call):
        return None
    for arg in [*expr.args, *(kw.value for kw in expr.keywords)]:
        inner, sliced = _strip_shape(ctx, arg)
        if not sliced and inner is not None and _same_tensor(ctx, inner, tokens):
            return expr
    return None


def _masked_lm(ctx: FileContext, func: ast.AST | None) -> bool:
    """Masked-LM code predicts the token at its own position: no shift is wanted there."""
    scope = func if func is not None else ctx.tree
    for node in ctx.walk_scope(scope):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Subscript) for t in targets):
                return True
        if isinstance(node, ast.Name) and re.search(r"mlm|masked|mask_token", node.id, re.IGNORECASE):
            return True
        if isinstance(node, ast.Attribute) and re.search(r"mlm|masked|mask_token", node.attr, re.IGNORECASE):
            return True
    return False


@register_rule
class CausalLmUnshiftedLabels(Rule):
    """A hand-written next-token loss that compares each position's logits with its own input token.

    What it finds: a cross-entropy whose prediction is the output of a model called on a token tensor
    (`input_ids`, `tokens`, `batch["input_ids"]`) and whose target is that same token tensor, with no
    slicing on either side (`logits[:, :-1]` against `input_ids[:, 1:]`), in a file that shows it does
    autoregressive modelling (causal masks, `tril`, GPT/`CausalLM` names, `generate(`). Masked-LM code
    (labels edited by index, `mlm`/`mask_token` names), sequence autoencoders and models that receive
    `labels=` and shift internally are not flagged.
    Why it matters: with causal attention, position t can see token t, so the model learns to copy its
    input: the training loss collapses towards zero within a few hundred steps while generation stays
    garbage. It is one of the classic silent bugs of home-made GPT training loops.
    How to confirm: the training loss falls far below what the dataset allows (near 0 nats per token)
    while sampled text is nonsense; compute the loss once with `logits[:, :-1]` and `tokens[:, 1:]` and
    see it jump back up.
    What to do instead: shift by one: `F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1))`,
    or build `x, y = seq[:, :-1], seq[:, 1:]` in the data pipeline, or pass `labels=` to a Hugging Face
    model, which shifts internally.
    """

    id = "causal-lm-unshifted-labels"
    category = "loss"
    severity = "error"
    triggers = ("input_ids", "tokens", "token_ids")
    requires = (("cross_entropy", "CrossEntropyLoss"), (_CAUSAL_HINTS,))

    def check(self, ctx: FileContext):
        if not flow_a.mentions(ctx, "cross_entropy", "CrossEntropyLoss"):
            return
        if not _CAUSAL_HINTS.search(ctx.source):
            return  # a sequence autoencoder legitimately reconstructs its own input
        for lc in flow_a.loss_calls(ctx):
            if lc.name != "cross_entropy" or lc.input is None or lc.target is None:
                continue
            target, t_sliced = _strip_shape(ctx, lc.target)
            # labels = input_ids.clone(): follow once more through the clone
            tokens_name = _token_source(target)
            if t_sliced or tokens_name is None:
                continue
            pred, p_sliced = _strip_shape(ctx, lc.input)
            if p_sliced:
                continue
            model_call = _model_call_on(ctx, pred, target)
            if model_call is None:
                continue
            if any(kw.arg == "labels" for kw in model_call.keywords):
                continue
            if _masked_lm(ctx, ctx.enclosing_function(lc.call)):
                continue
            yield self.finding(
                ctx,
                lc.call,
                f"next-token loss without a shift: logits from {ctx.segment(model_call, 60)} are scored against "
                f"the same `{tokens_name}` they were computed from, so each position is trained to copy its own input",
                observation=(
                    f"model call at line {model_call.lineno} receives `{tokens_name}`; {ctx.segment(lc.call, 120)} "
                    f"at line {lc.call.lineno} uses `{tokens_name}` unshifted as the target"
                ),
                next_test=(
                    "Recompute this loss with logits[:, :-1] and targets[:, 1:]: if it is much higher than the "
                    "current training loss, the model has been learning to copy."
                ),
            )
