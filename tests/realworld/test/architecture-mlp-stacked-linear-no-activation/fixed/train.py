import argparse
import math
import torch
import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        layers = []
        for i in range(len(sizes) - 1):
            layers.append(nn.Linear(sizes[i], sizes[i + 1]))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        self.mlp = nn.Sequential(*layers)

    def forward(self, x):
        return self.mlp(x)


def rings(n, gen):
    r = torch.where(torch.rand(n, generator=gen) < 0.5, 1.0, 2.5)
    theta = torch.rand(n, generator=gen) * 2 * math.pi
    x = torch.stack([r * torch.cos(theta), r * torch.sin(theta)], 1)
    x = x + 0.15 * torch.randn(n, 2, generator=gen)
    return x, (r > 2).long()


def main(args):
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    x, y = rings(2000, gen)
    clf = MLP([2, args.hidden, args.hidden, 2])
    opt = torch.optim.SGD(clf.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for step in range(args.steps):
        idx = torch.randint(0, len(x), (64,))
        logits = clf(x[idx])
        loss = criterion(logits, y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step} loss {loss.item():.3f}")
    acc = (clf(x).argmax(1) == y).float().mean().item()
    print(f"train accuracy {acc:.3f}")


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--seed", type=int, default=0)
    main(p.parse_args())
