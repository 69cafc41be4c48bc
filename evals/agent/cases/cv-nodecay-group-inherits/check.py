"""Weight-decay exclusion check: build the default config's model and optimizer through the
project's own factories (as train.py does), give every parameter a zero gradient and take one
optimizer step. With optim.filter_bias_and_norm: true, the biases and normalisation scales/shifts
must not move (no decay on them), while conv/linear kernels must still shrink (decay is on).
Reports the largest relative change of a bias/norm parameter.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import torch  # noqa: E402

from shapecls.config import load  # noqa: E402
from shapecls.models import build_model  # noqa: E402
from shapecls.optim import build_optimizer  # noqa: E402
from shapecls.utils import set_seed  # noqa: E402

torch.set_num_threads(1)
cfg = load("configs/default.yaml")
set_seed(cfg.seed)
model = build_model(cfg.model)
with torch.no_grad():
    for p in model.parameters():
        if p.ndim <= 1:
            p.uniform_(0.5, 1.5)
optimizer = build_optimizer(model, cfg.optim, cfg.data.batch_size)
before = {n: p.detach().clone() for n, p in model.named_parameters()}
for p in model.parameters():
    p.grad = torch.zeros_like(p)
optimizer.step()

norm_bias, kernels = [], []
for name, p in model.named_parameters():
    rel = float(((p.detach() - before[name]).abs() / before[name].abs().clamp(min=1e-12)).max())
    (norm_bias if p.ndim <= 1 else kernels).append((name, rel))
worst_name, worst = max(norm_bias, key=lambda t: t[1])
kernel_shrink = min(r for _, r in kernels)
ok = bool(cfg.optim.filter_bias_and_norm) and worst == 0.0 and kernel_shrink > 0.0
print(json.dumps({"metric": "max_rel_change_of_bias_norm_params_after_zero_grad_step", "value": worst,
                  "worst_param": worst_name, "min_rel_shrink_of_kernels": kernel_shrink,
                  "pass": ok}))
