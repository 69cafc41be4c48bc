"""Embedding-gradient check: build the default model and data through the project's API, run one
forward/backward pass of the project's training loss on a large training batch, and record for
every nn.Embedding in the model which rows that batch looked up. Every looked-up row (a real,
observed category value) must receive a non-zero gradient; a row that is read but can never be
trained means that category's embedding is frozen at its initial value.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import torch
from torch import nn

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from adclick.config import load_config  # noqa: E402
from adclick.data import build_data  # noqa: E402
from adclick.engine import Trainer  # noqa: E402
from adclick.models import build_model  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
cfg = load_config("configs/default.yaml")
train_loader, _, encoder = build_data(cfg.data)
model = build_model(cfg.model, encoder.field_dims)
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.0))

used = {}


def remember(module, inputs, output):
    used.setdefault(module, set()).update(inputs[0].flatten().tolist())


handles = [m.register_forward_hook(remember) for m in model.modules() if isinstance(m, nn.Embedding)]
x, y = train_loader.dataset.tensors
x, y = x[:8192], y[:8192]
model.train()
model.zero_grad()
trainer.criterion(model(x), y).backward()
for h in handles:
    h.remove()

dead = []
total = 0
for module, rows in used.items():
    name = next(n for n, m in model.named_modules() if m is module)
    grad = module.weight.grad
    for r in sorted(rows):
        total += 1
        if grad is None or float(grad[r].abs().sum()) == 0.0:
            dead.append(f"{name}[{r}]")
print(json.dumps({"metric": "looked_up_embedding_rows_without_gradient", "value": len(dead), "dead_rows": dead,
                  "rows_checked": total, "pass": bool(total > 0 and not dead)}))
