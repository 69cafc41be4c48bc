import torch
import torch.nn as nn
import torchvision
from torchvision.models import Inception_V3_Weights


def build_extractor(device):
    net = torchvision.models.inception_v3(weights=Inception_V3_Weights.IMAGENET1K_V1, aux_logits=True)
    net.fc = nn.Identity()
    return net.to(device)


@torch.no_grad()
def embed(extractor, loader, device):
    feats = []
    for images, _ in loader:
        out = extractor(images.to(device))
        out = out.logits if hasattr(out, "logits") else out
        feats.append(out.cpu())
    return torch.cat(feats)
