"""The ``causal-lm-labels-shifted-twice`` rule: next-token labels handed to a Hugging Face causal LM, which shifts them again."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

# Models that shift ``labels`` by one inside their forward (Hugging Face naming).
_SHIFTING_MODEL = re.compile(r"\w*(ForCausalLM|LMHeadModel)\b")
_WRAPPERS = frozenset({"torch.tensor", "torch.as_tensor", "torch.LongTensor", "list", "tuple"})
MAX_DEPTH = 6


def _last_slice(node: ast.Subscript) -> ast.AST:
    key = node.slice
    return key.elts[-1] if isinstance(key, ast.Tuple) and key.elts else key


def _is_int(node: ast.AST | None, value: int) -> bool:
    if isinstance(node, ast.Constant) and node.value == value:
        return True
    return (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant)
            and node.operand.value == -value)


def _shift(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[str, str, ast.AST] | None:
    """``(base, "head" | "tail", node)`` when ``expr`` is ``base[..., :-1]`` (head) or ``base[..., 1:]`` (tail).

    Follows copies (``.clone()``, ``.contiguous()``, ``torch.tensor(...)``), local names, and a name filled by
    slice assignment (``labels[i, :n] = seq[1:]``) in its function.
    """
    while expr is not None and depth < MAX_DEPTH:
        depth += 1
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and call_method(expr) in value_origins.PASSTHROUGH_METHODS | {"long"}:
            expr = expr.func.value
        elif isinstance(expr, ast.Call) and value_origins.normalize(ctx.qualname(expr.func)) in _WRAPPERS and expr.args:
            expr = expr.args[0]
        elif isinstance(expr, ast.Subscript):
            last = _last_slice(expr)
            if isinstance(last, ast.Slice) and last.step is None:
                if _is_int(last.lower, 1) and last.upper is None:
                    return ast.dump(expr.value), "tail", expr
                if last.lower is None and _is_int(last.upper, -1):
                    return ast.dump(expr.value), "head", expr
            return None
        elif isinstance(expr, ast.Name):
            filled = _filled_by_slices(ctx, expr, depth)
            if filled is not None:
                return filled
            bound = value_origins.value(ctx, expr)
            if bound is None or bound is expr:
                return None
            expr = bound
        else:
            return None
    return None


def _filled_by_slices(ctx: FileContext, name: ast.Name, depth: int) -> tuple[str, str, ast.AST] | None:
    """The shift of what ``name[...] = value`` statements in the same function store, when they all agree."""
    scope = ctx.enclosing_function(name) or ctx.tree
    found = []
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name.id:
                found.append(_shift(ctx, node.value, depth + 1))
    if not found or any(f is None for f in found) or len({(f[0], f[1]) for f in found}) != 1:
        return None
    return found[0]


def _pairs(ctx: FileContext):
    """``(node, input_ids value, labels value)`` for calls with both keywords and dicts with both keys."""
    for call in ctx.calls():
        kws = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        if "input_ids" in kws and "labels" in kws:
            yield call, kws["input_ids"], kws["labels"]
    for node in ctx.nodes_of(ast.Dict):
        entries = {k.value: v for k, v in zip(node.keys, node.values) if isinstance(k, ast.Constant)}  # type: ignore[attr-defined]
        if "input_ids" in entries and "labels" in entries:
            yield node, entries["input_ids"], entries["labels"]


@register_rule
class CausalLmLabelsShiftedTwice(Rule):
    """Next-token labels handed to a Hugging Face causal LM, which shifts them again.

    What it finds: in a file that builds a model which shifts `labels` inside its forward (`*ForCausalLM`,
    `AutoModelForCausalLM`, `*LMHeadModel`), a model call or a batch dict whose `input_ids` is `seq[..., :-1]`
    and whose `labels` is `seq[..., 1:]` of the same tensor, directly, through names and copies, or written
    into padded buffers by slice assignment in a collate function. Files that define their own `compute_loss`
    (which may use pre-shifted labels correctly) or the model class itself, and encoder-decoder calls
    (`decoder_input_ids=`), are left alone.
    Why it matters: the model shifts the labels by one more position, so it is trained to predict the token
    after next. The loss still falls and nothing errors, but generation is poor and the perplexity is wrong.
    How to confirm: print `input_ids[0, :8]` and `labels[0, :8]` of one batch: for these models they should be
    equal (pads and prompt tokens -100), not offset by one; `mlsleuth trace` confirms it at runtime
    (`lm-labels-double-shifted`).
    What to do instead: pass `input_ids=seq, labels=seq` (with pads set to -100) and let the model shift; keep the
    `seq[:-1]` / `seq[1:]` split only for a hand-written loss on `outputs.logits`.
    """

    id = "causal-lm-labels-shifted-twice"
    category = "loss"
    severity = "error"
    triggers = ("labels",)
    requires = (("ForCausalLM", "LMHeadModel"), ("input_ids",))

    def check(self, ctx: FileContext):
        model = _SHIFTING_MODEL.search(ctx.source)
        if model is None or "def compute_loss" in ctx.source:
            return
        if any(cls.name == model.group(0) for cls in ctx.classes):
            return  # a model class written here: its forward may not shift (the runtime check decides)
        for node, ids, labels in _pairs(ctx):
            a, b = _shift(ctx, ids), _shift(ctx, labels)
            if a is None or b is None or a[0] != b[0] or (a[1], b[1]) != ("head", "tail"):
                continue
            yield self.finding(
                ctx,
                node,
                f"labels are the next tokens (`{ctx.segment(b[2], 40)}`) while input_ids are `{ctx.segment(a[2], 40)}`, "
                f"but {model.group(0)} shifts labels by one itself: the model is trained to predict two tokens ahead",
                observation=(
                    f"input_ids come from `{ctx.segment(a[2], 50)}` (line {a[2].lineno}) and labels from "
                    f"`{ctx.segment(b[2], 50)}` (line {b[2].lineno}); {model.group(0)} shifts labels inside its forward"
                ),
                next_test=(
                    "Print input_ids[0, :8] and labels[0, :8] of one batch: for a causal LM with labels= they should be "
                    "equal, not offset by one (mlsleuth trace reports lm-labels-double-shifted at runtime)."
                ),
            )
