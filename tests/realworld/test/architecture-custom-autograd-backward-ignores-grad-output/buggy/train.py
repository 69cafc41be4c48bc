import torch
from torch import nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from modules import ScaledResidual


class ResMLP(nn.Module):
    def __init__(self, d_in=20, width=128, depth=6, n_out=1):
        super().__init__()
        self.stem = nn.Linear(d_in, width)
        self.blocks = nn.Sequential(*[
            ScaledResidual(nn.Sequential(nn.LayerNorm(width), nn.Linear(width, width), nn.GELU(),
                                         nn.Linear(width, width)))
            for _ in range(depth)
        ])
        self.head = nn.Linear(width, n_out)

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def main():
    torch.manual_seed(0)
    x = torch.randn(4096, 20)
    y = (x[:, :5].sum(1, keepdim=True) + 0.5 * torch.sin(x[:, 5:6] * 3)).float()
    loader = DataLoader(TensorDataset(x, y), batch_size=128, shuffle=True)

    model = ResMLP()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.01)
    for epoch in range(20):
        running = 0.0
        for xb, yb in loader:
            loss = F.mse_loss(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item() * xb.size(0)
        print(f"epoch {epoch} mse {running / len(loader.dataset):.4f}")


if __name__ == "__main__":
    main()
