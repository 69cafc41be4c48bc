import copy
from typing import Iterable

import torch


class EMAModel:
    """Exponential moving average of model parameters, used for evaluation and export."""

    def __init__(self, parameters: Iterable[torch.nn.Parameter], decay: float = 0.9999,
                 warmup_steps: int = 0):
        parameters = list(parameters)
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.decay = decay
        self.warmup_steps = warmup_steps
        self.optimization_step = 0

    def get_decay(self, step: int) -> float:
        if step <= self.warmup_steps:
            return 0.0
        # ramp up so the average is not dominated by the random init early on
        return min(self.decay, (1 + step) / (10 + step))

    @torch.no_grad()
    def step(self, parameters: Iterable[torch.nn.Parameter]):
        self.optimization_step += 1
        beta = self.get_decay(self.optimization_step)
        for s_param, param in zip(self.shadow_params, parameters):
            if param.requires_grad:
                s_param.copy_((1 - beta) * param + beta * s_param)
            else:
                s_param.copy_(param)

    def copy_to(self, parameters: Iterable[torch.nn.Parameter]):
        for s_param, param in zip(self.shadow_params, parameters):
            param.data.copy_(s_param.to(param.device).data)

    def store(self, parameters: Iterable[torch.nn.Parameter]):
        self.collected_params = [p.clone() for p in parameters]

    def restore(self, parameters: Iterable[torch.nn.Parameter]):
        for c_param, param in zip(self.collected_params, parameters):
            param.data.copy_(c_param.data)

    def state_dict(self):
        return {"decay": self.decay, "optimization_step": self.optimization_step,
                "shadow_params": copy.deepcopy(self.shadow_params)}
