"""Setup functions whose ``compute_loss`` returns a dict of named loss terms (diagnose's per-term breakdown, issue 15).

* ``pinn_poisson``: a physics-informed network for u'' = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0, the
  PDE residual and the boundary condition as two named terms (healthy: no PINN finding);
* ``pinn_poisson_detached``: the same with the second derivative taken without ``create_graph`` (the PDE term
  trains nothing: ``pinn-derivative-detached``);
* ``pinn_poisson_imbalanced``: the same residual written for a source 1e4 times stronger (a forcing in raw
  physical units), the boundary term left as it is (the terms orders of magnitude apart in value and gradient:
  ``pinn-loss-terms-imbalanced``);
* ``regression_with_penalty``: no PINN, a regression loss plus a weight penalty as two named terms: the
  breakdown is reported, no PINN check runs.
"""

import math

import torch
from torch import nn


def _net():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(1, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))


def _points():
    x = torch.linspace(0.0, 1.0, 66).reshape(-1, 1)
    return {"interior": x[1:-1].clone().requires_grad_(True), "boundary": torch.tensor([[0.0], [1.0]])}


def _poisson(source=1.0, create_graph=True):
    def compute_loss(model, batch):
        x = batch["interior"]
        u = model(x)
        (du,) = torch.autograd.grad(u.sum(), x, create_graph=True)
        (d2u,) = torch.autograd.grad(du.sum(), x, create_graph=create_graph)
        residual = d2u + source * math.pi**2 * torch.sin(math.pi * x)
        return {"pde": residual.pow(2).mean(), "boundary": model(batch["boundary"]).pow(2).mean()}

    return compute_loss


def pinn_poisson():
    return {"model": _net(), "batch": _points(), "compute_loss": _poisson(),
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def pinn_poisson_detached():
    return {**pinn_poisson(), "compute_loss": _poisson(create_graph=False)}


def pinn_poisson_imbalanced():
    return {**pinn_poisson(), "compute_loss": _poisson(source=1e4)}


def regression_with_penalty():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 1))
    x = torch.randn(64, 4)
    y = x[:, :1] * 2.0 - x[:, 1:2]

    def compute_loss(m, batch):
        inputs, targets = batch
        penalty = sum(p.pow(2).sum() for p in m.parameters())
        return {"mse": nn.functional.mse_loss(m(inputs), targets), "weight_penalty": 1e-4 * penalty}

    return {"model": model, "batch": (x, y), "compute_loss": compute_loss,
            "optimizer": lambda params: torch.optim.Adam(params, lr=1e-2)}


def bad_terms():
    """A dict whose values are not scalar loss terms: a clear setup error."""
    model = nn.Linear(2, 1)
    return {"model": model, "batch": (torch.randn(4, 2), torch.randn(4, 1)),
            "compute_loss": lambda m, b: {"per_sample": (m(b[0]) - b[1]).pow(2)}}
