"""Adam with eps=0: embedding rows that never receive a gradient divide 0 by 0 in the first update.

Clean twin (--clean): the default eps=1e-8.
Also usable as FILE:FUNCTION (``adam_eps_zero.py:setup``).
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


class BagModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 4)
        self.out = nn.Linear(4, 1)

    def forward(self, idx):
        return self.out(self.emb(idx).mean(dim=1))


def make_batches(n=6):
    g = torch.Generator().manual_seed(5)
    return [(torch.randint(0, 10, (8, 3), generator=g), torch.randn(8, 1, generator=g)) for _ in range(n)]


def make_optimizer(params):
    return torch.optim.Adam(params, lr=1e-3, eps=1e-8 if CLEAN else 0.0)


def setup():
    torch.manual_seed(0)
    return {"model": BagModel(), "loader": make_batches(), "loss_fn": nn.functional.mse_loss, "optimizer": make_optimizer}


def main():
    torch.manual_seed(0)
    model = BagModel()
    opt = make_optimizer(model.parameters())
    for idx, y in make_batches():
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(idx), y)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
