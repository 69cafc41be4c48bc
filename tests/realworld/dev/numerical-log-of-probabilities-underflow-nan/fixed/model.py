import torch
import torch.nn as nn


class SensorClassifier(nn.Module):
    def __init__(self, n_channels=20, n_classes=4, hidden=128):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(n_channels, hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))

    def predict_proba(self, x):
        return torch.softmax(self.forward(x), dim=-1)
