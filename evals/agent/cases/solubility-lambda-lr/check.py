"""LR check: the learning rate the optimizer actually uses under the default config must follow the configured
schedule: it peaks at optim.lr after warmup (within 10%) and decays to <= 10% of it by the end of the run.
value = peak LR seen by the optimizer / optim.lr.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import torch  # noqa: E402

from molprop.config import load_config  # noqa: E402
from molprop.models import build_model  # noqa: E402
from molprop.optim import build_optimizer, build_scheduler  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
cfg = load_config("configs/default.yaml")
steps_per_epoch = int(cfg.data.n_train) // int(cfg.data.batch_size)
model = build_model(cfg, n_features=1032, n_bits=1024)
optimizer = build_optimizer(model, cfg)
scheduler = build_scheduler(optimizer, cfg, steps_per_epoch=steps_per_epoch)
lrs = []
for _ in range(int(cfg.train.epochs) * steps_per_epoch):
    lrs.append(optimizer.param_groups[0]["lr"])
    optimizer.step()
    if scheduler is not None:
        scheduler.step()
base = float(cfg.optim.lr)
peak, last = max(lrs) / base, lrs[-1] / base
print(json.dumps({"metric": "peak_lr_over_configured_lr", "value": peak, "final_lr_over_configured_lr": last,
                  "pass": bool(0.9 <= peak <= 1.1 and last <= 0.1)}))
