"""The ``adam-eps-underflows-in-fp16`` rule: an Adam-family optimizer with its default eps over float16 weights."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import settings
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, dotted, keyword
from mlsleuth.scan.analysis.optimizer_params import trained_modules
from mlsleuth.scan.registry import Rule, register_rule

# Optimizer -> its default eps (all below float16's smallest subnormal, about 6e-8, so they round to zero).
_DEFAULT_EPS = {"Adam": 1e-8, "AdamW": 1e-8, "Adamax": 1e-8, "NAdam": 1e-8, "RAdam": 1e-8, "RMSprop": 1e-8, "Adagrad": 1e-10}
_FP16_SMALLEST = 5.96e-8
_FP16 = frozenset({"torch.float16", "torch.half"})
# Code that keeps fp32 master weights or hands the optimizer to a framework that manages precision.
_MASTER_AWARE = re.compile(r"master_params|master_weights|FP16_Optimizer|amp\.initialize|deepspeed|bitsandbytes|\bbnb\b|"
                           r"accelerator\.prepare|Fabric|MixedPrecision")


def _is_fp16(ctx: FileContext, expr: ast.AST | None) -> bool:
    found = settings.default_expr(ctx, expr) if expr is not None else None
    return found is not None and found[0].qualname(found[1]) in _FP16


def _casts_to_fp16(ctx: FileContext, call: ast.Call) -> bool:
    """``x.half()``, ``x.to(torch.float16)``, ``x.to(dtype=torch.half)``, ``x.type(torch.float16)``."""
    method = call_method(call)
    if method == "half" and not call.args:
        return True
    if method in ("to", "type"):
        return any(_is_fp16(ctx, a) for a in [*call.args, keyword(call, "dtype")] if a is not None)
    return False


def _chain_casts(ctx: FileContext, expr: ast.AST | None) -> bool:
    """``Net().half().cuda()`` / ``AutoModel.from_pretrained(..., torch_dtype=torch.float16)``."""
    while isinstance(expr, ast.Call):
        if _casts_to_fp16(ctx, expr):
            return True
        if call_method(expr) == "from_pretrained" and _is_fp16(ctx, keyword(expr, "torch_dtype") or keyword(expr, "dtype")):
            return True
        expr = expr.func.value if isinstance(expr.func, ast.Attribute) else None
    return False


def _method_casts_self(ctx: FileContext, cls: ast.ClassDef, name: str) -> bool:
    """A method of the model's class that casts the whole model (``def convert_to_fp16(self): self.half()``)."""
    method = ctx.method(cls, name)
    if method is None:
        return False
    for call in ctx.calls(method):
        if _casts_to_fp16(ctx, call) and isinstance(call.func, ast.Attribute) and dotted(call.func.value) == "self":
            return True
    return False


def _flag_off(ctx: FileContext, func: ast.AST, node: ast.AST, site: tuple[FileContext, ast.Call] | None) -> bool:
    """The cast runs only under ``if <param>:`` and the call leaves that parameter False."""
    for anc in ctx.ancestors(node):
        if anc is func:
            break
        if isinstance(anc, ast.If) and isinstance(anc.test, ast.Name) and anc.test.id in vo.function_params(func):
            param = anc.test.id
            arg = vo.argument_for(site[1], func, param) if site is not None else None
            value = constant(arg) if arg is not None else constant(vo.parameter_default(func, param))
            if value is False or value is None:
                return True
    return False


def _casts_name_in(ctx: FileContext, scope: ast.AST, name: str, before: int | None,
                   site: tuple[FileContext, ast.Call] | None = None) -> bool:
    """In ``scope`` (before line ``before``), ``name`` is cast to float16 as a whole, directly or through a method of
    its class; or is bound to something built in float16."""
    bound_cls = None
    for line, _stmt, value in vo.bindings(ctx, scope).get(name, []):
        if before is not None and line >= before:
            continue
        if value is not None and _chain_casts(ctx, value) and not _flag_off(ctx, scope, value, site):
            return True
        inner = vo.unwrap_module(ctx, value) if value is not None else None
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name):
            bound_cls = vo.file_class(ctx, inner.func.id) or bound_cls
            if bound_cls is None:
                hit = vo.project_class(ctx, inner.func)
                bound_cls = hit[1] if hit is not None and hit[0] is ctx else bound_cls
    for call in ctx.calls(scope):
        if before is not None and call.lineno >= before:
            continue
        if not (isinstance(call.func, ast.Attribute) and dotted(call.func.value) == name):
            continue
        if _casts_to_fp16(ctx, call) or (bound_cls is not None and _method_casts_self(ctx, bound_cls, call.func.attr)):
            if not _flag_off(ctx, scope, call, site):
                return True
    return False


def _helper_returns_fp16(ctx: FileContext, call: ast.Call, index: int | None) -> bool:
    """A project helper called as ``call`` returns (element ``index`` of) a model it cast to float16."""
    found = vo.helper_definition(ctx, call)
    if found is None:
        return False
    hctx, func = found
    for ret in vo.returns(func):
        if index is not None:
            if not (isinstance(ret, ast.Tuple) and len(ret.elts) > index):
                continue
            ret = ret.elts[index]
        if _chain_casts(hctx, ret):
            return True
        inner = vo.unwrap_module(hctx, ret)
        target = inner if isinstance(inner, ast.Name) else ret
        while isinstance(target, ast.Call) and isinstance(target.func, ast.Attribute):
            target = target.func.value
        if isinstance(target, ast.Name) and _casts_name_in(hctx, func, target.id, ret.lineno, (ctx, call)):
            return True
    return False


def _model_is_fp16(ctx: FileContext, scope: ast.AST, model: str, before: int) -> bool:
    if _casts_name_in(ctx, scope, model, before):
        return True
    for line, stmt, _value in vo.bindings(ctx, scope).get(model, []):
        if line >= before or not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Call):
            continue
        target = stmt.targets[0] if len(stmt.targets) == 1 else None
        index = None
        if isinstance(target, ast.Tuple):
            index = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == model), None)
            if index is None:
                continue
        if _helper_returns_fp16(ctx, stmt.value, index):
            return True
    return False


@register_rule
class AdamEpsUnderflowsInFp16(Rule):
    """Adam-family default eps (rounds to 0) over float16 weights.

    What it finds: `torch.optim.Adam` / `AdamW` / `Adamax` / `NAdam` / `RAdam` / `RMSprop` / `Adagrad`
    built without `eps=` (or with an eps below 6e-8) over the parameters of a model whose weights are
    float16: cast with `.half()` / `.to(torch.float16)` / `from_pretrained(torch_dtype=torch.float16)`
    in the same function, or returned by a project helper that casts it (directly or through a method
    of the model's class such as `convert_to_fp16()`), unless the helper is called with its fp16 flag off.
    Why it matters: the optimizer state lives in the parameters' dtype. In float16, eps=1e-8 is below
    the smallest subnormal and rounds to 0, and squared gradients below about 6e-8 underflow to 0 as
    well, so an element with a tiny or zero gradient is updated by 0/0 or m/0: NaN or inf weights after
    the first steps, and the loss turns nan without an error.
    How to confirm: after one or two optimizer steps, check `torch.isfinite(p).all()` for every
    parameter, or print `torch.tensor(1e-8, dtype=torch.float16)`: it is 0.
    What to do instead: keep the weights in float32 and use autocast with a GradScaler; or keep fp32
    master weights; or at least pass `eps=1e-4` (a value float16 can hold) when the weights are half.
    """

    id = "adam-eps-underflows-in-fp16"
    category = "numerical"
    severity = "warning"
    reach = "project"
    triggers = tuple(_DEFAULT_EPS)

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch") or _MASTER_AWARE.search(ctx.source):
            return
        for call in ctx.calls_named(*_DEFAULT_EPS):
            qual = vo.normalize(ctx.qualname(call)) or ""
            name = qual.rsplit(".", 1)[-1]
            if name not in _DEFAULT_EPS or not qual.startswith("torch.optim"):
                continue
            eps = keyword(call, "eps")
            if eps is not None:
                value = constant(eps)
                if not isinstance(value, (int, float)) or value >= _FP16_SMALLEST:
                    continue
            eps_value = constant(eps) if eps is not None else _DEFAULT_EPS[name]
            scope = ctx.enclosing_function(call) or ctx.tree
            models = trained_modules(call).modules
            if not models:
                params = argument(call, 0, "params")
                bound = vo.value(ctx, params) if isinstance(params, ast.Name) else None
                models = trained_modules(ast.Call(func=call.func, args=[bound], keywords=[])).modules if bound is not None else models
            model = next((m for m in sorted(models) if "." not in m and _model_is_fp16(ctx, scope, m, call.lineno)), None)
            if model is None:
                continue
            yield self.finding(
                ctx,
                call,
                f"{name} keeps eps={eps_value:g} while `{model}`'s weights are float16: in float16 that eps rounds to 0 "
                "and tiny squared gradients underflow, so updates become 0/0 or m/0 and the weights turn NaN/inf",
                next_test="After two optimizer steps check torch.isfinite(p).all() for every parameter.",
            )
