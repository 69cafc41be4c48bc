"""The ``freeze-sets-trainable`` rule: code whose purpose is freezing sets ``requires_grad`` to True."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, argument, call_method, constant, dotted, keyword
from mlsleuth.scan.registry import Rule, register_rule

# a name that asks for a freeze (an intent): freeze, freeze_backbone, feature_extract(ing), linear_probe
_INTENT = re.compile(r"freez|feature_extract|linear_prob", re.IGNORECASE)
# ... or says the thing is frozen (a state): only for a flag assigned to requires_grad as its value
_STATE = re.compile(r"frozen", re.IGNORECASE)
# names that undo a freeze: unfreeze, no_freeze, thaw
_UNDO = re.compile(r"un_?freez|un_?frozen|de_?freez|thaw|(no|not|dont|skip|without)_?(freez|frozen)", re.IGNORECASE)
# flag names that count or list rather than ask: freeze_epochs, num_freeze_layers, freeze_until
_NOT_A_SWITCH = re.compile(
    r"epoch|step|iter|until|after|before|layer|num|count|ratio|depth|_at|idx|index|^n_|_n$|list|names|keys|pattern|prefix",
    re.IGNORECASE,
)
# names that ask to train: an argument passed for a freeze flag that undoes its inversion
_TRAINING = re.compile(r"train|fine_?tun|learn|update|requires_grad|grad", re.IGNORECASE)
# names that say "trainable": ``requires_grad = not trainable`` inverts them
_TRAINABLE = re.compile(r"^(is_)?trainable$|finetun|fine_tun", re.IGNORECASE)


def flag_name(expr: ast.AST | None) -> str | None:
    """The leaf name of a flag: ``freeze``, ``args.freeze_backbone``, ``cfg["freeze"]``, ``cfg.get("freeze")``."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript) and isinstance(constant(expr.slice), str):
        return constant(expr.slice)  # type: ignore[return-value]
    if isinstance(expr, ast.Call) and call_method(expr) == "get" and expr.args and isinstance(constant(expr.args[0]), str):
        return constant(expr.args[0])  # type: ignore[return-value]
    return None


def _asks_freeze(name: str | None, *, state: bool = False, switch: bool = True) -> bool:
    """``name`` asks for a freeze; ``switch``: it names a flag, so counts and lists (``freeze_epochs``) are out."""
    if not name or _UNDO.search(name) or (switch and _NOT_A_SWITCH.search(name)):
        return False
    return bool(_INTENT.search(name) or (state and _STATE.search(name)))


def _settings(ctx: FileContext, root: ast.AST):
    """(node, value expression or None for an implicit True) of every ``requires_grad`` setting under ``root``:
    ``x.requires_grad = v``, ``x.requires_grad_(v)``, and ``requires_grad=v`` passed to ``nn.Parameter``."""
    nodes = ctx.all_nodes if root is ctx.tree else [root, *ctx.walk_scope(root)]
    for node in nodes:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                yield node, node.value
        elif isinstance(node, ast.Call):
            if call_method(node) == "requires_grad_":
                yield node, argument(node, 0, "requires_grad")
            elif (dotted(node.func) or "").rsplit(".", 1)[-1] == "Parameter" and keyword(node, "requires_grad") is not None:
                yield node, keyword(node, "requires_grad")


def _is_true(value: ast.AST | None) -> bool:
    return value is None or constant(value) is True


def _is_false(value: ast.AST | None) -> bool:
    return value is not None and constant(value) is not True


def _guard(ctx: FileContext, node: ast.AST) -> tuple[ast.If, bool] | None:
    """The innermost ``if`` of the function around ``node`` and whether ``node`` is in its body (not ``else``)."""
    child = node
    for anc in ctx.ancestors(node):
        if isinstance(anc, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            return None
        if isinstance(anc, ast.If) and child is not anc.test:
            return anc, child in anc.body
        child = anc
    return None


def _test_flag(test: ast.AST) -> tuple[str | None, bool]:
    """(flag name, negated) of an ``if`` test that only checks a flag's truth: ``if freeze``, ``if not args.freeze``,
    ``if cfg["freeze"] is True``."""
    negated = False
    while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        negated, test = not negated, test.operand
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.Eq, ast.IsNot, ast.NotEq)) \
            and isinstance(constant(test.comparators[0]), bool):
        if (constant(test.comparators[0]) is False) != isinstance(test.ops[0], (ast.IsNot, ast.NotEq)):
            negated = not negated
        test = test.left
    return flag_name(test), negated


def _branch(guard: ast.If, in_body: bool) -> list[ast.stmt]:
    return guard.body if in_body else guard.orelse


def _rebinds(ctx: FileContext, stmts: list[ast.stmt], name: str) -> bool:
    """The branch updates the flag it tested (``self.freeze = False``): it is toggling a state, not asking."""
    for stmt in stmts:
        for node in ctx.subtree(stmt):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(flag_name(t) == name for t in targets):
                    return True
    return False


@register_rule
class FreezeSetsTrainable(Rule):
    """A freeze that sets requires_grad to True.

    What it finds: a `requires_grad` setting that turns on what the code around it asks to freeze: a
    value `True` (`p.requires_grad = True`, `m.requires_grad_()`) inside `if freeze_backbone:` /
    `if feature_extracting:` (a flag asking for a freeze, tested for its truth), or inside a function named
    for freezing (`freeze_encoder`, not `unfreeze`) that sets no flag to False anywhere; and a freeze flag
    used as the value itself, `p.requires_grad = freeze` / `requires_grad_(cfg.freeze_encoder)` /
    `nn.Parameter(w, requires_grad=frozen)`, or `requires_grad = not trainable`, also through a helper
    (`set_requires_grad(encoder, cfg.freeze_encoder)` where the helper sets `requires_grad = flag`). A branch that also freezes
    something (`requires_grad_(False)` on the rest), a test of a count (`if epoch >= freeze_epochs:`), an
    `if frozen:` that unfreezes a frozen state, and negated flags (`requires_grad = not freeze`) are left alone.
    Why it matters: parameters start with `requires_grad=True`, so setting True freezes nothing: the
    pretrained layers the run meant to keep fixed are fine-tuned with the head's learning rate, small data
    overfits and the features drift. Nothing errors and the loss still falls.
    How to confirm: after the freeze runs, print `sum(p.numel() for p in X.parameters() if p.requires_grad)`
    for the module meant to be frozen: it is not 0.
    What to do instead: freeze with `requires_grad = False` (`requires_grad_(False)`), or pass the flag
    negated: `p.requires_grad = not freeze`.
    """

    id = "freeze-sets-trainable"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("requires_grad", "freez", "feature_extract", "frozen")
    requires = (("freez", "feature_extract", "linear_prob", "frozen", "trainable", "finetun", "fine_tun"),)

    def check(self, ctx: FileContext):
        seen: set[int] = set()
        for node, value in _settings(ctx, ctx.tree):
            severity = None
            message = self._inverted_flag(value)
            if message:
                severity = _callers_confirm(ctx, node, value)
                if severity == "silent":
                    continue
            else:
                message = self._true_under_freeze(ctx, node, value)
            if message and node.lineno not in seen:
                seen.add(node.lineno)
                yield self.finding(
                    ctx,
                    node,
                    message,
                    severity=severity,
                    observation=ctx.segment(node, 120),
                    next_test="after this runs, print `sum(p.requires_grad for p in <module>.parameters())` for the module"
                    " meant to be frozen: it is not 0",
                )

        for call in ctx.calls():
            message = self._freeze_flag_passed_as_requires_grad(ctx, call)
            if message and call.lineno not in seen:
                seen.add(call.lineno)
                yield self.finding(
                    ctx,
                    call,
                    message,
                    observation=ctx.segment(call, 120),
                    next_test="after this call, print `sum(p.requires_grad for p in <module>.parameters())` for the module"
                    " meant to be frozen: it is not 0",
                )

    @staticmethod
    def _freeze_flag_passed_as_requires_grad(ctx: FileContext, call: ast.Call) -> str | None:
        """``set_requires_grad(encoder, cfg.freeze_encoder)`` where the helper sets ``requires_grad`` to that
        parameter as it is: the freeze flag becomes the trainable flag."""
        flags = [a for a in [*call.args, *(k.value for k in call.keywords)] if _asks_freeze(flag_name(a), state=True)]
        if not flags or call_method(call) == "requires_grad_":
            return None
        found = value_origins.helper_definition(ctx, call)
        if found is None:
            return None
        hctx, func = found
        for param in value_origins.function_params(func):
            passed = value_origins.argument_for(call, func, param)
            if passed is None or not any(passed is f for f in flags) or _asks_freeze(param, state=True):
                continue  # a parameter named for freezing is reported in the helper itself
            for _node, value in _settings(hctx, func):
                if isinstance(value, ast.Name) and value.id == param:
                    name = flag_name(passed)
                    return (f"`{name}` asks for a freeze, but `{func.name}` sets `requires_grad` to its `{param}`"
                            f" parameter as it is: the parameters are made trainable when `{name}` is True"
                            f" (pass `not {name}`)")
        return None

    @staticmethod
    def _inverted_flag(value: ast.AST | None) -> str | None:
        if value is None:
            return None
        if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
            name = flag_name(value.operand)
            if name and _TRAINABLE.search(name) and not _NOT_A_SWITCH.search(name):
                return (f"`requires_grad = not {name}` freezes the parameters when `{name}` asks to train them and trains"
                        " them when it asks to freeze: the flag is inverted")
            return None
        name = flag_name(value)
        if _asks_freeze(name, state=True):
            return (f"`requires_grad` is set to `{name}`, a flag that asks for a freeze: when it is True the parameters"
                    f" are made trainable, not frozen (use `not {name}`)")
        return None

    @staticmethod
    def _true_under_freeze(ctx: FileContext, node: ast.AST, value: ast.AST | None) -> str | None:
        if not _is_true(value):
            return None
        found = _guard(ctx, node)
        if found is not None:
            guard, in_body = found
            name, negated = _test_flag(guard.test)
            if _asks_freeze(name) and negated != in_body:
                branch = _branch(guard, in_body)
                if not any(_is_false(v) for stmt in branch for _, v in _settings(ctx, stmt)) \
                        and not _rebinds(ctx, branch, name) and not _unfreezing_function(ctx, node):
                    return (f"under `if {ctx.segment(guard.test, 50)}:`, which asks for a freeze, this sets"
                            " `requires_grad` to True: the parameters stay trainable and nothing is frozen")
            return None
        func = ctx.enclosing_function(node)
        if func is None or not _asks_freeze(func.name, switch=False):
            return None
        if any(_is_false(v) for _, v in _settings(ctx, func)):
            return None
        return (f"`{func.name}` is meant to freeze, but it only sets `requires_grad` to True: parameters start"
                " trainable, so nothing is frozen")


def _train_words(expr: ast.AST | None) -> tuple[bool, bool]:
    """(asks for a freeze, asks to train) of an argument: ``cfg.freeze`` / ``not fine_tune`` ask for a freeze,
    ``fine_tune`` / ``not freeze`` ask to train."""
    negated = False
    while isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        negated, expr = not negated, expr.operand
    name = flag_name(expr)
    freeze = _asks_freeze(name, state=True)
    train = bool(name) and not freeze and bool(_TRAINING.search(name))
    if negated:
        freeze, train = train, freeze
    return freeze, train


def _callers_confirm(ctx: FileContext, node: ast.AST, value: ast.AST) -> str | None:
    """For a flag that is a parameter of the function around ``node``: "silent" when a caller passes a value
    that undoes the inversion (``freeze_embeddings(freeze=fine_tune)``), None (the rule's severity) when a
    caller passes one that means what the name says (``freeze=not fine_tune``, ``freeze=cfg.freeze``), else
    "info": the callers do not tell. Not a parameter (``cfg.freeze_backbone``): None. A function that
    unfreezes: "silent"."""
    func = ctx.enclosing_function(node)
    if func is not None and _UNDO.search(func.name):
        return "silent"
    negated = isinstance(value, ast.UnaryOp)
    flag = value.operand if negated else value  # type: ignore[attr-defined]
    if func is None or not isinstance(flag, ast.Name) or flag.id not in value_origins.function_params(func):
        return None
    confirmed = False
    sites = value_origins.method_call_sites(ctx, func) if ctx.enclosing_class(func) is not None \
        else value_origins.all_call_sites(ctx, func)
    for _sctx, call in sites[:12]:
        freeze, train = _train_words(value_origins.argument_for(call, func, flag.id))
        if negated:
            freeze, train = train, freeze
        if train:
            return "silent"
        confirmed = confirmed or freeze
    return None if confirmed else "info"


def _unfreezing_function(ctx: FileContext, node: ast.AST) -> bool:
    """The setting sits in a function that unfreezes (``unfreeze_backbone``, ``make_trainable``)."""
    func = ctx.enclosing_function(node)
    return func is not None and bool(re.search(r"un_?freez|thaw|trainable", func.name, re.IGNORECASE))
