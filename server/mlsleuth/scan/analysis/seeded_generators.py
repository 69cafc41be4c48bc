"""Private random generators built with a seed, and whether that seed is the same on every call.

``np.random.default_rng(seed)``, ``np.random.RandomState(seed)``, ``random.Random(seed)`` and
``torch.Generator().manual_seed(seed)`` each make a generator whose draws are fixed by the seed.
Built once, that is reproducibility; built again inside code that runs per sample or per step,
with a seed that does not change between runs of that code, it replays the same numbers each time.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, dotted

SEEDED_CONSTRUCTORS = {
    "numpy.random.default_rng",
    "numpy.random.RandomState",
    "numpy.random.mtrand.RandomState",
    "random.Random",
}
TORCH_GENERATOR = {"torch.Generator", "torch._C.Generator"}


@dataclass(frozen=True)
class SeededGenerator:
    """One construction: the call that fixes the seed, the seed, and the name or attribute it is bound to."""

    call: ast.Call
    seed: ast.expr
    target: str | None  # ``rng`` / ``self.rng`` when bound by an assignment, else None (used inline)


def _is_torch_generator(ctx: FileContext, node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and (ctx.qualname(node) or "") in TORCH_GENERATOR


def seeded_generator(ctx: FileContext, call: ast.Call) -> SeededGenerator | None:
    """``call`` as the seeding of a private generator, or None: a seeded constructor (with a seed that is not
    ``None``), ``torch.Generator(...).manual_seed(seed)``, or ``g.manual_seed(seed)`` with ``g`` a local bound to
    ``torch.Generator(...)`` in the same function."""
    qn = ctx.qualname(call) or ""
    seed: ast.expr | None = None
    holder: ast.AST = call
    if qn in SEEDED_CONSTRUCTORS:
        seed = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "seed"), None)
    elif isinstance(call.func, ast.Attribute) and call.func.attr == "manual_seed" and call.args:
        receiver = call.func.value
        if _is_torch_generator(ctx, receiver):
            seed = call.args[0]
        elif isinstance(receiver, ast.Name) and _is_torch_generator(ctx, ctx.value_of(receiver)):
            seed = call.args[0]
            return SeededGenerator(call, seed, receiver.id) if seed is not None else None
    if seed is None or isinstance(seed, ast.Constant) and seed.value is None:
        return None
    parent = ctx.parent(holder)
    target = None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = dotted(parent.targets[0])
    return SeededGenerator(call, seed, target)


def drawn_from(ctx: FileContext, gen: SeededGenerator, scope: ast.AST) -> ast.AST | None:
    """A use of the generator after it is seeded, within ``scope``: a method called on the inline construction
    (``default_rng(0).random()``), or a later read of the name it is bound to (``rng.integers(...)``,
    ``generator=g``)."""
    parent = ctx.parent(gen.call)
    if gen.target is None:
        if isinstance(parent, ast.Attribute):
            return parent
        if isinstance(parent, ast.keyword) and parent.arg in {"generator", "rng", "random_state"}:
            return parent
        return None
    after = (gen.call.end_lineno or gen.call.lineno, gen.call.end_col_offset or 0)
    for node in ctx.walk_scope(scope):
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(getattr(node, "ctx", None), ast.Load):
            if dotted(node) == gen.target and (node.lineno, node.col_offset) > after:
                return node
    return None


def _assigned_outside_init(ctx: FileContext, cls: ast.ClassDef, attr: str) -> bool:
    """``attr`` is (re)bound somewhere other than ``cls.__init__``: ``self.epoch = epoch`` in ``set_epoch``,
    ``self.seed += 1``, ``dataset.seed = s`` in this file or another file of its package."""
    init = ctx.method(cls, "__init__")
    for match in re.finditer(r"\." + re.escape(attr) + r"\s*(\+|-|\*)?=(?!=)", ctx.source):
        line = ctx.source.count("\n", 0, match.start()) + 1
        if init is None or not init.lineno <= line <= (init.end_lineno or init.lineno):
            return True
    # another file of the package: ``self.attr = ...`` there is another class's own attribute
    elsewhere = re.compile(r"(?<!self)\." + re.escape(attr) + r"\s*(\+|-|\*)?=(?!=)")
    return ctx.project is not None and ctx.project.package_matches(ctx, elsewhere)


def fixed_across_calls(ctx: FileContext, expr: ast.expr, func: ast.AST, depth: int = 0) -> bool:
    """Whether ``expr`` (a seed inside ``func``) has the same value every time ``func`` runs: a literal, a module
    constant, an attribute of ``self`` that only ``__init__`` sets, a setting read from a module-level object
    (``CFG.seed``), or arithmetic of those. A parameter of ``func`` (``idx``), anything computed from one, and any
    call (``time.time()``, ``get_worker_info()``) may change."""
    if depth > 4:
        return False
    if isinstance(constant(expr), (int, str, bytes)) and not isinstance(constant(expr), bool):
        return True
    if isinstance(expr, ast.BinOp):
        return fixed_across_calls(ctx, expr.left, func, depth + 1) and fixed_across_calls(ctx, expr.right, func, depth + 1)
    if isinstance(expr, ast.UnaryOp):
        return fixed_across_calls(ctx, expr.operand, func, depth + 1)
    if isinstance(expr, ast.Subscript):
        return isinstance(expr.slice, ast.Constant) and fixed_across_calls(ctx, expr.value, func, depth + 1)
    if isinstance(expr, ast.Attribute):
        root = expr
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id == "self":
            first = expr
            while isinstance(first.value, ast.Attribute):
                first = first.value
            cls = ctx.enclosing_class(func)
            return cls is not None and not _assigned_outside_init(ctx, cls, first.attr) and not _assigned_outside_init(ctx, cls, expr.attr)
        # a setting read from an object the function does not receive or build: ``CFG.seed``, ``args.seed``
        return isinstance(root, ast.Name) and root.id not in value_origins.function_params(func) \
            and not value_origins.bindings(ctx, func).get(root.id)
    if isinstance(expr, ast.Name):
        if expr.id in value_origins.function_params(func):
            return False
        local = value_origins.bindings(ctx, func).get(expr.id)
        if local:
            if len(local) != 1 or local[0][2] is None:
                return False
            return fixed_across_calls(ctx, local[0][2], func, depth + 1)
        module_level = ctx.assignments(ctx.tree).get(expr.id)
        if module_level:
            return len(module_level) == 1 and module_level[0][2] is not None and isinstance(constant(module_level[0][2]), int)
        return expr.id in ctx.imports  # an imported constant or settings object: SEED, cfg
    return False
