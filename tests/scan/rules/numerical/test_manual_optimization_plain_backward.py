"""The ``manual-optimization-plain-backward`` rule (``mlsleuth/scan/rules/numerical/manual_optimization_plain_backward.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

MB = {"manual-optimization-plain-backward"}


def test_gan_with_plain_backward_under_16_mixed():
    check(
        """
        import torch
        import lightning as L

        class GAN(L.LightningModule):
            def __init__(self, g, d):
                super().__init__()
                self.g, self.d = g, d
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt_g, opt_d = self.optimizers()
                d_loss = self.d_loss(batch)
                opt_d.zero_grad()
                d_loss.backward()  # expect: manual-optimization-plain-backward
                opt_d.step()
                g_loss = -self.d(self.g(torch.randn(8, 16))).mean()
                opt_g.zero_grad()
                torch.autograd.backward(g_loss)  # expect: manual-optimization-plain-backward
                opt_g.step()

        trainer = L.Trainer(precision="16-mixed", max_epochs=10)
        """,
        MB,
    )


def test_deepspeed_strategy_and_pytorch_lightning_import():
    check(
        """
        import pytorch_lightning as pl

        class Distill(pl.LightningModule):
            def __init__(self, student, teacher):
                super().__init__()
                self.automatic_optimization = False
                self.student, self.teacher = student, teacher

            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                loss = self.kd_loss(batch)
                opt.zero_grad()
                loss.backward(retain_graph=False)  # expect: manual-optimization-plain-backward
                opt.step()

        def main():
            trainer = pl.Trainer(strategy="deepspeed_stage_2", precision=16)
        """,
        MB,
    )


def test_message_names_manual_backward():
    got = findings(
        """
        import lightning as L

        class M(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                loss = self.net(batch).mean()
                loss.backward()
                self.optimizers().step()

        L.Trainer(precision=16)
        """,
        "manual-optimization-plain-backward",
    )
    assert len(got) == 1 and "self.manual_backward" in got[0].message


def test_manual_backward_fp32_or_automatic_are_fine():
    check(
        """
        import torch
        import lightning as L

        class A(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                self.manual_backward(self.net(batch).mean())
                opt.step()

        class B(L.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self.net(batch).mean()
                return loss

            def probe(self, x):
                x.requires_grad_(True)
                self.net(x).sum().backward()

        trainer = L.Trainer(precision="16-mixed")
        """,
        MB,
    )


def test_fp32_trainer_is_fine():
    check(
        """
        import lightning as L

        class M(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                loss = self.net(batch).mean()
                loss.backward()
                self.optimizers().step()

        trainer = L.Trainer(precision="bf16-mixed")
        """,
        MB,
    )
