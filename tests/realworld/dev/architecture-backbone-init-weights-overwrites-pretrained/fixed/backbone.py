import torch
import torch.nn as nn
from mmseg.registry import MODELS
from mmengine.model import BaseModule


@MODELS.register_module()
class DinoVisionBackbone(BaseModule):
    def __init__(self, size="base", freeze_vit=True, out_indices=(3, 5, 7, 11), init_cfg=None):
        super().__init__(init_cfg=init_cfg)
        self.backbone = torch.hub.load("facebookresearch/dinov2", f"dinov2_vit{size[0]}14")
        self.out_indices = out_indices
        self.freeze_vit = freeze_vit
        if freeze_vit:
            for p in self.backbone.parameters():
                p.requires_grad = False

    def init_weights(self):
        for name, m in self.named_modules():
            if name.startswith("backbone."):
                continue
            if isinstance(m, nn.Linear):
                nn.init.trunc_normal_(m.weight, std=0.02)
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.LayerNorm):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, x):
        feats = self.backbone.get_intermediate_layers(x, n=self.out_indices, reshape=True)
        return tuple(feats)
