"""Rules about how the optimizer is configured: what it trains and how it decays weights."""

from __future__ import annotations

import ast

from mlsleuth.scan.context import FileContext, constant, dotted, keyword
from mlsleuth.scan.loop_model import loop_model
from mlsleuth.scan.registry import Rule, register_rule
from mlsleuth.scan.rules.architecture import _module_kind
from mlsleuth.scan.rules.evaluation import _is_module_class


@register_rule
class AdamCoupledWeightDecay(Rule):
    """`Adam(weight_decay=...)` where decoupled weight decay (`AdamW`) is probably meant.

    What it finds: `torch.optim.Adam` (or `Adamax`, `NAdam`, `RAdam` without `decoupled_weight_decay`)
    built with a non-zero `weight_decay`.
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
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value == 0:
                continue  # zero, or not a literal we can see: stay silent
            decoupled = keyword(call, "decoupled_weight_decay")
            if decoupled is not None and constant(decoupled) is not False:
                continue
            name = qn.rsplit(".", 1)[-1]
            yield self.finding(
                ctx,
                call,
                f"{name} with weight_decay={ctx.segment(decay, 40)} applies L2 through the adaptive scaling (coupled decay);"
                " if you copied this value from a recipe it probably meant AdamW's decoupled decay",
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


@register_rule
class OptimizerMissesParameters(Rule):
    """The optimizer is given only part of a model whose other parts are trained too.

    What it finds: an optimizer built over `model.encoder.parameters()` (one submodule) when `model`
    is a class defined in the same file with other parameterised submodules, none of which is frozen
    (`requires_grad = False`/`requires_grad_(False)`), covered by another optimizer or added with
    `add_param_group`.
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
    requires = (("parameters",), ("class",))

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
            missing = sorted(name for name in subs if name not in covered[head])
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
