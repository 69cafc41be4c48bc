"""The ``autograd-grad-without-create-graph`` rule (``mlsleuth/scan/rules/loss/autograd_grad_without_create_graph.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

RULE = {"autograd-grad-without-create-graph"}


def test_second_derivative_without_create_graph_in_the_residual():
    src = """
        import torch

        def train(net, opt, x_col, x_bc):
            for step in range(1000):
                opt.zero_grad()
                u = net(x_col)
                u_x = torch.autograd.grad(u, x_col, torch.ones_like(u), create_graph=True)[0]
                u_xx = torch.autograd.grad(u_x, x_col, torch.ones_like(u_x))[0]  # expect: autograd-grad-without-create-graph
                residual = u_xx + torch.sin(x_col)
                loss = torch.mean(residual ** 2) + torch.mean(net(x_bc) ** 2)
                loss.backward()
                opt.step()
        """
    check(src, RULE)
    (f,) = messages(src, "autograd-grad-without-create-graph")
    assert "create_graph" in f.message


def test_helper_returning_a_graph_less_derivative_used_in_the_loss():
    check(
        """
        from torch.autograd import grad
        import torch.nn.functional as F

        def d(y, x):
            return grad(y.sum(), x, create_graph=False)[0]  # expect: autograd-grad-without-create-graph

        def pde_loss(model, t):
            u = model(t)
            return F.mse_loss(d(u, t), -u)

        def fit(model, opt, t, t0):
            for _ in range(100):
                loss = pde_loss(model, t) + (model(t0) - 1).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_create_graph_everywhere_is_fine():
    check(
        """
        import torch

        def train(net, opt, x):
            for step in range(100):
                u = net(x)
                u_x = torch.autograd.grad(u, x, torch.ones_like(u), create_graph=True)[0]
                u_xx = torch.autograd.grad(u_x, x, torch.ones_like(u_x), create_graph=True)[0]
                loss = (u_xx + 1).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )


def test_adversarial_input_gradient_without_create_graph_is_fine():
    # FGSM: the input gradient is a constant on purpose; it reaches the loss through the model, not by arithmetic
    check(
        """
        import torch
        import torch.nn.functional as F

        def train(model, opt, loader, eps=0.03):
            for x, y in loader:
                x.requires_grad_(True)
                loss = F.cross_entropy(model(x), y)
                g = torch.autograd.grad(loss, x, retain_graph=True)[0]
                x_adv = x + eps * g
                adv = F.cross_entropy(model(x_adv), y)
                total = loss + adv
                opt.zero_grad()
                total.backward()
                opt.step()
        """,
        RULE,
    )


def test_derivative_for_logging_or_parameter_gradients_is_fine():
    check(
        """
        import torch

        def train(net, opt, x, log):
            for step in range(100):
                u = net(x)
                loss = (u - 1).pow(2).mean()
                slope = torch.autograd.grad(u.sum(), x, retain_graph=True)[0]
                log.append(slope.abs().max().item())
                norms = torch.autograd.grad(loss, list(net.parameters()), retain_graph=True)
                opt.zero_grad()
                loss.backward()
                opt.step()
        """,
        RULE,
    )
