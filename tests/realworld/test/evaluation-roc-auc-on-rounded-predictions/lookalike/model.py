import torch.nn as nn


class MelCNN(nn.Module):
    def __init__(self, n_mels=80, n_filters=(16, 32, 64)):
        super().__init__()
        layers, in_ch = [], 1
        for out_ch in n_filters:
            layers += [nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch),
                       nn.ReLU(inplace=True), nn.MaxPool2d(2)]
            in_ch = out_ch
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.3)
        self.fc = nn.Linear(in_ch, 1)

    def forward(self, x):
        x = self.pool(self.features(x)).flatten(1)
        return self.fc(self.dropout(x)).squeeze(1)
