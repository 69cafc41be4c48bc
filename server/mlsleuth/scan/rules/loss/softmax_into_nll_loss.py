"""The ``softmax-into-nll-loss`` rule: softmax probabilities passed to `NLLLoss`, which expects log-probabilities."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.loss_inputs import (
    describe_origin,
    loss_label,
    probability_inputs,
    report_site,
)
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
        seen: set[tuple[str, int]] = set()
        for lc in value_origins.loss_calls(ctx):
            if lc.name != "nll_loss" or lc.input is None:
                continue
            for site, found, helper in probability_inputs(ctx, lc, {value_origins.SOFTMAX}):
                where_ctx, node = report_site(ctx, lc.call, site, found)
                if (where_ctx.display_path, node.lineno) in seen:  # type: ignore[attr-defined]
                    continue
                seen.add((where_ctx.display_path, node.lineno))  # type: ignore[attr-defined]
                where = f"{loss_label(ctx, lc)} at line {lc.call.lineno}"
                if where_ctx is not ctx:
                    where += f" of {ctx.display_path}"
                if helper is not None:
                    where += f" inside {helper.name}()"
                yield self.finding(
                    where_ctx,
                    node,
                    "softmax probabilities reach NLLLoss, which expects log-probabilities: the loss is -p "
                    "instead of -log p, negative and weakly informative",
                    observation=f"{describe_origin(ctx, found)} flows into {where}",
                    next_test="Print this loss on one batch: a value between -1 and 0 means probabilities went in.",
                )
