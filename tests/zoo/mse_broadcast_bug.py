"""Zoo case mse_broadcast (buggy): predictions (N, 1) against targets (N,) broadcast to (N, N)"""
import torch
from torch import nn

torch.manual_seed(0)
N_IN, BATCH = 8, 64
W_TRUE = torch.randn(N_IN)


def make_batch():
    x = torch.randn(BATCH, N_IN)
    y = x @ W_TRUE + 0.1 * torch.randn(BATCH)
    return x, y


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(N_IN, 32)
        self.act = nn.ReLU()
        self.head = nn.Linear(32, 1)

    def forward(self, x):
        return self.head(self.act(self.hidden(x)))


model = Regressor()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = nn.MSELoss()

for step in range(200):
    x, y = make_batch()
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    if step % 50 == 0:
        print(step, loss.item())
