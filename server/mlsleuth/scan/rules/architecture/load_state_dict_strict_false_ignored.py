"""The ``load-state-dict-strict-false-ignored`` rule: `load_state_dict(..., strict=False)` whose report of missing and unexpected keys is thrown away."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_ADAPTER_WORDS = {"lora", "adapter", "adapters", "peft", "qlora", "ia3"}


def _adapter_workflow(ctx: FileContext, call: ast.Call) -> bool:
    """The load happens where adapters (LoRA, adapter layers, PEFT) are set up: in the enclosing class
    or function, or in what the file imports from such a module."""
    scope = ctx.enclosing_class(call) or ctx.enclosing_function(call) or ctx.tree
    names = [dotted(n) for n in ast.walk(scope) if isinstance(n, (ast.Name, ast.Attribute))]
    names += list(ctx.imports.values())
    return any(_ADAPTER_WORDS & set(value_origins.words(part)) for name in names if name for part in name.split("."))


@register_rule
class LoadStateDictStrictFalseIgnored(Rule):
    """`load_state_dict(..., strict=False)` whose report of missing and unexpected keys is thrown away.

    What it finds: a `load_state_dict` call with `strict=False` used as a bare statement, so the
    returned `(missing_keys, unexpected_keys)` is never looked at; and its hand-written twin, the
    filter-and-merge idiom `kept = {k: v for k, v in ckpt.items() if k in model_dict}` followed by
    `model_dict.update(kept)` and `model.load_state_dict(model_dict)`, when nothing counts or prints what
    was kept (`len(kept)`, an assert, a log line) and the checkpoint's keys were not renamed first
    (`k.replace("module.", "")`, `removeprefix`, `consume_prefix_in_state_dict_if_present`). Test functions (`test_*`), which load
    partial states on purpose and check the outcome themselves, loads whose state dict is counted or
    logged right after (`len(sd)` in a "transferred N/M" line), and loads where adapters are set up
    (LoRA, adapter layers, PEFT: the base checkpoint lacks the adapter keys by design) are left alone.
    Why it matters: with `strict=False` a checkpoint whose keys do not match the model (a `module.`
    prefix from DataParallel, a renamed layer, a different architecture version) loads "successfully"
    while some or all layers keep their random initialisation. Fine-tuning then starts from scratch,
    or evaluation runs an untrained head, with no error. The category is architecture because the
    failure is a mismatch between the model's structure and the checkpoint's.
    How to confirm: print the return value: `print(model.load_state_dict(sd, strict=False))`; any
    missing key you expected to load is the bug.
    What to do instead: keep `strict=True` where you can; otherwise capture the result and check it,
    e.g. `missing, unexpected = model.load_state_dict(sd, strict=False)` and assert that only the keys
    you meant to skip (a new head) are missing.
    """

    id = "load-state-dict-strict-false-ignored"
    category = "architecture"
    severity = "warning"
    triggers = ("load_state_dict",)
    requires = (("False", " in "), (call_to("load_state_dict"),))

    def _filtered_merges(self, ctx: FileContext):
        """The filter-and-merge idiom: keys kept by membership in the model's own dict, merged, loaded."""
        for comp in ctx.nodes_of(ast.DictComp):
            found = _membership_filter(ctx, comp)
            stmt = ctx.parent(comp)
            if found is None or not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1 \
                    or not isinstance(stmt.targets[0], ast.Name):
                continue
            source, model_dict = found
            kept = stmt.targets[0].id
            scope = ctx.enclosing_function(comp) or ctx.tree
            func = ctx.enclosing_function(comp)
            if func is not None and func.name.startswith("test") or _adapter_workflow(ctx, comp):
                continue
            if _renamed(ctx, source) or _counted(ctx, scope, kept, stmt.lineno):
                continue
            loaded = self._merged_and_loaded(ctx, scope, kept, model_dict, stmt.lineno)
            if loaded is None:
                continue
            yield self.finding(
                ctx,
                stmt,
                f"checkpoint keys are kept only where `{ctx.segment(model_dict, 30)}` has the same name, merged and loaded "
                "with nothing counting what was kept: a checkpoint whose keys differ (a `module.` prefix from DataParallel, "
                "a wrapper's attribute name) loads nothing, and the model runs with its random initialisation",
                observation=f"{ctx.segment(stmt, 90)}; loaded at line {loaded.lineno}",
                next_test=f"Print len({kept}) against len({ctx.segment(model_dict, 30)}): 0 (or far fewer) keys were kept.",
            )

    @staticmethod
    def _merged_and_loaded(ctx: FileContext, scope: ast.AST, kept: str, model_dict: ast.AST, after: int) -> ast.Call | None:
        """The ``load_state_dict`` that receives the kept entries: ``model_dict.update(kept)`` then
        ``model.load_state_dict(model_dict)``, or ``model.load_state_dict(kept, ...)``."""
        merged_into = {kept}
        for node in ctx.walk_scope(scope):
            if isinstance(node, ast.Call) and call_method(node) == "update" and getattr(node, "lineno", 0) >= after \
                    and any(isinstance(a, ast.Name) and a.id == kept for a in node.args) and isinstance(node.func, ast.Attribute):
                target = dotted(node.func.value)
                if target:
                    merged_into.add(target)
        for node in ctx.walk_scope(scope):
            if isinstance(node, ast.Call) and call_method(node) == "load_state_dict" and getattr(node, "lineno", 0) >= after \
                    and node.args and dotted(node.args[0]) in merged_into:
                return node
        return None

    def check(self, ctx: FileContext):
        yield from self._filtered_merges(ctx)
        for node in ctx.nodes_of(ast.Expr):
            if not isinstance(node.value, ast.Call):
                continue
            call = node.value
            if call_method(call) != "load_state_dict" or constant(keyword(call, "strict")) is not False:
                continue
            func = ctx.enclosing_function(call)
            if func is not None and func.name.startswith("test"):
                continue  # a test loads a partial state on purpose and asserts on the result itself
            if _adapter_workflow(ctx, call):
                continue  # base weights into a model with adapters: the adapter keys are missing by design
            loaded = call.args[0] if call.args else None
            if isinstance(loaded, ast.Name) and _counted(ctx, func or ctx.tree, loaded.id, call.lineno):
                continue  # "transferred 310/312 entries": how much was loaded is reported right after
            yield self.finding(
                ctx,
                call,
                "load_state_dict(strict=False) result ignored: layers whose keys do not match keep their random "
                "initialisation and nothing reports it",
                observation=ctx.segment(call),
                next_test="Print the return value of this call: missing_keys lists every layer that was not loaded.",
            )


_RENAMES = ("replace", "removeprefix", "lstrip", "split", "partition", "sub", "format")


def _model_state_dict(ctx: FileContext, expr: ast.AST) -> ast.AST | None:
    """``model`` when ``expr`` is (a name bound to) ``model.state_dict()`` or its ``.keys()``."""
    bound = value_origins.value(ctx, expr) if isinstance(expr, ast.Name) else expr
    if isinstance(bound, ast.Call) and call_method(bound) == "keys" and isinstance(bound.func, ast.Attribute):
        bound = value_origins.value(ctx, bound.func.value) if isinstance(bound.func.value, ast.Name) else bound.func.value
    if isinstance(bound, ast.Call) and call_method(bound) == "state_dict" and isinstance(bound.func, ast.Attribute):
        return bound.func.value
    return None


def _membership_filter(ctx: FileContext, comp: ast.DictComp) -> tuple[ast.AST, ast.AST] | None:
    """(checkpoint source, model dict) for ``{k: v for k, v in src.items() if k in model_dict}`` (the key
    kept as it is)."""
    if len(comp.generators) != 1 or not isinstance(comp.key, ast.Name):
        return None
    gen = comp.generators[0]
    if not (isinstance(gen.iter, ast.Call) and call_method(gen.iter) == "items" and isinstance(gen.iter.func, ast.Attribute)):
        return None
    for cond in gen.ifs:
        for test in ast.walk(cond):
            if isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == comp.key.id \
                    and isinstance(test.ops[0], ast.In) and _model_state_dict(ctx, test.comparators[0]) is not None:
                return gen.iter.func.value, test.comparators[0]
    return None


def _renamed(ctx: FileContext, source: ast.AST, depth: int = 0) -> bool:
    """The checkpoint's keys were rewritten before the filter (``{k.replace("module.", ""): v ...}``,
    ``consume_prefix_in_state_dict_if_present(sd, ...)``)."""
    if depth > 3 or not isinstance(source, ast.Name):
        return False
    scope = ctx.enclosing_function(source) or ctx.tree
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("consume_prefix_in_state_dict_if_present"):
            return True
    for _line, _stmt, bound in value_origins.bindings(ctx, scope).get(source.id, []):
        if isinstance(bound, ast.DictComp) and not isinstance(bound.key, ast.Name):
            return True
        if isinstance(bound, ast.DictComp) and len(bound.generators) == 1 and isinstance(bound.generators[0].iter, ast.Call) \
                and isinstance(bound.generators[0].iter.func, ast.Attribute) \
                and _renamed(ctx, bound.generators[0].iter.func.value, depth + 1) and bound.generators[0].iter.func.value is not source:
            return True
    return False


def _counted(ctx: FileContext, scope: ast.AST, name: str, after: int) -> bool:
    """``name`` is measured or shown after it is built: ``len(name)``, an assert or a print/log of it."""
    for node in ctx.walk_scope(scope):
        if getattr(node, "lineno", 0) < after:
            continue
        if isinstance(node, ast.Assert) and _mentions(node.test, name):
            return True
        if isinstance(node, ast.Call) and (dotted(node.func) in ("len", "print") or call_method(node) in _REPORTS) \
                and any(_mentions(a, name) for a in node.args):
            return True
    return False


_REPORTS = ("info", "warning", "debug", "log", "write")


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))
