"""The ``peft-classifier-head-frozen`` rule: LoRA on a new classification head without the task type that trains it."""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, argument, constant, dotted, keyword
from mlsleuth.scan.analysis.kwargs_dicts import paths_at
from mlsleuth.scan.analysis.value_origins import argument_for, call_sites, function_params, value
from mlsleuth.scan.registry import Rule, register_rule

# PEFT adapter configs whose PeftModel freezes every base weight that is not named in modules_to_save.
_PEFT_CONFIGS = frozenset({
    "LoraConfig", "AdaLoraConfig", "IA3Config", "LoHaConfig", "LoKrConfig", "VeraConfig", "OFTConfig",
    "BOFTConfig", "FourierFTConfig", "HRAConfig", "VBLoRAConfig", "RandLoraConfig", "C3AConfig",
})
# head class suffix -> the task type whose PeftModel subclass adds the head to modules_to_save
_HEADS = {"ForSequenceClassification": "SEQ_CLS", "ForTokenClassification": "TOKEN_CLS"}
# keywords of from_pretrained that size a new, randomly initialised head
_NEW_HEAD_KEYWORDS = ("num_labels", "id2label", "label2id")
# wrappers that hand the same model back
_PASSTHROUGH = frozenset({"prepare_model_for_kbit_training", "prepare_model_for_int8_training", "to", "cuda"})
# the head made trainable by hand, or the config patched after construction
_HANDLED = re.compile(
    r"\.modules_to_save\s*=|\.task_type\s*=|requires_grad\s*=\s*True|requires_grad_\(\s*(?:True)?\s*\)"
)


def _classification_model(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> tuple[ast.Call, str] | None:
    """The ``*ForSequenceClassification.from_pretrained(..., num_labels=...)`` call ``expr`` holds, with its task type."""
    if expr is None or depth > 4:
        return None
    bound = value(ctx, expr)
    if isinstance(bound, ast.Name) and bound is expr:
        func = ctx.enclosing_function(bound)
        if func is None or bound.id not in function_params(func):
            return None
        # a helper's parameter: every caller in the file must pass such a model
        sites = call_sites(ctx, func)
        found = [_classification_model(ctx, argument_for(site, func, bound.id), depth + 1) for site in sites]
        return found[0] if found and all(f is not None for f in found) else None
    if not isinstance(bound, ast.Call):
        return None
    name = dotted(bound.func) or ""
    last = bound.func.attr if isinstance(bound.func, ast.Attribute) else name.rsplit(".", 1)[-1]
    if last in _PASSTHROUGH:
        inner = bound.args[0] if last.startswith("prepare_") and bound.args else (
            bound.func.value if isinstance(bound.func, ast.Attribute) else None)
        return _classification_model(ctx, inner, depth + 1)
    if last != "from_pretrained" or "." not in name:
        return None
    cls = name.rsplit(".", 2)[-2]
    task = next((t for suffix, t in _HEADS.items() if cls.endswith(suffix)), None)
    if task is None or not any(keyword(bound, k) is not None for k in _NEW_HEAD_KEYWORDS):
        return None
    return bound, task


def _task_name(node: ast.AST) -> str | None:
    """``"SEQ_CLS"`` for ``"SEQ_CLS"``, ``TaskType.SEQ_CLS`` or ``"seq_cls"``; None when not a literal."""
    text = constant(node)
    if isinstance(text, str):
        return text.upper()
    if isinstance(node, ast.Attribute) and (dotted(node.value) or "").endswith("TaskType"):
        return node.attr.upper()
    return None


def _config_problem(ctx: FileContext, config: ast.Call, task: str) -> str | None:
    """Why ``config`` leaves the head frozen, or None when it trains it (or that cannot be told)."""
    task_node = keyword(config, "task_type")
    saved = keyword(config, "modules_to_save")
    for kw in config.keywords:
        if kw.arg is None:  # **options: follow the dict, stay silent when it cannot be followed
            if not isinstance(kw.value, ast.Name):
                return None
            outcomes = paths_at(ctx, kw.value, ("task_type", "modules_to_save"))
            if outcomes is None or any(o[0] is not None or o[1] is not None for o in outcomes):
                return None
    if (saved is not None and constant(saved) is not None) or config.args:
        return None
    if task_node is None:
        return "has no `task_type`"
    named = _task_name(task_node)
    if named is None or named == task:
        return None
    return f"says `task_type={named}`, not `{task}`"


@register_rule
class PeftClassifierHeadFrozen(Rule):
    """LoRA on a classification model without `task_type`: its new head stays frozen

    What it finds: `get_peft_model(model, config)` where `model` comes from
    `AutoModelForSequenceClassification.from_pretrained(..., num_labels=...)` (or a token-classification
    model, or any `*ForSequenceClassification` class; through `prepare_model_for_kbit_training`, `.to()`,
    or a helper's parameter that every caller fills with such a model) and `config` is a `LoraConfig` (or
    another PEFT adapter config; inline, by name, or through a `**options` dict the scan can follow) with
    no `task_type`, or with a task type of another kind (`CAUSAL_LM`), and no `modules_to_save`.
    Why it matters: the classification head of such a model is new and randomly initialised.
    `get_peft_model` freezes every base weight; only a `SEQ_CLS`/`TOKEN_CLS` task type makes PEFT add the
    head (`classifier`, `score`) to `modules_to_save`. Without it the adapters learn to feed a fixed random
    projection: accuracy stays near chance or far below a full fine-tune, and the saved adapter does not hold
    a head at all.
    How to confirm: call `model.print_trainable_parameters()` or list
    `[n for n, p in model.named_parameters() if p.requires_grad]`: no `classifier`/`score` weight is in it.
    What to do instead: pass `task_type="SEQ_CLS"` (`TaskType.SEQ_CLS`; `TOKEN_CLS` for token
    classification) to the config, or list the head in `modules_to_save=["classifier"]` (`["score"]` for
    decoder models).
    """

    id = "peft-classifier-head-frozen"
    category = "training-loop"
    severity = "warning"
    triggers = ("get_peft_model",)
    requires = (("ForSequenceClassification", "ForTokenClassification"),)

    def check(self, ctx: FileContext):
        if _HANDLED.search(ctx.source):
            return
        for call in ctx.calls_named("get_peft_model"):
            model = _classification_model(ctx, argument(call, 0, "model"))
            config = value(ctx, argument(call, 1, "peft_config"))
            if model is None or not isinstance(config, ast.Call):
                continue
            if (dotted(config.func) or "").rsplit(".", 1)[-1] not in _PEFT_CONFIGS:
                continue
            loaded, task = model
            problem = _config_problem(ctx, config, task)
            if problem is None:
                continue
            cls = (dotted(loaded.func) or "").rsplit(".", 2)[-2]
            yield self.finding(
                ctx,
                call,
                f"the adapter config {problem} and no `modules_to_save`: `get_peft_model` freezes the new,"
                f" randomly initialised head of `{cls}` (line {loaded.lineno}), so only the adapters train and"
                " the classifier stays a random projection",
                observation=ctx.segment(call, 120),
                next_test="model.print_trainable_parameters(); list the trainable names: no classifier/score weight",
            )
