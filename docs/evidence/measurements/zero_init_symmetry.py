"""Zero or constant initialisation: hidden units that start equal stay equal.

If every unit in a layer starts with the same incoming and outgoing weights,
each receives the same gradient, so after any number of steps they are still
copies of each other and the layer has the capacity of one unit. All-zero
weights are worse: with zero outgoing weights no gradient reaches the hidden
layer at all. This script trains a small tanh MLP from several starting
points and counts how many distinct hidden units it ends with.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _table

IN, HIDDEN, OUT, N, STEPS = 8, 16, 3, 256, 200


def distinct_units(model, tol: float = 1e-6) -> tuple[int, float]:
    """How many hidden units differ (beyond ``tol``), and the largest gap from unit 0."""
    import torch

    first, last = model[0], model[-1]
    units = torch.cat([first.weight, first.bias[:, None], last.weight.T], dim=1).detach()
    reps: list = []
    for u in units:
        if not any(torch.max(torch.abs(u - r)).item() <= tol for r in reps):
            reps.append(u)
    spread = torch.max(torch.abs(units - units[0])).item()
    return len(reps), spread


def train(init: str, optimizer: str, dropout: float) -> list[object]:
    import torch
    from torch import nn

    torch.manual_seed(0)
    x = torch.randn(N, IN)
    teacher = torch.randn(IN, OUT)
    y = (x @ teacher).argmax(dim=1)  # a learnable, non-trivial target

    layers = [nn.Linear(IN, HIDDEN), nn.Tanh()]
    if dropout:
        layers.append(nn.Dropout(dropout))
    layers.append(nn.Linear(HIDDEN, OUT))
    model = nn.Sequential(*layers)
    if init != "default":
        value = 0.0 if init == "zeros" else float(init.split("=")[1])
        for m in model:
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, value)
                nn.init.constant_(m.bias, value)
    opt = (torch.optim.SGD(model.parameters(), lr=0.5) if optimizer == "SGD"
           else torch.optim.Adam(model.parameters(), lr=1e-2))
    model.train()
    for _ in range(STEPS):
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y).item()
        acc = (logits.argmax(dim=1) == y).float().mean().item()
    n_distinct, spread = distinct_units(model)
    majority = torch.bincount(y, minlength=OUT).max().item() / N
    return [init, optimizer, dropout, n_distinct, spread, loss, acc, majority]


CASES = [
    ("default", "SGD", 0.0),
    ("zeros", "SGD", 0.0),
    ("zeros", "Adam", 0.0),
    ("constant=0.3", "SGD", 0.0),
    ("constant=0.3", "Adam", 0.0),
    ("constant=0.3", "SGD", 0.2),
]


def build() -> str:
    header = [
        "initialisation", "optimizer", "dropout", f"distinct hidden units (of {HIDDEN})",
        "max gap to unit 0", "final train loss", "train accuracy", "majority-class rate",
    ]
    return _table.render(
        "Zero and constant initialisation: symmetry that never breaks",
        __doc__.split("\n", 1)[1],
        header,
        [train(*case) for case in CASES],
        f"""
Set-up: Linear({IN}, {HIDDEN}) -> tanh -> [Dropout] -> Linear({HIDDEN}, {OUT}),
{N} random inputs labelled by a random linear teacher (three classes), {STEPS}
full-batch steps (SGD lr 0.5 or Adam lr 1e-2). A unit is the vector of its
incoming weights, its bias and its outgoing weights; two units count as the same
when no entry differs by more than 1e-6. With all-zero weights only the output
bias learns, so accuracy stays at the majority-class rate. With a constant
start the units remain exact copies under both optimizers (Adam's per-parameter
scaling is symmetric too). Dropout breaks the tie, because each unit gets its
own random mask: a reminder that a symmetry bug can hide behind regularisation
and reappear when dropout is switched off.
""",
        Path(__file__).name,
    )


if __name__ == "__main__":
    sys.exit(_table.main(__file__, build))
