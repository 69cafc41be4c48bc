import torch.nn as nn


def build_criterion(cfg):
    return nn.CrossEntropyLoss(label_smoothing=cfg.label_smoothing)
