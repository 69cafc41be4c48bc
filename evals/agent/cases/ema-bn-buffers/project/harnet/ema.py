"""Exponential moving average of model weights, used for evaluation and export."""
from __future__ import annotations

import copy

import torch
from torch import nn


class ModelEma:
    """Keeps a shadow copy of `model` whose weights trail the live weights.

    With `warmup`, the effective decay grows as (1 + n) / (10 + n) until it reaches `decay`, so the
    average does not stay anchored to the random initialisation during the first few hundred steps.
    """

    def __init__(self, model: nn.Module, decay: float = 0.999, warmup: bool = True):
        self.module = copy.deepcopy(model).eval()
        for p in self.module.parameters():
            p.requires_grad_(False)
        self.decay = decay
        self.warmup = warmup
        self.num_updates = 0

    def current_decay(self) -> float:
        if not self.warmup:
            return self.decay
        return min(self.decay, (1 + self.num_updates) / (10 + self.num_updates))

    @torch.no_grad()
    def update(self, model: nn.Module) -> None:
        self.num_updates += 1
        d = self.current_decay()
        for ema_p, p in zip(self.module.parameters(), model.parameters()):
            ema_p.lerp_(p.detach(), 1.0 - d)

    def state_dict(self) -> dict:
        return {"module": self.module.state_dict(), "num_updates": self.num_updates}

    def load_state_dict(self, state: dict) -> None:
        self.module.load_state_dict(state["module"])
        self.num_updates = state["num_updates"]
