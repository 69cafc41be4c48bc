"""The ``softmax-into-logit-loss`` rule: probabilities (softmax or sigmoid output) passed to a loss that expects raw logits."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.loss_inputs import wrong_loss_inputs
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_LOGIT_LOSSES = {"cross_entropy": "cross-entropy", "binary_cross_entropy_with_logits": "BCE-with-logits"}

_PROB_KINDS = {value_origins.SOFTMAX: "softmax", value_origins.SIGMOID: "sigmoid"}

_OWN_ACTIVATION = {"cross_entropy": "log-softmax", "binary_cross_entropy_with_logits": "log-sigmoid"}


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
    reach = "project"
    # The activation may sit in another module of the project (the model's file), so only the
    # loss must be in this file's text.
    triggers = ("cross_entropy", "CrossEntropyLoss", "BCEWithLogitsLoss")
    requires = ((call_to(*value_origins.loss_callees(*_LOGIT_LOSSES)),),)

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, "cross_entropy", "CrossEntropyLoss", "BCEWithLogitsLoss"):
            return
        for hit in wrong_loss_inputs(ctx, _LOGIT_LOSSES, set(_PROB_KINDS)):
            act = _PROB_KINDS[hit.origin.kind]
            yield self.finding(
                hit.ctx,
                hit.node,
                f"{act} output reaches a {_LOGIT_LOSSES[hit.loss.name]} loss, which expects raw logits and applies its own "
                f"{_OWN_ACTIVATION[hit.loss.name]}: it sees probabilities, so it cannot approach zero and its gradients shrink",
                observation=hit.flow,
                next_test=(
                    f"On one batch, compare the loss on the {act} output with the loss on the logits before "
                    f"the {act}; then overfit one small batch: with probabilities the loss stays well above zero."
                ),
            )
