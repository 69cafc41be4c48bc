"""The ``best-state-dict-by-reference`` rule: a "best" checkpoint kept as `model.state_dict()` without copying the tensors."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to, case_variants
from mlsleuth.scan.registry import Rule, register_rule

_COPY_WRAPPERS = {"dict", "collections.OrderedDict", "OrderedDict"}


def _state_dict_reference(ctx: FileContext, expr: ast.AST) -> str | None:
    """Describe ``expr`` when it is a live (or shallow-copied) state_dict, else None."""
    if isinstance(expr, ast.Call) and call_method(expr) == "state_dict" and not expr.args and not expr.keywords:
        return "a reference to the live state_dict"
    is_call = isinstance(expr, ast.Call)
    if is_call and call_method(expr) == "copy" and _state_dict_reference(ctx, expr.func.value) is not None:  # type: ignore[attr-defined]
        return "a shallow .copy() of the state_dict (the tensors are still shared)"
    if (
        is_call
        and ctx.qualname(expr) in _COPY_WRAPPERS
        and len(expr.args) == 1  # type: ignore[attr-defined]
        and _state_dict_reference(ctx, expr.args[0]) is not None  # type: ignore[attr-defined]
    ):
        return "a shallow dict() copy of the state_dict (the tensors are still shared)"
    return None


def _model_reference(ctx: FileContext, expr: ast.AST) -> str | None:
    """``best_model = model`` where ``model`` is the module being trained (its parameters or mode are used)."""
    name = dotted(expr)
    if name is None:
        return None
    used_as_model = any(
        isinstance(c.func, ast.Attribute) and dotted(c.func.value) == name
        for c in ctx.calls_named("parameters", "named_parameters", "train", "state_dict")
    )
    return "the model object itself, not a copy" if used_as_model else None


def _restores(ctx: FileContext, node: ast.AST, text: str) -> bool:
    """True when ``node`` loads, saves or returns the snapshot named ``text``."""
    if isinstance(node, ast.Return) and node.value is not None:
        return dotted(node.value) == text
    if not isinstance(node, ast.Call):
        return False
    if call_method(node) == "load_state_dict" and node.args and dotted(node.args[0]) == text:
        return True
    return ctx.qualname(node) == "torch.save" and bool(node.args) and dotted(node.args[0]) == text


@register_rule
class BestStateDictByReference(Rule):
    """A "best" checkpoint kept as `model.state_dict()` without copying the tensors.

    What it finds: inside a training loop, `best_state = model.state_dict()` (also `.copy()` or
    `dict(...)` of it, which copy only the dictionary, or `best_model = model`, the module itself)
    assigned to a name containing `best`, where the snapshot is loaded, saved or returned after the
    loop.
    Why it matters: `state_dict()` returns references to the parameter tensors, which the optimizer
    keeps updating in place. By the end of training the "best" snapshot holds the final weights, so
    early stopping and best-epoch restoration silently do nothing, and the reported best score belongs
    to a model you no longer have.
    How to confirm: after training, compare `best_state[k]` with the live parameter, e.g.
    `torch.equal(best_state[k], model.state_dict()[k])` for any key: True means the snapshot moved.
    What to do instead: snapshot a real copy: `copy.deepcopy(model.state_dict())` or
    `{k: v.detach().clone() for k, v in model.state_dict().items()}` (move to CPU to save GPU memory), or
    save it to disk at the moment it is best.
    """

    id = "best-state-dict-by-reference"
    category = "evaluation"
    severity = "error"
    triggers = case_variants("best")  # a name with the word "best" in any case
    # a live state_dict() or a model object (used through one of these methods)
    requires = (("state_dict", "parameters", "train"), (call_to("state_dict", "parameters", "named_parameters", "train"),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Assign):
            if len(node.targets) != 1:
                continue
            target = dotted(node.targets[0])
            if target is None or "best" not in value_origins.words(target.split(".")[-1]):
                continue
            how = _state_dict_reference(ctx, node.value) or _model_reference(ctx, node.value)
            if how is None:
                continue
            loops = ctx.enclosing_loops(node)
            if not loops:
                continue
            outer = loops[-1]
            scope = ctx.enclosing_function(node) or ctx.tree
            use = None
            for later in ctx.walk_scope(scope):
                if getattr(later, "lineno", 0) <= outer.end_lineno:  # type: ignore[operator]
                    continue
                if _restores(ctx, later, target):
                    use = later
                    break
            if use is None:
                continue
            yield self.finding(
                ctx,
                node,
                f"`{target}` is {how}: training keeps updating those tensors in place, so after the loop it "
                f"holds the last weights, not the best ones",
                observation=f"{ctx.segment(node, 80)} at line {node.lineno} inside the loop at line {outer.lineno}; "
                f"used after the loop: {ctx.segment(use, 80)} at line {use.lineno}",  # type: ignore[attr-defined]
                next_test=f"After training, check torch.equal({target}[k], model.state_dict()[k]) for one key: True means the snapshot moved with training.",
            )
