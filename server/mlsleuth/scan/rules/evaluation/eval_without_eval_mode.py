"""The ``eval-without-eval-mode`` rule: an evaluation loop runs the model without switching it to `model.eval()`."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.analysis.module_modes import construction_mode_dependent
from mlsleuth.scan.analysis.torch_idioms import (
    NOT_TRAINED,
    SET_GRAD,
    grad_off,
    is_module_class,
    model_names,
)
from mlsleuth.scan.analysis.training_step_model import NO_GRAD, loop_model
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_EVAL_FUNC = re.compile(
    r"^(val|valid|validate|validation|eval|evaluate|evaluation|test|predict|inference|infer|run_eval|run_validation)"
    r"(_(epoch|loop|one_epoch|model|step|loader|set|data|dataset))?$"
    r"|^(val|valid|validate|validation|eval|evaluate)_.+|.+_(eval|evaluate|evaluation|validate|validation)$",
    re.IGNORECASE,
)

_EVAL_LOADER = re.compile(r"(^|_)(val|valid|validation|eval|test|dev)(_|$|loader|set|data)", re.IGNORECASE)

_LIGHTNING_HOOKS = {"validation_step", "test_step", "predict_step", "on_validation_epoch_end", "on_test_epoch_end"}

_MODELISH = re.compile(r"(^|_)(model|net|network|encoder|decoder|classifier|backbone|module|policy|generator|discriminator|cnn|rnn|lstm|transformer|unet|vae|gan)s?\d*$", re.IGNORECASE)


def _is_model_call(ctx: FileContext, call: ast.Call) -> str | None:
    """The model's name when ``call`` runs a model forward (``model(x)``, ``self.net(x)``)."""
    name = dotted(call.func)
    if name is None or name == "self" or name in ctx.imports or "." in name and name.split(".")[0] in ctx.imports:
        return None
    if ctx.callee_definition(call) is not None or ctx.module_function(name) is not None:
        return None
    last = name.rsplit(".", 1)[-1]
    if name in model_names(ctx) or _MODELISH.search(last):
        if re.search(r"loss|crit|metric|fn$|func", last, re.IGNORECASE):
            return None
        return name
    return None


def _calls_eval(ctx: FileContext, func: ast.AST) -> bool:
    """``.eval()`` / ``.train(False)`` in ``func``, a helper it calls, or a ``with eval_mode(model):`` block."""
    for call in ctx.calls(func):
        name = (dotted(call.func) or "").rsplit(".", 1)[-1].lower()
        if "eval" in name and name != "eval" and isinstance(ctx.parent(call), ast.withitem):
            return True  # a context manager such as `with eval_mode(model):` (defined elsewhere)
        if isinstance(call.func, ast.Attribute):
            if call.func.attr == "eval" and not call.args:
                return True
            if call.func.attr == "train" and call.args and isinstance(call.args[0], ast.Constant) and call.args[0].value is False:
                return True
        # an in-file helper that sets eval mode (one level)
        callee = ctx.callee_definition(call)
        if callee is not None and callee is not func and any(
            isinstance(c.func, ast.Attribute) and c.func.attr == "eval" and not c.args for c in ctx.calls(callee)
        ):
            return True
    return False


def _callers(ctx: FileContext, func: ast.AST) -> list[ast.Call]:
    name = getattr(func, "name", None)
    found = []
    for call in ctx.calls():
        if ctx.callee_definition(call) is func or name and isinstance(call.func, ast.Attribute) and call.func.attr == name and ctx.enclosing_class(func) is not None:
            found.append(call)
    return found


def _always_called_without_grad(ctx: FileContext, func: ast.AST) -> bool:
    """Every in-file call of ``func`` sits under ``no_grad`` (and there is at least one)."""
    sites = _callers(ctx, func)
    return bool(sites) and all(grad_off(ctx, site) for site in sites)


# Calls that hand back the same module: `model.to(device).eval()` is still `model`.
_SAME_MODULE = {"to", "cuda", "cpu", "half", "float", "double", "bfloat16", "requires_grad_", "share_memory"}


def _unwrap_module(expr: ast.AST) -> ast.AST:
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in _SAME_MODULE:
        expr = expr.func.value
    return expr


def _is_eval_switch(node: ast.AST) -> bool:
    """``x.eval()`` or ``x.train(False)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    if node.func.attr == "eval":
        return not node.args and not node.keywords
    return node.func.attr == "train" and bool(node.args) and constant(node.args[0]) is False


def _returns_eval_model(ctx: FileContext, func: ast.AST) -> bool:
    """``func`` returns a module it switched to eval mode: ``m.eval(); return m`` or ``return m.eval()``."""
    for value in value_origins.returns(func):
        for item in value.elts if isinstance(value, ast.Tuple) else [value]:
            item = _unwrap_module(item)
            if _is_eval_switch(item):
                return True
            if not isinstance(item, ast.Name):
                continue
            if any(_is_eval_switch(c) and dotted(_unwrap_module(c.func.value)) == item.id for c in ctx.calls(func)):
                return True
            if any(v is not None and _is_eval_switch(_unwrap_module(v)) for _l, _s, v in ctx.assignments(func).get(item.id, [])):
                return True  # m = Net().eval()
    return False


def _model_origins(ctx: FileContext, name: str, at: ast.AST, func: ast.AST | None, depth: int = 0) -> list[ast.AST]:
    """The expressions the model ``name`` (as used at ``at`` in ``func``) was bound to, through callers' arguments."""
    if depth > 2:
        return []
    if name.startswith("self.") and name.count(".") == 1:
        cls = ctx.enclosing_class(at)
        return list(ctx.self_attributes(cls).get(name[5:], [])) if cls is not None else []
    if "." in name:
        return []
    found: list[ast.AST] = []
    rebound = False  # model = model.to(device): the value still comes from before
    for _line, stmt, value in ctx.assignments(func or ctx.tree).get(name, []):
        if value is None and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            value = stmt.value  # model, tokenizer = load(...)
        if isinstance(_unwrap_module(value), ast.Name) and _unwrap_module(value).id == name:
            rebound = True
        elif value is not None:
            found.append(value)
    if (found and not rebound) or func is None:
        return found
    if name in value_origins.function_params(func):
        for site in _callers(ctx, func):
            arg = value_origins.argument_for(site, func, name)
            if isinstance(arg, ast.Name):
                found += _model_origins(ctx, arg.id, site, ctx.enclosing_function(site), depth + 1)
            elif arg is not None:
                found.append(arg)
        return found
    return found + [v for _l, _s, v in ctx.assignments(ctx.tree).get(name, []) if v is not None]


# Loaders that hand the model back in eval mode: Hugging Face's `from_pretrained` (transformers, diffusers)
# ends with `model.eval()`.
_EVAL_MODE_LOADERS = ("transformers.", "diffusers.")


def _from_eval_mode_loader(ctx: FileContext, call: ast.Call) -> bool:
    """``AutoModel.from_pretrained(...)`` / ``GPT2LMHeadModel.from_pretrained(...)`` of transformers or diffusers."""
    if call_method(call) != "from_pretrained":
        return False
    qual = value_origins.normalize(ctx.qualname(call)) or ""
    return qual.startswith(_EVAL_MODE_LOADERS)


def _loaded_in_eval_mode(ctx: FileContext, name: str, at: ast.AST, func: ast.AST | None) -> bool:
    """The model comes from a call that puts it in eval mode (``load_model(ckpt)`` that ends with ``m.eval()``,
    a Hugging Face ``from_pretrained``) and nothing in the file switches it back with ``.train()``."""
    for origin in _model_origins(ctx, name, at, func):
        origin = _unwrap_module(origin)
        if _is_eval_switch(origin):
            return True
        if isinstance(origin, ast.Call) and _from_eval_mode_loader(ctx, origin) and not _switched_to_train(ctx, name, origin, func):
            return True
        if isinstance(origin, ast.Call):
            loader = ctx.callee_definition(origin)
            if loader is not None and _returns_eval_model(ctx, loader):
                return True
    return False


def _switched_to_train(ctx: FileContext, name: str, origin: ast.AST, func: ast.AST | None) -> bool:
    """``name.train()`` (or ``train(True)``) where the model is loaded or used (the whole file for a module-level
    model), or any ``.train()`` on it in a helper it is passed to: judged by the name, so any such call counts."""
    scopes = {ctx.enclosing_function(origin), func}
    for call in ctx.calls_named("train"):
        if not isinstance(call.func, ast.Attribute) or constant(call.args[0] if call.args else None) is False:
            continue
        own = ctx.enclosing_function(call)
        if dotted(call.func.value) == name and (own in scopes or None in scopes):
            return True
        if own is not None and own not in scopes and name in value_origins.function_params(own) and dotted(call.func.value) == name:
            return True
    return False


def _mode_independent(ctx: FileContext, name: str, at: ast.AST, func: ast.AST | None) -> bool:
    """Every construction the model comes from computes the same in train and eval mode (no dropout, no batch-norm)."""
    origins = [_unwrap_module(o) for o in _model_origins(ctx, name, at, func)]
    return bool(origins) and all(construction_mode_dependent(ctx, o) is False for o in origins)


# Model libraries whose classes nearly all hold dropout or batch-norm: an unread class from one of them still
# counts as mode-dependent.
_MODEL_LIBRARIES = frozenset({
    "torch", "torchvision", "torchaudio", "timm", "transformers", "diffusers", "open_clip", "segmentation_models_pytorch",
    "torch_geometric", "ultralytics", "mmdet", "mmseg", "mmcls", "mmpretrain", "detectron2", "fairseq", "monai",
    "pretrainedmodels", "efficientnet_pytorch", "lightning", "pytorch_lightning",
})


def _unseen_model_module(ctx: FileContext, name: str, at: ast.AST, func: ast.AST | None) -> str | None:
    """The module the model's class is imported from, when that class could not be read (the module is neither
    in the scanned project nor a known model library): whether it holds dropout or batch-norm is unknown."""
    origins = [_unwrap_module(o) for o in _model_origins(ctx, name, at, func)]
    if not origins:
        return None
    modules = set()
    for origin in origins:
        if not isinstance(origin, ast.Call) or construction_mode_dependent(ctx, origin) is not None:
            return None
        head = dotted(origin.func)
        imported = ctx.imports.get(head.split(".")[0]) if head else None
        qual = ctx.qualname(origin) or ""
        if imported is None or qual.split(".")[0] in _MODEL_LIBRARIES or not qual.startswith(imported) \
                or value_origins.project_class(ctx, origin.func) is not None:
            return None
        modules.add(qual.rsplit(".", 1)[0])
    return ", ".join(sorted(modules))


@register_rule
class EvalWithoutEvalMode(Rule):
    """An evaluation loop runs the model without switching it to `model.eval()`.

    What it finds: a loop that computes model outputs under `torch.no_grad()` / `inference_mode()` /
    `set_grad_enabled(False)` (in the function or around every call of it) and sits in an
    evaluation function (`validate`, `evaluate`, `test`, ...) or iterates over a validation/test
    loader, where neither that function nor any in-file caller of it ever calls `.eval()` (or
    `.train(False)`); the same evaluation `for` loop with gradients left on as well, in a file that
    trains elsewhere, when the function itself never calls `backward()`/`step()`; and a `no_grad`
    block inside a training loop that runs the model and is followed by `model.train()`, with no
    `model.eval()` before it. A model that comes from an in-file function that switches it to eval
    mode before returning it (`m.eval(); return m`, `return m.eval()`), or fresh from a Hugging Face
    `from_pretrained` (which ends in `eval()`), counts as being in eval mode. When the model's class is
    imported from a module the scan cannot read (not in the project, not a known model library), whether
    it has dropout or batch-norm is unknown and the finding is info only.
    Why it matters: `no_grad()` only turns off gradient tracking. Dropout keeps dropping units and
    BatchNorm keeps normalising with the statistics of the current batch (and updating its running
    averages with validation data). Validation scores come out noisy, worse than they should be and
    batch-size dependent, and the running statistics drift toward the validation set. Without
    `no_grad` as well, every evaluation batch also builds an autograd graph, which costs memory.
    How to confirm: evaluate the same batch twice in a row: with dropout on the outputs differ; or
    print `model.training` inside the loop: it is True.
    What to do instead: call `model.eval()` before the loop (and `model.train()` when training
    resumes); `torch.no_grad()` is still useful for speed, but it is not a substitute.
    """

    id = "eval-without-eval-mode"
    category = "evaluation"
    severity = "warning"
    reach = "project"
    # no_grad / inference_mode / set_grad_enabled(False) around the model, or, for an evaluation loop
    # that leaves gradients on, a file that trains (backward and an optimizer step)
    triggers = ("no_grad", "inference_mode", "set_grad_enabled", "backward")
    requires = (("no_grad", "inference_mode", "set_grad_enabled", STEP_CALL),)

    def check(self, ctx):
        if not ctx.imports_any("torch"):
            return
        reported: set[int] = set()
        for call, name, loop, restore in self._inline_evaluations(ctx):
            reported.add(id(call))
            yield self.finding(
                ctx,
                call,
                f"`{name}` is evaluated at line {call.lineno} under no_grad inside the loop at line {loop.lineno} and"
                f" `{name}.train()` is called at line {restore.lineno} afterwards, but `{name}.eval()` never runs first: the"
                " evaluation uses training-mode dropout and batch-norm (and updates the running statistics)",
                next_test=f"print `{name}.training` just before line {call.lineno}: it is True",
            )
        for loop in ctx.all_nodes:
            if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
                continue
            func = ctx.enclosing_function(loop)
            if not self._is_eval_loop(ctx, loop, func):
                continue
            in_func = [c for c in ctx.calls(loop) if ctx.enclosing_function(c) is func and _is_model_call(ctx, c)]
            model_calls = [c for c in in_func if grad_off(ctx, c)]
            if not model_calls and in_func and func is not None and _always_called_without_grad(ctx, func):
                model_calls = in_func  # the callers' no_grad covers the whole function
            tracking = not model_calls  # the model runs with gradients on: no no_grad either
            if tracking:
                model_calls = in_func
            if not model_calls:
                continue
            scope = func if func is not None else ctx.tree
            if _calls_eval(ctx, scope):
                continue
            if func is not None and self._caller_sets_eval(ctx, func):
                continue
            if func is None and _calls_eval(ctx, ctx.tree):
                continue
            if any(NOT_TRAINED.search(_is_model_call(ctx, c) or "") for c in model_calls):
                continue
            model_calls = [
                c for c in model_calls
                if not _loaded_in_eval_mode(ctx, _is_model_call(ctx, c) or "", c, func)
                and not _mode_independent(ctx, _is_model_call(ctx, c) or "", c, func)
            ]
            if not model_calls or tracking and not self._evaluates_with_gradients(ctx, loop, func):
                continue
            call = model_calls[0]
            if id(call) in reported:
                continue
            reported.add(id(call))
            name = _is_model_call(ctx, call)
            where = f"`{func.name}`" if func is not None else "this cell/script"
            if tracking:
                message = (
                    f"`{name}` is evaluated at line {call.lineno} in the evaluation loop at line {loop.lineno} with neither"
                    f" `{name}.eval()` nor `torch.no_grad()`: dropout and batch-norm behave as in training (batch-norm"
                    " statistics are updated with evaluation data) and autograd records a graph for every batch"
                )
            else:
                message = (
                    f"`{name}` is evaluated at line {call.lineno} under no_grad in the evaluation loop at line {loop.lineno}, but {where}"
                    f" never calls `{name}.eval()`: dropout and batch-norm still behave as in training"
                )
            unseen = _unseen_model_module(ctx, name or "", call, func)
            if unseen is not None:
                message += (f" (if it has any: `{name}` is built from `{unseen}`, a module this scan did not read, so"
                            " whether the model has dropout or batch-norm is unknown; noted for information)")
            yield self.finding(ctx, call, message, severity="info" if unseen else None,
                               next_test=f"print `{name}.training` inside the loop at line {loop.lineno}: it is True")

    def _inline_evaluations(self, ctx) -> Iterator:
        """``with no_grad(): model(x_val)`` inside a training loop, followed by ``model.train()``, with no eval()."""
        for with_node in ctx.all_nodes:
            if not isinstance(with_node, (ast.With, ast.AsyncWith)):
                continue
            if not any((ctx.qualname(i.context_expr) or "") in {"torch.no_grad", "torch.inference_mode"} for i in with_node.items):
                continue
            loops = ctx.enclosing_loops(with_node)
            if not loops:
                continue
            loop = loops[0]
            restores: dict[str, ast.Call] = {}
            switched: set[str] = set()
            for call in ctx.calls(loop):
                if not isinstance(call.func, ast.Attribute):
                    continue
                name = dotted(call.func.value)
                if name is None:
                    continue
                flag = call.args[0] if call.args else None
                if call.func.attr == "eval" and not call.args or call.func.attr == "train" and isinstance(flag, ast.Constant) and flag.value is False:
                    switched.add(name)
                elif call.func.attr == "train" and (flag is None or isinstance(flag, ast.Constant) and flag.value is True):
                    if call.lineno > with_node.end_lineno:
                        restores.setdefault(name, call)
            for call in ctx.calls(with_node):
                name = dotted(call.func)
                if name in restores and name not in switched and ctx.enclosing_function(call) is ctx.enclosing_function(with_node):
                    yield call, name, loop, restores[name]
                    break

    @staticmethod
    def _is_eval_loop(ctx, loop, func) -> bool:
        if func is not None and func.name in _LIGHTNING_HOOKS:
            return False
        if func is not None and _EVAL_FUNC.match(func.name) and not func.name.startswith("test_"):
            return True
        if isinstance(loop, (ast.For, ast.AsyncFor)):
            text = " ".join(n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(loop.iter) if isinstance(n, (ast.Name, ast.Attribute)))
            return any(_EVAL_LOADER.search(word) and re.search(r"load|set|data|batch", word, re.IGNORECASE) for word in text.split())
        return False

    @staticmethod
    def _evaluates_with_gradients(ctx, loop, func) -> bool:
        """An evaluation ``for`` loop, in a file that trains elsewhere, that never trains nor turns gradients off.

        Gradients may be off where this cannot see (a caller's ``no_grad``, ``set_grad_enabled(False)``
        as a statement), and a module's own methods leave the mode to their caller: all of those stay silent.
        """
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            return False
        cls = ctx.enclosing_class(loop)
        if cls is not None and is_module_class(ctx, cls):
            return False
        model = loop_model(ctx)
        if not any({"backward", "step"} <= trace.kinds() for trace in model.traces):
            return False  # not a training script: evaluation-only code is left to the no_grad form of this rule
        scope = func if func is not None else loop
        for call in ctx.calls(scope):
            if call_method(call) in {"backward", "manual_backward", "step", "zero_grad"}:
                return False
            if (ctx.qualname(call) or "") in NO_GRAD | SET_GRAD:
                return False
        if func is not None:
            helper_trains = any(t.root is func and {"backward", "step"} & t.kinds() for t in model.traces)
        else:
            helper_trains = any(t.root is ctx.tree and loop in t.loop_parent and {"backward", "step"} & t.kinds(loop) for t in model.traces)
        if helper_trains:
            return False  # a helper called from here trains
        return func is None or not any(grad_off(ctx, site) for site in _callers(ctx, func))  # some callers turn it off

    @staticmethod
    def _caller_sets_eval(ctx, func) -> bool:
        callers = _callers(ctx, func)
        for call in callers:
            scope = ctx.enclosing_function(call) or ctx.tree
            for c in ctx.calls(scope):
                if isinstance(c.func, ast.Attribute) and c.func.attr == "eval" and not c.args and c.lineno <= call.lineno:
                    return True
        return False
