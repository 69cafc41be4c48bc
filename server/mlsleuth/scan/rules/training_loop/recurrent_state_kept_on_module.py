"""The ``recurrent-state-kept-on-module`` rule: a module feeds its own stored recurrent state back into itself without detaching it."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis.context import FileContext, dotted
from mlsleuth.scan.analysis.torch_idioms import grad_off, is_module_class
from mlsleuth.scan.registry import Rule, register_rule

_CUT = {"detach", "detach_", "zero_", "clone_detached"}


def _self_attrs(target: ast.AST) -> list[str]:
    """``self.h`` / ``(out, self.h)`` / ``(out, (self.h, self.c))``: the attribute names assigned."""
    found = []
    for node in ast.walk(target):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" and isinstance(node.ctx, ast.Store):
            found.append(node.attr)
    return found


_RECURRENT = {"LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell"}


def _recurrent_call(ctx: FileContext, call: ast.Call) -> bool:
    """``self.lstm(x, h)`` where ``self.lstm`` is an ``nn.LSTM``/``GRU``/``RNN`` (or their cells), or a
    submodule named as one."""
    if not (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == "self"):
        return False
    bound = ctx.resolve(call.func)
    if isinstance(bound, ast.Call):
        qual = ctx.qualname(bound) or ""
        return qual.startswith("torch.nn.") and qual.rsplit(".", 1)[-1] in _RECURRENT
    return any(w in {"rnn", "lstm", "gru"} for w in call.func.attr.lower().split("_"))


def _reads(call: ast.Call, attr: str) -> bool:
    return any(dotted(n) == f"self.{attr}" for arg in (*call.args, *(k.value for k in call.keywords)) for n in ast.walk(arg))


def _cut_somewhere(ctx: FileContext, cls: ast.ClassDef, attr: str) -> bool:
    """``self.h.detach()`` / ``h.detach() for h in self.h`` / ``self.h = self.init_hidden()`` outside ``__init__``:
    the stored state is cut from the graph or reset somewhere in the class."""
    for node in ast.walk(cls):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUT:
            if any(dotted(n) == f"self.{attr}" for n in ast.walk(node.func.value)):
                return True
        if isinstance(node, ast.Call) and any(dotted(n) == f"self.{attr}" for a in node.args for n in ast.walk(a)):
            name = (dotted(node.func) or "").rsplit(".", 1)[-1].lower()
            if "detach" in name or "repackage" in name:
                return True
            if isinstance(node.func, ast.Name) and node.func.id in {"tuple", "list"} and any(
                isinstance(g, ast.GeneratorExp) and any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in _CUT for c in ast.walk(g))
                for g in node.args
            ):
                return True
        if isinstance(node, ast.Assign) and f"self.{attr}" in {dotted(t) for t in node.targets}:
            func = ctx.enclosing_function(node)
            if any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in _CUT for c in ast.walk(node.value)):
                return True  # stored detached
            if func is not None and func.name not in {"__init__", "forward"}:
                return True  # a reset method (reset_state, init_hidden assigning it): the loop can call it
    return False


def _reset_from_outside(ctx: FileContext, cls: ast.ClassDef, attr: str) -> bool:
    """``model.hidden = model.init_hidden(...)`` in a training loop (this file or another module): the caller
    resets the state itself."""
    files = [ctx]
    if ctx.project is not None:
        files += ctx.project.files_mentioning(ctx, f".{attr}")
    for fctx in files:
        for node in fctx.nodes_of(ast.Assign):
            for target in node.targets:  # type: ignore[attr-defined]
                if isinstance(target, ast.Attribute) and target.attr == attr and not (
                    isinstance(target.value, ast.Name) and target.value.id == "self"
                ):
                    return True
    return False


@register_rule
class RecurrentStateKeptOnModule(Rule):
    """A module feeds its own stored recurrent state back into itself without detaching it.

    What it finds: in the `forward` of an `nn.Module`, an assignment such as
    `out, self.hidden = self.lstm(x, self.hidden)` (a recurrent layer: `nn.LSTM`, `GRU`, `RNN` or a
    cell) that stores the recurrent state on the module and
    passes the previous one in, where nothing in the class ever detaches or resets that state
    (`self.hidden.detach()`, `tuple(h.detach() for h in self.hidden)`, a `repackage_hidden`, a reset
    method assigning it, or a caller assigning `model.hidden = ...`, in this file or another module).
    Why it matters: the stored state still carries the autograd graph of the previous batch, so every
    batch's graph links back to all earlier ones. `backward()` then fails with "Trying to backward
    through the graph a second time", and the usual patch, `retain_graph=True`, hides it while memory
    and step time grow batch after batch and gradients flow into unrelated earlier sequences.
    How to confirm: check `model.hidden[0].grad_fn` after a step: it is not None; watch
    `torch.cuda.memory_allocated()` or the step time grow through the epoch.
    What to do instead: detach the state when storing it (`self.hidden = tuple(h.detach() for h in
    hidden)`), or reset it (`model.init_hidden()`) at the start of every independent sequence.
    """

    id = "recurrent-state-kept-on-module"
    category = "training-loop"
    severity = "warning"
    reach = "project"
    triggers = ("LSTM", "GRU", "RNN", "rnn", "lstm", "gru")
    requires = (("def forward",),)

    def check(self, ctx: FileContext):
        for cls in ctx.classes:
            forward = ctx.method(cls, "forward")
            if forward is None or not is_module_class(ctx, cls):
                continue
            for node in ast.walk(forward):
                if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call) or grad_off(ctx, node):
                    continue
                if not _recurrent_call(ctx, node.value):
                    continue
                for attr in {a for t in node.targets for a in _self_attrs(t)}:
                    if not _reads(node.value, attr) or _cut_somewhere(ctx, cls, attr) or _reset_from_outside(ctx, cls, attr):
                        continue
                    yield self.finding(
                        ctx,
                        node,
                        f"{cls.name}.forward stores its recurrent state in `self.{attr}` and feeds the previous value back in"
                        f" (`{ctx.segment(node.value, 60)}`), and nothing detaches or resets it: every batch's graph links to"
                        " all earlier batches",
                        next_test=f"after one training step print `model.{attr}` (its grad_fn is not None) and watch memory grow per batch",
                    )
