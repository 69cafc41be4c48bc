"""The ``loss-arguments-swapped`` rule: an asymmetric torch loss called with the target first and the prediction second."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.argument_roles import Slot, also_called_in_order, deliberate, name_of, output_role
from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.registry import Rule, register_rule

# What trading the two places does, per loss (MSE, L1, Huber and smooth L1 are left out: their value and their
# gradient with respect to the prediction are the same either way round).
_EFFECT = {
    "cross_entropy": "the labels are read as scores and the scores as (soft) targets",
    "nll_loss": "the labels are read as log-probabilities",
    "binary_cross_entropy": "the log is taken of the targets, not of the predicted probabilities",
    "binary_cross_entropy_with_logits": "the targets are passed through a sigmoid as if they were logits, and the "
    "prediction is used as the target",
    "kl_div": "it measures the divergence the other way round, with the prediction as the reference",
    "ctc_loss": "the label sequences are read as log-probabilities",
    "poisson_nll_loss": "the counts are read as the predicted rate",
    "gaussian_nll_loss": "the observations are read as the predicted mean",
    "soft_margin_loss": "the ±1 labels are read as scores",
    "multilabel_soft_margin_loss": "the labels are read as scores",
    "hinge_embedding_loss": "the ±1 labels are read as distances",
    "sigmoid_focal_loss": "the targets are passed through a sigmoid as if they were logits",
}
_MORE_FUNCTIONS = {
    "torch.nn.functional.poisson_nll_loss": "poisson_nll_loss",
    "torch.nn.functional.gaussian_nll_loss": "gaussian_nll_loss",
    "torch.nn.functional.soft_margin_loss": "soft_margin_loss",
    "torch.nn.functional.multilabel_soft_margin_loss": "multilabel_soft_margin_loss",
    "torch.nn.functional.hinge_embedding_loss": "hinge_embedding_loss",
    "torchvision.ops.sigmoid_focal_loss": "sigmoid_focal_loss",
    "torchvision.ops.focal_loss.sigmoid_focal_loss": "sigmoid_focal_loss",
}
_MORE_CLASSES = {
    "torch.nn.PoissonNLLLoss": "poisson_nll_loss",
    "torch.nn.GaussianNLLLoss": "gaussian_nll_loss",
    "torch.nn.SoftMarginLoss": "soft_margin_loss",
    "torch.nn.MultiLabelSoftMarginLoss": "multilabel_soft_margin_loss",
    "torch.nn.HingeEmbeddingLoss": "hinge_embedding_loss",
}
def _loss(ctx: FileContext, call: ast.Call) -> tuple[str, ast.expr | None, ast.expr | None] | None:
    """(loss name, input, target) when ``call`` computes a known asymmetric loss."""
    found = vo.loss_call(ctx, call)
    if found is not None:
        return found.name, found.input, found.target
    qual = vo.normalize(ctx.qualname(call))
    name = _MORE_FUNCTIONS.get(qual or "")
    if name is None and isinstance(call.func, (ast.Name, ast.Attribute)):
        bound = vo.value(ctx, call.func)
        if isinstance(bound, ast.Call):
            name = _MORE_CLASSES.get(vo.normalize(ctx.qualname(bound)) or "")
    if name is None:
        name = _held_criterion(ctx, call)
    if name is None:
        return None
    first = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in {"input", "inputs"}), None)
    second = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg in {"target", "targets"}), None)
    return name, first, second


def _held_criterion(ctx: FileContext, call: ast.Call) -> str | None:
    """``model.crit(a, b)`` / ``self.model.criterion(a, b)``: a loss module held as an attribute of an instance
    of a project class, bound in that class only to constructions of one known loss."""
    func = call.func
    if not isinstance(func, ast.Attribute) or isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
        return None
    if isinstance(func.value, ast.Name) and func.value.id in ctx.imports:
        return None
    owner = vo.instance_class(ctx, func.value, bind_params=False)
    if owner is None:
        return None
    octx, cls = owner
    values = octx.self_attributes(cls).get(func.attr, [])
    names = set()
    for value in values:
        if not isinstance(value, ast.Call):
            return None
        qual = vo.normalize(octx.qualname(value)) or ""
        found = vo.LOSS_CLASSES.get(qual) or _MORE_CLASSES.get(qual)
        if found is None:
            return None
        names.add(found)
    return names.pop() if len(names) == 1 else None


# Pairwise ranking losses: (score, score, ±1 target).
_RANKING_FUNCTIONS = {"torch.nn.functional.margin_ranking_loss": "margin_ranking_loss",
                      "torch.nn.functional.cosine_embedding_loss": "cosine_embedding_loss"}
_RANKING_CLASSES = {"torch.nn.MarginRankingLoss": "margin_ranking_loss",
                    "torch.nn.CosineEmbeddingLoss": "cosine_embedding_loss"}
# Triplet losses: (anchor, positive, negative).
_TRIPLET_FUNCTIONS = {"torch.nn.functional.triplet_margin_loss": "triplet_margin_loss",
                      "torch.nn.functional.triplet_margin_with_distance_loss": "triplet_margin_with_distance_loss"}
_TRIPLET_CLASSES = {"torch.nn.TripletMarginLoss": "triplet_margin_loss",
                    "torch.nn.TripletMarginWithDistanceLoss": "triplet_margin_with_distance_loss"}
_POSITIVE_WORDS = frozenset({"pos", "positive", "positives"})
_NEGATIVE_WORDS = frozenset({"neg", "negative", "negatives"})


def _three_argument_loss(ctx: FileContext, call: ast.Call, functions: dict, classes: dict) -> str | None:
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in functions:
        return functions[qual]
    if isinstance(call.func, (ast.Name, ast.Attribute)):
        bound = vo.value(ctx, call.func)
        if isinstance(bound, ast.Call):
            return classes.get(vo.normalize(ctx.qualname(bound)) or "")
    return None


def _argument(call: ast.Call, position: int, *names: str) -> ast.expr | None:
    if any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    if position < len(call.args):
        return call.args[position]
    return next((k.value for k in call.keywords if k.arg in names), None)


def _side(expr: ast.AST | None) -> str | None:
    """"pos" / "neg" when the argument's name says it is the positive or the negative of a pair."""
    name = name_of(expr)
    if name is None:
        return None
    parts = set(vo.words(name))
    pos, neg = bool(parts & _POSITIVE_WORDS), bool(parts & _NEGATIVE_WORDS)
    return "pos" if pos and not neg else "neg" if neg and not pos else None


def _ones_target(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """``torch.ones_like(s)`` / ``torch.ones(n)`` / a name bound to one: every pair says "first ranks higher"."""
    if expr is None or depth > 3:
        return False
    if isinstance(expr, ast.Name):
        bound = vo.local_value(ctx, expr)
        return bound is not None and bound is not expr and _ones_target(ctx, bound, depth + 1)
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in ("to", "float", "cuda"):
        return _ones_target(ctx, expr.func.value, depth + 1)
    return isinstance(expr, ast.Call) and (vo.normalize(ctx.qualname(expr)) or "") in ("torch.ones", "torch.ones_like")


def _role_crossing(ctx: FileContext, call: ast.Call) -> tuple[str, str] | None:
    """(loss name, what goes wrong) for a ranking or triplet loss whose arguments play the wrong parts."""
    triplet = _three_argument_loss(ctx, call, _TRIPLET_FUNCTIONS, _TRIPLET_CLASSES)
    if triplet is not None:
        positive, negative = _argument(call, 1, "positive"), _argument(call, 2, "negative")
        if _side(positive) == "neg" and _side(negative) == "pos":
            return triplet, (f"the negative `{ctx.segment(positive, 40)}` is passed as the positive and the positive "
                             f"`{ctx.segment(negative, 40)}` as the negative, so training pulls the anchor toward its "
                             "negatives and pushes it away from its positives")
        return None
    ranking = _three_argument_loss(ctx, call, _RANKING_FUNCTIONS, _RANKING_CLASSES)
    if ranking is None:
        return None
    first, second, target = _argument(call, 0, "input1", "x1"), _argument(call, 1, "input2", "x2"), _argument(call, 2, "target", "y")
    if ranking == "margin_ranking_loss" and _side(first) == "neg" and _side(second) == "pos" and _ones_target(ctx, target):
        return ranking, (f"with an all-ones target the first score must rank higher, but the first is the negative "
                         f"`{ctx.segment(first, 40)}` and the second the positive `{ctx.segment(second, 40)}`: "
                         "training ranks negatives above positives")
    if target is not None and output_role(ctx, target) == "pred" \
            and any(a is not None and output_role(ctx, a) == "true" for a in (first, second)):
        held = first if first is not None and output_role(ctx, first) == "true" else second
        return ranking, (f"the ±1 target slot gets the prediction `{ctx.segment(target, 40)}` while the reference "
                         f"`{ctx.segment(held, 40)}` sits in a score slot")
    return None


def _slot(call: ast.Call, arg: ast.expr, position: int) -> Slot:
    if position < len(call.args) and call.args[position] is arg:
        return Slot("", arg, position)
    return Slot(next((k.arg for k in call.keywords if k.value is arg), "") or "", arg, None)


@register_rule
class LossArgumentsSwapped(Rule):
    """An asymmetric loss called with the target first and the prediction second

    What it finds: `F.cross_entropy`, `F.nll_loss`, `F.binary_cross_entropy(_with_logits)`, `F.kl_div`,
    `F.ctc_loss`, `F.poisson_nll_loss`, `F.gaussian_nll_loss`, the soft-margin and hinge-embedding
    losses and torchvision's `sigmoid_focal_loss`, called directly or through an instance of the
    matching `nn.*Loss` (a local, `self.criterion`, a parameter its callers fill, a config dict entry,
    an attribute of an instance of a project class: `model.crit(...)`),
    whose first argument is a reference (`labels`, `y`, `targets`, `batch["label"]`, `target_logp`) and
    whose second is a prediction (`logits`, `outputs`, `pred`, the output of a model call). MSE, L1,
    Huber and smooth L1 are not reported: the squared or absolute difference is the same either way
    round, and so is its gradient with respect to the prediction. Also the three-argument losses whose
    slots play fixed parts: a triplet loss (`F.triplet_margin_loss`, `nn.TripletMarginLoss`) handed the
    negative as the positive and the positive as the negative (told by their names), a margin ranking
    loss handed the negative score first and the positive second with an all-ones target, and a margin
    ranking or cosine embedding loss whose ±1 target slot gets a prediction while a reference sits in a
    score slot. Calls in functions named for a
    reversal (`reverse_kl`), or with a comment announcing the order, are left alone.
    Why it matters: these losses treat their two arguments differently (the log is taken of one, the
    sigmoid applied to one, the divergence measured from one), so the swapped call trains the model
    toward something else. With soft or float targets nothing fails: BCE takes the log of the labels,
    BCE-with-logits squashes the labels and fits them toward the prediction, KL measures the reverse
    divergence. Public reports: a VAE objective whose BCE-with-logits arguments were crossed during a
    refactor (https://github.com/autonomousvision/sledge/issues/4); a KLDivLoss called as (target,
    input) in an attention-adversary experiment (https://github.com/sarahwie/attention/issues/6); an
    actor-critic implementation whose KL term had its two distributions reversed
    (https://github.com/Kaixhin/ACER/issues/6).
    How to confirm: compute the loss both ways on one batch: the values and the gradients with respect
    to the model's output differ.
    What to do instead: pass the prediction first and the target second, or name them:
    `F.binary_cross_entropy_with_logits(input=logits, target=labels)`.
    """

    id = "loss-arguments-swapped"
    category = "loss"
    severity = "warning"
    reach = "file"
    triggers = ("cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "BCE", "kl_div", "KLDivLoss", "ctc_loss",
                "CTCLoss", "margin_loss", "MarginLoss", "focal_loss", "HingeEmbeddingLoss", "hinge_embedding_loss", "crit",
                "triplet", "Triplet", "ranking_loss", "RankingLoss", "embedding_loss", "EmbeddingLoss")

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if len(call.args) + len(call.keywords) < 2:
                continue
            crossing = _role_crossing(ctx, call)
            if crossing is not None:
                if not deliberate(ctx, call, None):
                    yield self.finding(ctx, call, f"`{ctx.segment(call.func, 50)}`: {crossing[1]}",
                                       next_test="Compute the loss with the two arguments in their own places on one batch; "
                                       "the value and the gradients differ.",
                                       measurements={"loss": crossing[0]})
                continue
            found = _loss(ctx, call)
            if found is None:
                continue
            name, first, second = found
            if name not in _EFFECT or first is None or second is None:
                continue
            if output_role(ctx, first) != "true" or output_role(ctx, second) != "pred":
                continue
            if deliberate(ctx, call, None) or also_called_in_order(ctx, call, _slot(call, first, 0), _slot(call, second, 1)):
                continue  # reverse_kl(...), a comment on the order, loss(a, b) + loss(b, a)
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call.func, 50)}` takes (prediction, target), but is handed the reference "
                f"`{ctx.segment(first, 40)}` first and the prediction `{ctx.segment(second, 40)}` second: "
                f"{_EFFECT[name]}",
                next_test="Compute the loss both ways on one batch; the values and the gradients differ.",
                measurements={"loss": name},
            )
