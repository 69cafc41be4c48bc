"""Evaluating in training mode: what dropout and batch normalisation do to the numbers.

``model.eval()`` switches dropout off and makes batch normalisation use its
running statistics. Forgetting it leaves dropout randomly zeroing units during
validation and lets batch normalisation normalise each validation batch by its
own statistics, so the score depends on the batch size and two passes over the
same data disagree. This script trains one small network with both layers and
evaluates it on the same held-out set in the right and the wrong mode.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

FEATURES, HIDDEN, CLASSES, TRAIN, VAL, STEPS = 16, 64, 4, 2048, 1024, 300


def data(n, generator):
    import torch

    x = torch.randn(n, FEATURES, generator=generator)
    teacher = torch.randn(FEATURES, CLASSES, generator=torch.Generator().manual_seed(7))
    return x, (x @ teacher).argmax(dim=1)


def trained_model():
    import torch
    from torch import nn

    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    x, y = data(TRAIN, g)
    model = nn.Sequential(
        nn.Linear(FEATURES, HIDDEN), nn.BatchNorm1d(HIDDEN), nn.ReLU(), nn.Dropout(0.5),
        nn.Linear(HIDDEN, CLASSES),
    )
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    model.train()
    for _ in range(STEPS):
        idx = torch.randint(0, TRAIN, (128,))
        opt.zero_grad()
        nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
        opt.step()
    return model


def evaluate(model, x, y, mode: str, batch: int):
    """Mean loss, accuracy and the largest disagreement between two identical passes."""
    import torch
    from torch import nn

    model.train(mode == "train()")
    state = {k: v.clone() for k, v in model.state_dict().items()}  # train-mode BN updates buffers

    def one_pass():
        with torch.no_grad():
            return torch.cat([model(x[i:i + batch]) for i in range(0, len(x), batch)])

    torch.manual_seed(123)
    first = one_pass()
    model.load_state_dict(state)
    torch.manual_seed(456)
    second = one_pass()
    model.load_state_dict(state)
    loss = nn.functional.cross_entropy(first, y).item()
    acc = (first.argmax(dim=1) == y).float().mean().item()
    return [mode, batch, loss, acc, (first - second).abs().max().item()]


def rows():
    import torch

    model = trained_model()
    x, y = data(VAL, torch.Generator().manual_seed(2))
    return [evaluate(model, x, y, mode, batch)
            for mode, batch in (("eval()", 256), ("eval()", 4), ("train()", 256), ("train()", 4))]


def build() -> str:
    header = ["mode during validation", "batch size", "val loss", "val accuracy", "max change between two passes"]
    return _table.render(
        "Validation in training mode",
        __doc__.split("\n", 1)[1],
        header,
        rows(),
        f"""
Set-up: Linear({FEATURES}, {HIDDEN}) -> BatchNorm1d -> ReLU -> Dropout(0.5) -> Linear({HIDDEN}, {CLASSES}),
trained {STEPS} Adam steps (lr 3e-3, batches of 128) on {TRAIN} examples labelled by a random
linear teacher; validated on {VAL} fresh examples, under torch.no_grad(), with the weights
and buffers restored between passes. In eval() mode the result does not depend on the
batch size and two passes agree exactly. In train() mode dropout makes the loss worse and
the outputs random, and batch normalisation makes the result depend on the validation
batch size: the small-batch row is the "my validation loss is worse than training and
changes every run" symptom.
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
