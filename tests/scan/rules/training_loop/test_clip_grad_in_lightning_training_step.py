"""The ``clip-grad-in-lightning-training-step`` rule (``mlsleuth/scan/rules/training_loop/clip_grad_in_lightning_training_step.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"clip-grad-in-lightning-training-step"}


def test_clip_inside_training_step_and_in_a_helper_it_calls():
    src = """
        import pytorch_lightning as pl
        import torch
        from torch.nn.utils import clip_grad_value_

        class Dyn(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                loss = self(batch).pow(2).mean()
                norm = torch.nn.utils.clip_grad_norm_(self.parameters(), 1.0)  # expect: clip-grad-in-lightning-training-step
                self._tidy()
                self.log("grad_norm", norm)
                return loss

            def _tidy(self):
                clip_grad_value_(self.parameters(), 0.5)  # expect: clip-grad-in-lightning-training-step
        """
    check(src, RULE)


def test_clip_in_the_hooks_that_run_after_backward_or_under_manual_optimization_is_fine():
    src = """
        import lightning.pytorch as pl
        import torch

        class Hooked(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                return self(batch).mean()

            def on_before_optimizer_step(self, optimizer):
                torch.nn.utils.clip_grad_norm_(self.parameters(), 1.0)

            def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
                self.clip_gradients(optimizer, gradient_clip_val=1.0, gradient_clip_algorithm="norm")

        class Manual(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False

            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                self.manual_backward(self(batch).mean())
                self.clip_gradients(opt, gradient_clip_val=1.0, gradient_clip_algorithm="norm")
                opt.step()
                opt.zero_grad()
        """
    check(src, RULE)
