"""The ``unfrozen-after-optimizer-built`` rule (``mlsleuth/scan/rules/training_loop/unfrozen_after_optimizer_built.py``)."""

from __future__ import annotations

from scan.helpers import check

UF = {"unfrozen-after-optimizer-built"}


def test_gradual_unfreezing_after_filtered_optimizer():
    check(
        """
        import torch

        def finetune(model, loader, train_epoch, epochs):
            for p in model.backbone.parameters():
                p.requires_grad = False
            opt = torch.optim.AdamW(filter(lambda p: p.requires_grad, model.parameters()), lr=1e-4)
            for epoch in range(epochs):
                if epoch == 5:
                    model.backbone.requires_grad_(True)  # expect: unfrozen-after-optimizer-built
                train_epoch(model, loader, opt)
        """,
        UF,
    )


def test_unfreeze_with_rebuilt_optimizer_or_unfiltered_params_is_fine():
    check(
        """
        import torch

        def a(model):
            model.backbone.requires_grad_(False)
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
            model.backbone.requires_grad_(True)
            return opt

        def b(model):
            model.backbone.requires_grad_(False)
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
            model.backbone.requires_grad_(True)
            opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
            return opt
        """,
        UF,
    )


def test_unfreeze_in_a_later_hook_or_method_of_the_class():
    check(
        """
        import lightning as L
        import torch

        class Finetuner(L.LightningModule):
            def __init__(self, backbone, head):
                super().__init__()
                self.backbone, self.head = backbone, head
                self.backbone.requires_grad_(False)

            def configure_optimizers(self):
                return torch.optim.AdamW(filter(lambda p: p.requires_grad, self.parameters()), lr=1e-3)

            def on_train_epoch_start(self):
                if self.current_epoch == 3:
                    for p in self.backbone.parameters():
                        p.requires_grad = True  # expect: unfrozen-after-optimizer-built

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.freeze()
                self.opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)

            def freeze(self):
                self.model.encoder.requires_grad_(False)

            def unfreeze(self):
                self.model.encoder.requires_grad_(True)  # expect: unfrozen-after-optimizer-built
        """,
        UF,
    )


def test_unfreeze_before_fit_or_with_rebuilt_optimizers_is_silent():
    check(
        """
        import lightning as L
        import torch

        class Finetuner(L.LightningModule):
            def configure_optimizers(self):
                return torch.optim.AdamW(filter(lambda p: p.requires_grad, self.parameters()), lr=1e-3)

            def unfreeze_backbone(self):
                self.backbone.requires_grad_(True)

            def on_train_epoch_start(self):
                if self.current_epoch == 3:
                    self.backbone.requires_grad_(True)
                    self.trainer.strategy.setup_optimizers(self.trainer)

        class Trainer:
            def __init__(self, model):
                self.model = model
                self.prepare()
                self.opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)

            def prepare(self):
                self.model.requires_grad_(False)
                self.model.head.requires_grad_(True)

            def build_optimizer(self):
                self.opt = torch.optim.SGD([p for p in self.model.parameters() if p.requires_grad], lr=0.1)

            def unfreeze(self):
                self.model.requires_grad_(True)
                self.build_optimizer()
        """,
        UF,
    )
