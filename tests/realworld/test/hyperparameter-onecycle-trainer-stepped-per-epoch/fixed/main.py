import torch
import torch.nn as nn

from data import make_loaders
from trainer import Trainer


if __name__ == "__main__":
    torch.manual_seed(0)
    train_loader, _ = make_loaders(seed=0)
    net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 4))
    Trainer(net, train_loader, epochs=8, max_lr=0.1).fit()
