"""The ``freeze-undone-before-training`` rule: parameters are frozen, then unfrozen again before any training."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_PARAMETER_ITERATORS = {"parameters", "named_parameters"}
# a call between the freeze and the unfreeze that may train with the frozen setting (gradual unfreezing)
_TRAINS = re.compile(r"fit|train|step|backward|epoch|run|learn|optimi[sz]e|loop", re.IGNORECASE)


@register_rule
class FreezeUndoneBeforeTraining(Rule):
    """A freeze undone by a broader unfreeze before training.

    What it finds: in one function (or script), a freeze — `X.requires_grad_(False)` or
    `for p in X.parameters(): p.requires_grad = False` — followed, with no training call in between, by an
    unconditional unfreeze of `X` or of a module that contains it: `model.requires_grad_(True)`,
    `for p in model.parameters(): p.requires_grad = True`. Unfreezing only a part (`model.head`) after
    freezing the whole model is the usual recipe and is not reported, nor is an unfreeze under an `if` or
    after a training call (gradual unfreezing), nor a module unfrozen after it ran a forward while frozen
    (`D.requires_grad_(False); fake_score = D(fake); D.requires_grad_()`: the generator's graph was built
    with the freeze on).
    Why it matters: the later loop sets the flag on every parameter again, the frozen ones included, so
    the freeze never takes effect: the pretrained backbone is fine-tuned with the head's learning rate,
    memory and time grow, and small datasets overfit. The run looks normal.
    How to confirm: just before the optimizer is built, print
    `sum(p.numel() for p in X.parameters() if p.requires_grad)`: it is not 0.
    What to do instead: unfreeze everything first and freeze afterwards, or unfreeze only the parts meant
    to train (`model.head.requires_grad_(True)`).
    """

    id = "freeze-undone-before-training"
    category = "training-loop"
    severity = "warning"
    triggers = ("requires_grad",)
    requires = (("False",), ("True",))

    def check(self, ctx: FileContext):
        for scope in (ctx.tree, *ctx.functions):
            freezes: list[tuple[ast.stmt, str]] = []
            for stmt in scope.body:  # the statements that run whenever the scope runs, in order
                setting = _setting(stmt)
                if setting is not None:
                    target, flag = setting
                    if flag is False:
                        freezes.append((stmt, target))
                        continue
                    for freeze, frozen in freezes:
                        if frozen == target or frozen.startswith(target + "."):
                            yield self.finding(
                                ctx,
                                stmt,
                                f"this unfreezes every parameter of `{target}`, including `{frozen}` frozen at line"
                                f" {freeze.lineno}, before anything trains: the freeze has no effect",
                                observation=ctx.segment(stmt, 120),
                                next_test=f"print `sum(p.requires_grad for p in {frozen}.parameters())` after line {stmt.lineno}: it is not 0",
                            )
                            break
                    freezes = [(f, t) for f, t in freezes if not (t == target or t.startswith(target + "."))]
                    continue
                if not freezes:  # nothing pending: only a freeze can matter
                    continue
                if _may_train(stmt):
                    freezes = []
                    continue
                called = _modules_called(stmt)
                if called:
                    # the frozen module ran a forward in between (a GAN's generator step through a frozen
                    # discriminator): that graph was built with the freeze on; unfreezing after it is the idiom
                    freezes = [(f, t) for f, t in freezes if not any(t == c or t.startswith(c + ".") for c in called)]
                if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                    rebound = {dotted(t) for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])}
                    freezes = [(f, t) for f, t in freezes
                               if not any(r and (t == r or t.startswith(r + ".")) for r in rebound)]


def _setting(stmt: ast.stmt) -> tuple[str, bool] | None:
    """(module, flag) for ``X.requires_grad_(flag)`` or ``for p in X.parameters(): p.requires_grad = flag``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and call_method(stmt.value) == "requires_grad_":
        call = stmt.value
        flag = constant(call.args[0]) if call.args else True
        target = dotted(call.func.value)  # type: ignore[union-attr]
        if isinstance(flag, bool) and target:
            return target, flag
        return None
    if isinstance(stmt, ast.For) and isinstance(stmt.iter, ast.Call) and call_method(stmt.iter) in _PARAMETER_ITERATORS:
        owner = dotted(stmt.iter.func.value)  # type: ignore[union-attr]
        var = stmt.target
        if isinstance(var, ast.Tuple) and len(var.elts) == 2:
            var = var.elts[1]
        if owner is None or not isinstance(var, ast.Name) or len(stmt.body) != 1:
            return None
        body = stmt.body[0]
        if isinstance(body, ast.Assign) and len(body.targets) == 1:
            t = body.targets[0]
            flag = constant(body.value)
            if isinstance(t, ast.Attribute) and t.attr == "requires_grad" and isinstance(t.value, ast.Name) \
                    and t.value.id == var.id and isinstance(flag, bool):
                return owner, flag
        if isinstance(body, ast.Expr) and isinstance(body.value, ast.Call) and call_method(body.value) == "requires_grad_":
            recv = body.value.func.value  # type: ignore[union-attr]
            flag = constant(body.value.args[0]) if body.value.args else True
            if isinstance(recv, ast.Name) and recv.id == var.id and isinstance(flag, bool):
                return owner, flag
    return None


def _modules_called(stmt: ast.stmt) -> set[str]:
    """The dotted names ``stmt`` calls as modules: ``self.disc(x)``, ``disc.forward(x)``."""
    called = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "forward":
                func = func.value
            name = dotted(func)
            if name:
                called.add(name)
    return called


def _may_train(stmt: ast.stmt) -> bool:
    for node in ast.walk(stmt):
        if isinstance(node, ast.Call):
            name = dotted(node.func) or call_method(node) or ""
            if _TRAINS.search(name.rsplit(".", 1)[-1]):
                return True
    return False
