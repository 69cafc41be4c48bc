"""Train a link predictor.

    python train.py                                  # configs/default.yaml
    python train.py --config configs/sage_mlp.yaml --set optim.lr=0.002
"""
import argparse
from pathlib import Path

import torch

from linkgraph.config import load_config
from linkgraph.data import build_datamodule
from linkgraph.engine import BestCheckpoint, EarlyStopping, HistoryLogger, Trainer
from linkgraph.models import build_model
from linkgraph.utils import get_logger, save_json, seed_everything


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/default.yaml")
    parser.add_argument("--set", dest="overrides", action="append", default=[])
    args = parser.parse_args(argv)

    cfg = load_config(args.config, args.overrides)
    seed_everything(cfg.seed)
    log = get_logger()
    torch.set_num_threads(1)

    dm = build_datamodule(cfg.data)
    log.info("graph: %s", dm.summary())
    model = build_model(cfg.model, dm.num_features)
    callbacks = [HistoryLogger(cfg.out_dir, every=cfg.eval.every * 2),
                 BestCheckpoint(cfg.out_dir, monitor="val_auc"),
                 EarlyStopping(monitor="val_auc", patience=cfg.eval.early_stop_patience)]
    trainer = Trainer(cfg, model, dm, callbacks)
    trainer.fit()

    val = trainer.evaluate("val")
    test = trainer.evaluate("test")
    log.info("best epoch %s", callbacks[1].best_epoch)
    log.info("val  %s", {k: round(v, 4) for k, v in val.items()})
    log.info("test %s", {k: round(v, 4) for k, v in test.items()})
    save_json({"val": val, "test": test, "config": cfg}, Path(cfg.out_dir) / "metrics.json")


if __name__ == "__main__":
    main()
