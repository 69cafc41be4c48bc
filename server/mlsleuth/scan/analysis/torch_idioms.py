"""The torch idioms several rules ask about, public so that any rule can use them.

* :func:`is_module_class`: a class of the file that derives from an ``nn.Module``
  (directly or through other classes of the file);
* :func:`is_dataset_class`: a ``torch.utils.data`` dataset class;
* :func:`module_kind`: what an ``nn`` module construction holds (parameters,
  train/eval-dependent behaviour, or nothing), and :data:`MODULE_CONTAINERS`;
* grad-off contexts: :data:`NO_GRAD`, :data:`SET_GRAD`, :func:`disables_grad`
  (``torch.no_grad()``, ``torch.inference_mode()``, ``set_grad_enabled(False)``)
  and :func:`grad_off` (a node runs inside one);
* :func:`reference_formula`: a node inside a test oracle (a textbook formula spelled out on purpose);
* models: :func:`model_names` (names the file calls model methods on),
  :func:`trained_models` (names whose parameters go into an optimizer) and
  :data:`NOT_TRAINED` (names of models that are usually not trained).
"""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import optimizer_params
from mlsleuth.scan.analysis.context import FileContext, constant, dotted
from mlsleuth.scan.analysis.value_origins import words

# The context managers and decorators that turn gradient tracking off.
NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})

# nn classes that hold no parameters and no buffers.
_PARAMETER_FREE = {
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Tanh", "Sigmoid", "Hardswish",
    "Hardsigmoid", "Hardtanh", "Softplus", "Softsign", "Softmax", "LogSoftmax", "Softmin", "Identity", "Flatten",
    "Unflatten", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "Upsample", "PixelShuffle", "PixelUnshuffle", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad2d",
    "ReplicationPad2d", "Tanhshrink", "Threshold", "GLU", "LogSigmoid",
}

# Parameter-free, but their behaviour depends on train/eval mode.
_MODE_DEPENDENT = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"}

MODULE_CONTAINERS = {"ModuleList", "ModuleDict", "Sequential", "ParameterList", "ParameterDict"}


def module_kind(ctx: FileContext, node: ast.AST) -> str | None:
    """'params' / 'mode' / 'free' when ``node`` constructs an nn module, else None."""
    if isinstance(node, ast.Starred):
        node = node.value
    if not isinstance(node, ast.Call):
        return None
    qn = ctx.qualname(node) or ""
    last = qn.rsplit(".", 1)[-1]
    # a class of torch.nn (torch.nn.Linear, torch.nn.modules.conv.Conv2d); not a helper function of
    # torch.nn.modules.utils (`_pair(stride)` gives a tuple of ints)
    if (qn.startswith("torch.nn.") and qn.count(".") == 2 or qn.startswith("torch.nn.modules.")) and last[:1].isupper():
        if last in MODULE_CONTAINERS:
            return "params"
        if last in _PARAMETER_FREE:
            return "free"
        if last in _MODE_DEPENDENT:
            return "mode"
        if last in {"Module", "Parameter", "Buffer"} or last.endswith("Loss"):
            return None  # loss modules: no parameters and no train/eval behaviour to lose
        return "params"
    local = next((c for c in ctx.classes if c.name == qn), None)
    if local is not None and is_module_class(ctx, local):
        return "params"
    return None


NOT_TRAINED = re.compile(r"teacher|ema|target|frozen|ref(erence)?_|_ref$|old|pretrained|base_model|critic_target|average", re.IGNORECASE)

MODEL_METHODS = {"train", "eval", "parameters", "named_parameters", "state_dict", "load_state_dict", "modules", "children", "zero_grad", "requires_grad_"}


def model_names(ctx: FileContext) -> set[str]:
    """Dotted names the file treats as models: something calls `.eval()`, `.parameters()`, ... on them."""
    cache = ctx.__dict__.get("model_names")
    if cache is not None:
        return cache
    names: set[str] = set()
    for call in ctx.calls():
        if isinstance(call.func, ast.Attribute) and call.func.attr in MODEL_METHODS:
            name = dotted(call.func.value)
            if name and name != "self":
                names.add(name)
    ctx.__dict__["model_names"] = names
    return names


SET_GRAD = {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"}


def disables_grad(ctx: FileContext, expr: ast.AST) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()`` or ``torch.set_grad_enabled(False)``."""
    qn = ctx.qualname(expr) or ""
    if qn in NO_GRAD:
        return True
    return qn in SET_GRAD and isinstance(expr, ast.Call) and bool(expr.args) and constant(expr.args[0]) is False


def grad_off(ctx: FileContext, node: ast.AST) -> bool:
    """``node`` runs inside a ``with`` block or a function decorated to disable gradient tracking."""
    for with_node in ctx.enclosing_withs(node):
        if any(disables_grad(ctx, item.context_expr) for item in with_node.items):
            return True
    func = ctx.enclosing_function(node)
    return func is not None and any(disables_grad(ctx, deco) for deco in func.decorator_list)


def reference_formula(ctx: FileContext, node: ast.AST) -> bool:
    """True inside a test oracle: ``f(reference_fn=lambda i: ...)`` or ``def xxx_reference(...)``.

    Test suites (PyTorch's own among them) spell out the textbook formula of a loss on purpose
    (``log(softmax(x))``, ``-(t * i.log() + (1 - t) * (1 - i).log())``), as the reference an
    optimised kernel is checked against; training code neither passes its loss as a keyword
    lambda nor names it a reference.
    """
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Lambda) and isinstance(ctx.parent(anc), ast.keyword):
            return True
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef)) and {"reference", "ref"} & set(words(anc.name)):
            return True
    return False


def trained_models(ctx: FileContext, model) -> set[str]:
    """Names whose parameters go into an optimizer (``Adam(model.parameters())`` gives ``model``)."""
    names: set[str] = set()
    for opt in model.optimizers():
        if opt.construction is not None:
            names |= optimizer_params.trained_modules(opt.construction).modules
    return names


def is_module_class(ctx: FileContext, cls: ast.ClassDef, depth: int = 0) -> bool:
    if depth > 5:
        return False
    for base in cls.bases:
        qn = ctx.qualname(base) or ""
        if qn.startswith("torch.nn") or qn.endswith("Module") or qn.endswith(("LightningModule", "PreTrainedModel")):
            return True
        local = next((c for c in ctx.classes if c.name == qn), None)
        if local is not None and local is not cls and is_module_class(ctx, local, depth + 1):
            return True
    return False


def is_dataset_class(ctx: FileContext, cls: ast.ClassDef) -> bool:
    """A class deriving from a ``torch.utils.data`` dataset. Samplers and batch samplers are not datasets:
    they run in the main process, so what holds for code that runs in DataLoader workers does not hold for them."""
    for base in cls.bases:
        qual = ctx.qualname(base) or ""
        if qual.rpartition(".")[2].endswith("Sampler"):
            continue
        if qual.startswith("torch.utils.data") or qual.endswith("Dataset") and qual.split(".")[0] in ("torch", "Dataset", "IterableDataset"):
            return True
    return False
