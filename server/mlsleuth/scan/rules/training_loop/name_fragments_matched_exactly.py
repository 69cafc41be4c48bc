"""The ``name-fragments-matched-exactly`` rule: parameters filtered by exact membership in a list of name fragments (`n in ["bias", "LayerNorm.weight"]`)."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

_NAMED = frozenset({"named_parameters", "named_modules", "named_buffers"})


@register_rule
class NameFragmentsMatchedExactly(Rule):
    """Parameters filtered by exact membership in a list of name fragments (`n in ["bias", "LayerNorm.weight"]`).

    What it finds: a comprehension over `model.named_parameters()` (or `named_modules`/`named_buffers`)
    whose condition is `name in LIST` or `name not in LIST`, where `LIST` is a literal list, tuple or set of
    strings that are fragments of parameter names — single words such as `"bias"`, `"gamma"`, `"norm"`, or
    suffixes that start with a class-style name such as `"LayerNorm.weight"` — rather than full names
    (`"fc.weight"`, which can be a real top-level name, does not count). A set built from the model's
    own names (`{n for n, p in model.named_parameters() if p.ndim < 2}`) is not flagged, nor is the
    substring test `any(nd in n for nd in no_decay)`.
    Why it matters: parameter names are full dotted paths (`encoder.layer.0.output.LayerNorm.bias`), so an
    exact match against a fragment never succeeds. The "no weight decay" group (or the frozen group, or the
    group with its own learning rate) ends up empty, and every parameter gets the other group's setting:
    biases and normalisation weights are decayed, layers meant to be frozen keep training. No error, no
    warning, slightly worse results.
    How to confirm: print the number of parameters in each group: the fragment-selected group has 0.
    What to do instead: test substrings, `any(nd in n for nd in no_decay)`, or match on the module type
    or on `p.ndim < 2`.
    """

    id = "name-fragments-matched-exactly"
    category = "training-loop"
    severity = "warning"
    triggers = ("named_parameters", "named_modules", "named_buffers")
    requires = ((" in ",),)

    def check(self, ctx: FileContext):
        for comp in ctx.nodes_of(ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            for gen in comp.generators:  # type: ignore[attr-defined]
                if not (isinstance(gen.iter, ast.Call) and call_method(gen.iter) in _NAMED):
                    continue
                name = _name_variable(gen.target)
                if name is None:
                    continue
                for cond in gen.ifs:
                    hit = _exact_test(ctx, cond, name)
                    if hit is not None:
                        fragments = hit
                        yield self.finding(
                            ctx,
                            comp,
                            f"`{name}` is a full parameter name (dotted path) but is tested for exact membership in "
                            f"{fragments}: no name ever matches, so this group is always "
                            f"{'empty' if isinstance(cond, ast.Compare) and isinstance(cond.ops[0], ast.In) else 'everything'}",
                            observation=ctx.segment(comp, 120),
                            next_test="Print how many parameters each group selects: the fragment group is empty.",
                        )
                        break


def _name_variable(target: ast.AST) -> str | None:
    if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return None


def _exact_test(ctx: FileContext, cond: ast.AST, name: str) -> str | None:
    """The fragment list when ``cond`` is ``name in LIST`` / ``name not in LIST`` with LIST literal fragments."""
    if isinstance(cond, ast.UnaryOp) and isinstance(cond.op, ast.Not):
        cond = cond.operand
    if not (isinstance(cond, ast.Compare) and len(cond.ops) == 1 and isinstance(cond.ops[0], (ast.In, ast.NotIn))):
        return None
    if not (isinstance(cond.left, ast.Name) and cond.left.id == name):
        return None
    container = cond.comparators[0]
    bound = vo.value(ctx, container) if isinstance(container, ast.Name) else container
    if not isinstance(bound, (ast.List, ast.Tuple, ast.Set)) or not bound.elts:
        return None
    words = [e.value for e in bound.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if len(words) != len(bound.elts) or not all(_fragment(w) for w in words):
        return None
    return "[" + ", ".join(repr(w) for w in words[:4]) + (", ..." if len(words) > 4 else "") + "]"


def _fragment(word: str) -> bool:
    """A piece of a parameter name rather than a full one: one word (`bias`), or a suffix that starts with a
    class-style name (`LayerNorm.weight`). `fc.weight` may be a real top-level name and is not counted."""
    parts = word.split(".")
    if not word or any(not p.isidentifier() for p in parts):
        return False
    return len(parts) == 1 or (len(parts) == 2 and parts[0][:1].isupper())
