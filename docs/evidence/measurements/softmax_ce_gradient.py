"""Gradient shrink when probabilities (softmax output) are fed to cross-entropy.

``F.cross_entropy`` applies log-softmax itself. Passing it ``softmax(z)``
applies softmax twice: the loss still decreases a little, nothing crashes,
but the gradient reaching the logits is much smaller and the loss can never
go below ln(1 + (C - 1)/e). This script measures both effects on random
logits at several scales (the logit standard deviation), with random targets
as at the start of training.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

SCALES = (0.1, 1.0, 3.0, 10.0)
CLASSES = (10, 1000)
BATCH = 2048


def per_example_grad_norm(logits, targets, transform):
    """Mean loss and mean L2 norm of d(loss_i)/d(logits_i) over the batch."""
    import torch.nn.functional as F

    z = logits.clone().requires_grad_(True)
    losses = F.cross_entropy(transform(z), targets, reduction="none")
    # Summing makes each row of z.grad the gradient of that example's own loss.
    losses.sum().backward()
    return losses.mean().item(), z.grad.norm(dim=1).mean().item()


def rows():
    import torch

    torch.manual_seed(0)
    out = []
    for c in CLASSES:
        floor = math.log(1 + (c - 1) / math.e)
        for s in SCALES:
            logits = torch.randn(BATCH, c) * s
            targets = torch.randint(0, c, (BATCH,))
            loss_ok, grad_ok = per_example_grad_norm(logits, targets, lambda z: z)
            loss_bad, grad_bad = per_example_grad_norm(logits, targets, lambda z: z.softmax(dim=1))
            out.append([c, s, loss_ok, grad_ok, loss_bad, grad_bad, grad_ok / grad_bad, floor])
    return out


def build() -> str:
    header = [
        "classes C", "logit std", "CE(logits) loss", "CE(logits) grad norm",
        "CE(softmax) loss", "CE(softmax) grad norm", "shrink (x smaller)", "CE(softmax) loss floor",
    ]
    return _table.render(
        "Softmax fed to cross-entropy: how much gradient is lost",
        __doc__.split("\n", 1)[1],
        header,
        rows(),
        """
Reading it: "grad norm" is the mean over 2048 examples of the L2 norm of one
example's loss gradient with respect to its logits. The correct call's
gradient approaches sqrt(2) as confident predictions become wrong; the
double-softmax gradient is bounded by the softmax of values in [0, 1] and
shrinks as C grows, because the second softmax sees inputs that barely
differ: at small logit scales it is about C times smaller, and it gets
worse, not better, as the model grows confident. The last column, ln(1 + (C - 1)/e), is the loss the double-softmax
model reaches even with a perfect one-hot prediction: for ten classes a loss
stuck near 1.46 is a fingerprint of this bug.
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
