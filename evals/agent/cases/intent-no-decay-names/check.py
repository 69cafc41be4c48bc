"""Weight-decay grouping check: build the default model and optimizer through the project's API
and read the optimizer's parameter groups. Every parameter of a normalisation layer (LayerNorm
weight and bias) and every bias must sit in a group with weight_decay 0; every weight matrix of a
Linear layer must sit in a group with the configured (non-zero) weight decay.
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

from intentcls import config as config_lib  # noqa: E402
from intentcls.data import build_data  # noqa: E402
from intentcls.models import build_model  # noqa: E402
from intentcls.optim import build_optimizer  # noqa: E402

torch.manual_seed(0)
cfg = config_lib.load("configs/default.yaml")
_, _, tokenizer, names = build_data(cfg.data)
model = build_model(cfg.model, len(tokenizer), len(names), tokenizer.pad_id)
optimizer = build_optimizer(model, cfg.optim)
decay_of = {}
for group in optimizer.param_groups:
    for p in group["params"]:
        decay_of[id(p)] = group["weight_decay"]

should_not_decay, should_decay = {}, {}
for mod_name, module in model.named_modules():
    for p_name, p in module.named_parameters(recurse=False):
        full = f"{mod_name}.{p_name}" if mod_name else p_name
        if isinstance(module, nn.LayerNorm) or p_name == "bias":
            should_not_decay[full] = p
        elif isinstance(module, nn.Linear) and p_name == "weight":
            should_decay[full] = p
missing = [n for n, p in list(should_not_decay.items()) + list(should_decay.items()) if id(p) not in decay_of]
wrongly_decayed = sorted(n for n, p in should_not_decay.items() if decay_of.get(id(p), 0.0) != 0.0)
not_decayed = sorted(n for n, p in should_decay.items() if decay_of.get(id(p), 0.0) <= 0.0)
ok = not missing and not wrongly_decayed and not not_decayed and cfg.optim.weight_decay > 0
print(json.dumps({"metric": "norm_or_bias_params_with_weight_decay", "value": len(wrongly_decayed),
                  "wrongly_decayed": wrongly_decayed, "linear_weights_without_decay": not_decayed,
                  "missing_from_optimizer": missing, "pass": bool(ok)}))
