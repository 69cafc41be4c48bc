"""The ``log-scale-used-without-exp`` rule: a log-parameterised temperature/scale multiplies logits raw."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, call_method
from mlsleuth.scan.registry import Rule, register_rule

_LOG_CALLS = frozenset({"numpy.log", "math.log", "torch.log", "torch.tensor.log", "numpy.log10", "math.log10"})
_PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
_SCALE_WORDS = frozenset({"temperature", "temp", "tau", "scale", "logit", "inv", "kappa"})
# Log-parameterised multipliers whose raw product is a deliberate loss term (SAC's alpha loss, Lagrangians).
_MULTIPLIER_WORDS = frozenset({"alpha", "beta", "lagrange", "lagrangian", "multiplier", "lambda", "lam", "dual"})
_SIMILARITY_WORDS = frozenset({"logits", "logit", "sim", "sims", "similarity", "similarities", "cos", "cosine", "scores",
                               "score", "dot", "features", "feats", "feat", "emb", "embeds", "embeddings", "embedding",
                               "affinity"})
_MATMUL_CALLS = frozenset({"matmul", "mm", "bmm", "einsum", "cosine_similarity", "t"})
# An attribute of an instance of another module's class is followed only when its name has one of these.
_CROSS_MODULE_WORDS = frozenset({"log", "logit", "scale", "temperature", "temp", "tau"})


def _log_initialised(ctx: FileContext, call: ast.Call) -> bool:
    """``nn.Parameter(torch.ones([]) * np.log(1 / 0.07))``: the initial value is a logarithm."""
    if value_origins.normalize(ctx.qualname(call)) not in _PARAMETER_CLASSES or not call.args:
        return False
    for node in ast.walk(call.args[0]):
        if isinstance(node, ast.Call):
            qual = value_origins.normalize(ctx.qualname(node)) or ""
            if qual in _LOG_CALLS or qual.endswith((".log", ".log10")) and qual.split(".")[0] in ("numpy", "math", "torch"):
                return True
            if call_method(node) == "log" and not node.args:
                return True
    return False


def _is_log_scale_parameter(ctx: FileContext, call: ast.Call, name: str) -> bool:
    """A parameter that holds the log of a temperature/scale: initialised with a log, or named ``log_<scale>``."""
    name_words = value_origins.words(name)
    if set(name_words) & _MULTIPLIER_WORDS:
        return False
    if value_origins.normalize(ctx.qualname(call)) not in _PARAMETER_CLASSES:
        return False
    if _log_initialised(ctx, call):
        return True
    return bool(name_words) and name_words[0] == "log" and bool(set(name_words[1:]) & (_SCALE_WORDS - {"logit"}))


def _log_parameters(ctx: FileContext, cls: ast.ClassDef) -> set[str]:
    """Names of ``self.<name>`` attributes of ``cls`` that are log-parameterised scales."""
    cache = ctx.__dict__.setdefault("_log_scale_params", {})
    if cls not in cache:
        found = set()
        for attr, values in ctx.self_attributes(cls).items():
            calls = [v for v in values if isinstance(v, ast.Call)]
            if calls and len(calls) == len(values) and all(_is_log_scale_parameter(ctx, v, attr) for v in calls):
                found.add(attr)
        cache[cls] = found
    return cache[cls]


def _names_log_parameter(ctx: FileContext, expr: ast.AST) -> bool:
    """``self.logit_scale`` / ``model.logit_scale`` / a local bound to one of them."""
    if isinstance(expr, ast.Name):
        bound = value_origins.value(ctx, expr)
        if isinstance(bound, ast.Call):
            return _is_log_scale_parameter(ctx, bound, expr.id)
        if bound is not None and bound is not expr and isinstance(bound, ast.Attribute):
            return _names_log_parameter(ctx, bound)
        return False
    if not isinstance(expr, ast.Attribute):
        return False
    owner = expr.value
    if isinstance(owner, ast.Name) and owner.id == "self":
        cls = ctx.enclosing_class(expr)
        return cls is not None and expr.attr in _log_parameters(ctx, cls)
    if not set(value_origins.words(expr.attr)) & _CROSS_MODULE_WORDS:
        return False  # another module's attribute: only names the file gate can see (see ``triggers``)
    hit = value_origins.instance_class(ctx, owner)
    return hit is not None and expr.attr in _log_parameters(hit[0], hit[1])


def _similarity_like(ctx: FileContext, node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        return True
    if isinstance(node, ast.Call):
        if call_method(node) in _MATMUL_CALLS or (value_origins.normalize(ctx.qualname(node)) or "").rsplit(".", 1)[-1] in _MATMUL_CALLS:
            return True
        if isinstance(node.func, ast.Attribute):
            return _similarity_like(ctx, node.func.value)
    if isinstance(node, ast.Attribute):
        return _similarity_like(ctx, node.value) or node.attr == "T"
    name = node.id if isinstance(node, ast.Name) else None
    return name is not None and bool(set(value_origins.words(name)) & _SIMILARITY_WORDS)


def _scales_logits(ctx: FileContext, use: ast.AST) -> ast.BinOp | None:
    """The product/quotient in which ``use`` scales similarities or logits, or None."""
    node = use
    parent = ctx.parent(node)
    if not (isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div))):
        return None
    if isinstance(parent.op, ast.Div) and parent.left is use:
        return None  # scale / x: not a scaling of logits
    first = parent
    chain: list[ast.AST] = []
    while isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.Div, ast.MatMult)):
        chain.extend((parent.left, parent.right))
        if isinstance(parent.op, ast.MatMult):
            return first
        node, parent = parent, ctx.parent(parent)
    if any(part is not use and _similarity_like(ctx, part) for part in chain):
        return first
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        if set(value_origins.words(parent.targets[0].id)) & {"logits", "logit", "sim", "scores", "similarity"}:
            return first
    return None


@register_rule
class LogScaleUsedWithoutExp(Rule):
    """A log-parameterised temperature scales logits without `exp()`.

    What it finds: an `nn.Parameter` stored in log space (initialised with `np.log(...)`, `math.log(...)`,
    `torch.log(...)`, or named `log_temperature`, `log_tau`, `log_scale`, ...) that scales similarities
    or logits directly: `self.logit_scale * img @ txt.T`, `sim / self.log_tau`, `scale = self.logit_scale`
    then `scale * logits`, or `model.logit_scale * ...` on an instance of the class from another module.
    Reads through `exp()` (`self.logit_scale.exp()`, `self.logit_scale.clamp(max=4.6).exp()`) are fine.
    Why it matters: the parameter holds log(1/T); the logits must be multiplied by exp of it. Used raw,
    CLIP's 2.66 scales the cosines instead of 14.3 (an effective temperature of 0.38 instead of 0.07),
    the InfoNCE softmax over the batch stays nearly flat, and the contrastive loss trains much weaker
    alignment. The learnt value also moves on the wrong scale (linear steps on what should be a log).
    How to confirm: print the factor that multiplies the cosine similarities at step 0: it should be
    1/T (about 14.3 for T=0.07), not log(1/T).
    What to do instead: `logits = self.logit_scale.exp() * img @ txt.T` (clamp the parameter, e.g. to
    log(100), before `exp()` to keep the scale bounded), or store the scale itself and drop the log.
    """

    id = "log-scale-used-without-exp"
    category = "loss"
    severity = "warning"
    reach = "project"
    triggers = ("Parameter", "log", "scale", "temp", "tau")

    def check(self, ctx: FileContext):
        if not ctx.imports_any("torch"):
            return
        seen: set[int] = set()
        for node in ctx.nodes_of(ast.Attribute, ast.Name):
            if not isinstance(getattr(node, "ctx", None), ast.Load):
                continue
            if isinstance(node, ast.Name) and isinstance(ctx.parent(node), ast.Attribute):
                continue  # the head of a chain: judged as the attribute
            product = _scales_logits(ctx, node)
            if product is None or id(product) in seen or not _names_log_parameter(ctx, node):
                continue
            seen.add(id(product))
            name = ctx.segment(node, 40)
            yield self.finding(
                ctx,
                product,
                f"`{name}` holds the log of a temperature/scale (initialised or named as a log) but scales the "
                f"logits without exp(): the effective temperature is wrong and the contrastive softmax stays flat",
                next_test=f"Print the factor applied to the similarities at step 0: exp({name}) is the intended scale.",
            )
