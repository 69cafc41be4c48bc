"""The ``inference-without-eval-mode`` rule: trained weights loaded and the model run for predictions without `eval()`."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.module_modes import construction_mode_dependent
from mlsleuth.scan.analysis.torch_idioms import grad_off
from mlsleuth.scan.registry import Rule, register_rule

_TRAINING = {"backward", "manual_backward", "zero_grad"}


def _mode_dependent(ctx: FileContext, construction: ast.AST | None) -> bool:
    """The model is built here (a constructor call) and not known to be mode-free: a class whose layers
    cannot be seen counts, as most models carry batch-norm or dropout."""
    construction = value_origins.unwrap_module(ctx, construction)
    if not isinstance(construction, ast.Call):
        return False
    qual = ctx.qualname(construction) or ""
    if qual.startswith("torchvision.models.") or qual.startswith("timm.create_model"):
        return True  # the stock vision models all carry batch-norm or dropout
    if not (construction.func.__class__ in (ast.Name, ast.Attribute) and (dotted(construction.func) or "").rsplit(".", 1)[-1][:1].isupper()):
        return False  # a factory function or anything else: too little to go on
    return construction_mode_dependent(ctx, construction) is not False


@register_rule
class InferenceWithoutEvalMode(Rule):
    """Trained weights loaded and the model run for predictions without `eval()`.

    What it finds: a function (or script) that builds a model (a class; one whose layers are all
    mode-free, such as linear and convolution layers only, is left alone; the class is followed into
    this file or another module),
    loads trained weights into it (`load_state_dict`), and calls it under `torch.no_grad()` /
    `inference_mode()`, while nothing in the file switches it to eval mode (`eval()`,
    `train(False)`) and the file does not train. Test functions (`test_*`) are left alone.
    Why it matters: a freshly built module is in training mode. At inference, batch-norm then
    normalises with the statistics of the batch in hand (for a single image, of that one image)
    instead of the running averages learned in training, and dropout keeps dropping units:
    predictions are wrong or random although the weights are right, and nothing errors.
    How to confirm: print `model.training` just before the call (True); compare the prediction with
    the one after `model.eval()`.
    What to do instead: call `model.eval()` after loading the weights (and keep `torch.no_grad()` for
    speed).
    """

    id = "inference-without-eval-mode"
    category = "evaluation"
    severity = "warning"
    reach = "project"
    # the weights may be loaded in the caller's file, where the wrapper that runs the model is built
    triggers = ("no_grad", "inference_mode")

    def check(self, ctx: FileContext):
        calls = ctx.calls()
        if any(call_method(c) in _TRAINING for c in calls):
            return  # a training script: eval-mode questions belong to the loop rules
        switched = {dotted(c.func.value) for c in calls if isinstance(c.func, ast.Attribute) and _to_eval(c)}  # type: ignore[union-attr]
        yield from self._wrapped_models(ctx, calls, switched)
        for load in calls:
            if call_method(load) != "load_state_dict" or not isinstance(load.func, ast.Attribute):
                continue
            name = dotted(load.func.value)
            if name is None or name in switched or "." in name:
                continue
            scope = ctx.enclosing_function(load) or ctx.tree
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.name.startswith("test"):
                continue  # a test comparing two models' outputs: the mode is part of what it checks
            built = value_origins.value(ctx, load.func.value)
            if not _mode_dependent(ctx, built):
                continue
            for use in ctx.calls(scope):
                if dotted(use.func) == name and use.lineno > load.lineno and grad_off(ctx, use):
                    yield self.finding(
                        ctx,
                        load,  # where the fix goes: model.eval() right after the weights are in
                        f"`{name}` gets trained weights at line {load.lineno} and is run for predictions at line {use.lineno}"
                        f" under no_grad, but nothing calls `{name}.eval()`: batch-norm uses the statistics of this batch and"
                        " dropout stays on",
                        next_test=f"print `{name}.training` before line {use.lineno} (True), then compare the output after `{name}.eval()`",
                    )
                    break


    def _wrapped_models(self, ctx: FileContext, calls: list[ast.Call], switched: set[str | None]):
        """A wrapper (a policy, a predictor) that keeps a model given to its constructor as ``self.model`` and
        runs it under no_grad, where every caller hands it a model built with trained weights and never
        switched to eval mode."""
        seen: set[str] = set()
        for use in calls:
            func = use.func
            if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
                continue
            name = dotted(func)
            if name is None or name in seen or name in switched or not grad_off(ctx, use):
                continue
            cls = ctx.enclosing_class(use)
            init = ctx.method(cls, "__init__") if cls is not None else None
            binding = _bound_from_parameter(ctx, init, func.attr) if init is not None else None
            if binding is None:
                continue
            seen.add(name)
            stmt, param = binding
            given = _loaded_models_passed(ctx, init, param)
            if not given:
                continue
            where = ", ".join(f"{gctx.display_path} line {load.lineno}" for gctx, load in given[:2])
            yield self.finding(
                ctx,
                stmt,
                f"`{name}` is the model handed to {cls.name}() with trained weights ({where}) and is run for predictions "  # type: ignore[union-attr]
                f"under no_grad at line {use.lineno}, but neither this class nor its callers call `.eval()` on it: "
                "batch-norm uses the statistics of each batch and dropout stays on",
                next_test=f"print `{name}.training` inside the no_grad block at line {use.lineno} (True), then compare outputs after `.eval()`",
            )


def _bound_from_parameter(ctx: FileContext, init: ast.AST, attr: str) -> tuple[ast.Assign, str] | None:
    """``self.<attr> = <param>`` in ``__init__`` (the parameter's name), or None."""
    params = value_origins.function_params(init)
    for node in ctx.walk_scope(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and target.attr == attr
                and isinstance(node.value, ast.Name)
                and node.value.id in params
            ):
                return node, node.value.id
    return None


def _loaded_models_passed(ctx: FileContext, init: ast.AST, param: str) -> list[tuple[FileContext, ast.Call]]:
    """The ``load_state_dict`` calls of the models every caller passes for ``param`` (all of them, or none)."""
    found = []
    for sctx, site in value_origins.all_call_sites(ctx, init):
        arg = value_origins.argument_for(site, init, param)
        if not isinstance(arg, ast.Name):
            return []
        scope = sctx.enclosing_function(site) or sctx.tree
        local = sctx.calls(scope)
        if any(call_method(c) in _TRAINING or (_to_eval(c) and dotted(c.func.value) == arg.id) for c in local if isinstance(c.func, ast.Attribute)):  # type: ignore[union-attr]
            return []
        loads = [c for c in local if call_method(c) == "load_state_dict" and isinstance(c.func, ast.Attribute) and dotted(c.func.value) == arg.id]
        if not loads or not _mode_dependent(sctx, value_origins.value(sctx, arg)):
            return []
        found.append((sctx, loads[0]))
    return found


def _to_eval(call: ast.Call) -> bool:
    method = call_method(call)
    if method == "eval" and not call.args:
        return True
    return method == "train" and bool(call.args) and constant(call.args[0]) is False
