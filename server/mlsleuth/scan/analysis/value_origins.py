"""Value origins: what produced a value, as the loss, numerical, data and evaluation rules ask it.

These answer questions of the form "what produced this tensor?" and "what
does calling this object compute?" across the constructs training code uses:

* a local name assigned earlier in the function (``probs = F.softmax(...)``),
  or at module level (notebooks, scripts);
* ``self.attr`` bound in any method of the enclosing class
  (``self.crit = nn.CrossEntropyLoss()`` in ``__init__``);
* module objects: ``nn.Softmax(dim=1)``, an ``nn.Sequential`` whose last
  layer decides what it returns, a model class defined in the same file
  (its ``forward`` decides), ``self(x)`` inside such a class;
* helper functions and methods defined in the same file (their ``return``
  statements decide);
* shape-only tensor methods (``.view``, ``.float()``, ``[..., 0]``) that do
  not change what the values mean.

Everything here is conservative: when a value cannot be followed, the answer
is ``None`` ("unknown"), never a guess.
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass, field

from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    dotted,
    iter_children,
    same_tree,
)

MAX_DEPTH = 12

# What a tensor "is", as far as the loss rules care.
SOFTMAX = "softmax"
SIGMOID = "sigmoid"
LOG_SOFTMAX = "log_softmax"
LOGSIGMOID = "logsigmoid"
RAW = "raw"  # the output of an affine layer (nn.Linear, a convolution, F.linear): raw scores, no activation
NORMALIZED = "normalized"  # x / x.sum(dim) with x >= 0: a distribution made by hand (DEC's soft assignments), not log space

_FUNCTION_KINDS = {
    "torch.softmax": SOFTMAX,
    "torch.nn.functional.softmax": SOFTMAX,
    "torch.special.softmax": SOFTMAX,
    "torch.sigmoid": SIGMOID,
    "torch.nn.functional.sigmoid": SIGMOID,
    "torch.special.expit": SIGMOID,
    "torch.log_softmax": LOG_SOFTMAX,
    "torch.nn.functional.log_softmax": LOG_SOFTMAX,
    "torch.special.log_softmax": LOG_SOFTMAX,
    "torch.nn.functional.logsigmoid": LOGSIGMOID,
    "torch.nn.functional.linear": RAW,
}
_METHOD_KINDS = {"softmax": SOFTMAX, "sigmoid": SIGMOID, "log_softmax": LOG_SOFTMAX}
_MODULE_KINDS = {
    "torch.nn.Softmax": SOFTMAX,
    "torch.nn.Sigmoid": SIGMOID,
    "torch.nn.LogSoftmax": LOG_SOFTMAX,
    "torch.nn.LogSigmoid": LOGSIGMOID,
}

# Tensor methods that reshape, move or retype values without changing what they mean.
PASSTHROUGH_METHODS = frozenset(
    {
        "view", "reshape", "flatten", "squeeze", "unsqueeze", "contiguous", "permute", "transpose",
        "float", "double", "half", "bfloat16", "to", "cpu", "cuda", "type", "clone", "detach",
        "view_as", "reshape_as", "expand", "expand_as", "type_as", "requires_grad_",
    }
)
PASSTHROUGH_FUNCTIONS = frozenset(
    {"torch.flatten", "torch.squeeze", "torch.unsqueeze", "torch.reshape", "torch.permute", "torch.transpose"}
)

LOSS_CLASSES = {
    "torch.nn.CrossEntropyLoss": "cross_entropy",
    "torch.nn.NLLLoss": "nll_loss",
    "torch.nn.BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
    "torch.nn.BCELoss": "binary_cross_entropy",
    "torch.nn.KLDivLoss": "kl_div",
    "torch.nn.CTCLoss": "ctc_loss",
}
LOSS_FUNCTIONS = {
    "torch.nn.functional.cross_entropy": "cross_entropy",
    "torch.nn.functional.nll_loss": "nll_loss",
    "torch.nn.functional.binary_cross_entropy_with_logits": "binary_cross_entropy_with_logits",
    "torch.nn.functional.binary_cross_entropy": "binary_cross_entropy",
    "torch.nn.functional.kl_div": "kl_div",
    "torch.nn.functional.ctc_loss": "ctc_loss",
}

# Layers whose output is an affine map of their input: scores with no activation applied.
_AFFINE_MODULES = frozenset(
    {"torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Bilinear", "torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d"}
)

_MODULES_PATH = re.compile(r"^torch\.nn\.modules\.[a-z_]+\.")


# Reductions and reorderings that keep values in the range an activation gave them: the batch
# mean of softmax rows is still a distribution, sorted probabilities are still probabilities.
_RANGE_PRESERVING = frozenset({"mean", "sort", "flip", "roll", "gather", "index_select", "masked_select"})
_SORTING = frozenset({"sort", "topk", "max", "min"})


def _is_activation_kind_call(ctx: FileContext, receiver: ast.AST, depth: int) -> bool:
    """Only a probability-like receiver passes through a reduction (a mean of logits means nothing here)."""
    found = origin(ctx, receiver, depth + 1)
    return found is not None and found.kind in (SOFTMAX, SIGMOID, NORMALIZED)


def origin_callees(*kinds: str) -> tuple[str, ...]:
    """The callee names (as :meth:`FileContext.calls_named` reads them) of every call that
    :func:`origin` can report as one of ``kinds``: a rule about such values needs one."""
    tables = (*_FUNCTION_KINDS.items(), *_MODULE_KINDS.items())
    names = {q.rpartition(".")[2] for q, k in tables if k in kinds} | {m for m, k in _METHOD_KINDS.items() if k in kinds}
    return tuple(sorted(names))


def loss_callees(*names: str) -> tuple[str, ...]:
    """The callee names of every call :func:`loss_call` can recognise as one of the losses ``names``."""
    tables = (*LOSS_FUNCTIONS.items(), *LOSS_CLASSES.items())
    return tuple(sorted({q.rpartition(".")[2] for q, n in tables if n in names}))


def normalize(qualname: str | None) -> str | None:
    """``torch.nn.modules.loss.CrossEntropyLoss`` -> ``torch.nn.CrossEntropyLoss``."""
    if qualname is None:
        return None
    return _MODULES_PATH.sub("torch.nn.", qualname)


@dataclass
class Origin:
    """Where a value came from: ``kind`` (e.g. ``softmax``) made by ``node``, reached through ``via``."""

    kind: str
    node: ast.AST
    via: list[str] = field(default_factory=list)
    label: str | None = None  # "probs = F.softmax(z, 1)" when the producing call was assigned to a name
    ctx: FileContext | None = None  # the file ``node`` is in (another module of the project, or the rule's own)
    in_model: bool = False  # produced inside a model (its forward, its last layer, its builder), not next to the loss
    reduced: bool = False  # passed through a mean/sort/gather: still probabilities, no longer one activation's output


# -- names ---------------------------------------------------------------------------


def function_params(func: ast.AST) -> list[str]:
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return []
    a = func.args
    return [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)] + (
        [a.vararg.arg] if a.vararg else []
    ) + ([a.kwarg.arg] if a.kwarg else [])


def parameter_default(func: ast.AST, param: str) -> ast.expr | None:
    """The default value of ``func``'s parameter ``param`` (positional or keyword-only), or None."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None
    a = func.args
    positional = [*a.posonlyargs, *a.args]
    defaults = dict(zip([p.arg for p in positional[len(positional) - len(a.defaults):]], a.defaults))
    defaults.update({p.arg: d for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None})
    return defaults.get(param)


def bindings(ctx: FileContext, scope: ast.AST) -> dict[str, list[tuple[int, ast.AST, ast.expr | None]]]:
    """``ctx.assignments(scope)``, computed once per scope (rules ask about the same scopes many times)."""
    cache = ctx.__dict__.setdefault("_value_origins_bindings", {})
    if scope not in cache:
        cache[scope] = ctx.assignments(scope)
    return cache[scope]


def local_value(ctx: FileContext, name: ast.Name, depth: int = 0) -> ast.expr | None:
    """Same answer as ``ctx.value_of`` (the last value bound to ``name`` before its use), from cached bindings."""
    if depth > 8:
        return None
    scope = ctx.enclosing_function(name) or ctx.tree
    best = None
    for line, _stmt, val in bindings(ctx, scope).get(name.id, []):
        if line < name.lineno or (line == name.lineno and val is not None and val.col_offset > name.col_offset):
            best = val
    if best is None and scope is not ctx.tree:
        return None
    if isinstance(best, ast.Name):
        return local_value(ctx, best, depth + 1) or best
    return best


def is_parameter(ctx: FileContext, name: ast.Name) -> bool:
    func = ctx.enclosing_function(name)
    return func is not None and name.id in function_params(func) and not bindings(ctx, func).get(name.id)


def module_value(ctx: FileContext, name: str) -> ast.expr | None:
    """The last simple module-level assignment to ``name`` (scripts and notebooks bind models there)."""
    entries = bindings(ctx, ctx.tree).get(name, [])
    values = [v for _line, _stmt, v in entries if v is not None]
    return values[-1] if values else None


def value(ctx: FileContext, expr: ast.AST | None) -> ast.AST | None:
    """What a name or ``self.attr`` was bound to, falling back to module level; else the expression itself."""
    if isinstance(expr, ast.Name):
        found = local_value(ctx, expr)
        if found is not None:
            return found
        func = ctx.enclosing_function(expr)
        if func is not None and (expr.id in function_params(func) or bindings(ctx, func).get(expr.id)):
            return expr
        if expr.id in ctx.imports:
            return expr
        return module_value(ctx, expr.id) or expr
    return ctx.resolve(expr)


def call_sites(ctx: FileContext, func: ast.AST) -> list[ast.Call]:
    """Calls in this file that run ``func`` (a module function, or a method through ``self``)."""
    index = ctx.__dict__.get("_value_origins_call_sites")
    if index is None:
        index = {}
        for c in ctx.calls():
            target = callee(ctx, c)
            if target is not None:
                index.setdefault(target, []).append(c)
            elif isinstance(c.func, ast.Name):
                # Trainer(model, ...) runs Trainer.__init__
                cls = file_class(ctx, c.func.id)
                init = ctx.method(cls, "__init__") if cls is not None else None
                if init is not None:
                    index.setdefault(init, []).append(c)
        ctx.__dict__["_value_origins_call_sites"] = index
    return index.get(func, [])


def callee(ctx: FileContext, call: ast.Call) -> ast.AST | None:
    """``ctx.callee_definition(call)`` with the module's functions indexed once (big files have thousands)."""
    table = ctx.__dict__.get("_value_origins_functions")
    if table is None:
        table = {}
        for node in ctx.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                table.setdefault(node.name, node)
        ctx.__dict__["_value_origins_functions"] = table
    if isinstance(call.func, ast.Name):
        return table.get(call.func.id)
    if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self":
        return ctx.callee_definition(call)
    return None


def argument_for(call: ast.Call, func: ast.AST, param: str) -> ast.expr | None:
    """The expression ``call`` passes for parameter ``param`` of ``func``."""
    if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    for kw in call.keywords:
        if kw.arg == param:
            return kw.value
    positional = [p.arg for p in (*func.args.posonlyargs, *func.args.args)]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    if param in positional:
        i = positional.index(param)
        if any(isinstance(a, ast.Starred) for a in call.args[: i + 1]):
            return None
        if i < len(call.args):
            return call.args[i]
    return None


def returns(func: ast.AST) -> list[ast.expr]:
    """The values of ``return`` statements directly in ``func`` (not nested functions)."""
    found: list[ast.expr] = []
    stack = list(iter_children(func))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            found.append(node.value)
        stack.extend(iter_children(node))
    return found


def file_class(ctx: FileContext, name: str) -> ast.ClassDef | None:
    """The first class named ``name`` defined anywhere in the file."""
    table = ctx.__dict__.get("_value_origins_classes")
    if table is None:
        table = {}
        for cls in ctx.classes:
            table.setdefault(cls.name, cls)
        ctx.__dict__["_value_origins_classes"] = table
    return table.get(name)


def root_name(expr: ast.AST) -> str | None:
    """The variable a chain of attributes, subscripts and method calls starts from."""
    while True:
        if isinstance(expr, ast.Call):
            if isinstance(expr.func, ast.Attribute):
                expr = expr.func.value
                continue
            return None
        if isinstance(expr, (ast.Attribute, ast.Subscript)):
            expr = expr.value
            continue
        if isinstance(expr, ast.Name):
            return expr.id
        return None


def words(name: str) -> list[str]:
    """``X_test`` -> ['x', 'test']; ``trainLoader`` -> ['train', 'loader']."""
    return list(_words(name))


@functools.lru_cache(maxsize=1 << 16)
def _words(name: str) -> tuple[str, ...]:
    # memoised: rules split the same identifiers over and over (a fresh list is handed out each time)
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return tuple(w for w in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=\d)", spaced.lower()) if w)


# -- what a tensor is ----------------------------------------------------------------------


def origin(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> Origin | None:
    """The activation that produced ``expr`` (softmax, sigmoid, ...) if it can be followed."""
    if expr is None or depth > MAX_DEPTH:
        return None
    if isinstance(expr, ast.Name):
        bound = value(ctx, expr)
        if bound is None or bound is expr or isinstance(bound, ast.Name) and bound.id == expr.id:
            if depth <= MAX_PARAM_DEPTH and is_parameter(ctx, expr):
                return _passed_in(ctx, expr, depth)
            return _unpacked(ctx, expr, depth)
        found = origin(ctx, bound, depth + 1)
        if found is not None:
            line = getattr(bound, "lineno", None)
            if found.node is bound and found.label is None:
                found.label = f"{expr.id} = {ctx.segment(bound, 80)}"
            elif not any(step.startswith(f"{expr.id} =") for step in found.via):
                found.via.insert(0, f"{expr.id} = {ctx.segment(bound, 80)} (line {line})")
        return found
    if isinstance(expr, ast.Attribute) and expr.attr == "values" and call_method(expr.value) in _SORTING:
        found = origin(ctx, expr.value.func.value, depth + 1)  # type: ignore[union-attr]  # probs.sort(...).values
        if found is not None:
            found.reduced = True
        return found
    if isinstance(expr, ast.Attribute):
        if isinstance(expr.value, ast.Name) and expr.value.id == "self":
            bound = ctx.resolve(expr)
            if bound is not None and bound is not expr:
                return origin(ctx, bound, depth + 1)
        return None
    if isinstance(expr, ast.Subscript):
        if isinstance(expr.slice, ast.Constant) and isinstance(expr.slice.value, str):
            keyed = _keyed_entry(ctx, expr, depth)
            if keyed is not None:
                return keyed
        return origin(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Sub) and isinstance(expr.left, ast.Constant) and expr.left.value == 1:
        found = origin(ctx, expr.right, depth + 1)  # 1 - sigmoid(x) is sigmoid(-x): still saturates to 0
        return found if found is not None and found.kind == SIGMOID else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):
        return _normalized_ratio(ctx, expr, depth)
    if not isinstance(expr, ast.Call):
        return None
    qual = normalize(ctx.qualname(expr))
    if qual in _FUNCTION_KINDS:
        return Origin(_FUNCTION_KINDS[qual], expr, ctx=ctx)
    if qual in PASSTHROUGH_FUNCTIONS and expr.args:
        return origin(ctx, expr.args[0], depth + 1)
    method = call_method(expr)
    if method is not None and isinstance(expr.func, ast.Attribute):
        receiver = expr.func.value
        head = dotted(receiver)
        is_module_ref = head is not None and head.split(".")[0] in ctx.imports and ctx.qualname(receiver) != head
        if not is_module_ref and not (isinstance(receiver, ast.Name) and receiver.id == "self"):
            if method in _METHOD_KINDS and not _looks_like_module_object(ctx, receiver):
                return Origin(_METHOD_KINDS[method], expr, ctx=ctx)
            if method in PASSTHROUGH_METHODS:
                return origin(ctx, receiver, depth + 1)
            if method in _RANGE_PRESERVING and _is_activation_kind_call(ctx, receiver, depth):
                found = origin(ctx, receiver, depth + 1)
                if found is not None and method == "mean":
                    found.reduced = True  # a selection (gather, sort) keeps each value; a mean mixes them
                return found
            if method == "forward":
                return output_of_callable(ctx, receiver, expr, depth + 1)
    helper = callee(ctx, expr)
    if helper is not None:
        found = _all_returns(ctx, helper, depth + 1)
        if found is not None:
            found.via.append(f"returned by {helper.name}() (line {helper.lineno})")
        return found
    if method is not None and isinstance(expr.func, ast.Attribute) and method not in PASSTHROUGH_METHODS:
        found = _instance_method_output(ctx, expr.func.value, method, depth)
        if found is not None:
            return found
    elsewhere = project_function(ctx, expr.func)
    if elsewhere is not None:
        octx, func = elsewhere
        found = _all_returns(octx, func, depth + 1)
        if found is not None:
            found.via.append(f"returned by {func.name}() ({octx.display_path}, line {func.lineno})")
        return found
    return output_of_callable(ctx, expr.func, expr, depth + 1)


MAX_PARAM_DEPTH = 3


# -- distributions made by hand: x / x.sum(dim) ----------------------------------------------

_SIGN_DEPTH = 12  # nodes followed to prove a value >= 0 (names, operators, method chains)
_SUM_FUNCTIONS = frozenset({"torch.sum", "numpy.sum"})
_NONNEGATIVE_FUNCTIONS = frozenset(
    {
        "torch.exp", "torch.abs", "torch.square", "torch.relu", "torch.nn.functional.relu", "torch.nn.functional.softplus",
        "torch.sqrt", "numpy.exp", "numpy.abs", "numpy.square", "numpy.sqrt", *(q for q, k in _FUNCTION_KINDS.items() if k in (SOFTMAX, SIGMOID)),
    }
)
_NONNEGATIVE_METHODS = frozenset({"exp", "abs", "square", "relu", "sqrt", "softmax", "sigmoid"})
_KEEPS_SIGN_FUNCTIONS = frozenset({"torch.sum", "torch.mean", "numpy.sum", "numpy.mean", *PASSTHROUGH_FUNCTIONS})
_KEEPS_SIGN_METHODS = frozenset({"sum", "mean", "amax", "amin", "cumsum", "t", *PASSTHROUGH_METHODS})


def _summed(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``x`` for ``x.sum(...)`` and ``torch.sum(x, ...)``; else None."""
    if not isinstance(expr, ast.Call):
        return None
    if normalize(ctx.qualname(expr)) in _SUM_FUNCTIONS and expr.args:
        return expr.args[0]
    if call_method(expr) == "sum" and isinstance(expr.func, ast.Attribute) and not _is_import_ref(ctx, expr.func.value):
        return expr.func.value
    return None


def _strip_passthrough(expr: ast.AST) -> ast.AST:
    while isinstance(expr, ast.Call) and call_method(expr) in PASSTHROUGH_METHODS and isinstance(expr.func, ast.Attribute):
        expr = expr.func.value
    return expr


def nonnegative(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> bool:
    """True when ``expr`` is >= 0 by construction (exp, abs, squares, softmax, sums and products of such,
    a power of such); False when unknown. Scalars it is divided by (a temperature, ``self.alpha``) count
    as positive."""
    if expr is None or depth > _SIGN_DEPTH:
        return False
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) and expr.value >= 0
    if isinstance(expr, ast.Name):
        bound = value(ctx, expr)
        return bound is not None and bound is not expr and not (isinstance(bound, ast.Name) and bound.id == expr.id) and nonnegative(ctx, bound, depth + 1)
    if isinstance(expr, ast.Subscript):
        return nonnegative(ctx, expr.value, depth + 1)
    if isinstance(expr, ast.BinOp):
        if isinstance(expr.op, ast.Pow):
            exponent = expr.right
            even = isinstance(exponent, ast.Constant) and isinstance(exponent.value, int) and exponent.value % 2 == 0
            return even or nonnegative(ctx, expr.left, depth + 1)
        if isinstance(expr.op, ast.Mult) and same_tree(expr.left, expr.right):
            return True  # x * x
        if isinstance(expr.op, (ast.Add, ast.Mult)):
            return nonnegative(ctx, expr.left, depth + 1) and nonnegative(ctx, expr.right, depth + 1)
        if isinstance(expr.op, ast.Div):
            scalar = isinstance(expr.right, (ast.Name, ast.Attribute))  # a hyperparameter such as self.alpha
            return nonnegative(ctx, expr.left, depth + 1) and (scalar or nonnegative(ctx, expr.right, depth + 1))
        return False
    if isinstance(expr, ast.Call):
        qual = normalize(ctx.qualname(expr))
        if qual in _NONNEGATIVE_FUNCTIONS:
            return True
        if qual in _KEEPS_SIGN_FUNCTIONS and expr.args:
            return nonnegative(ctx, expr.args[0], depth + 1)
        method = call_method(expr)
        if method is None or not isinstance(expr.func, ast.Attribute) or _is_import_ref(ctx, expr.func.value):
            return False
        if method in _NONNEGATIVE_METHODS:
            return True
        if method == "pow" and expr.args and isinstance(expr.args[0], ast.Constant) and expr.args[0].value in (2, 2.0):
            return True
        if method in _KEEPS_SIGN_METHODS:
            return nonnegative(ctx, expr.func.value, depth + 1)
    return False


def _normalized_ratio(ctx: FileContext, expr: ast.BinOp, depth: int) -> Origin | None:
    """``q / q.sum(dim, keepdim=True)`` with ``q >= 0``: each slice along ``dim`` is a probability distribution."""
    total = _summed(ctx, expr.right)
    if total is None or not same_tree(_strip_passthrough(total), _strip_passthrough(expr.left)):
        return None
    if not nonnegative(ctx, expr.left):
        return None
    return Origin(NORMALIZED, expr, ctx=ctx)


def _passed_in(ctx: FileContext, param: ast.Name, depth: int) -> Origin | None:
    """A parameter: the origin every caller (at least one, here or in the project) passes for it."""
    func = ctx.enclosing_function(param)
    if func is None:
        return None
    found_all = []
    for sctx, site in all_call_sites(ctx, func):
        arg = argument_for(site, func, param.id)
        found_all.append(origin(sctx, arg, depth + 1) if arg is not None else None)
        if found_all[-1] is None:
            return None
    if not found_all or len({f.kind for f in found_all}) != 1:  # type: ignore[union-attr]
        return None
    found = found_all[0]
    found.via.append(f"`{param.id}` is a parameter of {getattr(func, 'name', '?')}(); every caller passes it")  # type: ignore[union-attr]
    return found


def _instance_method_output(ctx: FileContext, receiver: ast.AST, method: str, depth: int) -> Origin | None:
    """``clf.predict_proba(x)`` with ``clf`` an instance of a project class: what that method returns."""
    if isinstance(receiver, ast.Name) and receiver.id == "self" or _is_import_ref(ctx, receiver):
        return None
    owner = instance_class(ctx, receiver, bind_params=depth <= MAX_PARAM_DEPTH)
    if owner is None:
        return None
    hit = class_method(owner[0], owner[1], method)
    if hit is None:
        return None
    mctx, func = hit
    found = _all_returns(mctx, func, depth + 1)
    if found is not None:
        found.via.append(f"returned by {owner[1].name}.{method}() ({_where(ctx, mctx, func)})")
        found.in_model = True
    return found


def project_function(ctx: FileContext, func_expr: ast.AST) -> tuple[FileContext, ast.AST] | None:
    """(file, function) when ``func_expr`` names a function defined in another module of the project."""
    index = ctx.project
    if index is None or not isinstance(func_expr, (ast.Name, ast.Attribute)):
        return None
    if isinstance(func_expr, ast.Attribute) and isinstance(func_expr.value, ast.Name) and func_expr.value.id == "self":
        return None
    found = index.definition(ctx, func_expr)
    if found is None or found.ctx is ctx or not isinstance(found.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    return found.ctx, found.node


def helper_definition(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.AST] | None:
    """(file, function) that ``call`` runs: a function or ``self.`` method of this file, else one of another module."""
    local = callee(ctx, call)
    if local is not None:
        return ctx, local
    return project_function(ctx, call.func)


def project_class(ctx: FileContext, func_expr: ast.AST) -> tuple[FileContext, ast.ClassDef] | None:
    """(file, class) when ``func_expr`` names a class defined in another module of the project."""
    index = ctx.project
    if index is None or not isinstance(func_expr, (ast.Name, ast.Attribute)):
        return None
    found = index.definition(ctx, func_expr)
    if found is None or found.ctx is ctx or not isinstance(found.node, ast.ClassDef):
        return None
    return found.ctx, found.node


def constructed_class(ctx: FileContext, call: ast.Call) -> tuple[FileContext, ast.ClassDef] | None:
    """(file, class) that ``Name(...)`` / ``pkg.Name(...)`` constructs: a class of this file or of the project."""
    if isinstance(call.func, ast.Name):
        local = file_class(ctx, call.func.id)
        if local is not None:
            return ctx, local
    if isinstance(call.func, (ast.Name, ast.Attribute)):
        return project_class(ctx, call.func)
    return None


def class_method(ctx: FileContext, cls: ast.ClassDef, name: str, depth: int = 0) -> tuple[FileContext, ast.AST] | None:
    """(file, method) for ``cls.name``, looking through base classes defined in this file or the project."""
    found = ctx.method(cls, name)
    if found is not None:
        return ctx, found
    if depth > 4:
        return None
    for base in cls.bases:
        if isinstance(base, ast.Name):
            local = file_class(ctx, base.id)
            if local is not None and local is not cls:
                hit = class_method(ctx, local, name, depth + 1)
                if hit is not None:
                    return hit
                continue
        other = project_class(ctx, base)
        if other is not None:
            hit = class_method(other[0], other[1], name, depth + 1)
            if hit is not None:
                return hit
    return None


def all_call_sites(ctx: FileContext, func: ast.AST) -> list[tuple[FileContext, ast.Call]]:
    """Calls that run ``func``: in this file, then (when the scan knows the project) in its other files."""
    sites = [(ctx, c) for c in call_sites(ctx, func)]
    if ctx.project is not None:
        sites.extend(ctx.project.callers(ctx, func))
    return sites


def passed_arguments(ctx: FileContext, func: ast.AST | None, param: str, limit: int = 8) -> list[tuple[FileContext, ast.expr | None]]:
    """What the first ``limit`` callers of ``func`` (see :func:`all_call_sites`) pass for ``param``, with the
    file of each call; None where a call passes nothing for it (the default applies)."""
    if func is None:
        return []
    return [(there, argument_for(call, func, param)) for there, call in all_call_sites(ctx, func)[:limit]]


def dict_entry(ctx: FileContext, expr: ast.AST) -> tuple[FileContext, ast.expr] | None:
    """(file, value) for ``CONFIG["key"]`` where ``CONFIG`` is a dict literal (or ``dict(key=...)``) bound at
    module level in this file or imported from another module of the project, and the key is a constant."""
    if not isinstance(expr, ast.Subscript) or not isinstance(expr.slice, ast.Constant) or not isinstance(expr.value, ast.Name):
        return None
    key = expr.slice.value
    name = expr.value.id
    found: tuple[FileContext, ast.AST | None] | None = None
    local = value(ctx, expr.value)
    if isinstance(local, (ast.Dict, ast.Call)):
        found = (ctx, local)
    elif ctx.project is not None and name in ctx.imports or ctx.project is not None:
        found = ctx.project.module_variable(ctx, name)
    if found is None:
        return None
    dctx, table = found
    if isinstance(table, ast.Dict):
        for k, v in zip(table.keys, table.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return dctx, v
        return None
    if isinstance(table, ast.Call) and isinstance(table.func, ast.Name) and table.func.id == "dict" and isinstance(key, str):
        for kw in table.keywords:
            if kw.arg == key:
                return dctx, kw.value
    return None


def instance_class(ctx: FileContext, receiver: ast.AST, depth: int = 0, *, bind_params: bool = True) -> tuple[FileContext, ast.ClassDef] | None:
    """(file, class) when ``receiver`` (``mapper``, ``self.trainer``, a parameter every caller fills with
    one) holds an instance built as ``Cls(...)`` of a class defined in this file or another module."""
    bound = unwrap_module(ctx, value(ctx, receiver))
    if isinstance(bound, ast.Name) and bind_params and depth < 2 and is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        answers = set()
        found = None
        for sctx, site in all_call_sites(ctx, func) if func is not None else []:
            arg = argument_for(site, func, bound.id)
            hit = instance_class(sctx, arg, depth + 1) if arg is not None else None
            if hit is None:
                return None
            answers.add(id(hit[1]))
            found = hit
        return found if len(answers) == 1 else None
    if not isinstance(bound, ast.Call):
        return None
    if isinstance(bound.func, ast.Name):
        local = file_class(ctx, bound.func.id)
        if local is not None:
            return ctx, local
    return project_class(ctx, bound.func)


def method_call_sites(ctx: FileContext, method: ast.AST) -> list[tuple[FileContext, ast.Call]]:
    """Calls ``obj.name(...)`` that run ``method`` of its class: ``self.name(...)`` in the class, and calls on
    instances of it (``mapper.optimize(...)`` after ``mapper = Mapper(...)``), here or in other modules."""
    cls = ctx.enclosing_class(method)
    name = getattr(method, "name", None)
    if cls is None or name is None:
        return []
    files = [ctx]
    if ctx.project is not None:
        files += ctx.project.files_mentioning(ctx, name)
    found = []
    for fctx in files:
        for call in fctx.calls_named(name):
            func = call.func
            if not isinstance(func, ast.Attribute):
                continue
            if isinstance(func.value, ast.Name) and func.value.id == "self":
                if fctx is ctx and ctx.enclosing_class(call) is cls:
                    found.append((fctx, call))
                continue
            owner = instance_class(fctx, func.value)
            if owner is not None and owner[1] is cls:
                found.append((fctx, call))
    return found


# Module methods that return the module itself (or a wrapper that computes the same outputs).
_MODULE_PASSTHROUGH = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16", "requires_grad_", "share_memory", "to_empty"})
_MODULE_WRAPPERS = frozenset(
    {"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.DistributedDataParallel", "torch.compile", "torch.jit.script"}
)


def unwrap_module(ctx: FileContext, bound: ast.AST | None, depth: int = 0) -> ast.AST | None:
    """``Net().to(device)``, ``DataParallel(model)``, ``torch.compile(model)``: the model expression inside."""
    while isinstance(bound, ast.Call) and depth < MAX_DEPTH:
        depth += 1
        func = bound.func
        if isinstance(func, ast.Attribute) and func.attr in _MODULE_PASSTHROUGH and not _is_import_ref(ctx, func.value):
            inner = func.value
        elif normalize(ctx.qualname(bound)) in _MODULE_WRAPPERS and bound.args:
            inner = bound.args[0]
        else:
            break
        bound = inner if isinstance(inner, ast.Call) else value(ctx, inner)
    return bound


def _is_import_ref(ctx: FileContext, expr: ast.AST) -> bool:
    head = dotted(expr)
    return head is not None and head.split(".")[0] in ctx.imports


def _looks_like_module_object(ctx: FileContext, receiver: ast.AST) -> bool:
    bound = value(ctx, receiver)
    return isinstance(bound, ast.Call) and normalize(ctx.qualname(bound)) in _MODULE_KINDS


# The tuple element a caller unpacks (``recon, q = net(x)`` asks for element 1 of what forward returns):
# a stack, so that the returns of the function that produces the tuple pick that element and the calls
# nested below them are read whole again (None).
_ELEMENT: list[dict | None] = []


def derived_names(ctx: FileContext, scope: ast.AST, root: str) -> set[str]:
    """``root`` and every name of ``scope`` bound from an expression that mentions one of them, transitively
    (``probs = softmax(logits)`` is derived from ``logits``)."""
    names = {root}
    table = bindings(ctx, scope)
    changed = True
    while changed:
        changed = False
        for name, entries in table.items():
            if name in names:
                continue
            for _line, _stmt, value in entries:
                if value is not None and any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(value)):
                    names.add(name)
                    changed = True
                    break
    return names


def unpacking_call(ctx: FileContext, name: ast.Name, *, inclusive: bool = False) -> tuple[ast.Assign, int] | None:
    """``(statement, index)`` when ``name`` was last bound by unpacking a call's result into a flat tuple of names
    (``recon, q = net(x)``: index 1 for ``q``); ``inclusive`` also accepts a binding on the name's own line."""
    scope = ctx.enclosing_function(name) or ctx.tree
    before = [e for e in bindings(ctx, scope).get(name.id, []) if e[0] < name.lineno or inclusive and e[0] == name.lineno]
    if not before:
        return None
    stmt = before[-1][1]
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
            and isinstance(stmt.value, ast.Call)):
        return None
    elts = stmt.targets[0].elts
    if any(isinstance(e, ast.Starred) for e in elts):
        return None
    index = next((i for i, e in enumerate(elts) if isinstance(e, ast.Name) and e.id == name.id), None)
    return None if index is None else (stmt, index)


def _unpacked(ctx: FileContext, name: ast.Name, depth: int) -> Origin | None:
    """``name`` bound by unpacking a call's result (``recon, q = net(x)``): the origin of that element of
    what every ``return`` of the called function or forward gives, when each returns a tuple literal."""
    unpacked = unpacking_call(ctx, name)
    if unpacked is None:
        return None
    stmt, index = unpacked
    elts = stmt.targets[0].elts  # type: ignore[attr-defined]
    request = {"index": index, "size": len(elts), "used": False}
    _ELEMENT.append(request)
    try:
        found = origin(ctx, stmt.value, depth)  # the same value, one element of it: no extra hop
    finally:
        _ELEMENT.pop()
    if found is None or not request["used"]:
        return None  # the call was resolved some other way than through a tuple of returns: unknown
    found.via.insert(0, f"{name.id} is element {index} of {ctx.segment(stmt.value, 60)} (line {stmt.lineno})")
    return found


def _keyed_entry(ctx: FileContext, expr: ast.Subscript, depth: int) -> Origin | None:
    """``out["logits"]`` with ``out`` what a function or forward returns: the origin of that key's value
    when every ``return`` gives a dict literal (or ``dict(...)``) holding the key."""
    request = {"key": expr.slice.value, "used": False}  # type: ignore[attr-defined]
    _ELEMENT.append(request)
    try:
        found = origin(ctx, expr.value, depth + 1)
    finally:
        _ELEMENT.pop()
    if found is None or not request["used"]:
        return None
    found.via.insert(0, f"entry {request['key']!r} of the returned dict")
    return found


def _dict_value(ctx: FileContext, returned: ast.expr, key: str) -> ast.expr | None:
    """The value stored under ``key`` in a returned dict literal, ``dict(key=...)``, or a local name bound to one."""
    if isinstance(returned, ast.Name):
        bound = value(ctx, returned)
        returned = bound if isinstance(bound, (ast.Dict, ast.Call)) else returned
    if isinstance(returned, ast.Dict):
        for k, v in zip(returned.keys, returned.values):
            if isinstance(k, ast.Constant) and k.value == key:
                return v
        return None
    if isinstance(returned, ast.Call) and isinstance(returned.func, ast.Name) and returned.func.id == "dict" and not returned.args:
        return next((kw.value for kw in returned.keywords if kw.arg == key), None)
    return None


def _all_returns(ctx: FileContext, func: ast.AST, depth: int) -> Origin | None:
    """An origin shared by every ``return`` of ``func`` (a forward that returns softmax only in eval is not one)."""
    values = returns(func)
    if not values:
        return None
    request = _ELEMENT[-1] if _ELEMENT else None
    if request is not None and "key" in request:
        # the caller reads one key: every return must be a dict holding it
        picked = [_dict_value(ctx, v, request["key"]) for v in values]
        if any(p is None for p in picked):
            return None
        request["used"] = True
        values = picked  # type: ignore[assignment]
    elif request is not None:
        # the caller unpacks a tuple: every return must be a tuple literal of that size
        if not all(isinstance(v, ast.Tuple) and len(v.elts) == request["size"] for v in values):
            return None
        request["used"] = True
        values = [v.elts[request["index"]] for v in values]  # type: ignore[attr-defined]
    _ELEMENT.append(None)
    try:
        found = [origin(ctx, v, depth) for v in values]
    finally:
        _ELEMENT.pop()
    if all(f is not None for f in found) and len({f.kind for f in found}) == 1:  # type: ignore[union-attr]
        return found[0]
    return None


def output_of_callable(ctx: FileContext, func_expr: ast.AST, call: ast.Call, depth: int = 0) -> Origin | None:
    """What calling ``func_expr`` returns, when it is a module object or model class known in this file."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(func_expr, ast.Name) and func_expr.id == "self":
        cls = ctx.enclosing_class(call)
        hit = class_method(ctx, cls, "forward") if cls is not None else None
        if hit is not None:
            fctx, forward = hit
            found = _all_returns(fctx, forward, depth + 1)
            if found is not None:
                found.via.append(f"returned by {cls.name}.forward ({_where(ctx, fctx, forward)})")  # type: ignore[union-attr]
                found.in_model = True
            return found
        return None
    bound = func_expr if isinstance(func_expr, ast.Call) else value(ctx, func_expr)
    bound = unwrap_module(ctx, bound)
    if isinstance(bound, ast.Name) and is_parameter(ctx, bound):
        # A model passed into a helper: every caller must pass the same kind of model.
        func = ctx.enclosing_function(bound)
        found_all = []
        sites = all_call_sites(ctx, func) if func is not None else []
        for sctx, site in sites:
            arg = argument_for(site, func, bound.id)
            found_all.append(output_of_callable(sctx, arg, site, depth + 1) if arg is not None else None)
        if found_all and all(f is not None for f in found_all) and len({f.kind for f in found_all}) == 1:  # type: ignore[union-attr]
            found = found_all[0]
            files = {id(sctx) for sctx, _ in sites}
            where = "in this file" if files == {id(ctx)} else "in the project"
            found.via.append(f"`{bound.id}` is a parameter; every caller {where} passes such a model")  # type: ignore[union-attr]
            found.in_model = True  # type: ignore[union-attr]
            return found
        return None
    if not isinstance(bound, ast.Call):
        return None
    found = _module_output(ctx, bound, depth + 1)
    if found is not None:
        found.in_model = True
    return found


def _module_output(ctx: FileContext, constructor: ast.Call, depth: int) -> Origin | None:
    if depth > MAX_DEPTH:
        return None
    if isinstance(constructor.func, ast.Subscript):  # CONFIG["model"](...): the class the config names
        entry = dict_entry(ctx, constructor.func)
        if entry is None:
            return None
        ectx, cls_expr = entry
        if not isinstance(cls_expr, (ast.Name, ast.Attribute)):
            return None
        return _module_output(ectx, ast.Call(func=cls_expr, args=[], keywords=[]), depth + 1)
    qual = normalize(ctx.qualname(constructor))
    if qual in _MODULE_KINDS:
        return Origin(_MODULE_KINDS[qual], constructor, ctx=ctx)
    if qual in _AFFINE_MODULES:
        return Origin(RAW, constructor, ctx=ctx)
    if qual == "torch.nn.Sequential":
        layers = [a for a in constructor.args if not isinstance(a, ast.Starred)]
        if layers and len(layers) == len(constructor.args):
            last = layers[-1]
            target = last if isinstance(last, ast.Call) else value(ctx, last)
            if isinstance(target, ast.Call):
                found = _module_output(ctx, target, depth + 1)
                if found is not None:
                    found.via.append(f"last layer of nn.Sequential (line {constructor.lineno})")
                return found
        return None
    builder = callee(ctx, constructor)
    bctx = ctx
    if builder is None:
        elsewhere = project_function(ctx, constructor.func)
        if elsewhere is not None:
            bctx, builder = elsewhere
    if builder is not None:
        # build_model(...): every return decides
        outs = []
        for r in returns(builder):
            r = unwrap_module(bctx, r if isinstance(r, ast.Call) else value(bctx, r))
            outs.append(_module_output(bctx, r, depth + 1) if isinstance(r, ast.Call) else None)
        if outs and all(o is not None for o in outs) and len({o.kind for o in outs}) == 1:  # type: ignore[union-attr]
            outs[0].via.append(f"model built by {builder.name}() ({_where(ctx, bctx, builder)})")  # type: ignore[union-attr]
            return outs[0]
        return None
    cls = file_class(ctx, constructor.func.id) if isinstance(constructor.func, ast.Name) else None
    cctx = ctx
    if cls is None:
        elsewhere_cls = project_class(ctx, constructor.func)
        if elsewhere_cls is not None:
            cctx, cls = elsewhere_cls
    hit = class_method(cctx, cls, "forward") if cls is not None else None
    if hit is not None:
        fctx, forward = hit
        found = _all_returns(fctx, forward, depth + 1)
        if found is not None:
            found.via.append(f"returned by {cls.name}.forward ({_where(ctx, fctx, forward)})")  # type: ignore[union-attr]
        return found
    return None


def _where(here: FileContext, there: FileContext, node: ast.AST) -> str:
    line = getattr(node, "lineno", "?")
    return f"line {line}" if there is here else f"{there.display_path}, line {line}"


# -- what a call computes ---------------------------------------------------------------


@dataclass
class LossCall:
    """A call that computes one of the known losses; ``input`` is its prediction argument."""

    name: str  # e.g. "cross_entropy"
    call: ast.Call
    input: ast.expr | None
    target: ast.expr | None
    via: str | None = None  # how the criterion object was found, for messages


def _loss_object(ctx: FileContext, func_expr: ast.AST, depth: int = 0,
                 classes: dict[str, str] = LOSS_CLASSES) -> tuple[str, str] | None:
    """(loss name, description) when ``func_expr`` evaluates to a loss module of ``classes``."""
    if depth > 3:
        return None
    if isinstance(func_expr, ast.Call):
        qual = normalize(ctx.qualname(func_expr))
        if qual in classes:
            return classes[qual], f"{ctx.segment(func_expr, 60)} (line {func_expr.lineno})"
        return None
    bound = value(ctx, func_expr)
    if isinstance(bound, ast.Subscript):  # criterion = CONFIG["criterion"]
        entry = dict_entry(ctx, bound)
        if entry is not None and isinstance(entry[1], ast.Call):
            return _loss_object(entry[0], entry[1], depth + 1, classes)
        return None
    if isinstance(bound, ast.Call):
        return _loss_object(ctx, bound, depth + 1, classes)
    if isinstance(bound, ast.Name) and is_parameter(ctx, bound):
        func = ctx.enclosing_function(bound)
        sites = call_sites(ctx, func) if func is not None else []
        kinds = set()
        desc = None
        for site in sites:
            arg = argument_for(site, func, bound.id)
            found = _loss_object(ctx, arg, depth + 1, classes) if arg is not None else None
            if found is None:
                return None
            kinds.add(found[0])
            desc = found[1]
        if len(kinds) == 1 and desc is not None:
            return kinds.pop(), f"{desc}, passed as `{bound.id}`"
    return None


def mentions_loss_class(ctx: FileContext) -> bool:
    """Cheap text test: can any loss *module* be built in this file at all?"""
    found = ctx.__dict__.get("_value_origins_mentions_loss")
    if found is None:
        found = any(cls.rsplit(".", 1)[-1] in ctx.source for cls in LOSS_CLASSES)
        ctx.__dict__["_value_origins_mentions_loss"] = found
    return found


def mentions(ctx: FileContext, *words: str) -> bool:
    return any(w in ctx.source for w in words)


def loss_call(ctx: FileContext, call: ast.Call) -> LossCall | None:
    """Recognise ``F.cross_entropy(x, y)``, ``crit(x, y)`` with ``crit = nn.CrossEntropyLoss()``, ``self.crit(x, y)``..."""
    qual = normalize(ctx.qualname(call))
    if qual in LOSS_FUNCTIONS:
        name = LOSS_FUNCTIONS[qual]
        return LossCall(name, call, _arg(call, 0, _INPUT_KEYWORD.get(name, "input")), _arg(call, 1, _TARGET_KEYWORD.get(name, "target")))
    if not mentions_loss_class(ctx):
        return None
    if isinstance(call.func, (ast.Name, ast.Attribute, ast.Call)):
        if isinstance(call.func, ast.Attribute) and not (
            isinstance(call.func.value, ast.Name) and call.func.value.id == "self"
        ):
            return None
        found = _loss_object(ctx, call.func)
        if found is not None:
            name = found[0]
            return LossCall(name, call, _arg(call, 0, _INPUT_KEYWORD.get(name, "input")), _arg(call, 1, _TARGET_KEYWORD.get(name, "target")),
                            via=found[1])
    return None


# Losses whose prediction/target arguments have other keyword names than ``input``/``target``.
_INPUT_KEYWORD = {"ctc_loss": "log_probs"}
_TARGET_KEYWORD = {"ctc_loss": "targets"}


def _arg(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


# Losses computed element by element and then reduced: their input and target must have one shape.
ELEMENTWISE_LOSS_CLASSES = {
    "torch.nn.MSELoss": "mse_loss", "torch.nn.L1Loss": "l1_loss", "torch.nn.SmoothL1Loss": "smooth_l1_loss",
    "torch.nn.HuberLoss": "huber_loss", "torch.nn.BCELoss": "binary_cross_entropy",
    "torch.nn.BCEWithLogitsLoss": "binary_cross_entropy_with_logits",
}
ELEMENTWISE_LOSS_FUNCTIONS = {f"torch.nn.functional.{name}": name for name in ELEMENTWISE_LOSS_CLASSES.values()}


def elementwise_loss_call(ctx: FileContext, call: ast.Call) -> LossCall | None:
    """``F.mse_loss(x, y)``, ``crit(x, y)`` with ``crit = nn.MSELoss()``, ``self.crit(x, y)``: an elementwise loss
    of :data:`ELEMENTWISE_LOSS_CLASSES` (module or functional form), with its input and target."""
    qual = normalize(ctx.qualname(call))
    if qual in ELEMENTWISE_LOSS_FUNCTIONS:
        return LossCall(ELEMENTWISE_LOSS_FUNCTIONS[qual], call, _arg(call, 0, "input"), _arg(call, 1, "target"))
    if isinstance(call.func, ast.Attribute) and not (isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
        return None
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    found = _loss_object(ctx, call.func, classes=ELEMENTWISE_LOSS_CLASSES)
    if found is None:
        return None
    return LossCall(found[0], call, _arg(call, 0, "input"), _arg(call, 1, "target"), via=found[1])


_LOSS_FUNCTION_NAMES = {q.rpartition(".")[2] for q in LOSS_FUNCTIONS}
_LOSS_CLASS_NAMES = {q.rpartition(".")[2] for q in LOSS_CLASSES}


def loss_calls(ctx: FileContext) -> list[LossCall]:
    cache = ctx.__dict__.get("_value_origins_loss_calls")
    if cache is None:
        # A criterion object is found only through a call that builds a loss module; with
        # none in the file, only the functional losses need looking at.
        builds_criterion = mentions_loss_class(ctx) and bool(ctx.calls_named(*_LOSS_CLASS_NAMES))
        candidates = ctx.calls() if builds_criterion else ctx.calls_named(*_LOSS_FUNCTION_NAMES)
        cache = [lc for c in candidates if (lc := loss_call(ctx, c)) is not None]
        ctx.__dict__["_value_origins_loss_calls"] = cache
    return cache
