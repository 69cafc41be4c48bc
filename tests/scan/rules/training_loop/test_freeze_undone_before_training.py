"""The ``freeze-undone-before-training`` rule (``mlsleuth/scan/rules/training_loop/freeze_undone_before_training.py``)."""

from __future__ import annotations

from scan.helpers import check, findings

FU = {"freeze-undone-before-training"}


def test_backbone_frozen_then_every_parameter_unfrozen():
    check(
        """
        import torch
        import torchvision

        model = torchvision.models.resnet50(weights="DEFAULT")
        for p in model.layer1.parameters():
            p.requires_grad = False
        model.fc = torch.nn.Linear(2048, 5)
        for name, p in model.named_parameters():  # expect: freeze-undone-before-training
            p.requires_grad = True
        opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.01)
        """,
        FU,
    )


def test_requires_grad_underscore_in_a_model_constructor():
    check(
        """
        import torch.nn as nn

        class Classifier(nn.Module):
            def __init__(self, encoder, n):
                super().__init__()
                self.encoder = encoder
                self.encoder.requires_grad_(False)
                self.head = nn.Linear(768, n)
                self.requires_grad_(True)  # expect: freeze-undone-before-training
        """,
        FU,
    )


def test_message():
    got = findings(
        """
        def setup(model):
            model.backbone.requires_grad_(False)
            for p in model.parameters():
                p.requires_grad_(True)
            return model
        """,
        "freeze-undone-before-training",
    )
    assert len(got) == 1 and "`model.backbone` frozen at line 2" in got[0].message


def test_partial_unfreeze_gradual_unfreeze_and_conditions_are_fine():
    check(
        """
        import torch

        def a(model):
            model.requires_grad_(False)
            model.head.requires_grad_(True)

        def b(model, loader, trainer):
            model.backbone.requires_grad_(False)
            trainer.fit(model, loader)
            model.requires_grad_(True)
            trainer.fit(model, loader)

        def c(model, args):
            model.backbone.requires_grad_(False)
            if args.full_finetune:
                model.requires_grad_(True)

        def d(model, freeze):
            for k, v in model.named_parameters():
                v.requires_grad = True
                if any(x in k for x in freeze):
                    v.requires_grad = False

        def e(model, make_model):
            model.backbone.requires_grad_(False)
            model = make_model()
            model.requires_grad_(True)
        """,
        FU,
    )


def test_discriminator_frozen_only_for_the_generator_forward_is_fine():
    # a GAN generator step: the discriminator is frozen while it scores the fakes, then unfrozen for its own step
    src = """
        def generator_forward(self, x):
            fake = self.generator(x)
            self.disc.requires_grad_(False)
            score_fake, feats = self.disc(fake)
            self.disc.requires_grad_()
            return fake, score_fake, feats

        def setup(model):
            model.encoder.requires_grad_(False)
            model.requires_grad_(True)  # expect: freeze-undone-before-training
            return model
        """
    check(src, FU)
