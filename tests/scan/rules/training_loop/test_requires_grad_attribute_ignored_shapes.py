"""The ``requires-grad-attribute-ignored`` rule (``mlsleuth/scan/rules/training_loop/module_requires_grad_attribute.py``)."""

from __future__ import annotations

import pytest

from scan.helpers import check, check_project

RULE = {"requires-grad-attribute-ignored"}


def test_requires_grad_set_on_modules_in_one_file():
    src = """
    import torch
    import torchvision
    from torch import nn
    from transformers import BertModel

    class ViT(nn.Module):
        def __init__(self, depth=12):
            super().__init__()
            self.patch = nn.Conv2d(3, 64, 16, 16)
            self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(64, 4) for _ in range(depth)])
            self.head = nn.Linear(64, 10)

    def freeze(module):
        module.requires_grad = False  # expect: requires-grad-attribute-ignored

    def build():
        backbone = torchvision.models.resnet50(weights="DEFAULT")
        backbone.requires_grad = False  # expect: requires-grad-attribute-ignored
        bert = BertModel.from_pretrained("bert-base-uncased")
        bert.requires_grad = False  # expect: requires-grad-attribute-ignored
        model = ViT()
        for blk in model.blocks[:6]:
            blk.requires_grad = False  # expect: requires-grad-attribute-ignored
        model.patch.requires_grad = False  # expect: requires-grad-attribute-ignored
        for name, child in model.named_children():
            if name != "head":
                child.requires_grad = False  # expect: requires-grad-attribute-ignored
        freeze(model.head)
        return torch.optim.Adam(model.parameters(), lr=1e-4)

    class Finetuner(nn.Module):
        def __init__(self, encoder, trainable):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
            self.encoder.requires_grad = trainable  # expect: requires-grad-attribute-ignored
    """
    check(src, RULE)


def test_tensors_parameters_and_module_methods_are_fine():
    src = """
    import torch
    from torch import nn

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.pos_embed = nn.Parameter(torch.zeros(1, 197, 64))
            self.cls_token = nn.Parameter(torch.zeros(1, 1, 64))
            self.head = nn.Linear(64, 10)

    class GatedLayer(nn.Module):
        '''A layer with its own on/off flag, read in forward.'''
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.requires_grad = True

        def forward(self, x):
            return self.lin(x) if self.requires_grad else self.lin(x).detach()

    def build(cfg):
        model = ViT()
        model.pos_embed.requires_grad = False
        model.cls_token.requires_grad = False
        model.head.weight.requires_grad = False
        for p in model.parameters():
            p.requires_grad = False
        for name, p in model.named_parameters():
            p.requires_grad = "head" in name
        model.head.requires_grad_(False)
        x = torch.randn(3, 4)
        x.requires_grad = True
        cfg.requires_grad = False
        gate = GatedLayer()
        gate.requires_grad = False
        return x
    """
    check(src, RULE)


def test_submodule_frozen_through_a_model_defined_in_another_module(tmp_path):
    pytest.importorskip("torch")
    files = {
        "model.py": """
            import torch
            from torch import nn

            class OutConv(nn.Module):
                def __init__(self, c, n):
                    super().__init__()
                    self.conv = nn.Conv2d(c, n, 1)

                def forward(self, x):
                    return self.conv(x)

            class UNet(nn.Module):
                def __init__(self, n_classes=3):
                    super().__init__()
                    self.body = nn.Conv2d(1, 16, 3, padding=1)
                    self.outc = OutConv(16, n_classes)
                    self.temperature = nn.Parameter(torch.ones(1))

                def forward(self, x):
                    return self.outc(self.body(x))
        """,
        "adapt.py": """
            import torch
            from model import UNet

            class Adapter:
                def __init__(self, device="cpu"):
                    self.model = UNet().to(device)
                    self.model.outc.requires_grad = False  # expect: requires-grad-attribute-ignored
                    self.model.temperature.requires_grad = False
                    for p in self.model.outc.parameters():
                        p.requires_grad = False
                    self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)
        """,
    }
    check_project(tmp_path, files, RULE)
