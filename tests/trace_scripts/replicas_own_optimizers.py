"""Simulated data parallelism: two model replicas, each with its own momentum-SGD optimizer, gradients averaged.

The replicas' optimizers step one after the other; neither replica's parameters are "not updated".
"""
import copy

import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 1))
replicas = [net, copy.deepcopy(net)]
opts = [torch.optim.SGD(r.parameters(), lr=0.02, momentum=0.9) for r in replicas]
w = torch.randn(10, 1)
for step in range(200):
    losses = []
    for r in replicas:
        x = torch.randn(16, 10)
        losses.append(nn.functional.mse_loss(r(x), x @ w))
    for loss in losses:
        loss.backward()
    with torch.no_grad():  # all-reduce: average the replicas' gradients
        for ps in zip(*(r.parameters() for r in replicas)):
            mean = sum(p.grad for p in ps) / len(ps)
            for p in ps:
                p.grad.copy_(mean)
    for opt in opts:
        opt.step()
        opt.zero_grad()
