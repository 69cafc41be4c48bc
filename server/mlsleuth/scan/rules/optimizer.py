"""Rules about how the optimizer is configured: what it trains and how it decays weights."""

from __future__ import annotations

import ast

from mlsleuth.scan.context import FileContext, constant, dotted, keyword
from mlsleuth.scan.loop_model import loop_model
from mlsleuth.scan.registry import MODULE_CLASS, Rule, register_rule
from mlsleuth.scan.rules.architecture import _module_kind
from mlsleuth.scan.rules.evaluation import _grad_off, _is_module_class


@register_rule
class AdamCoupledWeightDecay(Rule):
    """`Adam(weight_decay=...)` where decoupled weight decay (`AdamW`) is probably meant.

    What it finds: `torch.optim.Adam` (or `Adamax`, `NAdam`, `RAdam` without `decoupled_weight_decay`)
    built with a `weight_decay` that is not provably zero: a non-zero literal, or a variable or
    config value (`weight_decay=args.weight_decay`), which makes the coupled decay a setting away.
    Why it matters: in these optimizers `weight_decay` is an L2 term added to the gradient, which then
    goes through Adam's per-parameter scaling: weights with large gradient history are barely
    decayed and rarely-updated ones are decayed hard. Recipes that quote a weight decay of 0.01-0.1
    (transformers, ViTs) mean AdamW's decoupled decay; with `Adam` the same number gives a different,
    usually weaker and uneven, regularisation.
    How to confirm: train two short runs, `Adam(weight_decay=wd)` and `AdamW(weight_decay=wd)`, and
    compare the weight norms after a few hundred steps: they diverge.
    What to do instead: use `torch.optim.AdamW(params, weight_decay=wd)` (or pass
    `decoupled_weight_decay=True` where supported); keep `Adam` + `weight_decay` only if L2
    regularisation is really what you want.
    """

    id = "adam-coupled-weight-decay"
    category = "hyperparameter"
    severity = "info"
    triggers = ("weight_decay",)

    def check(self, ctx):
        for call in ctx.calls():
            if keyword(call, "weight_decay") is None:
                continue
            qn = ctx.qualname(call) or ""
            if qn not in {"torch.optim.Adam", "torch.optim.adam.Adam", "torch.optim.NAdam", "torch.optim.RAdam", "torch.optim.Adamax"}:
                continue
            decay = keyword(call, "weight_decay")
            if decay is None:
                continue
            value = constant(ctx.resolve(decay))
            if value is None or isinstance(value, (bool, int, float)) and value == 0:
                continue  # provably zero (or None, which the optimizer rejects anyway)
            decoupled = keyword(call, "decoupled_weight_decay")
            if decoupled is not None and constant(decoupled) is not False:
                continue
            name = qn.rsplit(".", 1)[-1]
            if isinstance(value, (int, float)):
                what = f"{name} with weight_decay={ctx.segment(decay, 40)} applies L2 through the adaptive scaling (coupled decay)"
            else:  # a variable or config value: the decay is coupled whenever it is set non-zero
                what = (
                    f"{name} takes weight_decay={ctx.segment(decay, 40)} from a setting: whenever it is non-zero, Adam applies it"
                    " as L2 through the adaptive scaling (coupled decay)"
                )
            yield self.finding(
                ctx,
                call,
                f"{what}; if the value comes from a recipe it probably meant AdamW's decoupled decay",
                next_test="run a few hundred steps with Adam and with AdamW at the same weight_decay and compare the weight norms",
            )


def _param_roots(ctx: FileContext, call: ast.Call) -> tuple[set[str], bool]:
    """Dotted modules whose ``.parameters()`` feed the optimizer, and whether anything else is passed."""
    roots: set[str] = set()
    opaque = False
    first = call.args[0] if call.args else keyword(call, "params")
    if first is None:
        return roots, True
    for node in ast.walk(first):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"parameters", "named_parameters"}:
            name = dotted(node.func.value)
            if name is None:
                opaque = True
            else:
                roots.add(name)
    if not roots:
        opaque = True
    return roots, opaque


def _class_of(ctx: FileContext, expr_name: str, at: ast.AST) -> ast.ClassDef | None:
    """The in-file nn.Module class that ``expr_name`` (a local/module name) was built from."""
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
        if cls is not None and _is_module_class(ctx, cls):
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
            if name and name.startswith("self.") and name.count(".") == 1 and _module_kind(ctx, node.value) == "params":
                found[name[5:]] = node
    return found


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
    if _grad_off(ctx, call) or _is_detach(ctx, call):
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
    if _grad_off(ctx, use) or (isinstance(expr, ast.Call) and expr is not use and _cut_off(ctx, expr)):
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


@register_rule
class OptimizerMissesParameters(Rule):
    """The optimizer is given only part of a model whose other parts are trained too.

    What it finds: an optimizer built over `model.encoder.parameters()` (one submodule) when `model`
    is a class defined in the same file with other parameterised submodules, none of which is frozen
    (`requires_grad = False`/`requires_grad_(False)`), covered by another optimizer or added with
    `add_param_group`. A submodule that is only ever run under `torch.no_grad()` /
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
    triggers = ("optim", "AdamW", "Adafactor")
    requires = (("parameters",), ("class",), (MODULE_CLASS,))  # the model is an in-file nn.Module class

    def check(self, ctx):
        model = loop_model(ctx)
        optimizers = model.optimizers()
        if not optimizers or self._freezes_anything(ctx):
            return
        covered: dict[str, set[str]] = {}
        sites: list[tuple[ast.Call, str, str]] = []
        for opt in optimizers:
            call = opt.construction
            if call is None:
                continue
            roots, opaque = _param_roots(ctx, call)
            if opaque:
                return  # a parameter list built elsewhere: cannot tell what it covers
            for root in roots:
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


def _filters_trainable(call: ast.Call) -> bool:
    """``filter(lambda p: p.requires_grad, ...)`` or ``[p for p in ... if p.requires_grad]`` in the params."""
    for node in ast.walk(call):
        if isinstance(node, ast.Attribute) and node.attr == "requires_grad" and isinstance(node.ctx, ast.Load):
            return True
    return False


@register_rule
class UnfrozenAfterOptimizerBuilt(Rule):
    """Parameters are unfrozen after the optimizer was built from the trainable ones only.

    What it finds: an optimizer built from `filter(lambda p: p.requires_grad, model.parameters())` (or
    a comprehension keeping `p.requires_grad`), followed later in the same function by
    `requires_grad = True` / `requires_grad_(True)` on parameters, without a new optimizer or
    `add_param_group`.
    Why it matters: the optimizer's parameter list was fixed when it was built. Parameters unfrozen
    afterwards (gradual unfreezing, "train the backbone after epoch 5") now receive gradients but are
    never updated: the second phase of fine-tuning silently trains only the head.
    How to confirm: after the unfreeze, compare `sum(p.numel() for g in optimizer.param_groups for p
    in g['params'])` with `sum(p.numel() for p in model.parameters() if p.requires_grad)`: the
    optimizer holds fewer.
    What to do instead: build the optimizer over all parameters from the start (frozen ones simply get
    no gradient), rebuild it after unfreezing, or add the unfrozen parameters with
    `optimizer.add_param_group({'params': ...})`.
    """

    id = "unfrozen-after-optimizer-built"
    category = "training-loop"
    severity = "warning"
    triggers = ("requires_grad",)
    requires = (("optim", "AdamW", "Adafactor"),)  # an optimizer construction (see optimizer-misses-parameters)

    def check(self, ctx):
        model = loop_model(ctx)
        if any(isinstance(c.func, ast.Attribute) and c.func.attr == "add_param_group" for c in ctx.calls()):
            return
        for opt in model.optimizers():
            call = opt.construction
            if call is None or not _filters_trainable(call):
                continue
            scope = ctx.enclosing_function(call) or ctx.tree
            later_opts = [o for o in model.optimizers() if o.construction is not None and o.construction.lineno > call.lineno
                          and (ctx.enclosing_function(o.construction) or ctx.tree) is scope]
            for node in ctx.walk_scope(scope):
                if getattr(node, "lineno", 0) <= call.lineno:
                    continue
                if self._unfreezes(node):
                    if any(o.construction.lineno > node.lineno for o in later_opts if o.construction is not None):
                        break  # the optimizer is rebuilt after unfreezing
                    yield self.finding(
                        ctx,
                        node,
                        f"parameters are unfrozen at line {node.lineno}, after the optimizer at line {call.lineno} was built"
                        " from the parameters that required grad at that time: the unfrozen ones are never updated",
                        next_test="after the unfreeze, compare the parameter count in optimizer.param_groups with the count"
                        " of parameters that require grad: the optimizer holds fewer",
                    )
                    break

    @staticmethod
    def _unfreezes(node: ast.AST) -> bool:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is True:
            return any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in node.targets)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
            return flag is None or (isinstance(flag, ast.Constant) and flag.value is True)
        return False
