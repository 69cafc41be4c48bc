"""A loop that catches Exception around each step: the runner must still stop it."""
import sys

import torch

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
seen = []
for step in range(1000):
    try:
        x = torch.randn(8, 4)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen.append(step)
    except Exception as exc:  # noqa: BLE001 - the pattern under test
        print("swallowed", exc)
print("argv", sys.argv[1:], __name__, sys.path[0])
