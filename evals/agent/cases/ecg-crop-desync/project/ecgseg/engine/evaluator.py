"""Runs a model over a loader and computes the configured metrics."""
from __future__ import annotations

from typing import Callable

import torch

from ..utils.misc import MeterDict, move_to


class Evaluator:
    """Collects model outputs over a loader and hands them to metric functions.

    ``metric_fns`` maps a name to ``fn(outputs, targets) -> float``; ``loss_fn`` (optional) is the
    training criterion, averaged over batches as ``loss``.
    """

    def __init__(self, metric_fns: dict[str, Callable], loss_fn=None, device: str = "cpu",
                 input_key: str = "inputs", target_key: str = "targets"):
        self.metric_fns = metric_fns
        self.loss_fn = loss_fn
        self.device = device
        self.input_key = input_key
        self.target_key = target_key

    @torch.no_grad()
    def predict(self, model: torch.nn.Module, loader) -> tuple[torch.Tensor, torch.Tensor, dict]:
        was_training = model.training
        model.eval()
        outputs, targets = [], []
        meters = MeterDict()
        for batch in loader:
            batch = move_to(batch, self.device)
            out = model(batch[self.input_key])
            if self.loss_fn is not None:
                loss, parts = self.loss_fn(out, batch[self.target_key], batch)
                meters.update({"loss": loss, **parts}, n=len(batch[self.target_key]))
            outputs.append(out.float().cpu())
            targets.append(batch[self.target_key].cpu())
        model.train(was_training)
        return torch.cat(outputs), torch.cat(targets), meters.averages()

    def evaluate(self, model: torch.nn.Module, loader, prefix: str = "val") -> dict:
        outputs, targets, losses = self.predict(model, loader)
        results = {f"{prefix}_{k}": v for k, v in losses.items()}
        for name, fn in self.metric_fns.items():
            results[f"{prefix}_{name}"] = float(fn(outputs, targets))
        return results
