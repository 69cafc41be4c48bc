"""Train an ECG delineation model (per-sample P / QRS / T labels).

    python train.py                                   # configs/default.yaml
    python train.py --config configs/experiments/bilstm.yaml
    python train.py --set train.epochs=5 --set model.depth=4 --set train.out_dir=runs/quick
    python train.py --resume runs/default/checkpoints/last.pt
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from ecgseg.config import config_hash, dump_config, load_config
from ecgseg.data import build_datasets, build_loaders
from ecgseg.engine import CheckpointManager, Evaluator, Trainer, build_callbacks
from ecgseg.losses import build_loss
from ecgseg.metrics import build_metrics
from ecgseg.models import build_model
from ecgseg.optim import build_optimizer, build_scheduler
from ecgseg.utils import seed_everything
from ecgseg.utils.logging import get_logger


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--resume", default=None, help="checkpoint to resume from")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    cfg = load_config(args.config, args.overrides)
    out_dir = Path(cfg.train.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    log = get_logger(log_file=out_dir / "train.log")
    dump_config(cfg, out_dir / "config.yaml")
    log.info("config %s (%s) -> %s", args.config, config_hash(cfg), out_dir)
    seed_everything(int(cfg.train.seed))
    torch.set_num_threads(int(cfg.train.get("threads", 1)))

    sets = build_datasets(cfg)
    loaders = build_loaders(cfg, sets)
    in_channels = sets["train"].signals.shape[1]
    classes = sets["train"].labels
    fractions = sets["train"].label_fractions()
    log.info("data: %d train / %d val records, label fractions %s", len(sets["train"]), len(sets["val"]),
             {c: round(float(f), 3) for c, f in zip(classes, fractions)})

    model = build_model(cfg, in_channels=in_channels, num_classes=len(classes))
    loss_fn = build_loss(cfg)
    optimizer = build_optimizer(model, cfg)
    scheduler = build_scheduler(optimizer, cfg, steps_per_epoch=len(loaders["train"]))
    evaluator = Evaluator(build_metrics(cfg.eval.metrics), loss_fn=loss_fn, device=args.device)
    manager = CheckpointManager(out_dir / "checkpoints", keep=int(cfg.train.get("keep_checkpoints", 2)))
    callbacks = build_callbacks(cfg, manager=manager, out_dir=str(out_dir))
    trainer = Trainer(cfg, model, loss_fn, optimizer, scheduler, loaders["train"], loaders["val"], evaluator,
                      callbacks=callbacks, device=args.device)
    if args.resume:
        manager.restore(trainer, args.resume)
    state = trainer.fit()
    final = state.history[-1] if state.history else {}
    log.info("final: %s", {k: round(v, 4) for k, v in final.items() if isinstance(v, float)})
    torch.save({"model": model.state_dict(), "config": cfg.to_dict(), "classes": list(classes)}, out_dir / "model.pt")
    return state


if __name__ == "__main__":
    main()
