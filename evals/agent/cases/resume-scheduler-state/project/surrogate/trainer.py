from __future__ import annotations

import json
import os

import torch
import torch.nn.functional as F

from surrogate.checkpoint import load_checkpoint, save_checkpoint
from surrogate.data import build_loaders
from surrogate.model import Surrogate
from surrogate.schedule import warmup_cosine


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        torch.manual_seed(cfg.seed)
        self.train_loader, self.val_loader = build_loaders(cfg)
        self.model = Surrogate(cfg.in_dim, cfg.width, cfg.depth)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
        steps_per_epoch = len(self.train_loader)
        self.scheduler = warmup_cosine(self.optimizer, int(cfg.warmup_epochs * steps_per_epoch),
                                       cfg.epochs * steps_per_epoch, cfg.min_lr_ratio)
        self.start_epoch, self.global_step, self.best_val = 0, 0, float("inf")
        self.log: list[dict] = []
        self.ckpt_path = os.path.join(cfg.ckpt_dir, "last.pt")
        self.log_path = os.path.join(cfg.out_dir, "metrics.json")
        if cfg.resume and os.path.exists(self.ckpt_path):
            info = load_checkpoint(self.ckpt_path, self.model, self.optimizer, self.scheduler)
            self.start_epoch = info["epoch"] + 1
            self.global_step = info["global_step"]
            self.best_val = info["best_val"]
            if os.path.exists(self.log_path):
                with open(self.log_path) as f:
                    self.log = json.load(f)["steps"]
            print(f"resumed from {self.ckpt_path} at epoch {self.start_epoch} (step {self.global_step})")

    @torch.no_grad()
    def validate(self) -> float:
        self.model.eval()
        total, n = 0.0, 0
        for x, y in self.val_loader:
            total += F.mse_loss(self.model(x), y, reduction="sum").item()
            n += len(y)
        self.model.train()
        return total / n

    def train_epoch(self, epoch: int) -> float:
        self.model.train()
        running = 0.0
        for x, y in self.train_loader:
            loss = F.mse_loss(self.model(x), y)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            self.global_step += 1
            running += loss.item()
            self.log.append({"step": self.global_step, "epoch": epoch, "loss": loss.item(),
                             "lr": self.optimizer.param_groups[0]["lr"]})
        return running / len(self.train_loader)

    def fit(self) -> dict:
        os.makedirs(self.cfg.out_dir, exist_ok=True)
        for epoch in range(self.start_epoch, self.cfg.epochs):
            train_loss = self.train_epoch(epoch)
            val = self.validate()
            self.best_val = min(self.best_val, val)
            print(f"epoch {epoch} | train mse {train_loss:.5f} | val mse {val:.5f} | "
                  f"lr {self.optimizer.param_groups[0]['lr']:.2e}")
            save_checkpoint(self.ckpt_path, self.model, self.optimizer, self.scheduler, epoch,
                            self.global_step, self.best_val)
            self.dump({"final_val": val, "best_val": self.best_val})
            if epoch == self.cfg.stop_after_epoch:
                print("stopping early (simulated preemption)")
                break
        return {"best_val": self.best_val}

    def dump(self, summary: dict) -> None:
        with open(self.log_path, "w") as f:
            json.dump({"summary": summary, "steps": self.log}, f)
