"""Causal leakage on the traced run's own model and batch (child side, stdlib + torch only).

Runs in every trace (and so in ``mlsleuth check``): when the loss targets of the first step are the model's
integer inputs shifted by one position (next-token prediction), the model must be causal, so the diagnose
battery's causal-leakage measurement runs on the first (model, batch) pair trace saw, without a setup function.
Otherwise it says why it did not run. The alignment is read from the loss calls themselves, in both shapes real
code has: one target per input position (``y = seq[:, 1:]`` for ``x = seq[:, :-1]``, the last target past the
input's end), or one per position but the last (the logits cut with ``[:, :-1]`` and scored against
``x[:, 1:]``, as models that shift internally do).
"""

from __future__ import annotations

from typing import Any

import probes

MIN_SHIFT_MATCH = 0.8  # share of positions where target[t] == input[t + 1]
MIN_STEPS = 4
MAX_TARGETS = 4  # integer loss targets of the first step kept (a model may have auxiliary losses)


class CausalProbe:
    def __init__(self) -> None:
        self.targets: list = []
        self.result: dict | None = None

    def see_target(self, target: Any) -> None:
        """Keep the first few integer loss targets (called from the loss hook)."""
        if len(self.targets) < MAX_TARGETS and not target.is_floating_point() and target.numel() > 0:
            self.targets.append(target.detach())

    def run(self, runner: Any, captured: tuple | None) -> None:
        if self.result is not None:
            return
        if captured is None:
            self.result = {"skipped": "no model forward with inputs was seen in the first step"}
            return
        root, inputs = captured
        x = inputs[0] if inputs else None
        whys = [_why_not_next_token(x, target) for target in self.targets] or [_why_not_next_token(x, None)]
        why = None if None in whys else whys[0]
        if why:
            self.result = {"skipped": why}
            return
        import diagnose_checks
        from setup_contract import call_model

        try:
            with runner.suspended():
                self.result = diagnose_checks.causal_leakage(root, inputs, 1, call_model)
        except Exception as exc:  # the user's model: a probe failing must not end the run
            self.result = {"skipped": f"the probe's forward pass raised {type(exc).__name__}: {exc}"[:300]}
        self.result["root"] = runner.root_label(probes.unwrapped_call(root))  # a keyword call's wrapper: the model
        self.result["reason"] = "the loss targets are the inputs shifted by one position (next-token prediction)"


def _why_not_next_token(x: Any, target: Any) -> str | None:
    """None when ``target`` is ``x`` shifted left by one; else why the model need not be causal."""
    if x is None or not hasattr(x, "dim"):
        return "the model's first input is not a tensor"
    if x.is_floating_point() or x.dim() != 2:
        return f"the model's first input is not a (batch, time) tensor of token ids (shape {list(x.shape)}, dtype {x.dtype})"
    if int(x.shape[1]) < MIN_STEPS:
        return f"the sequences are shorter than {MIN_STEPS} tokens"
    if target is None:
        return "no integer loss target was seen in the first step"
    batch, steps = int(x.shape[0]), int(x.shape[1])
    if target.numel() == x.numel():  # one target per input position: target[t] should be x[t + 1]
        y = target.reshape(x.shape)
        match = float((y[:, :-1] == x[:, 1:]).float().mean())
    elif target.numel() == batch * (steps - 1):  # the last position cut off: target[t] should be x[t + 1] too
        y = target.reshape(batch, steps - 1)
        match = float((y == x[:, 1:]).float().mean())
    else:
        return "the loss targets are not one token per input position, so nothing says the model must be causal"
    if match < MIN_SHIFT_MATCH:
        return (f"the loss targets are not the inputs shifted by one position ({match:.0%} of positions match), so nothing "
                f"says the model must be causal")
    return None
