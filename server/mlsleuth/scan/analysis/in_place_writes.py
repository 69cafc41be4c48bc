"""In-place writes: the operations that change an existing tensor, array or frame instead of making a new one.

:func:`direct_writes` lists, for one function (or a script's module level), every operation in its own body
that changes the object a local name holds:

* a trailing-underscore tensor method on the name or a slice of it (``x.add_(b)``, ``x[:, 0].mul_(s)``,
  ``x.data.clamp_(0, 1)``), NumPy's ``arr.fill(v)``;
* an augmented assignment (``x += b``, ``x[i] *= s``) and a store into an element or slice (``x[m] = 0``);
  both change the object only when it is an array, a tensor or a frame, so the write says so
  (``needs_array``) and the caller asks :func:`array_like`;
* a torch or NumPy call that writes into one of its arguments: ``out=x`` (``np.subtract(x, m, out=x)``),
  ``np.copyto(x, src)``, a trailing-underscore torch function (``torch.relu_(x)``, ``nn.init.zeros_(w)``);
* a functional form flagged ``inplace=True`` (``F.relu(x, inplace=True)``, also by position);
* a call of a module or transform that changes its input first: ``nn.ReLU(inplace=True)`` and the other
  activations and dropouts built in place, torchvision's ``Normalize(..., inplace=True)``, and an
  ``nn.Sequential`` / ``Compose`` whose first element is one of those, bound to ``self.attr`` or a local name.

The last two (and a helper, below) are written as if they returned a new value: ``functional`` says so,
since a caller that binds their result to another name (``out = self.relu(x)``) believes ``x`` untouched.

:func:`mutated_parameters` summarises a project function: the parameters whose caller-owned object it changes
in place (a direct write on the parameter before anything rebinds it, or the parameter handed on to another
project function that changes it, a few levels deep). :func:`helper_writes` turns the calls of a scope into
writes on the names they pass to such helpers (functions, methods, and the ``__call__`` / ``forward`` of a
project object), pointing at the write inside the helper.

:func:`holders` answers the question the in-place rule asks of a write: who else holds the changed object
and reads it afterwards expecting the original. A holder is a name bound to the same object (``identity = x``
before the write, or the name ``x`` was bound from, the NumPy/torch bridge included: ``torch.from_numpy(a)``,
``t.numpy()``, ``np.asarray(t)``, ``x.detach()``), read after the write before it is bound again; the written
name itself when the write was ``functional`` and its result went to another name; and, in a ``Dataset``'s
``__getitem__``, the stored collection (``self.images``) the value was taken from without a copy
(:func:`stored_source`); :func:`transform_writes` follows a transform object the dataset got through its
constructor back to what its callers pass (a pipeline of project steps). :func:`write_backs` finds the out-of-place twin of that last case: a sample read from
``self.cache[i]``, transformed and stored back into ``self.cache[i]`` outside any ``if``.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import function_summaries, pure_operations, tensor_values
from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
    same_tree,
)

MAX_DEPTH = 3

# Tensor methods that change their receiver's values (or shape) in place.
IN_PLACE_METHODS = frozenset({
    "add_", "sub_", "mul_", "div_", "true_divide_", "floor_divide_", "pow_", "neg_", "abs_", "sqrt_", "rsqrt_",
    "exp_", "log_", "log1p_", "expm1_", "reciprocal_", "sign_", "round_", "floor_", "ceil_", "trunc_", "fmod_",
    "remainder_", "clamp_", "clamp_min_", "clamp_max_", "clip_", "relu_", "sigmoid_", "tanh_", "copy_", "fill_",
    "zero_", "masked_fill_", "masked_scatter_", "index_fill_", "index_add_", "index_copy_", "index_put_",
    "scatter_", "scatter_add_", "scatter_reduce_", "addcmul_", "addcdiv_", "lerp_", "normal_", "uniform_",
    "bernoulli_", "random_", "exponential_", "nan_to_num_", "square_", "sin_", "cos_", "erf_", "baddbmm_",
    "addmm_", "mul_scalar_", "t_", "transpose_", "squeeze_", "unsqueeze_", "resize_", "fill_diagonal_",
    "tril_", "triu_", "logit_", "hardtanh_", "leaky_relu_", "elu_", "silu_",
})
# Torch functions named with a trailing underscore that are not writes into their first argument.
_NOT_WRITES = frozenset({"manual_seed_", "set_", "requires_grad_", "share_memory_", "detach_", "retain_grad_"})
# Calls that hand back an object sharing memory with their argument: the NumPy / torch bridge.
_BRIDGE_FUNCTIONS = frozenset({"torch.from_numpy", "numpy.asarray", "numpy.asanyarray", "torch.as_tensor"})
_BRIDGE_METHODS = frozenset({"numpy", "detach"})
# Reads that look at the object's shape or type, not its values.
_META_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "size", "dim",
                              "numel", "grad_fn", "data_ptr", "nbytes", "itemsize", "get_device"})
_META_FUNCTIONS = frozenset({"len", "id", "type", "isinstance"})
# In-place methods that replace every value of their receiver.
_OVERWRITES = frozenset({"copy_", "zero_", "fill_", "normal_", "uniform_", "random_", "bernoulli_", "resize_"})
# Attribute uses that show a value is an array or tensor rather than a number.
_ARRAY_EVIDENCE = frozenset({"shape", "ndim", "transpose", "permute", "reshape", "view", "flip", "unsqueeze",
                             "squeeze", "numpy", "contiguous", "T"})
_TRANSFORM_CONTAINERS = frozenset({"Sequential", "Compose"})
_NORMALIZE_CLASSES = frozenset({"torchvision.transforms.Normalize", "torchvision.transforms.v2.Normalize",
                                "torchvision.transforms.transforms.Normalize"})


@dataclass(frozen=True)
class Write:
    """An in-place change of the object ``name`` holds, caused by ``stmt`` of the scope.

    ``node`` is where the object changes (in ``ctx``, another file's context for a helper's write),
    ``how`` a short description, ``functional`` whether the operation is written as if it returned a new
    value, ``needs_array`` whether it changes the object only when that is an array, tensor or frame.
    """

    name: str
    stmt: ast.stmt
    node: ast.AST
    ctx: FileContext
    how: str
    functional: bool
    needs_array: bool
    helper: str = ""  # for a helper's write: "normalize (utils.py line 4)"
    returns_argument: bool = True  # for a helper's write: the helper hands the changed argument back


def returns_parameter(func: ast.AST, param: str) -> bool:
    """``func`` returns ``param`` itself (alone or in a tuple): it reads as a transform of its argument."""
    for value in vo.returns(func):
        elements = value.elts if isinstance(value, ast.Tuple) else [value]
        if any(isinstance(e, ast.Name) and e.id == param for e in elements):
            return True
    return False


def _statement(ctx: FileContext, node: ast.AST) -> ast.stmt | None:
    if isinstance(node, ast.stmt):
        return node
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.stmt):
            return anc
    return None


def written_name(expr: ast.AST) -> str | None:
    """The local name whose object a write into ``expr`` changes: ``x``, ``x[i]``, ``x[:, 0]``, ``x.data``."""
    while True:
        if isinstance(expr, ast.Subscript) or isinstance(expr, ast.Attribute) and expr.attr in ("data", "T", "mT", "real", "imag"):
            expr = expr.value
        elif isinstance(expr, ast.Name):
            return expr.id
        else:
            return None


def stored_attribute(expr: ast.AST) -> str | None:
    """``self.images`` for a write into ``self.images[i]`` / ``self.images[i][:, 0]`` (an element of stored data)."""
    if not isinstance(expr, ast.Subscript):
        return None
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        return f"self.{expr.attr}"
    return None


def _flag_true(call: ast.Call, position: int | None) -> bool:
    flag = keyword(call, "inplace")
    if flag is None and position is not None and len(call.args) > position:
        flag = call.args[position]
    return constant(flag) is True


def in_place_layer(ctx: FileContext, value: ast.AST | None, depth: int = 0) -> str | None:
    """``nn.ReLU(inplace=True)`` for a constructor of a module or transform that changes its input in place
    (also the first element of an ``nn.Sequential`` / ``Compose`` of them), else None."""
    if not isinstance(value, ast.Call) or depth > 2:
        return None
    qual = vo.normalize(ctx.qualname(value)) or ""
    last = qual.rsplit(".", 1)[-1]
    if qual.startswith("torch.nn.") and last in pure_operations.LAYER_INPLACE_POSITION:
        if _flag_true(value, pure_operations.LAYER_INPLACE_POSITION[last]):
            return f"nn.{last}(inplace=True)"
        return None
    if qual in _NORMALIZE_CLASSES:
        return "Normalize(inplace=True)" if _flag_true(value, 2) else None
    if last in _TRANSFORM_CONTAINERS and qual.startswith(("torch.nn.", "torchvision.transforms")):
        first = value.args[0] if value.args else None
        if last == "Compose" and isinstance(first, (ast.List, ast.Tuple)):
            first = first.elts[0] if first.elts else None
        found = in_place_layer(ctx, first, depth + 1)
        return f"{last}({found}, ...)" if found else None
    return None


def _in_place_layer_names(ctx: FileContext) -> frozenset[str]:
    """The names and ``self`` attributes the file binds to an in-place layer (computed once per file)."""
    cached = ctx.__dict__.get("_in_place_layer_names")
    if cached is not None:
        return cached
    names: set[str] = set()
    if "inplace" in ctx.source or "(True" in ctx.source:
        for call in ctx.calls_named(*pure_operations.LAYER_INPLACE_POSITION, "Normalize", *_TRANSFORM_CONTAINERS):
            if in_place_layer(ctx, call) is None:
                continue
            node: ast.AST = call
            for anc in ctx.ancestors(call):
                if isinstance(anc, (ast.Assign, ast.AnnAssign)):
                    node = anc
                    break
                if isinstance(anc, ast.stmt):
                    break
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if isinstance(target, ast.Attribute):
                    names.add(target.attr)
                elif isinstance(target, ast.Name):
                    names.add(target.id)
    found = frozenset(names)
    ctx.__dict__["_in_place_layer_names"] = found
    return found


def _module_write(ctx: FileContext, call: ast.Call) -> str | None:
    """The in-place layer every binding of the called object builds, if any (``self.relu(x)``)."""
    if not call.args or isinstance(call.args[0], ast.Starred):
        return None
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called is None or called not in _in_place_layer_names(ctx):
        return None
    bound = tensor_values.layer_bindings(ctx, call.func)
    if not bound:
        return None
    kinds = {in_place_layer(ctx, v) for v in bound}
    if len(kinds) != 1:
        return None
    return kinds.pop()


def _call_write(ctx: FileContext, call: ast.Call) -> tuple[ast.AST, str, bool] | None:
    """(the written expression, how, functional) for a call that writes into an object, else None."""
    method = call_method(call)
    if method is not None and method in IN_PLACE_METHODS and isinstance(call.func, ast.Attribute):
        receiver = call.func.value
        if not (isinstance(receiver, ast.Name) and receiver.id in ctx.imports):
            return receiver, f"`.{method}()`", False
    qual = vo.normalize(ctx.qualname(call)) or ""
    if qual.startswith(("torch.", "numpy.")):
        out = keyword(call, "out")
        if out is not None:
            return out, f"`{qual.rsplit('.', 1)[-1]}(..., out=...)`", False
        last = qual.rsplit(".", 1)[-1]
        if qual == "numpy.copyto" and call.args:
            return call.args[0], "`np.copyto()`", False
        if qual.startswith("torch.") and last.endswith("_") and not last.endswith("__") and last not in _NOT_WRITES \
                and call.args:
            return call.args[0], f"`{last}()`", False
        if qual.startswith("torch.nn.functional.") and last in pure_operations.INPLACE_POSITION and call.args \
                and _flag_true(call, pure_operations.INPLACE_POSITION[last]):
            return call.args[0], f"`F.{last}(..., inplace=True)`", True
        return None
    if method == "fill" and isinstance(call.func, ast.Attribute) and len(call.args) == 1 and not call.keywords \
            and tensor_values.array_kind(ctx, call.func.value) == tensor_values.NUMPY:
        return call.func.value, "`.fill()`", False
    layer = _module_write(ctx, call)
    if layer is not None:
        return call.args[0], f"`{ctx.segment(call.func, 40)}` ({layer})", True
    return None


def direct_writes(ctx: FileContext, scope: ast.AST) -> list[Write]:
    """The in-place writes in ``scope``'s own body (not nested functions), in source order (cached).

    A write into an element of ``self.attr`` other than a plain item store (``self.data[i] += n``,
    ``self.norm(self.frames[i])``) is named ``self.attr``."""
    cache = ctx.__dict__.setdefault("_in_place_direct", {})
    if scope in cache:
        return cache[scope]
    found: list[Write] = []
    for node in ctx.walk_scope(scope):
        cls = node.__class__
        if cls is ast.AugAssign:
            name = written_name(node.target) or stored_attribute(node.target)  # type: ignore[attr-defined]
            if name is not None:
                op = _OPERATORS.get(node.op.__class__, "?=")  # type: ignore[attr-defined]
                how = f"`{name} {op} ...`" if isinstance(node.target, ast.Name) else f"`{ctx.segment(node.target, 40)} {op} ...`"  # type: ignore[attr-defined]
                found.append(Write(name, node, node, ctx, how, False, True))  # type: ignore[arg-type]
        elif cls is ast.Assign:
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target, ast.Subscript):
                    name = written_name(target)
                    if name is not None:
                        found.append(Write(name, node, node, ctx, f"`{ctx.segment(target, 40)} = ...`", False, True))  # type: ignore[arg-type]
        elif cls is ast.Call:
            hit = _call_write(ctx, node)  # type: ignore[arg-type]
            if hit is None:
                continue
            name = written_name(hit[0]) or stored_attribute(hit[0])
            stmt = _statement(ctx, node)
            if name is not None and stmt is not None:
                found.append(Write(name, stmt, node, ctx, hit[1], hit[2], False))
    cache[scope] = found
    return found


_OPERATORS = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/=", ast.FloorDiv: "//=", ast.Pow: "**=",
              ast.Mod: "%=", ast.MatMult: "@=", ast.BitAnd: "&=", ast.BitOr: "|=", ast.BitXor: "^=",
              ast.LShift: "<<=", ast.RShift: ">>="}


# -- bindings -------------------------------------------------------------------------------------


def rebindings(ctx: FileContext, scope: ast.AST, name: str) -> list[tuple[int, ast.AST, ast.expr | None]]:
    """The bindings of ``name`` in ``scope`` that make it hold another object (augmented assignments excluded)."""
    return [e for e in vo.bindings(ctx, scope).get(name, []) if not isinstance(e[1], ast.AugAssign)]


def bound_before(ctx: FileContext, scope: ast.AST, name: str, line: int, at: ast.AST | None = None) -> tuple[int, ast.AST, ast.expr | None] | None:
    """The last binding of ``name`` on a line before ``line``, or None (a parameter, a global); with ``at``,
    bindings in the other branch of an ``if`` around ``at`` are passed over (they never reach it)."""
    best = None
    for entry in rebindings(ctx, scope, name):
        if entry[0] < line and (at is None or not exclusive(ctx, entry[1], at)):
            best = entry
    return best


def exclusive(ctx: FileContext, a: ast.AST, b: ast.AST) -> bool:
    """``a`` and ``b`` sit in different branches of one ``if`` (or ``if`` expression)."""
    branches: dict[int, str] = {}
    child = a
    for anc in ctx.ancestors(a):
        if isinstance(anc, (ast.If, ast.IfExp)):
            branches[id(anc)] = _branch(anc, child)
        child = anc
    child = b
    for anc in ctx.ancestors(b):
        if id(anc) in branches:
            side = _branch(anc, child)
            if side != branches[id(anc)] and "test" not in (side, branches[id(anc)]):
                return True
        child = anc
    return False


def _branch(node: ast.AST, child: ast.AST) -> str:
    if isinstance(node, ast.IfExp):
        return "body" if child is node.body else "orelse" if child is node.orelse else "test"
    if child in getattr(node, "body", ()):
        return "body"
    if child in getattr(node, "orelse", ()):
        return "orelse"
    return "test"


def reachable(ctx: FileContext, scope: ast.AST, stmt: ast.stmt, node: ast.AST) -> bool:
    """``node`` (later in the scope) can run after ``stmt``: no ``return`` / ``raise`` ends a block around
    ``stmt`` before it, and it is not in another branch of an ``if`` around ``stmt``."""
    if exclusive(ctx, stmt, node):
        return False
    current: ast.AST = stmt
    while current is not scope:
        parent = ctx.parent(current)
        if parent is None:
            break
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, field, None)
            if not isinstance(block, list) or current not in block:
                continue
            for sibling in block[block.index(current) + 1:]:
                if sibling.lineno <= node.lineno <= (sibling.end_lineno or sibling.lineno):
                    return True
                if isinstance(sibling, (ast.Return, ast.Raise)):
                    return False
        current = parent
    return True


def rebound_between(ctx: FileContext, scope: ast.AST, name: str, first: int, last: int) -> bool:
    """``name`` is bound again on a line after ``first`` and up to ``last``."""
    return any(first < e[0] <= last for e in rebindings(ctx, scope, name))


def alias_source(ctx: FileContext, value: ast.AST | None) -> tuple[str, str] | None:
    """(name, call) when ``value`` is the same object as a local name (call ``""``), or shares its memory
    (``torch.from_numpy(x)``, ``x.numpy()``, ``np.asarray(x)``, ``x.detach()``: the call in backquotes)."""
    if isinstance(value, ast.Name):
        return value.id, ""
    if not isinstance(value, ast.Call):
        return None
    method = call_method(value)
    if method in _BRIDGE_METHODS and not value.args and isinstance(value.func, ast.Attribute) \
            and isinstance(value.func.value, ast.Name) and value.func.value.id not in ctx.imports:
        return value.func.value.id, f"`.{method}()`"
    qual = vo.normalize(ctx.qualname(value)) or ""
    if qual in _BRIDGE_FUNCTIONS and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
            and not (qual == "torch.as_tensor" and value.keywords):
        return value.args[0].id, f"`{qual.replace('numpy.', 'np.')}()`"
    return None


def value_read(ctx: FileContext, node: ast.Name) -> bool:
    """The load of ``node`` reads the object's values (not only its shape, dtype, device or identity)."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr in _META_ATTRIBUTES:
        return False
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name) \
            and parent.func.id in _META_FUNCTIONS:
        return False
    if isinstance(parent, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in parent.ops):
        return False
    if isinstance(parent, (ast.Tuple, ast.List)):
        parent = ctx.parent(parent)
    # handed back as it is (a buffer kept alive, a handle), not looked at
    return not isinstance(parent, ast.Return)


def read_after(ctx: FileContext, scope: ast.AST, name: str, stmt: ast.stmt) -> ast.Name | None:
    """The first read of ``name``'s values after ``stmt`` in ``scope``, before ``name`` is bound again."""
    end = stmt.end_lineno or stmt.lineno
    later = [e[0] for e in rebindings(ctx, scope, name) if e[0] > end]
    stop = min(later) if later else None
    for node in _loads(ctx, scope).get(name, ()):
        if node.lineno <= end:
            continue
        if stop is not None and node.lineno > stop:
            break
        if stop is not None and node.lineno == stop and not _read_before_store(ctx, node):
            break
        if _overwritten(ctx, node) and reachable(ctx, scope, stmt, node):
            return None  # out=h, h.copy_(...): the old values are gone before anything reads them
        if value_read(ctx, node) and reachable(ctx, scope, stmt, node):
            return node
    return None


def _overwritten(ctx: FileContext, node: ast.Name) -> bool:
    """``node`` is where its object gets wholly new values: ``out=node``, ``node.copy_(...)``, ``node.zero_()``."""
    parent = ctx.parent(node)
    if isinstance(parent, ast.keyword) and parent.arg == "out":
        return True
    return isinstance(parent, ast.Attribute) and parent.attr in _OVERWRITES and isinstance(ctx.parent(parent), ast.Call)


def _read_before_store(ctx: FileContext, node: ast.Name) -> bool:
    """``node`` is on the right-hand side of the statement that binds it again (``x = x + 1``)."""
    stmt = _statement(ctx, node)
    return isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None \
        and any(n is node for n in ast.walk(stmt.value))


def _loads(ctx: FileContext, scope: ast.AST) -> dict[str, list[ast.Name]]:
    cache = ctx.__dict__.setdefault("_in_place_loads", {})
    table = cache.get(scope)
    if table is None:
        table = {}
        for node in ctx.walk_scope(scope):
            if node.__class__ is ast.Name and isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                table.setdefault(node.id, []).append(node)  # type: ignore[attr-defined]
        for names in table.values():
            names.sort(key=lambda n: (n.lineno, n.col_offset))
        cache[scope] = table
    return table


# -- what kind of object a name holds ----------------------------------------------------------------------


def array_like(ctx: FileContext, scope: ast.AST, name: str, line: int) -> bool:
    """``name`` holds an array, tensor or frame on ``line`` (so ``name += ...`` changes it in place)."""
    entry = bound_before(ctx, scope, name, line)
    if entry is not None:
        if entry[2] is not None and tensor_values.array_kind(ctx, entry[2]) is not None:
            return True
        source = alias_source(ctx, entry[2])
        if source is not None and source[1]:
            return True  # made by torch.from_numpy / .numpy() / .detach(): an array or a tensor
        if entry[2] is None and _name_kind_at(ctx, entry[1], name):
            return True  # unpacked from a loader's batch (x, y = batch)
    elif _parameter_array(ctx, scope, name):
        return True
    return used_as_array(ctx, scope, name)


def _name_kind_at(ctx: FileContext, stmt: ast.AST, name: str) -> bool:
    """The name bound by ``stmt`` (a tuple unpacking, a loop target) is known to hold an array or tensor."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [getattr(stmt, "target", None)]
    for target in targets:
        for node in ast.walk(target) if target is not None else ():
            if isinstance(node, ast.Name) and node.id == name:
                return tensor_values.array_kind(ctx, node) is not None
    return False


def _parameter_array(ctx: FileContext, scope: ast.AST, name: str) -> bool:
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) or name not in vo.function_params(scope):
        return False
    for arg in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs):
        if arg.arg == name and arg.annotation is not None:
            qual = vo.normalize(ctx.qualname(arg.annotation)) or ""
            if qual in ("torch.Tensor", "numpy.ndarray", "torch.FloatTensor", "pandas.DataFrame"):
                return True
    # the input of a module's forward
    return scope.name == "forward" and ctx.enclosing_class(scope) is not None and vo.function_params(scope)[1:2] == [name]


def used_as_array(ctx: FileContext, scope: ast.AST, name: str) -> bool:
    """The scope indexes ``name`` or asks it for array-only attributes (``x[..., ::-1]``, ``x.shape``)."""
    for node in _loads(ctx, scope).get(name, ()):
        parent = ctx.parent(node)
        if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.slice, ast.Tuple) \
                and any(isinstance(e, ast.Slice) or constant(e) is Ellipsis for e in parent.slice.elts):
            return True  # x[:, 0], x[..., ::-1]: indexing over several axes
        if isinstance(parent, ast.Attribute) and parent.attr in _ARRAY_EVIDENCE:
            return True
    return False


# -- helpers that change their arguments ------------------------------------------------------------------


def mutated_parameters(ctx: FileContext, func: ast.AST, depth: int = 0) -> dict[str, Write]:
    """Parameter -> the first write that changes the caller's object, for a project function (cached)."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return {}
    cache = ctx.__dict__.setdefault("_in_place_params", {})
    if func in cache:
        return cache[func]
    cache[func] = {}  # recursion guard
    params = [p for p in vo.function_params(func) if p not in ("self", "cls")]
    if not params:
        return {}
    found: dict[str, Write] = {}
    writes = list(direct_writes(ctx, func))
    if depth < MAX_DEPTH:
        writes += helper_writes(ctx, func, depth + 1, names=set(params))
    for write in sorted(writes, key=lambda w: w.stmt.lineno):
        if write.name not in params or write.name in found or _optional(ctx, func, write.node):
            continue
        if bound_before(ctx, func, write.name, write.stmt.lineno) is not None:
            continue  # the parameter was rebound (a copy, a new value) before the write
        found[write.name] = write
    cache[func] = found
    return found


def _optional(ctx: FileContext, func: ast.AST, stmt: ast.AST) -> bool:
    """``stmt`` runs only when an option is switched on: under ``if flag:`` / ``if self.flag:`` (or the first arm
    of ``... if flag else ...``) where ``flag`` is a parameter defaulting to False or None, or an attribute of the
    object (``if inplace: x.mul_(m)``)."""
    for anc in ctx.ancestors(stmt):
        if anc is func:
            return False
        if isinstance(anc, ast.IfExp) and _in(ctx, stmt, anc.body) or isinstance(anc, ast.If) \
                and not _in(ctx, stmt, anc.test) and not any(_in(ctx, stmt, o) for o in anc.orelse):
            test = anc.test
            if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
                return True
            if isinstance(test, ast.Name) and test.id in vo.function_params(func) \
                    and constant(vo.parameter_default(func, test.id)) in (False, None):
                return True
    return False


def _in(ctx: FileContext, node: ast.AST, root: ast.AST) -> bool:
    return node is root or any(a is root for a in ctx.ancestors(node))


def _callee(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.AST] | None:
    """(file, function) the call runs, when the project defines it: a function or method, or the ``__call__`` /
    ``forward`` of a project object (``self.transform(x)``, ``self.block(x)``)."""
    target = function_summaries.resolve_call(ctx, call, bind_params=False)
    if target is not None:
        return target
    owner = vo.instance_class(ctx, call.func, bind_params=False)
    if owner is None:
        return None
    for method in ("__call__", "forward"):
        hit = vo.class_method(owner[0], owner[1], method)
        if hit is not None:
            return hit
    return None


def _object_callee(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.AST] | None:
    """The ``forward`` / ``__call__`` a call of a project object runs (``self.block(x)``, ``aug(x)``)."""
    func = call.func
    if not (isinstance(func, ast.Name) or isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
            and func.value.id == "self"):
        return None
    owner = vo.instance_class(ctx, func, bind_params=False)
    if owner is None:
        return None
    for method in ("forward", "__call__"):
        hit = vo.class_method(owner[0], owner[1], method)
        if hit is not None:
            return hit
    return None


def helper_writes(ctx: FileContext, scope: ast.AST, depth: int = 0, *, names: set[str] | None = None,
                  objects_only: bool = False) -> list[Write]:
    """Writes on the names ``scope`` passes to project functions that change that argument in place.

    ``names`` limits the calls looked at to those passing one of these names (resolving every call is costly);
    ``objects_only`` to calls of project objects (their ``forward`` / ``__call__``), whose callers are not found
    by name from the callee's side.
    """
    found: list[Write] = []
    for node in ctx.walk_scope(scope):
        if node.__class__ is not ast.Call:
            continue
        call: ast.Call = node  # type: ignore[assignment]
        passed = [a for a in (*call.args, *(k.value for k in call.keywords)) if isinstance(a, ast.Name)]
        if not passed or (names is not None and not any(a.id in names for a in passed)):
            continue
        target = _object_callee(ctx, call) if objects_only else _callee(ctx, call)
        if target is None:
            continue
        tctx, tfunc = target
        if tfunc is scope:
            continue
        changed = mutated_parameters(tctx, tfunc, depth)
        if not changed:
            continue
        stmt = _statement(ctx, call)
        if stmt is None:
            continue
        for param, inner in changed.items():
            arg = vo.argument_for(call, tfunc, param)
            if isinstance(arg, ast.Name) and (names is None or arg.id in names):
                where = f"{getattr(tfunc, 'name', '?')} ({tctx.display_path} line {getattr(tfunc, 'lineno', '?')})"
                transform = getattr(tfunc, "name", "") in ("forward", "__call__")  # called as a function of its input
                found.append(Write(arg.id, stmt, inner.node, inner.ctx, inner.how, True, inner.needs_array,
                                   helper=where, returns_argument=transform or returns_parameter(tfunc, param)))
    return found


# -- who else holds the object ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Holder:
    """Another holder of a written object: ``name`` (``self.images`` for stored data), ``bound`` the line that
    made it share the object, ``how`` in words, and ``read`` the later read that expects the original (None
    for stored data, which the next call reads)."""

    name: str
    bound: int
    how: str
    read: ast.Name | None
    conditional: bool = False  # the sharing is one arm of an if/else whose other arm binds the name otherwise


def holders(ctx: FileContext, scope: ast.AST, write: Write) -> list[Holder]:
    """The other holders of the object ``write`` changes that read it afterwards (see the module docstring)."""
    name, stmt = write.name, write.stmt
    line = stmt.lineno
    found: list[Holder] = []
    own = bound_before(ctx, scope, name, line, stmt)
    # the name the written one was bound from (x = h; x += 1; ... h)
    if own is not None:
        source = alias_source(ctx, own[2])
        if source is not None and source[0] != name and not rebound_between(ctx, scope, source[0], own[0] - 1, line):
            read = read_after(ctx, scope, source[0], stmt)
            if read is not None:
                how = f"`{name}` was bound to it" if not source[1] else f"`{name}` was made from it by {source[1]}, sharing its memory"
                found.append(Holder(source[0], own[0], how, read, _one_arm(ctx, scope, own[1], name)))
    # names bound from the written one since it was last bound (identity = x; x.add_(1); ... identity)
    start = own[0] if own is not None else 0
    for other in vo.bindings(ctx, scope):
        if other == name or any(h.name == other for h in found):
            continue
        last = bound_before(ctx, scope, other, line, stmt)
        if last is None or last[0] < start or (own is not None and last[0] == own[0]):
            continue
        source = alias_source(ctx, last[2])
        if source is None or source[0] != name:
            continue
        read = read_after(ctx, scope, other, stmt)
        if read is not None:
            how = f"bound to `{name}`" if not source[1] else f"made from `{name}` by {source[1]}, sharing its memory"
            found.append(Holder(other, last[0], how, read, _one_arm(ctx, scope, last[1], other)))
    # the written name itself, when the write looked like it made a new value for another name
    if write.functional and write.returns_argument and isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        bound_names = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if name not in bound_names:
            read = read_after(ctx, scope, name, stmt)
            if read is not None:
                found.append(Holder(name, 0, "", read))
    return found


def _one_arm(ctx: FileContext, scope: ast.AST, binding: ast.AST, name: str) -> bool:
    """``binding`` is one arm of an ``if``/``else`` whose other arm binds ``name`` to something else: the name is a
    stand-in for the other value when an option is off (``r = t`` unless a separate ``r`` is asked for)."""
    for anc in ctx.ancestors(binding):
        if anc is scope:
            return False
        if isinstance(anc, ast.If) and anc.orelse:
            other = anc.orelse if any(_in(ctx, binding, b) for b in anc.body) else anc.body
            return any(isinstance(n, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id == name for tg in (n.targets if isinstance(n, ast.Assign) else [n.target])
                for t in ast.walk(tg)) for b in other for n in ast.walk(b))
    return False


def stored_source(ctx: FileContext, scope: ast.AST, name: str, line: int, depth: int = 0) -> tuple[str, int] | None:
    """(``self.attr``, line) when ``name`` holds, on ``line``, an element or slice of an object stored on
    ``self`` taken without a copy (``img = self.images[i]``, ``s = self.samples[i]; x = s["x"]``,
    ``t = torch.from_numpy(self.data[i])``), and the scope does not store that attribute itself."""
    if name.startswith("self."):
        return None if _stores_attribute(ctx, scope, name[5:]) else (name, line)
    entry = bound_before(ctx, scope, name, line)
    if entry is None or entry[2] is None or depth > MAX_DEPTH or not isinstance(entry[1], ast.Assign):
        return None
    value = entry[2]
    if isinstance(value, ast.Call):
        qual = vo.normalize(ctx.qualname(value)) or ""
        if qual in _BRIDGE_FUNCTIONS and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        else:
            return None
    if not isinstance(value, ast.Subscript) or not _view_index(value.slice):
        return None
    owner = value.value
    if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
        if _stores_attribute(ctx, scope, owner.attr):
            return None
        return f"self.{owner.attr}", entry[0]
    if isinstance(owner, ast.Name):
        return stored_source(ctx, scope, owner.id, entry[0], depth + 1)
    return None


def _view_index(index: ast.AST) -> bool:
    """An index that takes an element or a basic slice (no fancy indexing, which copies)."""
    if isinstance(index, ast.Tuple):
        return all(_view_index(e) for e in index.elts)
    if isinstance(index, ast.Slice):
        return True
    if isinstance(index, (ast.Name, ast.Constant)):
        return True
    if isinstance(index, ast.Attribute):
        return dotted(index) is not None
    if isinstance(index, ast.BinOp):
        return _view_index(index.left) and _view_index(index.right)
    if isinstance(index, ast.UnaryOp):
        return _view_index(index.operand)
    return False


def _stores_attribute(ctx: FileContext, scope: ast.AST, attr: str) -> bool:
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Attribute) and node.attr == attr and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name) and node.value.id == "self":
            return True
    return False


# -- stored samples written back transformed ---------------------------------------------------------------


@dataclass(frozen=True)
class WriteBack:
    """``self.attr[key] = v`` in ``stmt``, where ``v`` was computed from ``self.attr[key]`` taken at ``fetched``."""

    stmt: ast.Assign
    attr: str
    fetched: int


def write_backs(ctx: FileContext, scope: ast.AST) -> list[WriteBack]:
    """Stores into ``self.attr[key]`` of a value transformed from what ``self.attr[key]`` held, outside any
    ``if`` (a guarded store is a lazy load or a cache fill): the stored sample compounds call after call."""
    found: list[WriteBack] = []
    for node in ctx.walk_scope(scope):
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Subscript):
            continue
        target = node.targets[0]
        attr = stored_attribute(target)
        if attr is None and isinstance(target.value, ast.Name):  # sample = self.samples[i]; sample["image"] = ...
            source = stored_source(ctx, scope, target.value.id, node.lineno)
            attr = source[0] if source is not None else None
        if attr is None:
            continue
        if any(isinstance(a, (ast.If, ast.IfExp, ast.Try)) for a in ctx.ancestors_below(node, scope)):
            continue
        if any(isinstance(g, ast.If) and g.lineno < node.lineno and any(isinstance(r, ast.Return) for r in ast.walk(g))
               for g in ctx.walk_scope(scope)):
            continue  # an earlier `if ...: return` guards it: a lazy load or a memo
        fetched = _transformed_from(ctx, scope, node.value, node.lineno, target)
        if fetched is not None and fetched[1]:
            found.append(WriteBack(node, attr, fetched[0]))
    return found


def _transformed_from(ctx: FileContext, scope: ast.AST, value: ast.expr, line: int,
                      store: ast.Subscript) -> tuple[int, bool] | None:
    """(line, transformed) when ``value`` is computed from ``store``'s own element (see :func:`_fetched_from`)."""
    if isinstance(value, ast.Name):
        return _fetched_from(ctx, scope, value.id, line, store, 0)
    for node in ast.walk(value):
        if isinstance(node, ast.Subscript) and same_subscript(node, store):
            return line, True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            hit = _fetched_from(ctx, scope, node.id, line, store, 1)
            if hit is not None:
                return hit[0], True
    return None


def _fetched_from(ctx: FileContext, scope: ast.AST, name: str, line: int, store: ast.Subscript,
                  depth: int) -> tuple[int, bool] | None:
    """(line, transformed) when ``name`` on ``line`` was computed from ``store``'s element read back (``x =
    self.cache[i]`` ... ``x = aug(x)``), ``transformed`` when some step between changed it."""
    entry = bound_before(ctx, scope, name, line)
    if entry is None or entry[2] is None or depth > 6:
        return None
    value = entry[2]
    if isinstance(value, ast.Subscript) and same_subscript(value, store):
        return entry[0], depth > 0
    if isinstance(value, ast.Name):
        return _fetched_from(ctx, scope, value.id, entry[0], store, depth)
    for node in ast.walk(value):
        if isinstance(node, ast.Subscript) and same_subscript(node, store):
            return entry[0], True
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            hit = _fetched_from(ctx, scope, node.id, entry[0], store, depth + 1)
            if hit is not None:
                return hit[0], True
    return None


def same_subscript(a: ast.Subscript, b: ast.Subscript) -> bool:
    return dotted(a.value) is not None and dotted(a.value) == dotted(b.value) and same_tree(a.slice, b.slice)


# -- transforms handed to a dataset through its constructor ------------------------------------------------

# Methods that hand back a view of their receiver (or the receiver itself): a pipeline step made of these still
# passes the stored data on to the next step.
_VIEW_METHODS = frozenset({"unsqueeze", "squeeze", "view", "view_as", "reshape", "permute", "transpose", "expand",
                           "expand_as", "narrow", "select", "detach", "T", "mT", "unflatten", "movedim"})


def injected_writes(ctx: FileContext, call: ast.Call, name: str, stmt: ast.stmt) -> list[Write]:
    """Writes on ``name`` by ``self.attr(name)`` when ``self.attr`` is a constructor argument (``transform=``)
    and what the callers pass there is, or is a pipeline (a construction whose argument lists the steps, and
    whose ``__call__`` loops over them) holding, a project object whose ``__call__`` changes its input in place,
    reached through steps that hand on their input or a view of it (``x.unsqueeze(0)``, ``return x``)."""
    func = call.func
    cls = ctx.enclosing_class(call)
    if cls is None or not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                           and func.value.id == "self"):
        return []
    init = ctx.method(cls, "__init__")
    if init is None:
        return []
    params = set(vo.function_params(init))
    bound = ctx.self_attributes(cls).get(func.attr, [])
    passed = [v.id for v in bound if isinstance(v, ast.Name) and v.id in params]
    if len(passed) != 1:
        return []
    found: list[Write] = []
    for sctx, site in vo.all_call_sites(ctx, init)[:8]:
        arg = vo.argument_for(site, init, passed[0])
        for cctx, construction in _constructions(sctx, arg, 0):
            hit = _pipeline_write(cctx, construction)
            if hit is not None:
                found.append(Write(name, stmt, hit.node, hit.ctx, hit.how, True, hit.needs_array, helper=hit.helper))
    return found


def _constructions(ctx: FileContext, expr: ast.AST | None, depth: int) -> list[tuple[FileContext, ast.Call]]:
    """The calls whose result ``expr`` holds: a call itself, a local name bound to one, a parameter every
    caller fills (a few levels up)."""
    if expr is None or depth > MAX_DEPTH:
        return []
    if isinstance(expr, ast.Call):
        return [(ctx, expr)]
    if not isinstance(expr, ast.Name):
        return []
    value = vo.value(ctx, expr)
    if isinstance(value, ast.Call):
        return [(ctx, value)]
    func = ctx.enclosing_function(expr)
    if value is not expr or func is None or expr.id not in vo.function_params(func):
        return []
    found = []
    for sctx, arg in vo.passed_arguments(ctx, func, expr.id):
        found += _constructions(sctx, arg, depth + 1)
    return found


def _pipeline_write(ctx: FileContext, construction: ast.Call) -> Write | None:
    """The in-place write on its input that calling the object ``construction`` builds makes (see
    :func:`injected_writes`)."""
    step = _step(ctx, construction)
    if step is None:
        return None
    if step[0] == "writes":
        return step[1]
    steps = [a for a in construction.args if isinstance(a, (ast.List, ast.Tuple))]
    if len(steps) != 1 or step[0] != "loops":
        return None
    for element in steps[0].elts:
        inner = _step(ctx, element) if isinstance(element, ast.Call) else None
        if inner is None or inner[0] == "copies":
            return None
        if inner[0] == "writes":
            return inner[1]
    return None


def _step(ctx: FileContext, construction: ast.Call) -> tuple[str, Write | None] | None:
    """What the object built by ``construction`` does to its input when called: ("writes", the write),
    ("passes", None) when it may hand on the input or a view of it, ("loops", None) for a pipeline that calls
    each of its steps in turn, ("copies", None) otherwise; None when the scan cannot tell."""
    layer = in_place_layer(ctx, construction)
    if layer is not None:
        return "writes", Write("", _statement(ctx, construction) or construction, construction, ctx,  # type: ignore[arg-type]
                               f"`{layer}`", True, False)
    owner = vo.constructed_class(ctx, construction)
    if owner is None:
        return None
    hit = vo.class_method(owner[0], owner[1], "__call__")
    if hit is None:
        return None
    tctx, method = hit
    params = [p for p in vo.function_params(method) if p not in ("self", "cls")]
    if not params:
        return None
    changed = mutated_parameters(tctx, method)
    if params[0] in changed:
        write = changed[params[0]]
        where = f"{owner[1].name}.__call__ ({tctx.display_path} line {getattr(method, 'lineno', '?')})"
        return "writes", Write(write.name, write.stmt, write.node, write.ctx, write.how, True, write.needs_array,
                               helper=where)
    if any(isinstance(n, ast.For) for n in tctx.walk_scope(method)):
        return "loops", None
    for value in vo.returns(method):
        if _passes_input(value, params[0]):
            return "passes", None
    return "copies", None


def _passes_input(value: ast.AST, param: str) -> bool:
    """``x``, ``x.unsqueeze(0)``, ``x[..., ::-1]``: the returned value may be the input or a view of it."""
    while True:
        if isinstance(value, ast.Name):
            return value.id == param
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in _VIEW_METHODS:
            value = value.func.value
        elif isinstance(value, ast.Attribute) and value.attr in _VIEW_METHODS or isinstance(value, ast.Subscript) and _view_index(value.slice):
            value = value.value
        else:
            return False


def transform_writes(ctx: FileContext, scope: ast.AST) -> list[Write]:
    """:func:`injected_writes` for every ``self.attr(x)`` call in ``scope`` the project cannot resolve directly."""
    found: list[Write] = []
    for node in ctx.walk_scope(scope):
        if node.__class__ is not ast.Call or not node.args or not isinstance(node.args[0], ast.Name):  # type: ignore[attr-defined]
            continue
        func = node.func  # type: ignore[attr-defined]
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self"):
            continue
        if _object_callee(ctx, node) is not None or function_summaries.resolve_call(ctx, node, bind_params=False):  # type: ignore[arg-type]
            continue
        stmt = _statement(ctx, node)
        if stmt is not None:
            found += injected_writes(ctx, node, node.args[0].id, stmt)  # type: ignore[arg-type,attr-defined]
    return found
