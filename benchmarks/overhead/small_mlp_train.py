"""A small CPU training script for bench_trace_overhead.py: times its own steps after a warm-up.

Writes {"per_step_s": ...} to the path in BENCH_TIMING (if set).
"""
import json
import os
import sys
import time

import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else 200
HIDDEN = int(sys.argv[2]) if len(sys.argv) > 2 else 256
WARMUP = int(sys.argv[3]) if len(sys.argv) > 3 else 20
model = nn.Sequential(nn.Linear(64, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.CrossEntropyLoss()
data = [(torch.randn(128, 64), torch.randint(0, 10, (128,))) for _ in range(16)]
start = None
for step in range(STEPS):
    if step == WARMUP:
        start = time.perf_counter()
    x, y = data[step % len(data)]
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
per_step = (time.perf_counter() - start) / (STEPS - WARMUP)
if os.environ.get("BENCH_TIMING"):
    with open(os.environ["BENCH_TIMING"], "w") as fh:
        json.dump({"per_step_s": per_step}, fh)
