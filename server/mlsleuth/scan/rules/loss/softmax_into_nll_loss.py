"""The ``softmax-into-nll-loss`` rule: softmax probabilities passed to `NLLLoss`, which expects log-probabilities."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.loss_inputs import wrong_loss_inputs
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule


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
    reach = "project"
    triggers = ("nll_loss", "NLLLoss")  # the softmax may be in another module of the project
    requires = ((call_to(*value_origins.loss_callees("nll_loss")),),)

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, "nll_loss", "NLLLoss"):
            return
        for hit in wrong_loss_inputs(ctx, {"nll_loss"}, {value_origins.SOFTMAX}):
            yield self.finding(
                hit.ctx,
                hit.node,
                "softmax probabilities reach NLLLoss, which expects log-probabilities: the loss is -p "
                "instead of -log p, negative and weakly informative",
                observation=hit.flow,
                next_test="Print this loss on one batch: a value between -1 and 0 means probabilities went in.",
            )
