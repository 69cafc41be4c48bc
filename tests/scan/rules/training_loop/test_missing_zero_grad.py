"""The ``missing-zero-grad`` rule (``mlsleuth/scan/rules/training_loop/missing_zero_grad.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

ZG = {"missing-zero-grad", "zero-grad-between-backward-and-step", "step-before-backward"}


def test_missing_zero_grad_positive_with_alias_and_message():
    src = """
        import torch.optim as O

        def train(model, loader, crit):
            opt = O.SGD(model.parameters(), lr=0.1)
            for x, y in loader:  # expect: missing-zero-grad
                loss = crit(model(x), y)
                loss.backward()
                opt.step()
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "backward at line 8" in f.message and "opt.step() at line 9" in f.message
    assert "grad.norm()" in f.next_test


def test_missing_zero_grad_when_cleared_only_once_per_epoch():
    src = """
        import torch
        def fit(model, loader, epochs):
            optimizer = torch.optim.Adam(model.parameters())
            for epoch in range(epochs):
                optimizer.zero_grad()
                for x, y in loader:  # expect: missing-zero-grad
                    model(x, y).backward()
                    optimizer.step()
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "outside this loop" in f.message and "line 6" in f.message


def test_zero_grad_variants_are_accepted():
    # top of loop, model.zero_grad, set_to_none, p.grad = None, at the end, in a helper
    check(
        """
        import torch
        def a(model, loader, opt):
            for x in loader:
                opt.zero_grad(set_to_none=True)
                model(x).sum().backward()
                opt.step()

        def b(model, loader, opt):
            for x in loader:
                model.zero_grad()
                model(x).sum().backward()
                opt.step()

        def c(model, loader, opt):
            for x in loader:
                for p in model.parameters():
                    p.grad = None
                model(x).sum().backward()
                opt.step()

        def clear(opt):
            opt.zero_grad()

        def d(model, loader, opt):
            for x in loader:
                model(x).sum().backward()
                opt.step()
                clear(opt)
        """,
        ZG,
    )


def test_accumulation_zero_grad_every_n_steps_is_fine():
    check(
        """
        def train(model, loader, optimizer, accum):
            for i, (x, y) in enumerate(loader):
                loss = model(x, y) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """,
        ZG,
    )


def test_lbfgs_closure_zero_grad_is_fine():
    check(
        """
        import torch
        def fit(model, x, y):
            opt = torch.optim.LBFGS(model.parameters(), lr=1)
            for _ in range(20):
                def closure():
                    opt.zero_grad()
                    loss = ((model(x) - y) ** 2).mean()
                    loss.backward()
                    return loss
                opt.step(closure)
        """,
        ZG,
    )


def test_gan_two_optimizers_not_confused():
    check(
        """
        import torch
        def train(G, D, loader):
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for real in loader:
                opt_d.zero_grad()
                d_loss = D(real).mean() - D(G(real).detach()).mean()
                d_loss.backward()
                opt_g.zero_grad()
                opt_d.step()
                g_loss = -D(G(real)).mean()
                g_loss.backward()
                opt_g.step()
        """,
        ZG,
    )


def test_manual_grad_zeroing_forms_count_as_zero_grad():
    check(
        """
        def train(model, loader, optimizer):
            for x in loader:
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.data.zero_()
                model(x).sum().backward()
                optimizer.step()

        def train2(model, loader, optimizer):
            for x in loader:
                model(x).sum().backward()
                optimizer.step()
                for p in model.parameters():
                    p.grad.fill_(0)
        """,
        ZG,
    )


def test_zero_grad_named_but_not_called():
    src = """
        def train_one_epoch(model, optimizer, data_loader):
            for images, targets in data_loader:  # expect: missing-zero-grad
                losses = model(images, targets)
                total = sum(losses.values())
                total.backward()
                optimizer.step()
                optimizer.zero_grad
        """
    check(src, ZG)
    (f,) = messages(src, "missing-zero-grad")
    assert "without calling it" in f.message and "line 8" in f.message


def test_distributed_autograd_context_per_iteration_needs_no_zero_grad():
    src = """
        import torch.distributed.autograd as dist_autograd
        from torch.distributed.optim import DistributedOptimizer

        def run_trainer(model, loader, param_rrefs):
            opt = DistributedOptimizer(torch.optim.SGD, param_rrefs, lr=0.05)
            for epoch in range(10):
                for x, y in loader:
                    with dist_autograd.context() as context_id:
                        loss = model(x).sum()
                        dist_autograd.backward(context_id, [loss])
                        opt.step(context_id)
        """
    check(src, {"missing-zero-grad"})


def test_plain_context_manager_around_the_step_does_not_excuse_missing_zero_grad():
    src = """
        import contextlib
        import torch

        def train(model, loader):
            opt = torch.optim.SGD(model.parameters(), lr=0.05)
            for x, y in loader:  # expect: missing-zero-grad
                with contextlib.nullcontext():
                    loss = model(x).sum()
                    loss.backward()
                    opt.step()
        """
    check(src, {"missing-zero-grad"})


def test_a_gradient_clearing_helper_from_another_module_counts():
    # mixed precision by hand: the model's half-precision grads are cleared by a helper that lives in a
    # sibling module (not visible here), the fp32 master copies get their .grad assigned fresh every step
    check(
        """
        import torch
        from .half_precision import clear_grads, copy_grads_to_master

        class Trainer:
            def __init__(self, model, lr):
                self.model = model
                self.params = list(model.parameters())
                self.master = [p.detach().float().requires_grad_() for p in self.params]
                self.opt = torch.optim.AdamW(self.master, lr=lr)

            def fit(self, batches):
                for batch in batches:
                    clear_grads(self.params)
                    loss = self.model(batch).float().mean()
                    (loss * 1024.0).backward()
                    copy_grads_to_master(self.params, self.master, 1.0 / 1024.0)
                    self.opt.step()
        """,
        ZG,
    )


def test_mxnet_port_of_a_training_loop_stays_silent():
    # the same textbook loop written for MXNet: backward overwrites the gradients (grad_req="write")
    src = """
        from mxnet import autograd, gluon

        def fit(net, trainer, loss_fn, data, epochs):
            for _ in range(epochs):
                for X, y in data:
                    with autograd.record():
                        loss = loss_fn(net(X), y)
                    loss.backward()
                    trainer.step(X.shape[0])
        """
    check(src, ZG)
