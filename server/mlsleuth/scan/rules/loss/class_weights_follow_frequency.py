"""The ``class-weights-follow-frequency`` rule: loss class weights that grow with the class's size instead of shrinking."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.class_frequencies import per_class
from mlsleuth.scan.analysis.context import FileContext, keyword
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

# constructors and functions taking one weight per class, with the position of ``weight`` when passed positionally
_WEIGHTED = {
    "torch.nn.CrossEntropyLoss": 0,
    "torch.nn.NLLLoss": 0,
    "torch.nn.functional.cross_entropy": 2,
    "torch.nn.functional.nll_loss": 2,
}


@register_rule
class ClassWeightsFollowFrequency(Rule):
    """Loss class weights that grow with the class's size (counts or frequencies) instead of shrinking.

    What it finds: the `weight` of `CrossEntropyLoss`/`NLLLoss` (or `F.cross_entropy`/`F.nll_loss`) computed from
    class counts (`bincount`, `np.unique` counts, `Counter`, `value_counts`, counts accumulated with `+=`) without
    an inversion: the counts themselves, `counts / counts.sum()`, `log(counts)`, `sqrt(counts)`. Followed through
    names, helpers that return the weights (also as one element of a returned tuple), parameters filled by every
    caller, and other modules. `1 / counts`, `counts.sum() / counts`, `1 - freq`, `counts ** -0.5` and sklearn's
    `compute_class_weight("balanced", ...)` shrink with the class and are not reported.
    Why it matters: class weights exist to make rare classes count more. Weights proportional to the class size do
    the opposite: the majority class dominates the loss even more than without weights, rare classes are all but
    ignored, and the model drifts towards predicting the majority. Training looks normal; per-class recall on
    the rare classes collapses.
    How to confirm: print the weights next to the class counts: the largest class has the largest weight.
    What to do instead: invert the frequencies (`w = 1.0 / freq`, often normalised: `w = w / w.sum() * num_classes`,
    or `counts.sum() / (num_classes * counts)`).
    """

    id = "class-weights-follow-frequency"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("weight",)
    requires = ((call_to("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss"),),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("CrossEntropyLoss", "NLLLoss", "cross_entropy", "nll_loss"):
            position = _WEIGHTED.get(vo.normalize(ctx.qualname(call)) or "")
            if position is None:
                continue
            weight = keyword(call, "weight")
            if weight is None and len(call.args) > position:
                weight = call.args[position]
            if weight is None or isinstance(weight, ast.Constant):
                continue
            found = per_class(ctx, weight)
            if found is None or found.inverse is not False:
                continue
            yield self.finding(
                ctx,
                call,
                f"the class weights `{ctx.segment(weight, 40)}` grow with the class's size: the majority class gets the largest "
                "weight, so the weighting amplifies the imbalance it was meant to correct",
                observation=f"`{ctx.segment(weight, 40)}` is proportional to the class counts from {found.describe()}, never inverted",
                next_test="Print the weights next to the class counts: the largest class has the largest weight.",
            )
