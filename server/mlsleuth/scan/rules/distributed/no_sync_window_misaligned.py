"""The ``no-sync-window-misaligned`` rule: gradient accumulation under DDP whose synchronised micro-batch is not
the one the optimizer steps after."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from mlsleuth.scan.analysis import value_origins as vo
from mlsleuth.scan.analysis.context import FileContext, call_method, constant, dotted
from mlsleuth.scan.registry import Rule, register_rule

_NOT_OPTIMIZERS = ("sched", "lr", "warmup", "env", "ema", "swa")


@dataclass(frozen=True)
class Phase:
    """``counter + offset`` is a multiple of ``modulus`` (``holds``), or is not (``not holds``)."""

    counter: str
    modulus: str
    residue: int  # the condition speaks of counter ≡ residue (mod modulus); -1 means modulus - 1
    holds: bool


def _linear(expr: ast.AST) -> tuple[str, int] | None:
    """``step`` -> ("step", 0); ``step + 1`` -> ("step", 1); ``1 + i`` -> ("i", 1); ``i - 1`` -> ("i", -1)."""
    if isinstance(expr, (ast.Name, ast.Attribute)):
        name = dotted(expr)
        return (name, 0) if name else None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub)):
        for var, num, sign in ((expr.left, expr.right, 1), (expr.right, expr.left, 1)):
            value = constant(num)
            if isinstance(value, int) and not isinstance(value, bool) and isinstance(var, (ast.Name, ast.Attribute)):
                if isinstance(expr.op, ast.Sub):
                    if num is expr.left:
                        return None  # 1 - i
                    sign = -1
                return dotted(var), sign * value  # type: ignore[return-value]
    return None


def _phase(ctx: FileContext, test: ast.AST, depth: int = 0) -> Phase | None:
    """The one ``(counter + c) % N ==/!= k`` comparison a condition rests on (through ``not``, ``and``/``or``
    with other terms, and a name bound to the comparison earlier)."""
    if depth > 3:
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _phase(ctx, test.operand, depth + 1)
        return Phase(inner.counter, inner.modulus, inner.residue, not inner.holds) if inner else None
    if isinstance(test, ast.BoolOp):
        phases = [p for p in (_phase(ctx, v, depth + 1) for v in test.values) if p is not None]
        return phases[0] if len(phases) == 1 else None
    if isinstance(test, ast.Name):
        bound = vo.local_value(ctx, test)
        return _phase(ctx, bound, depth + 1) if bound is not None and bound is not test else None
    if isinstance(test, ast.BinOp) and isinstance(test.op, ast.Mod):  # `if i % k:` means `i % k != 0`
        test = ast.Compare(left=test, ops=[ast.NotEq()], comparators=[ast.Constant(0)])
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod)):
        left, right = right, left
    if not (isinstance(left, ast.BinOp) and isinstance(left.op, ast.Mod)):
        return None
    term = _linear(left.left)
    modulus = dotted(left.right) or (str(constant(left.right)) if isinstance(constant(left.right), int) else None)
    if term is None or modulus is None:
        return None
    k = constant(right)
    if not isinstance(k, int) or isinstance(k, bool):
        # `% N == N - 1`
        if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Sub) and dotted(right.left) == modulus \
                and isinstance(constant(right.right), int):
            k = -constant(right.right)  # type: ignore[operator]
        else:
            return None
    counter, offset = term
    residue = k - offset
    if modulus.isdigit() and int(modulus) > 0:
        residue %= int(modulus)
    return Phase(counter, modulus, residue, isinstance(test.ops[0], ast.Eq))


def _sync_phase(ctx: FileContext, node: ast.AST) -> tuple[Phase, ast.AST] | None:
    """When gradients are synchronised, from a ``no_sync()`` chosen by a condition:
    ``m.no_sync() if c else nullcontext()``, ``if c: with m.no_sync(): ...``,
    or ``m.require_backward_grad_sync = c``. Answers the phase in which the all-reduce runs."""
    if isinstance(node, ast.IfExp):
        body_no_sync = _is_no_sync(node.body)
        else_no_sync = _is_no_sync(node.orelse)
        if body_no_sync == else_no_sync:
            return None
        phase = _phase(ctx, node.test)
        if phase is None:
            return None
        # the all-reduce runs in the branch without no_sync
        return (phase if else_no_sync else Phase(phase.counter, phase.modulus, phase.residue, not phase.holds)), node
    if isinstance(node, ast.If):
        body = any(_with_no_sync(s) for s in node.body)
        orelse = any(_with_no_sync(s) for s in node.orelse)
        if body == orelse:
            return None
        phase = _phase(ctx, node.test)
        if phase is None:
            return None
        return (phase if orelse else Phase(phase.counter, phase.modulus, phase.residue, not phase.holds)), node
    if isinstance(node, ast.Assign) and any(isinstance(t, ast.Attribute) and t.attr == "require_backward_grad_sync"
                                            for t in node.targets):
        phase = _phase(ctx, node.value)
        return (phase, node) if phase is not None else None
    return None


def _is_no_sync(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Call) and call_method(expr) == "no_sync":
        return True
    return isinstance(expr, ast.Attribute) and expr.attr == "no_sync"  # `ctx = m.no_sync if c else nullcontext`


def _with_no_sync(stmt: ast.stmt) -> bool:
    return isinstance(stmt, (ast.With, ast.AsyncWith)) and any(_is_no_sync(i.context_expr) for i in stmt.items)


def _step_phase(ctx: FileContext, loop: ast.AST) -> tuple[Phase, ast.Call] | None:
    """The condition an ``optimizer.step()`` (or ``scaler.step(optimizer)``) in the loop runs under."""
    for call in ctx.calls(loop):
        if call_method(call) != "step" or not isinstance(call.func, ast.Attribute):
            continue
        receiver = (dotted(call.func.value) or "").lower()
        if any(w in receiver for w in _NOT_OPTIMIZERS):
            continue
        for anc in ctx.ancestors(call):
            if anc is loop:
                break
            if isinstance(anc, ast.If) and any(call is n for s in anc.body for n in ast.walk(s)):
                phase = _phase(ctx, anc.test)
                if phase is not None:
                    return phase, call
    return None


def _same_micro_batch(a: Phase, b: Phase) -> bool | None:
    """Whether two phases pick the same micro-batch of each window; None when they cannot be compared."""
    if a.counter != b.counter or a.modulus != b.modulus:
        return None
    if a.holds != b.holds:
        return None  # "sync on all but one" vs "step on one": not the accumulation shape
    return a.residue == b.residue


@register_rule
class NoSyncWindowMisaligned(Rule):
    """DDP no_sync() syncs a different micro-batch than the one before the step.

    What it finds: in a training loop, `no_sync()` (DDP's, or a wrapper's with that name) chosen by a modular
    test of a counter (`m.no_sync() if step % accum != 0 else nullcontext()`, `if (i + 1) % k != 0: with
    m.no_sync(): ...`, `m.require_backward_grad_sync = (i + 1) % k == 0`, the test bound to a name first),
    and an `optimizer.step()` (or `scaler.step(...)`) under a modular test of the same counter and modulus that
    selects a different micro-batch of the window: the gradients are synchronised on micro-batch `i % k == 0`
    but the optimizer steps after `(i + 1) % k == 0`. Loops whose two tests agree, or use different counters
    or moduli, are left alone.
    Why it matters: `no_sync()` skips the all-reduce; the gradients accumulated inside it are all-reduced
    with the next synchronised backward. If that backward is the first micro-batch of the window instead of
    the last, the optimizer steps on gradients whose last micro-batches are still rank-local (different on
    every rank): the replicas take different steps and drift apart silently, and the all-reduce carries
    stale gradients into the next window. The loss still falls, so only a replica comparison shows it.
    How to confirm: after an optimizer step, compare a parameter's checksum across ranks
    (`dist.all_gather` of `p.sum()`): it differs, and grows over training.
    What to do instead: synchronise on the micro-batch that precedes the step: use the same test for both,
    e.g. `sync = (i + 1) % accum == 0`, `with (nullcontext() if sync else model.no_sync()): ...backward()`,
    `if sync: optimizer.step()`; or let `accelerator.accumulate(model)` manage it.
    """

    id = "no-sync-window-misaligned"
    category = "distributed"
    severity = "warning"
    triggers = ("no_sync", "require_backward_grad_sync")
    requires = (("step",),)

    def check(self, ctx: FileContext):
        for loop in ctx.nodes_of(ast.For, ast.While):
            if any(isinstance(a, (ast.For, ast.While)) for a in ctx.ancestors(loop)
                   if ctx.enclosing_function(a) is ctx.enclosing_function(loop)):
                continue  # the outermost loop of a function sees everything inside it
            step = _step_phase(ctx, loop)
            if step is None:
                continue
            step_phase, step_call = step
            for node in ctx.subtree(loop):
                found = _sync_phase(ctx, node)
                if found is None:
                    continue
                sync_phase, where = found
                if _same_micro_batch(sync_phase, step_phase) is not False:
                    continue
                yield self.finding(
                    ctx,
                    where,
                    f"gradients are all-reduced on the micro-batch where `{sync_phase.counter}` ≡ "
                    f"{_residue(sync_phase)} (mod {sync_phase.modulus}), but the optimizer steps after the one where it is "
                    f"≡ {_residue(step_phase)} (line {step_call.lineno}): the step uses gradients whose last micro-batches "
                    "were never synchronised, so the replicas drift apart",
                    observation=f"{ctx.segment(where, 90)}; step under the test at line {step_call.lineno}",
                    next_test="After a few optimizer steps, compare a parameter checksum across ranks: it differs.",
                )
                break


def _residue(phase: Phase) -> str:
    if phase.residue < 0:
        return f"{phase.modulus} - {-phase.residue}"
    return str(phase.residue)
