"""The ``lightning-epoch-metric-not-synced`` rule (``mlsleuth/scan/rules/distributed/lightning_epoch_metric_not_synced.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project, messages

RULE = {"lightning-epoch-metric-not-synced"}

MODULE = """
import lightning.pytorch as pl
import torch
import torch.nn.functional as F


class Lit(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self(x), y)
        self.log("train_loss", loss, on_epoch=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        logits = self(x)
        acc = (logits.argmax(dim=1) == y).float().mean()
        self.log("val_loss", F.cross_entropy(logits, y), on_epoch=True)  # expect: lightning-epoch-metric-not-synced
        self.log("val_acc", acc, prog_bar=True)  # expect: lightning-epoch-metric-not-synced
"""

FIT = """
import lightning.pytorch as pl
from lightning.pytorch.callbacks import ModelCheckpoint
from module import Lit

ckpt = ModelCheckpoint(monitor="val_acc", mode="max")
trainer = pl.Trainer(devices=4, strategy="ddp", callbacks=[ckpt])
trainer.fit(Lit())
"""


def test_monitored_metric_under_ddp_in_another_file_is_a_warning(tmp_path):
    check_project(tmp_path, {"module.py": MODULE, "fit.py": FIT}, RULE)


def test_severity_follows_the_monitor_and_devices_come_from_a_config():
    src = """
        from dataclasses import dataclass
        import pytorch_lightning as pl
        from pytorch_lightning.callbacks import EarlyStopping

        @dataclass
        class Cfg:
            gpus: int = 8

        class Seg(pl.LightningModule):
            def validation_step(self, batch, i):
                dice = self.dice_score(batch)
                self.log_dict({"val_dice": dice, "val_iou": dice / 2})  # expect: lightning-epoch-metric-not-synced

        cfg = Cfg()
        trainer = pl.Trainer(devices=cfg.gpus, callbacks=[EarlyStopping(monitor="val_dice")])
        """
    check(src, RULE)
    found = messages(src, "lightning-epoch-metric-not-synced")
    assert {f.severity for f in found} == {"warning", "info"}


def test_torchmetrics_synced_logs_and_single_device_are_fine(tmp_path):
    module = """
    import lightning.pytorch as pl
    from torchmetrics.classification import MulticlassAccuracy


    class Lit(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.val_acc = MulticlassAccuracy(num_classes=10)

        def training_step(self, batch, batch_idx):
            loss = self(batch)
            self.log("train_loss", loss)          # a per-step progress value, not monitored
            return loss

        def validation_step(self, batch, batch_idx):
            x, y = batch
            logits = self(x)
            self.val_acc.update(logits, y)
            self.log("val_acc", self.val_acc, on_epoch=True)
            self.log("val_loss", self.loss(logits, y), sync_dist=True)
            self.log("val_rank_loss", self.loss(logits, y), sync_dist=False)

        def on_validation_epoch_end(self):
            self.log("val_acc_epoch", self.val_acc.compute())
    """
    fit = FIT.replace("from module import Lit", "from module import Lit")
    check_project(tmp_path / "a", {"module.py": module, "fit.py": fit}, RULE)
    single = FIT.replace('devices=4, strategy="ddp"', "devices=1")
    check_project(tmp_path / "b", {"module.py": MODULE.replace("  # expect: lightning-epoch-metric-not-synced", ""),
                                   "fit.py": single}, RULE)
