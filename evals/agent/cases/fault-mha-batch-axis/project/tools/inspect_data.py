"""Print the class balance of the configured splits and the dominant frequencies per class."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vibrosense.config import load_config  # noqa: E402
from vibrosense.data import build_datasets  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    p.add_argument("--top", type=int, default=4)
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    sets = build_datasets(cfg)
    sr = float(cfg.data.options.get("sample_rate", 512.0))
    for split in ("train", "val"):
        ds = sets[split]
        counts = ds.class_counts()
        print(f"{split}: n={len(ds)} " + " ".join(f"{c}={n}" for c, n in zip(ds.classes, counts)))
    ds = sets["train"]
    freqs = np.fft.rfftfreq(ds.windows.shape[-1], d=1.0 / sr)
    print("\ndominant frequencies (Hz) of the mean spectrum, channel 0:")
    for k, name in enumerate(ds.classes):
        x = ds.windows[ds.labels == k, 0]
        spec = np.abs(np.fft.rfft(x - x.mean(axis=-1, keepdims=True), axis=-1)).mean(axis=0)
        top = np.argsort(spec)[::-1][: args.top]
        print(f"  {name:>14s}: " + ", ".join(f"{freqs[i]:.0f}" for i in sorted(top)))
    item = sets["train"][0]
    print("\nfirst training item:", {k: tuple(v.shape) if hasattr(v, "shape") else v for k, v in item.items()})


if __name__ == "__main__":
    main()
