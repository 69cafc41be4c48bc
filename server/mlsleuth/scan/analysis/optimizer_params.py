"""Which modules an optimizer trains: the modules whose parameters its construction is given.

``torch.optim.Adam(model.parameters())`` trains ``model``;
``Adam([{"params": net.encoder.parameters()}, {"params": net.head.parameters(), "lr": 1e-3}])``
trains ``net.encoder`` and ``net.head``; ``Adam(chain(g.parameters(), d.parameters()))`` trains
``g`` and ``d``. Only the parameter argument (the first positional one, or ``params=``) is read.
When some of the parameters cannot be named (``.parameters()`` of a computed object, a list built
elsewhere and passed by name, no ``.parameters()`` at all) the answer says so (``opaque``), and a
rule that needs the whole picture stays silent.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, dotted, keyword

PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})


@dataclass(frozen=True)
class TrainedModules:
    """``modules``: the dotted names whose parameters reach the optimizer (``"model"``, ``"self.encoder"``);
    ``opaque``: some parameters come from something that cannot be named, or no module was found."""

    modules: frozenset[str]
    opaque: bool

    @property
    def known(self) -> frozenset[str] | None:
        """The modules when they are the whole story; None when anything is opaque."""
        return None if self.opaque else self.modules


def params_argument(construction: ast.Call) -> ast.expr | None:
    """The expression an optimizer construction passes as its parameters (first positional, or ``params=``)."""
    return construction.args[0] if construction.args else keyword(construction, "params")


def trained_modules(construction: ast.Call | None) -> TrainedModules:
    """The modules whose ``.parameters()`` / ``.named_parameters()`` the optimizer built by ``construction`` is given."""
    first = params_argument(construction) if construction is not None else None
    if first is None:
        return TrainedModules(frozenset(), True)
    return _modules_in(first)


def _modules_in(first: ast.expr) -> TrainedModules:
    names: set[str] = set()
    opaque = False
    for node in ast.walk(first):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in PARAMETER_METHODS:
            name = dotted(node.func.value)
            if name is None:
                opaque = True  # parameters of something computed (``self.get_model().parameters()``)
            else:
                names.add(name)
    return TrainedModules(frozenset(names), opaque or not names)


def modules_in_scope(ctx: FileContext, construction: ast.Call, at: ast.AST) -> frozenset[str] | None:
    """The modules an optimizer built at ``construction`` trains, when their names mean the same at ``at``: ``self.X``
    in one class, a local name in one function (or a module-level name); None when unknown or out of scope."""
    known = trained_modules(construction).known or _returned_modules(ctx, construction)
    if not known:
        return None
    here_func = ctx.enclosing_function(at)
    for name in known:
        if name == "self" or name.startswith("self."):
            if ctx.enclosing_class(construction) is None or ctx.enclosing_class(construction) is not ctx.enclosing_class(at):
                return None
        elif ctx.enclosing_function(construction) is not None and ctx.enclosing_function(construction) is not here_func:
            return None
    return frozenset(known)


def _returned_modules(ctx: FileContext, construction: ast.Call) -> frozenset[str] | None:
    """``Adam(model.encoder_params())`` where the project class's method returns ``self.encoder.parameters()`` (or a
    chain of such): ``{"model.encoder"}``; None when any return names something else."""
    first = params_argument(construction)
    if not (isinstance(first, ast.Call) and isinstance(first.func, ast.Attribute) and not first.args and not first.keywords):
        return None
    receiver = dotted(first.func.value)
    if receiver is None:
        return None
    if receiver == "self":
        cls = ctx.enclosing_class(construction)
        found = value_origins.class_method(ctx, cls, first.func.attr) if cls is not None else None
    else:
        owner = value_origins.instance_class(ctx, first.func.value, bind_params=False)
        found = value_origins.class_method(owner[0], owner[1], first.func.attr) if owner is not None else None
    if found is None:
        return None
    out: set[str] = set()
    returns = list(value_origins.returns(found[1]))
    for ret in returns:
        named = _modules_in(ret).known
        if not named or not all(n == "self" or n.startswith("self.") for n in named):
            return None
        out.update(receiver + n[len("self"):] for n in named)
    return frozenset(out) if returns else None


def modules_passed_in(ctx: FileContext, func: ast.AST, param: str) -> frozenset[str] | None:
    """The modules the optimizer that ``func`` receives as ``param`` trains, named as ``func`` names them: the one
    caller builds ``opt_g = Adam(netG.parameters())`` and calls ``train(netG, netD, opt_g, ...)``, so ``netG`` is the
    parameter ``G`` here (``G.encoder`` for ``netG.encoder``). None unless there is exactly one call site, the
    optimizer's construction is read there by name, and every module it trains is passed in."""
    sites = value_origins.all_call_sites(ctx, func)
    if len(sites) != 1:
        return None
    sctx, site = sites[0]
    arg = value_origins.argument_for(site, func, param)
    if not isinstance(arg, ast.Name):
        return None
    scope = sctx.enclosing_function(site) or sctx.tree
    bound = [v for line, _stmt, v in sctx.assignments(scope).get(arg.id, []) if line <= site.lineno]
    if not bound or not isinstance(bound[-1], ast.Call):
        return None
    construction = bound[-1]
    known = modules_in_scope(sctx, construction, site)
    if not known:
        return None
    passed = {}
    for p in value_origins.function_params(func):
        value = value_origins.argument_for(site, func, p)
        name = dotted(value) if value is not None else None
        if name is not None:
            passed[name] = p
    out = set()
    for module in known:
        for name, p in passed.items():
            if module == name or module.startswith(name + "."):
                out.add(p + module[len(name):])
                break
        else:
            return None
    return frozenset(out)
