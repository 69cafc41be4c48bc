"""Shared synthetic data for the Lightning test scripts: a 4-class problem a small MLP learns in a few dozen steps."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def dataset(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 16, generator=g)
    w = torch.randn(16, 4, generator=torch.Generator().manual_seed(0))
    return TensorDataset(x, (x @ w).argmax(1))


def loaders(batch_size=32):
    return (DataLoader(dataset(512, 1), batch_size=batch_size, shuffle=True),
            DataLoader(dataset(128, 2), batch_size=64))


def trainer(package="lightning", **overrides):
    import importlib

    L = importlib.import_module(package)
    settings = dict(accelerator="cpu", devices=1, max_steps=40, val_check_interval=8, enable_progress_bar=False,
                    logger=False, enable_checkpointing=False, enable_model_summary=False)
    settings.update(overrides)
    return L.Trainer(**settings)
