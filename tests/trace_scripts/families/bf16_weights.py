"""A small MLP trained with weights cast to bfloat16 (argv 'bf16', the bug) or float32 weights under bf16 autocast."""
import sys

import torch
from torch import nn

mode = sys.argv[1] if len(sys.argv) > 1 else "bf16"
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(32, 64), nn.LayerNorm(64), nn.GELU(), nn.Linear(64, 8))
if mode == "bf16":
    model = model.to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
for _ in range(60):
    x = torch.randn(64, 32)
    y = x[:, :8].argmax(1)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=(mode != "bf16")):
        logits = model(x.to(torch.bfloat16) if mode == "bf16" else x)
    loss = nn.functional.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
