"""Label fractions and wave durations of the configured splits (raw records, before transforms)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ecgseg.config import load_config  # noqa: E402
from ecgseg.data import build_datasets  # noqa: E402
from ecgseg.data.synth import LABELS  # noqa: E402


def durations(mask: np.ndarray, label: int) -> list[int]:
    m = np.concatenate([[0], (mask == label).astype(np.int8), [0]])
    d = np.diff(m)
    return list(np.flatnonzero(d == -1) - np.flatnonzero(d == 1))


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    args = p.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    sets = build_datasets(cfg)
    for split in ("train", "val"):
        ds = sets[split]
        fr = ds.label_fractions()
        print(f"{split}: {len(ds)} records of {ds.masks.shape[-1]} samples; " +
              ", ".join(f"{n}={f:.3f}" for n, f in zip(LABELS, fr)))
    ds = sets["train"]
    for c in (1, 2, 3):
        d = [x for m in ds.masks for x in durations(m, c)]
        print(f"  {LABELS[c]:>4s}: {len(d)} waves, duration median {np.median(d) / ds.fs * 1000:.0f} ms")


if __name__ == "__main__":
    main()
