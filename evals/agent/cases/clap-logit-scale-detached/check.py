"""Learned-temperature check: build the default config's data, model and optimizer through the
project's own code (train.build_optimizer, clapmini.engine.Trainer) and run three training steps
with Trainer.train_step. The contrastive temperature (model.logit_scale) is an nn.Parameter in
the optimizer, so the loss must send it a gradient and the steps must move it. Reports the
absolute change of logit_scale over the three steps.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import importlib.util
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import torch  # noqa: E402

from clapmini.config import load_config  # noqa: E402
from clapmini.data import build_loaders  # noqa: E402
from clapmini.engine import Trainer  # noqa: E402
from clapmini.models import build_model  # noqa: E402
from clapmini.utils import seed_all  # noqa: E402

spec = importlib.util.spec_from_file_location("train_entry", os.path.join(project, "train.py"))
train_entry = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train_entry)

torch.set_num_threads(1)
cfg = load_config("configs/default.yaml", ["data.n_train=256", "data.n_val=64"])
seed_all(cfg.seed)
train_loader, val_loader, tok = build_loaders(cfg.data)
model = build_model(cfg.model, len(tok), tok.pad_id)
optimizer = train_entry.build_optimizer(model, cfg.optim)
in_optimizer = any(p is model.logit_scale for g in optimizer.param_groups for p in g["params"])
trainer = Trainer(model, optimizer, train_loader, val_loader, 1, cfg.optim.grad_clip)
model.train()
start = float(model.logit_scale.detach())
grads = []
batches = iter(train_loader)
for _ in range(3):
    trainer.train_step(next(batches))
    g = model.logit_scale.grad
    grads.append(0.0 if g is None else float(g.abs()))
change = abs(float(model.logit_scale.detach()) - start)
ok = in_optimizer and max(grads) > 0.0 and change > 0.0
print(json.dumps({"metric": "abs_change_of_logit_scale_after_3_steps", "value": change,
                  "max_abs_grad": max(grads), "in_optimizer": in_optimizer, "pass": bool(ok)}))
