"""The ``sampler-weights-follow-frequency`` rule: per-sample sampling weights that grow with the class's size."""

from __future__ import annotations

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.class_frequencies import per_sample_lookup
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_SAMPLERS = frozenset({"torch.utils.data.WeightedRandomSampler", "torch.utils.data.sampler.WeightedRandomSampler"})


@register_rule
class SamplerWeightsFollowFrequency(Rule):
    """Sampler weights that grow with the class's size.

    What it finds: a `WeightedRandomSampler` whose per-sample weights look up a per-class table of counts or
    frequencies that was never inverted: `counts[labels]`, `[freq[y] for y in labels]`, `labels.map(freq)`, where
    the table comes from `bincount`, `np.unique(..., return_counts=True)`, `Counter`, `value_counts` or counts
    accumulated with `+=` (followed as the `class-weights-follow-frequency` rule follows loss weights). Lookups of
    `1 / counts`, `counts.sum() / counts` or sklearn's balanced weights are the intended form and stay silent.
    Why it matters: a weighted sampler is there to draw rare classes more often. Weights proportional to the
    class size draw each class with probability proportional to its size squared, so the majority class fills
    the batches even more than with plain shuffling and the rare classes are almost never seen; training runs
    normally and per-class recall on the rare classes collapses.
    How to confirm: draw one epoch from the sampler and count the labels: the common classes are
    over-represented compared with the dataset.
    What to do instead: look up inverse frequencies: `sample_w = (1.0 / counts)[labels]`.
    """

    id = "sampler-weights-follow-frequency"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = ("WeightedRandomSampler",)
    requires = ((call_to("WeightedRandomSampler"),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("WeightedRandomSampler"):
            if (vo.normalize(ctx.qualname(call)) or "") not in _SAMPLERS:
                continue
            weights = call.args[0] if call.args else keyword(call, "weights")
            found = per_sample_lookup(ctx, weights)
            if found is None or found.inverse is not False:
                continue
            yield self.finding(
                ctx,
                call,
                f"the sampling weights `{ctx.segment(weights, 40)}` grow with the class's size: common classes are drawn "
                "even more often than without weights, rare ones almost never",
                observation=f"`{ctx.segment(weights, 40)}` looks up class counts from {found.describe()}, never inverted",
            )
