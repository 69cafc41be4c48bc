"""Print a few augmented views of one training patch as ASCII art, to eyeball the augmentation.

    python tools/show_augment.py [--index 0] [--views 4]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from weavecheck.config import load_config  # noqa: E402
from weavecheck.data.pipeline import build_pipeline  # noqa: E402
from weavecheck.data.synth import CLASSES, make_split  # noqa: E402

RAMP = " .:-=+*#%@"


def ascii_art(img) -> list[str]:
    lo, hi = np.percentile(img, 1), np.percentile(img, 99)
    q = np.clip((img - lo) / max(hi - lo, 1e-6), 0, 0.999)
    return ["".join(RAMP[int(v * len(RAMP))] for v in row[::2]) for row in q[::2]]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--views", type=int, default=4)
    args = p.parse_args()
    cfg = load_config(args.config)
    images, labels = make_split(cfg.data.train_per_class, seed=cfg.data.seed)
    pipeline = build_pipeline(cfg.data.train_pipeline)
    rng = np.random.default_rng()
    views = [ascii_art(pipeline(images[args.index], rng)) for _ in range(args.views)]
    print(f"patch {args.index}: {CLASSES[labels[args.index]]}")
    for rows in zip(*views):
        print("   ".join(rows))


if __name__ == "__main__":
    main()
