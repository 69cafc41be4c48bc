import torch
import torch.nn as nn
import torchvision
from torchvision.models import ViT_B_16_Weights


def build_extractor(device):
    # ViT-B/16: LayerNorm only and dropout probabilities of 0.0, so train/eval mode give identical features
    net = torchvision.models.vit_b_16(weights=ViT_B_16_Weights.IMAGENET1K_V1)
    net.heads = nn.Identity()
    return net.to(device)


@torch.no_grad()
def embed(extractor, loader, device):
    feats = []
    for images, _ in loader:
        feats.append(extractor(images.to(device)).cpu())
    return torch.cat(feats)
