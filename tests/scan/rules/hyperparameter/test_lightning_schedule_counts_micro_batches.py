"""The ``lightning-schedule-counts-micro-batches`` rule (``mlsleuth/scan/rules/hyperparameter/lightning_schedule_counts_micro_batches.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"lightning-schedule-counts-micro-batches"}

MODULE = """
import lightning.pytorch as pl
import torch


class SignModel(pl.LightningModule):
    def __init__(self, lr=1e-3, steps_per_epoch=1000, epochs=30):
        super().__init__()
        self.lr, self.steps_per_epoch, self.epochs = lr, steps_per_epoch, epochs

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(self.parameters(), lr=self.lr)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(
            optimizer, max_lr=self.lr, epochs=self.epochs, steps_per_epoch=self.steps_per_epoch)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
"""

TRAIN = """
import lightning.pytorch as pl
from module import SignModel

ACCUMULATE = 4

def main(dm):
    model = SignModel(lr=1e-3, steps_per_epoch=len(dm.train_dataloader()), epochs=30)  # expect: lightning-schedule-counts-micro-batches
    trainer = pl.Trainer(max_epochs=30, accumulate_grad_batches=ACCUMULATE)
    trainer.fit(model, datamodule=dm)
"""


def test_size_passed_from_another_file_under_accumulation(tmp_path):
    check_project(tmp_path, {"module.py": MODULE, "train.py": TRAIN}, RULE)


def test_size_computed_in_configure_optimizers_with_a_config_accumulation():
    check(
        """
        from dataclasses import dataclass
        import pytorch_lightning as pl
        import torch
        from transformers import get_linear_schedule_with_warmup

        @dataclass
        class Cfg:
            accum: int = 8
            epochs: int = 3

        class Lit(pl.LightningModule):
            def configure_optimizers(self):
                opt = torch.optim.AdamW(self.parameters(), lr=3e-5)
                total = len(self.trainer.datamodule.train_dataloader()) * self.trainer.max_epochs  # expect: lightning-schedule-counts-micro-batches
                sched = get_linear_schedule_with_warmup(opt, 100, total)
                return [opt], [{"scheduler": sched, "interval": "step"}]

        cfg = Cfg()
        trainer = pl.Trainer(max_epochs=cfg.epochs, accumulate_grad_batches=cfg.accum)
        """,
        RULE,
    )


def test_stepping_batches_divided_sizes_and_no_accumulation_are_fine(tmp_path):
    module = """
    import lightning.pytorch as pl
    import torch


    class A(pl.LightningModule):
        def configure_optimizers(self):
            opt = torch.optim.Adam(self.parameters())
            s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, total_steps=self.trainer.estimated_stepping_batches)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}


    class B(pl.LightningModule):
        def __init__(self, loader, accum=4):
            super().__init__()
            self.loader, self.accum = loader, accum

        def configure_optimizers(self):
            opt = torch.optim.Adam(self.parameters())
            n = len(self.loader) // self.accum
            s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-3, epochs=10, steps_per_epoch=n)
            return {"optimizer": opt, "lr_scheduler": {"scheduler": s, "interval": "step"}}
    """
    train = TRAIN.replace("from module import SignModel", "from module import A as SignModel, B").replace(
        "  # expect: lightning-schedule-counts-micro-batches", "")
    check_project(tmp_path / "a", {"module.py": module, "train.py": train}, RULE)
    no_accum = TRAIN.replace("accumulate_grad_batches=ACCUMULATE", "accumulate_grad_batches=1")
    check_project(tmp_path / "b", {"module.py": MODULE,
                                   "train.py": no_accum.replace("  # expect: lightning-schedule-counts-micro-batches", "")}, RULE)
