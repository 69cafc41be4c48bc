import torch.nn as nn
import torch.nn.functional as F
from torchvision.models.segmentation import deeplabv3_resnet50


def build_model(num_classes, pretrained_backbone=True):
    weights_backbone = "IMAGENET1K_V1" if pretrained_backbone else None
    return deeplabv3_resnet50(weights=None, weights_backbone=weights_backbone, num_classes=num_classes)


def segmentation_logits(model, images):
    out = model(images)["out"]
    if out.shape[-2:] != images.shape[-2:]:
        out = F.interpolate(out, size=images.shape[-2:], mode="bilinear", align_corners=False)
    return out
