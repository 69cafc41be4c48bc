"""A realistic small CNN: argparse main(), DataLoader with worker processes, BatchNorm, Dropout, eval()."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class SmallCNN(nn.Module):
    def __init__(self, classes: int = 5):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(16, classes))

    def forward(self, x):
        return self.classifier(self.features(x))


def make_data(n: int, classes: int, generator: torch.Generator):
    labels = torch.randint(0, classes, (n,), generator=generator)
    images = torch.randn(n, 1, 12, 12, generator=generator) * 0.5
    for c in range(classes):  # each class lights up its own row band
        images[labels == c, :, 2 * c : 2 * c + 2, :] += 1.5
    return TensorDataset(images, labels)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    g = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    train = DataLoader(make_data(1024, 5, g), batch_size=32, shuffle=True, num_workers=args.workers)
    val = DataLoader(make_data(256, 5, g), batch_size=64)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        for images, labels in train:
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(model(images), labels)
            loss.backward()
            opt.step()
        model.eval()
        correct = 0
        with torch.no_grad():
            for images, labels in val:
                correct += (model(images).argmax(1) == labels).sum().item()
        print(f"epoch {epoch}: loss {loss.item():.3f} val acc {correct / 256:.3f}")


if __name__ == "__main__":
    main()
