"""Tensors that get gradients but that no optimizer updates, in several shapes (argv[1]); buggy and clean variants.

Buggy: 'attr' (a learnable temperature kept as a plain tensor attribute with requires_grad=True), 'global' (a
coefficient vector kept as a script global), 'plist' (per-layer gains as nn.Parameters in a plain list), 'second'
(a head model whose parameters were left out of the optimizer), 'zeros-attr' (a slope initialised to zeros and
stored as a plain attribute without requires_grad).
Clean: 'param' (the temperature is an nn.Parameter), 'global-opt' (the global is handed to the optimizer), 'coords'
(fixed collocation points with requires_grad=True fed to the model), 'pinn' (fixed coordinates
with requires_grad=True, concatenated before the model, and a derivative taken with respect to them), 'manual' (a tensor stepped by hand), 'noise'
(a perturbation built afresh each step), 'ema' (a teacher updated by an exponential moving average), 'buffer-ones'
(a constant all-ones mask registered as a buffer), 'table' (an integer offset table kept as a plain attribute).
"""
import copy
import sys

import torch
from torch import nn

variant = sys.argv[1] if len(sys.argv) > 1 else "attr"
torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 16), nn.Linear(16, 4)
        if variant == "attr":
            self.log_t = torch.zeros(1, requires_grad=True)
        elif variant == "param":
            self.log_t = nn.Parameter(torch.zeros(1))
        if variant == "plist":
            self.gains = [nn.Parameter(torch.ones(16)), nn.Parameter(torch.ones(4))]
        if variant == "zeros-attr":
            self.slope = torch.zeros(16)
        if variant == "buffer-ones":
            self.register_buffer("mask", torch.ones(16))
        if variant == "table":
            self.offsets = torch.tensor([0, 3, 7, 12])

    def forward(self, x):
        h = self.fc1(x)
        if variant == "plist":
            h = h * self.gains[0]
        if variant == "zeros-attr":
            h = torch.where(h > 0, h, self.slope * h)
        else:
            h = torch.relu(h)
        if variant == "buffer-ones":
            h = h * self.mask
        out = self.fc2(h)
        if variant == "plist":
            out = out * self.gains[1]
        if variant in ("attr", "param"):
            out = out / self.log_t.exp()
        if variant == "table":
            out = out + self.offsets.float().mean() * 0
        return out


model = Encoder()
head = nn.Linear(4, 1)
coef = torch.ones(4, requires_grad=True)
params = list(model.parameters())
if variant != "second":
    params += list(head.parameters())
if variant == "global-opt":
    params.append(coef)
opt = torch.optim.Adam(params, lr=1e-2)
teacher = copy.deepcopy(model) if variant == "ema" else None
coords = torch.linspace(-1, 1, 32 * 6).reshape(32, 6).requires_grad_(True)

for step in range(30):
    x = coords if variant == "coords" else torch.randn(32, 6)
    y = x.detach().sum(1, keepdim=True)
    if variant == "noise":
        x = x + torch.zeros_like(x, requires_grad=True)
    if variant == "pinn":
        xs = coords[:, :3]
        x = torch.cat([xs, coords[:, 3:].detach()], 1)
    feats = model(x)
    pred = head(feats)
    loss = nn.functional.mse_loss(pred, y)
    if variant in ("global", "global-opt", "manual"):
        loss = loss + (feats * coef).pow(2).mean() * 1e-3
    if variant == "ema":
        loss = loss + nn.functional.mse_loss(feats, teacher(x))
    if variant == "pinn":
        (dfdx,) = torch.autograd.grad(feats.sum(), xs, create_graph=True)
        loss = loss + dfdx.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if variant == "manual":
        with torch.no_grad():
            coef -= 0.1 * coef.grad
            coef.grad = None
    if variant == "ema":
        with torch.no_grad():
            for t, s in zip(teacher.parameters(), model.parameters()):
                t.mul_(0.9).add_(s, alpha=0.1)
