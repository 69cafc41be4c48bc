"""Decomposition-linear forecaster: moving-average trend plus seasonal residual, one linear map each."""
import torch
from torch import nn


class MovingAvg(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.kernel_size = kernel_size
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=1)

    def forward(self, x):
        front = x[:, :1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)


class Model(nn.Module):
    def __init__(self, configs):
        super().__init__()
        self.pred_len = configs.pred_len
        self.decomp = MovingAvg(25)
        self.linear_seasonal = nn.Linear(configs.seq_len, configs.pred_len)
        self.linear_trend = nn.Linear(configs.seq_len, configs.pred_len)

    def forward(self, x):
        trend = self.decomp(x)
        seasonal = x - trend
        out = self.linear_seasonal(seasonal.permute(0, 2, 1)) + self.linear_trend(trend.permute(0, 2, 1))
        return out.permute(0, 2, 1)
