import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--max-lr", type=float, default=0.05)
    return p.parse_args()


def make_loader(batch_size, n=1024, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 10, generator=g)
    y = torch.sin(x[:, :1] * 2) + 0.5 * x[:, 1:2]
    return DataLoader(TensorDataset(x, y), batch_size=batch_size, shuffle=True)


class Trainer:
    def __init__(self, net, loader, args):
        self.net, self.loader, self.args = net, loader, args
        self.opt = torch.optim.SGD(net.parameters(), lr=args.max_lr, momentum=0.9)
        # cosine over epochs: one scheduler step per epoch is what this schedule expects
        self.sched = torch.optim.lr_scheduler.CosineAnnealingLR(self.opt, T_max=args.epochs)
        self.objective = nn.MSELoss()

    def train_epoch(self):
        total = 0.0
        for x, y in self.loader:
            self.opt.zero_grad()
            loss = self.objective(self.net(x), y)
            loss.backward()
            self.opt.step()
            total += loss.item() * len(x)
        return total / len(self.loader.dataset)

    def fit(self):
        for epoch in range(self.args.epochs):
            loss = self.train_epoch()
            self.sched.step()
            print(f"epoch {epoch} loss {loss:.4f} lr {self.opt.param_groups[0]['lr']:.5f}")


if __name__ == "__main__":
    torch.manual_seed(0)
    args = get_args()
    net = nn.Sequential(nn.Linear(10, 64), nn.Tanh(), nn.Linear(64, 1))
    Trainer(net, make_loader(args.batch_size), args).fit()
