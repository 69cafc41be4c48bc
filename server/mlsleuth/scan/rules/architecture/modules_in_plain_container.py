"""The ``modules-in-plain-container`` rule: submodules stored in a plain Python `list` or `dict` attribute of an `nn.Module`."""

from __future__ import annotations

from mlsleuth.scan.analysis.module_registration import plain_containers, wrapped_names
from mlsleuth.scan.analysis.torch_idioms import is_module_class, module_kind
from mlsleuth.scan.prefilter import MODULE_CLASS, word
from mlsleuth.scan.registry import Rule, register_rule


@register_rule
class ModulesInPlainContainer(Rule):
    """Submodules stored in a plain Python `list` or `dict` attribute of an `nn.Module`.

    What it finds: `self.layers = [nn.Linear(...), ...]` (a list/dict literal, comprehension, or an
    empty list filled with `.append(nn.X(...))`) in a module's methods, never wrapped in
    `nn.ModuleList` / `nn.ModuleDict` / `nn.Sequential` nor registered with `add_module`.
    Why it matters: `nn.Module` only registers submodules assigned as attributes directly or held in
    its container types. Modules inside a plain list are invisible: their weights are missing from
    `model.parameters()` (so the optimizer never trains them), from `state_dict()` (so checkpoints
    silently drop them), from `.to(device)` (device-mismatch errors or CPU compute) and from
    `.train()`/`.eval()` (dropout in the list stays on at evaluation). Parameter-free layers such as
    `nn.ReLU` lose nothing but the mode switch, so they are reported at lower severity.
    How to confirm: compare `sum(p.numel() for p in model.parameters())` with the size you expect, or
    look for the layer names in `model.state_dict().keys()`: they are absent.
    What to do instead: use `nn.ModuleList([...])` for lists and `nn.ModuleDict({...})` for dicts (or
    `nn.Sequential(*layers)` when they run in order).
    """

    id = "modules-in-plain-container"
    category = "architecture"
    severity = "error"
    # a class whose base resolves to torch.nn.* (the identifier `nn` is on its import),
    # ends in "Module", or is a PreTrainedModel; in a file that imports torch
    triggers = ("nn", "Module", "PreTrainedModel")
    requires = ((word("nn"), "Module", "PreTrainedModel"), ("torch",), ("class",), (MODULE_CLASS,))

    def check(self, ctx):
        if not ctx.imports_any("torch"):
            return
        for cls in ctx.classes:
            if not is_module_class(ctx, cls):
                continue
            candidates = list(plain_containers(ctx, cls, module_kind))
            if not candidates:
                continue
            wrapped, registered = wrapped_names(ctx, cls)
            if registered:
                continue
            for attr, node, kinds in candidates:
                if attr in wrapped:
                    continue
                if "params" in kinds:
                    severity, lost = "error", "their parameters are not registered: not trained, not saved, not moved by .to()"
                elif "mode" in kinds:
                    severity, lost = "warning", "model.eval() does not reach them, so dropout stays on at evaluation"
                else:
                    severity, lost = "info", "they hold no parameters, but .train()/.eval() and hooks do not reach them"
                yield self.finding(
                    ctx,
                    node,
                    f"`self.{attr}` in `{cls.name}` holds nn modules in a plain Python container: {lost}",
                    severity=severity,
                    next_test=(
                        f"check whether any key of `model.state_dict()` starts with '{attr}.': none does"
                    ),
                )
