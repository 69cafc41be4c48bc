"""The ``load-state-dict-strict-false-ignored`` rule: `load_state_dict(..., strict=False)` whose report of missing and unexpected keys is thrown away."""

from __future__ import annotations

import ast

from mlsleuth.scan.analysis import value_origins
from mlsleuth.scan.analysis.context import (
    FileContext,
    call_method,
    constant,
    dotted,
    keyword,
)
from mlsleuth.scan.prefilter import call_to
from mlsleuth.scan.registry import Rule, register_rule

_ADAPTER_WORDS = {"lora", "adapter", "adapters", "peft", "qlora", "ia3"}


def _adapter_workflow(ctx: FileContext, call: ast.Call) -> bool:
    """The load happens where adapters (LoRA, adapter layers, PEFT) are set up: in the enclosing class
    or function, or in what the file imports from such a module."""
    scope = ctx.enclosing_class(call) or ctx.enclosing_function(call) or ctx.tree
    names = [dotted(n) for n in ast.walk(scope) if isinstance(n, (ast.Name, ast.Attribute))]
    names += list(ctx.imports.values())
    return any(_ADAPTER_WORDS & set(value_origins.words(part)) for name in names if name for part in name.split("."))


@register_rule
class LoadStateDictStrictFalseIgnored(Rule):
    """`load_state_dict(..., strict=False)` whose report of missing and unexpected keys is thrown away.

    What it finds: a `load_state_dict` call with `strict=False` used as a bare statement, so the
    returned `(missing_keys, unexpected_keys)` is never looked at. Test functions (`test_*`), which load
    partial states on purpose and check the outcome themselves, and loads where adapters are set up
    (LoRA, adapter layers, PEFT: the base checkpoint lacks the adapter keys by design) are left alone.
    Why it matters: with `strict=False` a checkpoint whose keys do not match the model (a `module.`
    prefix from DataParallel, a renamed layer, a different architecture version) loads "successfully"
    while some or all layers keep their random initialisation. Fine-tuning then starts from scratch,
    or evaluation runs an untrained head, with no error. The category is architecture because the
    failure is a mismatch between the model's structure and the checkpoint's.
    How to confirm: print the return value: `print(model.load_state_dict(sd, strict=False))`; any
    missing key you expected to load is the bug.
    What to do instead: keep `strict=True` where you can; otherwise capture the result and check it,
    e.g. `missing, unexpected = model.load_state_dict(sd, strict=False)` and assert that only the keys
    you meant to skip (a new head) are missing.
    """

    id = "load-state-dict-strict-false-ignored"
    category = "architecture"
    severity = "warning"
    triggers = ("strict",)
    requires = (("load_state_dict",), ("False",), (call_to("load_state_dict"),))

    def check(self, ctx: FileContext):
        for node in ctx.nodes_of(ast.Expr):
            if not isinstance(node.value, ast.Call):
                continue
            call = node.value
            if call_method(call) != "load_state_dict" or constant(keyword(call, "strict")) is not False:
                continue
            func = ctx.enclosing_function(call)
            if func is not None and func.name.startswith("test"):
                continue  # a test loads a partial state on purpose and asserts on the result itself
            if _adapter_workflow(ctx, call):
                continue  # base weights into a model with adapters: the adapter keys are missing by design
            yield self.finding(
                ctx,
                call,
                "load_state_dict(strict=False) result ignored: layers whose keys do not match keep their random "
                "initialisation and nothing reports it",
                observation=ctx.segment(call),
                next_test="Print the return value of this call: missing_keys lists every layer that was not loaded.",
            )
