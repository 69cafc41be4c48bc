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
