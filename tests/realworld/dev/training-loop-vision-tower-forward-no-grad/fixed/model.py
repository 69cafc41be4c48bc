import torch
import torch.nn as nn


class VisionTower(nn.Module):
    def __init__(self, in_dim=32, feat_dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 64), nn.GELU(), nn.Linear(64, feat_dim))

    def forward(self, images):
        return self.encoder(images)


class Connector(nn.Module):
    def __init__(self, feat_dim=4, hidden=64, n_out=5):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(feat_dim, hidden), nn.GELU(), nn.Linear(hidden, n_out))

    def forward(self, feats):
        return self.mlp(feats)


class TinyVLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = VisionTower()
        self.connector = Connector()

    def forward(self, images):
        return self.connector(self.vision_tower(images))
