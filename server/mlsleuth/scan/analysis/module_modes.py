"""Whether a model behaves differently in training and evaluation mode.

``model.eval()`` only changes layers that read ``self.training``: dropout, batch-norm (its
batch statistics and running averages), instance-norm with running statistics, and the
layers built on them (``nn.Transformer*``, ``nn.MultiheadAttention``, recurrent layers with
``dropout``). A model made only of convolutions, linear layers, activations and layer-norm
computes the same thing in both modes, so evaluating it without ``eval()`` is not a bug.

:func:`construction_mode_dependent` answers for a constructor call (``Net(...)``,
``nn.Sequential(...)``), following classes into their files through the project index.
The answer is ``True`` (depends on the mode), ``False`` (certainly does not) or ``None``
(cannot tell: a layer from another library, a helper that builds layers, a loop over
configs). Rules may only use ``False`` to stay silent.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, keyword

MAX_DEPTH = 8  # a model class, its blocks, their Sequential layers: each level costs two
_MODE_WORDS = ("Dropout", "BatchNorm", "InstanceNorm", "Transformer", "MultiheadAttention", "LazyBatchNorm")
_RECURRENT = {"RNN", "LSTM", "GRU"}
_FUNCTIONAL_MODE = {"dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "batch_norm", "instance_norm"}
_CONTAINERS = {"Sequential", "ModuleList"}


def _combine(answers: list[bool | None]) -> bool | None:
    if any(a is True for a in answers):
        return True
    if any(a is None for a in answers):
        return None
    return False


def construction_mode_dependent(ctx: FileContext, call: ast.AST, depth: int = 0) -> bool | None:
    """Whether the module built by ``call`` changes behaviour with ``train()``/``eval()``."""
    if not isinstance(call, ast.Call) or depth > MAX_DEPTH:
        return None
    qual = value_origins.normalize(ctx.qualname(call)) or ""
    if qual.startswith("torch.nn."):
        last = qual.rsplit(".", 1)[1]
        if "." in qual[len("torch.nn.") :]:
            return None  # torch.nn.utils..., torch.nn.parallel...: not a plain layer
        if any(word in last for word in _MODE_WORDS):
            return True
        if last in _RECURRENT:
            dropout = keyword(call, "dropout")
            return dropout is not None and not (isinstance(dropout, ast.Constant) and dropout.value in (0, 0.0))
        if last in _CONTAINERS:
            if any(isinstance(a, ast.Starred) for a in call.args) or call.keywords:
                return None
            items: list[ast.AST] = []
            for arg in call.args:
                items.extend(arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else [arg])
            return _combine([construction_mode_dependent(ctx, a, depth + 1) for a in items])
        if last in {"ModuleDict", "ParameterList", "ParameterDict", "Module"}:
            return None if last != "Module" else False
        return False
    cls = None
    cctx = ctx
    if isinstance(call.func, ast.Name):
        cls = value_origins.file_class(ctx, call.func.id)
    if cls is None:
        other = value_origins.project_class(ctx, call.func)
        if other is not None:
            cctx, cls = other
    if cls is None:
        return None
    return class_mode_dependent(cctx, cls, depth + 1)


def class_mode_dependent(ctx: FileContext, cls: ast.ClassDef, depth: int = 0) -> bool | None:
    """Whether instances of ``cls`` (an ``nn.Module`` subclass) change behaviour with the mode."""
    if depth > MAX_DEPTH:
        return None
    answers: list[bool | None] = []
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and node.attr == "training":
            return True  # the class reads the mode itself
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in _FUNCTIONAL_MODE:
                return True
    for base in cls.bases:
        qual = ctx.qualname(base) or ""
        if qual in {"torch.nn.Module", "nn.Module"} or qual.endswith(".nn.Module"):
            continue
        local = value_origins.file_class(ctx, base.id) if isinstance(base, ast.Name) else None
        other = (ctx, local) if local is not None else value_origins.project_class(ctx, base)
        if other is None:
            return None  # a base from another library (a pretrained model, a Lightning module...)
        answers.append(class_mode_dependent(other[0], other[1], depth + 1))
    for values in ctx.self_attributes(cls).values():
        for value in values:
            if not isinstance(value, ast.Call):
                if not _plainly_not_a_module(ctx, value):
                    return None  # self.blocks = blocks, self.backbone = backbone: could hold anything
                continue
            qual = value_origins.normalize(ctx.qualname(value)) or ""
            if qual.startswith("torch.") and not qual.startswith("torch.nn."):
                continue  # a tensor or parameter (torch.zeros, torch.randn...)
            if qual.startswith("torch.nn.Parameter") or qual.startswith("torch.nn.parameter"):
                continue
            answers.append(construction_mode_dependent(ctx, value, depth + 1))
    return _combine(answers)


_SCALAR_ANNOTATIONS = {"int", "float", "str", "bool"}


def _plainly_not_a_module(ctx: FileContext, value: ast.AST) -> bool:
    """A constant, arithmetic, or a parameter that is a number/string/flag (by default or annotation)."""
    if isinstance(value, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.JoinedStr)):
        return True
    if not isinstance(value, ast.Name):
        return False
    func = ctx.enclosing_function(value)
    if func is None:
        return False
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    for arg in (*positional, *args.kwonlyargs):
        if arg.arg != value.id:
            continue
        if ctx.assignments(func).get(value.id):
            return False  # rebound in the body: look no further
        annotation = ast.unparse(arg.annotation) if arg.annotation is not None else ""
        default = defaults.get(arg.arg)
        if annotation in _SCALAR_ANNOTATIONS or isinstance(default, ast.Constant) and default.value is not None:
            return True
        return _used_as_a_size(ctx, func, value.id)
    return False


def _used_as_a_size(ctx: FileContext, func: ast.AST, name: str) -> bool:
    """The parameter ``name`` is a number by how ``func`` uses it: an operand of arithmetic (``hidden * 2``) or
    an argument of a torch.nn layer's constructor (``nn.LSTM(input_size, hidden_size, num_layers)``), not of a
    container (``nn.Sequential(*blocks)`` takes modules)."""
    for node in ast.walk(func):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Add, ast.Sub, ast.FloorDiv, ast.Div)):
            if any(isinstance(side, ast.Name) and side.id == name for side in (node.left, node.right)):
                return True
        if isinstance(node, ast.Call):
            qual = value_origins.normalize(ctx.qualname(node)) or ""
            if not qual.startswith("torch.nn.") or qual.rsplit(".", 1)[-1] in (*_CONTAINERS, "ModuleDict") or "." in qual[len("torch.nn."):]:
                continue
            if any(isinstance(a, ast.Name) and a.id == name for a in node.args):
                return True
    return False
