"""The ``plateau-mode-mismatch`` rule (``mlsleuth/scan/rules/hyperparameter/plateau_mode_mismatch.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"plateau-mode-mismatch"}


def test_max_mode_on_a_loss_and_default_mode_on_an_accuracy():
    src = """
        import torch
        from torch.optim.lr_scheduler import ReduceLROnPlateau

        class Trainer:
            def __init__(self, model):
                self.opt = torch.optim.Adam(model.parameters())
                self.sched = ReduceLROnPlateau(self.opt, "max", patience=3)  # expect: plateau-mode-mismatch

            def end_epoch(self, metrics):
                self.sched.step(metrics["val_loss"])

        def fit(model, evaluate, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5)  # expect: plateau-mode-mismatch
            for epoch in range(epochs):
                val_acc = evaluate(model)
                plateau.step(val_acc)

        def configure_optimizers(self):
            opt = torch.optim.Adam(self.parameters())
            return {"optimizer": opt, "lr_scheduler": {
                "scheduler": ReduceLROnPlateau(opt, mode="max"),  # expect: plateau-mode-mismatch
                "monitor": "val/loss"}}
        """
    check(src, RULE)


def test_matching_modes_and_unnamed_values_stay_silent():
    src = """
        import torch
        from torch.optim.lr_scheduler import ReduceLROnPlateau

        def fit(model, evaluate, epochs):
            opt = torch.optim.SGD(model.parameters(), lr=0.1)
            a = ReduceLROnPlateau(opt, mode="max")
            b = ReduceLROnPlateau(opt)
            c = ReduceLROnPlateau(opt, mode="min")
            d = ReduceLROnPlateau(opt, mode="max")
            for epoch in range(epochs):
                val_auroc, val_loss, value = evaluate(model)
                a.step(val_auroc)
                b.step(val_loss.item())
                c.step(value)
                d.step(-val_loss)
        """
    check(src, RULE)
