"""The ``split-redrawn-on-resume`` rule (``mlsleuth/scan/rules/reproducibility/split_redrawn_on_resume.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"split-redrawn-on-resume"}

CONFIG = """
from dataclasses import dataclass
from typing import Optional


@dataclass
class TrainerConfig:
    val_fraction: float = 0.1
    seed: Optional[int] = None  # expect: split-redrawn-on-resume
    resume_ckpt_path: Optional[str] = None
"""

SPLITS = """
import numpy as np


def make_training_splits(frames, val_fraction, seed=None):
    rng = np.random.default_rng(seed)
    idx = rng.permutation(len(frames))
    n_val = max(1, int(len(idx) * val_fraction))
    return [frames[i] for i in idx[n_val:]], [frames[i] for i in idx[:n_val]]
"""

TRAINER = """
import torch
from config import TrainerConfig
from splits import make_training_splits


class Trainer:
    def __init__(self, cfg: TrainerConfig, labels, model):
        self.train_frames, self.val_frames = make_training_splits(labels, cfg.val_fraction, seed=cfg.seed)
        if cfg.resume_ckpt_path:
            model.load_state_dict(torch.load(cfg.resume_ckpt_path)["model"])
"""


def test_config_seed_none_reaches_the_split_of_a_resuming_trainer(tmp_path):
    check_project(tmp_path, {"config.py": CONFIG, "splits.py": SPLITS, "trainer.py": TRAINER}, RULE)


def test_train_test_split_with_argparse_default_none():
    check(
        """
        import argparse
        import torch
        from sklearn.model_selection import train_test_split

        p = argparse.ArgumentParser()
        p.add_argument("--seed", type=int, default=None)  # expect: split-redrawn-on-resume
        p.add_argument("--resume", default="")
        args = p.parse_args()

        def split_data(x, y):
            return train_test_split(x, y, test_size=0.2, random_state=args.seed)

        def main(model):
            if args.resume:
                model.load_state_dict(torch.load(args.resume))
        """,
        RULE,
    )


def test_fixed_seed_saved_split_or_no_resume_is_fine(tmp_path):
    seeded = CONFIG.replace("seed: Optional[int] = None  # expect: split-redrawn-on-resume", "seed: Optional[int] = 42")
    check_project(tmp_path / "seeded", {"config.py": seeded, "splits.py": SPLITS, "trainer.py": TRAINER}, RULE)
    saved = """
    import json
    import os
    import numpy as np


    def get_or_make_splits(n, val_fraction, run_dir, seed=None):
        path = os.path.join(run_dir, "split.json")
        if os.path.exists(path):
            with open(path) as f:
                return json.load(f)
        idx = np.random.default_rng(seed).permutation(n).tolist()
        return idx[int(n * val_fraction):], idx[:int(n * val_fraction)]
    """
    trainer = TRAINER.replace("make_training_splits(labels, cfg.val_fraction, seed=cfg.seed)",
                              "get_or_make_splits(len(labels), cfg.val_fraction, 'runs', seed=cfg.seed)").replace(
        "from splits import make_training_splits", "from splits import get_or_make_splits")
    check_project(tmp_path / "saved", {"config.py": CONFIG.replace("  # expect: split-redrawn-on-resume", ""),
                                       "splits.py": saved, "trainer.py": trainer}, RULE)
    check(
        """
        import numpy as np
        import torch

        def train(model, data, seed=None, resume=None):   # batch order, not a split
            rng = np.random.RandomState(seed)
            rng.shuffle(data)
            if resume:
                model.load_state_dict(torch.load(resume))
        """,
        RULE,
    )
    no_resume = "from splits import make_training_splits\n\ndef run(cfg, labels):\n    return make_training_splits(labels, 0.1, seed=cfg.seed)\n"
    check_project(tmp_path / "fresh", {"config.py": CONFIG.replace("  # expect: split-redrawn-on-resume", "").replace(
        "    resume_ckpt_path: Optional[str] = None\n", ""), "splits.py": SPLITS, "trainer.py": no_resume}, RULE)
