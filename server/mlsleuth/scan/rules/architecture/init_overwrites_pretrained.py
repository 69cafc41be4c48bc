"""The ``init-overwrites-pretrained`` rule: a weight-initialisation pass that also re-initialises a pretrained submodule."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

# methods a framework or the model's own constructor runs to initialise weights
_INIT_METHODS = {"init_weights", "_init_weights", "initialize_weights", "_initialize_weights", "init_params",
                 "reset_parameters", "_reset_parameters", "weights_init", "init_weight"}
# base classes whose runner calls ``init_weights()`` after construction (OpenMMLab's mmengine / mmcv)
_AUTO_INIT_BASES = {"BaseModule", "BaseBackbone", "BaseDecodeHead", "BaseDetector", "BaseSegmentor"}
_GUARD = re.compile(r"pretrain|checkpoint|init_cfg|from_scratch|load", re.IGNORECASE)


def _pretrained_load(ctx: FileContext, value: ast.AST) -> str | None:
    """What loads pretrained weights into the module ``value`` builds, or None."""
    if not isinstance(value, ast.Call):
        return None
    qn = ctx.qualname(value) or dotted(value.func) or ""
    last = qn.rsplit(".", 1)[-1]
    if last == "from_pretrained":
        return "from_pretrained"
    if qn in {"torch.hub.load"} or qn.endswith("hub.load"):
        return "torch.hub.load"
    flag = keyword(value, "pretrained")
    if flag is not None and constant(flag) is True:
        return f"{last}(pretrained=True)"
    weights = keyword(value, "weights")
    if weights is not None and constant(weights) is None and not (isinstance(weights, ast.Constant) and weights.value is None):
        if qn.startswith(("torchvision.models", "timm")) or "Weights" in (dotted(weights) or ""):
            return f"{last}(weights=...)"
    return None


def _pretrained_attributes(ctx: FileContext, cls: ast.ClassDef) -> dict[str, tuple[int, str]]:
    """``self.<name>`` assigned a pretrained module in ``__init__`` -> (line, how it is loaded)."""
    init = ctx.method(cls, "__init__")
    if init is None:
        return {}
    found: dict[str, tuple[int, str]] = {}
    for node in ctx.walk_scope(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
                how = _pretrained_load(ctx, node.value)
                if how is not None:
                    found[target.attr] = (node.lineno, how)
    return found


def _initialises(ctx: FileContext, body: ast.AST) -> bool:
    """The code re-initialises weights: ``nn.init.*`` calls or in-place ``.weight.data.normal_()``-style fills."""
    for call in ctx.calls(body):
        qn = ctx.qualname(call) or ""
        if qn.startswith("torch.nn.init."):
            return True
        func = call.func
        if (isinstance(func, ast.Attribute) and func.attr in {"normal_", "uniform_", "zero_", "fill_", "trunc_normal_", "xavier_uniform_"}
                and re.search(r"\.(weight|bias)\b", ctx.segment(func.value, 120))):
            return True
    return False


def _whole_model_passes(ctx: FileContext, cls: ast.ClassDef) -> list[tuple[ast.AST, ast.AST, str]]:
    """(where, the initialising code, method it lives in) for passes over every module of ``self``:
    ``for m in self.modules()`` / ``self.named_modules()`` and ``self.apply(fn)``."""
    passes = []
    for method in (n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        for node in ctx.walk_scope(method):
            if isinstance(node, ast.For) and isinstance(node.iter, ast.Call):
                it = node.iter.func
                if (isinstance(it, ast.Attribute) and it.attr in {"modules", "named_modules"}
                        and isinstance(it.value, ast.Name) and it.value.id == "self"):
                    passes.append((node, node, method.name))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "apply":
                owner = node.func.value
                if isinstance(owner, ast.Name) and owner.id == "self" and node.args:
                    fn = _applied_function(ctx, cls, node.args[0])
                    if fn is not None:
                        passes.append((node, fn, method.name))
    return passes


def _applied_function(ctx: FileContext, cls: ast.ClassDef, arg: ast.AST) -> ast.AST | None:
    if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name) and arg.value.id in {"self", cls.name}:
        return ctx.method(cls, arg.attr)
    if isinstance(arg, ast.Name):
        return ctx.module_function(arg.id)
    return None


def _runs(ctx: FileContext, cls: ast.ClassDef, method: str, after_line: int) -> bool:
    """``method`` of ``cls`` runs after the pretrained weights are in place."""
    init = ctx.method(cls, "__init__")
    if method == "__init__":
        return True  # the caller checks the order inside __init__
    if init is not None:
        for call in ctx.calls(init):
            if (isinstance(call.func, ast.Attribute) and call.func.attr == method and call.lineno > after_line
                    and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
                return True
    if method in _INIT_METHODS and {dotted(b).rsplit(".", 1)[-1] for b in cls.bases if dotted(b)} & _AUTO_INIT_BASES:
        return True
    return method in _INIT_METHODS and any(
        isinstance(c.func, ast.Attribute) and c.func.attr == method
        and not (isinstance(c.func.value, ast.Name) and c.func.value.id == "self")
        for c in ctx.calls_named(method)
    )


@register_rule
class InitOverwritesPretrained(Rule):
    """A weight-initialisation pass that also re-initialises a pretrained submodule.

    What it finds: a model class whose `__init__` loads a pretrained submodule
    (`self.backbone = timm.create_model(..., pretrained=True)`, `AutoModel.from_pretrained(...)`,
    `torch.hub.load(...)`, a torchvision model with `weights=...`) and that also runs an
    initialisation pass over every module of `self` (`for m in self.modules(): nn.init...`, or
    `self.apply(self._init_weights)`) after the load: in `__init__` itself, in an `init_weights()`
    that `__init__` calls, one that the file calls on the model, or one an OpenMMLab runner calls
    (`BaseModule`). A pass that skips the pretrained part (it names it: `if name.startswith("backbone.")`,
    `self.head.modules()`), or sits under a condition about pretrained weights or a checkpoint, is left
    alone.
    Why it matters: `self.modules()` includes the backbone's own layers, so every `Linear`, `Conv` and
    norm inside the pretrained network is overwritten with random values. Training then starts from
    scratch (and a frozen backbone stays random for good), while the code and the logs still say
    "pretrained". Accuracy lands far below the published fine-tuning numbers and nothing errors.
    How to confirm: compare one backbone weight right after construction (or after `init_weights()`)
    with the same tensor from a freshly loaded pretrained model: they differ.
    What to do instead: initialise only the new layers (`self.head.apply(init_fn)`, or iterate
    `named_modules()` and skip the backbone's prefix), or load the pretrained weights after the
    initialisation pass.
    """

    id = "init-overwrites-pretrained"
    category = "architecture"
    severity = "error"
    triggers = ("pretrained", "hub.load", "weights=")
    requires = (("modules(", "apply("),)

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            pretrained = _pretrained_attributes(ctx, cls)
            if not pretrained:
                continue
            first_line = min(line for line, _ in pretrained.values())
            for where, code, method in _whole_model_passes(ctx, cls):
                if not _initialises(ctx, code):
                    continue
                if method == "__init__" and where.lineno < first_line:
                    continue
                text = ctx.segment(code, 4000) + " " + ctx.segment(where, 400)
                if any(re.search(rf"\b{re.escape(name)}\b", text) for name in pretrained):
                    continue  # the pass names the pretrained part: it skips it or targets it on purpose
                if any(isinstance(a, ast.If) and _GUARD.search(ctx.segment(a.test, 200)) for a in ctx.ancestors(where)):
                    continue
                if not _runs(ctx, cls, method, first_line):
                    continue
                name, (line, how) = min(pretrained.items(), key=lambda kv: kv[1][0])
                yield self.finding(
                    ctx,
                    where,
                    f"`{ctx.segment(where, 60)}` re-initialises every module of the model, `self.{name}` included, whose"
                    f" pretrained weights were loaded with {how} on line {line}: the pretrained network is overwritten"
                    " with random values",
                    next_test=f"compare a weight of `self.{name}` after construction with the same tensor of a freshly loaded"
                    " pretrained model: they differ",
                )
