"""Only evaluates a model: nothing to trace."""
import torch

model = torch.nn.Linear(4, 2).eval()
with torch.no_grad():
    print(model(torch.randn(3, 4)).shape)
