import math

import torch
from torch import nn


class LinearWithLoRA(nn.Module):
    """Wraps a frozen nn.Linear and adds a low-rank update  W + (alpha / r) * B @ A."""

    def __init__(self, base_layer: nn.Linear, rank: int = 16, alpha: float = 16.0, dropout: float = 0.0):
        super().__init__()
        self.base_layer = base_layer
        self.base_layer.requires_grad_(False)
        self.rank = rank
        self.lora_alpha = alpha
        self.scaling = alpha / rank
        self.lora_A = nn.Parameter(torch.empty(rank, base_layer.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base_layer.out_features, rank))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))
        self.dropout = nn.Dropout(dropout) if dropout > 0 else nn.Identity()
        self.merged = False

    def set_lora_weights(self, A: torch.Tensor, B: torch.Tensor, alpha: float | None = None):
        with torch.no_grad():
            self.lora_A.copy_(A)
            self.lora_B.copy_(B)
        if alpha is not None:
            self.lora_alpha = alpha
            self.scaling = alpha / self.rank

    def forward(self, x):
        out = self.base_layer(x)
        if self.merged:
            return out
        return out + (self.dropout(x) @ self.lora_A.t() @ self.lora_B.t()) * self.scaling

    @torch.no_grad()
    def merge_lora_weights(self):
        if self.merged:
            return
        delta = (self.lora_B.to(self.base_layer.weight) @ self.lora_A.to(self.base_layer.weight)) * self.scaling
        self.base_layer.weight.data += delta
        self.merged = True

    @torch.no_grad()
    def unmerge_lora_weights(self):
        if not self.merged:
            return
        delta = (self.lora_B.to(self.base_layer.weight) @ self.lora_A.to(self.base_layer.weight)) * self.scaling
        self.base_layer.weight.data -= delta
        self.merged = False


def inject_lora(model: nn.Module, target_names=("to_q", "to_k", "to_v", "to_out"), rank=16, alpha=16.0):
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and child_name in target_names:
                setattr(module, child_name, LinearWithLoRA(child, rank=rank, alpha=alpha))
    return model


def lora_layers(model: nn.Module):
    return {name: m for name, m in model.named_modules() if isinstance(m, LinearWithLoRA)}
