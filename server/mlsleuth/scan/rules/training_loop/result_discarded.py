"""The ``result-discarded`` rule: an out-of-place operation used as a statement, its result thrown away."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import module_receivers, module_values, pure_functions, pure_operations, tensor_values
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword
from mlsleuth.scan.analysis.tensor_values import NUMPY, PANDAS, TORCH
from mlsleuth.scan.registry import Rule, register_rule

# What each out-of-place method was meant to do to its receiver (the phrase says what stays as it was).
_DEVICE = "device"
_DTYPE = "dtype"
_SHAPE = "shape"
_GRAPH = "graph"
_CLAMP = "clamp"
_FILL = "fill"
_VALUES = "values"

_TORCH_METHOD_EFFECT = {
    **dict.fromkeys(("to", "cuda", "cpu"), _DEVICE),
    **dict.fromkeys(("float", "double", "half", "bfloat16", "long", "int", "short", "bool", "byte", "type_as"), _DTYPE),
    **dict.fromkeys(("view", "view_as", "reshape", "reshape_as", "unsqueeze", "squeeze", "flatten", "unflatten",
                     "permute", "transpose", "t", "contiguous", "expand", "expand_as", "repeat", "movedim",
                     "swapaxes", "flip", "roll"), _SHAPE),
    "detach": _GRAPH,
    **dict.fromkeys(("clamp", "clip", "clamp_min", "clamp_max"), _CLAMP),
    **dict.fromkeys(("masked_fill", "masked_scatter", "index_fill", "index_add", "index_copy", "scatter",
                     "scatter_add", "index_put"), _FILL),
    **dict.fromkeys(("add", "sub", "mul", "div", "pow", "neg", "abs", "exp", "log", "log1p", "sqrt", "sigmoid",
                     "tanh", "relu", "softmax", "log_softmax", "round", "floor", "ceil", "nan_to_num", "lerp",
                     "addcmul", "addcdiv", "square", "reciprocal", "tril", "triu", "fmod", "remainder",
                     "true_divide", "floor_divide"), _VALUES),
}
# Method names that are out of place on every common type that has them (torch tensors, NumPy arrays,
# pandas frames, PIL images): reported even when the receiver's origin is unknown, in a file that uses
# torch or NumPy, on a receiver not known to be a module, when no class of the file defines them.
_PURE_BY_NAME = frozenset({
    "unsqueeze", "squeeze", "reshape", "transpose", "permute", "flatten", "masked_fill", "masked_scatter",
    "index_fill", "contiguous", "clamp", "clamp_min", "clamp_max", "view_as", "expand_as", "type_as", "log_softmax",
    "detach", "astype",
})
_NUMPY_METHOD_EFFECT = {
    "astype": _DTYPE, **dict.fromkeys(("reshape", "transpose", "squeeze", "flatten", "ravel", "swapaxes"), _SHAPE),
    "clip": _CLAMP, "round": _VALUES,
}
_PANDAS_METHOD_EFFECT = {
    "drop": "still has the rows or columns the line drops",
    "dropna": "still has its missing values",
    "fillna": "still has its missing values",
    "interpolate": "still has its missing values",
    "ffill": "still has its missing values",
    "bfill": "still has its missing values",
    "rename": "keeps its old labels",
    "reset_index": "keeps its old index",
    "set_index": "keeps its old index",
    "replace": "keeps the values the line replaces",
    "sort_values": "keeps its old order",
    "sort_index": "keeps its old order",
    "drop_duplicates": "still has its duplicate rows",
    "astype": "keeps its old dtypes",
    "clip": "keeps its unclipped values",
    "where": "keeps the values the line masks",
    "mask": "keeps the values the line masks",
    "round": "keeps its unrounded values",
    "reindex": "keeps its old index",
    "query": "still has the rows the query filters out",
}

# Functions whose only effect is the value they return (their in-place forms take ``inplace=`` or ``out=``).
_TORCH_FUNCTIONS = frozenset({
    "clamp", "clip", "sigmoid", "tanh", "relu", "exp", "log", "abs", "sqrt", "softmax", "log_softmax", "unsqueeze",
    "squeeze", "transpose", "reshape", "flatten", "permute", "masked_fill", "where", "nan_to_num", "round", "floor",
    "add", "mul", "sub", "div", "pow", "detach", "cat", "stack",
})
_FUNCTIONAL = frozenset({
    "relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "sigmoid", "tanh",
    "hardtanh", "hardswish", "hardsigmoid", "logsigmoid", "softmax", "log_softmax", "normalize", "dropout",
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "layer_norm", "group_norm",
    "pad", "interpolate", "linear", "conv1d", "conv2d", "conv3d", "max_pool1d", "max_pool2d", "max_pool3d",
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
    "embedding", "one_hot", "glu", "threshold", "rrelu",
})
_INPLACE_POSITION = pure_operations.INPLACE_POSITION
# NumPy functions and how many positional arguments they take before ``out``.
_NUMPY_FUNCTIONS = {
    "clip": 3, "reshape": 2, "squeeze": 2, "expand_dims": 2, "transpose": 2, "abs": 1, "exp": 1, "log": 1,
    "sqrt": 1, "round": 2, "nan_to_num": 1, "maximum": 2, "minimum": 2,
}

_DROPOUT_LAYERS = frozenset({"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"})
_ACTIVATION_LAYERS = frozenset({
    "ReLU", "ReLU6", "LeakyReLU", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU", "Tanh", "Sigmoid", "Hardswish",
    "Hardsigmoid", "Hardtanh", "Softplus", "Softsign", "Softmax", "LogSoftmax", "Softmin", "GLU", "LogSigmoid",
    "PReLU", "Threshold", "RReLU",
})
_PURE_LAYERS = _DROPOUT_LAYERS | _ACTIVATION_LAYERS | frozenset({
    "Linear", "LazyLinear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
    "ConvTranspose3d", "Embedding", "Flatten", "Unflatten", "LayerNorm", "GroupNorm", "RMSNorm", "MaxPool1d",
    "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample",
    "PixelShuffle", "PixelUnshuffle",
})
_LAYER_INPLACE_POSITION = pure_operations.LAYER_INPLACE_POSITION

_HOOKS = ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
          "register_backward_hook", "register_full_backward_pre_hook")
# with-blocks whose body expects the statement to raise or warn, or measures it
_EXPECTING = ("raises", "warns", "assertRaises", "assertRaisesRegex", "assertWarns", "assertWarnsRegex",
              "catch_warnings", "profile", "record_function", "deprecated_call", "assert_raises")
_BENCH_WORDS = {"bench", "benchmark", "warmup", "warm", "profile", "profiling", "timing", "timeit", "speed",
                "throughput", "latency", "perf"}


def _root(expr: ast.AST) -> ast.AST | None:
    """The value a receiver chain starts from: ``x`` in ``x.float().to(d)``, ``batch["x"]``, ``self.mask``."""
    while isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
        expr = expr.func.value
    if isinstance(expr, ast.Subscript) and isinstance(expr.value, (ast.Name, ast.Attribute)):
        return expr if _root(expr.value) is not None else None
    if isinstance(expr, ast.Name) and expr.id != "self":
        return expr
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, (ast.Name, ast.Attribute)):
        head = expr
        while isinstance(head, ast.Attribute):
            head = head.value
        return expr if isinstance(head, ast.Name) else None
    return None


def _flag_false(call: ast.Call, name: str, position: int | None) -> bool:
    """The call leaves ``name`` (``inplace``, ``copy``...) at False: absent, or a constant False."""
    given = keyword(call, name)
    if given is None and position is not None and len(call.args) > position:
        given = call.args[position]
    if given is None:
        return True
    return constant(given) is False


def _has_starred(call: ast.Call) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


class _Hit:
    __slots__ = ("call", "value", "kind", "effect", "what", "callee")

    def __init__(self, call: ast.Call, value: ast.AST, kind: str, effect: str, what: str,
                 callee: pure_functions.PureCallee | None = None) -> None:
        self.call, self.value, self.kind, self.effect, self.what = call, value, kind, effect, what
        self.callee = callee


@register_rule
class ResultDiscarded(Rule):
    """An out-of-place operation used as a statement: its result is thrown away and nothing changes.

    What it finds: a statement that is only a call whose one effect is the value it returns, so the line
    reads as if it transformed a value while leaving it exactly as it was: `images.to(device)`,
    `x.float()`, `mask.bool()` or `hidden.detach()` on a tensor; `x.clamp(0, 1)`, `x.unsqueeze(0)`,
    `t.masked_fill(mask, 0)`, `w.mul(scale)` and other out-of-place tensor methods; NumPy
    `arr.astype(...)` / `arr.reshape(...)`; pandas `df.drop(columns=...)`, `df.fillna(0)`,
    `df.rename(...)` without `inplace=True`; functions such as `torch.clamp(x, ...)`, `torch.sigmoid(x)`,
    `F.relu(x)`, `F.normalize(x)`, `F.dropout(x, p, training)` (not with `inplace=True` or `out=`); and,
    inside a model, a call of a stateless layer whose output is dropped: `self.dropout(x)`, `self.act(h)`,
    `self.proj(x)` where the attribute was built from `nn.Dropout`, an activation, `nn.Linear`, a
    convolution, `nn.Embedding`, `nn.Flatten`, pooling or `LayerNorm` (not with `inplace=True`), an
    `nn.Sequential` of such layers, or `layer(x)` in a loop over an `nn.ModuleList` of them. The
    receiver must be known to be a tensor, an array or a frame (a field of a loader's batch, a torch,
    NumPy or pandas constructor, a tensor operation, a model's output, a part of `train_test_split`, a
    parameter annotated `Tensor` or filled with tensors by every caller in the project, a registered
    buffer); method names that are out of place on every common type that has them (`unsqueeze`,
    `squeeze`, `reshape`, `transpose`, `detach`, `masked_fill`, `clamp`, `astype`...) are enough on their
    own in a file that uses torch or NumPy, unless the receiver is an instance of a project class or a
    class of the file defines that method. Project code counts too when the scan can show it only
    computes its result: `helper(x)`, `self.encode(x)`, `scaler.transform(x)` or `self.block(x)` whose
    function, method or module `forward` (followed into other files) changes no argument, attribute or
    global, calls only pure operations and returns a value computed from its inputs. So does a list,
    set or dict comprehension used as a statement whose element is such a call on the loop variable
    (`[t.to(device) for t in batch]`, `{k: v.float() for k, v in batch.items()}` over a loader's batch).
    The dropped value must be read again afterwards, so the line
    changes what follows. Left alone: `.to`/`.cuda`/`.float`/`.half`
    on anything that is or may be an `nn.Module` (those work in place), whole-model calls such as
    `model(x)` (BatchNorm recalibration, warm-up), BatchNorm layers (they update running statistics),
    project code that logs, stores an attribute, updates a buffer or list it was given, asserts or
    raises, or calls anything the scan cannot resolve, modules whose project registers forward hooks,
    files that register hooks, trailing-underscore in-place methods, statements inside `try` blocks
    (capability probes), under `pytest.raises`/`assertRaises`/`warnings.catch_warnings`/profilers, in test
    functions, in benchmark and warm-up loops, and, in notebooks, bare module-level expressions other
    than a tensor's device and dtype moves (the last line of a cell displays its value).
    Why it matters: tensors, arrays and frames are values: these operations return a new object and
    leave the original untouched. The training code runs on without any error: the batch stays on the
    CPU (or the model's inputs keep their old dtype), the clamp or mask never applies, dropout or an
    activation is silently skipped (the model trains as a different, smaller-capacity architecture
    than written), a recurrent state keeps its graph, a column meant to be dropped leaks into the
    features. Public reports of this mechanism: https://github.com/huggingface/accelerate/issues/2251
    (timestep and weight tensors moved with a bare `.to(batch.device)` stayed on the CPU in a diffusion
    training loop; the maintainer's answer was that `.to` is not in place);
    https://github.com/pytorch/pytorch/issues/14068 (a tensor's device cannot be changed in place: `.to`
    hands back a new tensor); https://github.com/intel/intel-extension-for-pytorch/pull/267 (a README
    sample fixed because its bare `.to()` left the tensor where it was);
    https://runebook.dev/en/docs/pytorch/generated/torch.clamp (calling `torch.clamp` without assigning
    the result leaves the tensor unclamped, listed as the common pitfall); https://pythonkb.com/?p=34882
    (pandas `where` returns a new frame; the original keeps its values until the result is assigned).
    The category is training-loop because the lost operation is a step of the training computation
    itself (moving and preparing the batch, the model's forward), whatever domain the code is in.
    How to confirm: print the value on the line after (`print(x.device, x.dtype, x.shape)`,
    `x.max()` after a clamp, `df.columns` after a drop): it is unchanged. For a dropped layer call,
    compare the model's output with and without the line: identical.
    What to do instead: assign the result (`x = x.to(device)`, `h = self.dropout(h)`,
    `df = df.drop(columns=[...])`), or use the in-place form where one exists (`x.clamp_(0, 1)`,
    `hidden.detach_()`, `F.relu(x, inplace=True)`, `df.fillna(0, inplace=True)`).
    """

    id = "result-discarded"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("torch", "numpy", "pandas", "Tensor", "loader", "Loader", "_step")

    def check(self, ctx: FileContext):
        notebook = ctx.display_path.endswith(".ipynb")
        for stmt in ctx.nodes_of(ast.Expr):
            call = stmt.value
            if isinstance(call, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                hit = self._comprehension_hit(ctx, call)
            elif not isinstance(call, ast.Call) or _has_starred(call):
                continue
            else:
                hit = self._classify(ctx, call)
            if hit is None:
                continue
            if notebook and ctx.enclosing_function(stmt) is None and (hit.kind != TORCH or hit.effect not in (_DEVICE, _DTYPE)):
                continue  # the last expression of a cell is displayed: a preview, not a lost update
            if self._excused(ctx, stmt) or not self._read_later(ctx, stmt, hit.value):
                continue
            yield self.finding(
                ctx,
                call,
                self._message(ctx, hit),
                observation=ctx.segment(stmt, 120),
                next_test=f"Print {ctx.segment(hit.value, 40)} (its device, dtype, shape or values) on the next line: "
                "this statement did not change it.",
            )

    # -- what the call is ----------------------------------------------------------------

    def _classify(self, ctx: FileContext, call: ast.Call) -> _Hit | None:
        func = call.func
        qual = vo.normalize(ctx.qualname(call)) or ""
        head, _, last = qual.rpartition(".")
        if head == "torch" and last in _TORCH_FUNCTIONS:
            return self._function_hit(ctx, call, TORCH, last, _function_effect(last), keyword(call, "out") is None)
        if head == "torch.nn.functional" and last in _FUNCTIONAL:
            pure = _flag_false(call, "inplace", _INPLACE_POSITION.get(last))
            return self._function_hit(ctx, call, TORCH, last, _function_effect(last), pure)
        if head == "numpy" and last in _NUMPY_FUNCTIONS:
            copy = keyword(call, "copy")
            pure = keyword(call, "out") is None and len(call.args) <= _NUMPY_FUNCTIONS[last] \
                and (copy is None or constant(copy) is True)
            return self._function_hit(ctx, call, NUMPY, last, _function_effect(last), pure)
        if not isinstance(func, ast.Attribute):
            return self._layer_hit(ctx, call) or self._project_hit(ctx, call)
        receiver = func.value
        if isinstance(receiver, ast.Name) and (receiver.id in ctx.imports or receiver.id in ("self", "cls", "super")):
            return self._layer_hit(ctx, call) or self._project_hit(ctx, call)
        method = func.attr
        if method.endswith("_") or method.startswith("__"):
            return None
        if method in _TORCH_METHOD_EFFECT or method in _NUMPY_METHOD_EFFECT or method in _PANDAS_METHOD_EFFECT:
            return self._method_hit(ctx, call, receiver, method)
        return self._layer_hit(ctx, call) or self._project_hit(ctx, call)

    def _function_hit(self, ctx: FileContext, call: ast.Call, kind: str, name: str, effect: str, pure: bool) -> _Hit | None:
        if not pure or not call.args or keyword(call, "out") is not None:  # out=: writes into a given tensor
            return None
        first = call.args[0]
        if name in ("cat", "stack") and isinstance(first, (ast.List, ast.Tuple)) and first.elts:
            first = first.elts[0]
        value = _root(first)
        if value is None:
            return None
        return _Hit(call, value, kind, effect, ctx.segment(call, 60))

    def _method_hit(self, ctx: FileContext, call: ast.Call, receiver: ast.AST, method: str) -> _Hit | None:
        value = _root(receiver)
        if value is None:
            return None
        if module_values.is_module(ctx, receiver) or module_receivers.is_module_receiver(ctx, receiver) is True:
            return None  # nn.Module.to / .float / .cuda work in place
        kind = tensor_values.array_kind(ctx, receiver)
        if kind is None and _model_output(ctx, receiver):
            kind = TORCH
        if kind is None and method in _PURE_BY_NAME and not _defined_in_file(ctx, method) \
                and vo.root_name(value) not in ctx.imports and vo.instance_class(ctx, receiver) is None:
            if method == "astype" and ctx.imports_any("numpy", "pandas"):
                kind = NUMPY
            elif ctx.imports_any("torch"):
                kind = TORCH
            elif ctx.imports_any("numpy") and method in _NUMPY_METHOD_EFFECT:
                kind = NUMPY
        if kind == TORCH and method in _TORCH_METHOD_EFFECT:
            effect = _TORCH_METHOD_EFFECT[method]
            if method == "to" and effect == _DEVICE and _dtype_move(ctx, call):
                effect = _DTYPE
            if method in ("to", "cuda", "cpu") and keyword(call, "copy") is not None:
                return None
            return _Hit(call, value, kind, effect, ctx.segment(call, 60))
        if kind == NUMPY and method in _NUMPY_METHOD_EFFECT:
            if keyword(call, "out") is not None:
                return None
            return _Hit(call, value, kind, _NUMPY_METHOD_EFFECT[method], ctx.segment(call, 60))
        if kind == PANDAS and method in _PANDAS_METHOD_EFFECT:
            if keyword(call, "inplace") is not None and constant(keyword(call, "inplace")) is not False:
                return None
            return _Hit(call, value, kind, _PANDAS_METHOD_EFFECT[method], ctx.segment(call, 60))
        return None

    def _layer_hit(self, ctx: FileContext, call: ast.Call) -> _Hit | None:
        """``self.dropout(x)`` / ``act(h)`` with the callee bound only to stateless built-in layers."""
        values = tensor_values.layer_bindings(ctx, call.func)
        if not values and isinstance(call.func, ast.Name):
            values = tensor_values.loop_layers(ctx, call.func)  # for layer in self.layers: layer(x)
        if not values or not call.args:
            return None
        classes: set[str] = set()
        for v in values:
            leaves = _pure_layer_classes(ctx, v)
            if not leaves:
                return None
            classes |= leaves
        if _hooked(ctx):
            return None
        value = _root(call.args[0])
        if value is None:
            return None
        if classes <= _DROPOUT_LAYERS:
            effect = "dropout"
        elif classes <= _ACTIVATION_LAYERS:
            effect = "activation"
        else:
            effect = "layer"
        return _Hit(call, value, TORCH, effect, ctx.segment(call, 60))

    def _comprehension_hit(self, ctx: FileContext, comp: ast.AST) -> _Hit | None:
        """``[t.to(device) for t in batch]`` as a statement: every element is a pure call on the loop variable,
        so the statement builds a new collection, drops it, and ``batch`` stays as it was."""
        element = comp.value if isinstance(comp, ast.DictComp) else comp.elt  # type: ignore[attr-defined]
        generators = comp.generators  # type: ignore[attr-defined]
        if not isinstance(element, ast.Call) or _has_starred(element) or len(generators) != 1:
            return None
        loop = generators[0]
        source = _root(loop.iter)
        if source is None or isinstance(source, ast.Name) and source.id in ctx.imports:
            return None
        hit = self._classify(ctx, element)
        if hit is None and isinstance(element.func, ast.Attribute) and isinstance(element.func.value, ast.Name) \
                and element.func.attr in _TORCH_METHOD_EFFECT \
                and tensor_values.element_kind(ctx, loop.iter, loop.target, element.func.value.id) == TORCH:
            effect = _TORCH_METHOD_EFFECT[element.func.attr]
            if element.func.attr == "to" and _dtype_move(ctx, element):
                effect = _DTYPE
            hit = _Hit(element, element.func.value, TORCH, effect, ctx.segment(element, 60))
        if hit is None or not _uses_target(hit.value, loop.target):
            return None
        return _Hit(comp, source, hit.kind, hit.effect, ctx.segment(comp, 60), hit.callee)  # type: ignore[arg-type]

    def _project_hit(self, ctx: FileContext, call: ast.Call) -> _Hit | None:
        """``helper(x)`` / ``self.block(x)`` / ``obj.encode(x)`` running project code that only computes its result."""
        if not call.args or _hooked(ctx):
            return None
        value = _root(call.args[0])
        if value is None:
            return None
        callee = pure_functions.pure_call(ctx, call)
        if callee is None:
            return None
        return _Hit(call, value, TORCH, "project", ctx.segment(call, 60), callee)

    # -- when the statement is meant as it is ------------------------------------------------

    def _excused(self, ctx: FileContext, stmt: ast.Expr) -> bool:
        func = ctx.enclosing_function(stmt)
        if func is not None:
            if func.name.startswith("test") or set(vo.words(func.name)) & _BENCH_WORDS:
                return True
        for anc in ctx.ancestors(stmt):
            if isinstance(anc, ast.Try) and anc.handlers and any(_contains(s, stmt) for s in anc.body):
                return True  # a probe: does this operation work here?
            if isinstance(anc, (ast.With, ast.AsyncWith)):
                for item in anc.items:
                    name = dotted(item.context_expr.func if isinstance(item.context_expr, ast.Call) else item.context_expr) or ""
                    if name.rsplit(".", 1)[-1] in _EXPECTING:
                        return True
            if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)) and _repetition_loop(ctx, anc):
                return True
            if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                break
        return False

    def _read_later(self, ctx: FileContext, stmt: ast.Expr, value: ast.AST) -> bool:
        """The dropped value's variable is read after the statement (or again on the next loop turn)."""
        base = value
        while isinstance(base, ast.Subscript):
            base = base.value
        if not isinstance(base, ast.Name):
            return True  # self.mask, batch.x: attributes live on
        scope = ctx.enclosing_function(stmt) or ctx.tree
        loops = ctx.enclosing_loops(stmt)
        outer = loops[-1] if loops else None
        end = stmt.end_lineno or stmt.lineno
        for node in ctx.walk_scope(scope):
            if isinstance(node, ast.Name) and node.id == base.id and isinstance(node.ctx, ast.Load):
                if node.lineno > end:
                    return True
                if outer is not None and _contains(outer, node) and not _contains(stmt, node):
                    return True
        return False

    # -- the message ---------------------------------------------------------------------

    @staticmethod
    def _message(ctx: FileContext, hit: _Hit) -> str:
        name = ctx.segment(hit.value, 40)
        noun = {TORCH: "tensor", NUMPY: "array", PANDAS: "frame"}[hit.kind]
        layer = {
            "dropout": f"no dropout is applied and `{name}` goes on undropped",
            "activation": f"no activation is applied and `{name}` goes on as it was",
            "layer": f"`{name}` goes on untransformed, as if the layer were not there",
        }.get(hit.effect)
        if hit.callee is not None and isinstance(hit.call, ast.Call):
            return (f"`{hit.what}` only computes and returns a new value (`{hit.callee.name}`, {hit.callee.where}, "
                    f"changes nothing else) and this line drops it: `{name}` goes on as it was, as if the call were not "
                    f"there. Assign the result (`{name} = ...`) or delete the line.")
        if layer is not None:
            return f"`{hit.what}` returns its output and this line drops it: {layer}. Assign the result (`{name} = ...`)."
        stays = {
            _DEVICE: f"leaves `{name}` on its old device",
            _DTYPE: f"leaves `{name}` in its old dtype",
            _SHAPE: f"leaves `{name}` in its old shape",
            _GRAPH: f"leaves `{name}` attached to its autograd graph",
            _CLAMP: f"leaves `{name}` unclamped",
            _FILL: f"leaves `{name}` without the values the line writes",
            _VALUES: f"leaves `{name}` unchanged",
            "normalize": f"leaves `{name}` unnormalised",
        }.get(hit.effect)
        if stays is None:  # pandas: the effect is the phrase
            stays = f"leaves `{name}` as it was: it {hit.effect}"
        if not isinstance(hit.call, ast.Call):
            built = {ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict"}.get(type(hit.call), "generator")
            if hit.callee is not None:
                stays = f"leaves `{name}` as it was (`{hit.callee.name}`, {hit.callee.where}, only computes its result)"
            return (f"`{hit.what}` builds a new {built} of results and this line drops it: the comprehension "
                    f"{stays}. Assign the result (`{name} = ...`).")
        return f"`{hit.what}` returns a new {noun}; this line drops it and {stays}. Assign the result (`{name} = ...`)."


def _function_effect(name: str) -> str:
    if name in ("clamp", "clip"):
        return _CLAMP
    if "dropout" in name:
        return "dropout"
    if name == "normalize":
        return "normalize"
    if name in ("unsqueeze", "squeeze", "transpose", "reshape", "flatten", "permute", "expand_dims"):
        return _SHAPE
    if name == "detach":
        return _GRAPH
    if name in ("masked_fill", "where"):
        return _FILL
    if name in _ACTIVATION_FUNCTIONS:
        return "activation"
    if name in ("linear", "conv1d", "conv2d", "conv3d", "embedding"):
        return "layer"
    return _VALUES


_ACTIVATION_FUNCTIONS = frozenset({"relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish",
                                   "softplus", "hardtanh", "hardswish", "hardsigmoid", "logsigmoid", "glu", "threshold",
                                   "rrelu"})


def _dtype_move(ctx: FileContext, call: ast.Call) -> bool:
    """``x.to(torch.float16)`` / ``x.to(dtype=...)``: a dtype change, not a device move."""
    if keyword(call, "dtype") is not None and keyword(call, "device") is None and not call.args:
        return True
    if call.args:
        qual = ctx.qualname(call.args[0]) or ""
        return qual.startswith("torch.") and any(w in qual for w in ("float", "int", "bool", "half", "double", "long", "complex", "uint"))
    return False


def _model_output(ctx: FileContext, receiver: ast.AST) -> bool:
    """``out`` bound to what a model returns (``out = model(x)``): a tensor, or a tuple or dict that has none of
    these methods (calling one fails loudly), never an object that converts in place."""
    if not isinstance(receiver, ast.Name):
        return False
    bound = vo.value(ctx, receiver)
    if not isinstance(bound, ast.Call) or bound is receiver:
        return False
    func = bound.func
    if isinstance(func, ast.Attribute) and func.attr == "forward":
        func = func.value
    elif not isinstance(func, (ast.Name, ast.Attribute)):
        return False
    if isinstance(func, ast.Name) and func.id == "self":
        return False
    return module_values.is_module(ctx, func)


def _pure_layer_classes(ctx: FileContext, value: ast.AST, depth: int = 0) -> set[str]:
    """The layer classes of a stateless built-in layer construction, or of an ``nn.Sequential`` of them;
    empty when any part may hold state, run in place or is not a known built-in layer."""
    cls = tensor_values.layer_class(ctx, value)
    if cls in _PURE_LAYERS and _layer_pure(value, cls):
        return {cls}
    if cls == "Sequential" and depth < 3 and isinstance(value, ast.Call) and value.args and not value.keywords:
        found: set[str] = set()
        for arg in value.args:
            inner = _pure_layer_classes(ctx, arg, depth + 1)
            if not inner:
                return set()
            found |= inner
        return found
    return set()



def _layer_pure(value: ast.AST, cls: str) -> bool:
    """The layer was not built with ``inplace=True`` (an in-place activation or dropout changes its input)."""
    if not isinstance(value, ast.Call):
        return False
    position = _LAYER_INPLACE_POSITION.get(cls)
    return _flag_false(value, "inplace", position)


def _hooked(ctx: FileContext) -> bool:
    """The file registers forward or backward hooks: a layer call may be run for what its hooks record."""
    cache = ctx.__dict__
    if "_result_discarded_hooked" not in cache:
        cache["_result_discarded_hooked"] = bool(ctx.calls_named(*_HOOKS))
    return cache["_result_discarded_hooked"]


def _defined_in_file(ctx: FileContext, method: str) -> bool:
    """Some class of the file defines a method of this name (its instances may change in place)."""
    return any(ctx.method(cls, method) is not None for cls in ctx.classes)


def _uses_target(value: ast.AST, target: ast.AST) -> bool:
    """The element's transformed value is (a field of) the comprehension's loop variable."""
    names = {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    base = value
    while isinstance(base, (ast.Subscript, ast.Attribute)):
        base = base.value
    return isinstance(base, ast.Name) and base.id in names


def _contains(outer: ast.AST, node: ast.AST) -> bool:
    start, end = getattr(outer, "lineno", None), getattr(outer, "end_lineno", None)
    line = getattr(node, "lineno", None)
    if start is None or end is None or line is None:
        return False
    if not start <= line <= end:
        return False
    if line == start and node.col_offset < outer.col_offset:
        return False
    if line == end and outer.end_col_offset is not None and node.col_offset >= outer.end_col_offset:
        return False
    return True


def _repetition_loop(ctx: FileContext, loop: ast.AST) -> bool:
    """``for _ in range(n):`` whose body only repeats calls (no assignment, no use of the loop variable):
    a benchmark or warm-up loop."""
    if not isinstance(loop, ast.For) or not isinstance(loop.iter, ast.Call) or dotted(loop.iter.func) != "range":
        return False
    target = loop.target
    if not isinstance(target, ast.Name):
        return False
    for node in ast.walk(ast.Module(body=loop.body, type_ignores=[])):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.Return)):
            return False
        if isinstance(node, ast.Name) and node.id == target.id:
            return False
    return True
