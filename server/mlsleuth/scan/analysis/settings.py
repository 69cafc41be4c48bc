"""What a setting is by default: the literal a configuration expression ends at.

Training code rarely writes its numbers in the call that uses them: ``batch_size=cfg.samples_per_gpu``
(a dataclass field in ``config.py``), ``weight_decay=hp.weight_decay`` (Lightning's ``self.hparams``, filled
from ``__init__``'s defaults), ``lr=args.lr`` (an argparse default), ``CFG["accum_steps"]`` (a module-level
dict), a function parameter's default. ``default_value`` follows such an expression to the literal it starts
as, or answers ``UNKNOWN`` when the chain leaves what a static reader can see (a command line without a
default, a value computed at run time). The answer is the *default*: a run can still override it.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, keyword

UNKNOWN = ...
_MAX_DEPTH = 6


def default_value(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> object:
    """The literal value ``expr`` has by default, or ``UNKNOWN``."""
    found = default_expr(ctx, expr, depth)
    return UNKNOWN if found is None else constant(found[1])


def default_expr(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.expr] | None:
    """(file, literal expression) that ``expr`` starts as, or None; a library constant such as
    ``torch.bfloat16`` counts as a literal (its file's ``qualname`` names it)."""
    if expr is None or depth > _MAX_DEPTH:
        return None
    if constant(expr) is not UNKNOWN:
        return ctx, expr  # type: ignore[return-value]
    if isinstance(expr, ast.Attribute) and (ctx.qualname(expr) or "").startswith(("torch.", "numpy.")):
        return ctx, expr  # a library constant (``torch.bfloat16``): read it with ``ctx.qualname``
    if isinstance(expr, ast.Name):
        return _name(ctx, expr, depth)
    if isinstance(expr, ast.Attribute):
        return _attribute(ctx, expr, depth)
    if isinstance(expr, ast.Subscript):
        entry = vo.dict_entry(ctx, expr)
        if entry is not None:
            return default_expr(entry[0], entry[1], depth + 1)
    return None


def _name(ctx: FileContext, name: ast.Name, depth: int) -> tuple[FileContext, ast.expr] | None:
    bound = vo.value(ctx, name)
    if bound is not None and bound is not name:
        return default_expr(ctx, bound, depth + 1)
    func = ctx.enclosing_function(name)
    if func is not None and vo.is_parameter(ctx, name):
        default = parameter_default(func, name.id)
        return default_expr(ctx, default, depth + 1) if default is not None else None
    if func is None and ctx.project is not None and name.id in ctx.imports:
        found = ctx.project.module_variable(ctx, name.id)
        if found is not None:
            return default_expr(found[0], found[1], depth + 1)
    return None


def parameter_default(func: ast.AST, param: str) -> ast.expr | None:
    """The default expression of parameter ``param`` of ``func``."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    a = func.args
    positional = [*a.posonlyargs, *a.args]
    for arg, default in zip(positional[len(positional) - len(a.defaults):], a.defaults):
        if arg.arg == param:
            return default
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        if arg.arg == param:
            return default
    return None


def _annotation(func: ast.AST, param: str) -> ast.expr | None:
    a = func.args  # type: ignore[attr-defined]
    for arg in (*a.posonlyargs, *a.args, *a.kwonlyargs):
        if arg.arg == param:
            return arg.annotation
    return None


def _attribute(ctx: FileContext, expr: ast.Attribute, depth: int) -> tuple[FileContext, ast.expr] | None:
    base = expr.value
    # Lightning: self.hparams.x, or hp.x after hp = self.hparams -> the default of __init__'s parameter x
    if _is_hparams(ctx, base):
        cls = ctx.enclosing_class(expr)
        init = vo.class_method(ctx, cls, "__init__") if cls is not None else None
        if init is not None:
            default = parameter_default(init[1], expr.attr)
            return default_expr(init[0], default, depth + 1) if default is not None else None
        return None
    if isinstance(base, ast.Name) and base.id == "self":
        bound = ctx.resolve(expr)
        return default_expr(ctx, bound, depth + 1) if bound is not expr else None
    holder = vo.value(ctx, base)
    if isinstance(holder, ast.Name) and isinstance(base, ast.Name) and vo.is_parameter(ctx, holder):
        return _through_callers(ctx, holder, expr.attr, depth)
    if isinstance(holder, ast.Call):
        return _field_of_instance(ctx, holder, expr.attr, depth)
    return None


def _is_hparams(ctx: FileContext, base: ast.AST) -> bool:
    if isinstance(base, ast.Attribute) and base.attr in ("hparams", "hparams_initial") \
            and isinstance(base.value, ast.Name) and base.value.id == "self":
        return True
    if isinstance(base, ast.Name):
        bound = vo.value(ctx, base)
        return bound is not base and bound is not None and _is_hparams(ctx, bound)
    return False


def _through_callers(ctx: FileContext, param: ast.Name, attr: str, depth: int) -> tuple[FileContext, ast.expr] | None:
    """``cfg.x`` where ``cfg`` is a parameter: the one answer every caller's argument gives (with no caller in
    sight, the field of the parameter's default object, or the field default of the class it is annotated with)."""
    func = ctx.enclosing_function(param)
    if func is None or depth > 3:
        return None
    answer = None
    sites = vo.all_call_sites(ctx, func)[:8]
    default = parameter_default(func, param.id)
    if not sites and isinstance(default, ast.Call):  # def fit(ds, cfg=Config()): the default object's field
        return _field_of_instance(ctx, default, attr, depth + 1)
    annotation = _annotation(func, param.id)
    if not sites and isinstance(annotation, (ast.Name, ast.Attribute)):  # def __init__(self, cfg: TrainerConfig)
        return _field_of_instance(ctx, ast.Call(func=annotation, args=[], keywords=[]), attr, depth + 1)
    for sctx, site in sites:
        arg = vo.argument_for(site, func, param.id)
        if arg is None and isinstance(default, ast.Call) and not site.keywords and len(site.args) <= vo.function_params(func).index(param.id):
            arg, sctx = default, ctx  # main() with cfg=Config() left to its default
        if arg is None:
            return None
        found = default_expr(sctx, ast.Attribute(value=arg, attr=attr, ctx=ast.Load()), depth + 1) \
            if isinstance(arg, (ast.Name, ast.Call)) else None
        if found is None or answer is not None and constant(answer[1]) != constant(found[1]):
            return None
        answer = found
    return answer


def _field_of_instance(ctx: FileContext, built: ast.Call, attr: str, depth: int) -> tuple[FileContext, ast.expr] | None:
    """``Config().x``: the keyword the call passes, else the class's field default or ``__init__`` default;
    ``parser.parse_args().x``: the ``add_argument`` default; ``tyro.cli(Args).x``: the field default of ``Args``."""
    if isinstance(built.func, ast.Attribute) and built.func.attr in ("parse_args", "parse_known_args"):
        return _argparse_default(ctx, attr, depth)
    if (ctx.qualname(built.func) or "") == "tyro.cli" and built.args and isinstance(built.args[0], (ast.Name, ast.Attribute)):
        built = ast.Call(func=built.args[0], args=[], keywords=[])  # args = tyro.cli(Args): the dataclass's defaults
    passed = keyword(built, attr)
    if passed is not None:
        return default_expr(ctx, passed, depth + 1)
    cls: tuple[FileContext, ast.ClassDef] | None = None
    if isinstance(built.func, ast.Name):
        local = vo.file_class(ctx, built.func.id)
        cls = (ctx, local) if local is not None else None
    if cls is None:
        cls = vo.project_class(ctx, built.func)
    if cls is None:
        return None
    cctx, node = cls
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.target.id == attr:
            return default_expr(cctx, stmt.value, depth + 1) if stmt.value is not None else None
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == attr for t in stmt.targets):
            return default_expr(cctx, stmt.value, depth + 1)
    init = cctx.method(node, "__init__")
    if init is not None and not built.args:
        values = cctx.self_attributes(node).get(attr, [])
        if len(values) == 1:
            value = values[0]
            if isinstance(value, ast.Name) and value.id in vo.function_params(init):
                default = parameter_default(init, value.id)
                return default_expr(cctx, default, depth + 1) if default is not None else None
            return default_expr(cctx, value, depth + 1)
    return None


def _argparse_default(ctx: FileContext, attr: str, depth: int) -> tuple[FileContext, ast.expr] | None:
    for call in ctx.calls_named("add_argument"):
        dest = keyword(call, "dest")
        names = [constant(a) for a in call.args]
        options = {n.lstrip("-").replace("-", "_") for n in names if isinstance(n, str)}
        if constant(dest) == attr or constant(dest) is UNKNOWN and attr in options:
            default = keyword(call, "default")
            return default_expr(ctx, default, depth + 1) if default is not None else None
    return None
