import random

import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import BlobSegmentation


class SegHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU())
        self.classifier = nn.Conv2d(16, 2, 1)

    def forward(self, x):
        return self.classifier(self.stem(x))


def pixel_accuracy(logits, mask):
    return (logits.argmax(1) == mask).float().mean().item()


class Trainer:
    def __init__(self, net, lr):
        self.net = net
        self.opt = torch.optim.Adam(net.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for step, (image, mask) in enumerate(loader):
                logits = self.net(image)
                loss = self.criterion(logits, mask)
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            print(f"epoch {epoch} loss {loss.item():.4f} pixel_acc {pixel_accuracy(logits, mask):.3f}")


if __name__ == "__main__":
    random.seed(0)
    torch.manual_seed(0)
    loader = DataLoader(BlobSegmentation(800), batch_size=32, shuffle=True)
    Trainer(SegHead(), lr=1e-2).fit(loader, epochs=5)
