"""Hand-written softmax: exp() overflows when one batch arrives unnormalised (step 3).

Clean twin (--clean): the same softmax with the row maximum subtracted first.
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


class ManualSoftmax(nn.Module):
    def forward(self, z):
        if CLEAN:
            z = z - z.max(dim=-1, keepdim=True).values
        e = torch.exp(z)
        return e / e.sum(dim=-1, keepdim=True)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), nn.Tanh())
        self.head = nn.Linear(16, 4)
        self.softmax = ManualSoftmax()

    def forward(self, x):
        return self.softmax(self.head(self.body(x)) * 40.0)


def batches():
    g = torch.Generator().manual_seed(1)
    for step in range(12):
        x = torch.randn(16, 8, generator=g)
        if step == 3:
            x = x * 255.0  # a batch that skipped normalisation
        yield x, torch.randint(0, 4, (16,), generator=g)


def main():
    torch.manual_seed(0)
    model = Classifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for x, y in batches():
        probs = model(x)
        loss = -torch.log(probs[torch.arange(len(y)), y] + 1e-9).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
