"""The ``ema-skips-buffers`` rule: a weight-averaged model that averages parameters only and is evaluated in eval mode."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, same_tree
from mlsleuth.scan.analysis.moving_averages import average_updates, base
from mlsleuth.scan.registry import Rule, register_rule

_PARAMETERS = {"parameters", "named_parameters"}
# Code that copies or averages buffers, or rebuilds normalisation statistics, somewhere near the average.
_BUFFERS_HANDLED = re.compile(r"buffers\(|load_state_dict|update_bn|running_mean|running_var|AveragedModel|"
                              r"state_dict\(\)\.(?:values|items)\(")
# Layers whose buffers hold statistics the forward pass reads in eval mode.
_NORM_STATS = re.compile(r"BatchNorm|batch_norm|\bresnet|ResNet|densenet|DenseNet|mobilenet|MobileNet|efficientnet|"
                         r"EfficientNet|vgg\d+_bn|regnet|RegNet")


@register_rule
class EmaSkipsBuffers(Rule):
    """A weight average that copies parameters but not buffers.

    What it finds: an EMA / mean-teacher / momentum copy updated by a loop over `zip(ema.parameters(),
    model.parameters())` (or `named_parameters()`), where the averaged module is put in eval mode (`ema.eval()`,
    `self.ema = deepcopy(model).eval()`) and never back in train mode, nothing near it copies buffers
    (`buffers()`, `load_state_dict`, `state_dict()` values, `update_bn`, `AveragedModel`), and the project builds
    batch-norm layers (BatchNorm, a ResNet/DenseNet/MobileNet/EfficientNet/VGG-BN).
    Why it matters: `parameters()` leaves out buffers, so the averaged copy keeps the BatchNorm running mean and
    variance it had when it was copied (the initial model's, usually mean 0 and variance 1). In eval mode the
    forward normalises with those stale statistics while the weights move on: EMA accuracy collapses or lags the
    raw model, and teacher pseudo-labels or targets degrade. Nothing errors.
    How to confirm: compare `ema.state_dict()` and `model.state_dict()` entries ending in `running_mean` after some
    training: the EMA's are still the initial values; evaluating the EMA after `ema.load_state_dict` of the
    model's buffers changes its score.
    What to do instead: after the parameter loop, copy (or average) the buffers too: `for b_ema, b in
    zip(ema.buffers(), model.buffers()): b_ema.copy_(b)`; or average `state_dict()` values, or use
    `torch.optim.swa_utils.AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(d), use_buffers=True)`.
    """

    id = "ema-skips-buffers"
    category = "training-loop"
    severity = "warning"
    triggers = ("parameters()",)
    requires = (("zip(",), (".eval(", ".train("))

    def check(self, ctx: FileContext):
        if _BUFFERS_HANDLED.search(ctx.source) or not _has_norm_stats(ctx):
            return
        if ctx.project is not None and ctx.project.package_matches(ctx, _BUFFERS_HANDLED):
            return
        for update in average_updates(ctx):
            averaged = _averaged_module(ctx, update.anchor, update.average)
            if averaged is None:
                continue
            if not _evaluated_only(ctx, averaged):
                continue
            name = ctx.segment(averaged, 40)
            yield self.finding(
                ctx,
                update.anchor,
                f"the average of `{name}` walks its parameters only, and `{name}` is evaluated in eval mode: its"
                " BatchNorm running statistics stay those of the copy made at the start, out of step with the"
                " averaged weights",
                observation=ctx.segment(update.anchor, 120),
                next_test=f"after training, compare `{name}.state_dict()` running_mean entries with the model's:"
                " they are still the initial values",
            )


def _has_norm_stats(ctx: FileContext) -> bool:
    if _NORM_STATS.search(ctx.source):
        return True
    return ctx.project is not None and ctx.project.package_matches(ctx, _NORM_STATS)


def _averaged_module(ctx: FileContext, anchor: ast.AST, average: ast.AST) -> ast.AST | None:
    """The module ``M`` of ``for e, p in zip(M.parameters(), model.parameters())`` whose element is ``average``."""
    target = base(average)
    if not isinstance(target, ast.Name):
        return None
    for loop in ctx.enclosing_loops(anchor):
        if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Call) or len(loop.iter.args) != 2:
            continue
        if not (isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "zip"):
            continue
        if not isinstance(loop.target, ast.Tuple) or len(loop.target.elts) != 2:
            continue
        sources = loop.iter.args
        if not all(isinstance(s, ast.Call) and call_method(s) in _PARAMETERS for s in sources):
            return None
        for element, source in zip(loop.target.elts, sources):
            names = [element] if isinstance(element, ast.Name) else list(getattr(element, "elts", []))
            if any(isinstance(n, ast.Name) and n.id == target.id for n in names):
                return source.func.value  # type: ignore[attr-defined]
        return None
    return None


def _modules_meant(ctx: FileContext, module: ast.AST) -> list[ast.AST]:
    """``module`` and, for a parameter, what the callers in this file pass for it."""
    out = [module]
    if isinstance(module, ast.Name) and vo.is_parameter(ctx, module):
        func = ctx.enclosing_function(module)
        for site in vo.call_sites(ctx, func) if func is not None else []:
            passed = vo.argument_for(site, func, module.id)
            if passed is not None:
                out.append(passed)
    return out


def _mode_calls(ctx: FileContext, module: ast.AST) -> tuple[bool, bool]:
    """(put in eval mode, put in train mode) for ``module`` anywhere in this file, its binding included
    (``self.ema = copy.deepcopy(model).eval()``)."""
    evals = trains = False
    for call in ctx.calls():
        method = call_method(call)
        if method not in ("eval", "train") or not isinstance(call.func, ast.Attribute):
            continue
        receiver = call.func.value
        hit = same_tree(receiver, module) or _binds(ctx, module, call)
        if not hit:
            continue
        off = call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value is False
        if method == "eval" or off:
            evals = True
        else:
            trains = True
    return evals, trains


def _binds(ctx: FileContext, module: ast.AST, call: ast.Call) -> bool:
    """``call`` (``deepcopy(model).eval()``) is the value bound to ``module`` (a name or ``self.x``)."""
    parent = ctx.parent(call)
    if not isinstance(parent, ast.Assign) or parent.value is not call:
        return False
    return any(same_tree(t, module) for t in parent.targets)


def _inside_a_module(ctx: FileContext, module: ast.AST) -> bool:
    """``self.ema`` of an ``nn.Module`` / LightningModule: the parent's ``train()`` switches it too."""
    if not (isinstance(module, ast.Attribute) and isinstance(module.value, ast.Name) and module.value.id == "self"):
        return False
    cls = ctx.enclosing_class(module)
    return cls is not None and any("Module" in (vo.normalize(ctx.qualname(b)) or getattr(b, "id", "") or "")
                                   or isinstance(b, ast.Attribute) and "Module" in b.attr for b in cls.bases)


def _evaluated_only(ctx: FileContext, module: ast.AST) -> bool:
    if _inside_a_module(ctx, module):
        return False
    evals = trains = False
    for meant in _modules_meant(ctx, module):
        e, t = _mode_calls(ctx, meant)
        evals, trains = evals or e, trains or t
    return evals and not trains
