"""The ``module-list-repeats-one-instance`` rule: `[layer] * n` puts the same module object in a container n times."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import MODULE_CONTAINERS, module_kind
from mlsleuth.scan.registry import Rule, register_rule

_CONTAINERS = {"torch.nn.ModuleList", "torch.nn.Sequential"}


def _repeated(ctx: FileContext, expr: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """(the repeated element, the count) for ``[x] * n`` / ``n * [x]`` (through one local name), else None."""
    if isinstance(expr, ast.Starred):
        expr = expr.value
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        expr = bound if bound is not None else expr
    if not (isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Mult)):
        return None
    for seq, count in ((expr.left, expr.right), (expr.right, expr.left)):
        if isinstance(seq, (ast.List, ast.Tuple)) and len(seq.elts) == 1:
            return seq.elts[0], count
    return None


def _same_object_comprehension(ctx: FileContext, expr: ast.AST) -> tuple[ast.AST, ast.AST] | None:
    """``[block for _ in range(n)]`` where ``block`` is one module built before the comprehension."""
    if not (isinstance(expr, ast.ListComp) and isinstance(expr.elt, ast.Name) and len(expr.generators) == 1):
        return None
    gen = expr.generators[0]
    targets = {n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
    if expr.elt.id in targets:
        return None
    return expr.elt, gen.iter


def _helper_returns_parameterised_module(ctx: FileContext, call: ast.Call) -> bool:
    """True when ``call`` runs a project function (`def mlp(...): ... return nn.Sequential(*layers)`) whose
    returned module holds parameters: a parameterised layer, a project module class, or a container
    while the function also builds a parameterised layer."""
    found = value_origins.helper_definition(ctx, call)
    if found is None or isinstance(found[1], ast.ClassDef):
        return False
    hctx, func = found
    built = [module_kind(hctx, node) for node in ast.walk(func) if isinstance(node, ast.Call)]
    for ret in (n for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None):
        value = ret.value
        if isinstance(value, ast.Name):
            bound = value_origins.value(hctx, value)
            value = bound if bound is not None else value
        if not isinstance(value, ast.Call):
            continue
        last = (hctx.qualname(value) or "").rsplit(".", 1)[-1]
        kind = module_kind(hctx, value)
        if kind == "params" and last in MODULE_CONTAINERS:
            if built.count("params") > 1:  # the container itself, plus a layer with weights inside
                return True
        elif kind == "params" or value_origins.project_class(hctx, value.func) is not None:
            return True
    return False


_SHARING = re.compile(r"shar(e|ed|ing)|tie|tied|common|same", re.IGNORECASE)


def _sharing_on_purpose(ctx: FileContext, call: ast.Call, element: ast.AST) -> bool:
    """The code says the sharing is meant: the repeated name (`shared_head`) or an enclosing
    condition (`if config.share_bbox_head:`) speaks of sharing or tying."""
    if isinstance(element, ast.Name) and _SHARING.search(element.id):
        return True
    return any(isinstance(node, ast.If) and _SHARING.search(ctx.segment(node.test, 200)) for node in ctx.ancestors(call))


@register_rule
class ModuleListRepeatsOneInstance(Rule):
    """`[layer] * n` puts the same module object in a container n times.

    What it finds: `nn.ModuleList([Block(...)] * n)`, `nn.Sequential(*[Conv(...)] * n)` and
    `nn.ModuleList([block for _ in range(n)])` with `block` built once, where the repeated module has
    parameters (a layer, a block, a module class of the project, or what a builder function of the
    project returns: `nn.ModuleList([mlp(1, 64, 3)] * 2)` with `def mlp(...)` returning a `Sequential`
    of `Linear` layers). Parameter-free modules (`nn.ReLU`,
    `nn.Identity`, pooling) are left alone: sharing them changes nothing; so is sharing the code
    says it means (a repeated `shared_head`, or the list built under `if config.share_heads:`).
    Why it matters: list multiplication copies the reference, not the module. The container holds one
    module n times: every "layer" shares the same weights, the model has 1/n of the intended
    parameters (`sum(p.numel() for p in model.parameters())` counts them once), and depth brings no
    extra capacity. Training runs normally and just underfits.
    How to confirm: `model.convs[0] is model.convs[1]` is True; the parameter count is lower than
    expected.
    What to do instead: build a new module per position:
    `nn.ModuleList([Block(...) for _ in range(n)])` (or `copy.deepcopy(block)` per position when the
    copies should start identical).
    """

    id = "module-list-repeats-one-instance"
    category = "architecture"
    severity = "error"
    triggers = ("ModuleList", "Sequential")
    requires = (("*",),)

    def check(self, ctx: FileContext):
        for call in ctx.calls_named("ModuleList", "Sequential"):
            if value_origins.normalize(ctx.qualname(call)) not in _CONTAINERS:
                continue
            for arg in call.args:
                found = _repeated(ctx, arg) or (_same_object_comprehension(ctx, arg) if not isinstance(arg, ast.Starred) else None)
                if found is None and isinstance(arg, ast.Starred):
                    found = _same_object_comprehension(ctx, arg.value)
                if found is None:
                    continue
                element, count = found
                made = element if isinstance(element, ast.Call) else value_origins.value(ctx, element)
                kind = module_kind(ctx, made) if isinstance(made, ast.Call) else None
                if kind is None and isinstance(made, ast.Call):
                    other = value_origins.project_class(ctx, made.func)
                    kind = "params" if other is not None else None
                if kind is None and isinstance(made, ast.Call) and _helper_returns_parameterised_module(ctx, made):
                    kind = "params"
                if kind != "params" or _sharing_on_purpose(ctx, call, element):
                    continue
                name = dotted(made.func) if isinstance(made, ast.Call) else ctx.segment(element)  # type: ignore[union-attr]
                yield self.finding(
                    ctx,
                    call,
                    f"{ctx.segment(call.func)} holds the same `{name}` object {ctx.segment(count, 40)} times: list repetition copies"
                    " the reference, so every position shares one set of weights and the stack has 1/n of the intended parameters",
                    next_test=f"check `container[0] is container[1]` (True) and count the parameters: {name} is counted once",
                )
                break
