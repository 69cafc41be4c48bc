import torch
from torch import nn


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b1 = nn.BatchNorm2d(ch)
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.b2 = nn.BatchNorm2d(ch)

    def forward(self, x):
        y = torch.relu(self.b1(self.c1(x)))
        return torch.relu(x + self.b2(self.c2(y)))


class PolicyValueNet(nn.Module):
    def __init__(self, planes=18, ch=64, blocks=6, board=9):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(planes, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU())
        self.tower = nn.Sequential(*[ResBlock(ch) for _ in range(blocks)])
        self.policy = nn.Sequential(nn.Conv2d(ch, 2, 1), nn.Flatten(), nn.Linear(2 * board * board, board * board + 1))
        self.value = nn.Sequential(nn.Conv2d(ch, 1, 1), nn.Flatten(), nn.Linear(board * board, 64), nn.ReLU(), nn.Linear(64, 1), nn.Tanh())

    def forward(self, x):
        h = self.tower(self.stem(x))
        return self.policy(h), self.value(h)


def load_model(path, device):
    ckpt = torch.load(path, map_location=device)
    net = PolicyValueNet(**ckpt["hparams"])
    net.load_state_dict(ckpt["state_dict"])
    return net.to(device)
