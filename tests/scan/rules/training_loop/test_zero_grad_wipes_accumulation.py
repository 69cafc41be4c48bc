"""The ``zero-grad-wipes-accumulation`` rule (``mlsleuth/scan/rules/training_loop/zero_grad_wipes_accumulation.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

ZW = {"zero-grad-wipes-accumulation"}


def test_zero_grad_every_batch_with_modular_step():
    check(
        """
        import torch

        def train(model, loader, cfg):
            opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
            accum = cfg.gradient_accumulation_steps
            for step, (x, y) in enumerate(loader):
                opt.zero_grad(set_to_none=True)  # expect: zero-grad-wipes-accumulation
                loss = torch.nn.functional.cross_entropy(model(x), y) / accum
                loss.backward()
                if (step + 1) % accum == 0:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()
        """,
        ZW,
    )


def test_zero_grad_after_the_guarded_step_through_a_helper():
    check(
        """
        import torch

        def update(optimizer, scaler, it, k):
            if it % k == 0:
                scaler.step(optimizer)
                scaler.update()

        def fit(model, loader, k):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scaler = torch.cuda.amp.GradScaler()
            for it, batch in enumerate(loader):
                with torch.autocast("cuda"):
                    loss = model(batch).mean() / k
                scaler.scale(loss).backward()
                update(optimizer, scaler, it, k)
                model.zero_grad()  # expect: zero-grad-wipes-accumulation
        """,
        ZW,
    )


def test_zero_grad_inside_the_micro_step_loop():
    check(
        """
        import torch

        def train_step(model, opt, batch, grad_accum_steps):
            micro_batches = batch.chunk(grad_accum_steps)
            for micro in micro_batches:
                opt.zero_grad()  # expect: zero-grad-wipes-accumulation
                loss = model(micro).mean() / grad_accum_steps
                loss.backward()
            opt.step()

        def main(model, loader):
            opt = torch.optim.Adam(model.parameters())
            for batch in loader:
                train_step(model, opt, batch, 4)
        """,
        ZW,
    )


def test_model_zero_grad_inside_accelerate_accumulate():
    check(
        """
        from accelerate import Accelerator
        import torch

        accelerator = Accelerator(gradient_accumulation_steps=8)
        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.AdamW(model.parameters())
        model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
        for batch in loader:
            with accelerator.accumulate(model):
                model.zero_grad()  # expect: zero-grad-wipes-accumulation
                loss = model(batch["x"]).pow(2).mean()
                accelerator.backward(loss)
                optimizer.step()
        """,
        ZW,
    )


def test_message_names_the_step():
    got = findings(
        """
        import torch
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean() / 4
            loss.backward()
            if (i + 1) % 4 == 0:
                opt.step()
        """,
        "zero-grad-wipes-accumulation",
    )
    assert len(got) == 1 and "opt.step() at line 8" in got[0].message


def test_correct_accumulation_is_fine():
    check(
        """
        import torch
        from accelerate import Accelerator

        def a(model, loader, accum):
            opt = torch.optim.AdamW(model.parameters())
            opt.zero_grad()
            for i, (x, y) in enumerate(loader):
                loss = torch.nn.functional.mse_loss(model(x), y) / accum
                loss.backward()
                if (i + 1) % accum == 0:
                    opt.step()
                    opt.zero_grad()

        def b(model, opt, batch, grad_accum_steps):
            opt.zero_grad()
            for micro in batch.chunk(grad_accum_steps):
                (model(micro).mean() / grad_accum_steps).backward()
            opt.step()

        def c(model, opt, loader, grad_accum_steps):
            for i, batch in enumerate(loader):
                if i % grad_accum_steps == 0:
                    opt.zero_grad()
                model(batch).mean().backward()
                if (i + 1) % grad_accum_steps == 0:
                    opt.step()

        def d(model, optimizer, loader):
            accelerator = Accelerator(gradient_accumulation_steps=4)
            model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
            for batch in loader:
                with accelerator.accumulate(model):
                    optimizer.zero_grad()
                    accelerator.backward(model(batch).mean())
                    optimizer.step()
        """,
        ZW,
    )


def test_two_optimizers_on_different_schedules_are_fine():
    check(
        """
        import torch

        def gan(G, D, loader, n_critic):
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for i, real in enumerate(loader):
                opt_d.zero_grad()
                d_loss = D(G(torch.randn(8, 4)).detach()).mean() - D(real).mean()
                d_loss.backward()
                opt_d.step()
                if i % n_critic == 0:
                    opt_g.zero_grad()
                    g_loss = -D(G(torch.randn(8, 4))).mean()
                    g_loss.backward()
                    opt_g.step()
        """,
        ZW,
    )
