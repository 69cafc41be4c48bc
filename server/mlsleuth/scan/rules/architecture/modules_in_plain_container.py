"""The ``modules-in-plain-container`` rule: submodules stored in a plain Python `list` or `dict` attribute of an `nn.Module`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import (
    MODULE_CONTAINERS,
    is_module_class,
    module_kind,
)
from mlsleuth.scan.prefilter import MODULE_CLASS, word
from mlsleuth.scan.registry import Rule, register_rule


def _elements(node: ast.AST) -> list[ast.AST] | None:
    """The element expressions of a list/tuple/dict literal or comprehension, or None."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt]
    if isinstance(node, ast.DictComp):
        return [node.value]
    if isinstance(node, ast.Call) and dotted(node.func) in {"list", "tuple", "dict"} and node.args:
        return _elements(node.args[0])
    return None


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
            candidates = list(self._plain_containers(ctx, cls))
            if not candidates:
                continue
            wrapped, registered = self._wrapped_names(ctx, cls)
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

    @staticmethod
    def _wrapped_names(ctx: FileContext, cls: ast.ClassDef) -> tuple[set[str], bool]:
        """Attributes later wrapped in an nn container, and whether the class registers modules by hand."""
        wrapped: set[str] = set()
        registered = False
        nodes = ctx.subtree(cls)
        for node in nodes:
            if not isinstance(node, ast.Call):
                continue
            qn = ctx.qualname(node) or ""
            method = node.func.attr if isinstance(node.func, ast.Attribute) else None
            if method in {"add_module", "register_module"} or qn == "setattr":
                registered = True
            if qn.rsplit(".", 1)[-1] in MODULE_CONTAINERS or method in {"extend"}:
                for arg in node.args:
                    target = arg.value if isinstance(arg, ast.Starred) else arg
                    name = dotted(target)
                    if name and name.startswith("self."):
                        wrapped.add(name[5:])
                    elif isinstance(target, ast.Name):
                        wrapped.add("@" + target.id)
        # self.x = nn.ModuleList(...) anywhere counts as the attribute being a real container
        for node in nodes:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
                if (ctx.qualname(node.value) or "").rsplit(".", 1)[-1] in MODULE_CONTAINERS:
                    for t in node.targets:
                        name = dotted(t)
                        if name and name.startswith("self."):
                            wrapped.add(name[5:])
        return wrapped, registered

    def _plain_containers(self, ctx: FileContext, cls: ast.ClassDef):
        for func in cls.body:
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            local_lists: dict[str, set[str]] = {}
            nodes = ctx.subtree(func)
            for node in nodes:
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    name = dotted(target)
                    elements = _elements(node.value)
                    if elements is None:
                        # self.layers = local_list (filled with append above)
                        if name and name.startswith("self.") and isinstance(node.value, ast.Name) and node.value.id in local_lists:
                            if local_lists[node.value.id] and not self._local_wrapped(ctx, nodes, node.value.id):
                                yield name[5:], node, local_lists[node.value.id]
                        continue
                    kinds = {k for k in (module_kind(ctx, e) for e in elements) if k}
                    if name and name.startswith("self.") and name.count(".") == 1:
                        appended = self._appended(ctx, nodes, name)
                        kinds |= appended
                        if kinds:
                            yield name[5:], node, kinds
                    elif isinstance(target, ast.Name):
                        local_lists[target.id] = kinds | self._appended(ctx, nodes, target.id)

    @staticmethod
    def _appended(ctx: FileContext, nodes: list[ast.AST], name: str) -> set[str]:
        """Module kinds added to ``name`` by ``.append``/``.insert`` or item assignment among ``nodes`` (a method's)."""
        kinds: set[str] = set()
        for node in nodes:
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"append", "insert"}:
                if dotted(node.func.value) == name and node.args:
                    kind = module_kind(ctx, node.args[-1])
                    if kind:
                        kinds.add(kind)
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
                if dotted(node.targets[0].value) == name:
                    kind = module_kind(ctx, node.value)
                    if kind:
                        kinds.add(kind)
        return kinds

    @staticmethod
    def _local_wrapped(ctx: FileContext, nodes: list[ast.AST], name: str) -> bool:
        for node in nodes:
            if isinstance(node, ast.Call) and (ctx.qualname(node) or "").rsplit(".", 1)[-1] in MODULE_CONTAINERS:
                if any(isinstance(a, ast.Name) and a.id == name or isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == name for a in node.args):
                    return True
        return False
