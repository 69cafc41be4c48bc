"""Overfit one batch: what a healthy pipeline does, and what common bugs do.

The overfit test trains on one small fixed batch and asks whether the loss
goes to (almost) zero. Memorising 32 examples needs very little capacity, so a
pipeline that cannot do it is broken. This script runs the test on a healthy
MLP and on copies with one classic bug each, and records where the loss ends.
It also shows the test's limits: a bug that removes capacity the batch does not
need (a frozen first layer) passes.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

FEATURES, HIDDEN, CLASSES, BATCH, STEPS, LR = 784, 256, 10, 32, 300, 1e-3
PASS = 0.01


def build_model():
    import torch
    from torch import nn

    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, CLASSES))


def run(variant: str) -> list[object]:
    import torch
    import torch.nn.functional as F

    torch.manual_seed(1)
    x = torch.randn(BATCH, FEATURES)
    y = torch.randint(0, CLASSES, (BATCH,))
    model = build_model()
    if variant == "first layer frozen":
        model[0].requires_grad_(False)
    if variant == "dead ReLU layer (bias -10)":
        with torch.no_grad():
            model[0].bias.fill_(-10.0)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=LR)

    def loss_of(inputs, targets):
        logits = model(inputs)
        if variant == "softmax fed to cross-entropy":
            return F.cross_entropy(logits.softmax(dim=1), targets)
        return F.cross_entropy(logits, targets)

    first = None
    for _ in range(STEPS):
        targets = y[torch.randperm(BATCH)] if variant == "labels reshuffled every step" else y
        loss = loss_of(x, targets)
        first = loss.item() if first is None else first
        if variant == "zero_grad between backward and step":
            loss.backward()
            opt.zero_grad()
            opt.step()
        else:
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        final = loss_of(x, y).item()
    return [variant, first, final, final < PASS]


def label_entropy() -> float:
    import torch

    torch.manual_seed(1)
    torch.randn(BATCH, FEATURES)  # same draws as run(), so y is the batch's labels
    y = torch.randint(0, CLASSES, (BATCH,))
    p = torch.bincount(y, minlength=CLASSES).float() / BATCH
    p = p[p > 0]
    return float(-(p * p.log()).sum())


VARIANTS = [
    "healthy",
    "softmax fed to cross-entropy",
    "zero_grad between backward and step",
    "dead ReLU layer (bias -10)",
    "labels reshuffled every step",
    "first layer frozen",
]


def build() -> str:
    header = ["variant", "loss at step 0", f"loss after {STEPS} steps", f"passes (< {PASS})"]
    return _table.render(
        "Overfit one batch: healthy and broken pipelines",
        __doc__.split("\n", 1)[1],
        header,
        [run(v) for v in VARIANTS],
        f"""
Set-up: Linear({FEATURES}, {HIDDEN}) -> ReLU -> Linear({HIDDEN}, {CLASSES}), PyTorch's default
initialisation, one fixed batch of {BATCH} standard-normal inputs with random labels,
Adam at lr {LR:g}, {STEPS} full-batch steps; the final loss is measured on the fixed batch
and labels. ln {CLASSES} = {math.log(CLASSES):.3f}; the entropy of this batch's labels
(what learning the label frequencies alone scores) is {label_entropy():.3f}.

Reading it: the double softmax stops at its floor ln(1 + (C - 1)/e) =
{math.log(1 + (CLASSES - 1) / math.e):.3f}. Clearing the gradients between backward and
step leaves every step without a gradient, so nothing moves. A layer of dead ReLUs
passes nothing forward and no gradient back, so only the output bias learns and the
loss settles near the label entropy; labels reshuffled every step cannot be memorised
and end there too. The frozen first layer is the instructive row: it slows
memorisation but does not block it (random features of width {HIDDEN} are nearly
enough for the last layer to memorise {BATCH} examples). A passing overfit test
proves the loss and the gradient path to the layers that train; the gradient-flow
checks of `mlsleuth trace` cover the layers that do not.
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
