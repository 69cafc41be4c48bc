"""The ``sampler-weights-per-class`` rule: `WeightedRandomSampler` given one weight per class instead of one per sample."""

from __future__ import annotations


from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.class_frequencies import per_class
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_SAMPLERS = frozenset({"torch.utils.data.WeightedRandomSampler", "torch.utils.data.sampler.WeightedRandomSampler"})


@register_rule
class SamplerWeightsPerClass(Rule):
    """`WeightedRandomSampler` given one weight per class instead of one weight per sample.

    What it finds: a `WeightedRandomSampler` whose `weights` are class counts or inverse class
    frequencies (`np.bincount`, `torch.bincount`, `np.unique(..., return_counts=True)`, `Counter`,
    pandas `value_counts`, sklearn `compute_class_weight`, or arithmetic on them such as `1.0 / counts`),
    followed through local names, conversions and helper functions across the project, and never
    indexed by the samples' labels (`class_w[labels]` is the correct form and stays silent).
    Why it matters: the sampler draws dataset indices from `range(len(weights))`. With one weight per
    class it only ever returns indices 0..num_classes-1, so every epoch is `num_samples` copies of the
    first few samples. Training runs, the loss falls fast (a handful of samples memorised) and
    validation stays at chance; nothing errors.
    How to confirm: iterate the sampler once and print `set(iter(sampler))`, or check
    `len(weights) == len(dataset)`.
    What to do instead: turn the per-class table into per-sample weights before building the
    sampler: `sample_w = class_w[labels]` (or `[class_w[y] for y in labels]`), one entry per sample.
    """

    id = "sampler-weights-per-class"
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
            found = per_class(ctx, weights)
            if found is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"WeightedRandomSampler gets one weight per class ({ctx.segment(weights, 40)}), but it draws dataset indices "
                f"from range(len(weights)): it will only ever sample the first num_classes examples",
                observation=f"`{ctx.segment(weights, 40)}` holds one entry per class: it comes from {found.describe()}",
                next_test="Print set(iter(sampler)): only indices below the number of classes appear; or check len(weights) == len(dataset).",
            )
