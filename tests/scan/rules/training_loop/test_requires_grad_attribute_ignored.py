"""The ``requires-grad-attribute-ignored`` rule (``mlsleuth/scan/rules/training_loop/requires_grad_attribute_ignored.py``)."""

from __future__ import annotations

import pytest
from scan.helpers import check, check_project, findings

RG = {"requires-grad-attribute-ignored"}


def test_flag_set_on_a_submodule_of_a_project_model():
    check(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
                self.head = nn.Linear(8, 2)
                self.scale = nn.Parameter(torch.ones(1))

            def forward(self, x):
                return self.head(self.encoder(x)) * self.scale

            def freeze_encoder(self):
                self.encoder.requires_grad = False  # expect: requires-grad-attribute-ignored

        model = Net()
        model.head.requires_grad = True  # expect: requires-grad-attribute-ignored
        model.scale.requires_grad = False
        """,
        RG,
    )


def test_flag_set_on_library_models_and_iterated_modules():
    check(
        """
        import torchvision
        from transformers import AutoModelForSequenceClassification

        net = torchvision.models.resnet18(weights="DEFAULT").to("cuda")
        net.layer4.requires_grad = False  # expect: requires-grad-attribute-ignored
        bert = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
        bert.bert.embeddings.requires_grad = False  # expect: requires-grad-attribute-ignored
        for name, child in bert.named_children():
            if name != "classifier":
                child.requires_grad = False  # expect: requires-grad-attribute-ignored
        for m in net.modules():
            m.requires_grad = False  # expect: requires-grad-attribute-ignored
        """,
        RG,
    )


def test_flag_set_on_self_in_a_lightning_module():
    check(
        """
        import lightning as L
        import torch.nn as nn

        class Probe(L.LightningModule):
            def __init__(self, backbone):
                super().__init__()
                self.backbone = backbone
                self.head = nn.Linear(16, 3)

            def on_fit_start(self):
                self.requires_grad = True  # expect: requires-grad-attribute-ignored
                self.head.requires_grad = True  # expect: requires-grad-attribute-ignored
        """,
        RG,
    )


def test_misspelt_flag_on_parameters():
    check(
        """
        import torchvision

        vgg = torchvision.models.vgg16(weights="DEFAULT")
        for param in vgg.features.parameters():
            param.require_grad = False  # expect: requires-grad-attribute-ignored
        for p in vgg.classifier.parameters():
            p.requires_grad_ = True  # expect: requires-grad-attribute-ignored
        """,
        RG,
    )


def test_message_names_the_fix():
    msgs = [
        f.message
        for f in findings(
            """
            import torch.nn as nn
            enc = nn.LSTM(4, 4)
            enc.requires_grad = False
            """,
            "requires-grad-attribute-ignored",
        )
    ]
    assert len(msgs) == 1 and "enc.requires_grad_(False)" in msgs[0]


def test_real_freezes_and_tensors_are_fine():
    check(
        """
        import torch
        import torch.nn as nn
        import torchvision

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = nn.Linear(8, 8)
                self.pos_embed = nn.Parameter(torch.zeros(1, 8))
                self.pos_embed.requires_grad = False

        model = Net()
        for p in model.encoder.parameters():
            p.requires_grad = False
        model.encoder.requires_grad_(False)
        model.encoder.weight.requires_grad = False
        x = torch.randn(3, 8)
        x.requires_grad = True
        net = torchvision.models.resnet18()
        net.fc.weight.requires_grad = False
        for name, p in net.named_parameters():
            p.requires_grad = "fc" in name

        def freeze(layer):
            layer.requires_grad = False   # unknown: a parameter nobody binds
        """,
        RG,
    )


def test_own_flags_that_are_read_back_are_fine():
    check(
        """
        import torch.nn as nn

        class Gate(nn.Module):
            def __init__(self):
                super().__init__()
                self.requires_grad = True
                self.lin = nn.Linear(2, 2)

            def forward(self, x):
                if not self.requires_grad:
                    x = x.detach()
                return self.lin(x)

        class Config:
            def __init__(self):
                self.require_grad = False

        cfg = Config()
        cfg.require_grad = True
        if cfg.require_grad:
            pass
        gate = Gate()
        gate.requires_grad = False
        """,
        RG,
    )


# Shapes written independently by another author of the same family (devG, session 10).


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
    check(src, RG)


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
    check(src, RG)


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
    check_project(tmp_path, files, RG)


def test_flag_set_on_detached_aliases_of_parameters():
    check(
        """
        import torch
        import torchvision

        net = torchvision.models.resnet50(weights="DEFAULT")
        for name, value in net.state_dict().items():
            if not name.startswith("fc"):
                value.requires_grad = False  # expect: requires-grad-attribute-ignored

        sd = net.state_dict()
        for v in sd.values():
            v.requires_grad_(False)  # expect: requires-grad-attribute-ignored
        sd["fc.weight"].requires_grad = True  # expect: requires-grad-attribute-ignored

        def freeze_text_encoder(clip):
            for p in clip.text_model.parameters():
                p.data.requires_grad = False  # expect: requires-grad-attribute-ignored
            clip.logit_scale.detach().requires_grad_(False)  # expect: requires-grad-attribute-ignored
            clip.visual_projection.weight.data.requires_grad_(False)  # expect: requires-grad-attribute-ignored
        """,
        RG,
    )


def test_flag_on_parameters_or_kept_detached_leaves_is_silent():
    check(
        """
        import torch

        def attack(model, x, y, eps):
            x_adv = x.detach().requires_grad_(True)
            loss = torch.nn.functional.cross_entropy(model(x_adv), y)
            return x_adv + eps * torch.autograd.grad(loss, x_adv)[0].sign()

        def freeze(model):
            for name, p in model.named_parameters():
                p.requires_grad = False
            for v in model.state_dict(keep_vars=True).values():
                v.requires_grad = False
            for k, v in model.named_parameters():
                v.data.zero_()

        class Holder:
            def __init__(self, t):
                self.data = t
                self.data.requires_grad = True
                probe = t.data
                probe.requires_grad = True
        """,
        RG,
    )
