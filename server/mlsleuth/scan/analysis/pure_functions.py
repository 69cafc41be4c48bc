"""Pure project functions: helpers and module ``forward`` methods that only compute a new value from their inputs.

:func:`pure_call` answers, for a call into project code, whether the callee is *pure*: its body changes
nothing outside itself and returns a value computed from its inputs, so calling it and dropping the
result does nothing at all. It follows

* plain functions of this file or of another module of the project (``h = helper(x)``), methods through
  ``self`` (``self.encode(x)``) and through an instance whose class the project defines;
* calls of ``nn.Module`` objects (``self.block(x)``, ``enc(x)`` after ``enc = Encoder()``) whose every
  binding is a built-in stateless layer (:mod:`~mlsleuth.scan.analysis.pure_operations`), an
  ``nn.Sequential`` of such, or a project class deriving from ``nn.Module`` (directly or through project
  classes) whose ``forward`` is pure, that defines no ``__call__``, and no file of the project registers a
  forward hook (the call may be made for what a hook records).

A body is pure when every statement is one of: an assignment to local names (or into a container or tensor
the function created itself: ``out = torch.zeros(...); out[m] = v``, ``parts = []; parts.append(p)``),
``if`` / ``for`` / ``while`` / ``return`` / ``pass`` / ``break`` / ``continue``, a ``with`` over a grad or
autocast context; and every call in it is pure: torch / ``torch.nn.functional`` / einops / math functions
with no ``out=`` or ``inplace=True``, out-of-place tensor methods (device and dtype moves only on a value
known to be a tensor), read-only builtins, stateless layers, and pure project functions (a few levels
deep). Anything else makes it unknown: attribute stores (``self.cache = h``), in-place methods (``add_``,
``copy_``, ``append`` on a value it did not create), ``x += y`` on a value it did not create, bare call
statements (a call made for its effect), ``raise`` / ``assert`` (the call may be a check), ``try``,
``global``, ``yield``, imports, nested functions, decorators other than ``staticmethod`` / ``torch.no_grad``,
I/O and any call the scan cannot resolve. It must also return something computed: a ``return`` that hands
back a parameter unchanged, ``self``, ``None`` or a constant makes it unknown (an identity or a no-op is not
a lost transformation).

Answers are cached on the context of the file that defines the function, as the function summaries are.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import function_summaries, pure_operations, tensor_values
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted, keyword

MAX_DEPTH = 4

# Builtins that read their arguments and change nothing.
_PURE_BUILTINS = frozenset({
    "len", "range", "min", "max", "abs", "sum", "zip", "enumerate", "isinstance", "issubclass", "int", "float", "bool",
    "str", "tuple", "list", "dict", "set", "frozenset", "sorted", "reversed", "round", "divmod", "pow", "any", "all",
    "hasattr", "type", "slice", "repr",
})
# Method names that only read their receiver, on the types that define them (tensors, containers, strings).
_READ_METHODS = frozenset({
    "size", "dim", "numel", "item", "tolist", "chunk", "split", "unbind", "max", "min", "amax", "amin", "argmax",
    "argmin", "topk", "sort", "argsort", "any", "all", "eq", "ne", "gt", "lt", "ge", "le", "logical_not",
    "logical_and", "logical_or", "bool", "long", "int", "items", "keys", "values", "format", "join", "startswith",
    "endswith", "lower", "upper", "strip", "unfold", "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
    "pow", "masked_select", "nonzero", "prod", "cumprod", "exp", "isnan", "isinf", "isfinite", "sign",
    "floor", "ceil", "round", "unflatten", "movedim", "swapaxes", "index_add", "scatter", "scatter_add",
    "masked_scatter", "index_fill", "index_copy", "addcmul", "addcdiv", "lerp", "where", "float_power", "clamp_min",
    "clamp_max", "sigmoid", "tanh", "relu", "softmax", "log_softmax", "expand", "reshape_as", "long", "to_dense",
})
# Methods that move or cast in place on an nn.Module: pure only on a value known to be a tensor.
_TENSOR_ONLY_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "type"})
_EINOPS = frozenset({"rearrange", "repeat", "reduce", "einsum", "pack", "unpack", "parse_shape"})
# Container methods a function may call on a container it created itself.
_BUILDING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault"})
_GRAD_CONTEXTS = frozenset({
    "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.set_grad_enabled", "torch.autocast",
    "torch.cuda.amp.autocast", "torch.amp.autocast", "torch.cpu.amp.autocast", "contextlib.nullcontext",
})
# torch functions that only report a state.
_STATE_QUERIES = frozenset({"torch.jit.is_scripting", "torch.jit.is_tracing", "torch.is_grad_enabled",
                            "torch.is_autocast_enabled", "torch.compiler.is_compiling", "torch.is_floating_point",
                            "torch.is_complex"})
_DECORATORS = frozenset({"staticmethod", "torch.no_grad", "torch.inference_mode", "torch.jit.script", "torch.compile"})
_HOOKS = ("register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
          "register_backward_hook", "register_full_backward_pre_hook", "register_module_forward_hook",
          "register_module_forward_pre_hook")
# torch.nn.functional calls that may write into a tensor they are given (running statistics, a renormalised
# embedding table, a collective's buffer).
_FUNCTIONAL_WRITERS = frozenset({"batch_norm", "instance_norm", "embedding", "embedding_bag"})
_INPLACE_POSITION = pure_operations.INPLACE_POSITION
_PROJECT_HOOK_WORDS = ("register_forward", "register_module_forward")
_REJECTED = (ast.Global, ast.Nonlocal, ast.Raise, ast.Assert, ast.Try, ast.Import, ast.ImportFrom, ast.Yield,
             ast.YieldFrom, ast.Await, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.AsyncFor,
             ast.AsyncWith, ast.Delete) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
_MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})


@dataclass(frozen=True)
class PureCallee:
    """What a pure call runs: ``name`` (``helper``, ``Block.forward``) defined at ``where`` (``utils.py line 12``)."""

    name: str
    where: str


def pure_call(ctx: FileContext, call: ast.Call, depth: int = 0) -> PureCallee | None:
    """The callee when ``call`` runs project code (a function, a method, a module's ``forward``) that is pure, else
    None (also for a module built only from built-in layers: the rules that know those speak for them)."""
    found = _pure_callee(ctx, call, depth)
    return found if found is not None and found.where else None


def _pure_callee(ctx: FileContext, call: ast.Call, depth: int) -> PureCallee | None:
    if depth > MAX_DEPTH or not isinstance(call, ast.Call) or _flagged_in_place(call):
        return None
    target = function_summaries.resolve_call(ctx, call, bind_params=False)
    if target is not None:
        tctx, tfunc = target
        if not pure_function(tctx, tfunc, depth + 1):
            return None
        return PureCallee(_function_name(tctx, tfunc), f"{tctx.display_path} line {tfunc.lineno}")
    return _module_call(ctx, call, depth)


def pure_function(ctx: FileContext, func: ast.AST, depth: int = 0) -> bool:
    """``func`` (defined in ``ctx``) changes nothing and returns a value computed from its inputs."""
    cache = ctx.__dict__.setdefault("_pure_functions", {})
    if func in cache:
        return cache[func]
    if depth > MAX_DEPTH:
        return False
    cache[func] = False  # recursion guard: a recursive function is left unknown
    found = _pure_body(ctx, func, depth)
    cache[func] = found
    return found


def _function_name(ctx: FileContext, func: ast.AST) -> str:
    cls = ctx.enclosing_class(func)
    name = getattr(func, "name", "?")
    return f"{cls.name}.{name}" if cls is not None else name


def _positional_in_place(call: ast.Call, name: str) -> bool:
    """``F.relu(x, True)``: the ``inplace`` flag given by position, or anything starred that could hold it."""
    position = _INPLACE_POSITION.get(name)
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    return position is not None and len(call.args) > position and constant(call.args[position]) is not False


def _flagged_in_place(call: ast.Call) -> bool:
    return keyword(call, "out") is not None or constant(keyword(call, "inplace")) is True


# -- module calls ---------------------------------------------------------------------------


def _module_call(ctx: FileContext, call: ast.Call, depth: int) -> PureCallee | None:
    """``self.block(x)`` / ``enc(x)``: every binding of the callee is a pure module (see the module docstring);
    also ``blk(x)`` in ``for blk in self.blocks`` over an ``nn.ModuleList`` / ``nn.Sequential`` of them."""
    values = tensor_values.layer_bindings(ctx, call.func)
    if not values and isinstance(call.func, ast.Name):
        values = tensor_values.loop_layers(ctx, call.func, attributes_only=True)
    if not values:
        return None
    found = [_pure_module(ctx, value, depth) for value in values]
    if any(one is None for one in found):
        return None
    named = [one for one in found if one is not None and one.where]
    return named[0] if named else found[0]



def _pure_module(ctx: FileContext, value: ast.AST, depth: int) -> PureCallee | None:
    """A construction of a pure module: a stateless built-in (``where`` empty), a Sequential of pure modules,
    or a project ``nn.Module`` class with a pure ``forward``."""
    if not isinstance(value, ast.Call) or depth > MAX_DEPTH:
        return None
    if pure_operations.stateless_constructor(ctx, value):
        return PureCallee(tensor_values.layer_class(ctx, value) or "layer", "")
    if tensor_values.layer_class(ctx, value) == "Sequential":
        if value.keywords or not value.args or any(isinstance(a, ast.Starred) for a in value.args):
            return None
        parts = [_pure_module(ctx, a, depth + 1) for a in value.args]
        if any(p is None for p in parts):
            return None
        named = [p for p in parts if p is not None and p.where]
        return named[0] if named else PureCallee("Sequential", "")
    owner = vo.constructed_class(ctx, value)
    if owner is None:
        return None
    cctx, cls = owner
    if not _plain_module_class(cctx, cls, 0):
        return None
    forward = vo.class_method(cctx, cls, "forward")
    if forward is None or not pure_function(forward[0], forward[1], depth + 1):
        return None
    return PureCallee(f"{cls.name}.forward", f"{forward[0].display_path} line {forward[1].lineno}")


def _plain_module_class(ctx: FileContext, cls: ast.ClassDef, depth: int) -> bool:
    """An ``nn.Module`` subclass (through project classes only) with no ``__call__`` and no hooks in its file."""
    if depth > 4 or ctx.method(cls, "__call__") is not None or ctx.calls_named(*_HOOKS) or not cls.bases:
        return False
    if ctx.project is not None and any(ctx.project.any_file_mentions(word) for word in _PROJECT_HOOK_WORDS):
        return False  # a hook registered anywhere in the project may be what the call is made for
    for base in cls.bases:
        if vo.normalize(ctx.qualname(base)) in _MODULE_BASES:
            continue
        local = vo.file_class(ctx, base.id) if isinstance(base, ast.Name) else None
        other = (ctx, local) if local is not None and local is not cls else vo.project_class(ctx, base)
        if other is None or not _plain_module_class(other[0], other[1], depth + 1):
            return False
    return True


# -- function bodies ------------------------------------------------------------------------


def _pure_body(ctx: FileContext, func: ast.AST, depth: int) -> bool:
    if not isinstance(func, ast.FunctionDef):
        return False
    for deco in func.decorator_list:
        name = dotted(deco.func if isinstance(deco, ast.Call) else deco) or ""
        if name not in _DECORATORS and vo.normalize(ctx.qualname(deco.func if isinstance(deco, ast.Call) else deco)) not in _DECORATORS:
            return False
    params = set(vo.function_params(func))
    computed = False
    vetted: set[int] = set()  # container-growing calls already accepted as statements
    for node in ctx.walk_scope(func):
        if isinstance(node, _REJECTED):
            return False
        if isinstance(node, ast.Return):
            if not _computed_return(ctx, func, node.value, params):
                return False
            computed = True
        elif isinstance(node, ast.Expr):
            if not _harmless_statement(ctx, func, node.value, params):
                return False
            vetted.add(id(node.value))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if not all(_local_target(ctx, func, t, params, augmented=isinstance(node, ast.AugAssign)) for t in targets):
                return False
        elif isinstance(node, ast.withitem):
            expr = node.context_expr
            name = vo.normalize(ctx.qualname(expr.func if isinstance(expr, ast.Call) else expr)) or ""
            if name not in _GRAD_CONTEXTS or node.optional_vars is not None:
                return False
        elif isinstance(node, (ast.For, ast.comprehension)):
            if not _local_target(ctx, func, node.target, params, augmented=False):
                return False
        elif isinstance(node, ast.NamedExpr):
            continue
        elif isinstance(node, ast.Call) and id(node) not in vetted:
            if not _pure_inner_call(ctx, func, node, params, depth):
                return False
    return computed


def _computed_return(ctx: FileContext, func: ast.AST, value: ast.AST | None, params: set[str]) -> bool:
    """``return`` hands back something computed here: not nothing, a constant, ``self`` or an untouched parameter."""
    if value is None or isinstance(value, ast.Constant):
        return False
    parts = value.elts if isinstance(value, ast.Tuple) else [value]
    for part in parts:
        if isinstance(part, ast.Name) and (part.id == "self" or part.id in params and not vo.bindings(ctx, func).get(part.id)):
            return False
    return True


def _harmless_statement(ctx: FileContext, func: ast.AST, value: ast.AST, params: set[str]) -> bool:
    """A statement that is only an expression: a docstring or constant, or a container the function built growing."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Call) and call_method(value) in _BUILDING_METHODS and isinstance(value.func, ast.Attribute):
        receiver = value.func.value
        return isinstance(receiver, ast.Name) and _fresh_name(ctx, func, receiver.id, params)
    return False


def _local_target(ctx: FileContext, func: ast.AST, target: ast.AST, params: set[str], *, augmented: bool) -> bool:
    """A store that only touches the function's own values."""
    if isinstance(target, ast.Name):
        return not augmented or _fresh_name(ctx, func, target.id, params)
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_local_target(ctx, func, t, params, augmented=augmented) for t in target.elts)
    if isinstance(target, ast.Starred):
        return _local_target(ctx, func, target.value, params, augmented=augmented)
    if isinstance(target, ast.Subscript):
        base = target.value
        while isinstance(base, ast.Subscript):
            base = base.value
        return isinstance(base, ast.Name) and _fresh_name(ctx, func, base.id, params)
    return False  # attribute stores change an object that outlives the call


def _fresh_name(ctx: FileContext, func: ast.AST, name: str, params: set[str]) -> bool:
    """Every binding of ``name`` in ``func`` makes a new object (not a parameter, an alias or a view of one)."""
    if name in params or name == "self":
        return False
    entries = vo.bindings(ctx, func).get(name, [])
    if not entries:
        return False
    for _line, stmt, value in entries:
        if isinstance(stmt, ast.AugAssign):
            continue
        if value is None or not _fresh_value(ctx, value):
            return False
    return True


def _fresh_value(ctx: FileContext, value: ast.AST) -> bool:
    if isinstance(value, (ast.Constant, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.BinOp)):
        return True
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id in ("list", "dict", "set"):
        return True
    if call_method(value) == "clone":
        return True
    tail = pure_operations.qual_tail(ctx, value)
    return tail in pure_operations.FACTORIES or tail in ("cat", "stack", "matmul", "mm", "bmm", "einsum", "where", "zeros_like")


def _pure_inner_call(ctx: FileContext, func: ast.AST, call: ast.Call, params: set[str], depth: int) -> bool:
    """A call inside a body under test changes nothing."""
    if _flagged_in_place(call):
        return False
    method = call_method(call) if isinstance(call.func, ast.Attribute) else None
    if method is not None and method.endswith("_") and not method.startswith("__"):
        return False
    qual = vo.normalize(ctx.qualname(call.func)) or ""
    if isinstance(call.func, ast.Name) and call.func.id in _PURE_BUILTINS and call.func.id not in ctx.imports \
            and ctx.callee_definition(call) is None:
        return True
    if qual in _GRAD_CONTEXTS or qual in _STATE_QUERIES:
        return True
    tail = pure_operations.qual_tail(ctx, call)
    if tail is not None:
        if qual.startswith("torch.nn.functional."):
            return not tail.endswith("_") and tail not in _FUNCTIONAL_WRITERS and not _positional_in_place(call, tail)
        return tail in pure_operations.PURE_FUNCTIONS or tail in pure_operations.FACTORIES \
            or tail in ("is_tensor", "finfo", "iinfo", "broadcast_tensors", "randint", "randperm", "multinomial")
    if qual.startswith("math.") or qual.startswith("einops.") and qual.rsplit(".", 1)[-1] in _EINOPS:
        return True
    if method is not None:
        receiver = call.func.value  # type: ignore[union-attr]
        if isinstance(receiver, ast.Name) and receiver.id in ctx.imports:
            return False  # a module-level function of some import we do not know
        if method in pure_operations.PURE_METHODS or method in _READ_METHODS:
            if not (isinstance(receiver, ast.Name) and receiver.id == "self"):
                return True
        if method in _TENSOR_ONLY_METHODS and tensor_values.array_kind(ctx, receiver) == tensor_values.TORCH:
            return True
    if pure_operations.stateless_layer(ctx, call):
        return True
    return _pure_callee(ctx, call, depth) is not None
