"""Pure operations: the torch calls and built-in layers whose only effect is the value they return.

Shared by :mod:`~mlsleuth.scan.analysis.dead_values` (a lost result of such a call) and
:mod:`~mlsleuth.scan.analysis.pure_functions` (a project function built only from such calls).
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, keyword

# torch / torch.nn.functional functions that return a new value and change nothing.
PURE_FUNCTIONS = frozenset({
    "abs", "exp", "expm1", "log", "log1p", "log2", "log10", "sigmoid", "tanh", "relu", "gelu", "silu", "elu", "selu",
    "leaky_relu", "softplus", "softmax", "log_softmax", "logsigmoid", "clamp", "clip", "cat", "concat", "concatenate",
    "stack", "hstack", "vstack", "matmul", "mm", "bmm", "einsum", "mean", "sum", "prod", "std", "var", "norm", "sqrt",
    "rsqrt", "pow", "square", "where", "transpose", "permute", "reshape", "flatten", "squeeze", "unsqueeze", "gather",
    "index_select", "masked_fill", "masked_select", "cumsum", "cumprod", "roll", "flip", "repeat_interleave", "tile",
    "erf", "sin", "cos", "atan2", "maximum", "minimum", "lerp", "outer", "tril", "triu", "logsumexp", "sign",
    "floor", "ceil", "round", "dropout", "normalize", "pad", "interpolate", "linear", "conv1d", "conv2d", "conv3d",
    "layer_norm", "group_norm", "embedding", "one_hot", "grid_sample", "unfold", "avg_pool1d", "avg_pool2d",
    "max_pool1d", "max_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d", "cross_entropy",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "kl_div", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "cosine_similarity", "pairwise_distance", "cdist", "scaled_dot_product_attention",
    "mul", "add", "sub", "div", "true_divide", "neg", "reciprocal", "baddbmm", "addmm", "diag", "diagonal",
    "narrow", "chunk", "split", "amax", "amin", "argmax", "argmin", "topk", "sort", "max", "min",
})
# Methods that return a new tensor and change nothing on any receiver that has them (``to``, ``float``,
# ``cuda``, ``add`` ... are left out: on a module they work in place, on a set ``add`` does).
PURE_METHODS = frozenset({
    "clamp", "clip", "softmax", "log_softmax", "sigmoid", "tanh", "relu", "exp", "log", "log1p", "sqrt", "rsqrt",
    "pow", "abs", "neg", "reciprocal", "matmul", "bmm", "mm", "transpose", "permute", "reshape", "view", "view_as",
    "flatten", "squeeze", "unsqueeze", "expand", "expand_as", "contiguous", "detach", "masked_fill", "gather",
    "index_select", "repeat", "repeat_interleave", "roll", "flip", "cumsum", "mean", "sum", "std", "var", "norm",
    "softplus", "type_as", "mul", "sub", "div", "t", "tril", "triu", "logsumexp", "square", "clone", "narrow",
})
# nn layers that keep no running state: calling one changes nothing but its output.
STATELESS_LAYERS = frozenset({
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU",
    "Mish", "ELU", "SELU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Softplus", "Hardswish", "Identity", "Flatten",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool2d", "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "Embedding", "LayerNorm", "GroupNorm", "RMSNorm", "Upsample", "PixelShuffle", "GLU",
})
# Position of ``inplace`` among the positional parameters of the functional forms that have one.
INPLACE_POSITION = {
    "relu": 1, "relu6": 1, "selu": 1, "silu": 1, "mish": 1, "hardswish": 1, "hardsigmoid": 1, "elu": 2, "celu": 2,
    "leaky_relu": 2, "rrelu": 4, "hardtanh": 3, "threshold": 3, "dropout": 3, "dropout1d": 3, "dropout2d": 3,
    "dropout3d": 3, "alpha_dropout": 3, "feature_alpha_dropout": 3,
}
# Layers built with ``inplace`` as their n-th positional argument.
LAYER_INPLACE_POSITION = {
    "ReLU": 0, "ReLU6": 0, "SELU": 0, "SiLU": 0, "Mish": 0, "Hardswish": 0, "Hardsigmoid": 0, "ELU": 1, "CELU": 1,
    "LeakyReLU": 1, "Hardtanh": 2, "Threshold": 2, "RReLU": 2, "Dropout": 1, "Dropout1d": 1, "Dropout2d": 1,
    "Dropout3d": 1, "AlphaDropout": 1, "FeatureAlphaDropout": 1,
}
FACTORIES = frozenset({
    "randn_like", "rand_like", "randint_like", "zeros_like", "ones_like", "full_like", "empty_like", "randn", "rand",
    "zeros", "ones", "full", "tensor", "as_tensor", "arange", "linspace", "eye", "normal", "bernoulli",
})

def qual_tail(ctx: FileContext, call: ast.Call) -> str | None:
    """``softmax`` for ``torch.softmax`` / ``F.softmax`` / ``torch.nn.functional.softmax``; None otherwise."""
    qual = ctx.qualname(call.func) or ""
    for prefix in ("torch.nn.functional.", "torch.special.", "torch.linalg.", "torch."):
        if qual.startswith(prefix) and "." not in qual[len(prefix):]:
            return qual[len(prefix):]
    return None


def stateless_constructor(ctx: FileContext, value: ast.AST) -> bool:
    """``nn.Dropout(0.1)``, ``nn.Linear(d, n)``, ``nn.CrossEntropyLoss()``: a layer or loss that keeps no running state."""
    if not isinstance(value, ast.Call) or constant(keyword(value, "inplace")) is True:
        return False
    qual = ctx.qualname(value.func) or ""
    if not qual.startswith(("torch.nn.", "torch.nn.modules.")):
        return False
    last = qual.rsplit(".", 1)[-1]
    return last in STATELESS_LAYERS or last.endswith("Loss")


def stateless_layer(ctx: FileContext, call: ast.Call) -> bool:
    """``self.drop(h)`` / ``criterion(out, y)`` where every binding of the callee builds a stateless nn layer or a
    torch loss module (``self.drop = nn.Dropout(p)``, ``criterion = nn.MSELoss()`` in the function or at module
    level)."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(call)
        values = ctx.self_attributes(cls).get(func.attr) if cls is not None else None
        return bool(values) and all(stateless_constructor(ctx, v) for v in values)
    if isinstance(func, ast.Name):
        bound = value_origins.value(ctx, func)
        return bound is not func and bound is not None and stateless_constructor(ctx, bound)
    return False
