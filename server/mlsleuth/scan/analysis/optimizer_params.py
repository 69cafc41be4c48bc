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
    known = trained_modules(construction).known
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
