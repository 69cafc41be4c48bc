import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from data import DigitsDataset


def preprocess(img):
    img = img / 255.0
    return (img - 0.5) / 0.5


class TinyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(32, 2)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def run_epoch(net, loader, opt, objective):
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        loss = objective(net(x), y)
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(loader)


def accuracy(net, loader):
    with torch.no_grad():
        hits = sum((net(x).argmax(1) == y).sum().item() for x, y in loader)
    return hits / len(loader.dataset)


if __name__ == "__main__":
    torch.manual_seed(0)
    train_dl = DataLoader(DigitsDataset(2000, 0, transform=preprocess), batch_size=64, shuffle=True)
    test_dl = DataLoader(DigitsDataset(500, 1, transform=preprocess), batch_size=256)
    net = TinyNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    objective = nn.CrossEntropyLoss()
    for epoch in range(6):
        loss = run_epoch(net, train_dl, opt, objective)
        print(f"epoch {epoch} loss {loss:.4f} test_acc {accuracy(net, test_dl):.3f}")
