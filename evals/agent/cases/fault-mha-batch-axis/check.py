"""Input-dependence check on the default model (random init, eval mode): different windows must get different
logits, and a window's logits must not depend on the other windows in its batch.
value = largest logit difference between 8 random windows each scored alone (0 means the prediction ignores the
input); pass needs value > 1e-3 and batched-vs-alone differences < 1e-4.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import torch  # noqa: E402

from vibrosense.config import load_config  # noqa: E402
from vibrosense.models import build_model  # noqa: E402

torch.manual_seed(0)
torch.set_num_threads(1)
cfg = load_config("configs/default.yaml")
model = build_model(cfg, in_channels=3, num_classes=5).eval()
x = torch.randn(8, 3, 256)
with torch.no_grad():
    alone = torch.cat([model(x[i:i + 1]) for i in range(len(x))])
    batched = model(x)
spread = float((alone - alone[:1]).abs().max())
batch_effect = float((batched - alone).abs().max())
print(json.dumps({"metric": "max_logit_difference_between_windows", "value": spread,
                  "batch_effect": batch_effect, "pass": bool(spread > 1e-3 and batch_effect < 1e-4)}))
