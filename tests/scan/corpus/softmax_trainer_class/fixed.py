"""Image classifier trained with a small Trainer class: the model returns logits."""

import copy

import torch
from torch import nn
from torch.nn import CrossEntropyLoss as CE
from torch.utils.data import DataLoader


def build_model(num_classes: int) -> nn.Module:
    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(28 * 28, 256),
        nn.ReLU(),
        nn.Linear(256, num_classes),
    )


class Trainer:
    def __init__(self, model, train_set, val_set, lr=1e-3):
        self.model = model
        self.crit = CE()
        self.opt = torch.optim.AdamW(model.parameters(), lr=lr)
        self.train_loader = DataLoader(train_set, batch_size=128, shuffle=True)
        self.val_loader = DataLoader(val_set, batch_size=256)
        self.best_acc = 0.0
        self.best_state = None

    def training_step(self, x, y):
        out = self.model(x)
        return self.crit(out, y)

    def evaluate(self):
        self.model.eval()
        correct = total = 0
        with torch.no_grad():
            for x, y in self.val_loader:
                pred = self.model(x).argmax(dim=1)
                correct += (pred == y).sum().item()
                total += y.numel()
        self.model.train()
        return correct / max(total, 1)

    def fit(self, epochs: int):
        self.model.train()
        for epoch in range(epochs):
            for x, y in self.train_loader:
                self.opt.zero_grad()
                loss = self.training_step(x, y)
                loss.backward()
                self.opt.step()
            acc = self.evaluate()
            if acc > self.best_acc:
                self.best_acc = acc
                self.best_state = copy.deepcopy(self.model.state_dict())
        self.model.load_state_dict(self.best_state)
        return self.best_acc


def main(train_set, val_set):
    trainer = Trainer(build_model(10), train_set, val_set)
    print("best accuracy", trainer.fit(epochs=5))
