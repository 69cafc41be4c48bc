"""One-shot iterables: values that can be run through only once, and the reads that run them to their end.

A generator expression, the result of a generator function, ``zip``/``map``/``filter``/``iter``/``enumerate``/
``reversed``, the finite ``itertools`` iterators, ``model.parameters()`` and its siblings, ``Path.glob``,
``os.walk``, ``re.finditer``, a file object and a ``csv.reader`` are exhausted after one pass: a second pass
yields nothing, silently. :func:`one_shot` says whether an expression builds such a value (and what it is);
:func:`consumed_twice` says whether a name bound to one is run to its end twice in its scope: two reads
one after the other, or one read inside a loop that does not rebind the name (an epoch loop over an iterator
made before it). A read counts when it is a ``for`` loop or comprehension over the name (through a lazy
wrapper such as ``enumerate`` or ``tqdm``), a call that reads its argument to the end (``list``, ``sum``,
an optimizer, ``clip_grad_norm_``), ``f.read()``/``f.readlines()`` on a file, or a project helper whose
parameter is itself read (one call level). Partial reads (``next``, ``zip``, ``islice``, a loop that may
``break`` or ``return``) never count as the first pass: what they leave is still there for the next reader.
Two reads in branches that exclude each other (``if``/``else``, ``try``/``except``, a branch that returns)
are not both run. Infinite iterators (``itertools.cycle``/``count``/``repeat``) and re-iterable objects
(lists, ``DataLoader``, ``range``, dict views) are not one-shot.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass

from mlsleuth.scan.analysis import lightning, value_origins
from mlsleuth.scan.analysis.context import LOOPS, FileContext, call_method, constant

MAX_DEPTH = 3
_PARAMETER_WORDS = re.compile(r"parameters\(|(?<![A-Za-z])param")

# Builtins whose result is an iterator (not shadowed by an import of the same name).
_BUILTIN_ITERATORS = frozenset({"zip", "map", "filter", "iter", "enumerate", "reversed"})
# Qualified functions whose result is an iterator.
_QUALIFIED_ITERATORS = frozenset({
    "itertools.chain", "itertools.chain.from_iterable", "itertools.islice", "itertools.product",
    "itertools.permutations", "itertools.combinations", "itertools.combinations_with_replacement",
    "itertools.groupby", "itertools.starmap", "itertools.accumulate", "itertools.compress", "itertools.dropwhile",
    "itertools.takewhile", "itertools.zip_longest", "itertools.pairwise", "itertools.batched",
    "itertools.filterfalse", "csv.reader", "csv.DictReader", "os.walk", "os.scandir", "glob.iglob", "re.finditer",
    "builtins.zip", "builtins.map", "builtins.filter", "builtins.iter",
})
# Methods of nn.Module (and pathlib.Path) that return generators.
_PARAMETER_METHODS = frozenset({"parameters", "named_parameters"})
_GENERATOR_METHODS = frozenset({
    "buffers", "named_buffers", "children", "named_children", "modules", "named_modules", "iterdir",
})
# File openers (a file object is its own one-shot iterator over lines).
_OPENERS = frozenset({"open", "io.open", "gzip.open", "bz2.open", "lzma.open", "codecs.open"})

# Calls that read an iterable argument to its end.
_EXHAUSTING_FUNCTIONS = frozenset({
    "list", "tuple", "set", "frozenset", "sorted", "sum", "max", "min", "dict", "collections.Counter",
    "collections.deque", "numpy.fromiter", "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils.parameters_to_vector", "torch.nn.utils.vector_to_parameters", "torch.nn.utils.get_total_norm",
    "torch.nn.utils.clip_grads_with_norm_",
})
# Calls that read part of an iterable argument (enough for the second reader to find it empty).
_PARTIAL_FUNCTIONS = frozenset({"any", "all"})
# Lazy wrappers: reading the wrapper reads the wrapped iterable.
_LAZY_WRAPPERS = frozenset({"enumerate", "tqdm", "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "trange"})
# Clipping methods of training wrappers (accelerate's Accelerator, Lightning's Fabric) that take parameters.
_CLIPPING_METHODS = frozenset({"clip_grad_norm_", "clip_grad_value_", "clip_gradients"})

_STOPS = (ast.Return, ast.Raise, ast.Continue, ast.Break)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


@dataclass(frozen=True)
class OneShot:
    """What the one-shot value is: a short label for messages, and whether it runs over parameters."""

    label: str
    over_parameters: bool
    is_file: bool = False


@dataclass(frozen=True)
class Read:
    """A read of a one-shot value: the name read, how it is read, whether it runs it to its end."""

    node: ast.AST
    how: str
    exhaustive: bool


def _qual(ctx: FileContext, call: ast.Call) -> str:
    return value_origins.normalize(ctx.qualname(call)) or ""


def _builtin(ctx: FileContext, call: ast.Call, names: frozenset[str]) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id in names and func.id not in ctx.imports and not _defined_here(ctx, func.id):
        return func.id
    return None


def _defined_here(ctx: FileContext, name: str) -> bool:
    return ctx.module_function(name) is not None


def _is_generator_function(func: ast.AST) -> bool:
    if not isinstance(func, ast.FunctionDef):  # async generators are not read by `for`
        return False
    stack = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, _FUNCS):
            stack.extend(ast.iter_child_nodes(node))
    return False


def one_shot(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> OneShot | None:
    """What ``expr`` is when it builds a one-shot iterator, else None (also through a project helper whose every
    ``return`` hands one back, up to ``MAX_DEPTH`` helpers deep)."""
    if isinstance(expr, ast.GeneratorExp):
        return OneShot("a generator expression", _mentions_parameters(ctx, expr))
    if not isinstance(expr, ast.Call):
        return None
    method = call_method(expr) if isinstance(expr.func, ast.Attribute) else None
    if method in _PARAMETER_METHODS and (not expr.args or method == "named_parameters"):
        return OneShot(f"{ctx.segment(expr, 40)}, a generator", True)
    if method in _GENERATOR_METHODS and not expr.args:
        return OneShot(f"{ctx.segment(expr, 40)}, a generator", False)
    if method in ("glob", "rglob") and not _is_module_call(ctx, expr):
        return OneShot(f"{ctx.segment(expr, 40)}, a generator", False)
    name = _builtin(ctx, expr, _BUILTIN_ITERATORS)
    qual = _qual(ctx, expr)
    if name is not None or qual in _QUALIFIED_ITERATORS:
        label = f"{ctx.segment(expr.func, 30)}(...), an iterator"
        return OneShot(label, _mentions_parameters(ctx, expr))
    if _builtin(ctx, expr, frozenset({"open"})) or qual in _OPENERS - {"open"}:
        mode = expr.args[1] if len(expr.args) > 1 else next((k.value for k in expr.keywords if k.arg == "mode"), None)
        text = constant(mode)
        if mode is None or (isinstance(text, str) and "r" in text and "+" not in text):
            return OneShot(f"{ctx.segment(expr, 40)}, a file object", False, is_file=True)
        return None
    target = value_origins.helper_definition(ctx, expr)
    if target is None or target[1].name.startswith("__"):
        return None
    hctx, func = target
    if _is_generator_function(func):
        return OneShot(f"{ctx.segment(expr.func, 30)}(...), a generator", _mentions_parameters(ctx, expr))
    returned = value_origins.returns(func)
    if depth < MAX_DEPTH and returned and all(not isinstance(r, ast.Name) for r in returned):
        kinds = [one_shot(hctx, r, depth + 1) for r in returned]
        if all(kinds):
            label = f"{ctx.segment(expr.func, 30)}(...), which returns {kinds[0].label}"
            return OneShot(label, kinds[0].over_parameters, kinds[0].is_file)
    return None


def _is_module_call(ctx: FileContext, call: ast.Call) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in ctx.imports


def _mentions_parameters(ctx: FileContext, expr: ast.AST) -> bool:
    """An iterator over parameters, not over data (``hparams`` is not a parameter)."""
    return _PARAMETER_WORDS.search(ctx.segment(expr, 400)) is not None


# -- reads -------------------------------------------------------------------------------------------------------


def loop_may_stop_early(loop: ast.AST) -> bool:
    """A ``break`` of this loop, or a ``return``/``raise`` anywhere in its body (not in nested functions)."""
    stack: list[tuple[ast.AST, bool]] = [(s, False) for s in loop.body]
    while stack:
        node, nested = stack.pop()
        if isinstance(node, ast.Break) and not nested:
            return True
        if isinstance(node, (ast.Return, ast.Raise)):
            return True
        if isinstance(node, _FUNCS):
            continue
        inner = nested or isinstance(node, LOOPS)
        if isinstance(node, LOOPS):
            stack.extend((c, inner) for c in node.body + node.orelse)
            continue
        stack.extend((c, inner) for c in ast.iter_child_nodes(node))
    return False


def _comprehension_read(ctx: FileContext, comp: ast.comprehension) -> Read:
    owner = ctx.parent(comp)
    holder = ctx.parent(owner)
    if isinstance(owner, ast.GeneratorExp):
        # lazy: read to the end only by a call known to do so (`sum(x for x in it)`, `list(...)`, `"".join(...)`)
        exhaustive = isinstance(holder, ast.Call) and owner in holder.args and _exhausting_call(ctx, holder)
        return Read(comp, "a comprehension", exhaustive)
    return Read(comp, "a comprehension", True)


def _inner_generator(ctx: FileContext, node: ast.AST) -> ast.AST | None:
    """The comprehension when ``node`` is one of its inner ``for`` clauses (run again for every outer item)."""
    owner = ctx.parent(node)
    if isinstance(node, ast.comprehension) and node is not owner.generators[0]:
        return owner
    return None


def _exhausting_call(ctx: FileContext, call: ast.Call) -> bool:
    qual = _qual(ctx, call)
    name = call.func.id if isinstance(call.func, ast.Name) else None
    return (
        qual in _EXHAUSTING_FUNCTIONS or name in _EXHAUSTING_FUNCTIONS
        or call_method(call) == "join" and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Constant)
    )


def read_of(ctx: FileContext, use: ast.AST, *, helpers: bool = True) -> Read | None:
    """How ``use`` (a load of the one-shot value) reads it, or None when it does not read it."""
    node, parent = use, ctx.parent(use)
    while isinstance(parent, ast.Call) and node in parent.args and parent.args[0] is node and _wrapper(ctx, parent):
        node, parent = parent, ctx.parent(parent)  # enumerate(it), tqdm(it): the loop around reads `it`
    if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is node:
        return Read(parent, "a loop", not loop_may_stop_early(parent))
    if isinstance(parent, ast.comprehension) and parent.iter is node:
        return _comprehension_read(ctx, parent)
    if node is not use:
        return None
    if isinstance(parent, ast.Attribute) and parent.value is use:
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and call.func is parent and parent.attr in ("read", "readlines") and not call.args:
            return Read(call, f".{parent.attr}()", True)
        return None
    if isinstance(parent, ast.Call) and use in parent.args:
        qual = _qual(ctx, parent)
        func_name = parent.func.id if isinstance(parent.func, ast.Name) else None
        if _exhausting_call(ctx, parent):
            return Read(parent, f"{ctx.segment(parent.func, 40)}(...)", True)
        if func_name in _PARTIAL_FUNCTIONS and func_name not in ctx.imports:
            return Read(parent, f"{func_name}(...)", False)
        if qual.startswith("torch.optim.") and parent.args[0] is use:
            return Read(parent, f"{ctx.segment(parent.func, 40)}(...)", True)
        if call_method(parent) in _CLIPPING_METHODS and isinstance(parent.func, ast.Attribute) and parent.args[0] is use:
            return Read(parent, f"{ctx.segment(parent.func, 40)}(...)", True)
        if helpers:
            return _helper_read(ctx, parent, use)
        return None
    if isinstance(parent, ast.keyword) and parent.arg in ("params", "parameters"):
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and _qual(ctx, call).startswith(("torch.optim.", "torch.nn.utils.clip_grad")):
            return Read(call, f"{ctx.segment(call.func, 40)}(...)", True)
    return None


def _wrapper(ctx: FileContext, call: ast.Call) -> bool:
    qual = _qual(ctx, call)
    return qual in _LAZY_WRAPPERS or _builtin(ctx, call, frozenset({"enumerate", "tqdm", "trange"})) is not None


def _helper_read(ctx: FileContext, call: ast.Call, use: ast.AST) -> Read | None:
    """``helper(it)`` where the project function ``helper`` reads that parameter to its end (once is enough)."""
    target = value_origins.helper_definition(ctx, call)
    if target is None:
        return None
    hctx, func = target
    param = next((p for p in value_origins.function_params(func) if value_origins.argument_for(call, func, p) is use), None)
    if param is None or _is_generator_function(func):
        return None  # a generator helper reads lazily: its own reader decides
    reads = [r for r in _reads_of_name(hctx, func, param, func.lineno, helpers=False)]
    if not reads or not reads[0].exhaustive:
        return None
    where = "" if hctx is ctx else f" in {hctx.display_path}"
    return Read(call, f"{func.name}(){where}, which loops over its `{param}`", True)


# -- names bound to one-shot values ------------------------------------------------------------------------------


def _loads(ctx: FileContext, scope: ast.AST, name: str, after: int) -> list[ast.Name]:
    """Loads of ``name`` in ``scope`` after line ``after``, up to its next rebinding."""
    stores = sorted(
        n.lineno for n in ctx.walk_scope(scope)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno > after
    )
    stop = stores[0] if stores else float("inf")
    return sorted(
        (n for n in ctx.walk_scope(scope)
         if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) and after < n.lineno <= stop),
        key=lambda n: (n.lineno, n.col_offset),
    )


def _reads_of_name(ctx: FileContext, scope: ast.AST, name: str, after: int, *, helpers: bool = True) -> list[Read]:
    loads = _loads(ctx, scope, name, after)
    for use in list(loads):  # `params_to_clip = lora_params`: the alias is the same iterator
        holder = ctx.parent(use)
        if isinstance(holder, ast.Assign) and holder.value is use and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
            loads += _loads(ctx, scope, holder.targets[0].id, holder.lineno)
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    reads = []
    for use in loads:
        read = read_of(ctx, use, helpers=helpers)
        if read is not None and not _checked(ctx, use):
            reads.append(Read(use, read.how, read.exhaustive))
    return reads


def _checked(ctx: FileContext, use: ast.AST) -> bool:
    """The read sits in an ``assert`` or an ``assert...(...)`` call: a test that the iterator is now empty."""
    for anc in ctx.ancestors(use):
        if isinstance(anc, ast.Assert):
            return True
        if isinstance(anc, ast.Call) and (call_method(anc) or getattr(anc.func, "id", "") or "").startswith("assert"):
            return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _block_of(ctx: FileContext, node: ast.AST) -> tuple[ast.AST, str, list[ast.stmt], ast.stmt] | None:
    """(statement holding the block, field name, the block, the statement of the block holding ``node``)."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(child, (ast.stmt, ast.excepthandler)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(anc, field, None)
                if isinstance(block, list) and child in block:
                    return anc, field, block, child
        child = anc
    return None


def _statement_path(ctx: FileContext, node: ast.AST) -> list[tuple[ast.AST, str, list, ast.stmt]]:
    path = []
    current: ast.AST | None = node
    while current is not None:
        found = _block_of(ctx, current)
        if found is None:
            break
        path.append(found)
        current = found[0]
    return path


def both_run(ctx: FileContext, first: ast.AST, second: ast.AST) -> bool:
    """``second`` can run after ``first`` in one pass: not in branches that exclude each other, and the block of
    ``first`` does not end in a ``return``/``raise``/``continue``/``break`` before reaching ``second``."""
    path_first = _statement_path(ctx, first)
    path_second = _statement_path(ctx, second)
    owners_second = {id(owner): field for owner, field, _, _ in path_second}
    for owner, field, block, stmt in path_first:
        other = owners_second.get(id(owner))
        if other is not None:  # the blocks meet; if/else, try/except: one branch or the other
            return other == field or isinstance(owner, LOOPS)
        index = block.index(stmt)
        if any(isinstance(s, _STOPS) for s in block[index:]):
            return False
    return True


def _inside(ctx: FileContext, node: ast.AST, outer: ast.AST) -> bool:
    return any(anc is outer for anc in ctx.ancestors(node))


def _conditional_within(ctx: FileContext, node: ast.AST, outer: ast.AST) -> bool:
    for anc in ctx.ancestors(node):
        if anc is outer:
            return False
        if isinstance(anc, (ast.If, ast.IfExp, ast.Try, ast.While)):
            return True
    return False


def _enclosing_loop(ctx: FileContext, node: ast.AST, scope: ast.AST) -> ast.AST | None:
    """The innermost ``for``/``while`` of ``scope`` that runs ``node`` again on every pass (not the loop whose
    own iterable ``node`` is)."""
    child = node
    for anc in ctx.ancestors(node):
        if anc is scope or isinstance(anc, _FUNCS):
            return None
        if isinstance(anc, LOOPS) and not (isinstance(anc, (ast.For, ast.AsyncFor)) and child is anc.iter):
            if isinstance(anc, ast.While) and child is anc.test:
                child = anc
                continue
            return anc
        child = anc
    return None


def _stores(loop: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(loop))


@dataclass(frozen=True)
class Reuse:
    """A one-shot value read to its end (``first``) and read again (``second``; the same read on the next pass of
    a loop when ``again_in_loop``)."""

    first: Read
    second: Read
    again_in_loop: bool
    loop: ast.AST | None = None  # the loop that reads again, when ``again_in_loop``


def consumed_twice(ctx: FileContext, scope: ast.AST, name: str, bound_at: int, *, helpers: bool = True) -> Reuse | None:
    """How ``name`` (bound to a one-shot value on line ``bound_at`` of ``scope``) is run to its end and read again."""
    reads = _reads_of_name(ctx, scope, name, bound_at, helpers=helpers)
    return _reuse(ctx, scope, reads, lambda loop: _stores(loop, name))


def _reuse(ctx: FileContext, scope: ast.AST, reads: list[Read], rebinds) -> Reuse | None:
    for i, first in enumerate(reads):
        if not first.exhaustive:
            continue
        comprehension = _inner_generator(ctx, ctx.parent(first.node))
        if comprehension is not None:  # `[(a, b) for a in xs for b in it]`: only the first `a` sees any `b`
            return Reuse(first, first, True, comprehension)
        loop = _enclosing_loop(ctx, first.node, scope)
        if loop is not None and any(_loop_reading(ctx, r.node) is loop for r in reads):
            loop = None  # an inner drain of the outer loop's own iterator ends the outer loop too
        if loop is not None and not rebinds(loop) and not _ends_in_stop(loop):
            return Reuse(first, first, True, loop)
        for second in reads[i + 1:]:
            first_loop = _loop_reading(ctx, first.node)
            if (
                first_loop is not None and _inside(ctx, second.node, first_loop)
                and (not second.exhaustive or _conditional_within(ctx, second.node, first_loop))
            ):
                continue  # a nested loop over the same iterator: a bug only when it unconditionally drains the rest
            if both_run(ctx, first.node, second.node):
                return Reuse(first, second, False)
    return None


def _loop_reading(ctx: FileContext, use: ast.AST) -> ast.AST | None:
    """The ``for`` loop whose iterable is ``use`` (directly or through ``enumerate``/``tqdm``), or None."""
    node, parent = use, ctx.parent(use)
    while isinstance(parent, ast.Call) and node in parent.args:
        node, parent = parent, ctx.parent(parent)
    return parent if isinstance(parent, (ast.For, ast.AsyncFor)) and parent.iter is node else None


def _ends_in_stop(loop: ast.AST) -> bool:
    """The loop's body ends in an unconditional ``return``/``break``/``raise``: it runs once."""
    return bool(loop.body) and isinstance(loop.body[-1], (ast.Return, ast.Break, ast.Raise))


def local_bindings(ctx: FileContext) -> Iterator[tuple[ast.AST, ast.AST, str, OneShot, ast.AST]]:
    """(scope, binding statement, name, what it is, the value) for ``name = <one-shot>`` and
    ``with open(...) as name`` in any function or at module level."""
    for node in ctx.nodes_of(ast.Assign, ast.AnnAssign):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or not isinstance(targets[0], ast.Name) or node.value is None:
            continue
        kind = one_shot(ctx, node.value)
        if kind is not None:
            yield ctx.enclosing_function(node) or ctx.tree, node, targets[0].id, kind, node.value
    for node in ctx.nodes_of(ast.With):
        for item in node.items:
            if isinstance(item.optional_vars, ast.Name):
                kind = one_shot(ctx, item.context_expr)
                if kind is not None and kind.is_file:
                    yield ctx.enclosing_function(node) or ctx.tree, node, item.optional_vars.id, kind, item.context_expr


def rewound(ctx: FileContext, scope: ast.AST, name: str) -> bool:
    """``name.seek(...)`` somewhere in ``scope``: a file read again on purpose."""
    return any(
        isinstance(n, ast.Call) and call_method(n) == "seek" and isinstance(n.func, ast.Attribute)
        and isinstance(n.func.value, ast.Name) and n.func.value.id == name
        for n in ctx.walk_scope(scope)
    )


def helper_reads_twice(ctx: FileContext, call: ast.Call, arg: ast.AST) -> tuple[FileContext, ast.AST, str, Reuse] | None:
    """(file, function, parameter, reuse) when ``call`` passes the one-shot ``arg`` to a project function that
    reads that parameter twice (or once per pass of its own loop)."""
    target = value_origins.helper_definition(ctx, call)
    if target is None:
        return None
    hctx, func = target
    param = next((p for p in value_origins.function_params(func) if value_origins.argument_for(call, func, p) is arg), None)
    if param is None or _is_generator_function(func):
        return None
    reuse = consumed_twice(hctx, func, param, func.lineno, helpers=False)
    if reuse is None:
        return None
    return hctx, func, param, reuse


# -- one-shot values kept on an object -----------------------------------------------------------------------------


def _self_attribute(node: ast.AST, attr: str) -> bool:
    return (
        isinstance(node, ast.Attribute) and node.attr == attr
        and isinstance(node.value, ast.Name) and node.value.id == "self"
    )


def attribute_reuses(ctx: FileContext) -> Iterator[tuple[ast.ClassDef, str, ast.expr, OneShot, Reuse, str]]:
    """(class, attribute, value, what it is, reuse, where) for ``self.X = <one-shot>`` (its only binding in the
    class) read to its end by a method that runs more than once: a read inside a loop of the method, two reads
    in one method, or a method called inside a loop of this file."""
    for cls in ctx.classes:
        for attr, values in ctx.self_attributes(cls).items():
            if len(values) != 1:
                continue
            kind = one_shot(ctx, values[0])
            if kind is None:
                continue
            found = _attribute_reuse(ctx, cls, attr)
            if found is not None:
                yield cls, attr, values[0], kind, found[0], found[1]


def _attribute_reuse(ctx: FileContext, cls: ast.ClassDef, attr: str) -> tuple[Reuse, str] | None:
    in_init: Read | None = None  # `self.opt = SGD(self.params)` in __init__: every later reader finds it empty
    for method in cls.body:
        if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        loads = [n for n in ctx.walk_scope(method) if _self_attribute(n, attr) and isinstance(n.ctx, ast.Load)]
        reads = [Read(u, r.how, r.exhaustive) for u in loads if (r := read_of(ctx, u)) is not None]
        reuse = _reuse(ctx, method, reads, lambda loop: any(
            _self_attribute(n, attr) and isinstance(n.ctx, ast.Store) for n in ast.walk(loop)))
        if reuse is not None:
            return reuse, f"{method.name}()"
        first = next((r for r in reads if r.exhaustive), None)
        if first is not None and method.name == "__init__":
            in_init = first
        if first is None or method.name.startswith("__"):
            continue
        if in_init is not None:
            return Reuse(in_init, first, False), f"__init__() (line {in_init.node.lineno}) and in {method.name}()"
        caller = _called_in_loop(ctx, method.name)
        if caller is not None:
            return Reuse(first, first, True, caller), f"{method.name}(), called in the loop on line {caller.lineno}"
    return None


def _called_in_loop(ctx: FileContext, method: str) -> ast.AST | None:
    """A loop of this file that calls ``<obj>.method()`` (``self.train_epoch()`` in ``for epoch in ...``)."""
    if sum(1 for cls in ctx.classes if ctx.method(cls, method) is not None) != 1:
        return None  # a name several classes define: the call cannot be bound
    for call in ctx.calls():
        if isinstance(call.func, ast.Attribute) and call.func.attr == method:
            loops = ctx.enclosing_loops(call)
            if loops and not _ends_in_stop(loops[0]):
                return loops[0]
    return None


# -- one-shot values handed to a framework that reads them every epoch ---------------------------------------------

# Lightning hooks whose result the Trainer keeps and iterates again at every epoch (or validation run).
_REREAD_HOOKS = ("train_dataloader", "val_dataloader")


def _is_lightning_class(ctx: FileContext, cls: ast.ClassDef) -> bool:
    if lightning.is_lightning_module(ctx, cls):
        return True
    return any((ctx.qualname(base) or "").endswith("LightningDataModule") for base in cls.bases)


def hook_returns(ctx: FileContext) -> Iterator[tuple[ast.AST, ast.Return, OneShot]]:
    """(hook, its ``return``, what it returns) for a Lightning ``train_dataloader``/``val_dataloader`` that returns
    a one-shot iterable (directly, through a local name, or through ``self.X`` bound once): the Trainer iterates
    that object again at every epoch and finds it empty."""
    for cls in ctx.classes:
        hooks = [m for name in _REREAD_HOOKS if (m := ctx.method(cls, name)) is not None]
        if not hooks or not _is_lightning_class(ctx, cls):
            continue
        for hook in hooks:
            for node in ctx.walk_scope(hook):
                if isinstance(node, ast.Return) and node.value is not None:
                    kind = one_shot(ctx, _returned_value(ctx, cls, node.value))
                    if kind is not None:
                        yield hook, node, kind


def _returned_value(ctx: FileContext, cls: ast.ClassDef, expr: ast.expr) -> ast.AST | None:
    if isinstance(expr, ast.Name):
        return value_origins.local_value(ctx, expr)
    if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
        values = ctx.self_attributes(cls).get(expr.attr, [])
        return values[0] if len(values) == 1 else None
    return expr
