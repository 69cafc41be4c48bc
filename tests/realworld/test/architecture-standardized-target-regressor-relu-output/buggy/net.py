import torch.nn as nn


class HousingNet(nn.Module):
    def __init__(self, n_in, widths=(64, 32)):
        super().__init__()
        layers, d = [], n_in
        for w in widths:
            layers += [nn.Linear(d, w), nn.ReLU()]
            d = w
        self.body = nn.Sequential(*layers)
        self.regressor = nn.Sequential(nn.Linear(d, 1), nn.ReLU())

    def forward(self, x):
        return self.regressor(self.body(x)).squeeze(-1)
