"""The ``adam-coupled-weight-decay`` rule: `Adam(weight_decay=...)` where decoupled weight decay (`AdamW`) is probably meant."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import edits, settings
from mlsleuth.scan.analysis.context import constant, keyword
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class AdamCoupledWeightDecay(Rule):
    """`Adam(weight_decay=...)` where decoupled weight decay (`AdamW`) is probably meant.

    What it finds: `torch.optim.Adam` (or `Adamax`, `NAdam`, `RAdam` without `decoupled_weight_decay`)
    built with a `weight_decay` that is not provably zero: a non-zero literal, or a variable or
    config value (`weight_decay=args.weight_decay`), which makes the coupled decay a setting away; a
    setting whose default is 0 (an argparse default, a Lightning `hparams` default) is left alone. It is a
    warning where the file trains a transformer (it imports `transformers`, `timm` or `peft`, calls
    `from_pretrained`, builds `nn.Transformer*` or a `vit_*` model), whose recipes mean AdamW; an info note
    elsewhere, where L2 through Adam is sometimes what was meant.
    Why it matters: in these optimizers `weight_decay` is an L2 term added to the gradient, which then
    goes through Adam's per-parameter scaling: weights with large gradient history are barely
    decayed and rarely-updated ones are decayed hard. Recipes that quote a weight decay of 0.01-0.1
    (transformers, ViTs) mean AdamW's decoupled decay; with `Adam` the same number gives a different,
    usually weaker and uneven, regularisation.
    How to confirm: train two short runs, `Adam(weight_decay=wd)` and `AdamW(weight_decay=wd)`, and
    compare the weight norms after a few hundred steps: they diverge.
    What to do instead: use `torch.optim.AdamW(params, weight_decay=wd)` (or pass
    `decoupled_weight_decay=True` where supported); keep `Adam` + `weight_decay` only if L2
    regularisation is really what you want.
    """

    id = "adam-coupled-weight-decay"
    category = "hyperparameter"
    severity = "info"
    triggers = ("weight_decay",)
    fix_unsafe_only = True
    fix_note = (
        "Unsafe (applied only with `--unsafe-fixes`): `torch.optim.Adam(..., weight_decay=wd)` / `optim.Adam(...)` becomes "
        "`AdamW` with the same arguments (a bare `Adam(...)` only where the file already imports `AdamW` from torch.optim). "
        "It changes the training: the decay becomes decoupled, which is what a recipe's weight decay usually means but not "
        "what this code did."
    )

    def check(self, ctx):
        for call in ctx.calls():
            if keyword(call, "weight_decay") is None:
                continue
            qn = ctx.qualname(call) or ""
            if qn not in {"torch.optim.Adam", "torch.optim.adam.Adam", "torch.optim.NAdam", "torch.optim.RAdam", "torch.optim.Adamax"}:
                continue
            decay = keyword(call, "weight_decay")
            if decay is None:
                continue
            value = constant(ctx.resolve(decay))
            if value is None or isinstance(value, (bool, int, float)) and value == 0:
                continue  # provably zero (or None, which the optimizer rejects anyway)
            decoupled = keyword(call, "decoupled_weight_decay")
            if decoupled is not None and constant(decoupled) is not False:
                continue
            default = settings.default_value(ctx, decay)
            if isinstance(default, (int, float)) and not isinstance(default, bool) and default == 0:
                continue  # a setting that is off unless someone turns it on
            name = qn.rsplit(".", 1)[-1]
            if isinstance(value, (int, float)):
                what = f"{name} with weight_decay={ctx.segment(decay, 40)} applies L2 through the adaptive scaling (coupled decay)"
            else:  # a variable or config value: the decay is coupled whenever it is set non-zero
                what = (
                    f"{name} takes weight_decay={ctx.segment(decay, 40)} from a setting: whenever it is non-zero, Adam applies it"
                    " as L2 through the adaptive scaling (coupled decay)"
                )
            transformer = _transformer_recipe(ctx)
            if transformer:
                what += f"; the model is {transformer}, whose recipes quote AdamW's decoupled decay"
            yield self.finding(
                ctx,
                call,
                f"{what}; if the value comes from a recipe it probably meant AdamW's decoupled decay",
                severity="warning" if transformer else None,
                next_test="run a few hundred steps with Adam and with AdamW at the same weight_decay and compare the weight norms",
            )

    def fix(self, ctx, finding) -> edits.Fix | None:
        call = edits.node_at(ctx, finding, ast.Call)
        if not isinstance(call, ast.Call) or ctx.qualname(call) != "torch.optim.Adam":  # torch.optim.adam has no AdamW
            return None
        if isinstance(call.func, ast.Attribute):
            rename = edits.rename_attribute(ctx, call.func, "AdamW")
        elif isinstance(call.func, ast.Name) and ctx.imports.get("AdamW") in {"torch.optim.AdamW", "torch.optim.adamw.AdamW"}:
            rename = edits.rename_name(ctx, call.func, "AdamW")
        else:
            return None
        return edits.Fix("use AdamW (decoupled weight decay)", (rename,), safe=False) if rename is not None else None


_TRANSFORMER_LIBRARIES = ("transformers", "timm", "peft")
_TRANSFORMER_NAMES = re.compile(r"\bfrom_pretrained\s*\(|\bnn\.Transformer(?:Encoder|Decoder)?\b|\bvit_\w+\s*\(")


def _transformer_recipe(ctx) -> str | None:
    """What says this file trains a transformer (whose published recipes use AdamW), or None."""
    for prefix in _TRANSFORMER_LIBRARIES:
        if ctx.imports_any(prefix):
            return f"built with `{prefix}`"
    if _TRANSFORMER_NAMES.search(ctx.source):
        return "a transformer"
    return None
