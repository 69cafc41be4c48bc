"""Forecast errors accumulated over every element of every window (scaled units)."""
import torch


class ForecastErrors:
    def __init__(self):
        self.reset()

    def reset(self) -> None:
        self.sq = 0.0
        self.abs = 0.0
        self.count = 0
        self.windows = 0

    @torch.no_grad()
    def update(self, pred: torch.Tensor, target: torch.Tensor) -> None:
        diff = pred - target
        self.sq += float((diff ** 2).sum())
        self.abs += float(diff.abs().sum())
        self.count += diff.numel()
        self.windows += diff.shape[0]

    def compute(self) -> dict:
        if self.count == 0:
            return {"mse": float("nan"), "mae": float("nan"), "windows": 0}
        return {"mse": self.sq / self.count, "mae": self.abs / self.count, "windows": self.windows}
