from collections.abc import Iterable

from torch import nn


class MultiTaskNet(nn.Module):
    def __init__(self, in_dim=20, hidden=64, n_classes_a=4, n_classes_b=3):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(),
                                     nn.Linear(hidden, hidden), nn.ReLU())
        self.head_a = nn.Linear(hidden, n_classes_a)
        self.head_b = nn.Linear(hidden, n_classes_b)

    def forward(self, x, task):
        h = self.encoder(x)
        return self.head_a(h) if task == "a" else self.head_b(h)


def set_freeze_by_names(model, layer_names, freeze=True):
    if isinstance(layer_names, str) or not isinstance(layer_names, Iterable):
        layer_names = [layer_names]
    for name, child in model.named_children():
        if name not in layer_names:
            continue
        for param in child.parameters():
            param.requires_grad = not freeze
