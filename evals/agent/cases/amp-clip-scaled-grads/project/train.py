from __future__ import annotations

import argparse
import os

import torch

from waveclf.config import load_config
from waveclf.data import CLASSES, build_loaders
from waveclf.engine import evaluate, train_one_epoch
from waveclf.model import WaveCNN
from waveclf.utils import Logger, get_device, set_seed, write_json


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description="Waveform classifier")
    parser.add_argument("--config", default="configs/base.yaml")
    parser.add_argument("overrides", nargs="*", help="dotted overrides, e.g. train.amp=true optim.lr=0.1")
    args = parser.parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    set_seed(cfg.train.seed)
    device = get_device()
    log = Logger(cfg.train.out_dir)
    log(f"device={device} amp={cfg.train.amp}")

    train_loader, val_loader = build_loaders(cfg)
    model = WaveCNN(cfg.model.channels, len(CLASSES), cfg.model.dropout).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.optim.lr, momentum=cfg.optim.momentum,
                                weight_decay=cfg.optim.weight_decay, nesterov=True)
    scaler = torch.amp.GradScaler(device, enabled=cfg.train.amp)

    history = []
    for epoch in range(cfg.train.epochs):
        train_loss = train_one_epoch(model, train_loader, optimizer, scaler, cfg, device, epoch, log)
        val = evaluate(model, val_loader, device, cfg.train.amp)
        history.append({"epoch": epoch, "train_loss": train_loss, **{f"val_{k}": v for k, v in val.items()}})
        log(f"epoch {epoch} done | train loss {train_loss:.4f} | val loss {val['loss']:.4f} acc {val['acc']:.3f}")

    torch.save(model.state_dict(), os.path.join(cfg.train.out_dir, "model.pt"))
    metrics = {"history": history, "final": history[-1], "amp": cfg.train.amp}
    write_json(metrics, os.path.join(cfg.train.out_dir, "metrics.json"))
    return metrics


if __name__ == "__main__":
    main()
