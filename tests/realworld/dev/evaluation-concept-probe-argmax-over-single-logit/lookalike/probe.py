"""Linear probe that separates concept activations from random activations (the CAV)."""
import torch
from torch import nn


class LinearProbe(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.linear = nn.Linear(dim, 2)

    def forward(self, x):
        return self.linear(x)

    @property
    def cav(self):
        w = (self.linear.weight[1] - self.linear.weight[0]).detach()
        return w / w.norm()


def fit_probe(x_train, y_train, epochs=60, lr=0.05):
    probe = LinearProbe(x_train.shape[1])
    optimizer = torch.optim.SGD(probe.parameters(), lr=lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    mean, std = x_train.mean(0), x_train.std(0) + 1e-6
    for _ in range(epochs):
        optimizer.zero_grad()
        logits = probe((x_train - mean) / std)
        loss = criterion(logits, y_train)
        loss.backward()
        optimizer.step()
    probe.norm_stats = (mean, std)
    return probe


@torch.no_grad()
def probe_accuracy(probe, x_test, y_test):
    mean, std = probe.norm_stats
    logits = probe((x_test - mean) / std)
    predict = torch.argmax(logits, dim=1)
    return (predict == y_test).float().mean().item()
