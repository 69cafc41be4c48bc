"""Train a solubility (logS) regressor.

    python train.py                                       # configs/default.yaml
    python train.py --config configs/experiments/ft_transformer.yaml
    python train.py --set train.epochs=40 --set model.depth=4 --set train.out_dir=runs/deeper
    python train.py --resume runs/default/checkpoints/last.pt
"""
from __future__ import annotations

import argparse
from pathlib import Path

import torch

from molprop.config import config_hash, dump_config, load_config
from molprop.data import build_datasets, build_loaders
from molprop.engine import CheckpointManager, Evaluator, Trainer, build_callbacks
from molprop.losses import build_loss
from molprop.metrics import build_metrics, set_target_std
from molprop.models import build_model
from molprop.optim import build_optimizer, build_scheduler
from molprop.utils import seed_everything
from molprop.utils.logging import get_logger


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
    set_target_std(sets["target_scaler"].std)
    n_features = sets["train"].n_features
    log.info("data: %d train / %d val molecules, %d features, logS mean %.2f std %.2f", len(sets["train"]),
             len(sets["val"]), n_features, sets["target_scaler"].mean, sets["target_scaler"].std)

    model = build_model(cfg, n_features=n_features, n_bits=sets["train"].bits.shape[1])
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
    scaler, target = sets["descriptor_scaler"], sets["target_scaler"]
    torch.save({"model": model.state_dict(), "config": cfg.to_dict(),
                "descriptor_scaler": {"mean": scaler.mean.tolist(), "std": scaler.std.tolist()},
                "target_scaler": {"mean": target.mean, "std": target.std}}, out_dir / "model.pt")
    return state


if __name__ == "__main__":
    main()
