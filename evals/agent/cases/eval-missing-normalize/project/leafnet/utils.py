from __future__ import annotations

import json
import os
import random

import torch


def seed_all(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def save_run(out_dir: str, model, history: list[dict], stats: dict) -> None:
    os.makedirs(out_dir, exist_ok=True)
    torch.save(model.state_dict(), os.path.join(out_dir, "model.pt"))
    with open(os.path.join(out_dir, "metrics.json"), "w") as f:
        json.dump({"final": history[-1], "history": history, "input_stats": stats}, f, indent=2)
