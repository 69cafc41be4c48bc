"""Parameter count and CPU forward/backward time of the configured model."""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vibrosense.config import load_config  # noqa: E402
from vibrosense.models import build_model  # noqa: E402
from vibrosense.utils import count_parameters, format_count  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[])
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--repeats", type=int, default=5)
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    cfg = load_config(args.config, args.overrides)
    length = int(cfg.data.options.get("length", 256))
    channels = int(cfg.data.options.get("channels", 3))
    model = build_model(cfg, in_channels=channels, num_classes=5)
    print(f"{cfg.model.name}: {format_count(count_parameters(model))} parameters")
    x = torch.randn(args.batch, channels, length)
    for name, module in model.named_children():
        print(f"  {name:<12s} {format_count(count_parameters(module))}")
    t0 = time.perf_counter()
    for _ in range(args.repeats):
        model.zero_grad()
        model(x).logsumexp(dim=1).mean().backward()
    dt = (time.perf_counter() - t0) / args.repeats
    print(f"forward+backward, batch {args.batch}: {dt * 1000:.1f} ms")


if __name__ == "__main__":
    main()
