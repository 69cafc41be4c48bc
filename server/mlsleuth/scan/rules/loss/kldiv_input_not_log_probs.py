"""The ``kldiv-input-not-log-probs`` rule: probabilities passed as the input of `KLDivLoss`/`F.kl_div`, which expects log-probabilities."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.loss_inputs import wrong_loss_inputs
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_PROB_KINDS = {value_origins.SOFTMAX: "softmax", value_origins.SIGMOID: "sigmoid", value_origins.NORMALIZED: "normalised"}


@register_rule
class KlDivInputNotLogProbs(Rule):
    """Probabilities passed as the input of `KLDivLoss`/`F.kl_div`, which expects log-probabilities.

    What it finds: the output of `softmax`/`sigmoid` (a function, a method, a module, a model ending in
    one, or a batch mean or sort of such probabilities), or a distribution made by hand (a non-negative
    value divided by its own sum, `q / q.sum(1, keepdim=True)`, as DEC's soft assignments) used as the first argument of
    `nn.KLDivLoss()(input, target)` or `F.kl_div(input, target)`, followed across helpers, models and
    files as the other loss rules do.
    Why it matters: unlike most PyTorch losses, `kl_div` takes its *input* in log space (only the
    target may be plain probabilities, or log space too with `log_target=True`). It computes
    `target * (log(target) - input)`; given probabilities, `- target * p` rewards making the student's
    probability large wherever the teacher has mass. The loss is not a KL divergence, can go negative,
    and the student becomes over-confident instead of matching the teacher. Distillation, clustering
    (DEC) and prior-matching regularisers train on without any error.
    How to confirm: compute `F.kl_div(p.log(), q)` and `F.kl_div(p, q)` on one batch: only the first is
    non-negative and zero when `p == q`.
    What to do instead: pass `F.log_softmax(logits, dim)` (or `torch.log(p.clamp_min(eps))` when only
    probabilities exist) as the input.
    """

    id = "kldiv-input-not-log-probs"
    category = "loss"
    severity = "error"
    reach = "project"
    triggers = ("kl_div", "KLDivLoss")  # the activation may be in another module of the project
    requires = ((call_to(*value_origins.loss_callees("kl_div")),),)

    def check(self, ctx: FileContext):
        if not value_origins.mentions(ctx, "kl_div", "KLDivLoss"):
            return
        # softmax/sigmoid: the fix may be to drop the activation where it is made (a model's last layer);
        # a normalised ratio stays and is logged where the loss takes it
        by_hand = {value_origins.NORMALIZED}
        hits = [*wrong_loss_inputs(ctx, {"kl_div"}, set(_PROB_KINDS) - by_hand), *wrong_loss_inputs(ctx, {"kl_div"}, by_hand, at_producer=False)]
        for hit in hits:
            yield self.finding(
                hit.ctx,
                hit.node,
                f"{_PROB_KINDS[hit.origin.kind]} probabilities are the input of a KL-divergence loss, which expects"
                " log-probabilities as its input: the value computed is not a KL divergence and it rewards over-confident predictions",
                observation=hit.flow,
                next_test="On one batch compare kl_div(p.log(), q) with kl_div(p, q): only the first is >= 0 and 0 when p == q.",
                fix=(
                    "pass torch.log(q.clamp_min(1e-8)) (the log of the normalised values) as the input"
                    if hit.origin.kind == value_origins.NORMALIZED
                    else "pass F.log_softmax(logits, dim) (or torch.log(p.clamp_min(1e-8))) as the input"
                ),
            )
