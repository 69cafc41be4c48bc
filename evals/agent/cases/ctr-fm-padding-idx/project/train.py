"""Train a CTR model on the simulated logs and keep the best-AUC checkpoint.

    python train.py [--config configs/default.yaml] [--set model.embed_dim=16 ...]
"""
import argparse
import json
import logging
from pathlib import Path

import torch

from adclick.config import load_config
from adclick.data import build_data
from adclick.engine import ProgressLogger, SaveBest, Trainer
from adclick.models import build_model


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args()
    cfg = load_config(args.config, args.overrides)

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    torch.set_num_threads(1)
    torch.manual_seed(cfg.run.seed)

    train_loader, val_loader, encoder = build_data(cfg.data)
    logging.info("train %d  val %d  field dims %s", len(train_loader.dataset), len(val_loader.dataset),
                 encoder.field_dims)
    model = build_model(cfg.model, encoder.field_dims)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.optim.lr, weight_decay=cfg.optim.weight_decay)
    saver = SaveBest(cfg.run.out_dir, extra={"field_dims": encoder.field_dims, "config": cfg})
    trainer = Trainer(model, optimizer, callbacks=[ProgressLogger(cfg.run.log_every), saver])
    final = trainer.fit(train_loader, val_loader, cfg.optim.epochs)

    summary = {"best_epoch": saver.best_epoch, "best_val_auc": saver.best_auc, "last_epoch": final}
    Path(cfg.run.out_dir, "summary.json").write_text(json.dumps(summary, indent=2))
    logging.info("best val AUC %.4f at epoch %d", saver.best_auc, saver.best_epoch)


if __name__ == "__main__":
    main()
