"""Message-graph leakage check: train the default config for two epochs through the project's own
Trainer while recording every edge set handed to the model's encoder (LinkModel.set_graph), then
evaluate on val and on test. The encoder may only propagate over edges whose labels are known at
that stage: no val or test positive edge during training and validation, no test positive edge
while scoring test. Reports the share of held-out positive edges visible to the encoder.
Usage: python check.py [PROJECT_DIR]   (prints one JSON line)
"""
import json
import os
import sys

project = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "project"))
sys.path.insert(0, project)
os.chdir(project)

import torch  # noqa: E402

from linkgraph.config import load_config  # noqa: E402
from linkgraph.data import build_datamodule  # noqa: E402
from linkgraph.data.splits import edge_keys  # noqa: E402
from linkgraph.engine import Trainer  # noqa: E402
from linkgraph.models import build_model  # noqa: E402
from linkgraph.utils import seed_everything  # noqa: E402

torch.set_num_threads(1)
cfg = load_config("configs/default.yaml", ["train.epochs=2", "eval.every=1"])
seed_everything(cfg.seed)
dm = build_datamodule(cfg.data)
model = build_model(cfg.model, dm.num_features)
seen = []
orig = model.set_graph


def recording_set_graph(edge_index, num_nodes, *args, **kwargs):
    seen.append(edge_index.detach().clone())
    return orig(edge_index, num_nodes, *args, **kwargs)


model.set_graph = recording_set_graph
trainer = Trainer(cfg, model, dm)
trainer.fit()
trainer.evaluate("val")
fit_graphs = list(seen)
seen.clear()
trainer.evaluate("test")
test_graphs = list(seen)

n = dm.num_nodes


def share_visible(graphs, held_out):
    if not graphs:
        return None
    held = set(edge_keys(held_out, n).tolist())
    worst = 0.0
    for g in graphs:
        keys = set(edge_keys(g, n).tolist())
        worst = max(worst, len(held & keys) / max(1, len(held)))
    return worst


held_fit = torch.cat([dm.split.val_pos, dm.split.test_pos], dim=1)
fit_share = share_visible(fit_graphs, held_fit)
test_share = share_visible(test_graphs or fit_graphs[-1:], dm.split.test_pos)
train_cover = share_visible(fit_graphs, dm.split.train_pos)
ok = fit_share is not None and fit_share == 0.0 and test_share == 0.0 and train_cover is not None and train_cover > 0.5
print(json.dumps({"metric": "share_of_heldout_positive_edges_in_message_graph", "value": fit_share,
                  "test_edges_visible_at_test": test_share, "train_edges_in_message_graph": train_cover,
                  "pass": bool(ok)}))
