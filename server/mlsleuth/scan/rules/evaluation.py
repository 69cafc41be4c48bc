"""Rules about train/eval modes: evaluation without `model.eval()`, training left in eval mode,
functional dropout that ignores the mode, and `.forward()` called directly.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

from mlsleuth.scan import flow_a
from mlsleuth.scan.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.loop_model import NO_GRAD, Trace, dedupe, loop_model, step_loops
from mlsleuth.scan.registry import MODULE_CLASS, STEP_CALL, Rule, register_rule, word

_EVAL_FUNC = re.compile(
    r"^(val|valid|validate|validation|eval|evaluate|evaluation|test|predict|inference|infer|run_eval|run_validation)"
    r"(_(epoch|loop|one_epoch|model|step|loader|set|data|dataset))?$"
    r"|^(val|valid|validate|validation|eval|evaluate)_.+|.+_(eval|evaluate|evaluation|validate|validation)$",
    re.IGNORECASE,
)
_EVAL_LOADER = re.compile(r"(^|_)(val|valid|validation|eval|test|dev)(_|$|loader|set|data)", re.IGNORECASE)
_LIGHTNING_HOOKS = {"validation_step", "test_step", "predict_step", "on_validation_epoch_end", "on_test_epoch_end"}
_NOT_TRAINED = re.compile(r"teacher|ema|target|frozen|ref(erence)?_|_ref$|old|pretrained|base_model|critic_target|average", re.IGNORECASE)
_MODEL_METHODS = {"train", "eval", "parameters", "named_parameters", "state_dict", "load_state_dict", "modules", "children", "zero_grad", "requires_grad_"}
_MODELISH = re.compile(r"(^|_)(model|net|network|encoder|decoder|classifier|backbone|module|policy|generator|discriminator|cnn|rnn|lstm|transformer|unet|vae|gan)s?\d*$", re.IGNORECASE)


def _model_names(ctx: FileContext) -> set[str]:
    """Dotted names the file treats as models: something calls `.eval()`, `.parameters()`, ... on them."""
    cache = ctx.__dict__.get("_b_model_names")
    if cache is not None:
        return cache
    names: set[str] = set()
    for call in ctx.calls():
        if isinstance(call.func, ast.Attribute) and call.func.attr in _MODEL_METHODS:
            name = dotted(call.func.value)
            if name and name != "self":
                names.add(name)
    ctx.__dict__["_b_model_names"] = names
    return names


def _is_model_call(ctx: FileContext, call: ast.Call) -> str | None:
    """The model's name when ``call`` runs a model forward (``model(x)``, ``self.net(x)``)."""
    name = dotted(call.func)
    if name is None or name == "self" or name in ctx.imports or "." in name and name.split(".")[0] in ctx.imports:
        return None
    if ctx.callee_definition(call) is not None or ctx.module_function(name) is not None:
        return None
    last = name.rsplit(".", 1)[-1]
    if name in _model_names(ctx) or _MODELISH.search(last):
        if re.search(r"loss|crit|metric|fn$|func", last, re.IGNORECASE):
            return None
        return name
    return None


_SET_GRAD = {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"}


def _disables_grad(ctx: FileContext, expr: ast.AST) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()`` or ``torch.set_grad_enabled(False)``."""
    qn = ctx.qualname(expr) or ""
    if qn in NO_GRAD:
        return True
    return qn in _SET_GRAD and isinstance(expr, ast.Call) and bool(expr.args) and constant(expr.args[0]) is False


def _grad_off(ctx: FileContext, node: ast.AST) -> bool:
    """``node`` runs inside a ``with`` block or a function decorated to disable gradient tracking."""
    for with_node in ctx.enclosing_withs(node):
        if any(_disables_grad(ctx, item.context_expr) for item in with_node.items):
            return True
    func = ctx.enclosing_function(node)
    return func is not None and any(_disables_grad(ctx, deco) for deco in func.decorator_list)


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
    return bool(sites) and all(_grad_off(ctx, site) for site in sites)


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
    for value in flow_a.returns(func):
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
    if name in flow_a.function_params(func):
        for site in _callers(ctx, func):
            arg = flow_a.argument_for(site, func, name)
            if isinstance(arg, ast.Name):
                found += _model_origins(ctx, arg.id, site, ctx.enclosing_function(site), depth + 1)
            elif arg is not None:
                found.append(arg)
        return found
    return found + [v for _l, _s, v in ctx.assignments(ctx.tree).get(name, []) if v is not None]


def _loaded_in_eval_mode(ctx: FileContext, name: str, at: ast.AST, func: ast.AST | None) -> bool:
    """The model comes from a call that puts it in eval mode (``load_model(ckpt)`` that ends with ``m.eval()``)."""
    for origin in _model_origins(ctx, name, at, func):
        origin = _unwrap_module(origin)
        if _is_eval_switch(origin):
            return True
        if isinstance(origin, ast.Call):
            loader = ctx.callee_definition(origin)
            if loader is not None and _returns_eval_model(ctx, loader):
                return True
    return False


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
    mode before returning it (`m.eval(); return m`, `return m.eval()`) counts as being in eval mode.
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
            model_calls = [c for c in in_func if _grad_off(ctx, c)]
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
            if any(_NOT_TRAINED.search(_is_model_call(ctx, c) or "") for c in model_calls):
                continue
            model_calls = [c for c in model_calls if not _loaded_in_eval_mode(ctx, _is_model_call(ctx, c) or "", c, func)]
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
            yield self.finding(ctx, call, message, next_test=f"print `{name}.training` inside the loop at line {loop.lineno}: it is True")

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
        if cls is not None and _is_module_class(ctx, cls):
            return False
        model = loop_model(ctx)
        if not any({"backward", "step"} <= trace.kinds() for trace in model.traces):
            return False  # not a training script: evaluation-only code is left to the no_grad form of this rule
        scope = func if func is not None else loop
        for call in ctx.calls(scope):
            if call_method(call) in {"backward", "manual_backward", "step", "zero_grad"}:
                return False
            if (ctx.qualname(call) or "") in NO_GRAD | _SET_GRAD:
                return False
        if func is not None:
            helper_trains = any(t.root is func and {"backward", "step"} & t.kinds() for t in model.traces)
        else:
            helper_trains = any(t.root is ctx.tree and loop in t.loop_parent and {"backward", "step"} & t.kinds(loop) for t in model.traces)
        if helper_trains:
            return False  # a helper called from here trains
        return func is None or not any(_grad_off(ctx, site) for site in _callers(ctx, func))  # some callers turn it off

    @staticmethod
    def _caller_sets_eval(ctx, func) -> bool:
        callers = _callers(ctx, func)
        for call in callers:
            scope = ctx.enclosing_function(call) or ctx.tree
            for c in ctx.calls(scope):
                if isinstance(c.func, ast.Attribute) and c.func.attr == "eval" and not c.args and c.lineno <= call.lineno:
                    return True
        return False


@register_rule
class TrainModeNotRestored(Rule):
    """Training continues in eval mode after an evaluation inside the epoch loop.

    What it finds: an epoch loop that trains (runs `backward()` / `optimizer.step()`) and also calls
    `model.eval()` (directly or in a helper such as `evaluate(model, ...)`), but never calls
    `model.train()` inside the loop, so from the second epoch on the model trains in eval mode.
    Why it matters: in eval mode dropout is off and BatchNorm uses (and stops updating) its running
    statistics. Training still "works", which hides the bug: the model regularises less, BatchNorm
    statistics freeze at their epoch-one values, and the curves change shape after the first
    evaluation.
    How to confirm: print `model.training` at the first batch of the second epoch: it is False.
    What to do instead: call `model.train()` at the start of every epoch (or of the training
    function), not once before the loop.
    """

    id = "train-mode-not-restored"
    category = "evaluation"
    severity = "warning"
    triggers = (".eval(", ".train(False", "train(mode=False")
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        yield from dedupe(f for trace in model.traces for f in self._trace(ctx, model, trace))

    def _trace(self, ctx, model, trace: Trace) -> Iterator:
        trained = _trained_models(ctx, model)
        for loop in trace.loops():
            if isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            events = trace.in_loop(loop)
            kinds = {e.kind for e in events}
            if "eval" not in kinds or not ({"backward", "step"} <= kinds) or "opaque" in kinds:
                continue
            if any(e.kind == "train" for e in events):
                continue
            if trace.loop_parent.get(loop) is not None and any(
                e.kind == "train" for e in trace.in_loop(trace.loop_parent[loop])
            ):
                continue
            evals = [e for e in events if e.kind == "eval" and self._is_trained_model(e.target, trained)]
            if not evals:
                continue
            ev = evals[0]
            training = next(e for e in events if e.kind in {"backward", "step"})
            yield self.finding(
                ctx,
                ev.anchor,
                f"{ev.target}.eval() at {ev.where()} runs inside the loop at line {loop.lineno}, which also trains ({training.kind} at "
                f"{training.where()}), and {ev.target}.train() is never called in that loop: after the first pass the model"
                " trains in eval mode (dropout off, batch-norm statistics frozen)",
                next_test=f"print `{ev.target}.training` at the first batch of the second iteration of the loop at line {loop.lineno}: it is False",
            )

    @staticmethod
    def _is_trained_model(target: str | None, trained: set[str]) -> bool:
        if not target or target == "self":
            return target == "self"
        if trained:
            return target in trained or any(t.startswith(target + ".") for t in trained)
        return not _NOT_TRAINED.search(target)


def _trained_models(ctx: FileContext, model) -> set[str]:
    """Names whose parameters go into an optimizer (``Adam(model.parameters())`` gives ``model``)."""
    names: set[str] = set()
    for opt in model.optimizers():
        call = opt.construction
        if call is None:
            continue
        for node in ast.walk(call):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"parameters", "named_parameters"}:
                name = dotted(node.func.value)
                if name:
                    names.add(name)
    return names


_FUNCTIONAL_DROPOUT = {
    "torch.nn.functional.dropout",
    "torch.nn.functional.dropout1d",
    "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d",
    "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout",
}


def _calls_named(ctx: FileContext, fragment: str) -> list[ast.Call]:
    """Calls whose function name contains ``fragment`` (a cheap filter before resolving aliases)."""
    found = []
    for node in ctx.all_nodes:
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else (func.id if isinstance(func, ast.Name) else "")
            if fragment in name:
                found.append(node)
    return found


def _is_module_class(ctx: FileContext, cls: ast.ClassDef, depth: int = 0) -> bool:
    if depth > 5:
        return False
    for base in cls.bases:
        qn = ctx.qualname(base) or ""
        if qn.startswith("torch.nn") or qn.endswith("Module") or qn.endswith(("LightningModule", "PreTrainedModel")):
            return True
        local = next((c for c in ctx.classes if c.name == qn), None)
        if local is not None and local is not cls and _is_module_class(ctx, local, depth + 1):
            return True
    return False


@register_rule
class FunctionalDropoutAlwaysOn(Rule):
    """`F.dropout` inside a module without `training=self.training`.

    What it finds: a call to `torch.nn.functional.dropout` (or `dropout2d`, `alpha_dropout`, ...) in a
    method of an `nn.Module` subclass that does not pass the `training` argument.
    Why it matters: unlike the `nn.Dropout` module, the functional form does not know about
    `model.eval()`: its `training` argument defaults to True. Dropout then stays active at evaluation
    and inference, so predictions are random and accuracy is lower than the model's real quality.
    How to confirm: in eval mode, run the same input through the model twice under `torch.no_grad()`:
    the outputs differ.
    What to do instead: pass `training=self.training` (`F.dropout(x, p, training=self.training)`), or
    use an `nn.Dropout` submodule.
    """

    id = "functional-dropout-always-on"
    category = "evaluation"
    severity = "error"
    triggers = ("dropout",)
    # torch.nn.functional.dropout*, inside a method of an nn.Module subclass
    requires = (("functional",), ("class",), (word("nn"), "Module", "PreTrainedModel"), (MODULE_CLASS,))

    def check(self, ctx):
        for call in _calls_named(ctx, "dropout"):
            qn = ctx.qualname(call) or ""
            if qn not in _FUNCTIONAL_DROPOUT:
                continue
            if len(call.args) >= 3 or keyword(call, "training") is not None or any(isinstance(a, ast.Starred) for a in call.args):
                continue
            if any(kw.arg is None for kw in call.keywords):
                continue
            cls = ctx.enclosing_class(call)
            func = ctx.enclosing_function(call)
            if cls is None or func is None or not _is_module_class(ctx, cls):
                continue
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 80)}` in `{cls.name}.{func.name}` does not pass `training=`; functional dropout defaults"
                " to training=True, so it keeps dropping units after model.eval()",
                next_test="call model.eval() and run the same input twice under torch.no_grad(): the outputs differ",
            )


@register_rule
class DirectForwardCall(Rule):
    """A model's `.forward()` is called directly instead of calling the model.

    What it finds: `model.forward(x)` in training or evaluation code, where `model` is an object the
    file treats as a model (it calls `.parameters()`, `.eval()`, ... on it). Calls inside a module's
    own methods (`super().forward(x)`, `self.inner.forward(x)` in a wrapper's `forward`) are left
    alone: wrappers do this on purpose and the outer call already ran the hooks.
    Why it matters: `model(x)` runs `__call__`, which runs forward pre-hooks and hooks, and the hooks
    that wrappers and tools rely on: `DistributedDataParallel` gradient synchronisation, FSDP
    parameter gathering, pruning and weight-norm reparametrisations, activation checkpointing,
    profilers. Calling `.forward` skips them all, so multi-GPU training silently stops syncing
    gradients or a reparametrised weight is stale.
    How to confirm: register a forward hook that prints (`model.register_forward_hook(lambda *a:
    print('hook'))`) and run the line: nothing is printed.
    What to do instead: call the module itself: `model(x)`.
    """

    id = "direct-forward-call"
    category = "architecture"
    severity = "warning"
    triggers = (".forward(",)

    def check(self, ctx):
        if not ctx.imports_any("torch"):
            return
        models = _model_names(ctx)
        for call in ctx.calls():
            if not isinstance(call.func, ast.Attribute) or call.func.attr != "forward":
                continue
            receiver = call.func.value
            name = dotted(receiver)
            if name is None or name in {"self", "cls"} or name.split(".")[0] in ctx.imports:
                continue
            cls = ctx.enclosing_class(call)
            if cls is not None and _is_module_class(ctx, cls):
                continue
            func = ctx.enclosing_function(call)
            if func is not None and func.name == "forward":
                continue
            if name.startswith("self.") and cls is not None:
                continue
            if name not in models or self._is_parallel_wrapper(ctx, receiver):
                continue
            if not self._in_training_or_eval_loop(ctx, call):
                continue
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 80)}` calls forward directly: the module's hooks (DDP gradient sync, FSDP, pruning,"
                f" profilers) do not run; call `{name}(...)` instead",
                next_test=f"register `{name}.register_forward_hook(lambda *a: print('hook'))` and run this line: nothing prints",
            )

    @staticmethod
    def _is_parallel_wrapper(ctx: FileContext, receiver: ast.AST) -> bool:
        """DDP/FSDP/DataParallel objects do their work in their own forward: calling it is fine."""
        value = ctx.resolve(receiver)
        if isinstance(value, ast.Call):
            last = (ctx.qualname(value) or "").rsplit(".", 1)[-1]
            return last in {"DistributedDataParallel", "DataParallel", "FullyShardedDataParallel", "DDP", "FSDP"}
        return False

    @staticmethod
    def _in_training_or_eval_loop(ctx: FileContext, call: ast.Call) -> bool:
        """The call runs in a loop that trains (backward/step) or evaluates (eval mode, no_grad)."""
        loops = ctx.enclosing_loops(call)
        if not loops:
            return False
        if _grad_off(ctx, call):
            return True
        model = loop_model(ctx)
        for trace in model.traces:
            for loop in loops:
                if loop in trace.loop_parent and {"backward", "step", "eval"} & trace.kinds(loop):
                    return True
        return False


_LOADS_IN_EVAL_MODE = ("from_pretrained",)


@register_rule
class TrainModeNeverSet(Rule):
    """A model loaded with `from_pretrained` is trained without ever calling `model.train()`.

    What it finds: a custom training loop (backward and optimizer step) over a model created with
    `from_pretrained(...)` (Hugging Face transformers and similar libraries), in a file that never
    calls `.train()` on anything.
    Why it matters: `from_pretrained` returns the model in evaluation mode. A hand-written loop that
    never switches it back fine-tunes with dropout disabled (and, for models with batch norm, with
    frozen running statistics): the run overfits sooner and does not match the reference numbers,
    with nothing in the logs to say why. The library's `Trainer` calls `model.train()` for you, so
    loops copied from it lose the call.
    How to confirm: print `model.training` at the first step of the loop: it is False.
    What to do instead: call `model.train()` before the training loop (and again after every
    evaluation inside it).
    """

    id = "train-mode-never-set"
    category = "evaluation"
    severity = "warning"
    triggers = ("from_pretrained",)
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx):
        model = loop_model(ctx)
        if any(e.kind == "train" for t in model.traces for e in t.events):
            return
        if any(isinstance(c.func, ast.Attribute) and c.func.attr == "train" for c in ctx.calls()):
            return
        trained = _trained_models(ctx, model)
        reported = set()
        for trace in model.traces:
            for loop in step_loops(trace):
                events = trace.in_loop(loop)
                if not {"backward", "step"} <= {e.kind for e in events} or isinstance(loop, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                for name in sorted(trained):
                    site = self._pretrained_site(ctx, model, name, loop)
                    if site is None or (site.lineno, name) in reported:
                        continue
                    reported.add((site.lineno, name))
                    step = next(e for e in events if e.kind == "step")
                    yield self.finding(
                        ctx,
                        loop,
                        f"`{name}` comes from from_pretrained (line {site.lineno}), which returns it in eval mode, and is trained"
                        f" by the loop at line {loop.lineno} (step at {step.where()}) without any `{name}.train()`: dropout"
                        " stays off during fine-tuning",
                        observation=ctx.line_text(loop.lineno),
                        next_test=f"print `{name}.training` at the first step of the loop at line {loop.lineno}: it is False",
                    )

    @staticmethod
    def _pretrained_site(ctx: FileContext, model, name: str, loop: ast.AST) -> ast.Call | None:
        if "." in name:
            return None
        scope = ctx.enclosing_function(loop) or ctx.tree
        entries = ctx.assignments(scope).get(name, [])
        value = entries[-1][2] if entries else model.module_value(name)
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in {"to", "cuda"}:
            value = value.func.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _LOADS_IN_EVAL_MODE:
            return value
        return None
