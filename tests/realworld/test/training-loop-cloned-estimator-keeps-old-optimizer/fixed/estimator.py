import copy

import torch
import torch.nn as nn


class TorchClassifier:
    """Small estimator wrapper: holds a module, its loss and its optimizer."""

    def __init__(self, model, loss, optimizer, nb_classes):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.nb_classes = nb_classes

    def fit(self, x, y, batch_size=64, nb_epochs=10):
        self.model.train()
        n = x.shape[0]
        for epoch in range(nb_epochs):
            perm = torch.randperm(n)
            total = 0.0
            for i in range(0, n, batch_size):
                idx = perm[i:i + batch_size]
                self.optimizer.zero_grad()
                out = self.model(x[idx])
                loss = self.loss(out, y[idx])
                loss.backward()
                self.optimizer.step()
                total += loss.item() * idx.numel()
            print(f"  epoch {epoch + 1:2d}  loss {total / n:.4f}")

    @torch.no_grad()
    def predict(self, x):
        self.model.eval()
        return self.model(x).argmax(dim=1)

    def reset(self):
        for m in self.model.modules():
            if hasattr(m, "reset_parameters"):
                m.reset_parameters()

    def clone_for_refitting(self):
        new_model = copy.deepcopy(self.model)
        new_optimizer = type(self.optimizer)(new_model.parameters(), **self.optimizer.defaults)
        clone = TorchClassifier(new_model, self.loss, new_optimizer, self.nb_classes)
        clone.reset()
        return clone
