"""The ``grad-accumulation-loss-not-scaled`` rule (``mlsleuth/scan/rules/training_loop/grad_accumulation_loss_not_scaled.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

ACC = {"grad-accumulation-loss-not-scaled"}


def test_accumulation_without_division():
    src = """
        def train(model, loader, optimizer, crit, accum_steps=4):
            for i, (x, y) in enumerate(loader):
                loss = crit(model(x), y)
                loss.backward()  # expect: grad-accumulation-loss-not-scaled
                if (i + 1) % accum_steps == 0:
                    optimizer.step()
                    optimizer.zero_grad()
        """
    check(src, ACC)
    (f,) = messages(src, "grad-accumulation-loss-not-scaled")
    assert "accum_steps" in f.message and "line 6" in f.message


def test_accumulation_with_division_variants_is_fine():
    check(
        """
        def a(model, loader, optimizer, crit, k):
            for i, (x, y) in enumerate(loader):
                loss = crit(model(x), y)
                loss = loss / k
                loss.backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def b(model, loader, optimizer, crit, k):
            for i, (x, y) in enumerate(loader):
                (crit(model(x), y) / k).backward()
                if (i + 1) % k == 0:
                    optimizer.step()
                    optimizer.zero_grad()

        def c(accelerator, model, loader, optimizer, crit):
            for i, (x, y) in enumerate(loader):
                with accelerator.accumulate(model):
                    accelerator.backward(crit(model(x), y))
                    if i % 2 == 0:
                        optimizer.step()
                        optimizer.zero_grad()

        def d(model, loader, optimizer, crit, log_every):
            for i, (x, y) in enumerate(loader):
                optimizer.zero_grad()
                crit(model(x), y).backward()
                optimizer.step()
                if i % log_every == 0:
                    print(i)
        """,
        ACC,
    )


def test_temperature_inside_the_loss_helper_is_not_accumulation_scaling():
    src = """
        import torch
        import torch.nn.functional as F

        def info_nce(z1, z2, temperature):
            logits = F.normalize(z1, dim=1) @ F.normalize(z2, dim=1).t() / temperature
            return F.cross_entropy(logits, torch.arange(len(z1)))

        def train(encoder, loader, opt, accum):
            for i, (a, b) in enumerate(loader):
                loss = info_nce(encoder(a), encoder(b), 0.1)
                loss.backward()  # expect: grad-accumulation-loss-not-scaled
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()
        """
    check(src, {"grad-accumulation-loss-not-scaled"})


def test_helper_returning_the_loss_divided_by_the_window_is_scaled():
    src = """
        import torch.nn.functional as F

        def micro_loss(model, x, y, accum):
            loss = F.cross_entropy(model(x), y)
            return loss / accum

        def train(model, loader, opt, accum):
            for i, (x, y) in enumerate(loader):
                loss = micro_loss(model, x, y, accum)
                loss.backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()
        """
    check(src, {"grad-accumulation-loss-not-scaled"})


def test_micro_step_loop_then_one_step_without_scaling():
    src = """
        import torch.nn.functional as F

        class Trainer:
            def train_step(self):
                self.optimizer.zero_grad(set_to_none=True)
                for micro_step in range(self.accum):
                    x, y = self.get_batch()
                    loss = F.cross_entropy(self.model(x), y)
                    loss.backward()  # expect: grad-accumulation-loss-not-scaled
                self.optimizer.step()

            def fit(self, iters):
                for it in range(iters):
                    self.train_step()
        """
    check(src, {"grad-accumulation-loss-not-scaled"})


def test_micro_step_loop_scaled_or_with_divided_gradients_or_one_step_per_micro_batch_is_fine():
    src = """
        import torch.nn.functional as F

        def scaled(model, opt, get_batch, accum, iters):
            for it in range(iters):
                for micro_step in range(accum):
                    x, y = get_batch()
                    loss = F.cross_entropy(model(x), y) / accum
                    loss.backward()
                opt.step()
                opt.zero_grad()

        def divided(model, opt, get_batch, accum, iters):
            for it in range(iters):
                n = 0
                for micro_step in range(accum):
                    x, y = get_batch()
                    F.cross_entropy(model(x), y, reduction="sum").backward()
                    n += y.numel()
                for p in model.parameters():
                    p.grad.div_(n)
                opt.step()
                opt.zero_grad()

        def stepped_each(model, opt, get_batch, iters):
            for it in range(iters):
                for k in range(4):
                    opt.zero_grad()
                    F.cross_entropy(model(get_batch()[0]), get_batch()[1]).backward()
                    opt.step()
        """
    check(src, {"grad-accumulation-loss-not-scaled"})
