import os
from copy import deepcopy

import numpy as np
import torch
from torch import nn


class BaseTrainer:
    """Generic fit loop with manual plateau LR reduction and early stopping."""

    def __init__(self, train_args: dict, model: nn.Module, homepath: str = "./",
                 device: str = "cpu"):
        self.train_args = {
            "lr": 1e-3,
            "max_epoch": 100,
            "reducelr_patience": 4,
            "reducelr_increment": 0.1,
            "earlystop_patience": 12,
            "min_lr": 1e-8,
            **train_args,
        }
        self.model = model.to(device)
        self.device = device
        self.savepath = os.path.join(homepath, "checkpoints")
        os.makedirs(self.savepath, exist_ok=True)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.train_args["lr"])
        self.best_model = None
        self.history = []

    # subclasses implement the actual loss
    def run_one_batch(self, batch, train=True):
        raise NotImplementedError

    def _run_epoch(self, loader, train=True):
        self.model.train(train)
        losses = []
        with torch.set_grad_enabled(train):
            for batch in loader:
                loss = self.run_one_batch(batch, train=train)
                if train:
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
                losses.append(loss.item())
        return float(np.mean(losses))

    def _reduce_lr(self):
        for group in self.optimizer.param_groups:
            group["lr"] = max(group["lr"] * self.train_args["reducelr_increment"],
                              self.train_args["min_lr"])

    def save_checkpoint(self):
        torch.save(self.best_model.state_dict(), os.path.join(self.savepath, "best_model.pt"))

    def fit(self, train_loader, val_loader):
        best_vloss = torch.inf
        best_epoch = 0
        count_lr_no_improve = 0
        for current_epoch in range(self.train_args["max_epoch"]):
            _tloss = self._run_epoch(train_loader, train=True)
            _vloss = self._run_epoch(val_loader, train=False)
            self.history.append((current_epoch, _tloss, _vloss))
            print(f"epoch {current_epoch}: train {_tloss:.4f} val {_vloss:.4f}")

            if _vloss < best_vloss:
                best_vloss = _vloss
                best_epoch = current_epoch
                self.best_model = deepcopy(self.model)
                self.save_checkpoint()
                count_lr_no_improve = 0
            else:
                count_lr_no_improve += 1

            if count_lr_no_improve >= self.train_args["reducelr_patience"]:
                self._reduce_lr()
                count_lr_no_improve = 0

            if current_epoch - best_epoch >= self.train_args["earlystop_patience"]:
                print(f"Early stopping at epoch {current_epoch}")
                break
        return self.best_model
