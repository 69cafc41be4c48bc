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
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import tensor_values as tv
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, dotted, keyword

BATCH = "N"
MAX_DEPTH = 14


@dataclass(frozen=True)
class Shape:
    """Axes of a tensor: exact (``head`` is every axis) or partly known (at least ``head`` then ``tail``)."""

    head: tuple = ()
    tail: tuple = ()
    exact: bool = True

    @property
    def rank(self) -> int | None:
        return len(self.head) if self.exact else None

    @property
    def min_rank(self) -> int:
        return len(self.head) + len(self.tail)

    @property
    def last(self) -> object:
        """The size of the last axis (None when unknown or the rank is 0)."""
        if self.exact:
            return self.head[-1] if self.head else None
        return self.tail[-1] if self.tail else None

    def text(self) -> str:
        def one(axis: object) -> str:
            return "?" if axis is None else str(axis)
        if self.exact:
            inner = ", ".join(one(a) for a in self.head)
            return f"({inner},)" if len(self.head) == 1 else f"({inner})"
        return "(" + ", ".join([*(one(a) for a in self.head), "...", *(one(a) for a in self.tail)]) + ")"


SCALAR = Shape(())


def _exact(*dims: object) -> Shape:
    return Shape(tuple(dims))


# -- elementwise and shape-keeping operations ------------------------------------------------------

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
_KEEP_LAYERS = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Tanh", "Sigmoid", "Hardswish",
    "Hardsigmoid", "Hardtanh", "Softplus", "Softsign", "PReLU", "Dropout", "AlphaDropout", "Identity",
    "LayerNorm", "Softmax", "LogSoftmax", "LogSigmoid", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d",
    "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "Dropout1d", "Dropout2d", "Dropout3d",
})
_RNNS = frozenset({"LSTM", "GRU", "RNN"})
# Layers over 1, 2 or 3 spatial axes: (N, C, *spatial) in and out; the channels change for convolutions.
_SPATIAL = {f"{kind}{k}d": k for k in (1, 2, 3) for kind in (
    "Conv", "ConvTranspose", "MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool")}
_REDUCTIONS = frozenset({"mean", "sum", "amax", "amin", "prod", "std", "var", "logsumexp", "norm"})


def _int(node: ast.AST | None) -> object:
    """A literal int (negative too), else None."""
    value = constant(node) if node is not None else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _axis(shape: Shape, dim: int) -> int | None:
    """The non-negative position of axis ``dim`` of an exact shape, None when out of range."""
    rank = len(shape.head)
    pos = dim + rank if dim < 0 else dim
    return pos if 0 <= pos < rank else None


def _squeeze(shape: Shape, dims: list[int] | None) -> Shape | None:
    if dims is None:  # every axis of size one; an unknown size may or may not be one
        if not shape.exact or any(a is None for a in shape.head):
            return None
        return Shape(tuple(a for a in shape.head if a != 1))
    if len(dims) != 1:
        return None
    dim = dims[0]
    if not shape.exact:
        if dim == -1 and shape.tail:
            size = shape.tail[-1]
            if size == 1:
                return Shape(shape.head, shape.tail[:-1], False)
            return shape if size is not None else None
        if dim >= 0 and dim < len(shape.head):
            size = shape.head[dim]
            if size == 1:
                return Shape(shape.head[:dim] + shape.head[dim + 1:], shape.tail, False)
            return shape if size is not None else None
        return None
    pos = _axis(shape, dim)
    if pos is None:
        return None
    size = shape.head[pos]
    if size == 1:
        return Shape(shape.head[:pos] + shape.head[pos + 1:])
    return shape if size is not None else None


def _unsqueeze(shape: Shape, dim: int) -> Shape | None:
    if shape.exact:
        rank = len(shape.head) + 1
        pos = dim + rank if dim < 0 else dim
        if not 0 <= pos < rank:
            return None
        return Shape(shape.head[:pos] + (1,) + shape.head[pos:])
    if dim == -1:
        return Shape(shape.head, shape.tail + (1,), False)
    if 0 <= dim <= len(shape.head):
        return Shape(shape.head[:dim] + (1,) + shape.head[dim:], shape.tail, False)
    return None


def _reshape(shape: Shape | None, sizes: list[ast.AST]) -> Shape | None:
    """``view``/``reshape`` to ``sizes``: the rank is the number of sizes; ``-1`` keeps the batch axis when every
    other axis is a literal one on both sides."""
    if len(sizes) == 1 and isinstance(sizes[0], (ast.Tuple, ast.List)):
        sizes = list(sizes[0].elts)
    if not sizes or any(isinstance(s, ast.Starred) for s in sizes):
        return None
    values = [_int(s) for s in sizes]
    out = []
    for v in values:
        out.append(v if v is not None and v >= 0 else None)
    if values.count(-1) == 1 and shape is not None and shape.exact:
        rest = [a for a in shape.head if a != 1]
        if rest == [BATCH] and all(v == 1 for v in values if v != -1):
            out[values.index(-1)] = BATCH
    return Shape(tuple(out))


def broadcast(a: Shape, b: Shape) -> Shape | None:
    """The shape of an elementwise operation between exact shapes ``a`` and ``b`` (None when unknown)."""
    if not (a.exact and b.exact):
        if a == SCALAR:
            return b
        if b == SCALAR:
            return a
        return None
    rank = max(len(a.head), len(b.head))
    pa = (1,) * (rank - len(a.head)) + a.head
    pb = (1,) * (rank - len(b.head)) + b.head
    out = []
    for x, y in zip(pa, pb):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        else:
            return None
    return Shape(tuple(out))


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


def _reaching(ctx: FileContext, name: ast.Name) -> tuple[ast.AST, ast.expr | None] | None:
    """``(statement, value)`` of the binding that certainly reaches ``name``: the last one before it, not inside a
    branch, loop, ``try`` or ``with`` block that does not also hold the use."""
    scope = ctx.enclosing_function(name) or ctx.tree
    best = None
    for line, stmt, val in vo.bindings(ctx, scope).get(name.id, []):
        if line < name.lineno or (line == name.lineno and val is not None and val.col_offset > name.col_offset):
            best = (stmt, val)
    if best is None:
        return None
    use_blocks = set(map(id, ctx.ancestors(name)))
    for anc in ctx.ancestors(best[0]):
        if anc is scope:
            break
        if isinstance(anc, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)) \
                and id(anc) not in use_blocks:
            return None
    if isinstance(best[0], (ast.For, ast.AsyncFor)) and id(best[0]) not in use_blocks:
        return None
    return best


_IN_PLACE_RESHAPES = frozenset({"unsqueeze_", "squeeze_", "resize_", "resize", "t_", "transpose_", "swapaxes_",
                                 "swapdims_", "as_strided_", "resize_as_", "set_"})


def _reshaped_in_place(ctx: FileContext, scope: ast.AST) -> set[str]:
    """Names (``y``, ``self.y``) whose shape a statement of ``scope`` changes in place: ``y.unsqueeze_(1)``,
    ``arr.resize(...)``, ``arr.shape = (-1, 1)``. Their bound values do not tell their shape."""
    cache = ctx.__dict__.setdefault("_tensor_shapes_in_place", {})
    key = id(scope)
    if key not in cache:
        names = set()
        for node in ctx.subtree(scope):
            target = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE_RESHAPES:
                target = node.func.value
            elif isinstance(node, (ast.Assign, ast.AugAssign)):
                for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    if isinstance(t, ast.Attribute) and t.attr == "shape":
                        target = t.value
            text = dotted(target) if target is not None else None
            if text is not None:
                names.add(text)
        cache[key] = names
    return cache[key]


def _name(ctx: FileContext, name: ast.Name, env: _Env | None, depth: int) -> object:
    func = ctx.enclosing_function(name)
    if name.id in _reshaped_in_place(ctx, ctx.tree):  # anywhere in the file: a name is not followed by scope here
        return None
    if env is not None and func is env.func and name.id in env.params and vo.is_parameter(ctx, name):
        return env.params[name.id]
    field = tv.loader_field(ctx, name)
    if field is not None:
        return _batch_field(ctx, field[0] if field[0] is not None else _step_loader(ctx, name), field[1], depth)
    reaching = _reaching(ctx, name)
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
    path = _path_to(stmt.targets[0], name.id)
    if path is None:
        return None
    found = _value(ctx, stmt.value, env, depth + 1)
    for index in path:
        if not isinstance(found, tuple) or index >= len(found):
            return None
        found = found[index]
    return found


def _path_to(target: ast.AST, name: str) -> list[int] | None:
    if isinstance(target, ast.Name):
        return [] if target.id == name else None
    if isinstance(target, (ast.Tuple, ast.List)):
        if any(isinstance(e, ast.Starred) for e in target.elts):
            return None
        for i, elt in enumerate(target.elts):
            inner = _path_to(elt, name)
            if inner is not None:
                return [i, *inner]
    return None


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
        if cls is None or f"self.{expr.attr}" in _reshaped_in_place(ctx, cls):
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
            return _batch_field(ctx, source if source is not None else _step_loader(ctx, owner), key, depth)
        return None
    inner = _value(ctx, owner, env, depth + 1)
    key = expr.slice
    names = isinstance(key, ast.Constant) and isinstance(key.value, str) or isinstance(key, ast.List)
    if names and tv.array_kind(ctx, owner) == tv.PANDAS:
        # columns of a frame known to be one (2-D): ``df["y"]`` is a Series, ``df[["a", "b"]]`` a frame
        if not (isinstance(inner, Shape) and inner.rank == 2):
            return None
        if isinstance(key, ast.Constant):
            return _exact(None)
        if all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in key.elts):  # type: ignore[attr-defined]
            return _exact(None, len(key.elts))  # type: ignore[attr-defined]
        return None
    if isinstance(inner, tuple):
        index = _int(expr.slice)
        return inner[index] if index is not None and -len(inner) <= index < len(inner) else None
    if not isinstance(inner, Shape):
        return None
    items = list(expr.slice.elts) if isinstance(expr.slice, ast.Tuple) else [expr.slice]
    return _index(ctx, inner, items)


def _index(ctx: FileContext, shape: Shape, items: list[ast.AST]) -> Shape | None:
    """``shape`` indexed by ``items``: ints drop an axis, slices keep it, None adds one, ``...`` fills the rest."""
    kinds = []
    for item in items:
        if isinstance(item, ast.Slice):
            kinds.append("keep" if item.lower is None and item.upper is None and item.step is None else "part")
        elif isinstance(item, ast.Constant) and item.value is None:
            kinds.append("new")
        elif isinstance(item, ast.Constant) and item.value is Ellipsis:
            kinds.append("rest")
        elif _int(item) is not None or _is_item_index(ctx, item):
            kinds.append("drop")
        else:
            return None
    if kinds.count("rest") > 1:
        return None
    if "rest" in kinds:
        at = kinds.index("rest")
        before, after = kinds[:at], kinds[at + 1:]
    else:
        before, after = kinds, []
    if not shape.exact:
        if after or any(k == "drop" for k in before) and len([k for k in before if k != "new"]) > len(shape.head):
            if before == [] and after == ["drop"] and shape.tail:
                return Shape(shape.head, shape.tail[:-1], False)
            return None
        head = _apply(list(shape.head), before)
        return Shape(tuple(head), shape.tail, False) if head is not None else None
    used = len([k for k in before + after if k != "new"])
    if used > len(shape.head):
        return None
    axes = list(shape.head)
    if "rest" in kinds:
        middle = axes[len([k for k in before if k != "new"]): len(axes) - len([k for k in after if k != "new"])]
        head = _apply(axes[: len([k for k in before if k != "new"])], before)
        tail_axes = axes[len(axes) - len([k for k in after if k != "new"]):]
        tail = _apply(tail_axes, after)
        if head is None or tail is None:
            return None
        return Shape(tuple(head + middle + tail))
    n = len([k for k in before if k != "new"])
    head = _apply(axes[:n], before)
    return Shape(tuple(head + axes[n:])) if head is not None else None


def _apply(axes: list, kinds: list[str]) -> list | None:
    out = []
    i = 0
    for kind in kinds:
        if kind == "new":
            out.append(1)
            continue
        if i >= len(axes):
            return None
        if kind in ("keep", "part"):
            out.append(axes[i] if kind == "keep" else None)  # a part of an axis: its size is not known
        i += 1
    return out + axes[i:]


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


def _dim_arg(call: ast.Call, position: int) -> object:
    node = keyword(call, "dim") or keyword(call, "axis")
    if node is None and len(call.args) > position:
        node = call.args[position]
    return "absent" if node is None else _int(node)


def _call(ctx: FileContext, call: ast.Call, env: _Env | None, depth: int) -> object:
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual in ("float", "int") and len(call.args) == 1:
        return SCALAR
    if qual in _SIZED:
        return _sized(call)
    if qual in _FRAME_READERS:
        return _exact(None, None)
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
            if found is not None or method in _SHAPE_METHODS:
                return found
    return _module_call(ctx, call, env, depth)


_SHAPE_METHODS = frozenset({"squeeze", "unsqueeze", "view", "reshape", "flatten", "view_as", "reshape_as",
                            "expand_as", "transpose", "permute", "t"} | _REDUCTIONS)


def _sized(call: ast.Call) -> Shape | None:
    args = call.args
    if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
        args = list(args[0].elts)
    if not args or any(isinstance(a, ast.Starred) for a in args):
        return None
    if len(args) == 1 and isinstance(args[0], ast.Call) and call_method(args[0]) in ("size",) or \
            len(args) == 1 and isinstance(args[0], ast.Attribute) and args[0].attr == "shape":
        return None  # torch.zeros(x.shape): a size object, its rank unknown here
    sizes = [_int(a) for a in args]
    return Shape(tuple(s if s is not None and s >= 0 else None for s in sizes))


def _shape_method(ctx: FileContext, method: str, receiver: ast.AST, call: ast.Call, args: list, env: _Env | None,
                  depth: int) -> Shape | None:
    if method not in _SHAPE_METHODS:
        return None
    if method in ("view_as", "reshape_as", "expand_as"):
        return _shape(ctx, args[0], env, depth) if len(args) == 1 else None
    if method in ("view", "reshape"):
        if any(kw.arg == "dtype" for kw in call.keywords) or len(args) == 1 and isinstance(args[0], ast.Attribute) \
                and args[0].attr in ("dtype", "shape") or len(args) == 1 and isinstance(args[0], ast.Name):
            return None
        return _reshape(_shape(ctx, receiver, env, depth), args)
    shape = _shape(ctx, receiver, env, depth)
    if shape is None:
        return None
    if method == "flatten":
        start = _int(args[0]) if args else (_int(keyword(call, "start_dim")) if keyword(call, "start_dim") else 0)
        if len(args) > 1 or keyword(call, "end_dim") is not None or start is None:
            return None
        if start == 0:
            return _reshape(shape, [ast.Constant(-1)])
        if shape.exact and 0 < start < len(shape.head):
            return Shape(shape.head[:start] + (None,))
        if not shape.exact and 0 < start <= len(shape.head):
            return Shape(shape.head[:start] + (None,))
        return None
    if method == "squeeze":
        dim = _dim_arg(call, 0)
        if dim == "absent":
            return _squeeze(shape, None)
        return _squeeze(shape, [dim]) if isinstance(dim, int) else None
    if method == "unsqueeze":
        dim = _dim_arg(call, 0)
        return _unsqueeze(shape, dim) if isinstance(dim, int) else None
    if method in ("transpose", "permute", "t"):
        if not shape.exact:
            return None
        if method == "t":
            return Shape(tuple(reversed(shape.head))) if len(shape.head) <= 2 else None
        dims = [_int(a) for a in args]
        if method == "transpose" and len(dims) == 2 and None not in dims:
            a, b = (_axis(shape, d) for d in dims)  # type: ignore[arg-type]
            if a is None or b is None:
                return None
            axes = list(shape.head)
            axes[a], axes[b] = axes[b], axes[a]
            return Shape(tuple(axes))
        if method == "permute":
            if len(args) == 1 and isinstance(args[0], (ast.Tuple, ast.List)):
                dims = [_int(a) for a in args[0].elts]
            if len(dims) != len(shape.head) or None in dims:
                return None
            order = [_axis(shape, d) for d in dims]  # type: ignore[arg-type]
            if None in order or len(set(order)) != len(order):
                return None
            return Shape(tuple(shape.head[i] for i in order))  # type: ignore[index]
        return None
    if method in _REDUCTIONS:
        dim = _dim_arg(call, 0)
        keep = constant(keyword(call, "keepdim")) is True or constant(keyword(call, "keepdims")) is True
        if dim == "absent":
            return None if keep else SCALAR
        if not isinstance(dim, int) or not shape.exact or len(call.args) > 1:
            return None
        pos = _axis(shape, dim)
        if pos is None:
            return None
        axes = list(shape.head)
        if keep:
            axes[pos] = 1
        else:
            del axes[pos]
        return Shape(tuple(axes))
    return None


# -- layers and models -----------------------------------------------------------------------------


def _constructions(ctx: FileContext, func: ast.AST, depth: int = 0) -> list[tuple[FileContext, ast.Call]] | None:
    """Every construction the callee ``func`` may be (``self.fc``, a local name, a model variable), or None."""
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    values = tv.layer_bindings(ctx, func)
    if not values and isinstance(func, ast.Name):
        bound = vo.value(ctx, func)
        if bound is not None and bound is not func:
            values = [bound]
    if not values and isinstance(func, ast.Name) and vo.is_parameter(ctx, func) and depth < 3:
        where = ctx.enclosing_function(func)
        sites = vo.all_call_sites(ctx, where) if where is not None else []
        found: list[tuple[FileContext, ast.Call]] = []
        for sctx, site in sites[:6]:
            arg = vo.argument_for(site, where, func.id)
            inner = vo.unwrap_module(sctx, arg) if isinstance(arg, ast.Call) else arg
            more = [(sctx, inner)] if isinstance(inner, ast.Call) else (
                _constructions(sctx, arg, depth + 1) if isinstance(arg, (ast.Name, ast.Attribute)) else None)
            if not more:
                return None
            found.extend(more)
        return found if found and len(sites) <= 6 else None
    if not values:
        return None
    out = []
    for v in values:
        inner = vo.unwrap_module(ctx, v)
        if not isinstance(inner, ast.Call):
            return None
        out.append((ctx, inner))
    return out


def called_layer(ctx: FileContext, call: ast.Call) -> tuple[str, FileContext, ast.Call] | None:
    """``(class name, file, construction)`` when ``call`` runs a built-in ``torch.nn`` layer (``self.bn(x)``,
    ``norm(x)``) and every binding of the callee builds that same class; None otherwise."""
    cons = _constructions(ctx, call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
    if not cons:
        return None
    names = {tv.layer_class(mctx, c) for mctx, c in cons}
    if len(names) != 1 or None in names:
        return None
    return names.pop(), cons[-1][0], cons[-1][1]  # type: ignore[return-value]


_REORDERING = frozenset({"transpose", "permute", "movedim", "moveaxis", "swapaxes", "swapdims", "t", "T", "mT",
                         "rearrange", "einsum"})


def feeds_batch_first_rnn(ctx: FileContext, call: ast.Call) -> ast.Call | None:
    """The call of an RNN built with ``batch_first=True`` that reads the result of ``call`` as its input, directly
    (``self.lstm(self.bn(x))``) or through a name whose next use it is (``x = self.bn(x)`` then ``self.lstm(x)``).
    Such a consumer declares the layout: the result is ``(N, L, C)``. None when anything else reads it first."""
    parent = ctx.parent(call)
    consumer = None
    if isinstance(parent, ast.Call) and parent.args[:1] == [call]:
        consumer = parent
    elif isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        name = parent.targets[0].id
        func = ctx.enclosing_function(call)
        later = sorted((n for n in ctx.walk_scope(func or ctx.tree)
                        if isinstance(n, ast.Name) and n.id == name and n.lineno > (parent.end_lineno or parent.lineno)),
                       key=lambda n: (n.lineno, n.col_offset))
        if later and isinstance(later[0].ctx, ast.Load):
            use = ctx.parent(later[0])
            consumer = use if isinstance(use, ast.Call) and use.args[:1] == [later[0]] else None
    if consumer is None:
        return None
    layer = called_layer(ctx, consumer)
    if layer is None or layer[0] not in _RNNS:
        return None
    first = keyword(layer[2], "batch_first")
    return consumer if first is not None and constant(first) is True else None


def reorders_axes(ctx: FileContext, expr: ast.AST) -> bool:
    """``expr`` transposes, permutes or rearranges axes somewhere (``x.transpose(1, 2)``, ``x.T``, ``einsum``)."""
    for node in ctx.subtree(expr):
        if isinstance(node, ast.Attribute) and node.attr in _REORDERING:
            return True
        if isinstance(node, ast.Name) and node.id in _REORDERING:
            return True
    return False


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
    cons = _constructions(ctx, func)
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
        return _layer_output(mctx, layer, construction, _shape(ctx, call.args[0], env, depth)) \
            if len(call.args) == 1 or layer in _RNNS else None
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
        if layer is None or layer in _RNNS or layer == "Sequential":
            return None
        out = _layer_output(mctx, layer, layer_node, shape)
        shape = out if isinstance(out, Shape) else None
    return shape


def _layer_output(ctx: FileContext, layer: str, construction: ast.Call, shape: Shape | None) -> object:
    """What a built-in layer returns for an input of ``shape``."""
    if shape is None:
        return None
    if layer in _KEEP_LAYERS:
        return shape
    if layer in ("Linear", "LazyLinear"):
        node = argument(construction, 1 if layer == "Linear" else 0, "out_features")
        size = _int(node)
        out = size if size is not None and size > 0 else None
        if shape.exact:
            return Shape(shape.head[:-1] + (out,)) if shape.head else None
        if not shape.tail and len(shape.head) < 1:
            return None
        return Shape(shape.head, shape.tail[:-1] + (out,) if shape.tail else (out,), False)
    if layer == "Embedding":
        size = _int(argument(construction, 1, "embedding_dim"))
        if shape.exact:
            return Shape(shape.head + (size,))
        return Shape(shape.head, shape.tail + (size,), False)
    if layer == "Flatten":
        if construction.args or construction.keywords or not shape.head or shape.head[0] != BATCH:
            return None
        return Shape((BATCH, None))
    if layer in _RNNS:
        return _rnn_output(layer, construction, shape)
    if layer in _SPATIAL:
        return _spatial_output(layer, _SPATIAL[layer], construction, shape)
    return None


def _spatial_output(layer: str, k: int, construction: ast.Call, shape: Shape) -> Shape | None:
    """A batched ``(N, C, *spatial)`` input of rank ``k + 2`` and what the layer makes of it."""
    if shape.head[:1] != (BATCH,) or shape.exact and len(shape.head) != k + 2 or not shape.exact and (
            len(shape.head) + len(shape.tail) > k + 2 or shape.tail):
        return None
    channels = shape.head[1] if len(shape.head) > 1 else None
    if layer.startswith(("Conv", "ConvTranspose")):
        channels = _int(argument(construction, 1, "out_channels"))
    spatial: tuple = (None,) * k
    if layer.startswith("Adaptive"):
        size = argument(construction, 0, "output_size")
        sizes = [_int(e) for e in size.elts] if isinstance(size, ast.Tuple) else [_int(size)] * k
        spatial = tuple(s if s is not None and s > 0 else None for s in sizes) if len(sizes) == k else spatial
    return Shape((BATCH, channels) + spatial)


def _rnn_output(layer: str, construction: ast.Call, shape: Shape) -> object:
    """``(output, states)`` of an ``nn.LSTM``/``GRU``/``RNN`` for an input of ``shape`` (batched inputs only)."""
    if any(kw.arg is None for kw in construction.keywords):
        return None
    batch_first = keyword(construction, "batch_first")
    first = constant(batch_first) if batch_first is not None else False
    if not isinstance(first, bool):
        return None
    hidden = _int(argument(construction, 1, "hidden_size"))
    bidir_node = argument(construction, 6, "bidirectional")
    bidir = constant(bidir_node) if bidir_node is not None else False
    layers = _int(argument(construction, 2, "num_layers")) if argument(construction, 2, "num_layers") is not None else 1
    if not isinstance(bidir, bool):
        width = None
        directions = None
    else:
        directions = 2 if bidir else 1
        width = hidden * directions if hidden is not None else None
    if shape.exact:
        if len(shape.head) != 3:
            return None
        a, b = shape.head[0], shape.head[1]
        batch = a if first else b
        output = Shape((a, b, width))
    elif first and shape.head[:1] == (BATCH,):
        batch = BATCH
        output = Shape((BATCH, shape.head[1] if len(shape.head) > 1 else None, width))
    else:
        return None
    stacked = layers * directions if layers is not None and directions is not None else None
    state = Shape((stacked, batch, hidden))
    return output, ((state, state) if layer == "LSTM" else state)


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
    loader = _loader_call(ctx, iterated)
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


def _loader_call(ctx: FileContext, iterated: ast.AST | None, depth: int = 0) -> tuple[FileContext, ast.Call] | ast.Name | None:
    """The ``DataLoader(...)`` construction a loop iterates, the parameter it comes in through, or None."""
    expr = iterated
    for _ in range(4):
        if isinstance(expr, ast.Call) and (dotted(expr.func) or "") in ("enumerate", "iter", "tqdm", "tqdm.tqdm") \
                and expr.args:
            expr = expr.args[0]
            continue
        if isinstance(expr, ast.Call) and (ctx.qualname(expr) or "").endswith("tqdm") and expr.args:
            expr = expr.args[0]
            continue
        break
    if expr is None:
        return None
    if isinstance(expr, ast.Name) and vo.is_parameter(ctx, expr):
        return expr if depth == 0 else None
    index = None
    if isinstance(expr, ast.Name):
        unpacked = vo.unpacking_call(ctx, expr)
        bound: ast.AST | None = unpacked[0].value if unpacked is not None else vo.value(ctx, expr)
        index = unpacked[1] if unpacked is not None else None
    else:
        bound = ctx.resolve(expr)
    if not isinstance(bound, ast.Call):
        return None
    if index is None and (vo.normalize(ctx.qualname(bound)) or "").endswith("DataLoader"):
        return ctx, bound
    return _helper_loader(ctx, bound, index, depth)


def _helper_loader(ctx: FileContext, call: ast.Call, index: int | None, depth: int) -> tuple[FileContext, ast.Call] | None:
    """``make_loaders()`` / ``tr, va = make_loaders()``: the ``DataLoader(...)`` a helper of the file or the project
    returns (element ``index`` of the tuple it returns), when it has one ``return``."""
    if depth > 2:
        return None
    found = vo.helper_definition(ctx, call)
    if found is None:
        return None
    hctx, helper = found
    returns = vo.returns(helper)
    if len(returns) != 1:
        return None
    value = returns[0]
    if index is not None:
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts) \
                or index >= len(value.elts):
            return None
        value = value.elts[index]
    inner = _loader_call(hctx, value, depth + 1)
    return inner if isinstance(inner, tuple) else None


_STEP_LOADERS = {"training_step": "train_dataloader", "validation_step": "val_dataloader",
                 "test_step": "test_dataloader", "predict_step": "predict_dataloader"}


def _step_loader(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """A Lightning step's loader: the ``DataLoader(...)`` that every return of the same class's matching
    ``*_dataloader`` method builds (``training_step`` -> ``train_dataloader``), else None."""
    func = ctx.enclosing_function(node)
    cls = ctx.enclosing_class(func) if func is not None else None
    method = _STEP_LOADERS.get(getattr(func, "name", ""))
    if cls is None or method is None:
        return None
    hit = ctx.method(cls, method)
    returns = vo.returns(hit) if hit is not None else []
    if len(returns) != 1 or not isinstance(returns[0], ast.Call):
        return None
    return returns[0]


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
        element = _element(returned, key)
        if isinstance(element, (ast.List, ast.Dict, ast.Tuple, ast.Constant)) and not (
                isinstance(element, ast.Constant) and isinstance(element.value, (int, float))):
            return _NOT_A_TENSOR  # default_collate turns a list in a sample into a list of batched tensors
        if element is None:
            return None
        answers.add(_shape(dctx, element, None, depth))
    if len(answers) != 1:
        return None
    return answers.pop()


def _element(returned: ast.AST, key: object) -> ast.AST | None:
    if isinstance(returned, ast.Tuple) and isinstance(key, int) and not any(isinstance(e, ast.Starred) for e in returned.elts):
        return returned.elts[key] if -len(returned.elts) <= key < len(returned.elts) else None
    if isinstance(returned, ast.Dict) and isinstance(key, str):
        for k, v in zip(returned.keys, returned.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
    return None
