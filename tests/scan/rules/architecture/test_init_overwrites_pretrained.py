"""The ``init-overwrites-pretrained`` rule (``mlsleuth/scan/rules/architecture/init_overwrites_pretrained.py``)."""

from __future__ import annotations

from scan.helpers import check

RULE = {"init-overwrites-pretrained"}


def test_whole_model_initialisation_after_a_pretrained_load():
    src = """
        import timm
        import torch
        import torch.nn as nn
        from transformers import AutoModel
        from mmengine.model import BaseModule

        class Classifier(nn.Module):
            def __init__(self, n_classes):
                super().__init__()
                self.encoder = timm.create_model("vit_small_patch16_224", pretrained=True, num_classes=0)
                self.head = nn.Linear(self.encoder.num_features, n_classes)
                self.apply(self._init_weights)  # expect: init-overwrites-pretrained

            def _init_weights(self, m):
                if isinstance(m, nn.Linear):
                    nn.init.trunc_normal_(m.weight, std=0.02)
                    if m.bias is not None:
                        nn.init.zeros_(m.bias)

        class TextTagger(nn.Module):
            def __init__(self, name, n_tags):
                super().__init__()
                self.bert = AutoModel.from_pretrained(name)
                self.tagger = nn.Linear(self.bert.config.hidden_size, n_tags)
                self.init_weights()

            def init_weights(self):
                for module in self.modules():  # expect: init-overwrites-pretrained
                    if isinstance(module, (nn.Linear, nn.Embedding)):
                        module.weight.data.normal_(mean=0.0, std=0.02)

        class Backbone(BaseModule):
            def __init__(self, init_cfg=None):
                super().__init__(init_cfg=init_cfg)
                self.vit = torch.hub.load("facebookresearch/dinov2", "dinov2_vits14")

            def init_weights(self):
                for m in self.modules():  # expect: init-overwrites-pretrained
                    if isinstance(m, nn.LayerNorm):
                        nn.init.ones_(m.weight)
                        nn.init.zeros_(m.bias)
        """
    check(src, RULE)


def test_initialising_only_the_new_layers_or_before_the_load_is_fine():
    src = """
        import timm
        import torch.nn as nn
        from torchvision.models import resnet50, ResNet50_Weights
        from transformers import AutoModel

        class HeadOnly(nn.Module):
            def __init__(self, n_classes):
                super().__init__()
                self.encoder = timm.create_model("resnet50", pretrained=True, num_classes=0)
                self.head = nn.Sequential(nn.Linear(2048, 512), nn.ReLU(), nn.Linear(512, n_classes))
                self.head.apply(self._init_weights)

            def _init_weights(self, m):
                if isinstance(m, nn.Linear):
                    nn.init.xavier_uniform_(m.weight)

        class SkipsTheBackbone(nn.Module):
            def __init__(self, n_classes):
                super().__init__()
                self.backbone = resnet50(weights=ResNet50_Weights.DEFAULT)
                self.fc = nn.Linear(1000, n_classes)
                for name, m in self.named_modules():
                    if name.startswith("backbone"):
                        continue
                    if isinstance(m, nn.Linear):
                        nn.init.zeros_(m.bias)

        class InitThenLoad(nn.Module):
            def __init__(self, name):
                super().__init__()
                self.proj = nn.Linear(768, 128)
                self.apply(self._init)
                self.text = AutoModel.from_pretrained(name)

            def _init(self, m):
                if isinstance(m, nn.Linear):
                    nn.init.normal_(m.weight, std=0.02)

        class Optional(nn.Module):
            def __init__(self, pretrained):
                super().__init__()
                self.encoder = timm.create_model("resnet18", pretrained=pretrained)
                self.head = nn.Linear(512, 10)
                if not pretrained:
                    self.apply(self._init)

            def _init(self, m):
                if isinstance(m, nn.Conv2d):
                    nn.init.kaiming_normal_(m.weight)

        class NothingReinitialised(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = timm.create_model("resnet18", pretrained=True)
                for m in self.modules():
                    if isinstance(m, nn.BatchNorm2d):
                        m.momentum = 0.01
        """
    check(src, RULE)
