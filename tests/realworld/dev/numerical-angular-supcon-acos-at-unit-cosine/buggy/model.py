from torch import nn


class Embedder(nn.Module):
    def __init__(self, in_dim: int = 16, hidden: int = 64, emb_dim: int = 8):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Linear(in_dim, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
        )
        self.proj = nn.Linear(hidden, emb_dim)

    def forward(self, x):
        return self.proj(self.backbone(x))
