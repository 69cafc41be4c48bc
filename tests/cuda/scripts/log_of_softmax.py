"""Cross-entropy written by hand on a GPU as log(softmax): one batch of large inputs saturates the softmax
to exactly 0 and log(0) = -inf at step 2. Clean twin (--clean): F.cross_entropy."""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv


def main():
    dev = "cuda"
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 12), nn.ReLU(), nn.Linear(12, 3)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(7)
    for step in range(8):
        x = (torch.randn(10, 6, generator=g) * (400.0 if step == 2 else 1.0)).to(dev)
        y = torch.randint(0, 3, (10,), generator=g).to(dev)
        logits = model(x)
        if CLEAN:
            loss = nn.functional.cross_entropy(logits, y)
        else:
            probs = torch.softmax(logits, dim=-1)
            onehot = nn.functional.one_hot(y, 3).float()
            loss = -(onehot * torch.log(probs)).sum(dim=-1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
