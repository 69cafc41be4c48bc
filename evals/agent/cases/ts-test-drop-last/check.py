"""Test-metric coverage check: train the default forecaster briefly through the project's API,
then compare the test MSE that the project's evaluate() reports on its test loader with the MSE
of the same model over every window of the test segment (at the default eval batch size and at
batch size 100). The reported number must cover all test windows and equal the whole-set value.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

import torch

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

from gridcast.config import load_config  # noqa: E402
from gridcast.data import build_splits, make_loader  # noqa: E402
from gridcast.engine import evaluate  # noqa: E402
from gridcast.models import build_model  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
cfg = load_config("configs/default.yaml")
splits = build_splits(cfg.data)
model = build_model(cfg.model, cfg.data)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train = torch.utils.data.DataLoader(splits.train, batch_size=64, shuffle=True)
for history, future in train:
    loss = torch.nn.functional.mse_loss(model(history), future)
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
test = splits.test
with torch.no_grad():
    sq, n = 0.0, 0
    for i in range(0, len(test), 256):
        idx = range(i, min(i + 256, len(test)))
        hist = torch.stack([test[j][0] for j in idx])
        fut = torch.stack([test[j][1] for j in idx])
        sq += float(((model(hist) - fut) ** 2).sum())
        n += fut.numel()
reference = sq / n
results = {}
for bs in (cfg.data.eval_batch_size, 100):
    cfg.data.eval_batch_size = bs
    results[bs] = evaluate(model, make_loader(test, "test", cfg.data))
err = max(abs(r["mse"] - reference) / reference for r in results.values())
missing = max(len(test) - r["windows"] for r in results.values())
ok = err < 1e-5 and missing == 0
print(json.dumps({"metric": "rel_error_reported_vs_full_test_mse", "value": err, "reference_mse": reference,
                  "reported": {str(k): v["mse"] for k, v in results.items()}, "test_windows": len(test),
                  "windows_missing": missing, "pass": bool(ok)}))
