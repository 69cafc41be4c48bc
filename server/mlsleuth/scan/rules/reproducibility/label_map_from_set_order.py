"""The ``label-map-from-set-order`` rule: a label-to-index map built from a set's order and built again where saved weights are loaded."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

# Text that says a file loads trained weights: the map it builds must match the one used in training.
_LOADS_WEIGHTS = re.compile(r"\b(from_pretrained|load_state_dict|load_from_checkpoint|torch\.load|safetensors)\b")


def _set_ordered(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.AST | None:
    """The ``set(...)`` (or set comprehension) whose iteration order ``expr`` has, unless sorted on the way."""
    if expr is None or depth > 4:
        return None
    if isinstance(expr, (ast.SetComp, ast.Set)) or isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("set", "frozenset"):
        return expr
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("list", "tuple") and expr.args:
        return _set_ordered(ctx, expr.args[0], depth + 1)
    if isinstance(expr, ast.Call) and call_method(expr) in ("difference", "union", "intersection") and isinstance(expr.func, ast.Attribute):
        return _set_ordered(ctx, expr.func.value, depth + 1)
    if isinstance(expr, ast.Name):
        bound = vo.value(ctx, expr)
        if bound is not None and bound is not expr:
            return _set_ordered(ctx, bound, depth + 1)
    return None


def _index_maps(ctx: FileContext):
    """(map node, the set it takes its order from) for ``{k: i for i, k in enumerate(S)}``,
    ``{i: k for i, k in enumerate(S)}``, ``dict(zip(S, range(n)))`` and ``dict(enumerate(S))``."""
    for comp in ctx.nodes_of(ast.DictComp):
        gen = comp.generators[0] if len(comp.generators) == 1 else None
        if gen is None or not (isinstance(gen.iter, ast.Call) and isinstance(gen.iter.func, ast.Name) and gen.iter.func.id == "enumerate"):
            continue
        source = _set_ordered(ctx, gen.iter.args[0] if gen.iter.args else None)
        if source is not None:
            yield comp, source
    for call in ctx.calls_named("dict"):
        if not (isinstance(call.func, ast.Name) and call.func.id == "dict" and len(call.args) == 1 and isinstance(call.args[0], ast.Call)):
            continue
        inner = call.args[0]
        if isinstance(inner.func, ast.Name) and inner.func.id in ("zip", "enumerate") and inner.args:
            for arg in inner.args:
                source = _set_ordered(ctx, arg)
                if source is not None:
                    yield call, source
                    break


def _rebuilt_where_weights_load(ctx: FileContext, node: ast.AST) -> tuple[FileContext, ast.Call | None] | None:
    """Where the map is built in a process that loads trained weights: this file, or a caller of the
    function that builds it in another file of the project."""
    if _LOADS_WEIGHTS.search(ctx.source) and ctx.enclosing_function(node) is None:
        return ctx, None
    func = ctx.enclosing_function(node)
    if func is None:
        return None
    for sctx, site in vo.all_call_sites(ctx, func):
        if _LOADS_WEIGHTS.search(sctx.source) and not _saved_with_model(sctx):
            return sctx, site
    return None


def _saved_with_model(ctx: FileContext) -> bool:
    """The file also writes the map next to the weights (``id2label=``, a JSON dump): it is read back, not rebuilt."""
    return bool(re.search(r"\b(id2label|label2id)\s*=|json\.dump|save_pretrained", ctx.source))


@register_rule
class LabelMapFromSetOrder(Rule):
    """A label map ordered by a set, rebuilt where trained weights are loaded.

    What it finds: `{tag: i for i, tag in enumerate(set(labels))}`, `dict(zip(list(set(classes)), range(n)))`
    and the like, in a function that a prediction, evaluation or resume script calls again after loading
    saved weights (`from_pretrained`, `load_state_dict`, `torch.load`), or at module level in such a
    script. A map built once at training time and stored with the model (`id2label=` in the config, a JSON
    file) is not reported.
    Why it matters: the iteration order of a set of strings depends on the process's hash seed
    (`PYTHONHASHSEED` is random by default), so each run numbers the classes differently. The model
    learned one numbering; the script that rebuilds the map decodes its outputs with another. Predictions
    come out as the wrong labels, accuracy drops to chance-like levels, and nothing errors.
    How to confirm: run the map-building code twice in two fresh interpreters and print the map: the
    indices differ. Or decode the training set with the loaded model: accuracy far below the training log.
    What to do instead: build the map from `sorted(set(labels))`, or save it with the weights (in the model
    config as `id2label`/`label2id`, or a JSON file) and load it back instead of rebuilding it.
    """

    id = "label-map-from-set-order"
    category = "reproducibility"
    severity = "warning"
    reach = "project"
    triggers = ("set(", "enumerate(", "zip(")

    def check(self, ctx: FileContext):
        for node, source in _index_maps(ctx):
            where = _rebuilt_where_weights_load(ctx, node)
            if where is None:
                continue
            sctx, site = where
            again = "" if site is None else f", and {sctx.display_path} builds it again at line {site.lineno} after loading weights"
            yield self.finding(
                ctx,
                source,
                f"the label-to-index map takes its order from a set (line {getattr(source, 'lineno', '?')}){again}: set order "
                "changes between processes, so the loaded model's class indices decode to different labels",
                next_test="Print the map in two fresh interpreters (python -c ...): different indices confirm it.",
            )
