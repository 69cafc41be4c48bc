"""The ``nan-equality-check`` rule: a value compared with NaN using `==` or `!=`."""

from __future__ import annotations

import ast
import math

from mlsleuth.scan.analysis import edits
from mlsleuth.scan.analysis.context import FileContext, call_method, dotted
from mlsleuth.scan.prefilter import call_to, case_variants, word
from mlsleuth.scan.registry import Rule, register_rule

_NAN_NAMES = {"math.nan", "numpy.nan", "numpy.NaN", "numpy.NAN", "torch.nan", "float.nan"}


def _is_nan_literal(ctx: FileContext, node: ast.AST) -> bool:
    if isinstance(node, ast.Call) and ctx.qualname(node) == "float" and len(node.args) == 1:
        arg = node.args[0]
        return isinstance(arg, ast.Constant) and isinstance(arg.value, str) and arg.value.strip().lower() == "nan"
    if isinstance(node, (ast.Attribute, ast.Name)):
        return ctx.qualname(node) in _NAN_NAMES
    if isinstance(node, ast.Constant) and isinstance(node.value, float):
        return math.isnan(node.value)
    return False


def _inside_assertion_helper(ctx: FileContext, node: ast.AST) -> bool:
    """True for ``self.assertFalse(x == nan)``, ``assert_array_equal(a == np.nan, ...)``: a test of the
    comparison's own semantics (test suites check that it is always False on purpose)."""
    for anc in ctx.ancestors(node):
        if isinstance(anc, ast.Call):
            name = dotted(anc.func) or ""
            if name.rsplit(".", 1)[-1].lower().startswith("assert"):
                return True
        if isinstance(anc, ast.stmt):
            return False
    return False


def _fresh_nan(ctx: FileContext, node: ast.AST) -> bool:
    """``float('nan')`` builds a new object each time, so ``x is float('nan')`` is always False."""
    return isinstance(node, ast.Call) and _is_nan_literal(ctx, node)


@register_rule
class NanEqualityCheck(Rule):
    """A value compared with NaN using `==` or `!=`.

    What it finds: comparisons such as `loss == float('nan')`, `x != np.nan` or `t == torch.nan`, and
    `x is float('nan')` (a new object, never identical). `x is np.nan` is left alone: it tests identity
    with the shared NaN object, which can legitimately be True.
    Why it matters: NaN is unequal to everything, itself included, so `== nan` is always False and
    `!= nan` always True. The guard never fires and the NaN it was meant to catch flows on into the
    optimizer and the weights.
    How to confirm: evaluate `float('nan') == float('nan')` in a shell: it prints False.
    What to do instead: use `math.isnan(x)`, `np.isnan(a)` or `torch.isnan(t)`; to stop on any
    non-finite value use `torch.isfinite(t).all()`.
    """

    id = "nan-equality-check"
    category = "numerical"
    severity = "error"
    triggers = case_variants("nan")  # float("NaN") in any case, math.nan, np.NaN, ...
    # a NaN literal is a float(...) call or a name spelled nan/NaN/NAN (imported under another name, the
    # import spells it)
    requires = (("==", "!=", word("is")), (word("nan"), word("NaN"), word("NAN"), call_to("float")))
    fix_note = (
        "`x == nan` / `x is float('nan')` become `isnan(x)`, `x != nan` becomes `~isnan(x)` (torch, numpy) or `not math.isnan(x)`, "
        "taking `isnan` from the library the NaN is spelled with: `torch.nan` -> `torch.isnan`, `np.nan` -> `np.isnan`. "
        "`math.nan` and `float('nan')` give `math.isnan` (adding `import math` if needed); that fix is safe when the other side "
        "is evidently a Python number (`loss.item()`, `float(...)`) and unsafe otherwise (`math.isnan` rejects a tensor or array "
        "of several elements). Chained comparisons are left alone."
    )

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Compare):
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)):
                    continue
                left, right = operands[i], operands[i + 1]
                if isinstance(op, (ast.Is, ast.IsNot)) and not (_fresh_nan(ctx, left) or _fresh_nan(ctx, right)):
                    continue  # `x is np.nan` tests identity with the shared NaN object, which can be True
                if _is_nan_literal(ctx, left) or _is_nan_literal(ctx, right):
                    if _inside_assertion_helper(ctx, node):
                        break
                    always = "False" if isinstance(op, (ast.Eq, ast.Is)) else "True"
                    yield self.finding(
                        ctx,
                        node,
                        f"comparison with NaN is always {always}: this check can never detect a NaN",
                        observation=ctx.segment(node),
                    )
                    break

    def fix(self, ctx: FileContext, finding) -> edits.Fix | None:
        return _fix(ctx, finding)


_ARRAY_LIBRARIES = {"torch": "torch", "numpy": "numpy"}
_NUMBER_CALLS = {"float", "int", "math.fsum", "statistics.mean"}


def _is_python_number(ctx: FileContext, node: ast.AST) -> bool:
    """``loss.item()``, ``float(x)``: a value that is a Python number whatever ``x`` was."""
    if isinstance(node, ast.Call):
        return (call_method(node) == "item" and not node.args) or (ctx.qualname(node) or "") in _NUMBER_CALLS
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def _fix(ctx: FileContext, finding) -> edits.Fix | None:
    node = edits.node_at(ctx, finding, ast.Compare)
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    left, right = node.left, node.comparators[0]
    if _is_nan_literal(ctx, right) and not _is_nan_literal(ctx, left):
        literal, value = right, left
    elif _is_nan_literal(ctx, left) and not _is_nan_literal(ctx, right):
        literal, value = left, right
    else:
        return None
    negated = isinstance(node.ops[0], (ast.NotEq, ast.IsNot))
    library = (ctx.qualname(literal) or "").split(".")[0] if isinstance(literal, ast.Attribute) else ""
    changes: list[edits.Edit] = []
    safe, uses_not = True, False
    if library in _ARRAY_LIBRARIES and isinstance(literal, ast.Attribute) and isinstance(literal.value, (ast.Name, ast.Attribute)):
        module = edits.text_of(ctx, literal.value)  # as the file spells it: np, numpy, torch
        text = f"{'~' if negated else ''}{module}.isnan({edits.text_of(ctx, value)})"
    else:
        math_name = edits.module_alias(ctx, "math")
        if math_name is None:
            if "math" in ctx.imports:
                return None  # `math` means something else here
            math_name = "math"
            changes.append(edits.import_edit(ctx, "import math"))
        safe, uses_not = _is_python_number(ctx, value), negated
        text = f"{'not ' if negated else ''}{math_name}.isnan({edits.text_of(ctx, value)})"
    start, end = edits.span(ctx, node)
    if uses_not and not _bare_context(ctx, node) and not _parenthesised(ctx.source, start, end):
        text = f"({text})"  # `not` binds less tightly than the comparison it replaces
    changes.append(edits.Edit(start, end, text))
    if edits.removes_comment(ctx, changes[-1:]):
        return None
    return edits.Fix("test with isnan", tuple(changes), safe=safe)


def _parenthesised(source: str, start: int, end: int) -> bool:
    return source[:start].rstrip().endswith("(") and source[end:].lstrip().startswith(")")


def _bare_context(ctx: FileContext, node: ast.AST) -> bool:
    """Where ``not ...`` may stand without parentheses: a whole condition, value, argument or operand of and/or."""
    parent = ctx.parent(node)
    if isinstance(parent, (ast.If, ast.While, ast.Assert, ast.IfExp)) and getattr(parent, "test", None) is node:
        return True
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.Return, ast.Expr, ast.keyword, ast.BoolOp)):
        return True
    return isinstance(parent, ast.Call) and node in parent.args
