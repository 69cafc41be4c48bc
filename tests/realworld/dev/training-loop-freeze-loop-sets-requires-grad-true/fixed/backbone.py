import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, in_dim=64, feat_dim=8):
        super().__init__()
        self.proj = nn.Linear(in_dim, feat_dim)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.proj(x))


class Classifier(nn.Module):
    def __init__(self, encoder, feat_dim=8, n_classes=3):
        super().__init__()
        self.encoder = encoder
        self.fc = nn.Linear(feat_dim, n_classes)

    def forward(self, x):
        return self.fc(self.encoder(x))


def world(seed=0, in_dim=64, feat_dim=8, n_classes=3):
    g = torch.Generator().manual_seed(seed)
    w = torch.randn(feat_dim, in_dim, generator=g) / in_dim ** 0.5
    v = torch.randn(n_classes, feat_dim, generator=g)
    return w, v


def sample(n, w, v, generator):
    x = torch.randn(n, w.size(1), generator=generator)
    y = (torch.relu(x @ w.t()) @ v.t()).argmax(dim=1)
    return x, y


def load_pretrained_encoder(w):
    """Encoder weights from a self-supervised run on the unlabelled pool."""
    enc = Encoder(w.size(1), w.size(0))
    state = {"proj.weight": w + 0.02 * torch.randn_like(w), "proj.bias": torch.zeros(w.size(0))}
    enc.load_state_dict(state)
    return enc
