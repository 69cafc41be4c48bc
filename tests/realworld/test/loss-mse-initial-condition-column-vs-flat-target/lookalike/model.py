import torch.nn as nn


class PINN(nn.Module):
    def __init__(self, in_dim=3, width=64, depth=3):
        super().__init__()
        layers = [nn.Linear(in_dim, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        self.net = nn.Sequential(*layers)
        self.out = nn.Linear(width, 1)

    def forward(self, xyt):
        return self.out(self.net(xyt))
