"""A small low-rank adapter, injected into the attention projections of a HF encoder."""
import math

import torch
from torch import nn


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r: int = 8, alpha: int = 16, dropout: float = 0.1):
        super().__init__()
        self.base = base
        self.r = r
        self.scaling = alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.lora_dropout = nn.Dropout(dropout)
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))

    def forward(self, x):
        out = self.base(x)
        delta = self.lora_dropout(x) @ self.lora_A.t() @ self.lora_B.t()
        return out + delta * self.scaling


def inject_lora(model: nn.Module, targets=("query", "value"), r=8, alpha=16, dropout=0.1):
    replaced = 0
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name in targets and isinstance(child, nn.Linear):
                setattr(module, child_name, LoRALinear(child, r=r, alpha=alpha, dropout=dropout))
                replaced += 1
    return replaced


def freeze_all_but(model: nn.Module, keep=("lora_", "classifier")):
    trainable, total = 0, 0
    for name, p in model.named_parameters():
        p.requires_grad = any(k in name for k in keep)
        total += p.numel()
        trainable += p.numel() if p.requires_grad else 0
    print(f"trainable params: {trainable:,} / {total:,} ({100 * trainable / total:.2f}%)")
