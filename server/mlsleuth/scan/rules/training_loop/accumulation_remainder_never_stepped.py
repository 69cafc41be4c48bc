"""The ``accumulation-remainder-never-stepped`` rule: an epoch's last micro-batches are back-propagated but never stepped."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import FileContext, constant, dotted
from mlsleuth.scan.prefilter import STEP_CALL
from mlsleuth.scan.registry import Rule, register_rule

_OPTIMIZER_WORDS = ("optim", "opt")
_NOT_DATA = frozenset({"range", "cycle", "count", "repeat", "islice"})


def _is_optimizer_step(call: ast.Call) -> bool:
    """``optimizer.step()``, ``self.opt.step()``, ``scaler.step(optimizer)``, ``accelerator``-free: an optimizer update."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "step"):
        return False
    receiver = (dotted(call.func.value) or "").rsplit(".", 1)[-1].lower()
    if "sched" in receiver:
        return False
    if "scaler" in receiver:
        return bool(call.args)
    return any(w in receiver for w in _OPTIMIZER_WORDS)


def _steps(nodes) -> ast.Call | None:
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and _is_optimizer_step(sub):
                return sub
    return None


def _data_source(loop: ast.For) -> ast.AST | None:
    """What a batch loop iterates (``enumerate(tqdm(loader))`` -> ``loader``), or None for ``range``/endless iterators."""
    it = loop.iter
    while isinstance(it, ast.Call) and it.args:
        name = it.func.attr if isinstance(it.func, ast.Attribute) else it.func.id if isinstance(it.func, ast.Name) else ""
        if name in _NOT_DATA:
            return None
        if name not in ("enumerate", "tqdm", "trange", "iter"):
            return it
        it = it.args[0]
    return it


def _enumerate_index(loop: ast.For) -> str | None:
    if isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "enumerate":
        if isinstance(loop.target, ast.Tuple) and loop.target.elts and isinstance(loop.target.elts[0], ast.Name):
            return loop.target.elts[0].id
    return None


def _modulo_window(ctx: FileContext, test: ast.AST) -> tuple[str, ast.AST] | None:
    """(counter, N) for ``(i + 1) % N == 0`` / ``not (i + 1) % N`` / ``i % N == N - 1``, possibly through a flag name
    bound just before (``update = (i + 1) % N == 0``). None when the test has any other clause (``or last_batch``)."""
    if isinstance(test, ast.Name):
        bound = value_origins.local_value(ctx, test)
        if bound is None or isinstance(bound, ast.Name):
            return None
        test = bound
    if any(isinstance(n, ast.BoolOp) for n in ast.walk(test)):
        return None
    mods = [n for n in ast.walk(test) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mod)]
    if len(mods) != 1:
        return None
    mod = mods[0]
    if not (isinstance(test, ast.Compare) or isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        return None
    counter = next((n.id for n in ast.walk(mod.left) if isinstance(n, ast.Name)), None)
    window = mod.right
    if counter is None or constant(window) in (0, 1) or isinstance(window, ast.Constant) and not isinstance(window.value, int):
        return None
    return counter, window


@register_rule
class AccumulationRemainderNeverStepped(Rule):
    """An epoch's last micro-batches are back-propagated but never stepped.

    What it finds: a batch loop over a data loader that calls `backward()` on every batch and steps the
    optimizer only when a per-epoch counter hits the accumulation window (`if (step + 1) % accum == 0:`,
    with `step` the loop's `enumerate` index, or a counter reset at the start of each epoch), with no
    clause for the epoch's last batch (`or step + 1 == len(loader)`), no `break` that cuts the epoch to
    whole windows, and no optimizer step after the loop.
    Why it matters: when the batches per epoch are not a multiple of the window, the last micro-batches
    of every epoch are back-propagated but not stepped: their gradients are added to the next epoch's
    first window (an update over more batches than intended) and the final epoch's are thrown away.
    When the window is longer than an epoch, the optimizer never steps at all: the run computes losses
    for every epoch and saves the untouched initial model.
    Reported as info: the pattern is common in code its authors consider correct, and how much it
    matters depends on the loader's length, which the code does not show.
    How to confirm: count the `optimizer.step()` calls in one epoch and compare with
    `len(loader) / accum`; run with `accum` larger than `len(loader)` and check that the weights change.
    What to do instead: also step on the epoch's last batch (`if (step + 1) % accum == 0 or step + 1 ==
    len(loader):`), or flush the remaining gradients after the loop.
    """

    id = "accumulation-remainder-never-stepped"
    category = "training-loop"
    # info: blind authors of clean look-alikes, accelerate's own scripts and our clean examples all write this
    # window, and the harm depends on len(loader) % accum, which the code does not show
    severity = "info"
    reach = "function"
    triggers = ("%",)
    requires = (("backward",), (STEP_CALL,))

    def check(self, ctx: FileContext):
        for loop in ast.walk(ctx.tree):
            if not isinstance(loop, (ast.For, ast.AsyncFor)):
                continue
            finding = self._check_loop(ctx, loop)
            if finding is not None:
                yield finding

    def _check_loop(self, ctx: FileContext, loop: ast.For):
        if _data_source(loop) is None:
            return None
        own = [n for n in ctx.walk_scope(loop) if (ctx.enclosing_loops(n) or [None])[0] is loop]
        if any(isinstance(n, ast.Break) for n in own):
            return None  # the epoch is cut (to whole windows, or for good)
        if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "backward" for n in own):
            return None
        for node in own:
            if not isinstance(node, ast.If) or _steps(node.orelse) is not None:
                continue
            window = _modulo_window(ctx, node.test)
            step = _steps(node.body)
            if window is None or step is None:
                continue
            counter, size = window
            if not self._per_epoch(ctx, loop, counter):
                return None
            if self._flushed_after(ctx, loop):
                return None
            return self.finding(
                ctx,
                node,
                f"the optimizer steps only when `{counter}` completes a window of {ctx.segment(size, 40)} batches: the micro-batches "
                f"after an epoch's last full window are back-propagated but never stepped (they leak into the next epoch's "
                f"first update; if the window is longer than an epoch the optimizer never steps)",
                observation=f"{ctx.segment(node.test, 70)} at line {node.lineno} guards {ctx.segment(step, 40)}; "
                f"`{counter}` restarts every epoch and nothing steps on the epoch's last batch",
                next_test="Count optimizer.step() calls in one epoch against len(loader) / accum; with accum > len(loader) check that the weights change at all.",
            )
        return None

    @staticmethod
    def _per_epoch(ctx: FileContext, loop: ast.For, counter: str) -> bool:
        """The counter restarts with every pass over the loader: the loop's own enumerate index, or a name set to a
        constant right before the loop (inside the epoch loop) and incremented in it."""
        if _enumerate_index(loop) == counter:
            return True
        outer = ctx.enclosing_loops(loop)
        if not outer:
            return False
        for node in ctx.walk_scope(outer[0]):
            if isinstance(node, ast.Assign) and node.lineno < loop.lineno and any(
                isinstance(t, ast.Name) and t.id == counter for t in node.targets
            ) and isinstance(constant(node.value), int) and (ctx.enclosing_loops(node) or [None])[0] is outer[0]:
                return True
        return False

    @staticmethod
    def _flushed_after(ctx: FileContext, loop: ast.For) -> bool:
        """An optimizer step after the batch loop, in the enclosing epoch loop or function."""
        parent = (ctx.enclosing_loops(loop) or [None])[0] or ctx.enclosing_function(loop) or ctx.tree
        after = [n for n in ctx.walk_scope(parent) if getattr(n, "lineno", 0) > (loop.end_lineno or loop.lineno)]
        return any(isinstance(n, ast.Call) and _is_optimizer_step(n) for n in after)
