"""A small transformer-like block trained with AdamW and a "no weight decay for biases and norms" group split.

argv: 'filter-misses' (the no-decay filter looks for "LayerNorm.weight" and "LayerNorm.bias" in names the model does not
use: the no-decay group is empty, the bug), 'filter-matches' (the split by p.ndim < 2: correct), 'per-block'
(one group per block, all with the same settings, one block without parameters: correct).
"""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "filter-misses"
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(8)
        self.proj = nn.Linear(8, 8, bias=False)

    def forward(self, x):
        return x + self.proj(self.ln_1(x))


model = nn.Sequential(Block(), nn.GELU(), Block(), nn.Linear(8, 2, bias=False))
named = list(model.named_parameters())
if mode == "per-block":
    groups = [{"params": list(m.parameters()), "weight_decay": 0.01} for m in model]
else:
    if mode == "filter-misses":
        skip = [n for n, _ in named if any(k in n for k in ("LayerNorm.bias", "LayerNorm.weight"))]
    else:
        skip = [n for n, p in named if p.ndim < 2]
    groups = [{"params": [p for n, p in named if n not in skip], "weight_decay": 0.01},
              {"params": [p for n, p in named if n in skip], "weight_decay": 0.0}]
optimizer = torch.optim.AdamW(groups, lr=1e-3)
for step in range(6):
    x = torch.randn(16, 8)
    loss = nn.functional.cross_entropy(model(x), (x[:, 0] > 0).long())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
