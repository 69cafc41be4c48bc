import torch
import torch.nn as nn
from torchvision.models import resnet50


def load_backbone(path, num_classes):
    net = resnet50()
    net.fc = nn.Linear(net.fc.in_features, num_classes)
    state = torch.load(path, map_location="cpu")
    state = {k: v for k, v in state.items() if not k.startswith("fc.")}
    result = net.load_state_dict(state, strict=False)
    assert set(result.missing_keys) == {"fc.weight", "fc.bias"}, result.missing_keys
    assert not result.unexpected_keys, result.unexpected_keys
    return net
