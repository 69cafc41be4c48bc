"""Tensor shapes: the rank and the symbolic axes of a tensor, where the code makes them certain.

:func:`shape_of` answers a :class:`Shape` or None ("unknown", never a guess). An axis is :data:`BATCH` (the batch
of a data loader), an ``int`` (a literal size) or None (a size the scan does not know). When the rank itself is
unknown, a shape keeps what it knows of the leading axes (``head``) and of the trailing ones (``tail``): the output
of ``nn.Linear(d, 1)`` on a loader's batch is ``(N, ..., 1)``.

What it follows:

* a loader's batch: field ``i`` of ``for x, y in loader`` (or ``x, y = batch``, ``batch[i]``) is ``(N, ...)``, and
  exactly ``(N,) + sample`` when the loader's dataset says what a sample is: a ``TensorDataset`` of tensors whose
  shapes are known, or a project ``Dataset`` whose every ``__getitem__`` returns a tuple (or dict) whose element
  ``i`` has a known shape (a Python number, a 0-d tensor, ``self.y[idx]`` of a 1-D column, ``torch.tensor([y])``).
  A custom ``collate_fn`` or ``batch_size=None`` makes the batch unknown;
* constructors (``torch.zeros(n)``, ``torch.tensor(...)``, ``np.array(...)``), pandas columns (``df["y"]`` is 1-D,
  ``df[[...]]`` and ``df.values`` 2-D), ``float(...)``/``.item()`` (0-d), list literals of numbers;
* the shape methods (``squeeze``, ``unsqueeze``, ``view``/``reshape``, ``flatten``, ``view_as``, ``transpose``,
  ``permute``, ``.T``), indexing (``[:, -1]``, ``[..., 0]``, ``[:, None]``), reductions with a constant ``dim``,
  elementwise methods and functions, broadcasting between two known shapes and with numbers;
* layers: ``nn.Linear``/``nn.LazyLinear`` (last axis), ``nn.Embedding`` (one axis more), the RNNs (``nn.LSTM``,
  ``nn.GRU``, ``nn.RNN``: output and final states, ``batch_first``, ``bidirectional``), shape-keeping layers
  (activations, dropout, normalisation) and ``nn.Sequential`` of these; a model class of the file or the project,
  through its ``forward`` with its input bound to the caller's shape (also ``self(x)``); tuple outputs unpacked.

Names are followed to the binding that reaches their use only when it is certain: a binding inside a branch or a
loop that does not also hold the use makes the name unknown.

The parts live beside this module: the shape value and its arithmetic in :mod:`shape_arithmetic`, built-in layers
in :mod:`layer_shapes`, certain bindings in :mod:`certain_bindings`, loaders in :mod:`batch_loaders`; this module
follows an expression through names, calls, models and batches to a shape.
"""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import tensor_values as tv
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.batch_loaders import loader_call, sample_element, step_loader
from mlsleuth.scan.analysis.certain_bindings import reaching_binding, reshaped_in_place, unpacking_path
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, keyword
from mlsleuth.scan.analysis.layer_shapes import RNN_LAYERS, layer_constructions, layer_output
from mlsleuth.scan.analysis.shape_arithmetic import (
    BATCH,
    SCALAR,
    SHAPE_METHODS,
    Shape,
    broadcast,
    exact_shape,
    indexed_shape,
    literal_int,
    method_output,
    reshape,
    sized_shape,
)

MAX_DEPTH = 14

# -- calls that keep a shape or make one ------------------------------------------------------------

_KEEP_METHODS = frozenset({
    "float", "double", "half", "bfloat16", "long", "int", "bool", "to", "cpu", "cuda", "detach", "clone",
    "contiguous", "type_as", "type", "requires_grad_", "sigmoid", "tanh", "relu", "exp", "log", "log1p", "abs",
    "sqrt", "neg", "clamp", "clip", "round", "floor", "ceil", "sign", "square", "numpy", "astype", "copy",
    "to_numpy", "pin_memory", "nan_to_num", "reciprocal", "expm1", "rsqrt", "softmax", "log_softmax",
})
# pandas methods that keep a frame a frame and a column a column
_FRAME_KEEP_METHODS = frozenset({"drop", "dropna", "fillna", "replace", "sort_values", "sort_index", "copy", "astype"})
_FRAME_READERS = frozenset({"pandas.read_csv", "pandas.read_table", "pandas.read_excel", "pandas.read_parquet",
                            "pandas.read_feather", "pandas.DataFrame"})
_KEEP_FUNCTIONS = frozenset({
    "torch.sigmoid", "torch.tanh", "torch.relu", "torch.exp", "torch.log", "torch.log1p", "torch.abs",
    "torch.sqrt", "torch.clamp", "torch.clip", "torch.round", "torch.square", "torch.nan_to_num", "torch.softmax",
    "torch.log_softmax", "torch.nn.functional.relu", "torch.nn.functional.sigmoid", "torch.nn.functional.gelu",
    "torch.nn.functional.silu", "torch.nn.functional.leaky_relu", "torch.nn.functional.elu",
    "torch.nn.functional.dropout", "torch.nn.functional.softplus", "torch.nn.functional.tanh",
    "torch.nn.functional.softmax", "torch.nn.functional.log_softmax", "torch.nn.functional.normalize",
    "numpy.exp", "numpy.log", "numpy.abs", "numpy.sqrt", "numpy.clip", "numpy.round", "numpy.float32",
    "numpy.asarray", "numpy.array", "numpy.ascontiguousarray", "torch.as_tensor", "torch.from_numpy",
    "torch.tensor",
})
_FROM_DATA = frozenset({"torch.tensor", "torch.as_tensor", "torch.from_numpy", "numpy.array", "numpy.asarray",
                        "numpy.ascontiguousarray", "numpy.float32"})
_SIZED = frozenset({"torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "numpy.zeros",
                    "numpy.ones", "numpy.empty"})


# -- the analysis ----------------------------------------------------------------------------------


class _Env:
    """Shapes of a function's parameters while its body is read for one call (a model's ``forward``)."""

    __slots__ = ("func", "params")

    def __init__(self, func: ast.AST, params: dict[str, object]) -> None:
        self.func = func
        self.params = params

    def key(self) -> tuple:
        return (id(self.func), tuple(sorted(self.params.items(), key=lambda kv: kv[0])))


def shape_of(ctx: FileContext, expr: ast.AST | None) -> Shape | None:
    """The shape of the tensor ``expr`` holds, or None when the scan cannot be sure."""
    found = _value(ctx, expr, None, 0)
    return found if isinstance(found, Shape) else None


def shape_in_forward(ctx: FileContext, expr: ast.AST | None) -> Shape | None:
    """Like :func:`shape_of`, and inside a module's ``forward(self, x, ...)`` with ``x`` taken as a batch whose
    first axis is the batch and whose rank is unknown, ``(N, ...)``: what the layers of ``forward`` make of any
    batch. Only layers that fix a rank (an RNN built with ``batch_first=True``, a convolution) give exact shapes."""
    func = ctx.enclosing_function(expr) if expr is not None else None
    if func is None or func.name != "forward" or ctx.enclosing_class(func) is None:
        return shape_of(ctx, expr)
    params = vo.function_params(func)
    if len(params) < 2 or params[0] != "self":
        return shape_of(ctx, expr)
    found = _value(ctx, expr, _Env(func, {params[1]: Shape((BATCH,), (), False)}), 0)
    return found if isinstance(found, Shape) else None


def _value(ctx: FileContext, expr: ast.AST | None, env: _Env | None, depth: int) -> object:
    """A :class:`Shape`, a tuple of such answers (a module that returns a tuple), or None."""
    if expr is None or depth > MAX_DEPTH:
        return None
    cache = ctx.__dict__.setdefault("_tensor_shapes_cache", {})
    key = (id(expr), env.key() if env is not None else None)
    if key in cache:
        return cache[key]
    cache[key] = None  # a cycle reads as unknown
    found = _compute(ctx, expr, env, depth)
    cache[key] = found
    return found


def _shape(ctx: FileContext, expr: ast.AST | None, env: _Env | None, depth: int) -> Shape | None:
    found = _value(ctx, expr, env, depth + 1)
    return found if isinstance(found, Shape) else None


def _compute(ctx: FileContext, expr: ast.AST, env: _Env | None, depth: int) -> object:
    if isinstance(expr, ast.Constant):
        return SCALAR if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return _value(ctx, expr.operand, env, depth + 1)
    if isinstance(expr, ast.Name):
        return _name(ctx, expr, env, depth)
    if isinstance(expr, ast.Call):
        return _call(ctx, expr, env, depth)
    if isinstance(expr, ast.Subscript):
        return _subscript(ctx, expr, env, depth)
    if isinstance(expr, ast.Attribute):
        return _attribute(ctx, expr, env, depth)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv)):
        left, right = _shape(ctx, expr.left, env, depth), _shape(ctx, expr.right, env, depth)
        if left is None or right is None:
            return None
        return broadcast(left, right)
    if isinstance(expr, (ast.List, ast.Tuple)) and expr.elts:
        parts = [_shape(ctx, e, env, depth) for e in expr.elts]
        if isinstance(expr, ast.List):
            if all(p is not None and p.exact and p == parts[0] for p in parts):  # rows of one shape
                return Shape((len(parts),) + parts[0].head)  # type: ignore[union-attr]
            return Shape((len(parts),), (), False)  # rows of values whose shape is not known
        if isinstance(expr, ast.Tuple):
            return tuple(_value(ctx, e, env, depth + 1) for e in expr.elts)
    return None


# -- names -----------------------------------------------------------------------------------------


def _name(ctx: FileContext, name: ast.Name, env: _Env | None, depth: int) -> object:
    func = ctx.enclosing_function(name)
    if name.id in reshaped_in_place(ctx, ctx.tree):  # anywhere in the file: a name is not followed by scope here
        return None
    if env is not None and func is env.func and name.id in env.params and vo.is_parameter(ctx, name):
        return env.params[name.id]
    field = tv.loader_field(ctx, name)
    if field is not None:
        return _batch_field(ctx, field[0] if field[0] is not None else step_loader(ctx, name), field[1], depth)
    reaching = reaching_binding(ctx, name)
    if reaching is not None:
        stmt, val = reaching
        if val is not None:
            return _value(ctx, val, env, depth + 1)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            return _unpacked(ctx, stmt, name, env, depth)
        return None
    if func is None or not vo.is_parameter(ctx, name):
        if func is None or not vo.bindings(ctx, func).get(name.id):
            bound = vo.module_value(ctx, name.id) if name.id not in ctx.imports else None
            if bound is not None and func is not None:
                return _value(ctx, bound, None, depth + 1)
        return None
    return _parameter(ctx, func, name, depth)


def _unpacked(ctx: FileContext, stmt: ast.Assign, name: ast.Name, env: _Env | None, depth: int) -> object:
    """``out, (h, c) = self.lstm(x)``, ``pred, aux = model(x)``: the element of the tuple the call returns."""
    path = unpacking_path(stmt.targets[0], name.id)
    if path is None:
        return None
    found = _value(ctx, stmt.value, env, depth + 1)
    for index in path:
        if not isinstance(found, tuple) or index >= len(found):
            return None
        found = found[index]
    return found


def _parameter(ctx: FileContext, func: ast.AST, name: ast.Name, depth: int) -> object:
    """A parameter every caller in the project fills with a tensor of one shape."""
    if depth > MAX_DEPTH - 4 or getattr(func, "name", "") in ("forward", "__getitem__", "__call__"):
        return None
    sites = vo.all_call_sites(ctx, func)
    answers = set()
    for sctx, site in sites[:8]:
        arg = vo.argument_for(site, func, name.id)
        answers.add(_shape(sctx, arg, None, depth + 2) if arg is not None else None)
    if len(sites) > 8 or len(answers) != 1:
        return None
    return answers.pop()


# -- attributes and indexing -----------------------------------------------------------------------


def _attribute(ctx: FileContext, expr: ast.Attribute, env: _Env | None, depth: int) -> object:
    owner = expr.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        cls = ctx.enclosing_class(expr)
        if cls is None or f"self.{expr.attr}" in reshaped_in_place(ctx, cls):
            return None
        values = ctx.self_attributes(cls).get(expr.attr, [])
        shapes = {_shape(ctx, v, None, depth) for v in values}
        return shapes.pop() if len(shapes) == 1 else None
    if expr.attr in ("data", "values", "real"):
        return _value(ctx, owner, env, depth + 1)
    if expr.attr == "T":
        inner = _shape(ctx, owner, env, depth)
        return Shape(tuple(reversed(inner.head))) if inner is not None and inner.exact else None
    return None


def _subscript(ctx: FileContext, expr: ast.Subscript, env: _Env | None, depth: int) -> object:
    owner = expr.value
    if tv.is_loader_batch(ctx, owner) and isinstance(owner, ast.Name):
        key = constant(expr.slice)
        if isinstance(key, (int, str)) and not isinstance(key, bool):
            source = tv.batch_source(ctx, owner)
            return _batch_field(ctx, source if source is not None else step_loader(ctx, owner), key, depth)
        return None
    inner = _value(ctx, owner, env, depth + 1)
    key = expr.slice
    names = isinstance(key, ast.Constant) and isinstance(key.value, str) or isinstance(key, ast.List)
    if names and tv.array_kind(ctx, owner) == tv.PANDAS:
        # columns of a frame known to be one (2-D): ``df["y"]`` is a Series, ``df[["a", "b"]]`` a frame
        if not (isinstance(inner, Shape) and inner.rank == 2):
            return None
        if isinstance(key, ast.Constant):
            return exact_shape(None)
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in key.elts):  # type: ignore[attr-defined]
            return exact_shape(None, len(key.elts))  # type: ignore[attr-defined]
        return None
    if isinstance(inner, tuple):
        index = literal_int(expr.slice)
        return inner[index] if index is not None and -len(inner) <= index < len(inner) else None
    if not isinstance(inner, Shape):
        return None
    items = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    kinds = _index_kinds(ctx, items)
    return indexed_shape(inner, kinds) if kinds is not None else None


def _index_kinds(ctx: FileContext, items: list[ast.AST]) -> list[str] | None:
    """What each index of ``items`` does to an axis (see :func:`shape_arithmetic.indexed_shape`); None when one is not
    certain."""
    kinds = []
    for item in items:
        if isinstance(item, ast.Slice):
            kinds.append("keep" if item.lower is None and item.upper is None and item.step is None else "part")
        elif isinstance(item, ast.Constant) and item.value is None:
            kinds.append("new")
        elif isinstance(item, ast.Constant) and item.value is Ellipsis:
            kinds.append("rest")
        elif literal_int(item) is not None or _is_item_index(ctx, item):
            kinds.append("drop")
        else:
            return None
    return kinds


def _is_item_index(ctx: FileContext, item: ast.AST) -> bool:
    """The index parameter of a ``__getitem__`` (one sample's position: an int)."""
    if not isinstance(item, ast.Name):
        return False
    func = ctx.enclosing_function(item)
    if func is None or func.name != "__getitem__" or not vo.is_parameter(ctx, item):
        return False
    params = vo.function_params(func)
    return len(params) == 2 and params[1] == item.id


# -- calls -----------------------------------------------------------------------------------------


def _call(ctx: FileContext, call: ast.Call, env: _Env | None, depth: int) -> object:
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in ("float", "int") and len(call.args) == 1:
        return SCALAR
    if qual in _SIZED:
        return sized_shape(call)
    if qual in _FRAME_READERS:
        return exact_shape(None, None)
    if qual in _FROM_DATA and call.args:
        return _value(ctx, call.args[0], env, depth + 1)
    if qual in ("torch.FloatTensor", "torch.LongTensor", "torch.Tensor") and len(call.args) == 1:
        inner = _shape(ctx, call.args[0], env, depth)
        return inner if inner is not None and inner != SCALAR else None
    if qual in _KEEP_FUNCTIONS and call.args:
        return _value(ctx, call.args[0], env, depth + 1)
    if qual in ("torch.squeeze", "torch.unsqueeze", "torch.flatten", "torch.reshape") and call.args:
        return _shape_method(ctx, qual.rsplit(".", 1)[-1], call.args[0], call, call.args[1:], env, depth)
    method = call_method(call)
    if method is not None and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        if not (isinstance(receiver, ast.Name) and receiver.id in (*ctx.imports, "self")):
            if method in _FRAME_KEEP_METHODS and tv.array_kind(ctx, receiver) == tv.PANDAS:
                return _value(ctx, receiver, env, depth + 1)
            if method == "item" and not call.args:
                return SCALAR
            if method in _KEEP_METHODS:
                return _value(ctx, receiver, env, depth + 1)
            found = _shape_method(ctx, method, receiver, call, list(call.args), env, depth)
            if found is not None or method in SHAPE_METHODS:
                return found
    return _module_call(ctx, call, env, depth)


def _shape_method(ctx: FileContext, method: str, receiver: ast.AST, call: ast.Call, args: list, env: _Env | None,
                  depth: int) -> Shape | None:
    if method not in SHAPE_METHODS:
        return None
    if method in ("view_as", "reshape_as", "expand_as"):
        return _shape(ctx, args[0], env, depth) if len(args) == 1 else None
    if method in ("view", "reshape"):
        if any(kw.arg == "dtype" for kw in call.keywords) or len(args) == 1 and isinstance(args[0], ast.Attribute) \
                and args[0].attr in ("dtype", "shape") or len(args) == 1 and isinstance(args[0], ast.Name):
            return None
        return reshape(_shape(ctx, receiver, env, depth), args)
    shape = _shape(ctx, receiver, env, depth)
    if shape is None:
        return None
    return method_output(method, call, args, shape)


# -- layers and models -----------------------------------------------------------------------------


def _module_call(ctx: FileContext, call: ast.Call, env: _Env | None, depth: int) -> object:
    func = call.func
    if not call.args or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if isinstance(func, ast.Name) and func.id == "self":
        cls = ctx.enclosing_class(call)
        hit = vo.class_method(ctx, cls, "forward") if cls is not None else None
        return _forward(hit, call, env, ctx, depth) if hit is not None else None
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ctx.imports:
        return None
    cons = layer_constructions(ctx, func)
    if cons:
        answers = []
        for mctx, construction in cons:
            answers.append(_apply_module(ctx, mctx, construction, call, env, depth))
        if all(a == answers[0] for a in answers):
            return answers[0]
        return None
    found = vo.instance_class(ctx, func) if isinstance(func, (ast.Name, ast.Attribute)) else None
    if found is not None:
        hit = vo.class_method(found[0], found[1], "forward")
        return _forward(hit, call, env, ctx, depth) if hit is not None else None
    return None


def _apply_module(ctx: FileContext, mctx: FileContext, construction: ast.Call, call: ast.Call, env: _Env | None,
                  depth: int) -> object:
    layer = tv.layer_class(mctx, construction)
    if layer is not None:
        if layer == "Sequential":
            return _sequential(ctx, mctx, construction, call, env, depth)
        return layer_output(mctx, layer, construction, _shape(ctx, call.args[0], env, depth)) \
            if len(call.args) == 1 or layer in RNN_LAYERS else None
    found = vo.constructed_class(mctx, construction)
    if found is None:
        return None
    hit = vo.class_method(found[0], found[1], "forward")
    return _forward(hit, call, env, ctx, depth) if hit is not None else None


def _sequential(ctx: FileContext, mctx: FileContext, construction: ast.Call, call: ast.Call, env: _Env | None,
                depth: int) -> Shape | None:
    if len(call.args) != 1 or construction.keywords or not construction.args:
        return None
    shape = _shape(ctx, call.args[0], env, depth)
    for layer_node in construction.args:
        if shape is None or not isinstance(layer_node, ast.Call):
            return None
        layer = tv.layer_class(mctx, layer_node)
        if layer is None or layer in RNN_LAYERS or layer == "Sequential":
            return None
        out = layer_output(mctx, layer, layer_node, shape)
        shape = out if isinstance(out, Shape) else None
    return shape


def _forward(hit: tuple[FileContext, ast.AST] | None, call: ast.Call, env: _Env | None, ctx: FileContext,
             depth: int) -> object:
    """What a model's ``forward`` returns when called with ``call``'s first argument."""
    if hit is None or len(call.args) != 1 or call.keywords:
        return None
    fctx, forward = hit
    params = vo.function_params(forward)
    if len(params) != 2:
        return None
    arg = _shape(ctx, call.args[0], env, depth)
    if arg is None:
        return None
    inner = _Env(forward, {params[1]: arg})
    answers = [_value(fctx, r, inner, depth + 1) for r in vo.returns(forward)]
    if answers and all(a is not None and a == answers[0] for a in answers):
        return answers[0]
    return None


# -- loader batches --------------------------------------------------------------------------------


def _batch_field(ctx: FileContext, iterated: ast.AST | None, key: object, depth: int) -> Shape | None:
    """Field ``key`` of a batch drawn from ``iterated``: ``(N,) + sample`` when the dataset says what a sample
    is, else ``(N, ...)``; None when a collate function or ``batch_size=None`` reshapes batches."""
    loader = loader_call(ctx, iterated)
    generic = Shape((BATCH,), (), False)
    if isinstance(loader, ast.Name):  # a loader handed to a training function: what every caller hands it
        func = ctx.enclosing_function(loader)
        sites = vo.all_call_sites(ctx, func) if func is not None and depth < MAX_DEPTH - 4 else []
        answers = {_batch_field(sctx, vo.argument_for(site, func, loader.id), key, depth + 2) for sctx, site in sites[:6]}
        if len(sites) > 6 or len(answers) != 1:
            return generic
        found = answers.pop()
        return found if found is not None else generic
    if loader is None:
        return generic
    lctx, call = loader
    collate = keyword(call, "collate_fn")
    if collate is not None and not (isinstance(collate, ast.Constant) and collate.value is None) \
            or len(call.args) > 6 or any(kw.arg is None for kw in call.keywords):
        return None
    size = keyword(call, "batch_size")
    if size is not None and isinstance(size, ast.Constant) and size.value is None:
        return None
    dataset = argument(call, 0, "dataset")
    sample = _sample(lctx, dataset, key, depth) if dataset is not None else None
    if sample is _NOT_A_TENSOR:
        return None
    if not isinstance(sample, Shape):
        return generic
    return Shape((BATCH,) + sample.head, sample.tail, sample.exact)


_NOT_A_TENSOR = "not a tensor"


def _sample(ctx: FileContext, dataset: ast.AST, key: object, depth: int) -> object:
    """The shape of field ``key`` of one sample of ``dataset``; :data:`_NOT_A_TENSOR` for a field that collates
    into something else (a list, a dict, strings); None when unknown."""
    bound = vo.value(ctx, dataset) if isinstance(dataset, (ast.Name, ast.Attribute)) else dataset
    if not isinstance(bound, ast.Call):
        return None
    qual = vo.normalize(ctx.qualname(bound)) or ""
    if qual.endswith("TensorDataset") and qual.startswith("torch."):
        if not isinstance(key, int) or key >= len(bound.args) or any(isinstance(a, ast.Starred) for a in bound.args):
            return None
        whole = _shape(ctx, bound.args[key], None, depth)
        if whole is None or not whole.exact or not whole.head:
            return None
        return Shape(whole.head[1:])
    found = vo.constructed_class(ctx, bound)
    if found is None:
        return None
    hit = vo.class_method(found[0], found[1], "__getitem__")
    if hit is None:
        return None
    dctx, getitem = hit
    answers = set()
    for returned in vo.returns(getitem):
        element = sample_element(returned, key)
        if isinstance(element, (ast.List, ast.Dict, ast.Tuple, ast.Constant)) and not (
                isinstance(element, ast.Constant) and isinstance(element.value, (int, float))):
            return _NOT_A_TENSOR  # default_collate turns a list in a sample into a list of batched tensors
        if element is None:
            return None
        answers.add(_shape(dctx, element, None, depth))
    if len(answers) != 1:
        return None
    return answers.pop()
