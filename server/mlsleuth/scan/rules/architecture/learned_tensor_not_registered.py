"""The ``learned-tensor-not-registered`` rule: a module's learned tensor kept where ``nn.Module`` never registers it."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext
from mlsleuth.scan.analysis.module_registration import (
    converted_parameter,
    is_parameter_call,
    learned_tensor_kind,
    plain_containers,
    requires_grad_tensor,
    wrapped_names,
)
from mlsleuth.scan.analysis.torch_idioms import grad_off, is_module_class, module_kind
from mlsleuth.scan.prefilter import MODULE_CLASS
from mlsleuth.scan.registry import Rule, register_rule

# a class that decides itself what its parameters and saved state are
_OWN_REGISTRY = {"parameters", "named_parameters", "state_dict", "_apply", "__setattr__", "__getattr__"}
_REGISTERING = {"register_parameter", "register_buffer", "add_module", "register_module"}


def _self_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _assignments(ctx: FileContext, cls: ast.ClassDef) -> list[tuple[str, ast.AST, ast.expr, ast.AST | None]]:
    """``(attribute, statement, value, method)`` for each ``self.X = value`` in ``cls``'s own methods."""
    found = []
    for node in ctx.subtree(cls):
        if isinstance(node, ast.Assign):
            pairs = [(t, node.value) for t in node.targets]
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        else:
            continue
        for target, value in pairs:
            attr = _self_attr(target)
            if attr is not None:
                found.append((attr, node, value, ctx.enclosing_function(node)))
    return found


def _setup_methods(ctx: FileContext, cls: ast.ClassDef) -> set[ast.AST]:
    """``__init__`` and the methods of ``cls`` it calls on ``self`` (``self._build()``, ``self.reset_parameters()``)."""
    init = ctx.method(cls, "__init__")
    if init is None:
        return set()
    setup: set[ast.AST] = {init}
    for call in ctx.calls(init):
        if isinstance(call.func, ast.Attribute) and _self_attr(call.func) is not None:
            method = ctx.method(cls, call.func.attr)
            if method is not None:
                setup.add(method)
    return setup


def _handed_over(ctx: FileContext, attr: str) -> bool:
    """``.attr`` given by hand to an optimizer or a parameter list in this file or the files of its package
    (``Adam([self.w])``, ``{"params": [self.log_alpha]}``, ``list(model.parameters()) + [model.w]``,
    ``params.append(model.w)``): the author collects it on purpose. A list that is only concatenated
    (``torch.cat([self.cls, x])``) does not count."""
    a = re.escape(attr)
    listed = r"\[[^\]\n]*\." + a + r"\b"
    pattern = re.compile(
        r"(optim\.\w+\(|(Adam|SGD|RMSprop|LBFGS|Adagrad|Adadelta|Optimizer)\w*\(|params\w*[\"']?\s*[:=]|\+)\s*" + listed
        + r"|(append|extend)\(\s*[\w.]*\." + a + r"\s*\)"
    )
    if pattern.search(ctx.source):
        return True
    return ctx.project is not None and ctx.project.package_matches(ctx, pattern)


_FILLS = {"torch.zeros": 0, "torch.zeros_like": 0, "torch.ones": 1, "torch.ones_like": 1}
# ways of reading a tensor that keep its values: moved, cast, reshaped, indexed
_SAME_VALUES = {"to", "cuda", "cpu", "float", "double", "half", "type_as", "unsqueeze", "squeeze", "view", "reshape",
                "expand", "expand_as", "view_as", "reshape_as", "t", "transpose", "permute", "flatten", "contiguous"}


def _constant_fill(ctx: FileContext, value: ast.AST) -> int | None:
    """0 or 1 for ``torch.zeros(...)`` / ``torch.ones(...)`` (possibly moved, cast or reshaped) built without
    ``requires_grad`` (an explicit ``requires_grad=False`` says it is a constant on purpose), else None."""
    while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _SAME_VALUES:
        value = value.func.value
    if not isinstance(value, ast.Call) or any(k.arg == "requires_grad" for k in value.keywords):
        return None
    return _FILLS.get(ctx.qualname(value) or "")


def _written_in_place(ctx: FileContext, cls: ast.ClassDef, attr: str) -> bool:
    """Something writes into ``self.attr`` (``self.attr[i] = v``, ``self.attr += 1``, ``self.attr.copy_(...)``,
    ``self.attr.data = ...``) or rebinds it through another object (``model.attr = ...``)."""
    for node in ctx.subtree(cls):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(node, ast.Assign) and _self_attr(t) == attr:
                    continue  # a binding of the attribute itself: counted by the caller
                while isinstance(t, (ast.Subscript, ast.Attribute)) and _self_attr(t) != attr:
                    t = t.value
                if _self_attr(t) == attr:
                    return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_") \
                and not node.func.attr.startswith("_") and _self_attr(node.func.value) == attr:
            return True
    return bool(re.search(r"(?<!self)\." + re.escape(attr) + r"\s*(\[[^\]\n]*\])?\s*[-+*/]?=(?!=)", ctx.source))


def _identity_use(ctx: FileContext, cls: ast.ClassDef, attr: str, fill: int, setup_method) -> ast.BinOp | None:
    """A ``BinOp`` outside the setup method with ``self.attr`` (moved, reshaped or indexed) as an operand where its
    value makes the operation an identity or a zero: zeros in ``+ - * @``, ones in ``*`` or as a divisor."""
    for node in ctx.subtree(cls):
        if not isinstance(node, ast.BinOp) or ctx.enclosing_function(node) is setup_method:
            continue
        for side in ("left", "right"):
            operand = getattr(node, side)
            while isinstance(operand, ast.Subscript) or isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) \
                    and operand.func.attr in _SAME_VALUES:
                operand = operand.value if isinstance(operand, ast.Subscript) else operand.func.value
            if _self_attr(operand) != attr:
                continue
            if fill == 0 and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.MatMult)):
                return node
            if fill == 1 and (isinstance(node.op, ast.Mult) or isinstance(node.op, ast.Div) and side == "right"):
                return node
    return None


def _registers_other_state(ctx: FileContext, cls: ast.ClassDef) -> bool:
    """``cls`` has parameters of its own besides the unregistered tensor (a layer, a Parameter, a registered one), or
    a base class other than ``nn.Module``/``LightningModule`` that may hold some. A module with none at all hands an
    empty list to ``optimizer(model.parameters())``, which raises: a loud error, not a silent one."""
    for base in cls.bases:
        qn = ctx.qualname(base) or ""
        if qn.rsplit(".", 1)[-1] not in {"Module", "LightningModule"}:
            return True
    for _attr, _stmt, value, _m in _assignments(ctx, cls):
        if is_parameter_call(ctx, value) or module_kind(ctx, value) in {"params", "mode"}:
            return True
    return any(isinstance(c.func, ast.Attribute) and c.func.attr in _REGISTERING for c in ctx.calls(cls))


def _used_as_submodule(ctx: FileContext, cls: ast.ClassDef) -> bool:
    """``cls`` is built as a part of another module, in this file or its package (``self.act = Dice(d)``,
    ``nn.Sequential(..., Dice(d))``): its lost tensors hide among the parent's registered parameters."""
    pattern = re.compile(r"(self\.\w+\s*=\s*|Sequential\(|ModuleList\(|append\()[^\n]*\b" + re.escape(cls.name) + r"\(")
    if pattern.search(ctx.source):
        return True
    return ctx.project is not None and ctx.project.package_matches(ctx, pattern)


@register_rule
class LearnedTensorNotRegistered(Rule):
    """A module's learned tensor kept where `nn.Module` never registers it.

    What it finds: in an `nn.Module` class, a tensor meant to be learned that PyTorch does not register
    as a parameter: `self.w = torch.randn(d, requires_grad=True)` (or `.requires_grad_()`,
    `Variable(..., requires_grad=True)`) set in `__init__` (or a setup method it calls) and read by
    another method; `self.w = nn.Parameter(t).cuda()` / `.to(device)` / `.double()` / `* 0.02` / `[None]`
    (the result is a new, non-leaf tensor, no longer a Parameter); a plain Python `list`/`dict`
    attribute of `nn.Parameter`s or `requires_grad` tensors (not `nn.ParameterList`/`ParameterDict`);
    `nn.Parameter(...)` built inside `forward` outside a lazy-initialisation `if`; and a plain
    `torch.zeros`/`torch.ones` attribute, never written again, that another method uses where its value
    makes the operation do nothing (`self.alpha * x` with zeros, `x * self.gain` with ones): a constant
    there only makes sense as a value meant to be learned. Silent when the tensor is also wrapped in
    `nn.Parameter`, registered (`register_parameter`, `register_buffer`, `setattr`), handed to an
    optimizer or parameter list by hand, when the class defines its own `parameters()`/`state_dict()`,
    and when the module has no registered state at all and is not built as a part of another module
    (the optimizer then raises on its empty parameter list). Other constant tensors (tables, masks,
    initial states, anything built with `requires_grad=False`) are not reported.
    Why it matters: `model.parameters()` lists only registered parameters, so the optimizer never
    updates these tensors: the value meant to be learned stays at its initialisation while the loss
    still falls through the other weights. They are also missing from `state_dict()` (a reloaded
    model silently gets fresh random values) and `.to(device)` does not move them. A Parameter built
    in `forward` is a new random weight on every call that no optimizer has ever seen.
    How to confirm: look for the attribute in `dict(model.named_parameters())` and
    `model.state_dict().keys()`: it is absent; or compare its value before and after a few optimizer
    steps: unchanged.
    What to do instead: wrap it as `self.w = nn.Parameter(torch.randn(d))` (then `.to(device)` the
    whole model), keep several in `nn.ParameterList`/`nn.ParameterDict`, create parameters in
    `__init__` rather than `forward`, and use `register_buffer` for state that should be saved but not
    trained.
    """

    id = "learned-tensor-not-registered"
    category = "architecture"
    severity = "warning"
    reach = "project"  # the package's other files: who builds the module, who hands the tensor to an optimizer
    triggers = ("requires_grad", "Parameter", "Variable", "zeros", "ones")
    requires = (("torch",), ("class",), (MODULE_CLASS,))

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        for cls in ctx.classes:
            if not is_module_class(ctx, cls):
                continue
            if any(ctx.method(cls, name) is not None for name in _OWN_REGISTRY):
                continue
            found = list(self._check_class(ctx, cls))
            if found and (_registers_other_state(ctx, cls) or _used_as_submodule(ctx, cls)):
                yield from found

    def _check_class(self, ctx: FileContext, cls: ast.ClassDef):
        assignments = _assignments(ctx, cls)
        registered = self._registered(ctx, cls, assignments)
        wrapped, by_hand = wrapped_names(ctx, cls)
        if by_hand:
            return
        reported: set[str] = set()
        setup = _setup_methods(ctx, cls)
        reads = self._reads(ctx, cls)
        for attr, stmt, value, method in assignments:
            if attr in registered or attr in reported:
                continue
            converted = converted_parameter(ctx, value)
            if converted is not None and not _handed_over(ctx, attr):
                reported.add(attr)
                yield self.finding(
                    ctx,
                    stmt,
                    f"`self.{attr} = {ctx.segment(value, 60)}` in `{cls.name}` stores the result of an operation on "
                    f"the new `nn.Parameter`, a plain non-leaf tensor: it is not registered, so the optimizer never "
                    f"updates it and `state_dict()` does not save it",
                    severity="error",
                    observation=f"line {stmt.lineno}: {ctx.segment(converted, 80)}",
                    next_test=f"print(type(model.{attr}), '{attr}' in dict(model.named_parameters())): Tensor, False",
                )
                continue
            if method in setup and requires_grad_tensor(ctx, value) and self._used_elsewhere(reads, attr, method):
                if _handed_over(ctx, attr):
                    continue
                reported.add(attr)
                yield self.finding(
                    ctx,
                    stmt,
                    f"`self.{attr}` in `{cls.name}` is a tensor with requires_grad=True, not an `nn.Parameter`: "
                    f"`model.parameters()` skips it, so the optimizer never trains it, `state_dict()` does not save "
                    f"it and `.to(device)` does not move it",
                    observation=f"line {stmt.lineno}: {ctx.segment(value, 80)}",
                    next_test=f"print('{attr}' in dict(model.named_parameters())): False",
                )
        yield from self._flag_enabled_later(ctx, cls, assignments, registered, reported, setup, reads)
        yield from self._identity_constants(ctx, cls, assignments, registered, reported, setup)
        yield from self._containers(ctx, cls, wrapped, registered)
        yield from self._built_in_forward(ctx, cls)

    @staticmethod
    def _registered(ctx: FileContext, cls: ast.ClassDef, assignments) -> set[str]:
        """Attributes some statement of ``cls`` makes a Parameter or registers by name."""
        names = {attr for attr, _s, value, _m in assignments if is_parameter_call(ctx, value)}
        for call in ctx.calls(cls):
            if isinstance(call.func, ast.Attribute) and call.func.attr in _REGISTERING and call.args:
                first = call.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    names.add(first.value)
                elif isinstance(first, ast.JoinedStr):
                    names.add("*")
        if "*" in names:  # register_parameter(f"w{i}", ...): the names are made up at run time
            names |= {attr for attr, *_ in assignments}
        return names

    @staticmethod
    def _reads(ctx: FileContext, cls: ast.ClassDef) -> dict[str, set[ast.AST | None]]:
        """The methods reading ``self.X``, by attribute."""
        reads: dict[str, set[ast.AST | None]] = {}
        for node in ctx.subtree(cls):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                attr = _self_attr(node)
                if attr is not None:
                    reads.setdefault(attr, set()).add(ctx.enclosing_function(node))
        return reads

    @staticmethod
    def _used_elsewhere(reads, attr: str, method) -> bool:
        return any(m is not None and m is not method for m in reads.get(attr, ()))

    def _flag_enabled_later(self, ctx, cls, assignments, registered, reported, setup, reads):
        """``self.w = torch.zeros(d)`` then ``self.w.requires_grad = True`` / ``self.w.requires_grad_()`` in setup."""
        tensors = {attr: stmt for attr, stmt, value, method in assignments
                   if method in setup and isinstance(value, ast.Call) and (ctx.qualname(value) or "").startswith("torch.")
                   and not is_parameter_call(ctx, value)}
        for method in setup:
            for node in ctx.walk_scope(method):
                attr = None
                if isinstance(node, ast.Assign) and len(node.targets) == 1:
                    target = node.targets[0]
                    if isinstance(target, ast.Attribute) and target.attr == "requires_grad" and isinstance(node.value, ast.Constant) \
                            and node.value.value is True:
                        attr = _self_attr(target.value)
                elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                    call = node.value
                    if isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_" and (
                            not call.args or isinstance(call.args[0], ast.Constant) and call.args[0].value is True):
                        attr = _self_attr(call.func.value)
                if attr is None or attr not in tensors or attr in registered or attr in reported:
                    continue
                if not self._used_elsewhere(reads, attr, method) or _handed_over(ctx, attr):
                    continue
                reported.add(attr)
                yield self.finding(
                    ctx,
                    node,
                    f"`self.{attr}` in `{cls.name}` gets requires_grad but is a plain tensor, not an `nn.Parameter`: "
                    f"`model.parameters()` skips it, so the optimizer never trains it and `state_dict()` does not save it",
                    observation=f"line {tensors[attr].lineno}: {ctx.segment(tensors[attr], 80)}",
                    next_test=f"print('{attr}' in dict(model.named_parameters())): False",
                )

    def _identity_constants(self, ctx, cls, assignments, registered, reported, setup):
        """``self.alpha = torch.zeros(d)`` (no requires_grad, never written again) that another method multiplies or
        adds (``self.alpha * x``), or ``torch.ones`` it multiplies by: a term that does nothing as long as the value
        stays constant, which only makes sense for a value meant to be learned."""
        by_attr: dict[str, list] = {}
        for attr, stmt, value, method in assignments:
            by_attr.setdefault(attr, []).append((stmt, value, method))
        for attr, entries in by_attr.items():
            if attr in registered or attr in reported:
                continue
            fills = {_constant_fill(ctx, value) if method in setup else None for _s, value, method in entries}
            if len(fills) != 1 or None in fills or _written_in_place(ctx, cls, attr):
                continue
            fill = fills.pop()
            stmt, value, method = entries[0]
            use = _identity_use(ctx, cls, attr, fill, method)
            if use is None or _handed_over(ctx, attr):
                continue
            reported.add(attr)
            effect = "the product is always zero" if fill == 0 and isinstance(use.op, (ast.Mult, ast.MatMult)) else "the operation changes nothing"
            yield self.finding(
                ctx,
                stmt,
                f"`self.{attr}` in `{cls.name}` is a plain tensor of {'zeros' if fill == 0 else 'ones'} that "
                f"`{ctx.enclosing_function_name(use)}` uses in `{ctx.segment(use, 50)}`: {effect} while it stays constant, and "
                f"nothing registers it as a parameter, so no optimizer can ever change it",
                observation=f"line {stmt.lineno}: {ctx.segment(value, 60)}; used at line {use.lineno}",
                next_test=f"print('{attr}' in dict(model.named_parameters()), model.{attr}) after training: False, still {fill}s",
            )

    def _containers(self, ctx, cls, wrapped, registered):
        for attr, node, kinds in plain_containers(ctx, cls, learned_tensor_kind):
            if attr in wrapped or attr in registered or _handed_over(ctx, attr):
                continue
            what = "`nn.Parameter`s" if "parameter" in kinds else "tensors with requires_grad=True"
            yield self.finding(
                ctx,
                node,
                f"`self.{attr}` in `{cls.name}` holds {what} in a plain Python container: `nn.Module` does not look "
                f"inside it, so the optimizer never trains them and `state_dict()` does not save them",
                severity="error",
                next_test=f"check whether any key of `model.state_dict()` starts with '{attr}.': none does",
            )

    def _built_in_forward(self, ctx, cls):
        forward = ctx.method(cls, "forward")
        if forward is None:
            return
        for call in ctx.calls(forward):
            if not is_parameter_call(ctx, call) or ctx.enclosing_function(call) is not forward:
                continue
            if any(isinstance(a, (ast.If, ast.IfExp, ast.Try)) for a in ctx.ancestors_below(call, forward)):
                continue  # lazy initialisation on the first call
            if grad_off(ctx, call):
                continue
            yield self.finding(
                ctx,
                call,
                f"`{ctx.segment(call, 50)}` is built inside `{cls.name}.forward`: every call makes a new weight that "
                f"the optimizer, built from `model.parameters()` beforehand, has never seen, so it is never trained",
                severity="error",
                next_test="print(id(p)) for this Parameter on two calls, and check it against the optimizer's param_groups",
            )


