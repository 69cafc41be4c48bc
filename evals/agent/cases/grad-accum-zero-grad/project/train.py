"""Click-through prediction MLP. Memory is tight on the target box, so large effective batches
come from gradient accumulation: --batch-size 32 --accum-steps 8 should behave like batch 256."""
import argparse
import json
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def make_impressions(n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    user = torch.randn(n, 12, generator=g)
    item = torch.randn(n, 12, generator=g)
    ctx = torch.randn(n, 4, generator=g)
    affinity = (user * item).sum(1) / 12**0.5
    logit = 2.0 * affinity + 0.8 * ctx[:, 0] - 0.5 * ctx[:, 1] - 1.0
    clicked = (torch.rand(n, generator=g) < torch.sigmoid(logit)).float()
    return torch.cat([user, item, ctx], dim=1), clicked


class CTRModel(nn.Module):
    def __init__(self, in_dim: int = 28, hidden: int = 128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


@torch.no_grad()
def evaluate(model, x, y) -> dict:
    model.eval()
    logits = model(x)
    loss = F.binary_cross_entropy_with_logits(logits, y).item()
    acc = ((logits > 0).float() == y).float().mean().item()
    model.train()
    return {"logloss": loss, "acc": acc}


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--accum-steps", type=int, default=8)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--out", default="runs/ctr")
    args = p.parse_args(argv)
    torch.manual_seed(0)

    x, y = make_impressions(40000, seed=0)
    xv, yv = make_impressions(5000, seed=1)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = CTRModel()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)

    history = []
    model.train()
    for epoch in range(args.epochs):
        for i, (xb, yb) in enumerate(loader):
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(xb), yb) / args.accum_steps
            loss.backward()
            if (i + 1) % args.accum_steps == 0:
                optimizer.step()
        val = evaluate(model, xv, yv)
        history.append({"epoch": epoch, **val})
        print(f"epoch {epoch} | val logloss {val['logloss']:.4f} acc {val['acc']:.3f}")

    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "metrics.json"), "w") as f:
        json.dump({"history": history, "final": history[-1], "args": vars(args)}, f, indent=2)


if __name__ == "__main__":
    main()
