"""A small trainer class: optimizer and scheduler built in __init__, used in other methods."""

import torch
from torch import nn, optim
from torch.optim.lr_scheduler import MultiStepLR as Milestones


class Classifier(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, 64), nn.ReLU(), nn.Linear(64, n_out))

    def forward(self, x):
        return self.body(x)


class Trainer:
    def __init__(self, model, lr=0.1, epochs=30):
        self.model = model
        self.crit = nn.CrossEntropyLoss()
        self.opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.sched = Milestones(self.opt, milestones=[10, 20], gamma=0.1)
        self.epochs = epochs

    def _update(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def train_epoch(self, loader):
        self.model.train()
        running = 0.0
        for x, y in loader:
            loss = self.crit(self.model(x), y)
            self._update(loss)
            running += loss.item()
        return running / max(len(loader), 1)

    def fit(self, loader):
        history = []
        for epoch in range(self.epochs):
            history.append(self.train_epoch(loader))
            self.sched.step()
        return history


if __name__ == "__main__":
    data = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(10)]
    trainer = Trainer(Classifier(4, 3))
    print(trainer.fit(data))
