import torch
from torch import nn


class RevIN(nn.Module):
    """Reversible instance normalisation (Kim et al., 2022).

    Each input window is standardised with its own per-channel statistics; the forecast is
    mapped back with the same statistics, so level shifts between windows do not have to
    be learned by the backbone.
    """

    def __init__(self, n_channels: int, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = nn.Parameter(torch.ones(n_channels))
            self.bias = nn.Parameter(torch.zeros(n_channels))

    def normalize(self, x: torch.Tensor):
        mean = x.mean(dim=1, keepdim=True).detach()
        std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
        x = (x - mean) / std
        if self.affine:
            x = x * self.weight + self.bias
        return x, (mean, std)

    def denormalize(self, y: torch.Tensor, stats):
        mean, std = stats
        if self.affine:
            y = (y - self.bias) / (self.weight + self.eps * self.eps)
        return y * std + mean
