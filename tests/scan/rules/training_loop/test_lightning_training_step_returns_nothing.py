"""The ``lightning-training-step-returns-nothing`` rule (``mlsleuth/scan/rules/training_loop/lightning_training_step_returns_nothing.py``)."""

from __future__ import annotations

from scan.helpers import check, check_project

RULE = {"lightning-training-step-returns-nothing"}


def test_training_step_that_only_logs_the_loss():
    src = """
        import pytorch_lightning as pl
        import torch.nn.functional as F

        class Classifier(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                x, y = batch
                loss = F.cross_entropy(self(x), y)
                self.log("train_loss", loss)  # expect: lightning-training-step-returns-nothing

            def configure_optimizers(self):
                return None
        """
    check(src, RULE)


def test_returning_the_loss_a_dict_or_none_on_one_path_is_fine():
    src = """
        import lightning as L
        import torch

        class A(L.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self(batch).mean()
                if not torch.isfinite(loss):
                    return None  # skip this batch on purpose
                return loss

        class B(L.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self(batch).mean()
                return {"loss": loss, "log": {"loss": loss}}

        class Base(L.LightningModule):
            def training_step(self, batch, batch_idx):
                raise NotImplementedError
        """
    check(src, RULE)


def test_manual_optimization_needs_no_return():
    src = """
        import lightning.pytorch as pl

        class GAN(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt_g, opt_d = self.optimizers()
                loss = self(batch).mean()
                self.manual_backward(loss)
                opt_g.step()
                opt_g.zero_grad()
        """
    check(src, RULE)


def test_plain_module_with_a_training_step_method_is_not_lightning():
    src = """
        import torch.nn as nn

        class Net(nn.Module):
            def training_step(self, batch, opt):
                loss = self(batch).mean()
                loss.backward()
                opt.step()
        """
    check(src, RULE)


def test_lightning_base_class_in_another_module(tmp_path):
    files = {
        "base.py": """
            import lightning.pytorch as pl

            class BaseModule(pl.LightningModule):
                def configure_optimizers(self):
                    return None
        """,
        "model.py": """
            import torch.nn.functional as F
            from base import BaseModule

            class Tagger(BaseModule):
                def training_step(self, batch, batch_idx):
                    loss = F.cross_entropy(self(batch["x"]), batch["y"])
                    self.log("loss", loss)  # expect: lightning-training-step-returns-nothing
        """,
    }
    check_project(tmp_path, files, RULE)
