"""Per-group learning-rate check: build the default config's model, optimizer and schedule through
the project's own API, advance the schedule to the end of warmup (factor 1), and compare every
parameter group's LR with the LR its part should have: optim.lr * optim.<part>_lr_mult, where the
part (frontend / body / head) is read from the parameters the group holds.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from kwspot.config import load_config  # noqa: E402
from kwspot.data.datasets import n_classes  # noqa: E402
from kwspot.models import build_model  # noqa: E402
from kwspot.optim import build_optimizer, build_scheduler  # noqa: E402

cfg = load_config("configs/default.yaml")
model = build_model(cfg.model, n_classes())
part_of = {}
for name, p in model.named_parameters():
    top = name.split(".", 1)[0]
    part_of[id(p)] = top if top in ("frontend", "head") else "body"
optimizer = build_optimizer(model, cfg.optim)
scheduler = build_scheduler(optimizer, cfg.schedule, total_steps=12 * 37)
for _ in range(cfg.schedule.warmup_steps):
    optimizer.step()
    scheduler.step()
# at the end of warmup the factor is 1: every group should sit at its own configured LR
worst, rows = 0.0, {}
for group in optimizer.param_groups:
    parts = {part_of[id(p)] for p in group["params"]}
    for part in parts:
        expected = cfg.optim.lr * float(cfg.optim.get(f"{part}_lr_mult", 1.0))
        rel = abs(group["lr"] / expected - 1.0)
        worst = max(worst, rel)
        rows[part] = {"lr": group["lr"], "expected": expected}
print(json.dumps({"metric": "max_rel_error_group_lr_vs_config", "value": worst, "groups": rows,
                  "pass": bool(worst < 1e-6)}))
