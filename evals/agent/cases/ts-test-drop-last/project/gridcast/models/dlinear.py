import torch
from torch import nn

from .revin import RevIN


class MovingAverage(nn.Module):
    """Trend by a centred moving average; the series is padded with its edge values."""

    def __init__(self, kernel_size: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.pool = nn.AvgPool1d(kernel_size, stride=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, L, C)
        left = (self.kernel_size - 1) // 2
        right = self.kernel_size - 1 - left
        padded = torch.cat([x[:, :1].expand(-1, left, -1), x, x[:, -1:].expand(-1, right, -1)], dim=1)
        return self.pool(padded.transpose(1, 2)).transpose(1, 2)


class DLinear(nn.Module):
    """Season/trend decomposition followed by one linear map per component (Zeng et al., 2023)."""

    def __init__(self, seq_len, pred_len, n_channels, kernel_size=25, individual=False, revin=True, **_):
        super().__init__()
        self.decompose = MovingAverage(kernel_size)
        self.individual = individual
        self.n_channels = n_channels
        if individual:
            self.season = nn.ModuleList(nn.Linear(seq_len, pred_len) for _ in range(n_channels))
            self.trend = nn.ModuleList(nn.Linear(seq_len, pred_len) for _ in range(n_channels))
        else:
            self.season = nn.Linear(seq_len, pred_len)
            self.trend = nn.Linear(seq_len, pred_len)
        self.revin = RevIN(n_channels) if revin else None

    def _project(self, heads, x: torch.Tensor) -> torch.Tensor:  # x: (B, C, L)
        if not self.individual:
            return heads(x)
        return torch.stack([head(x[:, c]) for c, head in enumerate(heads)], dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:  # (B, L, C) -> (B, H, C)
        stats = None
        if self.revin is not None:
            x, stats = self.revin.normalize(x)
        trend = self.decompose(x)
        season = x - trend
        y = self._project(self.season, season.transpose(1, 2)) + self._project(self.trend, trend.transpose(1, 2))
        y = y.transpose(1, 2)
        if self.revin is not None:
            y = self.revin.denormalize(y, stats)
        return y
