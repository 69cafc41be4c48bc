"""Minimal LoRA adapters for nn.Linear layers."""
import math

import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank: int = 4, alpha: float = 4.0):
        super().__init__()
        self.base = base
        self.rank = rank
        self.scaling = alpha / rank
        self.lora_down = nn.Parameter(torch.empty(rank, base.in_features))
        self.lora_up = nn.Parameter(torch.zeros(base.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_down, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + (x @ self.lora_down.t() @ self.lora_up.t()) * self.scaling


def inject_lora(model: nn.Module, target_names=("to_q", "to_k", "to_v", "to_out"), rank=4):
    for param in model.parameters():
        param.requires_grad_(False)
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name in target_names and isinstance(child, nn.Linear):
                setattr(module, child_name, LoRALinear(child, rank=rank))
    return model


def lora_state_dict(model: nn.Module):
    return {k: v.detach().cpu() for k, v in model.state_dict().items() if "lora_" in k}
