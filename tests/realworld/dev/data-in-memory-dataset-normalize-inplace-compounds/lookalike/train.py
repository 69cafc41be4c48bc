import torch
from torch import nn

from data import build_loaders
from transforms import Compose, Normalize, RandomHFlip

MEAN, STD = [0.5], [0.2]


class SmallCNN(nn.Module):
    def __init__(self, n_classes=2):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.head = nn.Linear(16, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
            total += y.numel()
    model.train()
    return correct / total


def main():
    torch.manual_seed(0)
    train_tf = Compose([RandomHFlip(), Normalize(MEAN, STD)])
    eval_tf = Normalize(MEAN, STD)
    train_loader, val_loader = build_loaders(train_tf, eval_tf, batch_size=64)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(5):
        total, seen, scale = 0.0, 0, 0.0
        for x, y in train_loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
            total += loss.item() * y.numel()
            seen += y.numel()
            scale = max(scale, x.abs().max().item())
        print(f"epoch {epoch} loss {total / seen:.4f} max|x| {scale:.1f}")
    print(f"final val_acc {evaluate(model, val_loader):.3f}")


if __name__ == "__main__":
    main()
