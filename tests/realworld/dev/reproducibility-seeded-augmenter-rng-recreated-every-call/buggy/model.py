from torch import nn


class HARConvNet(nn.Module):
    def __init__(self, in_channels=3, n_classes=6, width=64):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(in_channels, width, 7, padding=3), nn.BatchNorm1d(width), nn.ReLU(),
            nn.Conv1d(width, width, 5, padding=2), nn.BatchNorm1d(width), nn.ReLU(),
            nn.MaxPool1d(2),
            nn.Conv1d(width, 2 * width, 3, padding=1), nn.BatchNorm1d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1),
        )
        self.classifier = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))
