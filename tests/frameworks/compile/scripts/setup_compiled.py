"""A diagnose setup function that returns a compiled model (mlsleuth diagnose setup_compiled.py:setup)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def setup():
    torch.manual_seed(0)
    X = torch.randn(64, 16)
    y = (X @ torch.randn(16, 4)).argmax(1)
    model = torch.compile(nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 4)))
    return {"model": model, "batch": (X, y), "loss_fn": F.cross_entropy,
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}
