"""python train.py [--config configs/default.yaml] [--opt optim.base_lr=0.2 ...]"""
import argparse
from pathlib import Path

import torch

from shapecls.config import load
from shapecls.data import build_loaders
from shapecls.engine import CheckpointHook, EvalHook, LoggerHook, LRSchedulerHook, Trainer, evaluate
from shapecls.losses import build_criterion
from shapecls.models import build_model
from shapecls.optim import build_optimizer, build_scheduler
from shapecls.utils import Timer, dump_json, set_seed


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--opt", action="append", default=[])
    args = ap.parse_args(argv)
    cfg = load(args.config, args.opt)
    set_seed(cfg.seed)
    torch.set_num_threads(1)

    train_loader, val_loader = build_loaders(cfg.data)
    model = build_model(cfg.model)
    optimizer = build_optimizer(model, cfg.optim, cfg.data.batch_size)
    scheduler = build_scheduler(optimizer, cfg.sched, cfg.epochs, len(train_loader))
    hooks = [LRSchedulerHook(scheduler), EvalHook(val_loader, every=2),
             CheckpointHook(cfg.out_dir), LoggerHook(cfg.out_dir)]
    trainer = Trainer(model, optimizer, build_criterion(cfg.loss), train_loader, cfg.epochs,
                      cfg.num_classes, hooks, grad_clip=cfg.grad_clip)
    with Timer() as t:
        trainer.run()
    final = evaluate(model, val_loader, cfg.num_classes)
    print(f"done in {t.seconds:.1f}s  val top1={final['top1']:.4f} "
          f"mean_class_acc={final['mean_class_acc']:.4f}")
    dump_json({"final": final, "config": cfg}, Path(cfg.out_dir) / "result.json")


if __name__ == "__main__":
    main()
