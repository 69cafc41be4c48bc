"""What an ``nn.Module`` registers: values a module class keeps in plain Python lists or dicts.

``nn.Module`` registers a submodule or a parameter only when it is assigned directly as an
attribute or held in one of its container types (``nn.ModuleList``, ``nn.ParameterDict``...).
The helpers here find ``self.X = [...]`` / ``{...}`` (a literal, a comprehension, or an empty
list filled with ``.append``) in a module's methods whose elements are of a kind the caller
asks about (layers for ``modules-in-plain-container``, learned tensors for
``learned-tensor-not-registered``), and the attributes the class wraps or registers later.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import MODULE_CONTAINERS

KindOf = Callable[[FileContext, ast.AST], "str | None"]


def container_elements(node: ast.AST) -> list[ast.AST] | None:
    """The element expressions of a list/tuple/dict literal or comprehension, or None."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        return [v for v in node.values if v is not None]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return [node.elt]
    if isinstance(node, ast.DictComp):
        return [node.value]
    if isinstance(node, ast.Call) and dotted(node.func) in {"list", "tuple", "dict"} and node.args:
        return container_elements(node.args[0])
    return None


def wrapped_names(ctx: FileContext, cls: ast.ClassDef) -> tuple[set[str], bool]:
    """Attributes of ``cls`` wrapped in an nn container somewhere (``nn.ModuleList(self.layers)``, or
    ``self.x = nn.ParameterList(...)``; a local name wrapped appears as ``@name``), and whether the
    class registers values by hand (``add_module``, ``register_module``, ``setattr``)."""
    wrapped: set[str] = set()
    registered = False
    nodes = ctx.subtree(cls)
    for node in nodes:
        if not isinstance(node, ast.Call):
            continue
        qn = ctx.qualname(node) or ""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else None
        if method in {"add_module", "register_module"} or qn == "setattr":
            registered = True
        if qn.rsplit(".", 1)[-1] in MODULE_CONTAINERS or method in {"extend"}:
            for arg in node.args:
                target = arg.value if isinstance(arg, ast.Starred) else arg
                name = dotted(target)
                if name and name.startswith("self."):
                    wrapped.add(name[5:])
                elif isinstance(target, ast.Name):
                    wrapped.add("@" + target.id)
    for node in nodes:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            if (ctx.qualname(node.value) or "").rsplit(".", 1)[-1] in MODULE_CONTAINERS:
                for t in node.targets:
                    name = dotted(t)
                    if name and name.startswith("self."):
                        wrapped.add(name[5:])
    return wrapped, registered


def plain_containers(ctx: FileContext, cls: ast.ClassDef, kind_of: KindOf) -> Iterator[tuple[str, ast.Assign, set[str]]]:
    """``(attribute, assignment, kinds)`` for each ``self.X = <plain list/dict>`` in ``cls``'s methods whose
    elements (literal, comprehension, appended or item-assigned in the same method, or a local list
    filled that way) have a kind by ``kind_of``; wrapping is not checked here (see :func:`wrapped_names`)."""
    for func in cls.body:
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        local_lists: dict[str, set[str]] = {}
        nodes = ctx.subtree(func)
        for node in nodes:
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            name = dotted(target)
            elements = container_elements(node.value)
            if elements is None:
                # self.layers = local_list (filled with append above)
                if name and name.startswith("self.") and isinstance(node.value, ast.Name) and node.value.id in local_lists:
                    if local_lists[node.value.id] and not _local_wrapped(ctx, nodes, node.value.id):
                        yield name[5:], node, local_lists[node.value.id]
                continue
            kinds = {k for k in (kind_of(ctx, e) for e in elements) if k}
            if name and name.startswith("self.") and name.count(".") == 1:
                kinds |= _appended(ctx, nodes, name, kind_of)
                if kinds:
                    yield name[5:], node, kinds
            elif isinstance(target, ast.Name):
                local_lists[target.id] = kinds | _appended(ctx, nodes, target.id, kind_of)


def _appended(ctx: FileContext, nodes: list[ast.AST], name: str, kind_of: KindOf) -> set[str]:
    """Kinds of the values added to ``name`` by ``.append``/``.insert`` or item assignment among ``nodes`` (a method's)."""
    kinds: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in {"append", "insert"}:
            if dotted(node.func.value) == name and node.args:
                kind = kind_of(ctx, node.args[-1])
                if kind:
                    kinds.add(kind)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
            if dotted(node.targets[0].value) == name:
                kind = kind_of(ctx, node.value)
                if kind:
                    kinds.add(kind)
    return kinds


def _local_wrapped(ctx: FileContext, nodes: list[ast.AST], name: str) -> bool:
    for node in nodes:
        if isinstance(node, ast.Call) and (ctx.qualname(node) or "").rsplit(".", 1)[-1] in MODULE_CONTAINERS:
            if any(isinstance(a, ast.Name) and a.id == name or isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == name for a in node.args):
                return True
    return False


PARAMETER_CLASSES = {"torch.nn.Parameter", "torch.nn.parameter.Parameter"}
_VARIABLE = {"torch.autograd.Variable", "torch.autograd.variable.Variable"}

# methods of a tensor that hand back a new tensor even when called on an ``nn.Parameter`` (never ``self``):
# ``.to(device)``, ``.float()``, ``.cpu()`` and ``.contiguous()`` return the parameter itself when nothing changes,
# so they are left out except ``.to`` with a device (GPU runs are the ones it is written for) and ``.cuda()``
NEW_TENSOR_METHODS = {
    "cuda", "double", "half", "bfloat16", "detach", "clone", "view", "reshape", "unsqueeze", "squeeze",
    "expand", "expand_as", "t", "transpose", "permute", "flatten", "repeat", "mul", "add", "sub", "div",
    "exp", "log", "sigmoid", "tanh", "softmax", "abs", "clamp", "sqrt", "pow", "neg",
}
_SAME_DTYPE = {"torch.float", "torch.float32"}


def is_parameter_call(ctx: FileContext, node: ast.AST | None) -> bool:
    """``nn.Parameter(...)`` (or ``torch.nn.parameter.Parameter(...)``)."""
    return isinstance(node, ast.Call) and (ctx.qualname(node) or "") in PARAMETER_CLASSES


def requires_grad_tensor(ctx: FileContext, node: ast.AST | None) -> bool:
    """A torch tensor built with gradient tracking on: ``torch.zeros(..., requires_grad=True)``,
    ``Variable(t, requires_grad=True)``, or anything ending in ``.requires_grad_()`` / ``.requires_grad_(True)``
    that is not itself an ``nn.Parameter``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
        flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
        return (flag is None or isinstance(flag, ast.Constant) and flag.value is True) and not is_parameter_call(ctx, func.value)
    flag = next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
    if not (isinstance(flag, ast.Constant) and flag.value is True):
        return False
    qn = ctx.qualname(node) or ""
    return qn in _VARIABLE or qn.startswith("torch.") and qn not in PARAMETER_CLASSES and qn.count(".") == 1


def learned_tensor_kind(ctx: FileContext, node: ast.AST) -> str | None:
    """'parameter' for ``nn.Parameter(...)``, 'requires_grad' for a tensor built with gradient tracking on, else None."""
    if is_parameter_call(ctx, node):
        return "parameter"
    if requires_grad_tensor(ctx, node):
        return "requires_grad"
    return None


def converted_parameter(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """The operation that turns a freshly built ``nn.Parameter`` into a plain tensor in ``expr``:
    ``nn.Parameter(t).cuda()``, ``nn.Parameter(t).to(device)``, ``nn.Parameter(t) * 0.02``,
    ``nn.Parameter(t)[None]``. The result is an ordinary non-leaf tensor, no longer a Parameter."""
    if isinstance(expr, ast.BinOp):
        if is_parameter_call(ctx, expr.left) or is_parameter_call(ctx, expr.right):
            return expr
        return None
    if isinstance(expr, ast.Subscript) and is_parameter_call(ctx, expr.value):
        return expr
    if isinstance(expr, ast.Attribute) and expr.attr in {"T", "mT", "data"} and is_parameter_call(ctx, expr.value):
        return expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        receiver, method = expr.func.value, expr.func.attr
        if is_parameter_call(ctx, receiver):
            if method in NEW_TENSOR_METHODS:
                return expr
            if method == "to" and (expr.args or expr.keywords):
                first = expr.args[0] if expr.args else None
                dtype_only = first is not None and (ctx.qualname(first) or "") in _SAME_DTYPE and len(expr.args) == 1
                return None if dtype_only or any(k.arg == "dtype" for k in expr.keywords) and not expr.args else expr
            return None
        return converted_parameter(ctx, receiver) if method in {"requires_grad_", "to", "float", "contiguous"} else None
    return None
