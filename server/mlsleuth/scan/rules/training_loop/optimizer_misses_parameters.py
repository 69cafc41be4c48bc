"""The ``optimizer-misses-parameters`` rule: the optimizer is given only part of a model whose other parts are trained too."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.optimizer_params import trained_modules
from mlsleuth.scan.analysis.torch_idioms import grad_off, is_module_class, module_kind
from mlsleuth.scan.analysis.training_step_model import loop_model
from mlsleuth.scan.prefilter import MODULE_CLASS
from mlsleuth.scan.registry import Rule, register_rule


def _class_of(ctx: FileContext, expr_name: str, at: ast.AST) -> ast.ClassDef | None:
    """The in-file nn.Module class that ``expr_name`` (a local/module name) was built from.

    ``self`` in a method of a module class is that class (Lightning's ``configure_optimizers``).
    """
    if expr_name == "self":
        cls = ctx.enclosing_class(at)
        return cls if cls is not None and is_module_class(ctx, cls) else None
    if "." in expr_name:
        return None
    model = loop_model(ctx)
    scope = ctx.enclosing_function(at) or ctx.tree
    entries = ctx.assignments(scope).get(expr_name, [])
    value = entries[-1][2] if entries else model.module_value(expr_name)
    if isinstance(value, ast.Call):
        value_call = value
        if isinstance(value.func, ast.Attribute) and value.func.attr in {"to", "cuda", "cpu"}:
            inner = value.func.value
            if isinstance(inner, ast.Call):
                value_call = inner
        name = dotted(value_call.func)
        cls = next((c for c in ctx.classes if c.name == name), None)
        if cls is not None and is_module_class(ctx, cls):
            return cls
    return None


def _submodules(ctx: FileContext, cls: ast.ClassDef) -> dict[str, ast.AST]:
    """``self.X = <module with parameters>`` in ``__init__``."""
    init = ctx.method(cls, "__init__")
    found: dict[str, ast.AST] = {}
    if init is None:
        return found
    for node in ast.walk(init):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            name = dotted(node.targets[0])
            if name and name.startswith("self.") and name.count(".") == 1 and (
                module_kind(ctx, node.value) == "params" or _part_of_a_built_model(ctx, init, node.value)
            ):
                found[name[5:]] = node
    return found


def _part_of_a_built_model(ctx: FileContext, init: ast.AST, value: ast.AST) -> bool:
    """``bert.pooler`` where ``bert = BertModel.from_pretrained(...)`` (or a module with parameters) in ``__init__``:
    a piece of a pretrained model kept as a submodule."""
    if not (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name)):
        return False
    for _line, _stmt, bound in ctx.assignments(init).get(value.value.id, []):
        if isinstance(bound, ast.Call) and (
            (isinstance(bound.func, ast.Attribute) and bound.func.attr == "from_pretrained")
            or module_kind(ctx, bound) == "params"
        ):
            return True
    return False


# Module methods that do not run the module: using them passes no gradient through it.
_NO_FORWARD_METHODS = {
    "eval", "train", "parameters", "named_parameters", "buffers", "named_buffers", "state_dict", "load_state_dict",
    "modules", "named_modules", "children", "named_children", "apply", "to", "cuda", "cpu", "half", "float",
    "double", "requires_grad_", "zero_grad", "register_forward_hook", "register_forward_pre_hook",
}


def _uses(ctx: FileContext, cls: ast.ClassDef, head: str, sub: str) -> list[ast.Attribute]:
    """Reads of ``self.<sub>`` in the methods of ``cls`` (outside ``__init__``) and of ``<head>.<sub>`` anywhere."""
    init = ctx.method(cls, "__init__")
    found = []
    for node in ctx.all_nodes:
        if not (isinstance(node, ast.Attribute) and node.attr == sub and isinstance(node.ctx, ast.Load)):
            continue
        owner = dotted(node.value)
        if owner == "self" and ctx.enclosing_class(node) is cls:
            if init is None or not any(anc is init for anc in ctx.ancestors(node)):
                found.append(node)
        elif owner == head:
            found.append(node)
    return found


def _use_expression(ctx: FileContext, node: ast.AST) -> ast.AST:
    """The first call a submodule reference makes: ``self.m(x)``, ``self.m.features(x)``, ``self.m[0](x)``."""
    while True:
        parent = ctx.parent(node)
        if isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node:
            node = parent
        elif isinstance(parent, ast.Call) and parent.func is node:
            return parent
        else:
            return node


def _is_detach(ctx: FileContext, node: ast.AST) -> bool:
    """``node.detach()`` / ``node.detach_()``."""
    parent = ctx.parent(node)
    return (
        isinstance(parent, ast.Attribute) and parent.attr in {"detach", "detach_"}
        and isinstance(ctx.parent(parent), ast.Call) and ctx.parent(parent).func is parent
    )


def _only_used_detached(ctx: FileContext, assign: ast.Assign, name: str) -> bool:
    """Every later read of ``name`` (bound by ``assign``) is ``name.detach()``, until ``name`` is rebound."""
    scope = ctx.enclosing_function(assign) or ctx.tree
    start = (assign.end_lineno, assign.end_col_offset)
    events = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Name) and node.id == name:
            if isinstance(node.ctx, ast.Load):
                events.append(((node.lineno, node.col_offset), node))
            else:  # a rebinding takes effect after its value is computed
                stmt = ctx.parent(node)
                events.append(((getattr(stmt, "end_lineno", node.lineno), getattr(stmt, "end_col_offset", 0)), node))
    for _pos, node in sorted((e for e in events if e[0] > start), key=lambda e: e[0]):
        if isinstance(node.ctx, ast.Load):
            if not _is_detach(ctx, node):
                return False
        else:
            return True
    return True


def _cut_off(ctx: FileContext, call: ast.Call) -> bool:
    """``call`` runs without gradient tracking, or its output is detached before anything else uses it."""
    if grad_off(ctx, call) or _is_detach(ctx, call):
        return True
    stmt = ctx.parent(call)
    if isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return _only_used_detached(ctx, stmt, stmt.targets[0].id)
    return False


def _gradient_free(ctx: FileContext, use: ast.Attribute) -> bool:
    """True when this use of a submodule cannot put gradients into its parameters.

    It only calls a method that does not run the module (``.eval()``, ``.parameters()``), runs under
    ``no_grad``/``inference_mode``/``set_grad_enabled(False)``, has its output detached (directly, or
    every later read of the name it is stored in is ``.detach()``ed), or sits in a helper method of the
    class that is only ever called that way (``with torch.no_grad(): f = self.extract(x)``).
    """
    parent = ctx.parent(use)
    if isinstance(parent, ast.Attribute) and parent.attr in _NO_FORWARD_METHODS:
        return True
    expr = _use_expression(ctx, use)
    if grad_off(ctx, use) or (isinstance(expr, ast.Call) and expr is not use and _cut_off(ctx, expr)):
        return True
    method, cls = ctx.enclosing_function(use), ctx.enclosing_class(use)
    if method is None or cls is None or method.name in {"forward", "__call__"} or ctx.enclosing_class(method) is not cls:
        return False
    sites = [
        c for c in ctx.calls(cls)
        if isinstance(c.func, ast.Attribute) and c.func.attr == method.name and dotted(c.func.value) == "self"
    ]
    return bool(sites) and all(_cut_off(ctx, c) for c in sites)


def _feature_extractor(ctx: FileContext, cls: ast.ClassDef, head: str, sub: str) -> bool:
    """The submodule is used, and every use keeps gradients out of it (a linear probe's frozen backbone)."""
    uses = _uses(ctx, cls, head, sub)
    return bool(uses) and all(_gradient_free(ctx, u) for u in uses)


_FREEZES_OR_ADDS = re.compile(r"\.requires_grad\s*=|requires_grad_\(|\.freeze\(|add_param_group\(")


def _group_roots(value: ast.AST | None) -> set[str] | None:
    """The ``self.X`` submodules a returned list of parameter groups covers ("*" for ``self.parameters()``);
    None when the value is not such a list or holds anything else (name filters, computed lists)."""
    if not isinstance(value, (ast.List, ast.Tuple)) or not value.elts:
        return None
    covered: set[str] = set()
    saw_group = False
    for elt in value.elts:
        params = elt
        if isinstance(elt, ast.Dict):
            keys = [k.value for k in elt.keys if isinstance(k, ast.Constant)]
            if "params" not in keys:
                return None
            params = elt.values[keys.index("params")] if len(keys) == len(elt.keys) else None
            saw_group = True
        if isinstance(params, ast.Call) and dotted(params.func) in {"list", "tuple"} and len(params.args) == 1:
            params = params.args[0]
        if not (isinstance(params, ast.Call) and isinstance(params.func, ast.Attribute) and params.func.attr == "parameters"):
            return None
        owner = dotted(params.func.value)
        if owner == "self":
            covered.add("*")
        elif owner and owner.startswith("self.") and owner.count(".") == 1:
            covered.add(owner[5:])
        else:
            return None
    return covered if saw_group else None


def _runs_in_forward(ctx: FileContext, cls: ast.ClassDef, names: list[str]) -> bool:
    """One of ``self.<name>`` is called in the class's ``forward``."""
    forward = ctx.method(cls, "forward")
    if forward is None:
        return False
    for node in ast.walk(forward):
        if isinstance(node, ast.Call):
            target = dotted(node.func)
            if target and target.startswith("self.") and target.split(".")[1] in names:
                return True
    return False


@register_rule
class OptimizerMissesParameters(Rule):
    """The optimizer is given only part of a model whose other parts are trained too.

    What it finds: an optimizer built over `model.encoder.parameters()` (one submodule) when `model`
    is a class defined in the same file with other parameterised submodules (also
    `self.encoder.parameters()` in a method of the model, such as Lightning's `configure_optimizers`), none of which is frozen
    (`requires_grad = False`/`requires_grad_(False)`), covered by another optimizer or added with
    `add_param_group`. Also a method of the model that returns the parameter groups
    (`return [{"params": self.encoder.parameters(), "lr": ...}, ...]`) and leaves out a submodule
    that `forward` runs (pieces of a pretrained model kept as submodules, `self.pooler =
    bert.pooler`, count), unless some module of the project freezes parameters or adds a group
    later. A submodule that is only ever run under `torch.no_grad()` /
    `inference_mode()`, or whose output is always `.detach()`ed (the backbone of a linear probe or
    feature extractor), receives no gradients, so leaving it out is deliberate and not reported.
    Why it matters: the other submodules still receive gradients in `backward()`, but no optimizer
    ever applies them: they keep their random initialisation while the code looks like it trains the
    whole model. The loss still goes down (the covered part adapts around the frozen random part), so
    the bug hides behind mediocre results.
    How to confirm: snapshot `model.state_dict()` before training and compare after a few steps: the
    uncovered submodule's weights are bit-for-bit unchanged.
    What to do instead: pass `model.parameters()`, or list every part in parameter groups
    (`[{'params': model.encoder.parameters(), 'lr': 1e-5}, {'params': model.head.parameters()}]`); if the
    other parts are meant to stay fixed, freeze them explicitly with `requires_grad_(False)`.
    """

    id = "optimizer-misses-parameters"
    category = "training-loop"
    severity = "warning"
    triggers = ("optim", "AdamW", "Adafactor", '"params"', "'params'")
    requires = (("parameters",), ("class",), (MODULE_CLASS,))  # the model is an in-file nn.Module class

    def check(self, ctx):
        if self._freezes_anything(ctx):
            return
        yield from self._group_builders(ctx)
        model = loop_model(ctx)
        optimizers = model.optimizers()
        if not optimizers:
            return
        covered: dict[str, set[str]] = {}
        sites: list[tuple[ast.Call, str, str]] = []
        for opt in optimizers:
            call = opt.construction
            if call is None:
                continue
            trained = trained_modules(call)
            if trained.opaque:
                return  # a parameter list built elsewhere: cannot tell what it covers
            for root in sorted(trained.modules):
                head, _, rest = root.partition(".")
                covered.setdefault(head, set()).add(rest.split(".")[0] if rest else "*")
                if rest:
                    sites.append((call, head, rest.split(".")[0]))
        if any(n.func.attr == "add_param_group" for n in ctx.calls() if isinstance(n.func, ast.Attribute)):
            return
        reported: set[tuple[int, str]] = set()
        for call, head, _sub in sites:
            if "*" in covered.get(head, set()):
                continue
            cls = _class_of(ctx, head, call)
            if cls is None:
                continue
            subs = _submodules(ctx, cls)
            missing = sorted(name for name in subs if name not in covered[head] and not _feature_extractor(ctx, cls, head, name))
            if not missing or (call.lineno, head) in reported:
                continue
            reported.add((call.lineno, head))
            given = ", ".join(f"{head}.{s}" for s in sorted(covered[head]))
            yield self.finding(
                ctx,
                call,
                f"this optimizer trains only {given}, but `{head}` ({cls.name}, line {cls.lineno}) also has "
                f"{', '.join(f'{head}.{m}' for m in missing)} with parameters that are not frozen and that no optimizer updates",
                next_test=f"copy `{head}.{missing[0]}.state_dict()` before training and compare after a few steps: it is unchanged",
            )

    def _group_builders(self, ctx: FileContext):
        """A model method that returns the optimizer's parameter groups (``[{"params": self.encoder.parameters(),
        "lr": ...}, ...]``) and leaves out a parameterised submodule that ``forward`` trains."""
        if ctx.project is not None and ctx.project.any_file_matches(_FREEZES_OR_ADDS):
            return  # something is frozen or added later, maybe in the training script: leave it
        for cls in ctx.classes:
            if not is_module_class(ctx, cls):
                continue
            subs = None
            for method in cls.body:
                if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or method.name in {"__init__", "forward"}:
                    continue
                for ret in (n for n in ast.walk(method) if isinstance(n, ast.Return)):
                    covered = _group_roots(ret.value)
                    if covered is None or "*" in covered:
                        continue
                    if subs is None:
                        subs = _submodules(ctx, cls)
                    missing = sorted(
                        name for name in subs if name not in covered and not _feature_extractor(ctx, cls, "self", name)
                    )
                    if not missing or not _runs_in_forward(ctx, cls, missing):
                        continue
                    given = ", ".join(f"self.{c}" for c in sorted(covered))
                    yield self.finding(
                        ctx,
                        ret,
                        f"`{method.name}` returns parameter groups for {given} only, but {cls.name} also has "
                        f"{', '.join(f'self.{m}' for m in missing)}, run in forward and not frozen: no optimizer "
                        "built from these groups updates it",
                        next_test=f"copy `model.{missing[0]}.state_dict()` before training and compare after a few steps: "
                        "it is unchanged",
                    )

    @staticmethod
    def _freezes_anything(ctx: FileContext) -> bool:
        for node in ctx.all_nodes:
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "requires_grad":
                        return True
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"requires_grad_", "freeze"}:
                return True
        return False
