"""Next-hour barometric pressure forecast with per-window (RevIN-style) normalisation."""
import numpy as np
import torch
from torch import nn

WINDOW = 24
BATCH = 64
STEPS = 300


def make_pressure_series(n_hours, seed=0):
    rng = np.random.default_rng(seed)
    daily = 0.6 * np.sin(2 * np.pi * np.arange(n_hours) / 24.0)
    drift = np.cumsum(rng.normal(0.0, 0.15, n_hours))
    noise = rng.normal(0.0, 0.05, n_hours)
    return (1013.25 + daily + drift + noise).astype(np.float32)


def make_windows(series):
    xs = np.lib.stride_tricks.sliding_window_view(series[:-1], WINDOW)
    ys = series[WINDOW:]
    return torch.from_numpy(xs.copy()), torch.from_numpy(ys.copy()).unsqueeze(-1)


class InstanceNorm1dStats(nn.Module):
    """Normalises every input window by its own mean and std and undoes it on the output."""

    def __init__(self, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.affine_weight = nn.Parameter(torch.ones(1))
        self.affine_bias = nn.Parameter(torch.zeros(1))

    def normalize(self, x):
        mean = x.mean(dim=-1, keepdim=True)
        var = ((x - mean) ** 2).mean(dim=-1, keepdim=True)
        std = torch.sqrt(var + self.eps)
        self._stats = (mean, std)
        return (x - mean) / std * self.affine_weight + self.affine_bias

    def denormalize(self, y):
        mean, std = self._stats
        return (y - self.affine_bias) / self.affine_weight * std + mean


class PressureForecaster(nn.Module):
    def __init__(self, window=WINDOW, hidden=64):
        super().__init__()
        self.revin = InstanceNorm1dStats()
        self.mlp = nn.Sequential(nn.Linear(window, hidden), nn.GELU(), nn.Linear(hidden, 1))

    def forward(self, x):
        z = self.revin.normalize(x)
        return self.revin.denormalize(self.mlp(z))


def main():
    torch.manual_seed(0)
    x_train, y_train = make_windows(make_pressure_series(6000, seed=0))
    x_val, y_val = make_windows(make_pressure_series(1500, seed=1))
    model = PressureForecaster()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.L1Loss()

    for step in range(1, STEPS + 1):
        idx = torch.randint(0, len(x_train), (BATCH,))
        loss = loss_fn(model(x_train[idx]), y_train[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            with torch.no_grad():
                val_mae = loss_fn(model(x_val), y_val).item()
            print(f"step {step:4d} train_mae {loss.item():.4f} hPa  val_mae {val_mae:.4f} hPa")

    naive = (x_val[:, -1:] - y_val).abs().mean().item()
    print(f"persistence baseline val_mae {naive:.4f} hPa")


if __name__ == "__main__":
    main()
