"""The ``raw-scores-into-log-prob-loss`` rule: raw scores (a linear layer's output) passed to `NLLLoss`, `KLDivLoss` or `CTCLoss`, which expect log-probabilities."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.loss_inputs import wrong_loss_inputs
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_LOSSES = {"nll_loss": "NLLLoss", "kl_div": "KLDivLoss", "ctc_loss": "CTCLoss"}


@register_rule
class RawScoresIntoLogProbLoss(Rule):
    """Raw scores passed to `NLLLoss`, `KLDivLoss` or `CTCLoss`, which expect log-probabilities.

    What it finds: the output of an affine layer (`nn.Linear`, a convolution, `F.linear`), directly or
    as the value a model's `forward` or last `nn.Sequential` layer returns (followed across helpers
    and files), used as the input of `nn.NLLLoss`/`F.nll_loss`, `nn.KLDivLoss`/`F.kl_div` or `nn.CTCLoss`/`F.ctc_loss`.
    Why it matters: these losses do not normalise their input. `nll_loss` returns `-input[target]`, so
    on raw scores it rewards making the target score large without bound (the loss goes negative and
    keeps falling) instead of making the target probable; `kl_div` computes `target * (log target -
    input)` with the same flaw, and `ctc_loss` sums the per-frame inputs along alignment paths as if they were log-probabilities: shifting all
    scores up lowers it without changing the distribution. The run trains and the loss curve looks like progress.
    How to confirm: print the loss on one batch: a negative NLL value, or one that keeps falling below
    zero, means the input was not log-probabilities; compare with `F.cross_entropy` on the same scores.
    What to do instead: apply `log_softmax` before the loss (`F.nll_loss(F.log_softmax(z, 1), y)`), or
    use `F.cross_entropy` on the raw scores.
    """

    id = "raw-scores-into-log-prob-loss"
    category = "loss"
    severity = "error"
    reach = "project"
    triggers = ("nll_loss", "NLLLoss", "kl_div", "KLDivLoss", "ctc_loss", "CTCLoss")
    requires = ((call_to(*value_origins.loss_callees(*_LOSSES)),),)

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, *_LOSSES, *_LOSSES.values()):
            return
        # reported at the loss call: the fix (log_softmax there, or cross_entropy) goes there, not at the layer
        for hit in wrong_loss_inputs(ctx, _LOSSES, {value_origins.RAW}, at_producer=False):
            if hit.origin.reduced:
                continue
            yield self.finding(
                hit.ctx,
                hit.node,
                f"raw scores from an affine layer reach {_LOSSES[hit.loss.name]}, which expects log-probabilities and does not"
                " normalise its input: the loss rewards large target scores without bound instead of probable targets",
                observation=hit.flow,
                next_test="print the loss on one batch: a negative value that keeps falling means raw scores went in",
            )
