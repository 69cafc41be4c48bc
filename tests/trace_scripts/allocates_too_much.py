"""Trains two steps, then asks for a 64 GB tensor (beyond the --memory-limit used in the test)."""
import torch

model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(10):
    opt.zero_grad()
    model(torch.randn(8, 4)).pow(2).mean().backward()
    opt.step()
    if step == 1:
        huge = torch.empty(16 * 2**30, dtype=torch.float32)
