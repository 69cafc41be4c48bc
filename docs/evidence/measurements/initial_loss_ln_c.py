"""Initial cross-entropy: ln C in theory, and what a fresh classifier measures.

A classifier that has learned nothing predicts the uniform distribution, so
its cross-entropy is -ln(1/C) = ln C. PyTorch's default initialisation gives
small logits, so a freshly built network should start within a few percent
of ln C. Starting far above it means over-confident initial logits (an
over-scaled output layer, a missing normalisation); far below it means the
model already knows something it should not (leakage, or a loss that is not
what you think).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

CLASSES = (2, 10, 100, 1000, 32000)
FEATURES, HIDDEN, BATCH = 64, 128, 512


def fresh_initial_loss(num_classes: int, head_gain: float = 1.0) -> float:
    """Mean CE of a just-initialised 2-layer MLP on standardised random inputs."""
    import torch
    from torch import nn

    model = nn.Sequential(nn.Linear(FEATURES, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, num_classes))
    with torch.no_grad():
        model[2].weight.mul_(head_gain)
    x = torch.randn(BATCH, FEATURES)
    y = torch.randint(0, num_classes, (BATCH,))
    with torch.no_grad():
        return nn.functional.cross_entropy(model(x), y).item()


def rows():
    import torch

    torch.manual_seed(0)
    out = []
    for c in CLASSES:
        expected = -math.log(1.0 / c)
        measured = fresh_initial_loss(c)
        hot = fresh_initial_loss(c, head_gain=30.0)
        out.append([c, expected, measured, measured / expected, hot, hot / expected])
    return out


def build() -> str:
    header = [
        "classes C", "ln C", "fresh MLP initial CE", "ratio to ln C",
        "output layer x30: initial CE", "ratio to ln C",
    ]
    return _table.render(
        "The ln C initial-loss check",
        __doc__.split("\n", 1)[1],
        header,
        rows(),
        f"""
Set-up: nn.Sequential(Linear({FEATURES}, {HIDDEN}), ReLU, Linear({HIDDEN}, C)) with
PyTorch's default initialisation, inputs drawn from a standard normal, random
labels, batch {BATCH}, no training step. The "x30" columns multiply the output
layer's weights by 30 before the first forward pass, the kind of scale error a
hand-written initialisation or a missing 1/sqrt(d) produces: the loss starts
well above ln C, which is the signal to look at the initial logits. Rule of
thumb backed by the table: a fresh classifier should start within about 5% of
ln C; 2.303 for ten classes, 6.908 for a thousand, 10.37 for a 32k vocabulary.
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
