"""Can a value carry gradient back to what is being trained? A static reading of autograd paths.

A loss trains what its value depends on *through recorded operations*. Some operations produce a
value with no history: ``.detach()``, ``.data``, ``.item()`` / ``float()`` / ``.tolist()`` /
``.numpy()``, NumPy and ``math`` arithmetic, ``torch.tensor(x)`` (a copy without history), and
anything computed under ``torch.no_grad()`` / ``inference_mode``. :func:`flow` reads an expression
and says, as a :class:`Flow`, which of its inputs reach it through such a cut and which reach it
on a path autograd records:

* ``open``: some input reaches the value without a cut and may require grad (a model output, a
  parameter, anything the reading cannot see): the value may carry gradient;
* ``cut``: some computed input reaches the value only through a cut (constants do not count);
* ``live`` / ``dead``: of the named modules asked about (those an optimizer holds), the ones
  whose output (or parameters) reaches the value without a cut / only through a cut;
* ``hidden``: some part of the value could not be followed far enough to know whether a named
  module hides in it (a method of the class the reading cannot open, a name bound twice in a
  branch): a rule about the named modules stays silent.

The reading follows local names (the bindings that reach the use), ``self`` attributes of the
enclosing class, dict entries stored under a constant key, tuple elements, comprehensions, and
helper functions of this file or of another module of the project (their returns, with the
caller's arguments bound to their parameters, a few levels deep). It is conservative: what it
cannot read counts as ``open`` (it may carry gradient), never as cut.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, FunctionNode, constant, dotted, keyword
from mlsleuth.scan.analysis.optimizer_params import PARAMETER_METHODS

MAX_DEPTH = 8
HELPER_DEPTH = 3

_NUMBER_METHODS = frozenset({"item", "tolist", "numpy"})
_CUT_BUILTINS = frozenset({"float", "int", "bool", "round"})
_COPY_FACTORIES = frozenset({"torch.tensor", "torch.Tensor", "torch.FloatTensor", "torch.DoubleTensor",
                             "torch.LongTensor", "torch.cuda.FloatTensor", "torch.autograd.Variable", "Variable"})
_LEAF_FACTORIES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter", "Parameter"})
_NO_GRAD = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"})
_METADATA = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "grad_fn"})
_METADATA_METHODS = frozenset({"size", "dim", "numel", "nelement", "get_device", "element_size", "type_as_str"})
_HYPER_ROOTS = frozenset({"args", "cfg", "config", "conf", "opt", "opts", "hparams", "hp", "params", "flags", "FLAGS",
                          "settings", "options", "hyperparams", "self.hparams", "self.args", "self.cfg", "self.config",
                          "self.opt", "self.hp", "self.params"})


@dataclass(frozen=True)
class Flow:
    open: bool = False
    cut: bool = False
    live: frozenset[str] = frozenset()
    dead: frozenset[str] = frozenset()
    hidden: bool = False
    where: ast.AST | None = None  # the first cut found (for messages)
    where_ctx: FileContext | None = None  # the file that cut is in
    tensor: bool = False  # evidently a tensor (a model's output, a parameter, a torch op on one), not a plain number

    def __or__(self, other: Flow) -> Flow:
        return Flow(self.open or other.open, self.cut or other.cut, self.live | other.live, self.dead | other.dead,
                    self.hidden or other.hidden, self.where or other.where,
                    self.where_ctx if self.where is not None else other.where_ctx, self.tensor or other.tensor)

    @property
    def severed(self) -> bool:
        """Everything computed in the value reaches it through a cut: it is a constant for autograd."""
        return self.cut and not self.open

    def severed_at(self, node: ast.AST, ctx: FileContext) -> Flow:
        """This value after a cut at ``node`` (in ``ctx``)."""
        if not (self.open or self.cut or self.live or self.dead):
            return self  # a constant stays a constant
        if self.open or self.live or self.where is None:
            return Flow(False, True, frozenset(), self.live | self.dead, False, node, ctx)
        return Flow(False, True, frozenset(), self.live | self.dead, False, self.where, self.where_ctx)


class Bound:
    """A helper's parameter bound to what its caller passed (read on demand, in the caller's file)."""

    __slots__ = ("reader", "expr", "env")

    def __init__(self, reader: Reader, expr: ast.expr, env: dict | None) -> None:
        self.reader = reader
        self.expr = expr
        self.env = env

    def flow(self) -> Flow:
        return self.reader.flow(self.expr, self.env)

    def entry(self, key: str) -> Flow | None:
        """``param["key"]``: what the caller stored under that key in the dict it passed."""
        expr = self.expr
        if isinstance(expr, ast.Dict):
            values = [v for k, v in zip(expr.keys, expr.values) if k is not None and constant(k) == key]
        elif isinstance(expr, ast.Name) and not (self.env and expr.id in self.env):
            values = stored_values(self.reader.ctx, expr, key)
            if not values:
                bound = self.reader.ctx.value_of(expr)
                if isinstance(bound, ast.Dict):
                    values = [v for k, v in zip(bound.keys, bound.values) if k is not None and constant(k) == key]
        else:
            return None
        return _union(self.reader.flow(v, None) for v in values) if values else None


CONST = Flow()
OPEN = Flow(open=True)
TENSOR = Flow(open=True, tensor=True)
HIDDEN = Flow(open=True, hidden=True)


def _union(flows) -> Flow:
    out = CONST
    for f in flows:
        out = out | f
    return out


def _is_hyper_root(expr: ast.AST) -> bool:
    """``args.lam``, ``cfg.loss.weight``, ``self.hparams.beta``, ``cfg["lam"]``: a setting, a plain number."""
    if isinstance(expr, ast.Subscript):
        return _is_hyper_root(expr.value) or (isinstance(expr.value, ast.Name) and expr.value.id in _HYPER_ROOTS)
    name = dotted(expr)
    if name is None:
        return False
    parts = name.split(".")
    for i in range(1, len(parts)):
        if ".".join(parts[:i]) in _HYPER_ROOTS:
            return True
    return name.isupper() and "." not in name


def no_grad_context(ctx: FileContext, node: ast.AST, shared: frozenset[int] = frozenset()) -> bool:
    """``node`` runs inside ``with torch.no_grad()`` / ``inference_mode()`` (or ``set_grad_enabled(False)``) of its
    own function, or the function is decorated with one, and no ``enable_grad`` sits nearer. ``shared``: ids of
    ``with`` blocks and functions that do not count (they also hold the backward: another rule's finding)."""
    for w in ctx.enclosing_withs(node):
        if id(w) in shared:
            continue
        for item in w.items:
            expr = item.context_expr
            qual = ctx.qualname(expr.func if isinstance(expr, ast.Call) else expr) or ""
            if qual in {"torch.enable_grad", "torch.autograd.enable_grad"}:
                return False
            if qual in _NO_GRAD:
                return True
            if qual == "torch.set_grad_enabled" and isinstance(expr, ast.Call) and expr.args:
                flag = constant(expr.args[0])
                if flag is False:
                    return True
                if flag is True:
                    return False
    func = ctx.enclosing_function(node)
    if func is not None and id(func) not in shared:
        for dec in func.decorator_list:
            qual = ctx.qualname(dec.func if isinstance(dec, ast.Call) else dec) or ""
            if qual in _NO_GRAD:
                return True
    return False


class Reader:
    """Reads flows in one file; ``modules`` are the dotted names (``"G"``, ``"self.gen"``) asked about."""

    def __init__(self, ctx: FileContext, modules: frozenset[str] = frozenset(), depth: int = 0,
                 around: ast.AST | None = None) -> None:
        self.ctx = ctx
        # the no_grad blocks around the backward itself (``around``) cut everything alike: not a term's own cut
        self.shared = frozenset(id(a) for a in ctx.ancestors(around)) if around is not None else frozenset()
        self.modules = modules
        self.depth = depth
        self._memo: dict[int, Flow] = {}
        self._busy: set[int] = set()
        # a helper's flag parameters as this call fills them (``forward(x, train_encoder=False)``), with the helper
        self.flags: dict[str, bool] = {}
        self.flags_func: ast.AST | None = None

    # -- entry point ---------------------------------------------------------------------------

    def flow(self, expr: ast.AST | None, env: dict[str, Flow] | None = None, level: int = 0) -> Flow:
        if expr is None:
            return OPEN
        if level > 40:
            return HIDDEN
        key = id(expr)
        if env is None and key in self._memo:
            return self._memo[key]
        if key in self._busy:
            return HIDDEN
        self._busy.add(key)
        try:
            result = self._flow(expr, env, level + 1)
        finally:
            self._busy.discard(key)
        if env is None:
            self._memo[key] = result
        return result

    # -- the cases -------------------------------------------------------------------------------

    def _module_named(self, expr: ast.AST, hops: int = 0) -> str | None:
        """The asked-about module ``expr`` names: itself, a submodule (``G.encoder``), an alias (``net = G``) or a
        wrapper built around it (``ddp = DDP(G)``)."""
        if not self.modules:
            return None
        name = dotted(expr)
        if name is None:
            return None
        for module in self.modules:
            if name == module or name.startswith(module + "."):
                return module
        if hops < 2 and isinstance(expr, (ast.Name, ast.Attribute)):
            bound = self.ctx.resolve(expr)
            if bound is not None and bound is not expr:
                if isinstance(bound, (ast.Name, ast.Attribute)):
                    return self._module_named(bound, hops + 1)
                if isinstance(bound, ast.Call):
                    for arg in list(bound.args) + [k.value for k in bound.keywords]:
                        if isinstance(arg, (ast.Name, ast.Attribute)):
                            found = self._module_named(arg, hops + 1)
                            if found is not None:
                                return found
        return None

    def _flow(self, expr: ast.AST, env: dict[str, Flow] | None, level: int) -> Flow:
        ctx = self.ctx
        sub = lambda e: self.flow(e, env, level)  # noqa: E731
        if isinstance(expr, ast.Constant) or isinstance(expr, (ast.JoinedStr, ast.Compare)):
            return CONST
        module = self._module_named(expr)
        if module is not None and not isinstance(expr, ast.Call):
            return Flow(open=True, live=frozenset({module}))
        if isinstance(expr, ast.Name):
            if env is not None and expr.id in env:
                bound = env[expr.id]
                return bound.flow() if isinstance(bound, Bound) else bound
            return self._name(expr, env, level)
        if isinstance(expr, ast.Attribute):
            if expr.attr == "data" and isinstance(expr.ctx, ast.Load):
                return sub(expr.value).severed_at(expr, self.ctx)
            if expr.attr in _METADATA:
                return CONST
            if expr.attr in {"T", "mT", "H", "real", "imag"}:
                return sub(expr.value)
            if _is_hyper_root(expr) or self._imported(expr):
                return CONST
            if isinstance(expr.value, ast.Name) and expr.value.id == "self":
                return self._self_attribute(expr, level)
            return sub(expr.value) | OPEN  # an attribute of an object: a parameter, a buffer, a stored tensor
        if isinstance(expr, ast.Subscript):
            stored = self._stored_entry(expr, env, level)
            if stored is not None:
                return stored
            if _is_hyper_root(expr):
                return CONST
            return sub(expr.value)
        if isinstance(expr, ast.BinOp):
            left, right = sub(expr.left), sub(expr.right)
            if isinstance(expr.op, (ast.Mult, ast.Div)):
                # ``l1_weight * sparsity.item()``: a factor that is only ever a number in arithmetic scales a cut term
                for a, b, side in ((left, right, expr.right), (right, left, expr.left)):
                    if a.severed and b.open and not (b.tensor or b.hidden or b.cut or b.live or b.dead) \
                            and isinstance(side, ast.Name) and self._only_arithmetic(side):
                        return a
            return left | right
        if isinstance(expr, ast.UnaryOp):
            return CONST if isinstance(expr.op, ast.Not) else sub(expr.operand)
        if isinstance(expr, ast.BoolOp):
            return _union(sub(v) for v in expr.values)
        if isinstance(expr, ast.IfExp):
            return sub(expr.body) | sub(expr.orelse)
        if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
            return _union(sub(e) for e in expr.elts)
        if isinstance(expr, ast.Dict):
            return _union(sub(v) for v in expr.values if v is not None)
        if isinstance(expr, ast.Starred):
            return sub(expr.value)
        if isinstance(expr, (ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            inner = dict(env or {})
            for gen in expr.generators:
                it = self.flow(gen.iter, inner, level)
                for target in ast.walk(gen.target):
                    if isinstance(target, ast.Name):
                        inner[target.id] = it
            return self.flow(expr.value if isinstance(expr, ast.DictComp) else expr.elt, inner, level)
        if isinstance(expr, ast.NamedExpr):
            return sub(expr.value)
        if isinstance(expr, ast.Call):
            return self._call(expr, env, level)
        return HIDDEN

    def _only_arithmetic(self, name: ast.Name) -> bool:
        """``name`` is used in its function only as an operand of arithmetic and comparisons (a setting like
        ``l1_weight``), never called, indexed, passed to a call or asked for an attribute (as a tensor would be)."""
        scope = self.ctx.enclosing_function(name) or self.ctx.tree
        for node in self.ctx.walk_scope(scope):
            if isinstance(node, ast.Name) and node.id == name.id and isinstance(node.ctx, ast.Load):
                parent = self.ctx.parent(node)
                if not isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.FormattedValue)):
                    return False
        return True

    def _imported(self, expr: ast.Attribute) -> bool:
        """``math.pi``, ``np.float32``, ``cfg.lam`` with ``cfg`` imported: a module's constant or a settings object."""
        name = dotted(expr)
        root = name.split(".")[0] if name else None
        if root is None or root not in self.ctx.imports:
            return False
        func = self.ctx.enclosing_function(expr)
        return not (func is not None and (root in value_origins.function_params(func)
                                          or root in self.ctx.assignments(func)))

    def _args(self, call: ast.Call, env, level) -> Flow:
        return _union([self.flow(a, env, level) for a in call.args] + [self.flow(k.value, env, level) for k in call.keywords])

    def _call(self, call: ast.Call, env, level) -> Flow:
        ctx = self.ctx
        func = call.func
        method = func.attr if isinstance(func, ast.Attribute) else None
        qual = ctx.qualname(func) or ""
        if method in {"detach", "detach_"} or method in _NUMBER_METHODS:
            return self.flow(func.value, env, level).severed_at(call, self.ctx)
        if method in _METADATA_METHODS:
            return CONST
        if isinstance(func, ast.Name) and func.id in {"len", "isinstance", "hasattr", "range", "str", "repr"} and qual == func.id:
            return CONST
        root = qual.split(".")[0]
        if isinstance(func, ast.Name) and func.id in _CUT_BUILTINS and qual == func.id \
                or root in {"numpy", "math", "scipy", "statistics"} or qual in _COPY_FACTORIES:
            rg = keyword(call, "requires_grad")
            if rg is not None and constant(rg) is not False:
                return TENSOR
            return self._number_of(call, self._args(call, env, level))
        rg = keyword(call, "requires_grad")
        if rg is not None:
            return TENSOR if constant(rg) is not False else self._args(call, env, level).severed_at(call, self.ctx)
        if qual in _LEAF_FACTORIES or method == "requires_grad_":
            return TENSOR
        if method in PARAMETER_METHODS:
            return TENSOR | self.flow(func.value, env, level)
        module = self._module_named(func)
        if module is not None:
            # the module itself (``G(z)``) or one of its methods (``G.encode(x)``): its output carries its parameters
            return Flow(open=True, live=frozenset({module}), tensor=True) | self._args(call, env, level)
        if method is not None:
            receiver = func.value
            if isinstance(receiver, ast.Name) and receiver.id == "self":
                return self._own_method(call, env, level)
            if root == "torch" or qual.startswith("torch."):
                return self._args(call, env, level)
            opened = self._instance_method(call, env, level)
            if opened is not None:
                return opened
            # a tensor method (``x.mean()``) or a call of an object's method: what the receiver and the arguments carry
            return self.flow(receiver, env, level) | self._args(call, env, level)
        if qual.startswith("torch.") or qual in {"sum", "min", "max", "abs", "pow", "list", "tuple", "sorted", "reversed",
                                                   "zip", "enumerate", "map", "filter", "dict"}:
            return self._args(call, env, level)
        helper = self._helper(call, level)
        if helper is not None:
            return helper
        # a model or loss object called by name (``criterion(out, y)``, ``net(x)``), or a function the reading cannot
        # open: its result depends on its arguments (and, for a module, on its own parameters)
        return self._args(call, env, level) | TENSOR

    def _number_of(self, call: ast.Call, inner: Flow) -> Flow:
        """``float(x)``, ``np.mean(x)``, ``math.log(x)``, ``torch.tensor(x)``: a cut when ``x`` is evidently a tensor (or
        already cut from one); a plain number otherwise (a setting, a counter)."""
        if inner.tensor or inner.cut or inner.live or inner.dead:
            return inner.severed_at(call, self.ctx)
        return Flow(hidden=inner.hidden)

    # -- names -------------------------------------------------------------------------------------

    def _reaching(self, name: ast.Name) -> list[tuple[int, ast.AST, ast.expr | None]] | None:
        """The bindings of ``name`` that may reach its use: the last one before it, and earlier ones while the later
        ones sit in blocks that do not enclose the use (an ``if`` branch, a loop body)."""
        ctx = self.ctx
        scope = ctx.enclosing_function(name) or ctx.tree
        around = {id(a) for a in ctx.ancestors(name)}
        entries = []
        for e in ctx.assignments(scope).get(name.id, []):
            if isinstance(e[1], (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                if e[0] <= name.lineno:
                    entries.append(e)  # a loop variable or ``as`` name, used in the block (or after it)
            elif e[0] <= name.lineno and id(e[1]) not in around and getattr(e[1], "end_lineno", e[0]) <= name.lineno:
                entries.append(e)
        if not entries:
            return None
        use_blocks = around
        found = []
        for entry in reversed(entries):
            found.append(entry)
            holder = ctx.parent(entry[1])
            while holder is not None and not isinstance(holder, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try,
                                                                 ast.With, ast.AsyncWith, ast.FunctionDef,
                                                                 ast.AsyncFunctionDef, ast.Module, ast.ExceptHandler)):
                holder = ctx.parent(holder)
            if holder is None or id(holder) in use_blocks or isinstance(holder, (ast.With, ast.AsyncWith)):
                if not isinstance(entry[1], ast.AugAssign):
                    break
        return found

    def _name(self, name: ast.Name, env, level) -> Flow:
        ctx = self.ctx
        func = ctx.enclosing_function(name)
        entries = self._reaching(name)
        if entries is None:
            if func is not None and name.id in value_origins.function_params(func):
                default = value_origins.parameter_default(func, name.id)
                if default is not None and isinstance(constant(default), (int, float)) and not isinstance(constant(default), bool):
                    return CONST
                return OPEN
            if name.id.isupper():
                return CONST
            return OPEN
        if self.flags and func is self.flags_func:
            entries = self._taken(entries, func)
        flows = []
        for _line, stmt, value in entries:
            flows.append(self._binding(name, stmt, value, level))
        flows.extend(self._written_in_place(name, level))
        return _union(flows)

    def _flag(self, test: ast.AST) -> bool | None:
        """The value of ``flag`` / ``not flag`` for a flag parameter this call fills with a constant."""
        negate = False
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negate = test.operand, not negate
        if isinstance(test, ast.Name) and test.id in self.flags:
            return self.flags[test.id] != negate
        return None

    def _taken(self, entries: list, func: ast.AST) -> list:
        """The reaching bindings (latest first) that can run with this call's flags: a binding in an ``if flag`` branch
        the flags rule out is dropped, and one in branches they all take hides the earlier ones."""
        kept = []
        for entry in entries:
            runs: bool | None = True
            child = entry[1]
            for anc in self.ctx.ancestors(entry[1]):
                if anc is func:
                    break
                if isinstance(anc, ast.If):
                    value = self._flag(anc.test)
                    in_body = any(child is n for n in anc.body)
                    if value is None:
                        runs = None if runs else runs
                    elif value != in_body:
                        runs = False
                        break
                child = anc
            if runs is False:
                continue
            kept.append(entry)
            if runs:
                break  # surely runs: the earlier bindings are overwritten
        return kept or entries

    def _written_in_place(self, name: ast.Name, level: int) -> list[Flow]:
        """What in-place writes before the use put into ``name``: ``x.scatter_add_(2, idx, w)``, ``x[i] = v``."""
        ctx = self.ctx
        scope = ctx.enclosing_function(name) or ctx.tree
        table = self.__dict__.setdefault("_in_place", {})
        writes = table.get(id(scope))
        if writes is None:
            writes = {}
            for node in ctx.walk_scope(scope):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
                        and node.func.attr.endswith("_") and not node.func.attr.startswith("_") and node.func.attr != "requires_grad_":
                    writes.setdefault(node.func.value.id, []).append((node.lineno, node, None))
                elif isinstance(node, ast.Assign):
                    for target in node.targets:
                        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                            writes.setdefault(target.value.id, []).append((node.lineno, node, node.value))
            table[id(scope)] = writes
        out = []
        for line, node, value in writes.get(name.id, []):
            if line >= name.lineno:
                continue
            if value is not None:
                f = self.flow(value, None, level)
            else:
                f = self._args(node, None, level)
            if no_grad_context(ctx, node, self.shared):
                f = f.severed_at(node, ctx)
            out.append(f)
        return out

    def _binding(self, name: ast.Name, stmt: ast.AST, value: ast.expr | None, level: int) -> Flow:
        ctx = self.ctx
        if isinstance(stmt, ast.AugAssign):
            result = self.flow(stmt.value, None, level)
        elif value is not None:
            result = self.flow(value, None, level)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
            result = None
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            if isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, ast.Call) \
                    and not any(isinstance(e, ast.Starred) for e in target.elts):
                index = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name.id), None)
                if index is not None:
                    result = self.element_of_call(stmt.value, index, level)
            if result is None:
                result = self.flow(stmt.value, None, level)  # unpacked from one value: it carries what the value carries
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            result = self.flow(stmt.iter, None, level)
        else:
            return HIDDEN
        if no_grad_context(ctx, stmt, self.shared):
            result = result.severed_at(stmt, ctx)
        return result

    def _stored_entry(self, expr: ast.Subscript, env, level) -> Flow | None:
        """``losses["reg"]``: what was stored under that constant key in this function (``losses["reg"] = ...``), or
        in the dict a caller passed for that parameter."""
        key = constant(expr.slice)
        if not isinstance(key, str):
            return None
        if isinstance(expr.value, ast.Name) and env is not None and isinstance(env.get(expr.value.id), Bound):
            return env[expr.value.id].entry(key)
        if dotted(expr.value) is None:
            return None
        values = stored_values(self.ctx, expr.value, key)
        if not values:
            return None
        return _union(self.flow(v, None, level) for v in values)

    def _self_attribute(self, expr: ast.Attribute, level: int) -> Flow:
        ctx = self.ctx
        cls = ctx.enclosing_class(expr)
        if cls is None:
            return HIDDEN
        values = ctx.self_attributes(cls).get(expr.attr)
        if not values:
            return HIDDEN  # set elsewhere (a base class, a caller): it may hold anything
        flows = []
        for v in values:
            f = self.flow(v, None, level)
            stmt = ctx.parent(v)
            if stmt is not None and no_grad_context(ctx, stmt, self.shared):
                f = f.severed_at(stmt, ctx)
            flows.append(f)
        out = _union(flows)
        # a stored module (``self.head = nn.Linear(...)``) reads as a constant through its constructor's arguments: an
        # attribute that holds an object is still something with parameters
        if not (out.cut or out.live or out.dead):
            if any(isinstance(v, ast.Call) and not _is_number_call(ctx, v) for v in values):
                return out | OPEN
        return out

    # -- calls of code the reading can open -------------------------------------------------------

    def _own_method(self, call: ast.Call, env, level) -> Flow:
        ctx = self.ctx
        cls = ctx.enclosing_class(call)
        name = call.func.attr
        if cls is not None:
            found = value_origins.class_method(ctx, cls, name)
            if found is not None and self.depth < HELPER_DEPTH:
                return self._returns(found[0], found[1], call, env, level, method=True)
            attr = ctx.self_attributes(cls).get(name)
            if attr:
                # a stored module or callable: its output depends on its arguments and its own parameters
                return self._args(call, env, level) | TENSOR
        return self._args(call, env, level) | HIDDEN

    def _instance_method(self, call: ast.Call, env, level) -> Flow | None:
        """``model.forward_vae(x)`` where modules asked about are parts of ``model`` (``model.encoder``) and its class is
        a project class: the method's returns, read with ``self.encoder`` standing for ``model.encoder``."""
        receiver = call.func.value
        name = dotted(receiver)
        if name is None or self.depth >= HELPER_DEPTH:
            return None
        inner = {"self" + m[len(name):]: m for m in self.modules if m.startswith(name + ".")}
        if not inner:
            return None
        owner = value_origins.instance_class(self.ctx, receiver, bind_params=False)
        found = value_origins.class_method(owner[0], owner[1], call.func.attr) if owner is not None else None
        if found is None:
            return None
        out = self._returns(found[0], found[1], call, env, level, method=True, inner=frozenset(inner))
        live = frozenset(inner.get(n, n) for n in out.live)
        dead = frozenset(inner.get(n, n) for n in out.dead)
        return Flow(out.open, out.cut, live, dead, out.hidden, out.where, out.where_ctx, out.tensor)

    def _helper(self, call: ast.Call, level: int) -> Flow | None:
        if self.depth >= HELPER_DEPTH:
            return None
        local = self.ctx.callee_definition(call)
        if local is not None and not isinstance(self.ctx.parent(local), ast.ClassDef):
            return self._returns(self.ctx, local, call, None, level, method=False)
        found = value_origins.project_function(self.ctx, call.func)
        if found is not None:
            return self._returns(found[0], found[1], call, None, level, method=False)
        return None

    def _returns(self, there: FileContext, func: FunctionNode, call: ast.Call, env, level, *, method: bool,
                 element: int | None = None, inner: frozenset[str] | None = None) -> Flow:
        returns = [r.value for r in ast.walk(func) if isinstance(r, ast.Return) and r.value is not None
                   and there.enclosing_function(r) is func]
        if not returns or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(func)):
            return self._args(call, env, level) | HIDDEN
        if element is not None:
            if not all(isinstance(r, ast.Tuple) and len(r.elts) > element and not any(isinstance(e, ast.Starred) for e in r.elts)
                       for r in returns):
                return self._returns(there, func, call, env, level, method=method, inner=inner)
            returns = [r.elts[element] for r in returns]
        bound: dict[str, Flow | Bound] = {}
        for p in value_origins.function_params(func):
            arg = value_origins.argument_for(call, func, p)
            if arg is not None:
                bound[p] = Bound(self, arg, env)
        # the callee's own modules are the caller's when it is a method of the same object (``self.g`` there is
        # ``self.g`` here); a free function sees them only through its arguments
        # ``inner``: the modules as the method of another object names them (``self.encoder`` for ``model.encoder``)
        reader = Reader(there, inner if inner is not None else self.modules if method else frozenset(), self.depth + 1)
        reader.flags_func = func
        for p in value_origins.function_params(func):
            arg = value_origins.argument_for(call, func, p)
            if arg is None and not any(isinstance(a, ast.Starred) for a in call.args) \
                    and not any(k.arg is None for k in call.keywords):
                arg = value_origins.parameter_default(func, p)
            if arg is not None and isinstance(constant(arg), bool):
                reader.flags[p] = constant(arg)
        flows = []
        for r in returns:
            f = reader.flow(r, bound, 0)
            if no_grad_context(there, r):
                f = f.severed_at(r, there)
            flows.append(f)
        out = _union(flows)
        if not method and self.modules:
            # a free helper handed a module (``penalty(G)``) reads its parameters: name it as the caller's
            for arg in list(call.args) + [k.value for k in call.keywords]:
                module = self._module_named(arg)
                if module is not None and out.open:
                    out = out | Flow(open=True, live=frozenset({module}))
        return out

    def element_of_call(self, call: ast.Call, element: int, level: int) -> Flow | None:
        """``a, b = helper(x)``: what element ``element`` of the helper's returned tuple carries, when it can be read."""
        if self.depth >= HELPER_DEPTH:
            return None
        func = call.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            cls = self.ctx.enclosing_class(call)
            found = value_origins.class_method(self.ctx, cls, func.attr) if cls is not None else None
            if found is None:
                return None
            return self._returns(found[0], found[1], call, None, level, method=True, element=element)
        local = self.ctx.callee_definition(call)
        if local is not None and not isinstance(self.ctx.parent(local), ast.ClassDef):
            return self._returns(self.ctx, local, call, None, level, method=False, element=element)
        found = value_origins.project_function(self.ctx, func)
        if found is not None:
            return self._returns(found[0], found[1], call, None, level, method=False, element=element)
        return None


def _is_number_call(ctx: FileContext, call: ast.Call) -> bool:
    qual = ctx.qualname(call.func) or ""
    return qual in {"float", "int"} or qual.split(".")[0] in {"math", "numpy"}


def stored_values(ctx: FileContext, holder: ast.expr, key: str) -> list[ast.expr]:
    """Values stored as ``holder[key] = v`` (or in a dict literal bound to ``holder``) in ``holder``'s function, before
    its use; ``holder`` is a name or a dotted attribute (``self.losses``)."""
    name = dotted(holder)
    if name is None:
        return []
    scope = ctx.enclosing_function(holder) or ctx.tree
    found = []
    for node in ctx.walk_scope(scope):
        if getattr(node, "lineno", 10**9) >= holder.lineno:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and dotted(target.value) == name and constant(target.slice) == key:
                    found.append(node.value)
                elif dotted(target) == name and isinstance(node.value, ast.Dict):
                    for k, v in zip(node.value.keys, node.value.values):
                        if k is not None and constant(k) == key:
                            found.append(v)
    return found


def flow(ctx: FileContext, expr: ast.AST | None, modules: frozenset[str] = frozenset()) -> Flow:
    """What ``expr`` carries (see :class:`Flow`); ``modules``: the dotted module names asked about."""
    return Reader(ctx, modules).flow(expr)


# -- a loss as a sum of terms --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Term:
    expr: ast.expr
    stmt: ast.AST  # the statement that writes it (where a finding points)
    ctx: FileContext  # the file it is written in (a helper's, when the loss is a helper's returned sum)
    reader: Reader
    env: dict | None = None  # the helper's parameters, bound to what the caller passed

    @property
    def local(self) -> bool:
        return self.env is None

    def flow(self) -> Flow:
        return self.reader.flow(self.expr, self.env)


def returned_loss(ret: ast.expr) -> ast.expr | None:
    """The loss in what a ``training_step`` returns: the value, ``{"loss": ...}``, or the first of a tuple."""
    if isinstance(ret, ast.Dict):
        for k, v in zip(ret.keys, ret.values):
            if k is not None and constant(k) == "loss":
                return v
        return None
    if isinstance(ret, ast.Tuple) and ret.elts:
        return ret.elts[0]  # ``return loss, logs``
    return ret


def cut_site(ctx: FileContext, f: Flow, fallback: ast.AST) -> tuple[FileContext, ast.AST]:
    """(file, statement) of the cut that severs ``f`` (where the fix goes), else ``fallback`` in ``ctx``."""
    if f.where is None or f.where_ctx is None:
        return ctx, fallback
    return f.where_ctx, _statement(f.where_ctx, f.where)


def _statement(ctx: FileContext, node: ast.AST) -> ast.AST:
    current = node
    while current is not None and not isinstance(current, ast.stmt):
        current = ctx.parent(current)
    return current or node


def _summands(expr: ast.expr) -> list[ast.expr] | None:
    """The parts of an explicit sum: ``a + b - c``, ``sum([a, b])``, ``torch.stack([a, b]).sum()``; None otherwise."""
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        return [expr.left, expr.right]
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Name) and func.id == "sum" and len(expr.args) == 1:
            arg = expr.args[0]
            if isinstance(arg, (ast.List, ast.Tuple)):
                return list(arg.elts)
            if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "values" \
                    and dotted(arg.func.value) is not None:
                return [arg]  # a dict's values: expanded by the caller
            return None
        if isinstance(func, ast.Attribute) and func.attr == "sum" and not expr.args and not expr.keywords \
                and isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Attribute) \
                and func.value.func.attr == "stack" and func.value.args and isinstance(func.value.args[0], (ast.List, ast.Tuple)):
            return list(func.value.args[0].elts)
    return None


def _dict_values(ctx: FileContext, call: ast.Call) -> list[ast.expr] | None:
    """``losses.values()``: every value stored in ``losses`` (a dict literal, ``losses[k] = v``; ``self.losses`` too) in
    this function, when nothing else writes to it (``update``, a non-constant key, ``+=`` on an entry)."""
    holder = call.func.value
    name = dotted(holder)
    scope = ctx.enclosing_function(holder) or ctx.tree
    found: list[ast.expr] = []
    bound = False
    for node in ctx.walk_scope(scope):
        if getattr(node, "lineno", 10**9) >= holder.lineno:
            continue
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Subscript) and dotted(target.value) == name:
                    if not isinstance(constant(target.slice), str):
                        return None
                    found.append(node.value)
                elif dotted(target) == name:
                    bound = True
                    if isinstance(node.value, ast.Dict) and all(k is not None for k in node.value.keys):
                        found.extend(node.value.values)
                    elif not (isinstance(node.value, ast.Call) and dotted(node.value.func) == "dict" and not node.value.args):
                        return None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and dotted(node.func.value) == name \
                and node.func.attr in {"update", "setdefault", "__setitem__", "pop"}:
            return None
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Subscript) and dotted(node.target.value) == name:
            return None
    if not bound and "." in (name or ""):
        return None  # an attribute filled elsewhere too (another method): not the whole story
    return found or None


def loss_terms(ctx: FileContext, loss: ast.expr, reader: Reader | None = None, *, depth: int = 0,
               anchor: ast.AST | None = None, env: dict | None = None) -> list[Term]:
    """The terms of a loss that is written as a sum, following local names, ``+=``, a dict of losses and a helper (or a
    loss object's ``__call__``) that returns the sum; a loss that is not a sum is one term. Each term's ``stmt`` is the
    statement where it joins the sum."""
    reader = reader or Reader(ctx)
    here = anchor or _statement(ctx, loss)
    single = [Term(loss, here, ctx, reader, env)]
    if depth > 6:
        return single
    again = lambda e, a: loss_terms(ctx, e, reader, depth=depth + 1, anchor=a, env=env)  # noqa: E731
    if isinstance(loss, ast.Name):
        if env is not None and loss.id in env:
            return single
        entries = reader._reaching(loss)
        if not entries or no_grad_context(ctx, entries[-1][1], reader.shared):
            return single
        terms: list[Term] = []
        for _line, stmt, value in reversed(entries):
            if isinstance(stmt, ast.AugAssign):
                if not isinstance(stmt.op, (ast.Add, ast.Sub)):
                    return single
                terms.extend(again(stmt.value, stmt))
            elif value is not None and isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                is_sum = _summands(value) is not None or isinstance(value, ast.Name) or _scaled_sum(ctx, value) is not None \
                    or (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "values")
                terms.extend(again(value, stmt if is_sum else here))
            elif value is None and isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and env is None \
                    and len(entries) == 1:
                helper = _helper_terms(ctx, stmt.value, reader, depth, _tuple_index(stmt, loss.id))
                if helper is None:
                    return single
                terms.extend(helper)
            else:
                return single
        return terms
    if isinstance(loss, ast.Call) and isinstance(loss.func, ast.Attribute) and loss.func.attr == "values" \
            and dotted(loss.func.value) is not None:
        values = _dict_values(ctx, loss)
        if values is None:
            return single
        return [t for v in values for t in again(v, _statement(ctx, v))]
    parts = _summands(loss)
    if parts is None:
        side = _scaled_sum(ctx, loss)
        if side is not None:
            return again(side, here)
        if isinstance(loss, ast.Call) and env is None:
            helper = _helper_terms(ctx, loss, reader, depth, None)
            if helper is not None:
                return helper
        return single
    return [t for p in parts for t in again(p, here)]


def _tuple_index(stmt: ast.Assign, name: str) -> int | None:
    target = stmt.targets[0] if len(stmt.targets) == 1 else None
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        return next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
    return None


def _helper_terms(ctx: FileContext, call: ast.Call, reader: Reader, depth: int, element: int | None) -> list[Term] | None:
    """The terms of the sum a helper returns (``loss, logs = compute_loss(batch)``, ``criterion(inputs, outputs)`` on
    an instance of a project loss class), read in the helper's file with its parameters bound to the call's arguments;
    None when the helper cannot be read or does not return a sum."""
    found = None
    func = call.func
    if isinstance(func, (ast.Name, ast.Attribute)) and not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                                             and func.value.id == "self"):
        local = ctx.callee_definition(call)
        if local is not None and not isinstance(ctx.parent(local), ast.ClassDef):
            found = (ctx, local)
        else:
            found = value_origins.project_function(ctx, func)
        if found is None:
            # ``criterion(inputs, outputs)`` on an instance of a project class, or ``obj.compute_loss(batch)``
            receiver, method = (func, "__call__") if isinstance(func, ast.Name) else (func.value, func.attr)
            owner = value_origins.instance_class(ctx, receiver, bind_params=False)
            if owner is not None:
                found = value_origins.class_method(owner[0], owner[1], method)
    if found is None:
        return None
    there, callee = found
    returns = [r for r in value_origins.returns(callee)]
    if len(returns) != 1 or any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in ast.walk(callee)):
        return None
    value = returns[0]
    if element is not None:
        if not (isinstance(value, ast.Tuple) and len(value.elts) > element):
            return None
        value = value.elts[element]
    bound: dict = {}
    for p in value_origins.function_params(callee):
        arg = value_origins.argument_for(call, callee, p)
        if arg is not None:
            bound[p] = Bound(reader, arg, None)
    inner = Reader(there, frozenset(), reader.depth + 1)
    terms = loss_terms(there, value, inner, depth=depth + 1, env=bound)
    if len(terms) < 2 and terms[0].expr is value:
        return None  # not a sum: one term, read as a whole by the caller
    return terms


def _scaled_sum(ctx: FileContext, loss: ast.expr) -> ast.expr | None:
    """``(a + b) / 2``, ``0.5 * (a + b)``: the side that is a sum, when the other is a plain number."""
    if isinstance(loss, ast.BinOp) and isinstance(loss.op, (ast.Mult, ast.Div)):
        for side, other in ((loss.left, loss.right), (loss.right, loss.left)):
            if _summands(side) is not None and flow(ctx, other) == CONST:
                return side
    return None
