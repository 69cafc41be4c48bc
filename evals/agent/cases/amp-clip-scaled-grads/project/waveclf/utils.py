from __future__ import annotations

import json
import os
import random
import time

import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def get_device() -> str:
    return "cuda" if torch.cuda.is_available() else "cpu"


class Logger:
    def __init__(self, out_dir: str):
        os.makedirs(out_dir, exist_ok=True)
        self.path = os.path.join(out_dir, "log.txt")
        self.t0 = time.time()
        open(self.path, "w").close()

    def __call__(self, msg: str) -> None:
        line = f"[{time.time() - self.t0:7.1f}s] {msg}"
        print(line)
        with open(self.path, "a") as f:
            f.write(line + "\n")


def write_json(obj, path: str) -> None:
    with open(path, "w") as f:
        json.dump(obj, f, indent=2)
