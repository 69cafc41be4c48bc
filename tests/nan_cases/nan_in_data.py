"""A dataset with missing values: row 5 of the batch at step 4 holds NaN features.

Clean twin (--clean): the missing values are imputed before batching.
"""
import sys

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

CLEAN = "--clean" in sys.argv


def main():
    torch.manual_seed(0)
    x = torch.randn(80, 5)
    y = torch.randn(80, 1)
    x[4 * 8 + 5, 2] = float("nan")  # sample 37: batch 4 (batch size 8, no shuffling), row 5
    if CLEAN:
        x = torch.nan_to_num(x, nan=0.0)  # imputation at load time, before training
    loader = DataLoader(TensorDataset(x, y), batch_size=8, shuffle=False)
    model = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for xb, yb in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()


if __name__ == "__main__":
    main()
