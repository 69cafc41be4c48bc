import torch.nn as nn
from torchvision import models


def set_parameter_requires_grad(model, feature_extracting):
    if feature_extracting:
        for param in model.parameters():
            param.requires_grad = False


def initialize_model(num_classes, feature_extract=False, use_pretrained=True):
    weights = models.GoogLeNet_Weights.IMAGENET1K_V1 if use_pretrained else None
    model_ft = models.googlenet(weights=weights, aux_logits=True, init_weights=not use_pretrained)
    set_parameter_requires_grad(model_ft, feature_extract)
    model_ft.aux1.fc2 = nn.Linear(model_ft.aux1.fc2.in_features, num_classes)
    model_ft.aux2.fc2 = nn.Linear(model_ft.aux2.fc2.in_features, num_classes)
    model_ft.fc = nn.Linear(model_ft.fc.in_features, num_classes)
    input_size = 224
    return model_ft, input_size


def params_to_update(model, feature_extract):
    if not feature_extract:
        return list(model.parameters())
    return [p for p in model.parameters() if p.requires_grad]
