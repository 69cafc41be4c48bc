import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class SmallCNN(nn.Module):
    def __init__(self, n_classes=10, p_drop=0.3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Sequential(nn.Flatten(), nn.Dropout(p_drop), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.classifier(self.features(x))


class Trainer:
    def __init__(self, clf, optimizer, device):
        self.clf = clf.to(device)
        self.optimizer = optimizer
        self.device = device
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, loader):
        self.clf.train()
        running = 0.0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.clf(images), labels)
            loss.backward()
            self.optimizer.step()
            running += loss.item() * images.size(0)
        return running / len(loader.dataset)

    @torch.no_grad()
    def validate_epoch(self, loader):
        correct, seen = 0, 0
        for images, labels in loader:
            images, labels = images.to(self.device), labels.to(self.device)
            preds = self.clf(images).argmax(dim=1)
            correct += (preds == labels).sum().item()
            seen += labels.size(0)
        return correct / seen

    def fit(self, train_loader, val_loader, epochs):
        best = 0.0
        for epoch in range(epochs):
            tr_loss = self.train_epoch(train_loader)
            self.clf.eval()
            val_acc = self.validate_epoch(val_loader)
            best = max(best, val_acc)
            print(f"epoch {epoch}: train loss {tr_loss:.4f}  val acc {val_acc:.4f}  best {best:.4f}")
        return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--batch-size", type=int, default=128)
    args = parser.parse_args()

    tfm = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.25,) * 3)])
    train_set = datasets.CIFAR10("data", train=True, download=True, transform=tfm)
    val_set = datasets.CIFAR10("data", train=False, download=True, transform=tfm)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=4)
    val_loader = DataLoader(val_set, batch_size=args.batch_size, shuffle=False, num_workers=4)

    device = "cuda" if torch.cuda.is_available() else "cpu"
    clf = SmallCNN()
    optimizer = torch.optim.SGD(clf.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    Trainer(clf, optimizer, device).fit(train_loader, val_loader, args.epochs)


if __name__ == "__main__":
    main()
