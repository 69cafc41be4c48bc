"""Print (or plot) one record of a split with its annotation, before and after the split's transforms.

    python tools/show_sample.py --index 3 [--split train] [--png sample.png]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ecgseg.config import load_config  # noqa: E402
from ecgseg.data import build_datasets  # noqa: E402

SYMBOLS = ".PQT"


def strip(mask: np.ndarray, width: int = 128) -> str:
    step = max(1, len(mask) // width)
    return "".join(SYMBOLS[int(np.bincount(mask[i:i + step]).argmax())] for i in range(0, len(mask), step))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--split", default="train", choices=["train", "val"])
    p.add_argument("--index", type=int, default=0)
    p.add_argument("--png", default=None)
    args = p.parse_args(argv)
    cfg = load_config(args.config, ["data.n_train=32", "data.n_val=32"])
    ds = build_datasets(cfg)[args.split]
    raw_sig, raw_mask = ds.signals[args.index][0], ds.masks[args.index]
    item = ds[args.index]
    sig, mask = np.asarray(item["inputs"])[0], np.asarray(item["targets"])
    print(f"raw record: {len(raw_sig)} samples, label strip:\n{strip(raw_mask)}")
    print(f"\nafter {args.split} transforms: {len(sig)} samples, label strip:\n{strip(mask)}")
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(2, 1, figsize=(10, 4))
        for ax, s, m, title in ((axes[0], raw_sig, raw_mask, "raw"), (axes[1], sig, mask, args.split)):
            ax.plot(s, lw=0.8, color="k")
            for c, color in ((1, "tab:green"), (2, "tab:red"), (3, "tab:blue")):
                ax.fill_between(np.arange(len(m)), s.min(), s.max(), where=m == c, color=color, alpha=0.2)
            ax.set_title(title)
        fig.tight_layout()
        fig.savefig(args.png, dpi=120)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
