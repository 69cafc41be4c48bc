"""The ``scheduler-never-stepped`` rule (``mlsleuth/scan/rules/hyperparameter/scheduler_never_stepped.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

SN = {"scheduler-never-stepped"}


def test_torch_scheduler_in_a_script_never_stepped():
    check(
        """
        import torch
        from torch.optim.lr_scheduler import MultiStepLR

        model = torch.nn.Linear(4, 2)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        scheduler = MultiStepLR(optimizer, milestones=[30, 60], gamma=0.1)  # expect: scheduler-never-stepped
        for epoch in range(90):
            for x, y in loader:
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
            print(epoch, scheduler.get_last_lr())
        """,
        SN,
    )


def test_warmup_factory_through_accelerate_prepare_never_stepped():
    check(
        """
        import torch
        from accelerate import Accelerator
        from transformers import get_linear_schedule_with_warmup

        def main(model, loader, args):
            accelerator = Accelerator()
            optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
            lr_sched = get_linear_schedule_with_warmup(optimizer, args.warmup, args.total)  # expect: scheduler-never-stepped
            model, optimizer, loader, sched = accelerator.prepare(model, optimizer, loader, lr_sched)
            for batch in loader:
                loss = model(**batch).loss
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
            accelerator.save({"sched": sched.state_dict()}, "ckpt.pt")
        """,
        SN,
    )


def test_project_helper_scheduler_never_stepped():
    check(
        """
        import math
        import torch
        from torch.optim.lr_scheduler import LambdaLR

        def build_scheduler(opt, warmup, total):
            def f(s):
                return s / warmup if s < warmup else 0.5 * (1 + math.cos(math.pi * s / total))
            return LambdaLR(opt, f)

        def train(model, loader):
            opt = torch.optim.Adam(model.parameters(), lr=1e-3)
            sched = build_scheduler(opt, 500, 10000)  # expect: scheduler-never-stepped
            for x in loader:
                opt.zero_grad()
                model(x).mean().backward()
                opt.step()
        """,
        SN,
    )


def test_lightning_manual_optimization_without_lr_schedulers():
    check(
        """
        import torch
        import lightning as L

        class GAN(L.LightningModule):
            def __init__(self, g, d):
                super().__init__()
                self.automatic_optimization = False
                self.g, self.d = g, d

            def training_step(self, batch, batch_idx):
                opt_g, opt_d = self.optimizers()
                loss_d = self.d(batch).mean()
                opt_d.zero_grad()
                self.manual_backward(loss_d)
                opt_d.step()

            def configure_optimizers(self):
                opt_g = torch.optim.Adam(self.g.parameters(), lr=2e-4)
                opt_d = torch.optim.Adam(self.d.parameters(), lr=2e-4)
                sch_g = torch.optim.lr_scheduler.ExponentialLR(opt_g, gamma=0.999)  # expect: scheduler-never-stepped
                sch_d = torch.optim.lr_scheduler.ExponentialLR(opt_d, gamma=0.999)  # expect: scheduler-never-stepped
                return [opt_g, opt_d], [sch_g, sch_d]
        """,
        SN,
    )


def test_message():
    got = findings(
        """
        import torch
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 10)
        for x in loader:
            opt.zero_grad(); model(x).sum().backward(); opt.step()
        """,
        "scheduler-never-stepped",
    )
    assert len(got) == 1 and "`sched`" in got[0].message


def test_stepped_or_handed_over_schedulers_are_fine():
    check(
        """
        import torch
        import lightning as L
        from transformers import Trainer, get_cosine_schedule_with_warmup

        def a(model, loader):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 10)
            for epoch in range(3):
                for x in loader:
                    opt.zero_grad(); model(x).sum().backward(); opt.step()
                if sched is not None:
                    sched.step()

        def b(model, loader, run_epoch):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            sched = torch.optim.lr_scheduler.StepLR(opt, 10)
            for epoch in range(3):
                run_epoch(model, loader, opt, sched)

        def c(model, args, ds):
            opt = torch.optim.AdamW(model.parameters())
            sched = get_cosine_schedule_with_warmup(opt, 100, 1000)
            Trainer(model=model, args=args, train_dataset=ds, optimizers=(opt, sched)).train()
            opt.step()

        def d(opt):
            sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=100)
            return opt, sched

        class Auto(L.LightningModule):
            def training_step(self, batch, batch_idx):
                return self.net(batch).mean()

            def configure_optimizers(self):
                opt = torch.optim.Adam(self.parameters())
                return [opt], [torch.optim.lr_scheduler.StepLR(opt, 5)]
        """,
        SN,
    )


def test_lightning_manual_optimization_that_steps_is_fine():
    check(
        """
        import torch
        import lightning as L

        class M(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                opt.zero_grad()
                self.manual_backward(self.net(batch).mean())
                opt.step()

            def on_train_epoch_end(self):
                self.lr_schedulers().step()

            def configure_optimizers(self):
                opt = torch.optim.Adam(self.parameters())
                return [opt], [torch.optim.lr_scheduler.StepLR(opt, 5)]
        """,
        SN,
    )
