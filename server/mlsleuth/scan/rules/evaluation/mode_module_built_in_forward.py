"""The ``mode-module-built-in-forward`` rule: a dropout or batch-norm module constructed inside `forward`."""

from __future__ import annotations

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.torch_idioms import is_module_class
from mlsleuth.scan.registry import Rule, register_rule

_MODE_LAYERS = ("Dropout", "BatchNorm", "InstanceNorm", "AlphaDropout")


@register_rule
class ModeModuleBuiltInForward(Rule):
    """A dropout or batch-norm module constructed inside `forward`.

    What it finds: `nn.Dropout(...)`, `nn.BatchNorm*d(...)` (and the other dropout and instance-norm
    modules) constructed inside the `forward` method of an `nn.Module` subclass, typically called on
    the spot: `x = nn.Dropout(0.5)(x)`.
    Why it matters: a module built during the forward pass is not a registered submodule. It is
    created in training mode every call, so `model.eval()` never reaches it: dropout keeps dropping
    units at evaluation and inference (noisy, lower scores), and a batch-norm built there normalises
    with the current batch's statistics, has no learned scale or shift in the optimizer, and keeps no
    running averages. Nothing errors.
    How to confirm: call `model.eval()` and run the same input twice under `torch.no_grad()`: the
    outputs differ; `print(model)` does not list the layer.
    What to do instead: create the layer once in `__init__` (`self.drop = nn.Dropout(0.5)`) and call it
    in `forward`, or use `F.dropout(x, p, training=self.training)`.
    """

    id = "mode-module-built-in-forward"
    category = "evaluation"
    severity = "error"
    triggers = ("Dropout", "BatchNorm", "InstanceNorm")
    requires = (("def forward",),)

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            forward = ctx.method(cls, "forward")
            if forward is None or not is_module_class(ctx, cls):
                continue
            for call in ctx.calls(forward):
                if ctx.enclosing_function(call) is not forward:
                    continue  # a nested helper or a lambda: not run on every forward pass as written
                qual = ctx.qualname(call) or ""
                last = qual.rsplit(".", 1)[-1]
                if not qual.startswith("torch.nn.") or "functional" in qual or not last.startswith(_MODE_LAYERS):
                    continue
                yield self.finding(
                    ctx,
                    call,
                    f"`{ctx.segment(call, 60)}` is constructed inside {cls.name}.forward: a fresh module in training mode on"
                    " every call, not a registered submodule, so model.eval() never switches it off",
                    next_test="call model.eval() and run the same input twice under torch.no_grad(): the outputs differ",
                )
