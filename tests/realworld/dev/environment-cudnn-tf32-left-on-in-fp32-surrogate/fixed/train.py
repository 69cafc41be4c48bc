import torch
import torch.nn as nn

from config import configure_precision


class SurrogateCNN(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, ch, 3, padding=1), nn.GELU(),
            nn.Conv2d(ch, ch, 3, padding=1), nn.GELU(),
            nn.Conv2d(ch, ch, 3, padding=1), nn.GELU(),
            nn.Conv2d(ch, 1, 3, padding=1),
        )

    def forward(self, x):
        return self.net(x)


def train(loader, epochs=200, device="cuda"):
    configure_precision()
    surrogate = SurrogateCNN().to(device)
    opt = torch.optim.Adam(surrogate.parameters(), lr=1e-3)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
    for epoch in range(epochs):
        for fields, solution in loader:
            fields, solution = fields.to(device), solution.to(device)
            residual = surrogate(fields) - solution
            loss = residual.pow(2).mean() / solution.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        print(f"epoch {epoch} rel. mse {loss.item():.3e}")
