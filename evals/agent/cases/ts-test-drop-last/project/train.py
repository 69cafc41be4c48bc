"""Train a forecaster and report its test errors.

    python train.py [--config configs/default.yaml] [--set optim.lr=1e-3 ...]
"""
import argparse
from pathlib import Path

import torch

from gridcast.config import as_dict, load_config
from gridcast.data import build_loaders
from gridcast.engine import BestCheckpoint, EarlyStopping, EpochDecay, History, Trainer, evaluate
from gridcast.losses import build_loss
from gridcast.models import build_model
from gridcast.utils import get_logger, seed_everything, write_json


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()

    cfg = load_config(args.config, args.overrides)
    torch.set_num_threads(1)
    seed_everything(cfg.run.seed)
    logger = get_logger()

    loaders, splits = build_loaders(cfg.data)
    logger.info("windows: train %d  val %d  test %d", len(splits.train), len(splits.val), len(splits.test))
    model = build_model(cfg.model, cfg.data)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    best = BestCheckpoint(cfg.run.out_dir)
    history = History(logger)
    callbacks = [EpochDecay(cfg.optim.lr_decay), best, EarlyStopping(cfg.run.patience), history]
    trainer = Trainer(model, optimizer, build_loss(cfg.optim.loss), callbacks,
                      grad_clip=cfg.optim.grad_clip, log_every=cfg.run.log_every, logger=logger)
    trainer.fit(loaders["train"], loaders["val"], cfg.optim.epochs)

    model.load_state_dict(torch.load(best.path)["model"])
    test = evaluate(model, loaders["test"])
    logger.info("best epoch %d  test mse %.4f  test mae %.4f", best.best_epoch, test["mse"], test["mae"])
    write_json(Path(cfg.run.out_dir) / "results.json",
               {"config": as_dict(cfg), "best_epoch": best.best_epoch, "history": history.rows,
                "test": test, "scaler": splits.scaler.state_dict()})


if __name__ == "__main__":
    main()
