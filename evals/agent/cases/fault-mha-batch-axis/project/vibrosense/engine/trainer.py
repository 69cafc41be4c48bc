"""The training loop. Everything optional (LR stepping, logging, checkpoints, early stopping) is a callback."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch

from ..utils.logging import get_logger
from ..utils.misc import MeterDict, Stopwatch, move_to
from .callbacks import CallbackList

log = get_logger()


@dataclass
class TrainState:
    epoch: int = 0
    global_step: int = 0
    micro_step: int = 0
    best_metric: float | None = None
    should_stop: bool = False
    last_train: dict = field(default_factory=dict)
    last_val: dict = field(default_factory=dict)
    history: list = field(default_factory=list)


class Trainer:
    def __init__(self, cfg, model, loss_fn, optimizer, scheduler, train_loader, val_loader, evaluator,
                 callbacks=(), device: str = "cpu"):
        self.cfg = cfg
        self.model = model.to(device)
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.evaluator = evaluator
        self.device = device
        self.callbacks = CallbackList(list(callbacks))
        self.state = TrainState()
        tc = cfg.train
        self.max_epochs = int(tc.epochs)
        self.accum_steps = max(1, int(tc.get("accum_steps", 1)))
        self.clip_norm = tc.get("clip_grad_norm")
        self.max_steps = tc.get("max_steps")
        self.input_key = cfg.data.get("input_key", "inputs")
        self.target_key = cfg.data.get("target_key", "targets")

    # ------------------------------------------------------------------ public API
    def fit(self) -> TrainState:
        self.callbacks.call("on_fit_start", self)
        watch = Stopwatch()
        start_epoch = self.state.epoch
        for epoch in range(start_epoch, self.max_epochs):
            self.state.epoch = epoch
            self.callbacks.call("on_epoch_start", self)
            self.state.last_train = self.train_epoch()
            self.state.last_val = self.validate() if self.val_loader is not None else {}
            record = {"epoch": epoch + 1, "step": self.state.global_step, **self.state.last_train,
                      **self.state.last_val}
            self.state.history.append(record)
            self.callbacks.call("on_epoch_end", self, record)
            if self.state.should_stop or self._reached_max_steps():
                break
        self.state.epoch = min(self.state.epoch + 1, self.max_epochs)
        self.callbacks.call("on_fit_end", self)
        log.info("training finished in %.1fs, %d optimizer steps", watch.elapsed(), self.state.global_step)
        return self.state

    def validate(self) -> dict:
        self.callbacks.call("on_validation_start", self)
        results = self.evaluator.evaluate(self.model, self.val_loader, prefix="val")
        self.callbacks.call("on_validation_end", self, results)
        return results

    # ------------------------------------------------------------------ internals
    def _reached_max_steps(self) -> bool:
        return self.max_steps is not None and self.state.global_step >= int(self.max_steps)

    def compute_loss(self, batch: dict) -> tuple[torch.Tensor, dict]:
        outputs = self.model(batch[self.input_key])
        loss, parts = self.loss_fn(outputs, batch[self.target_key], batch)
        return loss, parts

    def train_epoch(self) -> dict:
        self.model.train()
        meters = MeterDict()
        self.optimizer.zero_grad(set_to_none=True)
        n_batches = len(self.train_loader)
        for i, batch in enumerate(self.train_loader):
            batch = move_to(batch, self.device)
            self.callbacks.call("on_batch_start", self, batch)
            loss, parts = self.compute_loss(batch)
            if not torch.isfinite(loss):
                self.callbacks.call("on_nonfinite_loss", self, batch, loss)
                self.optimizer.zero_grad(set_to_none=True)
                continue
            (loss / self.accum_steps).backward()
            self.state.micro_step += 1
            boundary = (i + 1) % self.accum_steps == 0 or (i + 1) == n_batches
            logs = {"loss": loss.detach(), **{k: v.detach() for k, v in parts.items()}}
            if boundary:
                self.callbacks.call("on_before_optimizer_step", self)
                if self.clip_norm:
                    gnorm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), float(self.clip_norm))
                    logs["grad_norm"] = gnorm.detach()
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.state.global_step += 1
                self.callbacks.call("on_optimizer_step", self)
            meters.update(logs, n=len(batch[self.target_key]))
            self.callbacks.call("on_batch_end", self, batch, logs)
            if self._reached_max_steps() or self.state.should_stop:
                break
        averages = meters.averages()
        if math.isnan(averages.get("loss", 0.0)):
            log.warning("epoch %d: no finite training loss", self.state.epoch + 1)
        return {f"train_{k}": v for k, v in averages.items()}
