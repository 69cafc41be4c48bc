import numpy as np
import torch
from torch import nn

from ..metrics import summarize


@torch.no_grad()
def predict(model, loader):
    model.eval()
    labels, probs = [], []
    for x, y in loader:
        probs.append(torch.sigmoid(model(x)).numpy())
        labels.append(y.numpy())
    model.train()
    return np.concatenate(labels), np.concatenate(probs)


def evaluate(model, loader) -> dict:
    labels, probs = predict(model, loader)
    return summarize(labels, probs)


class Trainer:
    def __init__(self, model, optimizer, callbacks=()):
        self.model = model
        self.optimizer = optimizer
        self.callbacks = list(callbacks)
        self.criterion = nn.BCEWithLogitsLoss()
        self.global_step = 0
        self.epoch = 0

    def train_step(self, x, y) -> float:
        logits = self.model(x)
        loss = self.criterion(logits, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train_epoch(self, loader) -> float:
        self.model.train()
        total, n = 0.0, 0
        for x, y in loader:
            loss = self.train_step(x, y)
            self.global_step += 1
            total += loss * len(y)
            n += len(y)
            for cb in self.callbacks:
                cb.on_batch_end(self, loss)
        return total / max(n, 1)

    def fit(self, train_loader, val_loader, epochs: int) -> dict:
        metrics = {}
        for self.epoch in range(1, epochs + 1):
            train_bce = self.train_epoch(train_loader)
            metrics = {"train_bce": train_bce, **evaluate(self.model, val_loader)}
            for cb in self.callbacks:
                cb.on_epoch_end(self, metrics)
        return metrics
