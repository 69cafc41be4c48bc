"""The ``arguments-swapped`` rule: a project function called with two arguments named after each other's parameters."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.argument_roles import (
    Slot,
    also_called_in_order,
    bound_slots,
    crossed_pairs,
    deliberate,
    name_key,
    name_of,
    output_role,
    round_trip,
    words_role,
)
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.function_summaries import resolve_call
from mlsleuth.scan.registry import Rule, register_rule

# Decorators that keep a function's signature (anything else may rebind its parameters).
_PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abstractmethod", "overload", "no_grad",
                               "inference_mode", "enable_grad", "lru_cache", "cache", "wraps", "script", "jit",
                               "torch.no_grad", "torch.inference_mode", "functools.lru_cache", "functools.cache"})
# Tensor and container methods called with several named arguments all over model code (``x.view(b, n, h)``):
# never a project method worth resolving on a receiver other than ``self``.
_LIBRARY_METHODS = frozenset({
    "view", "reshape", "transpose", "permute", "expand", "repeat", "masked_fill", "masked_fill_", "narrow", "split",
    "chunk", "gather", "scatter", "scatter_", "index_select", "to", "type", "new_zeros", "new_ones", "new_full",
    "new_empty", "unflatten", "flatten", "size", "add", "add_", "mul", "mul_", "clamp", "where", "index_add",
    "index_add_", "index_copy", "masked_scatter", "expand_as", "view_as", "repeat_interleave", "roll", "unfold",
    "get", "setdefault", "pop", "format", "join", "replace", "append", "extend", "insert", "update", "register_buffer",
    "register_parameter", "add_module", "log", "log_dict", "info", "warning", "debug", "error", "print", "write",
})
# Parameters a loss takes its prediction as when the target is named beside it (torch's (input, target)).
_PREDICTION_SLOTS = frozenset({"input", "inputs"})


def _callee(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.AST, bool, str] | None:
    """(file, function, is a method, what the call names) for a call into the project: a function, a method of a
    known instance, a class being built (its ``__init__``) or an instance being called (its ``forward``)."""
    label = dotted(call.func) or ctx.segment(call.func, 40)
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id in ctx.imports:
        # module.function(...) / module.Class(...): only an import of the project can bind it
        found = vo.project_function(ctx, call.func)
        if found is not None:
            return found[0], found[1], False, label
        cls = vo.project_class(ctx, call.func)
        init = vo.class_method(cls[0], cls[1], "__init__") if cls is not None else None
        return (init[0], init[1], True, label) if init is not None else None
    if isinstance(call.func, ast.Attribute) and call.func.attr in _LIBRARY_METHODS and not (
            isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
        return None
    found = resolve_call(ctx, call, bind_params=False)
    if found is not None:
        tctx, func = found
        return tctx, func, _is_method(tctx, func), label
    cls = vo.constructed_class(ctx, call)
    if cls is not None:
        init = vo.class_method(cls[0], cls[1], "__init__")
        return (init[0], init[1], True, label) if init is not None else None
    if isinstance(call.func, (ast.Name, ast.Attribute)):
        owner = vo.instance_class(ctx, call.func, bind_params=False)
        if owner is not None:
            method = vo.class_method(owner[0], owner[1], "forward") or vo.class_method(owner[0], owner[1], "__call__")
            if method is not None:
                return method[0], method[1], True, label
    return None


def _is_method(ctx: FileContext, func: ast.AST) -> bool:
    if ctx.enclosing_class(func) is None or ctx.enclosing_function(func) is not None:
        return False
    return not any(dotted(d) == "staticmethod" for d in getattr(func, "decorator_list", ()))


def _plain_signature(func: ast.AST) -> bool:
    for deco in getattr(func, "decorator_list", ()):
        name = dotted(deco.func if isinstance(deco, ast.Call) else deco) or ""
        if name not in _PLAIN_DECORATORS and name.rsplit(".", 1)[-1] not in _PLAIN_DECORATORS:
            return False
    return True


def _param_role(param: str, other: str) -> str | None:
    role = words_role(param)
    if role is None and param in _PREDICTION_SLOTS and words_role(other) == "true":
        return "pred"
    return role


def _roles_crossed(ctx: FileContext, slots: list[Slot]) -> tuple[Slot, Slot] | None:
    """Two slots whose parameters are a prediction and a reference (``pred``/``target``, ``logits``/``labels``)
    and whose arguments are the other way round, each told by its name or value; by position or by keyword
    (``f(pred=labels, target=logits)`` crosses them just the same)."""
    for i, first in enumerate(slots):
        for second in slots[i + 1:]:
            roles = (_param_role(first.param, second.param), _param_role(second.param, first.param))
            if set(roles) != {"pred", "true"}:
                continue
            if output_role(ctx, first.arg) == roles[1] and output_role(ctx, second.arg) == roles[0]:
                return first, second
    return None


@register_rule
class ArgumentsSwapped(Rule):
    """Two arguments of a call to a project function passed in each other's places

    What it finds: a call to a function, method, class or `nn.Module` defined in the scanned project
    (followed through imports, instances and `self`) where two arguments carry the names of each
    other's parameters: `train(model, val_loader, train_loader)` against `def train(model,
    train_loader, val_loader)`, `Dataset(y, X)` against `def __init__(self, X, y)`,
    `compute_metrics(preds, labels)` against `def compute_metrics(labels, preds)`, `split(test_size,
    seed)`. Names are compared after normalisation (letter case, `batch_`/`y_`/`cur_` prefixes, plurals,
    `valid`/`val`, `preds`/`prediction`); a parameter pair of a prediction and a reference (`pred` and
    `target`, `logits` and `labels`, `input` and `target`) also counts as crossed when the arguments'
    names or values are a reference then a prediction (`loss_fn(labels, logits)`), by position or by
    keyword (`loss_fn(pred=labels, target=logits)`; other pairs written out by keyword count as meant). Both arguments of
    the pair must match; names that decide nothing (`x`, `a`, `tmp`, `x1`/`x2`), mirror pairs that code
    crosses on purpose (`src`/`tgt`, `head`/`tail`, `h`/`w`, `query`/`key`), callees taking `*args`,
    calls inside functions named for a reversal (`reverse_kl`), symmetric measures (`distance`), a
    comment or docstring that announces the swap, and a second call that passes the pair in order
    (`f(a, b) + f(b, a)`) are left alone.
    Why it matters: Python binds positional arguments by position only, so a crossed pair runs without
    an error and the callee computes something else: the model is trained on the validation loader and
    "validated" on the training data, a loss treats the labels as the prediction, a dataset returns its
    labels as features. Public reports: a contrastive-learning repository whose cross-entropy helper
    took (labels, logits) while its caller passed (logits, labels)
    (https://github.com/isaaccorley/detcon-pytorch/issues/1); DDSP's loss objects, defined as (audio,
    target_audio), were fed the target first (https://github.com/magenta/ddsp/issues/59); a spectral
    fitting helper whose two flags were passed in each other's positions
    (https://github.com/astropy/specutils/pull/1030). Classic static analysis finds such defects from
    names alone (Rice et al., "Detecting argument selection defects", OOPSLA 2017).
    How to confirm: print the values the callee receives for the two parameters (their shapes, a
    few entries, `len()` of a loader): each holds what the other was meant to.
    What to do instead: pass the two arguments in the order of the signature, or name them:
    `train(model, train_loader=train_loader, val_loader=val_loader)`.
    """

    id = "arguments-swapped"
    category = "data"
    severity = "warning"
    reach = "project"
    triggers = ("def", "import")  # the callee is defined in this file or imported from another

    def check(self, ctx: FileContext):
        for call in ctx.calls():
            if len(call.args) + len(call.keywords) < 2:
                continue
            keys = [k for a in (*call.args, *(kw.value for kw in call.keywords)) if (k := name_key(name_of(a))) is not None]
            if len(keys) < 2 and not _maybe_roles(call):
                continue
            found = _callee(ctx, call)
            if found is None:
                continue
            tctx, func, method, label = found
            if not _plain_signature(func):
                continue
            slots = bound_slots(call, func, method=method)
            if not slots:
                continue
            pair = next((p for p in crossed_pairs(slots) if not also_called_in_order(ctx, call, *p)), None)
            if pair is None:
                pair = _roles_crossed(ctx, slots)
                if pair is not None and also_called_in_order(ctx, call, *pair):
                    pair = None
            if pair is None or deliberate(ctx, call, getattr(func, "name", None)) or round_trip(ctx, call, func, *pair):
                continue
            first, second = pair
            where = f"line {func.lineno}" if tctx is ctx else f"{tctx.display_path}, line {func.lineno}"  # type: ignore[attr-defined]
            yield self.finding(
                ctx,
                call,
                (f"`{label}` ({where}) takes `{first.param}` before `{second.param}`, but this call passes "
                 if first.position is not None and second.position is not None else
                 f"`{label}` ({where}) takes `{first.param}` and `{second.param}`, but this call names ")
                + f"`{ctx.segment(first.arg, 40)}` as `{first.param}` and `{ctx.segment(second.arg, 40)}` as "
                f"`{second.param}`: the two look swapped",
                next_test=f"Print what `{getattr(func, 'name', label)}` receives as `{first.param}` and `{second.param}`; "
                "each holds what the other was meant to.",
                fix=f"Pass each value in its own slot, or name both: `{label}(..., {first.param}=..., {second.param}=...)`.",
                measurements={"callee": label, "parameters": [first.param, second.param]},
            )


def _maybe_roles(call: ast.Call) -> bool:
    """At least two positional arguments a role could be read from (a name, a subscript, a method chain), one of
    them named for a prediction or a reference: the roles path cannot cross otherwise."""
    values = [*call.args, *(k.value for k in call.keywords if k.arg is not None)]
    if sum(1 for a in values if isinstance(a, (ast.Name, ast.Attribute, ast.Subscript, ast.Call))) < 2:
        return False
    return any(words_role(name) is not None for a in values if (name := name_of(a)) is not None)
