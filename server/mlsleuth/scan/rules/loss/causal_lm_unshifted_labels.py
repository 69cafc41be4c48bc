"""The ``causal-lm-unshifted-labels`` rule: a hand-written next-token loss that compares each position's logits with its own input token."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

# Words that show a file does autoregressive language modelling, not reconstruction.
_CAUSAL_HINTS = re.compile(
    r"causal|gpt|llama|mistral|tril\(|subsequent_mask|lm_head|next[_ ]token|autoregress|generate\(", re.IGNORECASE
)

# A Trainer's compute_loss is checked only in a file that builds a causal LM and no per-token classifier.
_CAUSAL_MODEL = re.compile(r"ForCausalLM|LMHeadModel|CausalLM")
_PER_TOKEN_TASK = re.compile(r"TokenClassification|MaskedLM|mlm\s*=\s*True|ForConditionalGeneration")

_TOKEN_NAMES = re.compile(r"^(input_ids|token_ids|tokens|input_tokens|ids)$")

_SHAPE_ONLY = value_origins.PASSTHROUGH_METHODS | {"long"}


def _strip_shape(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[ast.AST | None, bool]:
    """Follow reshapes and local names to the tensor behind ``expr``; also say whether it was sliced."""
    sliced = False
    while expr is not None and depth < 8:
        depth += 1
        if isinstance(expr, ast.Call) and call_method(expr) in _SHAPE_ONLY and isinstance(expr.func, ast.Attribute):
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and value_origins.normalize(ctx.qualname(expr)) in value_origins.PASSTHROUGH_FUNCTIONS and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Subscript):
            if _has_slice(expr.slice):
                sliced = True
                return expr, sliced
            if isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
                return expr, sliced  # batch["input_ids"]
            expr = expr.value
        elif isinstance(expr, ast.Name):
            bound = value_origins.value(ctx, expr)
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


def _batch_labels(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``inputs.pop("labels")``, ``inputs["labels"]`` or ``inputs.get("labels")``: the labels of a Trainer batch."""
    if isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value == "labels":
        return True
    return (isinstance(expr, ast.Call) and call_method(expr) in ("pop", "get") and bool(expr.args)
            and isinstance(expr.args[0], ast.Constant) and expr.args[0].value == "labels")


def _logits_of_call(ctx: FileContext, expr: ast.AST | None) -> ast.Call | None:
    """The model call whose ``.logits`` (``["logits"]``, ``[0]``) ``expr`` is, when that call gets no ``labels=``."""
    if isinstance(expr, ast.Attribute) and expr.attr == "logits" or isinstance(expr, ast.Subscript) and isinstance(expr.slice, ast.Constant) and expr.slice.value in (0, "logits"):
        inner, _ = _strip_shape(ctx, expr.value)
    else:
        return None
    if not isinstance(inner, ast.Call) or any(kw.arg == "labels" for kw in inner.keywords):
        return None
    return inner


def _in_trainer_compute_loss(ctx: FileContext, node: ast.AST) -> bool:
    func = ctx.enclosing_function(node)
    cls = ctx.enclosing_class(node)
    if func is None or cls is None or func.name != "compute_loss":
        return False
    if not _CAUSAL_MODEL.search(ctx.source) or _PER_TOKEN_TASK.search(ctx.source):
        return False
    return any("Trainer" in (ast.unparse(base) or "") for base in cls.bases)


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
    The same check covers a Hugging Face `Trainer` subclass whose `compute_loss` scores `outputs.logits` of a
    model called without `labels=` against the batch's `labels` (`inputs.pop("labels")`, `inputs["labels"]`),
    which the usual collators fill with a copy of `input_ids`.
    What to do instead: shift by one: `F.cross_entropy(logits[:, :-1].reshape(-1, V), tokens[:, 1:].reshape(-1))`,
    or build `x, y = seq[:, :-1], seq[:, 1:]` in the data pipeline, or pass `labels=` to a Hugging Face
    model, which shifts internally.
    """

    id = "causal-lm-unshifted-labels"
    category = "loss"
    severity = "error"
    triggers = ("input_ids", "tokens", "token_ids", "compute_loss")
    requires = (("cross_entropy", "CrossEntropyLoss"), (_CAUSAL_HINTS,))

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, "cross_entropy", "CrossEntropyLoss"):
            return
        if not _CAUSAL_HINTS.search(ctx.source):
            return  # a sequence autoencoder legitimately reconstructs its own input
        for lc in value_origins.loss_calls(ctx):
            if lc.name != "cross_entropy" or lc.input is None or lc.target is None:
                continue
            if _in_trainer_compute_loss(ctx, lc.call):
                yield from self._trainer_loss(ctx, lc)
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

    def _trainer_loss(self, ctx: FileContext, lc):
        """A ``Trainer.compute_loss`` override scoring ``outputs.logits`` against the batch's unshifted ``labels``."""
        target, t_sliced = _strip_shape(ctx, lc.target)
        if t_sliced or not _batch_labels(ctx, target):
            return
        pred, p_sliced = _strip_shape(ctx, lc.input)
        if p_sliced:
            return
        model_call = _logits_of_call(ctx, pred)
        if model_call is None or _masked_lm(ctx, ctx.enclosing_function(lc.call)):
            return
        yield self.finding(
            ctx,
            lc.call,
            f"next-token loss without a shift in compute_loss: the logits of {ctx.segment(model_call, 60)} are scored "
            f"against the batch's labels at the same positions, so each position is trained to copy its own input",
            observation=(
                f"labels `{ctx.segment(target, 50)}` (a copy of input_ids in causal-LM collators) and the model's "
                f"logits (line {model_call.lineno}) reach {ctx.segment(lc.call, 100)} at line {lc.call.lineno} unsliced; "
                "the model gets no labels=, so nothing shifts them"
            ),
            next_test=(
                "Recompute this loss with logits[:, :-1] and labels[:, 1:]: if it is much higher than the logged "
                "training loss, the model has been learning to copy (mlsleuth trace confirms it at runtime: lm-targets-unshifted)."
            ),
        )
