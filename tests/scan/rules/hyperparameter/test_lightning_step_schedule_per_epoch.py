"""The ``lightning-step-schedule-per-epoch`` rule (``mlsleuth/scan/rules/hyperparameter/lightning_step_schedule_per_epoch.py``)."""

from __future__ import annotations

from scan.helpers import check, messages

RULE = {"lightning-step-schedule-per-epoch"}


def test_one_cycle_returned_without_interval():
    # as in Lightning-AI/pytorch-lightning#3869: the config dict has a name but no interval
    src = """
        import torch
        import lightning as L

        class Model(L.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)  # expect: lightning-step-schedule-per-epoch
                return [opt], [{"scheduler": sched, "name": "lr"}]
        """
    check(src, RULE)


def test_bare_lists_explicit_epoch_and_misplaced_interval():
    src = """
        import torch
        import pytorch_lightning as pl
        from transformers import get_linear_schedule_with_warmup

        class A(pl.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.SGD(self.parameters(), lr=0.1)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1, epochs=10, steps_per_epoch=len(self.loader))  # expect: lightning-step-schedule-per-epoch
                return [opt], [sched]

        class B(pl.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=5e-5)
                warm = get_linear_schedule_with_warmup(opt, num_warmup_steps=100, num_training_steps=self.trainer.estimated_stepping_batches)  # expect: lightning-step-schedule-per-epoch
                return {"optimizer": opt, "lr_scheduler": {"scheduler": warm, "interval": "epoch"}}

        class C(pl.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.Adam(self.parameters())
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.total_steps)  # expect: lightning-step-schedule-per-epoch
                return {"optimizer": opt, "lr_scheduler": sched, "interval": "step"}
        """
    check(src, RULE)
    c = [f for f in messages(src, "lightning-step-schedule-per-epoch") if "outer dict" in f.message]
    assert len(c) == 1


def test_interval_step_epoch_schedules_and_manual_optimization_are_fine():
    check(
        """
        import torch
        import lightning as L

        class PerStep(L.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
                config = {"scheduler": sched, "interval": "step", "frequency": 1}
                return {"optimizer": opt, "lr_scheduler": config}

        class Cosine(L.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                return [opt], [torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.hparams.epochs)]

        class OneCyclePerEpoch(L.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, epochs=20, steps_per_epoch=1)
                return [opt], [sched]

        class Manual(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                self.manual_backward(self(batch).mean())
                opt.step()
                self.lr_schedulers().step()

            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                return [opt], [torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=1000)]

        class NotLightning(torch.nn.Module):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
                return [opt], [torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=1000)]
        """,
        RULE,
    )
