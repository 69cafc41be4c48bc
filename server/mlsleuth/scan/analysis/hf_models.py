"""Which Hugging Face model a value holds: is it a decoder-only language model?

Shared by the generation rules (right padding, prompt left in the output). A model is followed through
local names, module-level bindings, ``self.attr``, calls that hand the same model back (``.to()``,
``.eval()``, ``get_peft_model``, ``accelerator.unwrap_model``, ``PeftModel.from_pretrained(base, ...)``)
and a helper's parameter that every caller in the file fills with such a model. Anything else (a
model from ``accelerator.prepare``, a parameter with callers that disagree) is unknown: None.
"""

from __future__ import annotations

import ast
import re

from mlsleuth.scan.analysis.context import FileContext, argument, dotted
from mlsleuth.scan.analysis.value_origins import (
    argument_for,
    call_sites,
    function_params,
    value,
)

MAX_DEPTH = 5
# classes whose from_pretrained gives a decoder-only language model
_DECODER_ONLY = re.compile(r"(?:ForCausalLM|LMHeadModel)$")
# calls that hand the same model back: method name -> where the model is ("receiver" or an argument index)
_PASSTHROUGH: dict[str, str | int] = {
    "to": "receiver", "cuda": "receiver", "eval": "receiver", "half": "receiver", "bfloat16": "receiver",
    "unwrap_model": 0, "get_peft_model": 0, "prepare_model_for_kbit_training": 0, "compile": 0,
}


def every_caller_agrees(ctx: FileContext, name: ast.Name, test, depth: int):
    """``test(ctx, arg, depth + 1)`` of what every caller in the file passes for the parameter ``name``;
    None unless there are callers and all of them answer."""
    func = ctx.enclosing_function(name)
    if func is None or name.id not in function_params(func):
        return None
    sites = call_sites(ctx, func)
    found = [test(ctx, argument_for(site, func, name.id), depth + 1) for site in sites]
    return found[0] if found and all(f is not None for f in found) else None


def decoder_only_origin(ctx: FileContext, expr: ast.AST | None, depth: int = 0) -> ast.Call | None:
    """The ``*ForCausalLM.from_pretrained(...)`` call the model ``expr`` comes from, if the scan can tell."""
    if expr is None or depth > MAX_DEPTH:
        return None
    bound = value(ctx, expr)
    if isinstance(bound, ast.Name) and bound is expr:
        return every_caller_agrees(ctx, bound, decoder_only_origin, depth)
    if not isinstance(bound, ast.Call):
        return None
    name = dotted(bound.func) or ""
    last = bound.func.attr if isinstance(bound.func, ast.Attribute) else name.rsplit(".", 1)[-1]
    if last in _PASSTHROUGH:
        where = _PASSTHROUGH[last]
        if where == "receiver":
            inner = bound.func.value if isinstance(bound.func, ast.Attribute) else None
        else:
            inner = bound.args[0] if bound.args else None
        return decoder_only_origin(ctx, inner, depth + 1)
    if last != "from_pretrained" or "." not in name:
        return None
    cls = name.rsplit(".", 2)[-2]
    if cls in ("PeftModel", "PeftModelForCausalLM"):
        return decoder_only_origin(ctx, argument(bound, 0, "model"), depth + 1)
    if cls == "AutoPeftModelForCausalLM" or _DECODER_ONLY.search(cls):
        return bound
    return None
