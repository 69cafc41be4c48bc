"""Sequences used together by position, and whether their orders still agree where they meet.

A value's *order* is where its sequence came from (its group: one unpacking, one loop that appended to
several lists, one file listing, the parameters of one function) plus the reorderings applied since
(sorted, shuffled, reversed, filtered, deduplicated, gathered by an index array). Two values of one group
with the same reorderings line up element by element; one that was reordered on its own does not. Two
file-system listings line up only when both are sorted.

``pairings`` finds where two sequences are combined by position (``zip``, one index into both, the
constructors and splitters that take parallel arrays, stacking as columns, a returned tuple) and
``misalignment`` says whether their orders diverge there.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, constant, dotted, keyword, same_tree

MAX_DEPTH = 6

_LISTINGS = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.iglob"})
_LISTING_METHODS = frozenset({"iterdir", "rglob"})
_WALKS = frozenset({"os.walk"})
_PASSTHROUGH_CALLS = frozenset(
    {"list", "tuple", "iter", "numpy.array", "numpy.asarray", "numpy.stack", "numpy.concatenate", "numpy.vstack",
     "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.Tensor", "torch.LongTensor", "torch.FloatTensor",
     "torch.stack", "torch.cat", "torch.nn.utils.rnn.pad_sequence", "pandas.Series", "torch.utils.data.TensorDataset"}
)
_PASSTHROUGH_METHODS = frozenset(
    {"copy", "tolist", "to_list", "to_numpy", "numpy", "to", "cpu", "cuda", "float", "long", "int", "double", "half",
     "astype", "reshape", "view", "squeeze", "unsqueeze", "flatten", "reset_index", "detach", "clone", "contiguous",
     "apply", "map", "as_posix", "keys", "values"}
)
_INDEX_SOURCES = frozenset({"range", "numpy.arange", "torch.arange"})
_POSITION_CALLS = frozenset({"argsort", "argwhere", "nonzero", "flatnonzero", "argmax_positions"})
_RANDOM_PERMUTATIONS = frozenset({"numpy.random.permutation", "torch.randperm", "numpy.random.choice"})
_SHUFFLES = frozenset({"random.shuffle", "numpy.random.shuffle"})
_PAIRING_CALLS = frozenset({"torch.utils.data.TensorDataset", "sklearn.model_selection.train_test_split", "sklearn.utils.shuffle"})
_COLUMN_STACKS = frozenset({"numpy.column_stack", "numpy.stack", "torch.stack", "numpy.c_"})
_FILTER_TOKENS = frozenset({"filter", "mask", "drop", "dropna", "drop_duplicates"})
_SCALAR_ATTRS = frozenset({"shape", "dtype", "device", "size", "ndim", "name", "stem", "suffix", "parent"})


@dataclass(frozen=True)
class Op:
    """One reordering: ``token`` says what it does (equal tokens reorder equally); ``line``/``text`` where."""

    token: tuple
    random: bool
    line: int = field(compare=False)
    text: str = field(compare=False)
    node: ast.AST | None = field(default=None, compare=False, repr=False)
    rebinds: bool = field(default=False, compare=False)  # in place, or the result replaces what it reordered

    @property
    def filters(self) -> bool:
        """It drops elements (the survivors keep their relative order) rather than moving them."""
        return self.token[0] in _FILTER_TOKENS

    @property
    def moves(self) -> bool:
        """It certainly moves elements: a sort, a shuffle, a reversal, a random permutation."""
        return self.token[0] in ("sort", "reverse", "random", "perm") or self.random


@dataclass(frozen=True)
class Order:
    group: tuple
    ops: tuple[Op, ...] = ()
    listing: bool = False  # the group is a file-system listing
    fixed: bool = False  # ... and it was sorted since
    index: bool = False  # a sequence of positions (range, arange, a permutation of them)
    param: tuple | None = field(default=None, compare=False)  # (function, name) for a bare parameter
    origin: ast.AST | None = field(default=None, compare=False, repr=False)  # the listing call

    def then(self, op: Op, *, fixed: bool = False) -> Order:
        ops = (*self.ops, op)
        if op.token == ("reverse",) and self.ops and self.ops[-1].token == ("reverse",):
            ops = self.ops[:-1]  # reversed twice: the original order
        return Order(self.group, ops, self.listing, self.fixed or (fixed and self.listing), self.index, origin=self.origin)

    def with_ops(self, ops: tuple[Op, ...]) -> Order:
        return Order(self.group, ops, self.listing, self.fixed, self.index, self.param, self.origin)

    @property
    def random(self) -> bool:
        return any(op.random for op in self.ops)


@dataclass
class Misalignment:
    kind: str  # "reordered" | "listing" | "shuffled"
    op: Op | None  # the reordering one side has and the other lacks
    unsorted: list[int]  # for listings: which side(s) (0, 1) are not sorted
    cause: ast.AST | None = None  # the reordering, or the (first) unsorted listing


def _qual(ctx: FileContext, call: ast.Call) -> str:
    return vo.normalize(ctx.qualname(call)) or dotted(call.func) or ""


def _op(ctx: FileContext, node: ast.AST, token: tuple, *, random: bool = False) -> Op:
    return Op(token, random, node.lineno, ctx.segment(node, 60), node)


def _key_text(ctx: FileContext, call: ast.Call) -> tuple:
    key, rev = keyword(call, "key"), keyword(call, "reverse")
    return (ctx.segment(key, 80) if key is not None else "", ctx.segment(rev, 20) if rev is not None else "")


class Orders:
    """Order of expressions in one file (answers cached per node)."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._cache: dict[int, Order | None] = {}
        self._inplace: dict[int, list[tuple[ast.AST, Op, str]]] = {}

    # ---- expressions ---------------------------------------------------------------------------------
    def of(self, expr: ast.AST | None, depth: int = 0) -> Order | None:
        if expr is None or depth > MAX_DEPTH:
            return None
        key = id(expr)
        if key in self._cache:
            return self._cache[key]
        self._cache[key] = None  # cycle guard
        found = self._compute(expr, depth)
        self._cache[key] = found
        return found

    def _compute(self, expr: ast.AST, depth: int) -> Order | None:
        if isinstance(expr, ast.Name):
            return self._name(expr, depth)
        if isinstance(expr, ast.Attribute):
            if isinstance(expr.value, ast.Name) and expr.value.id == "self":
                return self._self_attribute(expr, depth)
            if expr.attr in _SCALAR_ATTRS or expr.attr in ("iloc", "loc"):
                return None
            return self.of(expr.value, depth + 1)
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, depth)
        if isinstance(expr, ast.Call):
            return self._call(expr, depth)
        if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self._comprehension(expr, depth)
        if isinstance(expr, (ast.Dict, ast.DictComp, ast.Constant, ast.JoinedStr, ast.Lambda, ast.Compare, ast.BoolOp)):
            return None
        if isinstance(expr, (ast.List, ast.Tuple, ast.BinOp, ast.IfExp, ast.Starred, ast.Await, ast.UnaryOp)):
            return None
        return Order(("src", id(expr)))

    def _name(self, name: ast.Name, depth: int) -> Order | None:
        ctx = self.ctx
        scope = ctx.enclosing_function(name) or ctx.tree
        entries = vo.bindings(ctx, scope).get(name.id, [])
        best = None
        for entry in entries:
            line, _stmt, val = entry
            if line < name.lineno or (line == name.lineno and val is not None and val.col_offset > name.col_offset):
                best = entry
        if best is None:
            if scope is not ctx.tree:
                if name.id in vo.function_params(scope) and name.id not in ("self", "cls"):
                    return Order(("param", id(scope), name.id), param=(scope, name.id))
                if not entries:
                    module = vo.bindings(ctx, ctx.tree).get(name.id, [])
                    if module:
                        best = module[-1]
            if best is None:
                return None
        line, stmt, val = best
        base = self._bound(name.id, stmt, val, depth)
        if base is None:
            return None
        base = _mark_rebinding(base, ast.Name(id=name.id), val)
        return self._apply_inplace(base, name.id, scope, line, name)

    def _bound(self, name: str, stmt: ast.AST, val: ast.expr | None, depth: int) -> Order | None:
        """The order a binding statement gives ``name``."""
        if isinstance(stmt, (ast.For, ast.AsyncFor)):
            if isinstance(stmt.iter, ast.Call) and _qual(self.ctx, stmt.iter) in _WALKS:
                return Order(("ls", id(stmt.iter), name), listing=True, origin=stmt.iter)
            return None
        if val is None:
            if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], (ast.Tuple, ast.List)):
                target, value = stmt.targets[0], stmt.value
                if isinstance(value, ast.Call) and (dotted(value.func) or "").rsplit(".", 1)[-1] in ("sort", "topk") \
                        and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name) and target.elts[1].id == name:
                    return Order(("range", id(value)), (_op(self.ctx, value, ("sort", self.ctx.segment(value, 80))),), index=True)
                return Order(("unzip" if _transposed(value) else "unpack", id(stmt.value)))
            return None
        if isinstance(val, ast.List) and not val.elts or isinstance(val, ast.Call) and dotted(val.func) == "list" and not val.args:
            return self._appended(name, stmt, depth)
        return self.of(val, depth + 1)

    def _appended(self, name: str, stmt: ast.AST, depth: int, receiver: ast.AST | None = None) -> Order | None:
        """A list built empty and filled by ``.append``/``.extend`` in a loop: the loop's order (all lists
        appended in one loop share it). An ``if`` on the loop's item with every append on one side filters."""
        ctx = self.ctx
        scope = ctx.enclosing_function(stmt) or ctx.tree
        loop = None
        sides: list[dict[int, tuple[ast.If, bool]]] = []
        for call in ctx.calls(scope):
            func = call.func
            if not (isinstance(func, ast.Attribute) and func.attr in ("append", "extend") and call.lineno > stmt.lineno):
                continue
            target = func.value
            if receiver is None:
                if not (isinstance(target, ast.Name) and target.id == name):
                    continue
            elif not same_tree(target, receiver):
                continue
            here = None
            conditions: dict[int, tuple[ast.If, bool]] = {}
            child: ast.AST = call
            for anc in ctx.ancestors(call):
                if anc is scope:
                    break
                if isinstance(anc, (ast.For, ast.AsyncFor, ast.While)):
                    here = anc
                    break
                if isinstance(anc, ast.If):
                    conditions[id(anc)] = (anc, any(child is s_ for s_ in anc.body))
                child = anc
            if here is None or loop is not None and here is not loop:
                return None
            loop = here
            sides.append(conditions)
        if loop is None:
            return None
        base = self.of(loop.iter, depth + 1) if isinstance(loop, (ast.For, ast.AsyncFor)) else None
        if base is None or base.index:
            base = Order(("loop", id(loop)))
        per_item = _bound_in(loop)
        for key, (cond, branch) in sides[0].items():
            if not all(key in other and other[key][1] == branch for other in sides[1:]):
                continue
            if _presence_test(cond.test):
                continue  # an optional companion value: the list is all there or empty, not thinned
            if any(isinstance(n, ast.Name) and n.id in per_item for n in ast.walk(cond.test)):
                base = base.then(_op(ctx, cond, ("filter", id(cond))))
        return base

    def _self_attribute(self, attr: ast.Attribute, depth: int) -> Order | None:
        ctx = self.ctx
        cls = ctx.enclosing_class(attr)
        if cls is None:
            return None
        init = ctx.method(cls, "__init__")
        here = ctx.enclosing_function(attr)
        bound: tuple[ast.AST, ast.expr] | None = None
        local: tuple[ast.AST, ast.expr] | None = None
        for node in ctx.subtree(cls):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target = node.targets[0]
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) and len(target.elts) == len(node.value.elts):
                pairs = list(zip(target.elts, node.value.elts))  # self.a, self.b = a, b
            for tgt, val in pairs:
                if isinstance(tgt, ast.Attribute) and same_tree(tgt, attr):
                    func = ctx.enclosing_function(node)
                    if bound is None or func is init:
                        bound = (node, val)
                    if func is here and node.lineno < attr.lineno and (local is None or node.lineno > local[0].lineno):
                        local = (node, val)
        if local is not None:
            bound = local
        if bound is None:
            return None
        stmt, val = bound
        if isinstance(val, ast.List) and not val.elts:
            base = self._appended(attr.attr, stmt, depth, receiver=attr)
        else:
            base = self.of(val, depth + 1)
        if base is None:
            return None
        base = _mark_rebinding(base, attr, val)
        for node, op, _ in self._inplace_ops(cls):
            if isinstance(node, ast.Attribute) and same_tree(node, attr):
                if ctx.enclosing_function(node) is init and node.lineno < stmt.lineno:
                    continue
                base = base.then(op, fixed=op.token[0] == "sort")
        return base

    def _subscript(self, sub: ast.Subscript, depth: int) -> Order | None:
        ctx = self.ctx
        base_expr = sub.value
        if isinstance(base_expr, ast.Attribute) and base_expr.attr in ("iloc", "loc"):
            base_expr = base_expr.value
        index = sub.slice
        if isinstance(index, ast.Tuple):
            if not index.elts:
                return None
            first, rest = index.elts[0], index.elts[1:]
            if not all(isinstance(e, (ast.Slice, ast.Constant)) for e in rest):
                return None
            if isinstance(first, ast.Constant) and first.value is not Ellipsis:
                return None  # one row of a table: an element, not the sequence
            index = first if not (isinstance(first, ast.Constant) or isinstance(first, ast.Slice) and first.step is None) else ast.Slice()
        if isinstance(index, ast.Slice):
            base = self.of(base_expr, depth + 1)
            step = constant(index.step) if index.step is not None else None
            if base is not None and isinstance(step, int) and step < 0:
                return base.then(_op(ctx, sub, ("reverse",)))
            return base
        if isinstance(index, ast.Constant) or isinstance(index, ast.List) and all(isinstance(e, ast.Constant) for e in index.elts):
            return self.of(base_expr, depth + 1)
        token = self._index_array(index, depth)
        if token is None:
            return None
        base = self.of(base_expr, depth + 1)
        if base is None:
            return None
        return base.then(_op(ctx, sub, token[0], random=token[1]))

    def _index_array(self, index: ast.AST, depth: int) -> tuple[tuple, bool] | None:
        """(token, random) when ``index`` selects a reordered or filtered set of positions."""
        ctx = self.ctx
        if isinstance(index, (ast.Compare, ast.BoolOp)) or isinstance(index, ast.UnaryOp) and isinstance(index.op, (ast.Invert, ast.Not)):
            return ("mask", ctx.segment(index, 80)), False
        if isinstance(index, ast.Call):
            qual = _qual(ctx, index)
            if qual in _RANDOM_PERMUTATIONS:
                return ("perm", id(index)), True
            order = self.of(index, depth + 1)
            if order is not None and order.index:
                return ("index", ctx.segment(index, 80)), order.random
            return None
        if isinstance(index, ast.Name):
            bound = vo.value(ctx, index)
            if bound is index or bound is None:
                return None
            if isinstance(bound, (ast.Compare, ast.BoolOp)):
                return ("mask", index.id, id(bound)), False
            if isinstance(bound, ast.Call) and _qual(ctx, bound) in _RANDOM_PERMUTATIONS:
                return ("perm", index.id, id(bound)), True
            order = self.of(index, depth + 1)
            if order is not None and order.index:
                return ("index", index.id, order.group), order.random
            if isinstance(bound, ast.Call) and _qual(ctx, bound).rsplit(".", 1)[-1] in ("argsort", "nonzero", "flatnonzero", "argwhere"):
                return ("index", index.id, id(bound)), False
        return None

    def _call(self, call: ast.Call, depth: int) -> Order | None:
        ctx = self.ctx
        qual = _qual(ctx, call)
        last = qual.rsplit(".", 1)[-1]
        arg0 = call.args[0] if call.args and not isinstance(call.args[0], ast.Starred) else None
        method = call.func.attr if isinstance(call.func, ast.Attribute) else None
        if qual in _LISTINGS or qual.endswith(("gfile.glob", "gfile.listdir")):
            return Order(("ls", id(call)), listing=True, origin=call)
        if method in _LISTING_METHODS or method == "glob" and qual not in ("glob.glob",) and not qual.startswith("glob."):
            if method == "glob" and len(call.args) != 1:
                return None
            return Order(("ls", id(call)), listing=True, origin=call)
        if qual in _INDEX_SOURCES:
            return Order(("range", id(call)), index=True)
        if last in _POSITION_CALLS:
            return Order(("range", id(call)), (_op(ctx, call, ("sort", ctx.segment(call, 80))),), index=True)
        if qual in ("numpy.random.permutation", "torch.randperm"):
            if arg0 is not None and qual == "numpy.random.permutation":
                inner = self.of(arg0, depth + 1)
                if inner is not None and not inner.index:
                    return inner.then(_op(ctx, call, ("perm", id(call)), random=True))
            return Order(("range", id(call)), (_op(ctx, call, ("perm", id(call)), random=True),), index=True)
        if qual in ("sorted", "natsort.natsorted", "natsorted") and arg0 is not None:
            inner = self.of(arg0, depth + 1)
            return inner.then(_op(ctx, call, ("sort", *_key_text(ctx, call))), fixed=True) if inner is not None else None
        if qual == "reversed" and arg0 is not None:
            inner = self.of(arg0, depth + 1)
            return inner.then(_op(ctx, call, ("reverse",))) if inner is not None else None
        if qual in ("set", "frozenset", "numpy.unique", "torch.unique") and arg0 is not None:
            inner = self.of(arg0, depth + 1)
            return inner.then(_op(ctx, call, ("set",))) if inner is not None else None
        if qual == "filter" and len(call.args) == 2:
            inner = self.of(call.args[1], depth + 1)
            return inner.then(_op(ctx, call, ("filter", id(call)))) if inner is not None else None
        if qual == "map" and len(call.args) == 2:
            return self.of(call.args[1], depth + 1)
        if qual == "random.sample" and arg0 is not None or qual == "sklearn.utils.shuffle" and len(call.args) == 1:
            inner = self.of(arg0, depth + 1)
            return inner.then(_op(ctx, call, ("random", id(call)), random=True)) if inner is not None else None
        if qual in _PASSTHROUGH_CALLS and arg0 is not None and len(call.args) == 1:
            return self.of(arg0, depth + 1)
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if method is not None and not (isinstance(receiver, ast.Name) and receiver.id in ctx.imports):
            if method in _PASSTHROUGH_METHODS:
                return self.of(receiver, depth + 1)
            if method == "drop":
                inner = self.of(receiver, depth + 1)
                if inner is None or keyword(call, "columns") is not None or constant(keyword(call, "axis")) in (1, "columns"):
                    return inner
                return inner.then(_op(ctx, call, ("drop", ctx.segment(call, 80))))
            if method in ("sort_values", "sort_index"):
                inner = self.of(receiver, depth + 1)
                return inner.then(_op(ctx, call, ("sort", ctx.segment(call, 80)))) if inner is not None else None
            if method == "sample" and (keyword(call, "frac") is not None or keyword(call, "n") is not None):
                inner = self.of(receiver, depth + 1)
                return inner.then(_op(ctx, call, ("random", id(call)), random=True)) if inner is not None else None
            if method == "shuffle" and not call.args:  # datasets.Dataset.shuffle(seed=...) returns a shuffled copy
                inner = self.of(receiver, depth + 1)
                return inner.then(_op(ctx, call, ("random", id(call)), random=True)) if inner is not None else None
            if method in ("drop_duplicates", "dropna", "unique"):
                inner = self.of(receiver, depth + 1)
                return inner.then(_op(ctx, call, (method, id(call)))) if inner is not None else None
        if depth < 3 and isinstance(call.func, (ast.Name, ast.Attribute)):
            helper = vo.helper_definition(ctx, call)
            if helper is not None:
                hctx, hfunc = helper
                rets = vo.returns(hfunc)
                if len(rets) == 1:
                    inner = (self if hctx is ctx else orders(hctx)).of(rets[0], depth + 1)
                    if inner is not None and inner.listing:
                        return Order(("ls", id(call)), listing=True, fixed=inner.fixed, origin=call)
        return Order(("src", id(call)))

    def _comprehension(self, comp: ast.ListComp | ast.GeneratorExp | ast.SetComp, depth: int) -> Order | None:
        ctx = self.ctx
        if len(comp.generators) != 1:
            return None
        gen = comp.generators[0]
        elt = comp.elt
        if isinstance(gen.target, ast.Name) and isinstance(elt, ast.Subscript) and isinstance(elt.slice, ast.Name) \
                and elt.slice.id == gen.target.id and not gen.ifs:
            positions = self.of(gen.iter, depth + 1)
            if isinstance(gen.iter, ast.Call) and _qual(ctx, gen.iter) == "range":
                return self.of(elt.value, depth + 1)
            if positions is None or not positions.index:
                return None  # looked up by keys, or by positions of unknown order
            base = self.of(elt.value, depth + 1)
            if base is None:
                return None
            head = "perm" if any(op.moves for op in positions.ops) else "index"
            return base.then(_op(ctx, comp, (head, positions.group, positions.ops), random=positions.random))
        base = self.of(gen.iter, depth + 1)
        if base is None:
            return None
        if gen.ifs:
            base = base.then(_op(ctx, comp, ("filter", id(comp))))
        if isinstance(comp, ast.SetComp):
            base = base.then(_op(ctx, comp, ("set",)))
        return base

    # ---- in-place reorderings ------------------------------------------------------------------------
    def _inplace_ops(self, scope: ast.AST) -> list[tuple[ast.AST, Op, str]]:
        """(reordered expression, op, its text) for statements that reorder a list in place in ``scope``."""
        key = id(scope)
        if key in self._inplace:
            return self._inplace[key]
        ctx = self.ctx
        found: list[tuple[ast.AST, Op, str]] = []
        for node in (ctx.subtree(scope) if isinstance(scope, ast.ClassDef) else ctx.walk_scope(scope)):
            if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
                continue
            call = node.value
            func = call.func
            qual = _qual(ctx, call)
            target = None
            op = None
            if isinstance(func, ast.Attribute) and func.attr in ("sort", "reverse") and not call.args:
                target = func.value
                op = _op(ctx, call, ("sort", *_key_text(ctx, call)) if func.attr == "sort" else ("reverse",))
            elif (qual in _SHUFFLES or isinstance(func, ast.Attribute) and func.attr == "shuffle" and qual != "sklearn.utils.shuffle") \
                    and len(call.args) == 1:
                target = call.args[0]
                op = _op(ctx, call, ("random", id(call)), random=True)
            elif isinstance(func, ast.Attribute) and func.attr in ("sort_values", "sort_index", "drop_duplicates", "dropna") \
                    and constant(keyword(call, "inplace")) is True:
                target = func.value
                token = ("sort", ctx.segment(call, 80)) if func.attr.startswith("sort") else (func.attr, id(call))
                op = _op(ctx, call, token)
            if target is None or op is None:
                continue
            if isinstance(target, ast.Name) or isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                op = Op(op.token, op.random, op.line, op.text, op.node, True)
                found.append((target, op, ctx.segment(target, 60)))
        self._inplace[key] = found
        return found

    def _apply_inplace(self, base: Order, name: str, scope: ast.AST, bound_line: int, use: ast.Name) -> Order:
        ctx = self.ctx
        use_loops = {id(loop) for loop in ctx.enclosing_loops(use)}
        for node, op, _ in self._inplace_ops(scope):
            if not (isinstance(node, ast.Name) and node.id == name) or node.lineno <= bound_line:
                continue
            if node.lineno < use.lineno:
                base = base.then(op, fixed=op.token[0] == "sort")
                continue
            # a reorder later in a loop that also holds the use (and not the binding) reaches the next turn
            loops = [lp for lp in ctx.enclosing_loops(node) if id(lp) in use_loops and lp.lineno > bound_line]
            if loops:
                base = base.then(op, fixed=op.token[0] == "sort")
        return base


def _transposed(value: ast.AST) -> bool:
    """``zip(*rows)`` (or ``map(list, zip(*rows))``): columns of one list of tuples, parallel by construction."""
    if isinstance(value, ast.Call) and dotted(value.func) == "map" and len(value.args) == 2:
        value = value.args[1]
    return isinstance(value, ast.Call) and dotted(value.func) == "zip" and len(value.args) == 1 \
        and isinstance(value.args[0], ast.Starred)


def _presence_test(test: ast.AST) -> bool:
    """``x is None`` / ``x is not None`` (possibly under ``not``)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test = test.operand
    return isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot)) \
        and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None


def _reordered_expr(node: ast.AST | None) -> ast.AST | None:
    """What an op's node reorders: ``X`` of ``X[perm]``, ``df`` of ``df.sample(...)``, ``X`` of ``sorted(X)``."""
    if isinstance(node, ast.Subscript):
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr in ("iloc", "loc"):
            base = base.value
        return base
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and not node.args:
            return node.func.value
        if node.args:
            return node.args[0] if not (dotted(node.func) or "").endswith(("filter", "map")) else node.args[-1]
    return None


def _mark_rebinding(order: Order, target: ast.AST, value: ast.AST | None) -> Order:
    """Ops made by ``target = value`` on ``target`` itself (``x = x[perm]``): the unreordered value is gone."""
    if value is None or not order.ops:
        return order
    inside = {id(n) for n in ast.walk(value)}
    ops = tuple(
        Op(op.token, op.random, op.line, op.text, op.node, True)
        if not op.rebinds and id(op.node) in inside and same_tree(_reordered_expr(op.node), target) else op
        for op in order.ops
    )
    return order.with_ops(ops)


def _bound_in(loop: ast.AST) -> set[str]:
    """Names that change from one turn of ``loop`` to the next: its target and what its body assigns."""
    found: set[str] = set()
    targets = [loop.target] if isinstance(loop, (ast.For, ast.AsyncFor)) else []
    for node in ast.walk(loop):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets.extend(node.targets if isinstance(node, ast.Assign) else [node.target])
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            targets.append(node.target)
        elif isinstance(node, ast.NamedExpr):
            targets.append(node.target)
    for target in targets:
        found.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return found


def orders(ctx: FileContext) -> Orders:
    """The :class:`Orders` of ``ctx``, built once per file context."""
    found = ctx.__dict__.get("_paired_sequences_orders")
    if found is None:
        found = Orders(ctx)
        ctx.__dict__["_paired_sequences_orders"] = found
    return found


def misalignment(a: Order | None, b: Order | None, *, moves_only: bool = False,
                 exprs: tuple[ast.AST, ast.AST] | None = None) -> Misalignment | None:
    """Why two sequences combined by position no longer line up, or None when they do (or it is unknown).

    ``moves_only`` (values returned together, which need not be parallel at all): only two parts of one
    value count, and only reorderings that certainly move elements, not filters (a filtered subset may
    travel beside its source on purpose). ``exprs``: the two paired expressions, to recognise a sequence
    paired with a reordered copy of itself (``zip(x, sorted(x))``, mixup's ``x`` and ``x[perm]``)."""
    if a is None or b is None or a.index or b.index:
        return None
    if moves_only:
        if a.group[0] in ("loop", "unpack"):
            return None  # lists grown side by side, or a function's several results: not known to be parallel
        a = a.with_ops(tuple(op for op in a.ops if op.moves))
        b = b.with_ops(tuple(op for op in b.ops if op.moves))
    if a.group == b.group:
        if a.ops == b.ops:
            return None
        short, long_ = (a.ops, b.ops) if len(a.ops) <= len(b.ops) else (b.ops, a.ops)
        if long_[: len(short)] != short:
            return None
        op = long_[len(short)]
        if exprs is not None and not op.rebinds:
            other = exprs[0] if long_ is b.ops else exprs[1]
            if same_tree(_reordered_expr(op.node), other):
                return None  # compared with a reordered copy of itself, on purpose
        return Misalignment("reordered", op, [], op.node)
    if moves_only:
        return None
    if a.random != b.random and not (a.ops and b.ops):
        op = next(op for op in (*a.ops, *b.ops) if op.random)
        if not op.rebinds:
            return None  # a shuffled copy beside other data (mixup partners, negatives): kept on purpose
        return Misalignment("shuffled", op, [], op.node)
    if a.listing and b.listing and not (a.fixed and b.fixed) and not a.random and not b.random:
        unsorted = [i for i, o in enumerate((a, b)) if not o.fixed]
        return Misalignment("listing", None, unsorted, (a, b)[unsorted[0]].origin)
    return None


@dataclass
class Pairing:
    node: ast.AST  # where the two meet
    left: ast.AST
    right: ast.AST
    how: str

    @property
    def loose(self) -> bool:
        """Values returned together need not be parallel (a filtered subset travels beside its source)."""
        return self.how == "returned together"


def _pair_all(node: ast.AST, exprs: list[ast.AST], how: str):
    for i, a in enumerate(exprs):
        for b in exprs[i + 1:]:
            yield Pairing(node, a, b, how)


def pairings(ctx: FileContext, scope: ast.AST) -> list[Pairing]:
    """Places in ``scope`` (not nested functions) where two sequences are combined by position, in line order."""
    return sorted(_pairings(ctx, scope), key=lambda p: (p.node.lineno, p.node.col_offset))


def _pairings(ctx: FileContext, scope: ast.AST):
    subscripts: list[ast.Subscript] = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call):
            qual = _qual(ctx, node)
            args = [a for a in node.args if not isinstance(a, ast.Starred)]
            if qual == "zip" and len(args) == len(node.args) and len(args) >= 2:
                yield from _pair_all(node, args, "zip")
            elif qual in _PAIRING_CALLS or qual.rsplit(".", 1)[-1] == "TensorDataset":
                yield from _pair_all(node, args, qual.rsplit(".", 1)[-1])
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "fit" and len(args) == 2:
                yield from _pair_all(node, args, "fit")
            elif qual in _COLUMN_STACKS and args and isinstance(args[0], (ast.List, ast.Tuple)) and \
                    (qual == "numpy.column_stack" or keyword(node, "axis") is not None or keyword(node, "dim") is not None):
                yield from _pair_all(node, list(args[0].elts), "stacked as columns")
            elif qual == "pandas.DataFrame" and args and isinstance(args[0], ast.Dict):
                yield from _pair_all(node, list(args[0].values), "columns of one frame")
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            index = node.slice
            if (isinstance(index, (ast.Name, ast.BinOp)) or isinstance(index, ast.Slice) and index.step is None) \
                    and isinstance(node.value, (ast.Name, ast.Attribute)):
                subscripts.append((_binder(ctx, node, scope), node))
        elif isinstance(node, (ast.Return, ast.Yield)) and isinstance(node.value, ast.Tuple) and scope is not ctx.tree:
            yield from _pair_all(node, list(node.value.elts), "returned together")
    seen: list[tuple[int | None, ast.Subscript]] = []
    for binder, sub in subscripts:
        for other_binder, other in seen:
            if binder == other_binder and same_tree(sub.slice, other.slice) and not same_tree(sub.value, other.value) \
                    and _position(sub.slice) and not _rebound_between(ctx, scope, sub.slice, other.lineno, sub.lineno):
                yield Pairing(sub, other.value, sub.value, f"both indexed by `{ctx.segment(sub.slice, 40)}`")
                break
        seen.append((binder, sub))


def _rebound_between(ctx: FileContext, scope: ast.AST, index: ast.AST, start: int, end: int) -> bool:
    """A name of ``index`` is assigned again between the two uses: the same text, another position."""
    table = vo.bindings(ctx, scope)
    names = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)}
    return any(start <= line < end for name in names for line, _stmt, _val in table.get(name, []))


def _binder(ctx: FileContext, sub: ast.Subscript, scope: ast.AST) -> int | None:
    """The loop or comprehension that binds a name of ``sub``'s index (two loops may reuse ``i``), or None."""
    names = {n.id for n in ast.walk(sub.slice) if isinstance(n, ast.Name)}
    for anc in ctx.ancestors(sub):
        if anc is scope:
            break
        if isinstance(anc, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            targets = [gen.target for gen in anc.generators]
        elif isinstance(anc, (ast.For, ast.AsyncFor)):
            targets = [anc.target]
        else:
            continue
        if names & {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}:
            return id(anc)
    return None


def _position(index: ast.AST) -> bool:
    """An index that is a position, not a key: no string constants in it."""
    return not any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(index))


def parameter_sites(ctx: FileContext, a: Order, b: Order):
    """For two bare parameters of one function of ``ctx``: (caller ctx, left argument, right argument) at each call."""
    if a.param is None or b.param is None or a.ops or b.ops or a.param[0] is not b.param[0]:
        return
    func, pa = a.param
    pb = b.param[1]
    if pa == pb:
        return
    sites = vo.all_call_sites(ctx, func)
    if not sites and getattr(func, "name", "") == "__init__":
        cls = ctx.enclosing_class(func)
        if cls is not None and ctx.project is not None:
            for fctx in [ctx, *ctx.project.files_mentioning(ctx, cls.name)]:
                for call in fctx.calls_named(cls.name):
                    if fctx is not ctx or not isinstance(call.func, ast.Name) or vo.file_class(ctx, call.func.id) is cls:
                        found = vo.constructed_class(fctx, call)
                        if found is not None and found[1] is cls:
                            sites.append((fctx, call))
    for sctx, call in sites:
        left, right = vo.argument_for(call, func, pa), vo.argument_for(call, func, pb)
        if left is not None and right is not None:
            yield sctx, left, right
