"""Where gradient clipping falls in the step, and backward passes that no optimizer step ever used (child side).

Stdlib + torch only. ``clip_grad_norm_`` / ``clip_grad_value_`` are wrapped: each call made after the first
optimizer step is counted, and counted apart when no backward pass ran since the last optimizer step (the clip
then acts on gradients the step already used, and the next ``zero_grad`` discards). At the end of the run the
number of optimizers built and backward passes seen is kept, for a script that trains without ever stepping, and
the size and options of each optimizer's parameter groups.
"""

from __future__ import annotations

from typing import Any

CLIP_FUNCTIONS = ("clip_grad_norm_", "clip_grad_value_")
GROUP_OPTIONS = ("lr", "weight_decay")


class LoopOrderWatch:
    def __init__(self, sequence) -> None:
        self._sequence = sequence  # the trace observer's events since the last optimizer step
        self.clips = 0
        self.clips_after_step = 0
        self.first_after_step: int | None = None
        self.optimizers_built = 0
        self.backwards_without_step = 0
        self.optimizer_groups: list[dict] = []
        self.ended: str | None = None  # how the script ended ('finished': it ran to its end)

    def patches(self) -> list:
        import torch
        import torch.nn.utils.clip_grad as clip_mod

        return [(owner, name, self._wrap) for owner in (torch.nn.utils, clip_mod) for name in CLIP_FUNCTIONS
                if hasattr(owner, name)]

    def _wrap(self, runner: Any, original: Any):
        watch = self

        def clip(*args, **kwargs):
            if not runner._muted and runner.step >= 1 and runner.primary_optimizer is not None:
                watch.clips += 1
                if "B" not in watch._sequence():
                    watch.clips_after_step += 1
                    if watch.first_after_step is None:
                        watch.first_after_step = runner.step
            return original(*args, **kwargs)

        return clip

    def on_end(self, runner: Any, sequences: list, reason: str) -> None:
        self.ended = reason
        self.optimizers_built = len(runner.optimizers)
        for opt in runner.optimizers[:5]:  # each group's size and options: a filter that put nothing in a group
            groups = [{"params": len(g["params"]), **{k: g.get(k) for k in GROUP_OPTIONS if isinstance(g.get(k), (int, float))}}
                      for g in getattr(opt, "param_groups", [])[:20]]
            self.optimizer_groups.append({"type": type(opt).__name__, "groups": groups})
        if runner.step == 0:
            self.backwards_without_step = sum(s.count("B") for s in sequences)

    def result(self) -> dict:
        return {"clips": self.clips, "clips_after_step": self.clips_after_step, "first_after_step": self.first_after_step,
                "optimizers_built": self.optimizers_built, "backwards_without_step": self.backwards_without_step, "ended": self.ended,
                "optimizer_groups": self.optimizer_groups}
