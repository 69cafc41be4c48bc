"""A model called with keyword arguments and a torch.nn loss module; a zero scale divides at step 7.

The cheap watch must capture the keyword arguments and the loss target as the batch of each step,
so that the saved file replays steps from the last snapshot to the failing one. Dropout makes the
replay depend on the saved RNG state. Twin (--clean): a zero scale is replaced by 1.
Also usable as FILE:FUNCTION (``kwargs_batch.py:setup``) with a step counter that the replay does
not restore (``--stateful``): a failure the replay cannot repeat.
"""
import sys

import torch
from torch import nn

CLEAN = "--clean" in sys.argv
FAIL_STEP = 7


class Scaled(nn.Module):
    def __init__(self, clean=False):
        super().__init__()
        self.clean = clean
        self.body = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Dropout(0.25))
        self.head = nn.Linear(8, 1)

    def forward(self, x, *, scale):
        if self.clean:
            scale = torch.where(scale > 0, scale, torch.ones_like(scale))
        return self.head(self.body(x)) / scale


def batch(step, g):
    x = torch.randn(8, 4, generator=g)
    y = torch.randn(8, 1, generator=g)
    scale = torch.ones(8, 1)
    if step == FAIL_STEP:
        scale[3] = 0.0  # one sample with a zero scale
    return x, scale, y


def train_step(model, opt, crit, x, scale, y):
    out = model(x=x, scale=scale)
    loss = crit(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    model = Scaled(CLEAN)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    crit = nn.MSELoss()
    for step in range(12):
        train_step(model, opt, crit, *batch(step, g))


_calls = [0]


def setup():
    """FILE:FUNCTION form. With --stateful the loss divides by zero on its 8th call, whichever step that is."""
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    batches = [batch(step, g) for step in range(12)]
    stateful = "--stateful" in sys.argv

    def compute_loss(model, b):
        x, scale, y = b
        if stateful:
            _calls[0] += 1
            scale = torch.zeros_like(scale) if _calls[0] == FAIL_STEP + 1 else torch.ones_like(scale)
        return nn.functional.mse_loss(model(x=x, scale=scale), y)

    return {"model": Scaled(CLEAN), "loader": batches, "compute_loss": compute_loss, "optimizer": lambda ps: torch.optim.SGD(ps, lr=0.01)}


if __name__ == "__main__":
    main()
