"""The ``batchnorm-unsynced-tiny-batch`` rule: a BatchNorm network trained under DDP with one or two samples per
process and no SyncBatchNorm."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, dotted
from mlsleuth.scan.registry import Rule, register_rule

_DDP = {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}
_BN = re.compile(r"\bBatchNorm[123]d\s*\(|\b(?:resnet\d+|resnext\w+|wide_resnet\w+|vgg\d+_bn|densenet\d+|mobilenet_v\d\w*|"
                 r"efficientnet\w*|inception_v3|regnet\w+|shufflenet\w+|mnasnet\w+|googlenet)\s*\(")
# the statistics are synchronised, frozen or not BatchNorm's at all
_HANDLED = re.compile(r"SyncBatchNorm|convert_sync_batchnorm|FrozenBatchNorm|norm_eval|freeze_bn|frozen_bn|"
                      r"apex\.parallel\.convert_syncbn_model|sync_bn\s*=\s*True")
_EVAL_WORDS = ("val", "valid", "eval", "test", "dev")
_TINY = 2


def _model_holds_batchnorm(ctx: FileContext, model: ast.AST) -> bool:
    """The model (through ``.to()``/``.cuda()`` and local names) is built by a class of this file or the
    project whose source builds BatchNorm layers or a torchvision BN network (one level of sub-modules)."""
    bound = vo.unwrap_module(ctx, vo.value(ctx, model))
    if not isinstance(bound, ast.Call):
        return False
    if _BN.search(ctx.segment(bound, 300)):
        return True
    found = vo.project_class(ctx, bound.func)
    local = vo.file_class(ctx, bound.func.id) if isinstance(bound.func, ast.Name) else None
    cls = found or ((ctx, local) if local is not None else None)
    return cls is not None and _BN.search(cls[0].segment(cls[1], 200000)) is not None


def _tiny_train_loader(ctx: FileContext) -> tuple[ast.Call, int] | None:
    """A training ``DataLoader`` of this file whose per-process batch size is 1 or 2 by default."""
    for call in ctx.calls():
        if not (ctx.qualname(call) or "").endswith("DataLoader"):
            continue
        parent = ctx.parent(call)
        name = dotted(parent.targets[0]) if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
        if name is None or any(w in vo.words(name) for w in _EVAL_WORDS):
            continue
        size = argument(call, 1, "batch_size")
        value = settings.default_value(ctx, size) if size is not None else 1
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= _TINY:
            return call, value
    return None


@register_rule
class BatchnormUnsyncedTinyBatch(Rule):
    """BatchNorm under DDP with 1-2 samples per process and no SyncBatchNorm.

    What it finds: a model wrapped in `DistributedDataParallel` whose class (in this file or the project, one
    level of modules deep) builds `nn.BatchNorm*d` layers or a torchvision network that has them (ResNet,
    DenseNet, VGG-BN, MobileNet, EfficientNet, ...), in a file whose training `DataLoader` takes one or two
    samples per process (`batch_size=cfg.samples_per_gpu` with a config default of 1, an argparse default, a
    literal), when nothing in the project converts the model to `SyncBatchNorm` or freezes BatchNorm
    (`FrozenBatchNorm2d`, `norm_eval`, `freeze_bn`). Evaluation loaders and per-process batches above two are
    left alone.
    Why it matters: under DDP each process normalises with the statistics of its own batch. With one image
    per GPU those are the statistics of a single sample (for a 1x1 feature map, not even defined): the
    normalisation is noisy, the running mean and variance used at test time are poor estimates, and
    accuracy falls well below what the same model reaches with larger per-GPU batches. Gradients are
    averaged across processes; the BatchNorm statistics are not.
    How to confirm: train a few hundred steps with `nn.SyncBatchNorm.convert_sync_batchnorm(model)` and
    compare the validation metric, or inspect a BatchNorm layer's `running_var`: it is dominated by noise.
    What to do instead: `model = nn.SyncBatchNorm.convert_sync_batchnorm(model)` before wrapping in DDP; or
    freeze BatchNorm (eval mode, `FrozenBatchNorm2d`) for fine-tuning; or use GroupNorm/LayerNorm.
    """

    id = "batchnorm-unsynced-tiny-batch"
    category = "distributed"
    severity = "warning"
    reach = "project"
    triggers = ("DistributedDataParallel",)
    requires = (("DataLoader",),)

    def check(self, ctx: FileContext):
        if _HANDLED.search(ctx.source) or ctx.project is not None and ctx.project.any_file_matches(_HANDLED):
            return
        loader = None
        for call in ctx.calls():
            if vo.normalize(ctx.qualname(call)) not in _DDP:
                continue
            model = argument(call, 0, "module")
            if model is None or not _model_holds_batchnorm(ctx, model):
                continue
            if loader is None:
                loader = _tiny_train_loader(ctx)
                if loader is None:
                    return
            built = vo.unwrap_module(ctx, vo.value(ctx, model))
            where = built if isinstance(built, ast.Call) and ctx.enclosing_function(built) is ctx.enclosing_function(call) else call
            batch_call, size = loader
            yield self.finding(
                ctx,
                where,
                f"`{ctx.segment(built if isinstance(built, ast.Call) else model, 40)}` has BatchNorm layers and is trained "
                f"under DistributedDataParallel with {size} sample{'s' if size > 1 else ''} per process (line "
                f"{batch_call.lineno}) and no SyncBatchNorm: every BatchNorm layer normalises with one process's "
                "tiny batch, so its statistics are noise",
                observation=f"{ctx.segment(call, 80)}; {ctx.segment(batch_call, 80)}",
                next_test="Convert with nn.SyncBatchNorm.convert_sync_batchnorm(model) before DDP and compare a short run's "
                          "validation metric.",
            )
