"""A clean PINN written in the style of DeepXDE's examples (our own code): geometry, PDE, boundary condition
and model objects, then compile and train. -u'' = pi^2 sin(pi x) on [-1, 1], u(-1) = u(1) = 0.
"""

import math
from itertools import pairwise

import torch

torch.manual_seed(10)


class Interval:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    def random_points(self, n):
        return self.lo + (self.hi - self.lo) * torch.rand(n, 1)

    def boundary_points(self):
        return torch.tensor([[float(self.lo)], [float(self.hi)]])


def hessian(y, x):
    dy = torch.autograd.grad(y, x, grad_outputs=torch.ones_like(y), create_graph=True)[0]
    return torch.autograd.grad(dy, x, grad_outputs=torch.ones_like(dy), create_graph=True)[0]


def pde(x, y):
    dy_xx = hessian(y, x)
    return -dy_xx - math.pi**2 * torch.sin(math.pi * x)


class DirichletBC:
    def __init__(self, geom, func):
        self.points, self.func = geom.boundary_points(), func

    def error(self, net):
        return net(self.points) - self.func(self.points)


class FNN(torch.nn.Module):
    def __init__(self, layer_sizes, activation=torch.tanh):
        super().__init__()
        self.linears = torch.nn.ModuleList(torch.nn.Linear(a, b) for a, b in pairwise(layer_sizes))
        self.activation = activation
        for lin in self.linears:
            torch.nn.init.xavier_normal_(lin.weight)
            torch.nn.init.zeros_(lin.bias)

    def forward(self, x):
        for lin in self.linears[:-1]:
            x = self.activation(lin(x))
        return self.linears[-1](x)


class Model:
    def __init__(self, geom, pde, bcs, net, num_domain):
        self.geom, self.pde, self.bcs, self.net, self.num_domain = geom, pde, bcs, net, num_domain

    def compile(self, lr):
        self.opt = torch.optim.Adam(self.net.parameters(), lr=lr)

    def losses(self):
        x = self.geom.random_points(self.num_domain).requires_grad_(True)
        out = [torch.mean(torch.square(self.pde(x, self.net(x))))]
        out += [torch.mean(torch.square(bc.error(self.net))) for bc in self.bcs]
        return out

    def train(self, iterations, display_every=100):
        for it in range(iterations):
            self.opt.zero_grad()
            losses = self.losses()
            total = torch.sum(torch.stack(losses))
            total.backward()
            self.opt.step()
            if it % display_every == 0:
                print(it, [f"{v.item():.2e}" for v in losses])


geom = Interval(-1, 1)
bc = DirichletBC(geom, lambda x: torch.zeros_like(x))
net = FNN([1, 32, 32, 1])
model = Model(geom, pde, [bc], net, num_domain=64)
model.compile(lr=1e-3)
model.train(iterations=300)
