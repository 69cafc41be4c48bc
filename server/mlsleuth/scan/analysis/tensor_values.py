"""Tensor values: whether an expression holds a torch tensor, a NumPy array or a pandas frame.

:func:`array_kind` answers :data:`TORCH`, :data:`NUMPY` or :data:`PANDAS` when the scan can show where the
value comes from, and None otherwise (never a guess). It follows:

* constructors and functions known to return one value of the kind (``torch.zeros``, ``F.relu``,
  ``np.asarray``, ``pd.read_csv``), and the same-kind methods and operators applied to a known value
  (``x.float()``, ``t[0]``, ``a * 2``, ``t.numpy()`` gives an array, ``df.values`` an array);
* names bound to such values, parameters annotated ``Tensor`` / ``np.ndarray`` / ``pd.DataFrame``, and
  parameters every caller in the project fills with one;
* the elements of a batch drawn from a data loader (``for x, y in train_loader``, ``x, y = batch`` in a
  Lightning ``training_step``, ``batch["pixel_values"]``); a whole batch object is left unknown, because
  collators may return objects whose ``.to`` works in place (``BatchEncoding``, PyG ``Data``);
* ``self.attr`` bound only to known values in its class, or registered with ``register_buffer``;
* the output of a built-in ``torch.nn`` layer that returns one tensor (``self.fc(x)``).

Anything that is, or may be, an ``nn.Module`` is never called a tensor (``model.to(device)`` works in place).
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted

TORCH = "tensor"
NUMPY = "array"
PANDAS = "frame"

MAX_DEPTH = 8

# torch functions that return one tensor (a few that return tuples or other objects are left out).
_TORCH_FUNCTIONS = frozenset({
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "randperm",
    "arange", "linspace", "logspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
    "randn_like", "randint_like", "cat", "concat", "concatenate", "stack", "hstack", "vstack", "where", "matmul", "mm",
    "bmm", "einsum", "clamp", "clip", "sigmoid", "tanh", "relu", "exp", "log", "log1p", "abs", "sqrt", "rsqrt",
    "softmax", "log_softmax", "unsqueeze", "squeeze", "reshape", "flatten", "permute", "transpose", "masked_fill",
    "nan_to_num", "round", "floor", "ceil", "sign", "add", "sub", "mul", "div", "pow", "mean", "sum", "cumsum",
    "tril", "triu", "outer", "cdist", "bernoulli", "multinomial", "normal", "gather", "index_select", "flip", "roll",
    "repeat_interleave", "diag", "square", "maximum", "minimum", "lerp", "logsumexp", "argmax", "argmin",
    "one_hot", "tensordot", "polar", "complex", "heaviside", "erf", "sin", "cos", "atan2",
})
_TORCH_NAMESPACES = ("torch.nn.functional.", "torch.special.", "torch.fft.")
# functional / linalg functions that return tuples or non-tensors
_NOT_ONE_TENSOR = frozenset({
    "multi_head_attention_forward", "eig", "eigh", "qr", "svd", "slogdet", "lstsq", "lu", "lu_factor", "inv_ex",
    "cholesky_ex", "solve_ex", "ldl_factor", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
})
_NUMPY_FUNCTIONS = frozenset({
    "array", "asarray", "ascontiguousarray", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
    "zeros_like", "ones_like", "empty_like", "full_like", "concatenate", "stack", "vstack", "hstack",
    "expand_dims", "squeeze", "reshape", "transpose", "clip", "exp", "log", "abs", "sqrt", "round", "loadtxt",
    "genfromtxt", "frombuffer", "fromfile", "stack", "tile", "repeat", "matmul", "dot", "outer", "cumsum",
    "random.rand", "random.randn", "random.randint", "random.normal", "random.uniform", "random.permutation",
    "float32", "float64", "int64", "int32", "uint8",
})
_PANDAS_FUNCTIONS = frozenset({
    "DataFrame", "Series", "read_csv", "read_table", "read_excel", "read_parquet", "read_json", "read_feather",
    "read_sql", "read_hdf", "concat", "merge", "get_dummies", "to_datetime",
})

# Methods of a known value that return a value of the same kind.
TORCH_METHODS = frozenset({
    "to", "cuda", "cpu", "float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "char",
    "type_as", "view", "view_as", "reshape", "reshape_as", "unsqueeze", "squeeze", "flatten", "unflatten", "permute",
    "transpose", "t", "contiguous", "expand", "expand_as", "repeat", "repeat_interleave", "movedim", "swapaxes",
    "flip", "roll", "detach", "clone", "clamp", "clip", "clamp_min", "clamp_max", "masked_fill", "masked_scatter",
    "index_fill", "index_add", "index_copy", "scatter", "scatter_add", "index_put", "add", "sub", "mul", "div",
    "pow", "neg", "abs", "exp", "log", "log1p", "expm1", "sqrt", "rsqrt", "sigmoid", "tanh", "relu", "softmax",
    "log_softmax", "round", "floor", "ceil", "sign", "nan_to_num", "lerp", "addcmul", "addcdiv", "square",
    "reciprocal", "sum", "mean", "norm", "std", "var", "cumsum", "logsumexp", "tril", "triu", "where", "maximum",
    "minimum", "fmod", "remainder", "matmul", "mm", "bmm", "gather", "index_select", "masked_select", "argmax",
    "argmin", "pin_memory", "sin", "cos", "float_power", "true_divide", "floor_divide", "requires_grad_",
})
NUMPY_METHODS = frozenset({
    "astype", "reshape", "transpose", "squeeze", "flatten", "ravel", "clip", "round", "swapaxes", "repeat", "copy",
    "cumsum", "sum", "mean", "std", "dot", "take", "T",
})
PANDAS_METHODS = frozenset({
    "drop", "dropna", "fillna", "rename", "reset_index", "set_index", "replace", "sort_values", "sort_index",
    "drop_duplicates", "astype", "clip", "interpolate", "ffill", "bfill", "where", "mask", "round", "reindex",
    "assign", "merge", "join", "query", "shift", "diff", "abs", "copy", "head", "tail", "sample", "groupby",
})
_ATTR_SAME_KIND = {TORCH: {"T", "mT", "data", "grad", "real", "imag"}, NUMPY: {"T", "real", "imag"}}

# Built-in torch.nn layers whose call returns a single tensor.
ONE_TENSOR_LAYERS = frozenset({
    "Linear", "LazyLinear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "Embedding", "EmbeddingBag", "Flatten", "Unflatten", "LayerNorm", "GroupNorm", "RMSNorm",
    "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "ReLU", "ReLU6",
    "LeakyReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Tanh", "Sigmoid", "Hardswish", "Hardsigmoid",
    "Hardtanh", "Softplus", "Softsign", "Softmax", "LogSoftmax", "Softmin", "GLU", "LogSigmoid", "PReLU",
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
    "Upsample", "PixelShuffle", "PixelUnshuffle", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
    "InstanceNorm2d", "InstanceNorm3d", "Sequential", "Identity",
})

_ANNOTATIONS = {
    "torch.Tensor": TORCH, "torch.FloatTensor": TORCH, "torch.LongTensor": TORCH, "torch.BoolTensor": TORCH,
    "torch.nn.Parameter": TORCH, "numpy.ndarray": NUMPY, "pandas.DataFrame": PANDAS, "pandas.Series": PANDAS,
}
_STEP_METHODS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})
_ITER_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "iter"})


def layer_class(ctx: FileContext, call: ast.AST) -> str | None:
    """``Linear`` for a construction of ``torch.nn.Linear`` (any import spelling), else None."""
    if not isinstance(call, ast.Call):
        return None
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual.startswith("torch.nn.") and qual.count(".") == 2:
        return qual.rsplit(".", 1)[-1]
    return None


def array_kind(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> str | None:
    """:data:`TORCH`, :data:`NUMPY` or :data:`PANDAS` when ``expr`` is known to hold such a value, else None."""
    if expr is None or depth > MAX_DEPTH:
        return None
    cache = ctx.__dict__.setdefault("_tensor_values_kinds", {})
    key = id(expr)
    if key in cache and depth > 0:
        return cache[key]
    cache[key] = None  # a cycle reads as unknown
    found = _kind(ctx, expr, depth)
    cache[key] = found
    return found


def _kind(ctx: FileContext, expr: ast.AST, depth: int) -> str | None:
    if isinstance(expr, ast.Call):
        return _call_kind(ctx, expr, depth)
    if isinstance(expr, ast.Subscript):
        inner = array_kind(ctx, expr.value, depth + 1)
        if inner is not None:
            return inner
        if isinstance(expr.value, (ast.Name, ast.Attribute)) and _loader_batch(ctx, expr.value):
            return TORCH  # batch["pixel_values"], batch[0]: one field of a collated batch
        if isinstance(expr.value, ast.Attribute) and expr.value.attr in ("loc", "iloc"):
            return PANDAS if array_kind(ctx, expr.value.value, depth + 1) == PANDAS else None
        return None
    if isinstance(expr, ast.BinOp):
        if any(isinstance(side, ast.JoinedStr) or isinstance(side, ast.Constant) and isinstance(side.value, str)
               for side in (expr.left, expr.right)):
            return None  # "%s" % t formats text
        kinds = {array_kind(ctx, expr.left, depth + 1), array_kind(ctx, expr.right, depth + 1)} - {None}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(expr, ast.UnaryOp):
        return array_kind(ctx, expr.operand, depth + 1)
    if isinstance(expr, ast.Name):
        return _name_kind(ctx, expr, depth)
    if isinstance(expr, ast.Attribute):
        return _attribute_kind(ctx, expr, depth)
    return None


def _call_kind(ctx: FileContext, call: ast.Call, depth: int) -> str | None:
    qual = vo.normalize(ctx.qualname(call)) or ""
    head, _, last = qual.rpartition(".")
    if qual.startswith("torch.") and head == "torch" and last in _TORCH_FUNCTIONS:
        return TORCH
    if qual.startswith(_TORCH_NAMESPACES) and last[:1].islower() and last not in _NOT_ONE_TENSOR:
        return TORCH
    if qual.startswith("torch.linalg.") and last not in _NOT_ONE_TENSOR:
        return TORCH
    if qual.startswith("numpy.") and qual[len("numpy."):] in _NUMPY_FUNCTIONS:
        return NUMPY
    if qual.startswith("pandas.") and qual[len("pandas."):] in _PANDAS_FUNCTIONS:
        return PANDAS
    if qual in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
        return TORCH
    method = call_method(call)
    if method is not None and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        if isinstance(receiver, ast.Name) and receiver.id in ctx.imports:
            return None  # a module-level function of some import we do not know
        inner = array_kind(ctx, receiver, depth + 1)
        if inner == TORCH:
            if method == "numpy":
                return NUMPY
            return TORCH if method in TORCH_METHODS else None
        if inner == NUMPY:
            return NUMPY if method in NUMPY_METHODS else None
        if inner == PANDAS:
            if method in ("to_numpy",):
                return NUMPY
            return PANDAS if method in PANDAS_METHODS and method != "groupby" else None
    if _one_tensor_layer_call(ctx, call):
        return TORCH
    return None


def _one_tensor_layer_call(ctx: FileContext, call: ast.Call) -> bool:
    """``self.fc(x)`` / ``proj(x)`` where the callee is bound only to built-in one-tensor ``torch.nn`` layers."""
    values = layer_bindings(ctx, call.func)
    return bool(values) and all(layer_class(ctx, v) in ONE_TENSOR_LAYERS for v in values)


def layer_bindings(ctx: FileContext, func: ast.AST) -> list[ast.AST]:
    """Every value bound to the callee ``func`` (``self.drop`` in its class, a local name), or [] when unknown."""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
        cls = ctx.enclosing_class(func)
        if cls is None:
            return []
        return list(ctx.self_attributes(cls).get(func.attr, []))
    if isinstance(func, ast.Name):
        bound = vo.value(ctx, func)
        if bound is None or bound is func:
            return []
        scope = ctx.enclosing_function(func) or ctx.tree
        entries = [v for _l, _s, v in vo.bindings(ctx, scope).get(func.id, [])]
        if not entries and scope is not ctx.tree:
            entries = [v for _l, _s, v in vo.bindings(ctx, ctx.tree).get(func.id, [])]
        if not entries or any(v is None for v in entries):
            return []
        return entries
    return []


def _name_kind(ctx: FileContext, name: ast.Name, depth: int) -> str | None:
    bound = vo.value(ctx, name)
    if bound is not None and bound is not name and not (isinstance(bound, ast.Name) and bound.id == name.id):
        return array_kind(ctx, bound, depth + 1)
    if vo.is_parameter(ctx, name):
        return _parameter_kind(ctx, name, depth)
    if _loader_element(ctx, name):
        return TORCH
    return _split_element(ctx, name, depth)


def _split_element(ctx: FileContext, name: ast.Name, depth: int) -> str | None:
    """``X_train, X_test, y_train, y_test = train_test_split(X, y, ...)``: each part has the kind of the
    array it was cut from (element ``i`` comes from argument ``i // 2``)."""
    unpacked = vo.unpacking_call(ctx, name, inclusive=True)
    if unpacked is None:
        return None
    stmt, index = unpacked
    call = stmt.value
    if not (vo.normalize(ctx.qualname(call)) or "").endswith("train_test_split"):
        return None
    arrays = [a for a in call.args if not isinstance(a, ast.Starred)]  # type: ignore[attr-defined]
    if len(arrays) != len(call.args) or index // 2 >= len(arrays):  # type: ignore[attr-defined]
        return None
    return array_kind(ctx, arrays[index // 2], depth + 1)


def _annotation_kind(ctx: FileContext, annotation: ast.AST | None) -> str | None:
    if annotation is None:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript) and (dotted(annotation.value) or "").endswith("Optional"):
        return _annotation_kind(ctx, annotation.slice)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        kinds = {_annotation_kind(ctx, annotation.left), _annotation_kind(ctx, annotation.right)} - {None}
        none_side = any(isinstance(s, ast.Constant) and s.value is None for s in (annotation.left, annotation.right))
        return kinds.pop() if len(kinds) == 1 and none_side else None
    qual = vo.normalize(ctx.qualname(annotation)) or ""
    return _ANNOTATIONS.get(qual)


def _parameter_kind(ctx: FileContext, name: ast.Name, depth: int) -> str | None:
    func = ctx.enclosing_function(name)
    if func is None:
        return None
    args = func.args
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name.id:
            found = _annotation_kind(ctx, arg.annotation)
            if found is not None:
                return found
            break
    if depth > 3:
        return None
    sites = vo.all_call_sites(ctx, func)
    if not sites:
        return None
    kinds = set()
    for sctx, site in sites:
        arg = vo.argument_for(site, func, name.id)
        kinds.add(array_kind(sctx, arg, depth + 2) if arg is not None else None)
    return kinds.pop() if len(kinds) == 1 else None


def _attribute_kind(ctx: FileContext, expr: ast.Attribute, depth: int) -> str | None:
    owner = expr.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        cls = ctx.enclosing_class(expr)
        if cls is None:
            return None
        if expr.attr in _buffers(ctx, cls):
            return TORCH
        values = ctx.self_attributes(cls).get(expr.attr, [])
        if not values:
            return None
        kinds = {array_kind(ctx, v, depth + 1) for v in values}
        return kinds.pop() if len(kinds) == 1 else None
    inner = array_kind(ctx, owner, depth + 1)
    if inner is None:
        return None
    if expr.attr in _ATTR_SAME_KIND.get(inner, ()):
        return inner
    if inner == PANDAS and expr.attr == "values":
        return NUMPY
    return None


def _buffers(ctx: FileContext, cls: ast.ClassDef) -> set[str]:
    """Names a class registers with ``self.register_buffer("name", ...)`` (constant names only)."""
    cache = ctx.__dict__.setdefault("_tensor_values_buffers", {})
    if cls not in cache:
        names = set()
        for call in ctx.calls(cls):
            if call_method(call) == "register_buffer" and call.args and isinstance(call.args[0], ast.Constant) \
                    and isinstance(call.args[0].value, str):
                names.add(call.args[0].value)
        cache[cls] = names
    return cache[cls]


# -- data loaders -----------------------------------------------------------------------


def is_loader(ctx: FileContext, expr: ast.AST, depth: int = 0) -> bool:
    """``expr`` iterates a data loader: a ``DataLoader(...)`` construction, a name or call whose words say
    loader (``train_loader``, ``val_dataloader()``), through ``enumerate``/``tqdm``."""
    if depth > 4:
        return False
    if isinstance(expr, ast.Call):
        callee = dotted(expr.func) or ""
        qual = ctx.qualname(expr) or ""
        if (callee in _ITER_WRAPPERS or qual in _ITER_WRAPPERS or callee.endswith(".tqdm")) and expr.args:
            return is_loader(ctx, expr.args[0], depth + 1)
        if qual.endswith("DataLoader"):
            return True
        method = call_method(expr)
        return method is not None and _loader_word(method)
    if isinstance(expr, (ast.Name, ast.Attribute)):
        text = dotted(expr) or ""
        if _loader_word(text.rsplit(".", 1)[-1]):
            return True
        bound = vo.value(ctx, expr) if isinstance(expr, ast.Name) else ctx.resolve(expr)
        if bound is not None and bound is not expr:
            return is_loader(ctx, bound, depth + 1)
    return False


def _loader_word(name: str) -> bool:
    """``train_loader``, ``trainloader``, ``val_dataloader``, ``train_dl``: a name that says data loader."""
    return "loader" in name.lower() or "dl" in vo.words(name)


def _next_of_loader(ctx: FileContext, value: ast.AST) -> bool:
    """``next(iter(loader))`` / ``next(loader_iter)``: one batch drawn by hand."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "next" and value.args):
        return False
    inner = value.args[0]
    if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "iter" and inner.args:
        inner = inner.args[0]
    return is_loader(ctx, inner)


def _loop_over_loader(ctx: FileContext, name: ast.Name) -> tuple[ast.For, bool] | None:
    """(loop, whole) when ``name`` is bound by a ``for`` over a loader: ``whole`` when it is the whole batch
    (``for batch in loader``, ``for i, batch in enumerate(loader)``), not an unpacked element of it."""
    for anc in ctx.ancestors(name):
        if not isinstance(anc, (ast.For, ast.AsyncFor)):
            continue
        target = anc.target
        iterated = anc.iter
        enumerated = isinstance(iterated, ast.Call) and (dotted(iterated.func) or "") == "enumerate"
        if enumerated and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        if isinstance(target, ast.Name):
            if target.id == name.id:
                return (anc, True) if is_loader(ctx, iterated) else None
            continue
        if isinstance(target, ast.Tuple) and any(isinstance(e, ast.Name) and e.id == name.id for e in _flat(target)):
            return (anc, False) if is_loader(ctx, iterated) else None
    return None


def _flat(target: ast.AST) -> list[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [leaf for e in target.elts for leaf in _flat(e)]
    return [target]


def _loader_batch(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` is a whole batch of a loader: the loop variable, or the ``batch`` parameter of a Lightning step."""
    if not isinstance(expr, ast.Name):
        return False
    if vo.is_parameter(ctx, expr):
        func = ctx.enclosing_function(expr)
        params = vo.function_params(func) if func is not None else []
        return func is not None and func.name in _STEP_METHODS and len(params) > 1 and params[1] == expr.id
    bound = vo.value(ctx, expr)
    if bound is not None and bound is not expr and not (isinstance(bound, ast.Name) and bound.id == expr.id):
        return _next_of_loader(ctx, bound)
    found = _loop_over_loader(ctx, expr)
    return found is not None and found[1]


def element_kind(ctx: FileContext, iterated: ast.AST, target: ast.AST, name: str) -> str | None:
    """:data:`TORCH` when the loop or comprehension ``for target in iterated`` binds ``name`` to tensors: the
    fields of a whole loader batch (``for t in batch``, ``for k, v in batch.items()``, ``batch.values()``), the
    rows of a known tensor, or the items of a literal list of known tensors."""
    pairs = isinstance(iterated, ast.Call) and call_method(iterated) == "items" and not iterated.args
    if isinstance(iterated, ast.Call) and call_method(iterated) in ("values", "items") and not iterated.args \
            and isinstance(iterated.func, ast.Attribute):
        source = iterated.func.value
        whole = _loader_batch(ctx, source)
    else:
        source = iterated
        whole = _loader_batch(ctx, source) or array_kind(ctx, source) == TORCH
        if not whole and isinstance(source, (ast.List, ast.Tuple)) and source.elts:
            whole = all(array_kind(ctx, e) == TORCH for e in source.elts)
    if not whole:
        return None
    if pairs:
        ok = isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name) \
            and target.elts[1].id == name
    else:
        ok = isinstance(target, ast.Name) and target.id == name
    return TORCH if ok else None


def _loader_element(ctx: FileContext, name: ast.Name) -> bool:
    """``name`` is one field of a loader batch: ``for x, y in loader``, or ``x, y = batch`` with ``batch`` a
    whole loader batch (also a Lightning step's ``batch``)."""
    found = _loop_over_loader(ctx, name)
    if found is not None:
        return not found[1]
    scope = ctx.enclosing_function(name) or ctx.tree
    before = [e for e in vo.bindings(ctx, scope).get(name.id, []) if e[0] <= name.lineno]
    if not before:
        return False
    stmt = before[-1][1]
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple):
        value = stmt.value
        return isinstance(value, ast.Name) and _loader_batch(ctx, value) or _next_of_loader(ctx, value)
    return False


def loop_layers(ctx: FileContext, name: ast.Name, *, attributes_only: bool = False) -> list[ast.AST]:
    """The layers a loop variable runs through: ``for layer in self.layers`` (or ``enumerate(...)``) where every
    binding of ``self.layers`` is an ``nn.ModuleList`` / ``nn.Sequential`` built from a list, a comprehension or
    positional arguments; [] when unknown. ``attributes_only``: only ``self.x``-style containers, not local names."""
    for loop in ctx.enclosing_loops(name):
        if not isinstance(loop, ast.For):
            continue
        target, iterated = loop.target, loop.iter
        if isinstance(iterated, ast.Call) and dotted(iterated.func) == "enumerate" and iterated.args \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target, iterated = target.elts[1], iterated.args[0]
        if not (isinstance(target, ast.Name) and target.id == name.id):
            continue
        kinds = (ast.Attribute,) if attributes_only else (ast.Name, ast.Attribute)
        if not isinstance(iterated, kinds):
            return []
        elements: list[ast.AST] = []
        for container in layer_bindings(ctx, iterated):
            if layer_class(ctx, container) not in ("ModuleList", "Sequential") or not isinstance(container, ast.Call):
                return []
            args = list(container.args)
            if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
                args = list(args[0].elts)
            elif len(args) == 1 and isinstance(args[0], (ast.ListComp, ast.GeneratorExp)):
                args = [args[0].elt]
            if not args or container.keywords or any(isinstance(a, ast.Starred) for a in args):
                return []
            elements.extend(args)
        return elements
    return []


def loader_field(ctx: FileContext, name: ast.Name) -> tuple[ast.AST | None, int] | None:
    """``(iterated, position)`` when ``name`` is field ``position`` of a loader batch: ``for x, y in loader``
    (``iterated`` is what the loop runs over, ``enumerate``/``tqdm`` included), or ``x, y = batch`` for a whole
    batch ``batch`` (``iterated`` None when the batch is a Lightning step's parameter). None otherwise."""
    found = _loop_over_loader(ctx, name)
    if found is not None:
        loop, whole = found
        if whole:
            return None
        target = loop.target
        if isinstance(loop.iter, ast.Call) and (dotted(loop.iter.func) or "") == "enumerate" \
                and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target = target.elts[1]
        return _position(target, name.id, loop.iter)
    scope = ctx.enclosing_function(name) or ctx.tree
    before = [e for e in vo.bindings(ctx, scope).get(name.id, []) if e[0] <= name.lineno]
    if not before:
        return None
    stmt = before[-1][1]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)):
        return None
    value = stmt.value
    if _next_of_loader(ctx, value):
        inner = value.args[0]  # type: ignore[attr-defined]
        return _position(stmt.targets[0], name.id, inner)
    if isinstance(value, ast.Name) and _loader_batch(ctx, value):
        return _position(stmt.targets[0], name.id, batch_source(ctx, value))
    return None


def batch_source(ctx: FileContext, batch: ast.Name) -> ast.AST | None:
    """What the whole batch ``batch`` was drawn from (the loop's iterable, ``next(iter(loader))``'s loader), or
    None (a Lightning step's parameter, or unknown)."""
    if vo.is_parameter(ctx, batch):
        return None
    bound = vo.value(ctx, batch)
    if bound is not None and bound is not batch and _next_of_loader(ctx, bound):
        return bound.args[0]  # type: ignore[attr-defined]
    found = _loop_over_loader(ctx, batch)
    return found[0].iter if found is not None and found[1] else None


def is_loader_batch(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` is a whole batch of a loader (a loop variable over one, a Lightning step's ``batch``)."""
    return _loader_batch(ctx, expr)


def _position(target: ast.AST, name: str, iterated: ast.AST | None) -> tuple[ast.AST | None, int] | None:
    if not isinstance(target, ast.Tuple) or any(isinstance(e, ast.Starred) for e in target.elts):
        return None
    for i, elt in enumerate(target.elts):
        if isinstance(elt, ast.Name) and elt.id == name:
            return iterated, i
    return None
