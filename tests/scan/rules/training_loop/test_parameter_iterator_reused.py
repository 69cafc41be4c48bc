"""The ``parameter-iterator-reused`` rule (``mlsleuth/scan/rules/training_loop/parameter_iterator_reused.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"parameter-iterator-reused"}


def test_generator_read_twice_or_once_per_step():
    src = """
    import torch
    from torch import nn

    def fit(model, loader, lr):
        params = filter(lambda p: p.requires_grad, model.parameters())
        opt = torch.optim.AdamW(params, lr=lr)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)  # expect: parameter-iterator-reused
            opt.step()

    def fit2(model, loader, opt):
        trainable = (p for p in model.parameters() if p.requires_grad)
        for x, y in loader:
            opt.zero_grad()
            model(x).sum().backward()
            torch.nn.utils.clip_grad_value_(trainable, 0.5)  # expect: parameter-iterator-reused
            opt.step()

    def fit_lora(unet, loader, accelerator, args):
        params_to_optimize = filter(lambda p: p.requires_grad, unet.parameters())
        optimizer = torch.optim.AdamW(params_to_optimize, lr=args.lr)
        for batch in loader:
            with accelerator.accumulate(unet):
                loss = unet(batch).mean()
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    params_to_clip = params_to_optimize
                    accelerator.clip_grad_norm_(params_to_clip, args.max_grad_norm)  # expect: parameter-iterator-reused
                optimizer.step()
                optimizer.zero_grad()

    def report(model):
        ps = model.parameters()
        n = sum(p.numel() for p in ps)
        norms = [p.norm() for p in ps]  # expect: parameter-iterator-reused
        return n, norms
    """
    check(src, RULE)


def test_lists_fresh_calls_and_single_reads_are_fine():
    src = """
    import torch
    from torch import nn

    def fit(model, loader, lr):
        params = list(filter(lambda p: p.requires_grad, model.parameters()))
        opt = torch.optim.AdamW(params, lr=lr)
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(params, 1.0)
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

    def fit2(model, loader, opt):
        for x, y in loader:
            trainable = (p for p in model.parameters() if p.requires_grad)
            opt.zero_grad()
            model(x).sum().backward()
            torch.nn.utils.clip_grad_value_(trainable, 0.5)
            opt.step()

    def build(model, cfg):
        decay = (p for n, p in model.named_parameters() if p.ndim > 1)
        no_decay = (p for n, p in model.named_parameters() if p.ndim <= 1)
        return torch.optim.AdamW([{"params": decay}, {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr)

    def batches(loader, epochs):
        it = iter(loader)
        for _ in range(epochs):
            yield next(it)
    """
    check(src, RULE)


def test_helper_that_loops_twice_over_what_the_caller_passes(tmp_path):
    files = {
        "utils.py": """
            import torch

            def grad_clipping(params, theta):
                norm = torch.zeros(1)
                for p in params:
                    norm += (p.grad ** 2).sum()
                norm = norm.sqrt().item()
                if norm > theta:
                    for p in params:
                        p.grad.mul_(theta / norm)
                return norm

            def safe_clipping(params, theta):
                params = [p for p in params if p.grad is not None]
                norm = torch.sqrt(sum((p.grad ** 2).sum() for p in params))
                for p in params:
                    p.grad.mul_(min(1.0, theta / float(norm)))
            """,
        "train.py": """
            from utils import grad_clipping, safe_clipping

            def step(model, opt, loss):
                opt.zero_grad()
                loss.backward()
                grad_clipping(model.parameters(), 1.0)  # expect: parameter-iterator-reused
                grad_clipping(list(model.parameters()), 1.0)
                safe_clipping(model.parameters(), 1.0)
                opt.step()
            """,
    }
    check_project(tmp_path, files, RULE)


def test_parameter_iterator_kept_on_self_and_read_in_init_then_per_step():
    src = """
    import torch

    class Trainer:
        def __init__(self, model):
            self.model = model
            self.params = model.parameters()
            self.opt = torch.optim.SGD(self.params, lr=0.1)

        def step(self, loss):
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.params, 1.0)  # expect: parameter-iterator-reused
            self.opt.step()

    class Listed:
        def __init__(self, model):
            self.params = list(model.parameters())
            self.opt = torch.optim.SGD(self.params, lr=0.1)

        def step(self, loss):
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.params, 1.0)
            self.opt.step()
    """
    check(src, RULE)
