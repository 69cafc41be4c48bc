"""The ``stacked-linear-no-activation`` rule: two Linear layers follow each other with no nonlinearity between them and no bottleneck."""

from __future__ import annotations

import ast
import itertools

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant
from mlsleuth.scan.registry import Rule, register_rule

_LINEAR = frozenset({"torch.nn.Linear", "torch.nn.LazyLinear"})
# Layers that do not change what a stack of linear maps can express.
_TRANSPARENT = frozenset({"torch.nn.Dropout", "torch.nn.Identity", "torch.nn.AlphaDropout"})
_SEQUENTIAL = frozenset({"torch.nn.Sequential"})

Form = tuple[str, float]  # (symbol, coefficient): ``2 * dim`` is ("dim", 2.0); ``64`` is ("", 64.0)


def _form(expr: ast.AST | None, subst: dict[str, float] | None = None) -> Form | None:
    """A width as a multiple of one symbol (or a number), when it is that simple."""
    if expr is None:
        return None
    value = constant(expr)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("", float(value))
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("int", "round") and len(expr.args) == 1:
        return _form(expr.args[0], subst)
    if isinstance(expr, ast.Subscript) and subst is not None:
        key = ast.dump(expr)
        if key in subst:
            return ("", subst[key])
    if isinstance(expr, (ast.Name, ast.Attribute)):
        return (ast.dump(expr), 1.0)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Mult, ast.Div, ast.FloorDiv)):
        left, right = _form(expr.left, subst), _form(expr.right, subst)
        if left is None or right is None:
            return None
        if isinstance(expr.op, ast.Mult):
            if left[0] and right[0]:
                return None
            return (left[0] or right[0], left[1] * right[1])
        if right[0] or right[1] == 0:
            return None
        return (left[0], left[1] / right[1])
    return None


def _linear_widths(ctx: FileContext, call: ast.Call, subst: dict[str, float] | None = None) -> tuple[Form | None, Form | None] | None:
    if (vo.normalize(ctx.qualname(call)) or "") not in _LINEAR:
        return None
    return _form(argument(call, 0, "in_features"), subst), _form(argument(call, 1, "out_features"), subst)


def _no_bottleneck(first: tuple[Form | None, Form | None], second: tuple[Form | None, Form | None]) -> bool:
    """The middle width is at least the smaller outer width: the pair is one linear map with extra parameters."""
    (a_in, middle), (_b_in, b_out) = first, second
    if middle is None:
        return False
    for outer in (a_in, b_out):
        if outer is not None and outer[0] == middle[0] and middle[1] >= outer[1]:
            return True
    return False


def _kind(ctx: FileContext, node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        qual = vo.normalize(ctx.qualname(node)) or ""
        if qual in _LINEAR:
            return "linear"
        if qual in _TRANSPARENT:
            return "transparent"
    return None


def _sequential_pairs(ctx: FileContext, seq: ast.Call):
    """Consecutive Linear layers of ``nn.Sequential(...)`` with only transparent layers between them."""
    steps = list(seq.args)
    if len(steps) == 1 and isinstance(steps[0], ast.Call) and (ctx.qualname(steps[0]) or "").endswith("OrderedDict"):
        inner = steps[0].args[0] if steps[0].args else None
        steps = [e.elts[1] for e in getattr(inner, "elts", []) if isinstance(e, ast.Tuple) and len(e.elts) == 2]
    previous = None
    for step in steps:
        kind = _kind(ctx, step)
        if kind == "transparent":
            continue
        if kind == "linear":
            if previous is not None:
                yield previous, step
            previous = step
        else:
            previous = None


def _constant_sequence(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> list[float] | None:
    """The numbers a tuple/list holds: a literal, a name bound to one, or a parameter that every caller fills
    with the same one (its default when no caller passes it)."""
    if expr is None or depth > 4:
        return None
    if isinstance(expr, (ast.Tuple, ast.List)):
        values = [constant(e) for e in expr.elts]
        if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
            return [float(v) for v in values]  # type: ignore[arg-type]
        return None
    if not isinstance(expr, ast.Name):
        return None
    func = ctx.enclosing_function(expr)
    if func is not None and vo.is_parameter(ctx, expr):
        answers = []
        for site_ctx, call in vo.all_call_sites(ctx, func):
            passed = vo.argument_for(call, func, expr.id)
            if passed is not None:
                answers.append(_constant_sequence(site_ctx, passed, depth + 1))
        if not answers:
            answers.append(_constant_sequence(ctx, vo.parameter_default(func, expr.id), depth + 1))
        first = answers[0]
        return first if all(a == first for a in answers) else None
    bound = vo.value(ctx, expr)
    return _constant_sequence(ctx, bound, depth + 1) if bound is not expr else None




def _loop_stack(ctx: FileContext, loop: ast.For):
    """``for i in range(len(sizes) - 1): layers.append(nn.Linear(f(sizes[i]), f(sizes[i + 1])))`` whose list gets
    nothing but Linear layers: (the append's Linear, the widths of consecutive layers)."""
    it = loop.iter
    if not (isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1):
        return None
    bound = it.args[0]
    if not (isinstance(bound, ast.BinOp) and isinstance(bound.op, ast.Sub) and constant(bound.right) == 1
            and isinstance(bound.left, ast.Call) and isinstance(bound.left.func, ast.Name) and bound.left.func.id == "len"
            and bound.left.args and isinstance(bound.left.args[0], ast.Name)):
        return None
    sizes_name = bound.left.args[0]
    appends = [c for c in ctx.calls(loop) if call_method(c) == "append" and isinstance(c.func, ast.Attribute) and isinstance(c.func.value, ast.Name)]
    if len(appends) != 1 or not appends[0].args or _kind(ctx, appends[0].args[0]) != "linear":
        return None
    target = appends[0].func.value.id  # type: ignore[union-attr]
    scope = ctx.enclosing_function(loop) or ctx.tree
    # nothing else is ever added to the list
    for call in ctx.calls(scope):
        if call is appends[0] or call_method(call) not in ("append", "extend", "insert", "__iadd__"):
            continue
        if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == target:
            return None
    for node in ctx.walk_scope(scope):
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == target:
            return None
    sizes = _constant_sequence(ctx, sizes_name)
    if sizes is None or len(sizes) < 3:
        return None
    i = loop.target.id
    here = ast.dump(ast.Subscript(value=ast.Name(id=sizes_name.id, ctx=ast.Load()), slice=ast.Name(id=i, ctx=ast.Load()), ctx=ast.Load()))
    nxt = ast.dump(ast.Subscript(value=ast.Name(id=sizes_name.id, ctx=ast.Load()), slice=ast.BinOp(left=ast.Name(id=i, ctx=ast.Load()), op=ast.Add(), right=ast.Constant(value=1)), ctx=ast.Load()))
    layer = appends[0].args[0]
    widths = []
    for k in range(len(sizes) - 1):
        found = _linear_widths(ctx, layer, {here: sizes[k], nxt: sizes[k + 1]})  # type: ignore[arg-type]
        if found is None:
            return None
        widths.append(found)
    return layer, widths


def _forward_pairs(ctx: FileContext, cls: ast.ClassDef):
    """``self.b(self.a(x))`` or ``x = self.a(x)`` directly followed by ``x = self.b(x)`` in ``forward``, both Linear."""
    forward = ctx.method(cls, "forward")
    if forward is None:
        return
    attrs = ctx.self_attributes(cls)

    def linear_of(call: ast.AST) -> ast.Call | None:
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                and call.func.value.id == "self" and len(call.args) == 1 and not call.keywords):
            return None
        values = attrs.get(call.func.attr) or []
        if len(values) == 1 and _kind(ctx, values[0]) == "linear":
            return values[0]  # type: ignore[return-value]
        return None

    for call in ctx.calls(forward):
        outer = linear_of(call)
        inner = linear_of(call.args[0]) if outer is not None else None
        if outer is not None and inner is not None:
            yield call, inner, outer
    body = forward.body
    for first, second in itertools.pairwise(body):
        if not (isinstance(first, ast.Assign) and isinstance(second, (ast.Assign, ast.Return)) and len(first.targets) == 1
                and isinstance(first.targets[0], ast.Name)):
            continue
        a, b = linear_of(first.value), linear_of(second.value)
        if a is None or b is None:
            continue
        arg = second.value.args[0]  # type: ignore[union-attr]
        if isinstance(arg, ast.Name) and arg.id == first.targets[0].id:
            yield second.value, a, b


def _in_test_code(ctx: FileContext, line: int | None) -> bool:
    """A unit test's toy model (in a ``test_*`` function or method, or a ``Test*`` class): stacks of Linear layers
    there exercise tooling, not a model anyone trains."""
    for node in ctx.nodes_of(ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
        if node.lineno <= (line or 0) <= (node.end_lineno or node.lineno) and node.name.lower().startswith("test"):  # type: ignore[attr-defined]
            return True
    return False


_CHECKPOINT_BASES = ("PreTrainedModel", "PretrainedModel", "ModelMixin", "PyTorchModelHubMixin")


def _publishes_checkpoints(ctx: FileContext) -> bool:
    """The file defines a model family that is loaded from published checkpoints: a class deriving (directly or
    through a class of this file) from a Hugging Face ``PreTrainedModel`` / diffusers ``ModelMixin`` / hub mixin.
    Its layers mirror the checkpoint's weights, so changing them would no longer load those weights."""
    names = {cls.name: cls for cls in ctx.classes}
    for cls in ctx.classes:
        for base in cls.bases:
            qual = vo.normalize(ctx.qualname(base)) or ast.unparse(base)
            last = qual.rsplit(".", 1)[-1]
            if last.endswith(_CHECKPOINT_BASES) and last not in names or qual.startswith("transformers.") and "PreTrained" in last:
                return True
    return False


@register_rule
class StackedLinearNoActivation(Rule):
    """Two Linear layers follow each other with no nonlinearity between them and no bottleneck.

    What it finds: `nn.Linear` layers applied one after the other with nothing but dropout between them, in
    an `nn.Sequential(...)` (also with an `OrderedDict`), in a list filled by a loop over layer sizes
    (`for i in range(len(sizes) - 1): layers.append(nn.Linear(d * sizes[i], d * sizes[i + 1]))`, with the sizes a
    literal or a parameter's default), or in `forward` (`self.fc2(self.fc1(x))`, `x = self.fc1(x)` then
    `x = self.fc2(x)`), where the middle width is at least the smaller outer width (`Linear(d, 2 * d)` then
    `Linear(2 * d, d)`). A deliberate low-rank factorisation (LoRA: `Linear(d, r)` then `Linear(r, d)` with a
    rank that cannot be shown to be as large) is left alone, and so are the toy models of unit tests. In a
    file that defines a model family loaded from published checkpoints (a `PreTrainedModel` / `ModelMixin`
    subclass) the stack is reported as info only: the weights fix the layout.
    Why it matters: the composition of linear maps is one linear map; without a nonlinearity between them
    the "two-layer" block has the expressiveness of a single Linear, twice the parameters and a harder
    optimisation. The model trains, just never better than a linear layer.
    How to confirm: print the module: no ReLU/GELU/Tanh sits between the Linear layers; or multiply the two
    weight matrices and check that one Linear reproduces the block's output.
    What to do instead: put the intended activation between the layers (`nn.ReLU()`, `nn.GELU()`), except
    after the last one; or replace the pair by one Linear if a linear map is what is meant.
    """

    id = "stacked-linear-no-activation"
    category = "architecture"
    severity = "warning"
    triggers = ("Linear",)

    def check(self, ctx: FileContext):
        mirrored = _publishes_checkpoints(ctx)
        for finding in self._findings(ctx):
            if _in_test_code(ctx, finding.location.line):
                continue
            if mirrored:
                # the layout is the published checkpoint's: noted, but nothing to change in this code
                finding.severity = "info"  # type: ignore[assignment]
                finding.message += (" (this file defines a model family loaded from published checkpoints, whose"
                                    " weights fix this layout: noted for information)")
            yield finding

    def _findings(self, ctx: FileContext):
        reported: set[int] = set()
        for seq in ctx.calls_named("Sequential"):
            if (vo.normalize(ctx.qualname(seq)) or "") not in _SEQUENTIAL:
                continue
            for first, second in _sequential_pairs(ctx, seq):
                a, b = _linear_widths(ctx, first), _linear_widths(ctx, second)
                if a and b and _no_bottleneck(a, b) and second.lineno not in reported:
                    reported.add(second.lineno)
                    yield self._report(ctx, second, a, b)
        for loop in ctx.nodes_of(ast.For):
            found = _loop_stack(ctx, loop)  # type: ignore[arg-type]
            if found is None:
                continue
            layer, widths = found
            for a, b in itertools.pairwise(widths):
                if _no_bottleneck(a, b):
                    yield self._report(ctx, layer, a, b, loop=True)
                    break
        for cls in ctx.classes:
            for at, first, second in _forward_pairs(ctx, cls):
                a, b = _linear_widths(ctx, first), _linear_widths(ctx, second)
                if a and b and _no_bottleneck(a, b):
                    yield self._report(ctx, at, a, b)

    def _report(self, ctx: FileContext, node: ast.AST, a, b, *, loop: bool = False):
        where = "this loop appends only Linear layers, so they are stacked" if loop else "two Linear layers are stacked"
        return self.finding(
            ctx,
            node,
            f"{where} with nothing nonlinear between them and a middle width that is no bottleneck: "
            "together they are a single linear map with extra parameters",
            observation=ctx.segment(node, 120),
        )
